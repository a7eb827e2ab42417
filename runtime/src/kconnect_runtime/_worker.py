"""The control plane: connectors, their task configs, their tasks and states.

The same for every engine; the engine only decides where task code runs.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import (
    ConfigError,
    ConnectError,
    Connector,
    NotFoundError,
    SinkConnector,
    SinkTask,
    SourceTask,
)

from ._config_providers import ConfigProviders
from ._configs import parse_connector_config
from ._engine import Engine, LocalEngine
from ._offsets import OffsetStore, TaskOffsetReader
from ._pipeline import TransformChain, build_converters
from ._registry import CONNECTOR_KINDS, PluginDesc, PluginKind, PluginRegistry
from ._sink_task import SinkTaskRunner
from ._source_task import SourceTaskRunner
from ._status import ConnectorTaskId, State, Status
from ._task_runner import TaskRunner

__all__ = ["ConnectorRuntime", "Worker"]

log = logging.getLogger("kconnect.worker")

# Producer settings that favour throughput while keeping per-partition order and no duplicates
# from internal retries (idempotence). A user's producer.* settings override them.
_PRODUCER_DEFAULTS: dict[str, Any] = {
    "enable.idempotence": True,
    "acks": "all",
    "linger.ms": 5,
    "batch.num.messages": 10000,
    "queue.buffering.max.messages": 500000,
    "queue.buffering.max.kbytes": 1048576,
}
_CONSUMER_DEFAULTS: dict[str, Any] = {
    # A sink may start before its topics exist; librdkafka's default (5 min) would leave it
    # unassigned that long after the topic appears.
    "topic.metadata.refresh.interval.ms": 10000,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "enable.partition.eof": False,
}


@dataclass(eq=False)
class ConnectorRuntime:
    """One connector: its config, plugin, instance, state and tasks."""

    name: str
    config: dict[str, str]  # placeholders resolved: what the connector and tasks run with
    raw_config: dict[str, str]  # as submitted, placeholders intact: what REST returns
    plugin: PluginDesc
    instance: Connector
    status: Status
    task_configs: list[dict[str, str]] = field(default_factory=list)
    stored_task_configs: list[dict[str, str]] = field(default_factory=list)  # secrets unresolved
    tasks: list[TaskRunner] = field(default_factory=list)

    @property
    def type(self) -> str:
        return self.plugin.kind.value


class _ConnectorContext:
    def __init__(self, worker: Worker, name: str, reader: TaskOffsetReader | None) -> None:
        self._worker = worker
        self._name = name
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        threading.Thread(
            target=self._worker.reconfigure_tasks,
            args=(self._name,),
            name=f"reconfigure-{self._name}",
            daemon=True,
        ).start()

    def raise_error(self, error: BaseException) -> None:
        self._worker.fail_connector(self._name, error)

    @property
    def offset_storage_reader(self) -> TaskOffsetReader | None:
        return self._reader


class Worker:
    """Runs connectors on an engine, keeping their configs, tasks and states."""

    def __init__(
        self,
        worker_props: Mapping[str, str],
        *,
        registry: PluginRegistry,
        offset_store: OffsetStore,
        bootstrap_servers: str,
        engine: Engine | None = None,
        worker_id: str | None = None,
        commit_interval_ms: int = 60000,
        flush_timeout_ms: int = 5000,
        shutdown_timeout_ms: int = 5000,
        consumer_session_timeout_ms: int | None = None,
        config_providers: ConfigProviders | None = None,
        topic_creation_enable: bool = True,
        default_topic_creation: tuple[int, int] | None = None,
    ) -> None:
        self.worker_props = dict(worker_props)
        self.registry = registry
        self.offset_store = offset_store
        self.bootstrap_servers = bootstrap_servers
        self.engine: Engine = engine or LocalEngine()
        self.worker_id = worker_id or f"{socket.gethostname()}:8083"
        self.commit_interval_s = commit_interval_ms / 1000
        self.flush_timeout_s = flush_timeout_ms / 1000
        self.shutdown_timeout_s = shutdown_timeout_ms / 1000
        self.consumer_session_timeout_ms = consumer_session_timeout_ms
        self.config_providers = config_providers or ConfigProviders({})
        self.topic_creation_enable = topic_creation_enable
        # Used for connectors that set no topic.creation.default.*; the embedded broker sets
        # (1, 1) so topics get one partition, as on a stock Kafka broker (num.partitions=1).
        self.default_topic_creation = default_topic_creation
        self.connectors: dict[str, ConnectorRuntime] = {}
        self._lock = threading.RLock()

    # -- connectors ----------------------------------------------------------------------
    def create_connector(self, props: Mapping[str, str]) -> ConnectorRuntime:
        """Validate, start a connector and its tasks. Raises ConfigError naming the connector and key."""
        props = {k: v for k, v in props.items()}
        name = props.get("name", "").strip()
        if not name:
            raise ConfigError('connector config is missing "name"', name="name")
        with self._lock:
            if name in self.connectors:
                raise ConfigError(f"connector {name!r} already exists", name="name")
        try:
            resolved = self.config_providers.resolve(props)
            plugin, instance = self._validate(name, resolved)
        except ConfigError as exc:
            raise ConfigError(f"connector {name!r}: {exc}", name=exc.name, value=exc.value) from exc
        runtime = ConnectorRuntime(
            name, resolved, props, plugin, instance, Status(worker_id=self.worker_id)
        )
        with self._lock:
            self.connectors[name] = runtime
        reader = (
            TaskOffsetReader(self.offset_store, name) if plugin.kind is PluginKind.SOURCE else None
        )
        try:
            instance.initialize(_ConnectorContext(self, name, reader))
            instance.start(resolved)
            runtime.status.set(State.RUNNING)
            self._start_tasks(runtime)
        except Exception as exc:
            log.error("connector %s failed to start", name, exc_info=exc)
            runtime.status.set(State.FAILED, exc)
        return runtime

    def _validate(self, name: str, props: dict[str, str]) -> tuple[PluginDesc, Connector]:
        class_name = props.get("connector.class", "").strip()
        if not class_name:
            raise ConfigError(
                'Missing required configuration "connector.class" which has no default value.',
                name="connector.class",
            )
        plugin = self.registry.resolve(class_name, *CONNECTOR_KINDS, key="connector.class")
        cls = plugin.load()
        sink = issubclass(cls, SinkConnector)
        parse_connector_config(props, sink=sink)
        # Build once to validate converters and transforms; tasks get their own instances.
        build_converters(self.registry, self.worker_props, props).close()
        TransformChain.from_config(self.registry, props).close()
        instance: Connector = cls()
        errors = [
            f"{value.name}: {msg}"
            if not msg.startswith(("Invalid value", "Missing required"))
            else msg
            for value in instance.validate(props)
            for msg in value.error_messages
        ]
        if errors:
            first_key = next((v.name for v in instance.validate(props) if v.error_messages), None)
            raise ConfigError(
                f"configuration is invalid and contains {len(errors)} error(s): "
                + "; ".join(errors),
                name=first_key,
            )
        return plugin, instance

    def _start_tasks(self, runtime: ConnectorRuntime) -> None:
        tasks_max = int(runtime.config.get("tasks.max", "1"))
        configs = runtime.instance.task_configs(tasks_max)
        if len(configs) > tasks_max:
            raise ConnectError(
                f"connector {runtime.name!r} generated {len(configs)} task configs, more than tasks.max={tasks_max}"
            )
        runtime.task_configs = [dict(c) for c in configs]
        runtime.stored_task_configs = [
            self.config_providers.unresolve(runtime.raw_config, runtime.config, c) for c in configs
        ]
        runtime.tasks = []
        for index, task_config in enumerate(runtime.task_configs):
            runner = self._make_task(runtime, index, task_config)
            runtime.tasks.append(runner)
            self.engine.start_task(runner)

    def _make_task(
        self, runtime: ConnectorRuntime, index: int, task_config: dict[str, str]
    ) -> TaskRunner:
        task_id = ConnectorTaskId(runtime.name, index)
        task_cls = runtime.instance.task_class()
        converters = build_converters(self.registry, self.worker_props, runtime.config)
        common: dict[str, Any] = {
            "worker_id": self.worker_id,
            "commit_interval_s": self.commit_interval_s,
            "connector_config": runtime.config,
            "worker_props": self.worker_props,
        }
        if runtime.plugin.kind is PluginKind.SOURCE:
            task = task_cls()
            if not isinstance(task, SourceTask):
                raise ConnectError(
                    f"connector {runtime.name!r}: task_class() of a source connector must be a SourceTask"
                )
            return SourceTaskRunner(
                task_id,
                task,
                task_config,
                converters=converters,
                transforms=TransformChain.from_config(self.registry, runtime.config),
                producer_config=self._client_config("producer", runtime, task_id),
                offset_store=self.offset_store,
                flush_timeout_s=self.flush_timeout_s,
                topic_creation=self._topic_creation(runtime),
                **common,
            )
        task = task_cls()
        if not isinstance(task, SinkTask):
            raise ConnectError(
                f"connector {runtime.name!r}: task_class() of a sink connector must be a SinkTask"
            )
        parsed = parse_connector_config(runtime.config, sink=True)
        return SinkTaskRunner(
            task_id,
            task,
            task_config,
            converters=converters,
            transforms=TransformChain.from_config(self.registry, runtime.config),
            consumer_config=self._client_config("consumer", runtime, task_id),
            topics=parsed["topics"],
            topics_regex=parsed["topics.regex"],
            **common,
        )

    def _topic_creation(self, runtime: ConnectorRuntime) -> tuple[int, int] | None:
        if not self.topic_creation_enable:
            return None
        parsed = parse_connector_config(runtime.config, sink=False)
        partitions = parsed["topic.creation.default.partitions"]
        replication = parsed["topic.creation.default.replication.factor"]
        if partitions is not None and replication is not None:
            return (partitions, replication)
        return self.default_topic_creation

    def _client_config(
        self, client: str, runtime: ConnectorRuntime, task_id: ConnectorTaskId
    ) -> dict[str, Any]:
        config: dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        if client == "producer":
            config.update(_PRODUCER_DEFAULTS)
            config["client.id"] = f"connector-producer-{task_id}"
        else:
            config.update(_CONSUMER_DEFAULTS)
            config["group.id"] = f"connect-{runtime.name}"
            config["client.id"] = f"connector-consumer-{task_id}"
            if self.consumer_session_timeout_ms:
                config["session.timeout.ms"] = self.consumer_session_timeout_ms
        worker_prefix = f"{client}."
        override_prefix = f"{client}.override."
        for key, value in self.worker_props.items():
            if key.startswith(worker_prefix) and not key.startswith(override_prefix):
                config[key[len(worker_prefix) :]] = value
        for key, value in runtime.config.items():
            if key.startswith(override_prefix):
                config[key[len(override_prefix) :]] = value
        return config

    def reconfigure_tasks(self, name: str) -> None:
        """Regenerate task configs; restart the tasks when they changed."""
        with self._lock:
            runtime = self.get(name)
            tasks_max = int(runtime.config.get("tasks.max", "1"))
            new_configs = [dict(c) for c in runtime.instance.task_configs(tasks_max)]
            if new_configs == runtime.task_configs:
                return
            self._stop_tasks(runtime)
            self._start_tasks(runtime)

    def fail_connector(self, name: str, error: BaseException) -> None:
        runtime = self.connectors.get(name)
        if runtime is not None:
            log.error("connector %s raised an error and is now FAILED", name, exc_info=error)
            runtime.status.set(State.FAILED, error)

    def _stop_tasks(self, runtime: ConnectorRuntime) -> None:
        for runner in runtime.tasks:
            runner.stop()
        for runner in runtime.tasks:
            self.engine.stop_task(runner, self.shutdown_timeout_s)

    def delete_connector(self, name: str) -> None:
        with self._lock:
            runtime = self.get(name)
            self._stop_tasks(runtime)
            try:
                runtime.instance.stop()
            except Exception:
                log.exception("connector %s: stop() raised", name)
            del self.connectors[name]

    def get(self, name: str) -> ConnectorRuntime:
        runtime = self.connectors.get(name)
        if runtime is None:
            raise NotFoundError(f"Connector {name} not found")
        return runtime

    def stop(self) -> None:
        """Stop every connector and task (tasks in parallel), then flush offsets."""
        with self._lock:
            runtimes = list(self.connectors.values())
            for runtime in runtimes:
                for runner in runtime.tasks:
                    runner.stop()
            for runtime in runtimes:
                self._stop_tasks(runtime)
                try:
                    runtime.instance.stop()
                except Exception:
                    log.exception("connector %s: stop() raised", runtime.name)
                runtime.status.set(State.UNASSIGNED)
            self.offset_store.flush()

    # -- views ---------------------------------------------------------------------------
    def connector_info(self, name: str) -> dict[str, Any]:
        runtime = self.get(name)
        return {
            "name": name,
            "config": dict(runtime.raw_config),
            "tasks": [{"connector": name, "task": i} for i in range(len(runtime.tasks))],
            "type": runtime.type,
        }

    def connector_status(self, name: str) -> dict[str, Any]:
        runtime = self.get(name)
        return {
            "name": name,
            "connector": runtime.status.to_rest(),
            "tasks": [{"id": i, **t.status.to_rest()} for i, t in enumerate(runtime.tasks)],
            "type": runtime.type,
        }

    def task_status(self, name: str, task: int) -> dict[str, Any]:
        runtime = self.get(name)
        if not 0 <= task < len(runtime.tasks):
            raise NotFoundError(f"Task {name}-{task} not found")
        return {"id": task, **runtime.tasks[task].status.to_rest()}

    def task_list(self, name: str) -> list[dict[str, Any]]:
        runtime = self.get(name)
        return [
            {"id": {"connector": name, "task": i}, "config": dict(c)}
            for i, c in enumerate(runtime.stored_task_configs)
        ]

    def progress(self) -> dict[str, tuple[str, int, int]]:
        """Per connector: (type, records in, records out) summed over its tasks."""
        out = {}
        for name, runtime in list(self.connectors.items()):
            out[name] = (
                runtime.type,
                sum(t.records_in for t in runtime.tasks),
                sum(t.records_out for t in runtime.tasks),
            )
        return out
