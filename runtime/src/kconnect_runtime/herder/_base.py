"""What both herders answer the same way: plugins, validation, secrets, metrics and views."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect_sdk import ConfigDef, ConfigError, ConfigType, MetricName, NotFoundError

from kconnect_runtime.config import Redactor
from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginDesc, PluginKind
from kconnect_runtime.storage import BadRequestError
from kconnect_runtime.worker import (
    SupervisedTask,
    Worker,
    config_infos,
    connector_redactor,
    plugin_version,
)

from ._api import TaskMetricsView

__all__ = ["AbstractHerder", "task_state", "version_field"]


def named_config(name: str, config: Mapping[str, str]) -> dict[str, str]:
    """``config`` for the connector ``name``: a ``name`` in the body must be the one in the
    URL (Kafka's message), and a body without one takes it."""
    if config.get("name", name) != name:
        raise ConfigError(
            f"Connector name configuration ({config['name']}) doesn't match connector name "
            f"in the URL ({name})",
            name="name",
        )
    return {**config, "name": name}


class AbstractHerder:
    """The parts of :class:`~._api.WorkerApi` that do not depend on where decisions are made
    (Kafka's ``AbstractHerder``): it holds the :class:`~kconnect_runtime.worker.Worker` that
    runs what the herder decides."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        # Cluster-scoped log levels (KIP-976) are applied through this once REST gives it.
        self._apply_logger_level: Callable[[str, str], object] | None = None
        # Set once the worker has recovered or created its connectors (GET /health).
        self.started = threading.Event()

    @property
    def worker_id(self) -> str:
        return self.worker.worker_id

    # -- plugins -----------------------------------------------------------------------
    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return self.worker.registry.plugins(*kinds)

    def plugin_config(
        self, plugin: str, kinds: Sequence[PluginKind], version: str | None = None
    ) -> ConfigDef:
        desc = self.worker.registry.resolve(plugin, *kinds, version=version)
        try:
            definition: ConfigDef = desc.load()().config()
        except ConfigError:
            raise
        except Exception as exc:
            raise BadRequestError(f"plugin {plugin!r} cannot describe its config: {exc}") from None
        return definition

    def validate_connector_config(self, plugin: str, props: Mapping[str, str]) -> dict[str, Any]:
        registry = self.worker.registry
        props = dict(props)
        props.setdefault("connector.class", plugin)
        requested = registry.resolve(plugin, *CONNECTOR_KINDS, key="connector.class")
        included = registry.resolve(
            props["connector.class"], *CONNECTOR_KINDS, key="connector.class"
        )
        if requested.name != included.name:
            raise BadRequestError(
                f"Included connector type {props['connector.class']} does not match request "
                f"type {plugin}"
            )
        return config_infos(registry, self.worker.worker_props, props)

    # -- what each herder knows of a connector ------------------------------------------
    def _config_of(self, name: str) -> Mapping[str, str]:
        """The connector's config as submitted (placeholders intact); NotFoundError if the
        herder knows no such connector."""
        raise NotImplementedError

    def _shown_task_configs(self, name: str) -> list[dict[str, str]]:
        """The connector's task configs as stored (secrets as their placeholders)."""
        raise NotImplementedError

    def connector_status(self, name: str) -> dict[str, Any]:
        raise NotImplementedError

    # -- views ---------------------------------------------------------------------------
    def task_status(self, name: str, task: int) -> dict[str, Any]:
        tasks = self.connector_status(name)["tasks"]
        if not 0 <= task < len(tasks):
            raise NotFoundError(f"Task {name}-{task} not found")
        state: dict[str, Any] = tasks[task]
        return state

    def task_list(self, name: str) -> list[dict[str, Any]]:
        """Each task's id and stored config (secrets as their placeholders)."""
        return [
            {"id": {"connector": name, "task": i}, "config": dict(c)}
            for i, c in enumerate(self._shown_task_configs(name))
        ]

    # -- secrets -------------------------------------------------------------------------
    def password_keys(self, name: str) -> set[str]:
        """The connector's PASSWORD-typed keys: those of the instance running here, else
        those its plugin declares."""
        running = self.worker.connectors.get(name)
        try:
            if running is not None:
                definition: ConfigDef = running.instance.config()
            else:
                config = self._config_of(name)
                plugin = self.worker.registry.resolve(
                    config.get("connector.class", ""), *CONNECTOR_KINDS, key="connector.class"
                )
                definition = plugin.load()().config()
        except NotFoundError:
            raise
        except Exception:  # a broken plugin must not break status pages
            return set()
        return self._password_keys_of(definition)

    def redactor(self, name: str) -> Redactor:
        """What is secret in the connector's config, and the views that hide it."""
        running = self.worker.connectors.get(name)
        if running is None:
            return self._redactor_of(self._config_of(name))
        try:
            own: ConfigDef | None = running.instance.config()
        except Exception:  # a broken config() must not break status pages
            own = None
        return self._redactor_of(running.raw_config, resolved=running.config, own=own)

    @staticmethod
    def _password_keys_of(definition: ConfigDef) -> set[str]:
        return {k for k, d in definition.config_keys.items() if d.type is ConfigType.PASSWORD}

    def _redactor_of(
        self,
        raw_config: Mapping[str, str],
        *,
        resolved: Mapping[str, str] | None = None,
        own: ConfigDef | None = None,
    ) -> Redactor:
        """What is secret in a connector config, and the views that hide it."""
        worker = self.worker
        if resolved is None:
            try:
                resolved = worker.config_providers.resolve(raw_config)
            except Exception:  # an unresolvable placeholder: nothing resolved to hide
                resolved = dict(raw_config)
        return connector_redactor(
            worker.registry,
            worker.worker_props,
            worker.config_providers,
            raw_config,
            resolved=resolved,
            own=own,
        )

    # -- log levels ----------------------------------------------------------------------
    def follow_cluster_logger_levels(self, apply: Callable[[str, str], object]) -> None:
        self._apply_logger_level = apply

    # -- what runs here ------------------------------------------------------------------
    def task_metrics(self) -> list[TaskMetricsView]:
        """Every task running on this worker, with its metrics."""
        out: list[TaskMetricsView] = []
        for task in self._tasks_here():
            runner = task.runner
            if runner is not None:
                state = runner.status.state.value
                out.append((task.id.connector, task.id.task, runner.kind, runner.metrics, state))
        return out

    def plugin_metric_samples(self) -> list[tuple[MetricName, float]]:
        """The metrics the connectors, tasks and their plugins here defined themselves."""
        return self.worker.plugin_metrics.samples()

    def progress(self) -> dict[str, tuple[str, int, int]]:
        """Per connector running here: (type, records in, records out) of its tasks here."""
        out = {name: (r.type, 0, 0) for name, r in list(self.worker.connectors.items())}
        for task in self._tasks_here():
            runner = task.runner
            if runner is None:
                continue
            kind, seen_in, seen_out = out.get(task.id.connector, (runner.kind, 0, 0))
            out[task.id.connector] = (
                kind,
                seen_in + runner.records_in,
                seen_out + runner.records_out,
            )
        return out

    def _tasks_here(self) -> list[SupervisedTask]:
        tasks = list(self.worker.tasks.tasks.values())
        return sorted(tasks, key=lambda t: (t.id.connector, t.id.task))


def version_field(plugin: object) -> dict[str, str]:
    """``{"version": …}`` as the plugin reports it (KIP-891), or nothing if it cannot say."""
    version = plugin_version(plugin)
    return {"version": version} if version else {}


def task_state(index: int, task: SupervisedTask) -> dict[str, Any]:
    """Kafka's ``TaskState`` of a task running here."""
    version = {} if task.runner is None else version_field(task.runner.task)
    return {"id": index, **task.status.to_rest(), **version}
