"""The distributed herder: what every worker of a group agrees on, and what it runs.

Kafka's ``DistributedHerder``, in our own shape:

- Every worker follows ``config.storage.topic`` (connector configs, task configs, target
  states, and the group's assignments) and ``status.storage.topic`` with a background
  reader, so every worker's REST API sees every connector and every status.
- REST writes (create, config, pause/resume/stop, delete) are validated on the worker that
  received them and written to the config topic; the call returns once this worker has
  read its own write back. Requests that act on running code (restarts, offsets, topics)
  are forwarded to the worker that runs the connector.
- Membership comes from Kafka's group coordinator (:class:`GroupMembership`); the leader
  plans the assignment (:func:`plan_assignment`) and publishes it with its generation in
  the config topic; every worker runs exactly the connectors assigned to it and stops the
  others, then records that it applied the generation.
- A worker whose lease lapsed (see :mod:`._membership`) stops everything it runs and writes
  no status until it is a member again; statuses carry the generation they were written
  in, and readers keep the newest generation of each.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect_sdk import AlreadyExistsError, ConfigDef, ConfigError, ConnectError, NotFoundError

from kconnect_runtime.config import Redactor
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginDesc, PluginKind
from kconnect_runtime.rest import NotReadyError, RebalanceInProgressError, forward
from kconnect_runtime.status import State, Status, TargetState
from kconnect_runtime.storage import (
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    LogTail,
    RecoveredConnector,
    encode_json,
    replay_configs,
)
from kconnect_runtime.worker import Worker

from ._assignment import plan_assignment
from ._membership import MEMBER_SLOTS, GroupMembership, live_members

__all__ = ["DistributedHerder", "GroupStore"]

log = logging.getLogger("kconnect.distributed")

ASSIGNMENT_KEY = "kconnect-assignment"
MEMBER_PREFIX = "kconnect-member-"
APPLIED_PREFIX = "kconnect-applied-"

_WRITE_TIMEOUT_S = 30.0
_READ_TIMEOUT_S = 10.0
_MOVE_TIMEOUT_S = 30.0  # a revoked connector is reassigned anyway if its worker never acks


class GroupStore:
    """The local worker's control store in distributed mode.

    Statuses are stamped with the generation this worker runs under and dropped while it is
    fenced (a stale worker must not overwrite newer states). While the herder applies an
    assignment, the configs and target states the worker echoes back are not written again:
    the config topic already holds them, and rewriting could undo a newer change.
    """

    def __init__(self, store: KafkaControlStore) -> None:
        self.store = store
        self.generation = 0
        self.fenced = True
        self.may_write: Callable[[], bool] | None = None
        self._applying = threading.local()

    def applying(self, on: bool) -> None:
        self._applying.on = on

    def _is_applying(self) -> bool:
        return bool(getattr(self._applying, "on", False))

    def connector_config(self, name: str, config: Mapping[str, str] | None) -> None:
        if not self._is_applying():
            self.store.connector_config(name, config)

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        if not self.fenced:
            self.store.task_configs(name, configs)

    def target_state(self, name: str, state: TargetState) -> None:
        if not self._is_applying():
            self.store.target_state(name, state)

    def status(self, key: str, status: Status | None) -> None:
        # Checked at each write: a task thread that runs on after a pause, before the
        # watchdog stopped it, must not overwrite the state its new owner wrote.
        if self.fenced or (self.may_write is not None and not self.may_write()):
            return
        if status is not None:
            status = Status(status.state, status.trace, status.worker_id, self.generation)
        self.store.status(key, status)


class DistributedHerder:
    """The :class:`~kconnect_runtime.worker.WorkerApi` of a distributed worker."""

    def __init__(
        self,
        worker: Worker,
        *,
        config_log: KafkaLog,
        status_log: KafkaLog,
        members_topic: str,
        group_store: GroupStore,
        offset_store: KafkaOffsetStore,
        group_id: str,
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        rebalance_timeout_ms: int,
        scheduled_rebalance_max_delay_ms: int,
        url_scheme: str = "http",
    ) -> None:
        self.worker = worker
        self.config_log = config_log
        self.status_log = status_log
        self.members_topic = members_topic
        self.group_store = group_store
        self.offset_store = offset_store
        self.group_id = group_id
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.delay_s = scheduled_rebalance_max_delay_ms / 1000
        self.url_scheme = url_scheme
        self._lock = threading.RLock()
        self._records: list[tuple[bytes | None, bytes | None]] = []
        self.view: dict[str, RecoveredConnector] = {}
        self.generation = -1
        self.assignment: dict[str, str] = {}
        self.revoking: dict[str, tuple[str, int]] = {}
        self.leader = ""
        self.members: set[str] = set()  # the workers the last assignment was planned for
        self._urls: dict[str, str] = {}
        self._announcements: list[tuple[str, dict[str, Any]]] = []
        self.applied: dict[str, int] = {}
        self.statuses: dict[str, dict[str, Any]] = {}
        self._departed: dict[str, float] = {}  # leader: worker -> when it left
        self._revoked_at: dict[str, float] = {}
        self._applied_generation = -1
        self._joined = False
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._config_tail = LogTail(config_log)
        self._status_tail = LogTail(status_log)
        self._barrier = LogTail(config_log)  # only its end offsets are asked for
        self._barrier_lock = threading.Lock()
        self._config_applied: dict[int, int] = {}  # partition -> next offset applied
        self.membership: GroupMembership | None = None
        self.ready = threading.Event()
        # The whole config topic, to its end, before REST answers anything (never a partial
        # list of connectors after a restart).
        self._apply_tail_records(self._config_tail.read())

    # -- following the topics ------------------------------------------------------------
    @property
    def worker_id(self) -> str:
        return self.worker.worker_id

    @property
    def url(self) -> str:
        return f"{self.url_scheme}://{self.worker_id}"

    def _apply_config_records(self, records: Sequence[tuple[bytes | None, bytes | None]]) -> None:
        changed = False
        with self._lock:
            for raw_key, raw_value in records:
                key = (raw_key or b"").decode(errors="replace")
                if not key.startswith("kconnect-"):
                    self._records.append((raw_key, raw_value))
                    changed = True
                    continue
                try:
                    value = None if raw_value is None else json.loads(raw_value)
                except ValueError:
                    continue
                if not isinstance(value, dict):
                    continue
                if key == ASSIGNMENT_KEY:
                    self.generation = int(value.get("generation", 0))
                    self.assignment = {str(k): str(v) for k, v in value["assignment"].items()}
                    self.revoking = {
                        str(k): (str(v[0]), int(v[1])) for k, v in value["revoking"].items()
                    }
                    self.leader = str(value.get("leader", ""))
                    self.members = set(value.get("urls", {}))
                    self._urls.update(value.get("urls", {}))
                elif key.startswith(MEMBER_PREFIX):
                    worker_id = key[len(MEMBER_PREFIX) :]
                    self._announcements.append((worker_id, value))
                    del self._announcements[: -4 * MEMBER_SLOTS]
                    self._urls[worker_id] = str(value.get("url", ""))
                elif key.startswith(APPLIED_PREFIX):
                    self.applied[key[len(APPLIED_PREFIX) :]] = int(value.get("generation", -1))
            if changed:
                self.view = replay_configs(self._records)

    def _apply_tail_records(
        self, records: Sequence[tuple[int, int, bytes | None, bytes | None]]
    ) -> None:
        if records:
            self._apply_config_records([(k, v) for _, _, k, v in records])
        for partition, offset, _, _ in records:
            if offset + 1 > self._config_applied.get(partition, 0):
                self._config_applied[partition] = offset + 1

    def _apply_status_records(
        self, records: Sequence[tuple[int, int, bytes | None, bytes | None]]
    ) -> None:
        with self._lock:
            for _, _, raw_key, raw_value in records:
                key = (raw_key or b"").decode(errors="replace")
                if raw_value is None:
                    self.statuses.pop(key, None)
                    continue
                try:
                    value = json.loads(raw_value)
                except ValueError:
                    continue
                if not isinstance(value, dict):
                    continue
                current = self.statuses.get(key)
                # A stale worker's write (older generation) never hides a newer state.
                if current is not None and int(value.get("generation") or 0) < int(
                    current.get("generation") or 0
                ):
                    continue
                self.statuses[key] = value

    def _follow(self) -> None:
        while not self._stop.is_set():
            try:
                config = self._config_tail.read()
                statuses = self._status_tail.read()
            except Exception as exc:
                log.warning("distributed: reading the internal topics failed (%s); retrying", exc)
                self._stop.wait(1.0)
                continue
            self._apply_tail_records(config)
            if statuses:
                self._apply_status_records(statuses)
            if config or statuses:
                self._wake.set()
            self._stop.wait(0.05)

    def sync(self, timeout_s: float = _WRITE_TIMEOUT_S) -> None:
        """Wait until this worker has read the config topic up to its current end."""
        with self._barrier_lock:
            ends = self._barrier.end_offsets()
        # Our own writes count exactly (some brokers report a lagging high watermark).
        for partition, offset in list(self.config_log.written.items()):
            ends[partition] = max(ends.get(partition, 0), offset)
        deadline = time.monotonic() + timeout_s
        while not all(self._config_applied.get(p, 0) >= end for p, end in ends.items()):
            if self._stop.is_set():
                raise NotReadyError("Request cannot be completed: this worker is stopping")
            if time.monotonic() > deadline:
                raise NotReadyError(
                    "Request timed out: this worker has not read config.storage.topic "
                    f"{self.config_log.topic!r} to its end; retry"
                )
            time.sleep(0.02)

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, timeout_s: float) -> None:
        """Follow the topics, join the group, and wait for this worker's first assignment."""
        self._apply_status_records(self._status_tail.read())
        self.group_store.may_write = self._may_run
        self.membership = GroupMembership(
            self.config_log.client_config,
            group_id=self.group_id,
            topic=self.members_topic,
            worker_id=self.worker_id,
            session_timeout_ms=self.session_timeout_ms,
            heartbeat_interval_ms=self.heartbeat_interval_ms,
            rebalance_timeout_ms=self.rebalance_timeout_ms,
            on_assigned=self._on_assigned,
            on_lost=self._on_lost,
        )
        for target, name in (
            (self._follow, "config-follower"),
            (self._reconcile_loop, "herder"),
            (self._watchdog, "lease-watchdog"),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self.membership.start()
        self.ready.set()
        deadline = time.monotonic() + timeout_s
        while self._applied_generation < 0 or self.worker_id not in self.members:
            if time.monotonic() > deadline:
                log.warning(
                    "group %s: no assignment for this worker after %.0fs; serving REST and "
                    "waiting for the group",
                    self.group_id,
                    timeout_s,
                )
                return
            time.sleep(0.05)

    def _on_assigned(self, partitions: list[int]) -> None:
        self._joined = True
        self.config_log.send(
            f"{MEMBER_PREFIX}{self.worker_id}".encode(),
            encode_json(
                {
                    "worker_id": self.worker_id,
                    "url": self.url,
                    "partitions": partitions,
                    "member_id": self.membership.member_id() if self.membership else "",
                }
            ),
        )
        try:
            self.config_log.flush()
        except ConnectError as exc:
            log.error("group %s: cannot announce this worker: %s", self.group_id, exc)
        self._wake.set()

    def _on_lost(self) -> None:
        self._joined = False
        self._fence("its group session expired")

    def _may_run(self) -> bool:
        return self._joined and self.membership is not None and self.membership.lease_valid()

    def _watchdog(self) -> None:
        # A worker paused past its lease (GC, SIGSTOP) or cut off from the coordinator
        # stops its tasks at once, before the group can give them to another worker.
        while not self._stop.wait(0.02):
            if self._may_run():
                continue
            if not self.group_store.fenced or self.worker.connectors:
                self._fence("its group lease lapsed (paused, or cut off from the brokers)")
            elif self.membership is not None:
                self.membership.reinstate()  # nothing runs here: the lease may be renewed

    def _fence(self, why: str) -> None:
        if self.group_store.fenced and not self.worker.connectors:
            return
        self.group_store.fenced = True
        names = list(self.worker.connectors)
        if names:
            log.warning("stopping connectors %s on this worker: %s", names, why)
        for name in names:
            try:
                self.worker.release_connector(name)
            except Exception:
                log.exception("connector %s: stopping it failed", name)
        self._applied_generation = -1
        if self.membership is not None:
            self.membership.reinstate()  # nothing runs here now: the lease may be renewed
        self._wake.set()

    def _reconcile_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.25)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                if not self._may_run():
                    continue
                # Never act on an old assignment (e.g. after a pause): read to the end first.
                self.sync()
                if self.membership is not None and self.membership.is_leader:
                    self._lead()
                self._reconcile()
            except Exception:
                if self._stop.is_set():
                    return  # stopping: the follower is gone, nothing more to apply
                log.exception("distributed: applying the group's assignment failed; retrying")
                self._stop.wait(1.0)

    # -- the leader ----------------------------------------------------------------------
    def _weights(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, entry in self.view.items():
            if entry.target_state is TargetState.STOPPED:
                out[name] = 1
            else:
                tasks = len(entry.task_configs) or int(entry.config.get("tasks.max", "1") or 1)
                out[name] = 1 + tasks
        return out

    def _lead(self) -> None:
        with self._lock:
            members = live_members(self._announcements)
            if members is None:
                return  # a rebalance is still being announced
            now = time.monotonic()
            known = set(self.assignment.values()) | {w for w, _ in self.revoking.values()}
            for worker in known - set(members):
                self._departed.setdefault(worker, now)
            for worker in list(self._departed):
                if worker in members:
                    del self._departed[worker]
            held_for = [w for w, t in self._departed.items() if now - t < self.delay_s]
            # A revocation its worker never acknowledges is given up after a while.
            applied = dict(self.applied)
            for name, (worker, revoked_in) in self.revoking.items():
                since = self._revoked_at.setdefault(f"{name}@{revoked_in}", now)
                if now - since > _MOVE_TIMEOUT_S:
                    applied[worker] = max(applied.get(worker, -1), revoked_in)
            plan = plan_assignment(
                generation=self.generation + 1,
                connectors=self._weights(),
                members=sorted(members),
                previous=self.assignment,
                revoking=self.revoking,
                applied=applied,
                held_for=held_for,
            )
            if (
                plan.assignment == self.assignment
                and plan.revoking == self.revoking
                and self.leader == self.worker_id
                and set(members) == self.members
            ):
                return  # unchanged (held connectors are looked at again on the next tick)
            generation = self.generation + 1
            urls = {w: str(a.get("url", "")) for w, a in members.items()}
            value = {
                "generation": generation,
                "leader": self.worker_id,
                "leader_url": self.url,
                "assignment": plan.assignment,
                "revoking": {k: list(v) for k, v in plan.revoking.items()},
                "urls": urls,
            }
        log.info(
            "group %s: generation %d: %s%s%s",
            self.group_id,
            generation,
            _describe(plan.assignment),
            f"; revoking {sorted(plan.revoking)}" if plan.revoking else "",
            f"; held for departed workers {plan.held}" if plan.held else "",
        )
        self.config_log.send(ASSIGNMENT_KEY.encode(), encode_json(value))
        self.config_log.flush()
        self.sync()

    # -- every worker --------------------------------------------------------------------
    def _reconcile(self) -> None:
        with self._lock:
            generation = self.generation
            mine = {n for n, w in self.assignment.items() if w == self.worker_id}
            view = dict(self.view)
        if not self._may_run():
            return
        self.group_store.generation = max(generation, 0)
        self.group_store.fenced = False
        worker = self.worker
        self.group_store.applying(True)
        try:
            for name in list(worker.connectors):
                if name not in view:
                    worker.delete_connector(name)
                elif name not in mine:
                    log.info(
                        "connector %s moves to another worker (generation %d)", name, generation
                    )
                    worker.release_connector(name)
            starting = [n for n in view if n in mine and n not in worker.connectors]
            if starting:
                self.offset_store.refresh()  # offsets the previous owner committed
            for name, entry in view.items():
                if name in mine:
                    self._apply_connector(name, entry)
        finally:
            self.group_store.applying(False)
        if self._applied_generation != generation and generation >= 0:
            self._applied_generation = generation
            self.config_log.send(
                f"{APPLIED_PREFIX}{self.worker_id}".encode(),
                encode_json({"generation": generation}),
            )
            self.config_log.flush()

    def _apply_connector(self, name: str, entry: RecoveredConnector) -> None:
        worker = self.worker
        runtime = worker.connectors.get(name)
        try:
            if runtime is None:
                runtime = worker.create_connector(entry.config, initial_state=entry.target_state)
                log.info(
                    "running connector %s here (%s, target state %s, %d tasks)",
                    name,
                    runtime.plugin.name,
                    entry.target_state.value,
                    len(runtime.tasks),
                )
                return
            if runtime.raw_config != entry.config:
                worker.put_connector_config(name, entry.config)
            if runtime.target_state is not entry.target_state:
                if entry.target_state is TargetState.PAUSED:
                    worker.pause_connector(name)
                elif entry.target_state is TargetState.STOPPED:
                    worker.stop_connector(name)
                else:
                    worker.resume_connector(name)
        except (ConfigError, ConnectError) as exc:
            if worker.connectors.get(name) is None:
                log.error(
                    "connector %s from config.storage.topic cannot be created here: %s; fix "
                    "its config with PUT /connectors/%s/config or delete it",
                    name,
                    exc,
                    name,
                )
                self.group_store.status(
                    f"status-connector-{name}",
                    Status(State.FAILED, str(exc), worker_id=self.worker_id),
                )

    def halt(self) -> None:
        """Stop following and applying assignments (the worker then stops its connectors)."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(10)
        self._threads = []

    def close(self) -> None:
        """Leave the group (the others rebalance at once) and release the clients."""
        self.halt()
        if self.membership is not None:
            self.membership.close()
            self.membership = None
        self.group_store.fenced = True
        for tail in (self._config_tail, self._status_tail, self._barrier):
            tail.close()

    # -- WorkerApi ---------------------------------------------------------------------
    def _require_ready(self) -> None:
        if not self.ready.is_set():
            raise NotReadyError(
                "Request cannot be completed: this worker is still reading "
                f"config.storage.topic {self.config_log.topic!r} to its end; retry shortly"
            )

    def _read_barrier(self) -> None:
        """Reads are consistent across workers: answer from the config topic's current end
        (a connector just created through another worker is seen here too)."""
        self._require_ready()
        self.sync(_READ_TIMEOUT_S)

    def _entry(self, name: str) -> RecoveredConnector:
        self._read_barrier()
        with self._lock:
            entry = self.view.get(name)
        if entry is None:
            raise NotFoundError(f"Connector {name} not found")
        return entry

    def _owner(self, name: str) -> str | None:
        with self._lock:
            owner = self.assignment.get(name)
            if owner is None or name in self.revoking:
                return None
            return owner

    def _forward(
        self,
        name: str,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        body: Any = None,
    ) -> tuple[int, Any]:
        owner = self._owner(name)
        if owner is None:
            raise RebalanceInProgressError(
                "Request cannot be completed because a rebalance is expected "
                f"(connector {name} is not assigned to a worker right now); retry"
            )
        with self._lock:
            url = self._urls.get(owner) or f"{self.url_scheme}://{owner}"
        return forward(url, method, path, params=params, body=body)

    def _local(self, name: str) -> bool:
        return name in self.worker.connectors and self._owner(name) == self.worker_id

    def is_started(self) -> bool:
        return self.ready.is_set() and self.worker.is_started()

    def connector_names(self) -> list[str]:
        self._read_barrier()
        with self._lock:
            return sorted(self.view)

    def _plugin(self, entry: RecoveredConnector) -> PluginDesc:
        return self.worker.registry.resolve(
            entry.config.get("connector.class", ""), *CONNECTOR_KINDS, key="connector.class"
        )

    def _type(self, entry: RecoveredConnector) -> str:
        try:
            return self._plugin(entry).kind.value
        except ConnectError:
            return "unknown"

    def connector_info(self, name: str) -> dict[str, Any]:
        entry = self._entry(name)
        return {
            "name": name,
            "config": dict(entry.config),
            "tasks": [{"connector": name, "task": i} for i in range(len(entry.task_configs))],
            "type": self._type(entry),
        }

    def password_keys(self, name: str) -> set[str]:
        if name in self.worker.connectors:
            return self.worker.password_keys(name)
        entry = self._entry(name)
        try:
            definition = self._plugin(entry).load()().config()
        except Exception:  # a broken plugin must not break status pages
            return set()
        from kconnect_sdk import ConfigType

        return {k for k, d in definition.config_keys.items() if d.type is ConfigType.PASSWORD}

    def redactor(self, name: str) -> Redactor:
        if name in self.worker.connectors:
            return self.worker.redactor(name)
        return self.worker.config_redactor(self._entry(name).config)

    def _write_connector(
        self, name: str, config: Mapping[str, str], created: bool, initial_state: TargetState
    ) -> None:
        self.worker.check_connector_config(config)
        store = self.group_store.store
        if created:
            # As Kafka: the target state first, so the connector never starts in another.
            store.target_state(name, initial_state)
        store.connector_config(name, config)
        self.sync()

    def create_connector(
        self, props: Mapping[str, str], *, initial_state: TargetState = TargetState.STARTED
    ) -> object:
        self._require_ready()
        name = props.get("name", "").strip()
        with self._lock:
            exists = name in self.view
        if exists:
            raise AlreadyExistsError(f"Connector {name} already exists")
        self._write_connector(name, dict(props), True, initial_state)
        return None

    def put_connector_config(self, name: str, config: Mapping[str, str]) -> tuple[bool, object]:
        self._require_ready()
        config = dict(config)
        if config.get("name", name) != name:
            raise ConfigError(
                f"Connector name configuration ({config['name']}) doesn't match connector name "
                f"in the URL ({name})",
                name="name",
            )
        config["name"] = name
        with self._lock:
            created = name not in self.view
        self._write_connector(name, config, created, TargetState.STARTED)
        return created, None

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> object:
        merged = dict(self._entry(name).config)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return self.put_connector_config(name, merged)[1]

    def delete_connector(self, name: str) -> None:
        entry = self._entry(name)
        store = self.group_store.store
        store.connector_config(name, None)
        self.sync()
        # The statuses go with the connector (its worker may already have stopped it).
        store.status(f"status-connector-{name}", None)
        for index in range(len(entry.task_configs)):
            store.status(f"status-task-{name}-{index}", None)

    def _target(self, name: str, state: TargetState) -> None:
        self._entry(name)
        self.group_store.store.target_state(name, state)
        self.sync()

    def pause_connector(self, name: str) -> None:
        self._target(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._target(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._target(name, TargetState.STOPPED)

    def restart_connector(
        self, name: str, *, include_tasks: bool = False, only_failed: bool = False
    ) -> dict[str, Any] | None:
        self._entry(name)
        if self._local(name):
            return self.worker.restart_connector(
                name, include_tasks=include_tasks, only_failed=only_failed
            )
        status, body = self._forward(
            name,
            "POST",
            f"/connectors/{name}/restart",
            {"includeTasks": str(include_tasks).lower(), "onlyFailed": str(only_failed).lower()},
        )
        return body if status == 202 and isinstance(body, dict) else None

    def connector_status(self, name: str) -> dict[str, Any]:
        entry = self._entry(name)
        if self._local(name):
            return self.worker.connector_status(name)
        owner = self._owner(name) or ""
        with self._lock:
            connector = dict(self.statuses.get(f"status-connector-{name}") or {})
            tasks = [
                dict(self.statuses.get(f"status-task-{name}-{i}") or {})
                for i in range(len(entry.task_configs))
            ]
        return {
            "name": name,
            "connector": _rest_status(connector, owner),
            "tasks": [{"id": i, **_rest_status(t, owner)} for i, t in enumerate(tasks)],
            "type": self._type(entry),
        }

    def task_status(self, name: str, task: int) -> dict[str, Any]:
        tasks = self.connector_status(name)["tasks"]
        if not 0 <= task < len(tasks):
            raise NotFoundError(f"Task {name}-{task} not found")
        result: dict[str, Any] = tasks[task]
        return result

    def task_list(self, name: str) -> list[dict[str, Any]]:
        entry = self._entry(name)
        return [
            {"id": {"connector": name, "task": i}, "config": dict(c)}
            for i, c in enumerate(entry.task_configs)
        ]

    def restart_task(self, name: str, task: int) -> None:
        self._entry(name)
        if self._local(name):
            self.worker.restart_task(name, task)
            return
        self._forward(name, "POST", f"/connectors/{name}/tasks/{task}/restart")

    def task_metrics(self) -> list[tuple[str, int, str, TaskMetrics, str]]:
        return self.worker.task_metrics()

    def connector_topics(self, name: str) -> list[str]:
        self._entry(name)
        if self._local(name):
            return self.worker.connector_topics(name)
        _, body = self._forward(name, "GET", f"/connectors/{name}/topics")
        return list(body.get(name, {}).get("topics", [])) if isinstance(body, dict) else []

    def reset_topics(self, name: str) -> None:
        self._entry(name)
        if self._local(name):
            self.worker.reset_topics(name)
            return
        self._forward(name, "PUT", f"/connectors/{name}/topics/reset")

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        self._entry(name)
        if self._local(name):
            self.offset_store.refresh()
            return self.worker.connector_offsets(name)
        _, body = self._forward(name, "GET", f"/connectors/{name}/offsets")
        return list(body.get("offsets", [])) if isinstance(body, dict) else []

    def alter_offsets(self, name: str, entries: Sequence[Mapping[str, Any]]) -> str:
        self._entry(name)
        if self._local(name):
            return self.worker.alter_offsets(name, entries)
        _, body = self._forward(
            name, "PATCH", f"/connectors/{name}/offsets", body={"offsets": list(entries)}
        )
        return str(body.get("message", "")) if isinstance(body, dict) else ""

    def reset_offsets(self, name: str) -> str:
        self._entry(name)
        if self._local(name):
            return self.worker.reset_offsets(name)
        _, body = self._forward(name, "DELETE", f"/connectors/{name}/offsets")
        return str(body.get("message", "")) if isinstance(body, dict) else ""

    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return self.worker.plugins(*kinds)

    def plugin_config(
        self, plugin: str, kinds: Sequence[PluginKind], version: str | None = None
    ) -> ConfigDef:
        return self.worker.plugin_config(plugin, kinds, version)

    def validate_connector_config(self, plugin: str, props: Mapping[str, str]) -> dict[str, Any]:
        return self.worker.validate_connector_config(plugin, props)


def _rest_status(stored: Mapping[str, Any], owner: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "state": str(stored.get("state") or State.UNASSIGNED.value),
        "worker_id": str(stored.get("worker_id") or owner),
    }
    if stored.get("trace"):
        out["trace"] = stored["trace"]
    return out


def _describe(assignment: Mapping[str, str]) -> str:
    by_worker: dict[str, list[str]] = {}
    for name, worker in assignment.items():
        by_worker.setdefault(worker, []).append(name)
    return ", ".join(f"{w}: {sorted(n)}" for w, n in sorted(by_worker.items())) or "nothing"
