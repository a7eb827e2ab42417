"""The control plane: connectors, their task configs, their tasks and states.

The same for every engine and both modes; the engine only decides where task code runs, and
the :class:`ControlStore` where the decisions are kept (memory or Kafka topics).
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import (
    AlreadyExistsError,
    ConfigDef,
    ConfigError,
    ConfigType,
    ConnectError,
    Connector,
    NotFoundError,
    SinkConnector,
    SourceConnector,
    TopicPartition,
    task_class_name,
)

from kconnect_runtime.config import ConfigProviders, Redactor
from kconnect_runtime.engine import Engine, LocalEngine
from kconnect_runtime.isolation import close_idle_hosts
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.plugins import (
    CONNECTOR_KINDS,
    PluginDesc,
    PluginKind,
    PluginRegistry,
)
from kconnect_runtime.status import ConnectorTaskId, State, Status, TargetState
from kconnect_runtime.storage import (
    BadRequestError,
    ControlStore,
    ForbiddenError,
    MemoryControlStore,
    OffsetStore,
    TaskOffsetReader,
    offset_key,
)
from kconnect_runtime.tasks import TaskRunner, TaskSpec

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
from ._validation import (
    config_infos,
    connector_redactor,
    resolve_and_validate,
    shown_name,
    validate_connector,
)

__all__ = ["ConnectorRuntime", "Worker"]

log = logging.getLogger("kconnect.worker")

# Producer settings that favour throughput while keeping per-partition order and no duplicates
# from internal retries (idempotence). A user's producer.* settings override them.
_PRODUCER_DEFAULTS: dict[str, Any] = {
    "enable.idempotence": True,
    "acks": "all",
    # As Kafka Connect's own source producers. Measured (issue 24, docs/operations.md):
    # with idempotence and librdkafka's 5 requests in flight, a broker that stops answering
    # makes the producer's broker thread spin (26-36 % of a core here); with 1, it idles.
    "max.in.flight.requests.per.connection": 1,
    "linger.ms": 5,
    "batch.num.messages": 10000,
    "queue.buffering.max.messages": 500000,
    # What Kafka Connect's producer buffers (Java's buffer.memory, 32 MB), not librdkafka's
    # 1 GB: a source faster than its brokers waits in produce() once 32 MB are queued.
    # Measured (issue 18): 1M uncompressed CDC records into the embedded broker, worker RSS
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
    target_state: TargetState = TargetState.STARTED
    topics: set[str] = field(default_factory=set)  # KIP-558 active topics seen so far
    # Automatic restarts done per task index since the last manual restart or reconfiguration.
    restart_attempts: dict[int, int] = field(default_factory=dict)
    # ``config`` parsed by the framework's connector definition, once; tasks' specs carry it.
    parsed_config: dict[str, Any] = field(default_factory=dict)
    # Whether ``instance.start`` ran: a connector created PAUSED is not started (and has no
    # task configs) until it is resumed, as in Kafka.
    started: bool = False

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


def _runner_topics(runner: TaskRunner) -> set[str]:
    """Topics a task has written to (source) or consumed from (sink), as far as it shows."""
    return runner.active_topics


class Worker:
    """Runs connectors on an engine, keeping their configs, tasks and states.

    Every change goes to ``control_store`` (memory for standalone, Kafka topics for
    distributed), and every public method is safe to call from REST handler threads.
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
        control_store: ControlStore | None = None,
        topic_tracking_enable: bool = True,
        topic_tracking_allow_reset: bool = True,
    ) -> None:
        self.worker_props = dict(worker_props)
        self.registry = registry
        self.offset_store = offset_store
        self.bootstrap_servers = bootstrap_servers
        self.engine: Engine = engine or LocalEngine()
        self.engine.bind(registry=registry, offset_store=offset_store)
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
        self.control_store: ControlStore = control_store or MemoryControlStore()
        self.topic_tracking_enable = topic_tracking_enable
        self.topic_tracking_allow_reset = topic_tracking_allow_reset
        self.connectors: dict[str, ConnectorRuntime] = {}
        # Distributed mode assigns tasks on their own (modes/_herder.py): a connector here
        # then only generates and stores its task configs.
        self.launch_tasks = True
        self._apply_logger_level: Callable[[str, str], object] | None = None
        self._lock = threading.RLock()
        self._stopped = False
        # Set once the worker has recovered or created its connectors (GET /health).
        self.started = threading.Event()

    # -- connectors ----------------------------------------------------------------------
    def create_connector(
        self,
        props: Mapping[str, str],
        *,
        initial_state: TargetState = TargetState.STARTED,
        task_configs: Sequence[Mapping[str, str]] | None = None,
    ) -> ConnectorRuntime:
        """Validate a config, then start the connector and its tasks in ``initial_state``.

        Raises ConfigError naming the connector and key, or AlreadyExistsError. A connector
        that fails while starting is created anyway and shows FAILED with the trace.
        ``task_configs`` (recovery) are the stored task configs to run while STOPPED is not
        the target; they are regenerated by the connector as usual when it starts.
        """
        name, resolved, plugin, instance, parsed = self._prepare(props)
        with self._lock:
            if name in self.connectors:
                raise AlreadyExistsError(f"Connector {name} already exists")
            status = Status(worker_id=self.worker_id, version=plugin_version(instance))
            runtime = ConnectorRuntime(name, resolved, dict(props), plugin, instance, status)
            runtime.parsed_config = parsed
            runtime.target_state = initial_state
            runtime.status.listener = self._connector_listener(name)
            self.connectors[name] = runtime
            self.control_store.connector_config(name, runtime.raw_config)
            self.control_store.target_state(name, initial_state)
            self._start_connector(runtime)
        return runtime

    def check_connector_config(self, props: Mapping[str, str]) -> PluginDesc:
        """Validate a connector config as ``create_connector`` would, without starting it.

        Distributed mode checks a config on the worker that received the request, then
        writes it to the config topic for the worker it is assigned to.
        """
        return self._prepare(props)[2]

    def _prepare(
        self, props: Mapping[str, str]
    ) -> tuple[str, dict[str, str], PluginDesc, Connector, dict[str, Any]]:
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
        # -- issue 21 (secrets): errors name the key, never a secret or resolved value --
        resolved, checked = resolve_and_validate(
            self.registry, self.worker_props, self.config_providers, name, props
        )
        assert checked.instance is not None and checked.parsed is not None  # strict: or raised
        return name, resolved, checked.plugin, checked.instance, checked.parsed

    def _validate(
        self, name: str, props: dict[str, str]
    ) -> tuple[PluginDesc, Connector, dict[str, Any]]:
        """The connector plugin, a connector that validated ``props``, and the parsed config."""
        checked = validate_connector(self.registry, self.worker_props, props, strict=True)
        assert checked.instance is not None and checked.parsed is not None  # strict: or raised
        return checked.plugin, checked.instance, checked.parsed

    def _start_connector(self, runtime: ConnectorRuntime) -> None:
        """Start the connector instance and, unless STOPPED is the target, its tasks."""
        if runtime.target_state is TargetState.STOPPED:
            runtime.tasks = []
            runtime.task_configs = []
            runtime.stored_task_configs = []
            runtime.status.set(State.STOPPED)
            return
        if runtime.target_state is TargetState.PAUSED and not runtime.task_configs:
            # Kafka's WorkerConnector goes from INIT straight to PAUSED without starting the
            # connector, so a connector created (or recovered) PAUSED before it ever ran has
            # no task configs until it is resumed.
            runtime.status.set(State.PAUSED)
            return
        reader = (
            TaskOffsetReader(self.offset_store, runtime.name)
            if runtime.plugin.kind is PluginKind.SOURCE
            else None
        )
        try:
            runtime.instance.initialize(_ConnectorContext(self, runtime.name, reader))
            runtime.instance.start(runtime.config)
            runtime.started = True
            runtime.status.set(
                State.PAUSED if runtime.target_state is TargetState.PAUSED else State.RUNNING
            )
            self._start_tasks(runtime)
        except Exception as exc:
            log.error(
                "connector %s failed to start; it stays FAILED until restarted "
                "(POST /connectors/%s/restart)",
                runtime.name,
                runtime.name,
                exc_info=exc,
            )
            runtime.status.set(State.FAILED, exc)

    @staticmethod
    def _generate_task_configs(runtime: ConnectorRuntime, tasks_max: int) -> list[dict[str, str]]:
        """The connector's task configs as Kafka's worker completes them: each names its
        ``task.class``, so a Java worker sharing the config topic can start them."""
        instance = runtime.instance
        named = getattr(instance, "task_class_name", None)  # an isolated plugin's proxy
        name = named() if callable(named) else task_class_name(instance.task_class())
        return [{**c, "task.class": name} for c in instance.task_configs(tasks_max)]

    def _start_tasks(self, runtime: ConnectorRuntime) -> None:
        tasks_max = int(runtime.config.get("tasks.max", "1"))
        configs = self._generate_task_configs(runtime, tasks_max)
        if len(configs) > tasks_max:
            raise ConnectError(
                f"connector {runtime.name!r} generated {len(configs)} task configs, more than tasks.max={tasks_max}"
            )
        runtime.task_configs = [dict(c) for c in configs]
        runtime.stored_task_configs = [
            self.config_providers.unresolve(runtime.raw_config, runtime.config, c) for c in configs
        ]
        self.control_store.task_configs(runtime.name, runtime.stored_task_configs)
        runtime.tasks = []
        if not self.launch_tasks:
            return
        for index, task_config in enumerate(runtime.task_configs):
            runtime.tasks.append(self._launch_task(runtime, index, task_config))

    def _launch_task(
        self, runtime: ConnectorRuntime, index: int, task_config: dict[str, str]
    ) -> TaskRunner:
        spec = self._task_spec(runtime, index, task_config)
        # The task is built by the engine, possibly elsewhere: its status carries the version
        # of the connector plugin that provides it (one package, one version).
        status = Status(worker_id=self.worker_id, version=plugin_version(runtime.instance))
        # The runner exists only once the engine returns it; until then the listener finds
        # it here (a task may reach RUNNING before start_task returns).
        started: list[TaskRunner] = []
        status.listener = self._task_listener(runtime, index, started)
        runner = self.engine.start_task(spec, status)
        started.append(runner)
        return runner

    def _task_spec(
        self, runtime: ConnectorRuntime, index: int, task_config: dict[str, str]
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
            start_paused=runtime.target_state is TargetState.PAUSED,
            task_class=runtime.instance.task_class(),
        )

    def _topic_creation(self, runtime: ConnectorRuntime) -> tuple[int, int] | None:
        if not self.topic_creation_enable:
            return None
        parsed = runtime.parsed_config
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

    # -- status listeners -----------------------------------------------------------------
    def _connector_listener(self, name: str) -> Any:
        def on_change(status: Status) -> None:
            self.control_store.status(f"status-connector-{name}", status)

        return on_change

    def _task_listener(
        self, runtime: ConnectorRuntime, index: int, started: list[TaskRunner]
    ) -> Any:
        def on_change(status: Status) -> None:
            if status.state is State.RUNNING and runtime.target_state is TargetState.PAUSED:
                # The task reached RUNNING after the pause was requested: show it paused
                # (a task started paused by its engine only needs its state shown).
                if started:
                    started[0].pause()
                else:
                    status.set(State.PAUSED)
                return
            # A replaced runner's listener is cleared first, so this is the current task.
            self.control_store.status(f"status-task-{runtime.name}-{index}", status)
            if status.state is State.FAILED:
                self._schedule_auto_restart(runtime, index, started)

        return on_change

    def _schedule_auto_restart(
        self, runtime: ConnectorRuntime, index: int, started: list[TaskRunner]
    ) -> None:
        """errors.restart.*: restart a FAILED task after an exponential backoff, a few times.

        ``started`` holds the failed task's runner once its engine returned it (a task can
        fail while it starts); the restart, later and under the worker's lock, checks that
        it is still the connector's current task.
        """
        policy = runtime.parsed_config  # parsed once, when the config was accepted
        if "errors.restart.max.attempts" not in policy:
            return
        max_attempts: int = policy["errors.restart.max.attempts"]
        attempts = runtime.restart_attempts.get(index, 0)
        if self._stopped or max_attempts == 0 or (0 < max_attempts <= attempts):
            if max_attempts > 0:
                log.error(
                    "task %s-%d FAILED again after %d automatic restarts "
                    "(errors.restart.max.attempts=%d); it stays FAILED until restarted through "
                    "POST /connectors/%s/tasks/%d/restart",
                    runtime.name,
                    index,
                    attempts,
                    max_attempts,
                    runtime.name,
                    index,
                )
            return
        initial: int = policy["errors.restart.backoff.initial.ms"]
        ceiling: int = policy["errors.restart.backoff.max.ms"]
        delay_ms = min(initial * (2**attempts), ceiling)
        runtime.restart_attempts[index] = attempts + 1
        log.warning(
            "task %s-%d FAILED; restarting it automatically in %d ms (attempt %d%s)",
            runtime.name,
            index,
            delay_ms,
            attempts + 1,
            f" of {max_attempts}" if max_attempts > 0 else "",
        )

        def restart() -> None:
            with self._lock:
                current = self.connectors.get(runtime.name)
                if (
                    self._stopped
                    or current is not runtime
                    or not started
                    or runtime.tasks[index : index + 1] != started[:1]
                    or started[0].status.state is not State.FAILED
                ):
                    return
                self._restart_task(runtime, index)

        timer = threading.Timer(delay_ms / 1000, restart)
        timer.daemon = True
        timer.start()

    # -- lifecycle operations ------------------------------------------------------------
    def reconfigure_tasks(self, name: str) -> None:
        """Regenerate task configs; restart the tasks when they changed."""
        with self._lock:
            runtime = self.get(name)
            if runtime.target_state is TargetState.STOPPED:
                return
            tasks_max = int(runtime.config.get("tasks.max", "1"))
            new_configs = self._generate_task_configs(runtime, tasks_max)
            if new_configs == runtime.task_configs:
                return
            self._stop_tasks(runtime)
            runtime.restart_attempts.clear()
            self._start_tasks(runtime)

    def fail_connector(self, name: str, error: BaseException) -> None:
        runtime = self.connectors.get(name)
        if runtime is not None:
            log.error("connector %s raised an error and is now FAILED", name, exc_info=error)
            runtime.status.set(State.FAILED, error)

    def _stop_tasks(self, runtime: ConnectorRuntime) -> None:
        for runner in runtime.tasks:
            runtime.topics |= _runner_topics(runner)
            runner.stop()
        for runner in runtime.tasks:
            self.engine.stop_task(runner, self.shutdown_timeout_s)
            runtime.topics |= _runner_topics(runner)

    def _stop_connector_instance(self, runtime: ConnectorRuntime) -> None:
        self._stop_tasks(runtime)
        if not runtime.started:
            return
        runtime.started = False
        try:
            runtime.instance.stop()
        except Exception:
            log.exception("connector %s: stop() raised", runtime.name)

    def delete_connector(self, name: str) -> None:
        """Delete a connector; returns within task.shutdown.graceful.timeout.ms (+0.25 s).

        issue 24: a task whose stop() blocks no longer blocks the caller (a REST DELETE):
        the stop goes on in the background and the connector is gone at once.
        """
        with self._lock:
            runtime = self.get(name)
            stopped = threading.Event()

            def stop() -> None:
                try:
                    self._stop_connector_instance(runtime)
                finally:
                    stopped.set()

            threading.Thread(target=stop, name=f"delete-{name[:40]}", daemon=True).start()
            if not stopped.wait(self.shutdown_timeout_s + 0.25):
                log.warning(
                    "connector %s: deleted, but its tasks did not stop within "
                    "task.shutdown.graceful.timeout.ms (%.0f ms); they go on stopping in the "
                    "background",
                    name,
                    self.shutdown_timeout_s * 1000,
                )
            # Statuses a stopping task reports from now on are not stored again.
            runtime.status.listener = None
            for runner in runtime.tasks:
                runner.status.listener = None
            del self.connectors[name]
            self.control_store.connector_config(name, None)
            self.control_store.status(f"status-connector-{name}", None)
            for index in range(len(runtime.tasks)):
                self.control_store.status(f"status-task-{name}-{index}", None)

    def config_redactor(self, raw_config: Mapping[str, str]) -> Redactor:
        """The redactor of a connector config this worker does not run (distributed mode)."""
        try:
            resolved = self.config_providers.resolve(raw_config)
        except Exception:  # an unresolvable placeholder: nothing resolved to hide
            resolved = dict(raw_config)
        return connector_redactor(
            self.registry, self.worker_props, self.config_providers, raw_config, resolved=resolved
        )

    def release_connector(self, name: str) -> None:
        """Stop a connector and its tasks here because it was assigned elsewhere.

        Unlike ``delete_connector`` the stored config stays; the statuses show UNASSIGNED
        (distributed mode stamps them with the generation that moved the connector).
        Offsets are flushed so that the next owner starts where this one stopped.
        """
        with self._lock:
            runtime = self.connectors.pop(name, None)
            if runtime is None:
                return
            for runner in runtime.tasks:
                runner.stop()
            for index, runner in enumerate(runtime.tasks):
                self.engine.stop_task(runner, self.shutdown_timeout_s)
                runner.status.listener = None
                self.control_store.status(
                    f"status-task-{name}-{index}",
                    Status(State.UNASSIGNED, worker_id=self.worker_id),
                )
            runtime.tasks = []
            if runtime.started:
                runtime.started = False
                try:
                    runtime.instance.stop()
                except Exception:
                    log.exception("connector %s: stop() raised", name)
            runtime.status.set(State.UNASSIGNED)
            runtime.status.listener = None
        self.offset_store.flush()

    def put_connector_config(
        self, name: str, config: Mapping[str, str]
    ) -> tuple[bool, ConnectorRuntime]:
        """Create or replace a connector's config; returns (created, runtime).

        A replaced connector restarts with the new config and keeps its target state.
        The new config is validated before the running connector is touched.
        """
        config = dict(config)
        if config.get("name", name) != name:
            raise ConfigError(
                f"Connector name configuration ({config['name']}) doesn't match connector name "
                f"in the URL ({name})",
                name="name",
            )
        config["name"] = name
        with self._lock:
            existing = self.connectors.get(name)
            if existing is None:
                return True, self.create_connector(config)
            _, resolved, plugin, instance, parsed = self._prepare(config)
            self._stop_connector_instance(existing)
            existing.config, existing.raw_config = resolved, config
            existing.plugin, existing.instance = plugin, instance
            existing.parsed_config = parsed
            existing.restart_attempts.clear()
            existing.tasks = []
            self.control_store.connector_config(name, config)
            existing.status.set(State.UNASSIGNED)
            self._start_connector(existing)
            return False, existing

    def patch_connector_config(
        self, name: str, patch: Mapping[str, str | None]
    ) -> ConnectorRuntime:
        """Apply a partial config (KIP-477): a None value deletes the key."""
        with self._lock:
            merged = dict(self.get(name).raw_config)
            for key, value in patch.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            return self.put_connector_config(name, merged)[1]

    def _retarget(self, name: str, target: TargetState) -> ConnectorRuntime | None:
        """Record and persist a new target state; a STOPPED connector is started again.

        Returns the runtime when its running tasks still need to be paused or resumed.
        """
        runtime = self.get(name)
        previous = runtime.target_state
        runtime.target_state = target
        self.control_store.target_state(name, target)
        if previous is TargetState.STOPPED:
            runtime.instance = runtime.plugin.load()()
            self._start_connector(runtime)
            return None
        return runtime

    def pause_connector(self, name: str) -> None:
        """Target PAUSED: tasks idle with their resources kept. Persistent until resumed."""
        with self._lock:
            runtime = self._retarget(name, TargetState.PAUSED)
            if runtime is None:
                return
            if runtime.status.state is not State.FAILED:
                runtime.status.set(State.PAUSED)
            for runner in runtime.tasks:
                runner.pause()

    def resume_connector(self, name: str) -> None:
        """Target STARTED, from PAUSED (tasks go on) or STOPPED (tasks start again)."""
        with self._lock:
            runtime = self._retarget(name, TargetState.STARTED)
            if runtime is None:
                return
            if not runtime.started and runtime.status.state is State.PAUSED:
                self._start_connector(runtime)  # created PAUSED: it starts only now
                return
            if runtime.status.state is State.PAUSED:
                runtime.status.set(State.RUNNING)
            for runner in runtime.tasks:
                runner.resume()

    def stop_connector(self, name: str) -> None:
        """Target STOPPED (KIP-875): tasks shut down and their configs emptied. Idempotent."""
        with self._lock:
            runtime = self.get(name)
            if runtime.target_state is TargetState.STOPPED:
                return
            runtime.target_state = TargetState.STOPPED
            # Kafka's order: the empty task configs, then the STOPPED target state.
            self.control_store.task_configs(name, [])
            self.control_store.target_state(name, TargetState.STOPPED)
            count = len(runtime.tasks)
            self._stop_connector_instance(runtime)
            runtime.tasks = []
            runtime.task_configs = []
            runtime.stored_task_configs = []
            for index in range(count):
                self.control_store.status(f"status-task-{name}-{index}", None)
            runtime.status.set(State.STOPPED)  # from any state, FAILED included (as Kafka)

    def restart_connector(
        self, name: str, *, include_tasks: bool = False, only_failed: bool = False
    ) -> dict[str, Any] | None:
        """Restart a connector and, with ``include_tasks``, its tasks (KIP-745).

        Both flags false: the legacy connector-only restart, done before returning None.
        Otherwise the restart runs in the background and the returned status shows what
        is being restarted as RESTARTING.
        """
        with self._lock:
            runtime = self.get(name)
            if not include_tasks and not only_failed:
                self._restart_connector_instance(runtime)
                return None
            restart_connector = not only_failed or runtime.status.state is State.FAILED
            task_indexes = [
                i
                for i, t in enumerate(runtime.tasks)
                if include_tasks and (not only_failed or t.status.state is State.FAILED)
            ]
            status = self.connector_status(name)
            if restart_connector:
                status["connector"] = {**status["connector"], "state": State.RESTARTING.value}
                status["connector"].pop("trace", None)
            for i in task_indexes:
                status["tasks"][i] = {
                    "id": i,
                    "state": State.RESTARTING.value,
                    "worker_id": self.worker_id,
                }

        def run() -> None:
            with self._lock:
                if self.connectors.get(name) is not runtime:
                    return
                if restart_connector and (include_tasks and not only_failed):
                    self._restart_connector_instance(runtime, announce=True)
                    return
                if restart_connector:
                    self._restart_connector_instance(runtime, keep_tasks=True, announce=True)
                for i in task_indexes:
                    if i < len(runtime.tasks):
                        self._restart_task(runtime, i)

        threading.Thread(target=run, name=f"restart-{name}", daemon=True).start()
        return status

    def _restart_connector_instance(
        self, runtime: ConnectorRuntime, *, keep_tasks: bool = False, announce: bool = False
    ) -> None:
        """Stop the connector (UNASSIGNED) and start it again, as Kafka's herders do; a
        restart request (``announce``, KIP-745) shows RESTARTING in between."""
        if runtime.target_state is TargetState.STOPPED:
            if announce:  # Kafka restarts a stopped connector too: it comes back STOPPED
                for state in (State.UNASSIGNED, State.RESTARTING, State.STOPPED):
                    runtime.status.set(state)
            return
        if keep_tasks and runtime.tasks and runtime.started:
            try:
                runtime.instance.stop()
            except Exception:
                log.exception("connector %s: stop() raised", runtime.name)
            runtime.status.set(State.UNASSIGNED)
            if announce:
                runtime.status.set(State.RESTARTING)
            runtime.instance = runtime.plugin.load()()
            try:
                runtime.instance.initialize(
                    _ConnectorContext(
                        self,
                        runtime.name,
                        TaskOffsetReader(self.offset_store, runtime.name)
                        if runtime.plugin.kind is PluginKind.SOURCE
                        else None,
                    )
                )
                runtime.instance.start(runtime.config)
                runtime.started = True
                runtime.status.set(
                    State.PAUSED if runtime.target_state is TargetState.PAUSED else State.RUNNING
                )
            except Exception as exc:
                runtime.started = False
                log.error("connector %s failed to restart", runtime.name, exc_info=exc)
                runtime.status.set(State.FAILED, exc)
            return
        self._stop_connector_instance(runtime)
        runtime.status.set(State.UNASSIGNED)
        if announce:
            runtime.status.set(State.RESTARTING)
        runtime.tasks = []
        runtime.restart_attempts.clear()
        runtime.instance = runtime.plugin.load()()
        self._start_connector(runtime)

    def restart_task(self, name: str, task: int) -> None:
        """Restart one task (any state), resetting its automatic restart count."""
        with self._lock:
            runtime = self.get(name)
            if not 0 <= task < len(runtime.tasks):
                raise NotFoundError(f"Task {name}-{task} not found")
            runtime.restart_attempts.pop(task, None)
            self._restart_task(runtime, task)

    def _restart_task(self, runtime: ConnectorRuntime, index: int) -> None:
        old = runtime.tasks[index]
        old.status.listener = None
        runtime.topics |= _runner_topics(old)
        old.stop()
        self.engine.stop_task(old, self.shutdown_timeout_s)
        try:
            runtime.tasks[index] = self._launch_task(runtime, index, runtime.task_configs[index])
        except Exception as exc:
            log.error("task %s-%d failed to restart", runtime.name, index, exc_info=exc)
            old.status.set(State.FAILED, exc)
            runtime.tasks[index] = old

    def get(self, name: str) -> ConnectorRuntime:
        runtime = self.connectors.get(name)
        if runtime is None:
            raise NotFoundError(f"Connector {name} not found")
        return runtime

    def stop(self) -> None:
        """Stop every connector and task (tasks in parallel), then flush offsets."""
        with self._lock:
            self._stopped = True
            runtimes = list(self.connectors.values())
            for runtime in runtimes:
                for runner in runtime.tasks:
                    runner.stop()
            for runtime in runtimes:
                # A shutdown is not a state change operators asked for: keep stored statuses.
                runtime.status.listener = None
                for runner in runtime.tasks:
                    runner.status.listener = None
                self._stop_connector_instance(runtime)
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
        runtime = self.get(name)
        if runtime.target_state is not TargetState.STOPPED:
            raise BadRequestError(OFFSETS_NEED_STOPPED.format(name=name))
        return runtime

    def _write_source_offsets(
        self,
        runtime: ConnectorRuntime,
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
        runtime: ConnectorRuntime,
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
            # issue 22: "offset": null resets that partition, as Kafka (OffsetDelete) does.
            to_delete = [tp for tp, o in offsets.items() if o is None]
            if to_delete:
                delete_group_offsets(admin, group, to_delete, connector=runtime.name)
            to_alter = {tp: o for tp, o in offsets.items() if o is not None}
            if to_alter:
                alter_group_offsets(admin, group, to_alter)
        return offsets_message(accepted, reset)

    def _sink_group(self, runtime: ConnectorRuntime) -> str:
        return str(runtime.config.get("consumer.override.group.id") or f"connect-{runtime.name}")

    def _admin_config(self, runtime: ConnectorRuntime) -> dict[str, Any]:
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

    # -- topics (KIP-558) ----------------------------------------------------------------
    def connector_topics(self, name: str) -> list[str]:
        if not self.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled (topic.tracking.enable=false).")
        runtime = self.get(name)
        topics = set(runtime.topics)
        for runner in list(runtime.tasks):
            topics |= _runner_topics(runner)
        return sorted(topics)

    def reset_topics(self, name: str) -> None:
        if not self.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled (topic.tracking.enable=false).")
        if not self.topic_tracking_allow_reset:
            raise ForbiddenError(
                "Topic tracking reset is disabled (topic.tracking.allow.reset=false)."
            )
        with self._lock:
            self.get(name).topics.clear()

    # -- what REST asks (WorkerApi) --------------------------------------------------------
    def is_started(self) -> bool:
        return self.started.is_set()

    def connector_names(self) -> list[str]:
        return sorted(self.connectors)

    def password_keys(self, name: str) -> set[str]:
        runtime = self.get(name)
        try:
            keys = runtime.instance.config().config_keys
        except Exception:  # a broken config() must not break status pages
            return set()
        return {k for k, d in keys.items() if d.type is ConfigType.PASSWORD}

    # -- issue 21 (secrets) -----------------------------------------------------------------
    def redactor(self, name: str) -> Redactor:
        """What is secret in the connector's config, and the views that hide it."""
        runtime = self.get(name)
        try:
            own: ConfigDef | None = runtime.instance.config()
        except Exception:  # a broken config() must not break status pages
            own = None
        return connector_redactor(
            self.registry,
            self.worker_props,
            self.config_providers,
            runtime.raw_config,
            resolved=runtime.config,
            own=own,
        )

    # -- end issue 21 ------------------------------------------------------------------------

    def task_metrics(self) -> list[tuple[str, int, str, TaskMetrics, str]]:
        out = []
        for name, runtime in list(self.connectors.items()):
            for index, runner in enumerate(list(runtime.tasks)):
                out.append((name, index, runner.kind, runner.metrics, runner.status.state.value))
        return out

    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return self.registry.plugins(*kinds)

    def follow_cluster_logger_levels(self, apply: Callable[[str, str], object]) -> None:
        self._apply_logger_level = apply

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        if self._apply_logger_level is not None:  # one worker: the cluster is this worker
            self._apply_logger_level(namespace, level)

    def plugin_config(
        self, plugin: str, kinds: Sequence[PluginKind], version: str | None = None
    ) -> ConfigDef:
        desc = self.registry.resolve(plugin, *kinds, version=version)
        try:
            definition: ConfigDef = desc.load()().config()
        except ConfigError:
            raise
        except Exception as exc:
            raise BadRequestError(f"plugin {plugin!r} cannot describe its config: {exc}") from None
        return definition

    def validate_connector_config(self, plugin: str, props: Mapping[str, str]) -> dict[str, Any]:
        props = dict(props)
        props.setdefault("connector.class", plugin)
        requested = self.registry.resolve(plugin, *CONNECTOR_KINDS, key="connector.class")
        included = self.registry.resolve(
            props["connector.class"], *CONNECTOR_KINDS, key="connector.class"
        )
        if requested.name != included.name:
            raise BadRequestError(
                f"Included connector type {props['connector.class']} does not match request "
                f"type {plugin}"
            )
        return config_infos(self.registry, self.worker_props, props)

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
        """Kafka's ``ConnectorStateInfo``, with the running versions (KIP-891)."""
        runtime = self.get(name)
        return {
            "name": name,
            "connector": {
                **runtime.status.to_rest(),
                **_version_field(runtime.instance),
            },
            "tasks": [_task_state(i, t) for i, t in enumerate(list(runtime.tasks))],
            "type": runtime.type,
        }

    def task_status(self, name: str, task: int) -> dict[str, Any]:
        runtime = self.get(name)
        tasks = list(runtime.tasks)
        if not 0 <= task < len(tasks):
            raise NotFoundError(f"Task {name}-{task} not found")
        return _task_state(task, tasks[task])

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


def plugin_version(plugin: object) -> str | None:
    """The version the plugin reports, or None if it cannot say."""
    try:
        version = plugin.version()  # type: ignore[attr-defined]  # every SDK plugin is Versioned
    except Exception:  # a plugin's broken version() must not break status pages
        return None
    return str(version) if version else None


def _version_field(plugin: object) -> dict[str, str]:
    """``{"version": …}`` as the plugin reports it, or nothing if it cannot say."""
    version = plugin_version(plugin)
    return {"version": version} if version else {}


def _task_state(index: int, runner: TaskRunner) -> dict[str, Any]:
    return {"id": index, **runner.status.to_rest(), **_version_field(runner.task)}
