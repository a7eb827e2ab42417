"""The worker: runs the connectors and tasks its herder gives it, and decides nothing.

A connector runs as a :class:`ConnectorRuntime` (its plugin instance and status); its tasks
run through the :class:`~._supervisor.TaskSupervisor` on the worker's engine. Which
connectors and tasks run, with which configs and target states, and what is kept of them,
is the herder's (``kconnect_runtime.herder``).
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from kconnect_sdk import (
    AlreadyExistsError,
    ConfigError,
    ConnectError,
    Connector,
    NotFoundError,
    PluginMetricsGroup,
    SinkConnector,
    SourceConnector,
    TopicPartition,
    task_class_name,
)

from kconnect_runtime.config import ConfigProviders
from kconnect_runtime.engine import Engine, LocalEngine
from kconnect_runtime.isolation import close_idle_hosts
from kconnect_runtime.metrics import PluginMetricsRegistry
from kconnect_runtime.plugins import PluginDesc, PluginKind, PluginRegistry
from kconnect_runtime.status import ConnectorTaskId, State, Status, TargetState
from kconnect_runtime.storage import BadRequestError, OffsetStore, TaskOffsetReader, offset_key
from kconnect_runtime.tasks import TaskSpec

from ._offsets import (
    OFFSETS_NEED_STOPPED,
    alter_group_offsets,
    delete_group,
    delete_group_offsets,
    list_group_offsets,
    offsets_message,
    parse_sink_offsets,
    parse_source_offsets,
)
from ._supervisor import StatusListener, SupervisedTask, TaskSupervisor
from ._validation import resolve_and_validate, shown_name

__all__ = ["ConnectorRuntime", "PreparedConnector", "Worker", "plugin_version"]

log = logging.getLogger("kconnect.worker")

# Producer settings that favour throughput while keeping per-partition order and no duplicates
# from internal retries (idempotence). A user's producer.* settings override them.
_PRODUCER_DEFAULTS: dict[str, Any] = {
    "enable.idempotence": True,
    "acks": "all",
    # As Kafka Connect's own source producers. Measured (docs/operations.md):
    # with idempotence and librdkafka's 5 requests in flight, a broker that stops answering
    # makes the producer's broker thread spin (26-36 % of a core here); with 1, it idles.
    "max.in.flight.requests.per.connection": 1,
    "linger.ms": 5,
    "batch.num.messages": 10000,
    "queue.buffering.max.messages": 500000,
    # What Kafka Connect's producer buffers (Java's buffer.memory, 32 MB), not librdkafka's
    # 1 GB: a source faster than its brokers waits in produce() once 32 MB are queued.
    # Measured: 1M uncompressed CDC records into the embedded broker, worker RSS
    # ~1.4 GB -> ~0.3 GB and 67.4-67.8k -> 76.1-76.8k rows/s (the page faults of a heap
    # that kept growing, the broker's and the worker's); lz4 runs unchanged.
    "queue.buffering.max.kbytes": 32768,
    # Java's default partitioner (murmur2 of the key bytes, a random partition for null keys)
    # instead of librdkafka's CRC32 one: a keyed record lands on the partition Kafka
    # Connect would write it to, so consumers and a pipeline moved from the JVM see each
    # key's records in the same partition, in order.
    "partitioner": "murmur2_random",
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
class PreparedConnector:
    """A connector config the worker can run: validated, placeholders resolved, parsed."""

    name: str
    config: dict[str, str]  # placeholders resolved: what the connector and tasks run with
    raw_config: dict[str, str]  # as submitted, placeholders intact: what REST returns
    plugin: PluginDesc
    instance: Connector  # validated the config; started only as a ConnectorRuntime's
    # ``config`` parsed by the framework's connector definition, once; tasks' specs carry it.
    parsed_config: dict[str, Any]

    @property
    def type(self) -> str:
        return self.plugin.kind.value


@dataclass(eq=False)
class ConnectorRuntime(PreparedConnector):
    """A connector this worker runs: its instance and its status."""

    status: Status
    target_state: TargetState = TargetState.STARTED
    # Whether ``instance.start`` ran: a connector created PAUSED is not started (and has no
    # task configs) until it is resumed, as in Kafka.
    started: bool = False
    # The herder's answer to the connector's ``request_task_reconfiguration``.
    on_reconfigure: Callable[[], None] | None = None
    # The running instance's own metrics (KIP-877), closed when it stops.
    plugin_metrics: PluginMetricsGroup | None = None


@runtime_checkable
class NamesTaskClass(Protocol):
    """A connector that stands for one in another process (an isolated plugin's proxy): it
    names the task class of the connector behind it, which this process cannot import."""

    def task_class_name(self) -> str: ...


class _ConnectorContext:
    """What a connector may ask of the runtime: callbacks, never the worker itself."""

    def __init__(
        self,
        name: str,
        *,
        on_reconfigure: Callable[[], None] | None,
        on_error: Callable[[BaseException], None],
        reader: TaskOffsetReader | None,
        plugin_metrics: PluginMetricsGroup,
    ) -> None:
        self._name = name
        self._on_reconfigure = on_reconfigure
        self._on_error = on_error
        self._reader = reader
        self._plugin_metrics = plugin_metrics

    def request_task_reconfiguration(self) -> None:
        if self._on_reconfigure is None:
            return
        # The connector may ask from its own thread, holding its own locks: answered apart.
        threading.Thread(
            target=self._on_reconfigure, name=f"reconfigure-{self._name}", daemon=True
        ).start()

    def raise_error(self, error: BaseException) -> None:
        self._on_error(error)

    @property
    def offset_storage_reader(self) -> TaskOffsetReader | None:
        return self._reader

    @property
    def plugin_metrics(self) -> PluginMetricsGroup:  # KIP-877
        return self._plugin_metrics


class Worker:
    """Runs connectors and their tasks on an engine, as its herder tells it to.

    Every public method is safe to call from any thread.
    """

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
        # The plugins' own metrics (KIP-877) of everything this worker runs.
        self.plugin_metrics = PluginMetricsRegistry()
        self.engine.bind(
            registry=registry, offset_store=offset_store, plugin_metrics=self.plugin_metrics
        )
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
        self.tasks = TaskSupervisor(self.engine, shutdown_timeout_s=self.shutdown_timeout_s)
        self._lock = threading.RLock()

    # -- connectors ----------------------------------------------------------------------
    def prepare(self, props: Mapping[str, str]) -> PreparedConnector:
        """Validate a connector config and resolve its placeholders, starting nothing.

        Raises ConfigError naming the connector and the key; errors never quote a secret
        or a resolved value.
        """
        props = dict(props)
        name = props.get("name", "").strip()
        if not name:
            raise ConfigError('connector config is missing "name"', name="name")
        if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name):
            raise ConfigError(
                f"connector name {shown_name(name)} contains ISO control characters; use "
                "printable characters",
                name="name",
            )
        resolved, checked = resolve_and_validate(
            self.registry, self.worker_props, self.config_providers, name, props
        )
        assert checked.instance is not None and checked.parsed is not None  # strict: or raised
        return PreparedConnector(
            name, resolved, props, checked.plugin, checked.instance, checked.parsed
        )

    def start_connector(
        self,
        prepared: PreparedConnector,
        *,
        target_state: TargetState,
        on_status: StatusListener,
        on_reconfigure: Callable[[], None] | None = None,
        start_if_paused: bool = False,
    ) -> ConnectorRuntime:
        """Run a connector in ``target_state`` (see :meth:`start_instance`)."""
        with self._lock:
            if prepared.name in self.connectors:
                raise AlreadyExistsError(f"Connector {prepared.name} already exists")
            runtime = ConnectorRuntime(
                prepared.name,
                prepared.config,
                prepared.raw_config,
                prepared.plugin,
                prepared.instance,
                prepared.parsed_config,
                Status(worker_id=self.worker_id, version=plugin_version(prepared.instance)),
                target_state=target_state,
                on_reconfigure=on_reconfigure,
            )
            runtime.status.listener = on_status
            self.connectors[prepared.name] = runtime
            self.start_instance(runtime, start_if_paused=start_if_paused)
        return runtime

    def start_instance(self, runtime: ConnectorRuntime, *, start_if_paused: bool) -> None:
        """Start the connector's instance as its target state says.

        STOPPED: not started, shown STOPPED. PAUSED: not started unless ``start_if_paused``
        (Kafka's WorkerConnector goes from INIT straight to PAUSED, so a connector created
        PAUSED before it ever ran has no task configs until it is resumed). A connector that
        fails to start shows FAILED with the trace.
        """
        if runtime.target_state is TargetState.STOPPED:
            runtime.status.set(State.STOPPED)
            return
        if runtime.target_state is TargetState.PAUSED and not start_if_paused:
            runtime.status.set(State.PAUSED)
            return
        reader = (
            TaskOffsetReader(self.offset_store, runtime.name)
            if runtime.plugin.kind is PluginKind.SOURCE
            else None
        )
        name = runtime.name
        if runtime.plugin_metrics is not None:
            runtime.plugin_metrics.close()
        runtime.plugin_metrics = self.plugin_metrics.group(connector=name)
        try:
            runtime.instance.initialize(
                _ConnectorContext(
                    name,
                    on_reconfigure=runtime.on_reconfigure,
                    on_error=lambda error: self.fail_connector(name, error),
                    reader=reader,
                    plugin_metrics=runtime.plugin_metrics,
                )
            )
            runtime.instance.start(runtime.config)
            runtime.started = True
            runtime.status.set(
                State.PAUSED if runtime.target_state is TargetState.PAUSED else State.RUNNING
            )
        except Exception as exc:
            self.failed_to_start(runtime, exc)

    def failed_to_start(self, runtime: ConnectorRuntime, error: BaseException) -> None:
        """The connector (or the generation of its task configs) failed while starting."""
        log.error(
            "connector %s failed to start; it stays FAILED until restarted "
            "(POST /connectors/%s/restart)",
            runtime.name,
            runtime.name,
            exc_info=error,
        )
        runtime.status.set(State.FAILED, error)

    def replace_instance(self, runtime: ConnectorRuntime) -> None:
        """A fresh instance of the connector's plugin (the old one is stopped first)."""
        self.stop_instance(runtime)
        runtime.instance = runtime.plugin.load()()

    def stop_instance(self, runtime: ConnectorRuntime) -> None:
        """Stop the connector's instance if it runs (its tasks are the supervisor's)."""
        if not runtime.started:
            return
        runtime.started = False
        try:
            runtime.instance.stop()
        except Exception:
            log.exception("connector %s: stop() raised", runtime.name)
        finally:
            if runtime.plugin_metrics is not None:
                runtime.plugin_metrics.close()
                runtime.plugin_metrics = None

    def reconfigure(self, runtime: ConnectorRuntime, prepared: PreparedConnector) -> None:
        """Run the connector with a new config from now on (its instance stopped first)."""
        self.stop_instance(runtime)
        runtime.config, runtime.raw_config = prepared.config, prepared.raw_config
        runtime.plugin, runtime.instance = prepared.plugin, prepared.instance
        runtime.parsed_config = prepared.parsed_config

    def remove_connector(self, name: str) -> ConnectorRuntime | None:
        """Forget a connector (stopped by the caller); its statuses reach no one from now."""
        with self._lock:
            runtime = self.connectors.pop(name, None)
        if runtime is not None:
            runtime.status.listener = None
        return runtime

    def fail_connector(self, name: str, error: BaseException) -> None:
        runtime = self.connectors.get(name)
        if runtime is not None:
            log.error("connector %s raised an error and is now FAILED", name, exc_info=error)
            runtime.status.set(State.FAILED, error)

    def task_configs(self, runtime: PreparedConnector) -> list[dict[str, str]]:
        """The connector's task configs as Kafka's worker completes them: each names its
        ``task.class``, so a Java worker sharing the config topic can start them."""
        tasks_max = int(runtime.config.get("tasks.max", "1"))
        instance = runtime.instance
        if isinstance(instance, NamesTaskClass):
            name = instance.task_class_name()
        else:
            name = task_class_name(instance.task_class())
        configs = [{**c, "task.class": name} for c in instance.task_configs(tasks_max)]
        if len(configs) > tasks_max:
            raise ConnectError(
                f"connector {runtime.name!r} generated {len(configs)} task configs, more "
                f"than tasks.max={tasks_max}"
            )
        return configs

    def get(self, name: str) -> ConnectorRuntime:
        runtime = self.connectors.get(name)
        if runtime is None:
            raise NotFoundError(f"Connector {name} not found")
        return runtime

    # -- tasks ---------------------------------------------------------------------------
    def start_task(
        self,
        connector: PreparedConnector,
        index: int,
        task_config: dict[str, str],
        *,
        target: TargetState,
        on_status: StatusListener,
        fail_fast: bool = False,
    ) -> SupervisedTask:
        """Run task ``index`` of the connector with its resolved ``task_config`` (see
        :meth:`TaskSupervisor.start`)."""
        return self.tasks.start(
            self.task_spec(connector, index, task_config),
            # The task is built by the engine, possibly elsewhere: its status carries the
            # version of the connector plugin that provides it (one package, one version).
            version=plugin_version(connector.instance),
            target=target,
            on_status=on_status,
            fail_fast=fail_fast,
        )

    def task_spec(
        self, runtime: PreparedConnector, index: int, task_config: dict[str, str]
    ) -> TaskSpec:
        """What the engine runs for task ``index``: plain configs, parsed once, and clients."""
        task_id = ConnectorTaskId(runtime.name, index)
        sink = runtime.plugin.kind is PluginKind.SINK
        return TaskSpec(
            id=task_id,
            plugin=runtime.plugin,
            task_config=task_config,
            connector_config=runtime.config,
            parsed_config=runtime.parsed_config,
            worker_props=self.worker_props,
            worker_id=self.worker_id,
            client_config=self._client_config("consumer" if sink else "producer", runtime, task_id),
            topic_creation=None if sink else self._topic_creation(runtime),
            commit_interval_s=self.commit_interval_s,
            flush_timeout_s=self.flush_timeout_s,
            task_class=runtime.instance.task_class(),
        )

    def _topic_creation(self, runtime: PreparedConnector) -> tuple[int, int] | None:
        if not self.topic_creation_enable:
            return None
        parsed = runtime.parsed_config
        partitions = parsed["topic.creation.default.partitions"]
        replication = parsed["topic.creation.default.replication.factor"]
        if partitions is not None and replication is not None:
            return (partitions, replication)
        return self.default_topic_creation

    def _client_config(
        self, client: str, runtime: PreparedConnector, task_id: ConnectorTaskId
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

    def stop(self) -> None:
        """Stop every task (in parallel) and connector, then flush offsets.

        A shutdown is not a state change operators asked for: stored statuses are kept.
        """
        self.tasks.close()
        with self._lock:
            for runtime in list(self.connectors.values()):
                runtime.status.listener = None
                self.stop_instance(runtime)
                runtime.status.set(State.UNASSIGNED)
            self.offset_store.flush()
        close_idle_hosts()

    # -- offsets (KIP-875) ---------------------------------------------------------------
    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        """The connector's committed offsets as ``[{"partition": …, "offset": …}]``."""
        runtime = self.get(name)
        if runtime.plugin.kind is PluginKind.SOURCE:
            return [
                {"partition": p, "offset": o}
                for p, o in self.offset_store.connector_offsets(name)
                if o is not None
            ]
        offsets = list_group_offsets(self._admin_config(runtime), self._sink_group(runtime))
        return [
            {
                "partition": {"kafka_topic": topic, "kafka_partition": partition},
                "offset": {"kafka_offset": offset},
            }
            for (topic, partition), offset in sorted(offsets.items())
        ]

    def alter_offsets(self, name: str, entries: Sequence[Mapping[str, Any]]) -> str:
        """Alter a STOPPED connector's offsets; returns Kafka's confirmation message."""
        with self._lock:
            runtime = self._require_stopped(name)
            if runtime.plugin.kind is PluginKind.SOURCE:
                source = parse_source_offsets(entries)
                return self._write_source_offsets(runtime, source, reset=False)
            sink = parse_sink_offsets(entries)
            return self._write_sink_offsets(runtime, sink, reset=False)

    def reset_offsets(self, name: str) -> str:
        """Forget every offset of a STOPPED connector; returns Kafka's confirmation message."""
        with self._lock:
            runtime = self._require_stopped(name)
            if runtime.plugin.kind is PluginKind.SOURCE:
                existing = [(p or {}, None) for p, _ in self.offset_store.connector_offsets(name)]
                return self._write_source_offsets(runtime, existing, reset=True)
            group = list_group_offsets(self._admin_config(runtime), self._sink_group(runtime))
            return self._write_sink_offsets(
                runtime, {TopicPartition(t, p): None for t, p in group}, reset=True
            )

    def _require_stopped(self, name: str) -> ConnectorRuntime:
        # Offsets are written only while nothing of the connector runs.
        runtime = self.get(name)
        if runtime.target_state is not TargetState.STOPPED:
            raise BadRequestError(OFFSETS_NEED_STOPPED.format(name=name))
        return runtime

    def _write_source_offsets(
        self,
        runtime: PreparedConnector,
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
        *,
        reset: bool,
    ) -> str:
        instance = runtime.plugin.load()()
        assert isinstance(instance, SourceConnector)
        try:
            accepted = instance.alter_offsets(runtime.config, offsets)
        except ConnectError as exc:
            raise BadRequestError(
                f"connector {runtime.name!r} refused the offsets: {exc}"
            ) from None
        self.offset_store.put(
            runtime.name,
            {
                offset_key(runtime.name, p): (dict(p), None if o is None else dict(o))
                for p, o in offsets
            },
        )
        self.offset_store.flush()
        return offsets_message(accepted, reset)

    def _write_sink_offsets(
        self,
        runtime: PreparedConnector,
        offsets: Mapping[TopicPartition, int | None],
        *,
        reset: bool,
    ) -> str:
        instance = runtime.plugin.load()()
        assert isinstance(instance, SinkConnector)
        try:
            accepted = instance.alter_offsets(runtime.config, offsets)
        except ConnectError as exc:
            raise BadRequestError(
                f"connector {runtime.name!r} refused the offsets: {exc}"
            ) from None
        admin = self._admin_config(runtime)
        group = self._sink_group(runtime)
        if reset:
            delete_group(admin, group)
        else:
            # "offset": null resets that partition, as Kafka (OffsetDelete) does.
            to_delete = [tp for tp, o in offsets.items() if o is None]
            if to_delete:
                delete_group_offsets(admin, group, to_delete, connector=runtime.name)
            to_alter = {tp: o for tp, o in offsets.items() if o is not None}
            if to_alter:
                alter_group_offsets(admin, group, to_alter)
        return offsets_message(accepted, reset)

    def _sink_group(self, runtime: PreparedConnector) -> str:
        return str(runtime.config.get("consumer.override.group.id") or f"connect-{runtime.name}")

    def _admin_config(self, runtime: PreparedConnector) -> dict[str, Any]:
        config: dict[str, Any] = {"bootstrap.servers": self.bootstrap_servers}
        for prefix in ("admin.", "consumer."):
            for key, value in self.worker_props.items():
                if (
                    key.startswith(prefix)
                    and key.count(".") > 1
                    and not key.startswith(f"{prefix}override.")
                ):
                    sub = key[len(prefix) :]
                    if sub.startswith(("security.", "ssl.", "sasl.")):
                        config[sub] = value
        return config


def plugin_version(plugin: object) -> str | None:
    """The version the plugin reports, or None if it cannot say."""
    try:
        version = plugin.version()  # type: ignore[attr-defined]  # every SDK plugin is Versioned
    except Exception:  # a plugin's broken version() must not break status pages
        return None
    return str(version) if version else None
