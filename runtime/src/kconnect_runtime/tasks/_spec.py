"""What the worker hands an engine to run one task: a frozen, plain description of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import PluginKind, Task

from kconnect_runtime.plugins import PluginDesc
from kconnect_runtime.status import ConnectorTaskId

__all__ = ["TaskSpec"]


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """One task of one connector, as the worker decided it should run.

    The worker builds it (ids, the plugin, configs already resolved and parsed, client
    settings, timeouts) and hands it to ``Engine.start_task``; each engine builds what it
    needs from it: the local engine a pipeline on a thread, the spark engine plain cycle
    plans for its executors. Everything but ``task_class`` is plain data.

    Attributes:
        id: The connector name and task index.
        plugin: The connector plugin (its kind says source or sink; its location, if any,
            says the task runs in an isolated plugin process).
        task_config: The config the connector generated for this task.
        connector_config: The connector's config, placeholders resolved.
        parsed_config: ``connector_config`` parsed by the framework's definition (sink
            topic rules included), parsed once by the worker.
        worker_props: The worker config.
        worker_id: The worker's id, shown in statuses.
        client_config: The producer (source) or consumer (sink) settings, overrides applied.
        topic_creation: ``(partitions, replication factor)`` for topics a source task
            writes to that do not exist yet; None leaves creation to the broker.
        commit_interval_s: ``offset.flush.interval.ms``, in seconds.
        flush_timeout_s: ``offset.flush.timeout.ms``, in seconds.
        start_paused: Whether the connector's target state is PAUSED at start.
        task_class: The started connector's ``task_class()``, when the worker has one (an
            engine in another process asks the plugin again).
    """

    id: ConnectorTaskId
    plugin: PluginDesc
    task_config: Mapping[str, str]
    connector_config: Mapping[str, str]
    parsed_config: Mapping[str, Any]
    worker_props: Mapping[str, str]
    worker_id: str
    client_config: Mapping[str, Any]
    topic_creation: tuple[int, int] | None = None
    commit_interval_s: float = 60.0
    flush_timeout_s: float = 5.0
    start_paused: bool = False
    task_class: type[Task] | None = field(default=None, compare=False)

    @property
    def kind(self) -> PluginKind:
        """``PluginKind.SOURCE`` or ``PluginKind.SINK``."""
        return self.plugin.kind

    @property
    def name(self) -> str:
        """``<connector>-<task>``, as thread names and logs show the task."""
        return f"{self.id.connector}-{self.id.task}"

    @property
    def subscription(self) -> list[str]:
        """A sink task's topics, or its ``topics.regex`` as a ``^``-anchored pattern."""
        regex = self.parsed_config.get("topics.regex") or ""
        return [f"^{regex}"] if regex else list(self.parsed_config.get("topics") or [])
