"""The standalone herder: one worker decides everything itself (Kafka's
``StandaloneHerder``), keeps what it decided in its control store, and has its worker run it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import AlreadyExistsError, ConnectError, NotFoundError

from kconnect_runtime.plugins import PluginDesc
from kconnect_runtime.status import ConnectorTaskId, State, Status, TargetState
from kconnect_runtime.storage import (
    ControlStore,
    ForbiddenError,
    MemoryControlStore,
    OffsetStore,
    connector_status_key,
    task_status_key,
)
from kconnect_runtime.tasks import TaskRunner
from kconnect_runtime.worker import (
    ConnectorRuntime,
    StatusListener,
    SupervisedTask,
    TaskSupervisor,
    Worker,
)

from ._base import AbstractHerder, named_config, task_state, version_field

__all__ = ["StandaloneConnector", "StandaloneHerder"]

log = logging.getLogger("kconnect.worker")


@dataclass(eq=False)
class StandaloneConnector:
    """One connector as the standalone herder decided it, and what runs of it."""

    runtime: ConnectorRuntime  # the worker's: instance, config, status, target state
    supervisor: TaskSupervisor = field(repr=False)
    task_configs: list[dict[str, str]] = field(default_factory=list)  # placeholders resolved
    stored_task_configs: list[dict[str, str]] = field(default_factory=list)  # secrets unresolved
    topics: set[str] = field(default_factory=set)  # KIP-558 active topics of stopped tasks

    @property
    def name(self) -> str:
        return self.runtime.name

    @property
    def plugin(self) -> PluginDesc:
        return self.runtime.plugin

    @property
    def type(self) -> str:
        return self.runtime.type

    @property
    def supervised(self) -> list[SupervisedTask]:
        """Its tasks, by index."""
        return self.supervisor.of_connector(self.name)

    @property
    def tasks(self) -> list[TaskRunner]:
        """The runners of its tasks, by index."""
        return [t.runner for t in self.supervised if t.runner is not None]


class StandaloneHerder(AbstractHerder):
    """The :class:`~._api.WorkerApi` of a standalone worker: it decides locally.

    Every change goes to ``control_store`` as well, so that a store that outlives the
    process could recover it; every public method is safe to call from REST handler threads.
    """

    def __init__(
        self,
        worker: Worker,
        *,
        control_store: ControlStore | None = None,
        topic_tracking_enable: bool = True,
        topic_tracking_allow_reset: bool = True,
    ) -> None:
        super().__init__(worker)
        self.control_store: ControlStore = control_store or MemoryControlStore()
        self.topic_tracking_enable = topic_tracking_enable
        self.topic_tracking_allow_reset = topic_tracking_allow_reset
        self.connectors: dict[str, StandaloneConnector] = {}
        self._lock = threading.RLock()

    @property
    def offset_store(self) -> OffsetStore:
        return self.worker.offset_store

    def get(self, name: str) -> StandaloneConnector:
        connector = self.connectors.get(name)
        if connector is None:
            raise NotFoundError(f"Connector {name} not found")
        return connector

    def stop(self) -> None:
        """Stop every connector and task (tasks in parallel), then flush offsets."""
        with self._lock:
            self.worker.stop()

    # -- connectors ----------------------------------------------------------------------
    def create_connector(
        self, props: Mapping[str, str], *, initial_state: TargetState = TargetState.STARTED
    ) -> StandaloneConnector:
        """Validate a config, then start the connector and its tasks in ``initial_state``.

        Raises ConfigError naming the connector and key, or AlreadyExistsError. A connector
        that fails while starting is created anyway and shows FAILED with the trace.
        """
        prepared = self.worker.prepare(props)
        name = prepared.name
        with self._lock:
            if name in self.connectors:
                raise AlreadyExistsError(f"Connector {name} already exists")
            self.control_store.connector_config(name, prepared.raw_config)
            self.control_store.target_state(name, initial_state)
            runtime = self.worker.start_connector(
                prepared,
                target_state=initial_state,
                on_status=self._status_listener(connector_status_key(name)),
                on_reconfigure=lambda: self.reconfigure_tasks(name),
            )
            connector = StandaloneConnector(runtime, self.worker.tasks)
            self.connectors[name] = connector
            self._start_tasks_if_running(connector)
        return connector

    def _start(self, connector: StandaloneConnector) -> None:
        """Start the connector's instance and, unless STOPPED is the target, its tasks."""
        if connector.runtime.target_state is TargetState.STOPPED:
            connector.task_configs = []
            connector.stored_task_configs = []
        # A connector PAUSED before it ever generated task configs starts when resumed.
        self.worker.start_instance(connector.runtime, start_if_paused=bool(connector.task_configs))
        self._start_tasks_if_running(connector)

    def _start_tasks_if_running(self, connector: StandaloneConnector) -> None:
        if not connector.runtime.started:
            return
        try:
            self._start_tasks(connector)
        except Exception as exc:
            self.worker.failed_to_start(connector.runtime, exc)

    def _start_tasks(self, connector: StandaloneConnector) -> None:
        runtime = connector.runtime
        configs = self.worker.task_configs(runtime)
        connector.task_configs = [dict(c) for c in configs]
        providers = self.worker.config_providers
        connector.stored_task_configs = [
            providers.unresolve(runtime.raw_config, runtime.config, c) for c in configs
        ]
        self.control_store.task_configs(runtime.name, connector.stored_task_configs)
        for index, task_config in enumerate(connector.task_configs):
            self.worker.start_task(
                runtime,
                index,
                task_config,
                target=runtime.target_state,
                on_status=self._status_listener(task_status_key(runtime.name, index)),
                fail_fast=True,
            )

    def _status_listener(self, key: str) -> StatusListener:
        def on_change(status: Status) -> None:
            self.control_store.status(key, status)

        return on_change

    def reconfigure_tasks(self, name: str) -> None:
        """The connector asked: regenerate its task configs; restart the tasks if changed."""
        with self._lock:
            connector = self.get(name)
            if connector.runtime.target_state is TargetState.STOPPED:
                return
            if self.worker.task_configs(connector.runtime) == connector.task_configs:
                return
            self._stop_tasks(connector)
            self._start_tasks(connector)

    def _stop_tasks(self, connector: StandaloneConnector) -> None:
        def keep_topics(task: SupervisedTask) -> None:
            if task.runner is not None:
                connector.topics |= task.runner.active_topics

        for task in self.worker.tasks.stop(
            [t.id for t in connector.supervised], before_wait=keep_topics
        ):
            keep_topics(task)

    def _stop_connector(self, connector: StandaloneConnector) -> None:
        self._stop_tasks(connector)
        self.worker.stop_instance(connector.runtime)

    def delete_connector(self, name: str) -> None:
        """Delete a connector; returns within task.shutdown.graceful.timeout.ms (+0.25 s).

        A task whose stop() blocks does not block the caller (a REST DELETE): the stop goes
        on in the background and the connector is gone at once.
        """
        worker = self.worker
        with self._lock:
            connector = self.get(name)
            # Statuses a stopping task reports from now on are not stored again.
            stopping = worker.tasks.detach([t.id for t in connector.supervised])
            runtime = worker.remove_connector(name) or connector.runtime
            stopped = threading.Event()

            def stop() -> None:
                try:
                    worker.tasks.await_stopped(stopping)
                    worker.stop_instance(runtime)
                finally:
                    stopped.set()

            threading.Thread(target=stop, name=f"delete-{name[:40]}", daemon=True).start()
            if not stopped.wait(worker.shutdown_timeout_s + 0.25):
                log.warning(
                    "connector %s: deleted, but its tasks did not stop within "
                    "task.shutdown.graceful.timeout.ms (%.0f ms); they go on stopping in the "
                    "background",
                    name,
                    worker.shutdown_timeout_s * 1000,
                )
            del self.connectors[name]
            self.control_store.connector_config(name, None)
            self.control_store.status(connector_status_key(name), None)
            for index in range(len(stopping)):
                self.control_store.status(task_status_key(name, index), None)

    def put_connector_config(
        self, name: str, config: Mapping[str, str]
    ) -> tuple[bool, StandaloneConnector]:
        """Create or replace a connector's config; returns (created, connector).

        A replaced connector restarts with the new config and keeps its target state.
        The new config is validated before the running connector is touched.
        """
        config = named_config(name, config)
        with self._lock:
            existing = self.connectors.get(name)
            if existing is None:
                return True, self.create_connector(config)
            prepared = self.worker.prepare(config)
            self._stop_connector(existing)
            self.worker.reconfigure(existing.runtime, prepared)
            self.control_store.connector_config(name, config)
            existing.runtime.status.set(State.UNASSIGNED)
            self._start(existing)
            return False, existing

    def patch_connector_config(
        self, name: str, patch: Mapping[str, str | None]
    ) -> StandaloneConnector:
        """Apply a partial config (KIP-477): a None value deletes the key."""
        with self._lock:
            merged = dict(self.get(name).runtime.raw_config)
            for key, value in patch.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            return self.put_connector_config(name, merged)[1]

    def _retarget(self, name: str, target: TargetState) -> StandaloneConnector | None:
        """Record and persist a new target state; a STOPPED connector is started again.

        Returns the connector when its running tasks still need to be paused or resumed.
        """
        connector = self.get(name)
        runtime = connector.runtime
        previous = runtime.target_state
        runtime.target_state = target
        self.control_store.target_state(name, target)
        if previous is TargetState.STOPPED:
            self.worker.replace_instance(runtime)
            self._start(connector)
            return None
        return connector

    def pause_connector(self, name: str) -> None:
        """Target PAUSED: tasks idle with their resources kept. Persistent until resumed."""
        with self._lock:
            connector = self._retarget(name, TargetState.PAUSED)
            if connector is None:
                return
            if connector.runtime.status.state is not State.FAILED:
                connector.runtime.status.set(State.PAUSED)
            self.worker.tasks.set_target([t.id for t in connector.supervised], TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        """Target STARTED, from PAUSED (tasks go on) or STOPPED (tasks start again)."""
        with self._lock:
            connector = self._retarget(name, TargetState.STARTED)
            if connector is None:
                return
            runtime = connector.runtime
            if not runtime.started and runtime.status.state is State.PAUSED:
                self._start(connector)  # created PAUSED: it starts only now
                return
            if runtime.status.state is State.PAUSED:
                runtime.status.set(State.RUNNING)
            self.worker.tasks.set_target([t.id for t in connector.supervised], TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        """Target STOPPED (KIP-875): tasks shut down and their configs emptied. Idempotent."""
        with self._lock:
            connector = self.get(name)
            runtime = connector.runtime
            if runtime.target_state is TargetState.STOPPED:
                return
            runtime.target_state = TargetState.STOPPED
            # Kafka's order: the empty task configs, then the STOPPED target state.
            self.control_store.task_configs(name, [])
            self.control_store.target_state(name, TargetState.STOPPED)
            count = len(connector.supervised)
            self._stop_connector(connector)
            connector.task_configs = []
            connector.stored_task_configs = []
            for index in range(count):
                self.control_store.status(task_status_key(name, index), None)
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
            connector = self.get(name)
            if not include_tasks and not only_failed:
                self._restart_connector_instance(connector)
                return None
            runtime = connector.runtime
            restart_connector = not only_failed or runtime.status.state is State.FAILED
            task_indexes = [
                t.id.task
                for t in connector.supervised
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
                if self.connectors.get(name) is not connector:
                    return
                if restart_connector and (include_tasks and not only_failed):
                    self._restart_connector_instance(connector, announce=True)
                    return
                if restart_connector:
                    self._restart_connector_instance(connector, keep_tasks=True, announce=True)
                for i in task_indexes:
                    self._restart_task(connector, i)

        threading.Thread(target=run, name=f"restart-{name}", daemon=True).start()
        return status

    def _restart_connector_instance(
        self, connector: StandaloneConnector, *, keep_tasks: bool = False, announce: bool = False
    ) -> None:
        """Stop the connector (UNASSIGNED) and start it again, as Kafka's herders do; a
        restart request (``announce``, KIP-745) shows RESTARTING in between."""
        runtime = connector.runtime
        if runtime.target_state is TargetState.STOPPED:
            if announce:  # Kafka restarts a stopped connector too: it comes back STOPPED
                for state in (State.UNASSIGNED, State.RESTARTING, State.STOPPED):
                    runtime.status.set(state)
            return
        if keep_tasks and connector.supervised and runtime.started:
            self.worker.stop_instance(runtime)
            runtime.status.set(State.UNASSIGNED)
            if announce:
                runtime.status.set(State.RESTARTING)
            self.worker.replace_instance(runtime)
            self.worker.start_instance(runtime, start_if_paused=True)
            return
        self._stop_connector(connector)
        runtime.status.set(State.UNASSIGNED)
        if announce:
            runtime.status.set(State.RESTARTING)
        self.worker.replace_instance(runtime)
        self._start(connector)

    def restart_task(self, name: str, task: int) -> None:
        """Restart one task (any state), resetting its automatic restart count."""
        with self._lock:
            connector = self.get(name)
            if not 0 <= task < len(connector.supervised):
                raise NotFoundError(f"Task {name}-{task} not found")
            self._restart_task(connector, task)

    def _restart_task(self, connector: StandaloneConnector, index: int) -> None:
        task = self.worker.tasks.get(ConnectorTaskId(connector.name, index))
        if task is None:
            return
        if task.runner is not None:
            connector.topics |= task.runner.active_topics
        self.worker.tasks.restart(task.id)

    # -- offsets (KIP-875) ---------------------------------------------------------------
    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        """The connector's committed offsets as ``[{"partition": …, "offset": …}]``."""
        self.get(name)
        return self.worker.connector_offsets(name)

    def alter_offsets(self, name: str, entries: Sequence[Mapping[str, Any]]) -> str:
        """Alter a STOPPED connector's offsets; returns Kafka's confirmation message."""
        with self._lock:
            self.get(name)
            return self.worker.alter_offsets(name, entries)

    def put_task_configs(
        self,
        name: str,
        configs: Sequence[Mapping[str, str]] | None,
        *,
        headers: Mapping[str, str],
        body: bytes,
    ) -> None:
        raise ConnectError(
            "Kafka Connect in standalone mode does not support externally setting task "
            "configurations."
        )

    def fence_zombies(self, name: str, *, headers: Mapping[str, str], body: bytes) -> None:
        raise ConnectError(
            "Kafka Connect in standalone mode does not support exactly-once source connectors."
        )

    def reset_offsets(self, name: str) -> str:
        """Forget every offset of a STOPPED connector; returns Kafka's confirmation message."""
        with self._lock:
            self.get(name)
            return self.worker.reset_offsets(name)

    # -- topics (KIP-558) ----------------------------------------------------------------
    def connector_topics(self, name: str) -> list[str]:
        if not self.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled (topic.tracking.enable=false).")
        connector = self.get(name)
        topics = set(connector.topics)
        for runner in connector.tasks:
            topics |= runner.active_topics
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

    # -- views and secrets ---------------------------------------------------------------
    def is_started(self) -> bool:
        return self.started.is_set()

    def connector_names(self) -> list[str]:
        return sorted(self.connectors)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        if self._apply_logger_level is not None:  # one worker: the cluster is this worker
            self._apply_logger_level(namespace, level)

    def connector_info(self, name: str) -> dict[str, Any]:
        connector = self.get(name)
        return {
            "name": name,
            "config": dict(connector.runtime.raw_config),
            "tasks": [{"connector": name, "task": i} for i in range(len(connector.supervised))],
            "type": connector.type,
        }

    def connector_status(self, name: str) -> dict[str, Any]:
        """Kafka's ``ConnectorStateInfo``, with the running versions (KIP-891)."""
        connector = self.get(name)
        runtime = connector.runtime
        return {
            "name": name,
            "connector": {**runtime.status.to_rest(), **version_field(runtime.instance)},
            "tasks": [task_state(t.id.task, t) for t in connector.supervised],
            "type": connector.type,
        }

    # -- what the base needs ----------------------------------------------------------
    def _config_of(self, name: str) -> Mapping[str, str]:
        return self.get(name).runtime.raw_config

    def _shown_task_configs(self, name: str) -> list[dict[str, str]]:
        return self.get(name).stored_task_configs
