"""The one interface the REST API uses to ask a worker anything (Kafka's ``Herder``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from kconnect_sdk import ConfigDef, MetricName, PluginKind

from kconnect_runtime.config import Redactor
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.plugins import PluginDesc
from kconnect_runtime.status import TargetState

__all__ = ["TaskMetricsView", "WorkerApi"]

TaskMetricsView = tuple[str, int, str, TaskMetrics, str]
"""(connector, task index, ``source``/``sink``, the task's metrics, its state)."""


class WorkerApi(Protocol):
    """What the REST API may ask of a worker; each herder implements it once.

    Every method is safe to call from REST handler threads. Errors a user can cause are
    ``NotFoundError`` (404), ``AlreadyExistsError`` (409), ``ConfigError`` and
    ``BadRequestError`` (400) and ``ForbiddenError`` (403), each with its message; bodies
    that are Kafka Connect entities (``ConnectorStateInfo``, ``ConfigInfos``, task states)
    come back as plain JSON-ready dicts, and REST's views add what is REST's own (masking,
    ``expand``, envelopes, status codes).
    """

    def is_started(self) -> bool:
        """Whether the worker has recovered or created its connectors (``GET /health``)."""
        ...

    # -- connectors ----------------------------------------------------------------------
    def connector_names(self) -> list[str]:
        """The connectors, sorted by name."""
        ...

    def connector_info(self, name: str) -> dict[str, Any]:
        """Kafka's ``ConnectorInfo``: name, config as submitted, tasks, type."""
        ...

    def password_keys(self, name: str) -> set[str]:
        """The connector's PASSWORD-typed config keys (REST hides their values)."""
        ...

    def redactor(self, name: str) -> Redactor:
        """What is secret in the connector's config: REST's bodies go through it."""
        ...

    def create_connector(
        self, props: Mapping[str, str], *, initial_state: TargetState = TargetState.STARTED
    ) -> object:
        """Validate a config, then start the connector in ``initial_state``."""
        ...

    def put_connector_config(self, name: str, config: Mapping[str, str]) -> tuple[bool, object]:
        """Create or replace a connector's config; ``(created, …)``."""
        ...

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> object:
        """Apply a partial config (KIP-477): a None value deletes the key."""
        ...

    def delete_connector(self, name: str) -> None: ...

    def pause_connector(self, name: str) -> None: ...

    def resume_connector(self, name: str) -> None: ...

    def stop_connector(self, name: str) -> None: ...

    def restart_connector(
        self, name: str, *, include_tasks: bool = False, only_failed: bool = False
    ) -> dict[str, Any] | None:
        """KIP-745: None when done at once, else the status showing what restarts."""
        ...

    # -- tasks and status ----------------------------------------------------------------
    def connector_status(self, name: str) -> dict[str, Any]:
        """Kafka's ``ConnectorStateInfo``, with running versions (KIP-891)."""
        ...

    def task_status(self, name: str, task: int) -> dict[str, Any]: ...

    def task_list(self, name: str) -> list[dict[str, Any]]:
        """Each task's id and stored config (secrets as their placeholders)."""
        ...

    def restart_task(self, name: str, task: int) -> None: ...

    def task_metrics(self) -> list[TaskMetricsView]:
        """Every running task's metrics, for ``GET /metrics``."""
        ...

    def plugin_metric_samples(self) -> list[tuple[MetricName, float]]:
        """The current values of the metrics plugins defined (KIP-877), for ``GET /metrics``."""
        ...

    # -- topics (KIP-558) and offsets (KIP-875) ------------------------------------------
    def connector_topics(self, name: str) -> list[str]: ...

    def reset_topics(self, name: str) -> None: ...

    def connector_offsets(self, name: str) -> list[dict[str, Any]]: ...

    def alter_offsets(self, name: str, entries: Sequence[Mapping[str, Any]]) -> str: ...

    def reset_offsets(self, name: str) -> str: ...

    # -- requests between workers (KIP-507) ---------------------------------------------------
    def put_task_configs(
        self,
        name: str,
        configs: Sequence[Mapping[str, str]] | None,
        *,
        headers: Mapping[str, str],
        body: bytes,
    ) -> None:
        """``POST /connectors/{name}/tasks``: another worker's task configs for the leader to
        write (None: the body is not a list of string maps); ``headers`` and the raw
        ``body`` carry and prove the request's signature."""
        ...

    def fence_zombies(self, name: str, *, headers: Mapping[str, str], body: bytes) -> None:
        """``PUT /connectors/{name}/fence``: zombie fencing of an exactly-once source
        connector, asked of the leader by another worker (signed as above)."""
        ...

    # -- log levels --------------------------------------------------------------------------
    def follow_cluster_logger_levels(self, apply: Callable[[str, str], object]) -> None:
        """Have ``apply(namespace, level)`` set the cluster-scoped log levels on this worker."""
        ...

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """``PUT /admin/loggers/{namespace}?scope=cluster`` (KIP-976).

        A standalone worker applies it at once; a distributed one writes Kafka's
        ``logger-cluster-<namespace>`` record to the config topic and every worker (this one
        included) applies it when it reads it.
        """
        ...

    # -- plugins ---------------------------------------------------------------------------
    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        """Installed plugins of ``kinds``, one per installed version (KIP-891)."""
        ...

    def plugin_config(
        self, plugin: str, kinds: Sequence[PluginKind], version: str | None = None
    ) -> ConfigDef:
        """A plugin's config definition, of ``version`` (default the newest)."""
        ...

    def validate_connector_config(self, plugin: str, props: Mapping[str, str]) -> dict[str, Any]:
        """Kafka's ``ConfigInfos`` for ``props`` as ``plugin``'s config (``config/validate``).

        A value may be None (JSON ``null``): Kafka reports it as an error on its key.
        """
        ...
