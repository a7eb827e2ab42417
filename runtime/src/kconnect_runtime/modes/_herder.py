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
  plans the assignment (:func:`plan_connectors_and_tasks`) and publishes it with its
  generation in the config topic. As in Kafka, connectors and tasks are assigned on their
  own: the worker given a connector runs its instance, which generates the task configs and
  stores them in the config topic; the workers given its tasks run them from there. Every
  worker runs exactly the units assigned to it and stops the others, then records that it
  applied the generation.
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
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaException
from kconnect_sdk import AlreadyExistsError, ConfigDef, ConfigError, ConnectError, NotFoundError

from kconnect_runtime.config import Redactor
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginDesc, PluginKind
from kconnect_runtime.rest import NotReadyError, RebalanceInProgressError, forward, path_segment
from kconnect_runtime.status import State, Status, TargetState
from kconnect_runtime.storage import (
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    LogTail,
    RecoveredConnector,
    encode_json,
    parse_topic_status_key,
    replay_configs,
)
from kconnect_runtime.tasks import TaskRunner, transactional_id
from kconnect_runtime.worker import ConnectorRuntime, Worker, plugin_version

from ._assignment import is_task, plan_connectors_and_tasks, task_unit, unit_label, unit_task
from ._membership import MEMBER_SLOTS, GroupMembership, live_members

__all__ = ["DistributedHerder", "GroupStore"]

log = logging.getLogger("kconnect.distributed")

ASSIGNMENT_KEY = "kconnect-assignment"
FENCING_PREFIX = "tasks-fencing-"  # Kafka's task count record: {"task-count": n}
MEMBER_PREFIX = "kconnect-member-"
LOGGER_CLUSTER_PREFIX = "logger-cluster-"  # Kafka's cluster-scoped log level: {"level": …}
RESTART_PREFIX = "restart-connector-"  # Kafka's {"include-tasks": …, "only-failed": …}
APPLIED_PREFIX = "kconnect-applied-"

_WRITE_TIMEOUT_S = 30.0
_READ_TIMEOUT_S = 10.0
_MOVE_TIMEOUT_S = 30.0  # a revoked connector is reassigned anyway if its worker never acks


@dataclass(eq=False)
class _HostedTask:
    """A task assigned to this worker: run from the task config in the config topic."""

    connector: str
    index: int
    config: dict[str, str]  # as stored (placeholders intact)
    connector_config: dict[str, str]  # the connector config it was started with
    runtime: ConnectorRuntime  # the connector's plugin and parsed config (never started)
    runner: TaskRunner | None = None
    status: Status = field(default_factory=Status)
    # The target state this task's runner was last given. Its own, not the runtime's: the
    # runtime may be the connector's running instance here, whose target state the worker
    # changes first, and the task must still be paused or resumed after it.
    target: TargetState = TargetState.STARTED

    @property
    def key(self) -> str:
        return f"status-task-{self.connector}-{self.index}"


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
        # The task configs the config topic holds for a connector (written only if changed).
        self.stored_task_configs: Callable[[str], list[dict[str, str]] | None] | None = None
        self._applying = threading.local()

    def applying(self, on: bool) -> None:
        self._applying.on = on

    def _is_applying(self) -> bool:
        return bool(getattr(self._applying, "on", False))

    def connector_config(self, name: str, config: Mapping[str, str] | None) -> None:
        if not self._is_applying():
            self.store.connector_config(name, config)

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        if self.fenced:
            return
        if self.stored_task_configs is not None and self.stored_task_configs(name) == [
            dict(c) for c in configs
        ]:
            return  # unchanged: the tasks running elsewhere keep running (as Kafka)
        self.store.task_configs(name, configs)

    def target_state(self, name: str, state: TargetState) -> None:
        if not self._is_applying():
            self.store.target_state(name, state)

    def status(self, key: str, status: Status | None) -> None:
        # Checked at each write: a task thread that runs on after a pause, before the
        # watchdog stopped it, must not overwrite the state its new owner wrote.
        if self.fenced or (self.may_write is not None and not self.may_write()):
            return
        if status is None and self._is_applying():
            return  # a deletion the herder that took the request has already written
        self.store.status(key, status if status is None else self._stamped(status))

    def remove_status(self, key: str) -> None:
        """A status tombstone the herder decides on (a task removed), fenced as any write."""
        if self.fenced or (self.may_write is not None and not self.may_write()):
            return
        self.store.status(key, None)

    def _stamped(self, status: Status) -> Status:
        """The status with this worker's generation; as Kafka 4.1, a status the plugin did
        not reach itself carries no version."""
        return Status(
            status.state,
            status.trace,
            status.worker_id,
            self.generation,
            None if status.state in (State.UNASSIGNED, State.RESTARTING) else status.version,
        )


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
        connect_protocol: str = "sessioned",
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
        # eager: every rebalance stops everything first; compatible/sessioned: incremental.
        self.eager = connect_protocol.strip().lower() == "eager"
        support = str(worker.worker_props.get("exactly.once.source.support", "disabled"))
        support = support.strip().lower()
        self.eos_enabled = support == "enabled"  # transactional tasks, fenced generations
        self.transactional_leader = support in ("preparing", "enabled")
        self._leader_producer: Any = None
        self._seq = 0  # config records seen (non-internal), to order commits and task counts
        self._commit_seq: dict[str, int] = {}
        self._fencing: dict[str, tuple[int, int]] = {}  # connector -> (seq, task count)
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
        # The newest generation any status record carries. A cluster taken over from Kafka
        # Connect's Java workers has statuses of their generations and no assignment of
        # ours: the first assignment is numbered past them, so this group's statuses are
        # newer than the Java workers' last ones.
        self._status_generation = -1
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
        self.hosted: dict[str, _HostedTask] = {}  # task unit -> the task running here
        self._run_lock = threading.RLock()  # one change at a time to what runs here
        # Tasks that could not start here, with the configs they failed with (not retried
        # until those change or the task is restarted).
        self._start_failed: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
        self._auto_restarts: dict[str, int] = {}  # task unit -> automatic restarts done
        # KIP-558 in the status topic, as Kafka keeps it: connector -> its active topics
        # (every worker's records), and per task running here the topics it has reported.
        self._topic_status: dict[str, set[str]] = {}
        self._revisions: dict[str, int] = {}  # connector -> config revision applied here
        self._reported: dict[str, set[str]] = {}
        worker.launch_tasks = False  # tasks are assigned on their own (see _reconcile)
        group_store.stored_task_configs = self._stored_task_configs
        self.membership: GroupMembership | None = None
        self.ready = threading.Event()
        # Cluster-scoped log levels (KIP-976) read from the config topic are applied through
        # this, once REST has given it; those written before this worker started are not.
        self._apply_logger_level: Callable[[str, str], object] | None = None
        self._started_reading = False
        # The whole config topic, to its end, before REST answers anything (never a partial
        # list of connectors after a restart).
        self._apply_tail_records(self._config_tail.read())
        self._started_reading = True

    # -- following the topics ------------------------------------------------------------
    # -- exactly-once sources (KIP-618): task count records and zombie fencing ------------
    def _track_fencing(self, key: str, raw_value: bytes | None) -> None:
        """Where each connector's latest task configs and task count record are (the
        connector is *pending fencing* while its task configs are the newer)."""
        self._seq += 1
        if key.startswith("commit-"):
            self._commit_seq[key[len("commit-") :]] = self._seq
        elif key.startswith(FENCING_PREFIX):
            name = key[len(FENCING_PREFIX) :]
            try:
                count = None if raw_value is None else int(json.loads(raw_value)["task-count"])
            except (ValueError, KeyError, TypeError):
                log.warning("config.storage.topic: ignoring task count record %r", key)
                return
            if count is None:
                self._fencing.pop(name, None)
            else:
                self._fencing[name] = (self._seq, count)
        elif key.startswith("connector-") and raw_value is None:
            name = key[len("connector-") :]
            self._commit_seq.pop(name, None)
            self._fencing.pop(name, None)

    def pending_fencing(self, name: str) -> bool:
        """Kafka's ``pendingFencing``: task configs newer than the task count record."""
        with self._lock:
            commit = self._commit_seq.get(name)
            fencing = self._fencing.get(name)
        return commit is not None and (fencing is None or fencing[0] < commit)

    def _is_source(self, entry: RecoveredConnector) -> bool:
        return self._type(entry) == PluginKind.SOURCE.value

    def _fence_zombies_as_leader(self) -> None:
        """The leader's rounds of zombie fencing (``exactly.once.source.support=enabled``).

        As Kafka's ``DistributedHerder``: for a source connector whose task configs are newer
        than its task count record, the producers of every task of the previous generation
        are fenced (their transactional ids' epoch is bumped, so a zombie can commit nothing
        more), unless both generations have a single task (the new task fences the old one
        itself); then the leader writes the new task count record, and only then do the
        workers start the new tasks. confluent-kafka has no ``fenceProducers``: fencing is
        ``init_transactions`` with each old transactional id, which is what it does.
        """
        with self._lock:
            pending = [
                (name, entry)
                for name, entry in self.view.items()
                if name in self._commit_seq and self.pending_fencing(name)
            ]
        for name, entry in pending:
            if not self._is_source(entry):
                continue
            count = len(entry.task_configs)
            with self._lock:
                previous = self._fencing.get(name)
            if previous is not None and not (previous[1] == 1 and count == 1):
                self._fence_producers(name, previous[1])
            else:
                log.info(
                    "connector %s: no zombie fencing needed (%s); writing its task count record",
                    name,
                    "first generation with exactly-once"
                    if previous is None
                    else "one task before and after",
                )
            self._leader_write(f"{FENCING_PREFIX}{name}", {"task-count": count})
            self.sync()  # never fence twice: the next round sees this record

    def _fence_producers(self, name: str, count: int) -> None:
        from confluent_kafka import Producer

        ids = [transactional_id(self.group_id, name, i) for i in range(count)]
        log.info("connector %s: fencing the producers of its previous tasks %s", name, ids)
        for tid in ids:
            producer = Producer(
                {
                    **self.config_log.client_config,
                    "transactional.id": tid,
                    "client.id": f"{self.worker_id}-fencer",
                }
            )
            try:
                producer.init_transactions(_WRITE_TIMEOUT_S)
            except Exception as exc:
                raise ConnectError(
                    f"connector {name}: zombie fencing of transactional id {tid!r} failed: {exc}"
                ) from None
            finally:
                producer.flush(1)

    def _leader_write(self, key: str, value: Mapping[str, Any]) -> None:
        """A record only the leader writes to the config topic (assignments, task counts).

        With ``exactly.once.source.support`` ``preparing`` or ``enabled``, the leader writes
        through a transactional producer with Kafka's id ``connect-cluster-<group.id>``: a
        new leader's producer fences the previous one, so a zombie leader writes nothing.
        """
        if not self.transactional_leader:
            self.config_log.send(key.encode(), encode_json(dict(value)))
            self.config_log.flush()
            return
        from confluent_kafka import KafkaException, Producer

        if self._leader_producer is None:
            producer = Producer(
                {
                    **self.config_log.client_config,
                    "transactional.id": f"connect-cluster-{self.group_id}",
                    "client.id": f"{self.worker_id}-leader",
                }
            )
            producer.init_transactions(_WRITE_TIMEOUT_S)
            self._leader_producer = producer
        producer = self._leader_producer
        try:
            producer.begin_transaction()
            producer.produce(self.config_log.topic, value=encode_json(dict(value)), key=key)
            producer.commit_transaction(_WRITE_TIMEOUT_S)
        except KafkaException as exc:
            self._leader_producer = None  # a new one (init_transactions) on the next write
            raise ConnectError(
                f"group {self.group_id}: this worker cannot write to config.storage.topic as "
                f"the leader ({exc}); a newer leader may have fenced it out"
            ) from None

    def _drop_leader_producer(self) -> None:
        producer, self._leader_producer = self._leader_producer, None
        if producer is not None:
            producer.flush(1)

    def _stored_task_configs(self, name: str) -> list[dict[str, str]] | None:
        with self._lock:
            entry = self.view.get(name)
            return None if entry is None else [dict(c) for c in entry.task_configs]

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
                if key.startswith(LOGGER_CLUSTER_PREFIX):
                    self._logger_level_record(key[len(LOGGER_CLUSTER_PREFIX) :], raw_value)
                    continue
                if key.startswith(RESTART_PREFIX):
                    self._restart_request_record(key[len(RESTART_PREFIX) :], raw_value)
                    continue
                if not key.startswith("kconnect-"):
                    self._records.append((raw_key, raw_value))
                    self._track_fencing(key, raw_value)
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

    def _logger_level_record(self, namespace: str, raw_value: bytes | None) -> None:
        try:
            level = json.loads(raw_value or b"null")["level"]
        except (ValueError, TypeError, KeyError):
            log.warning("config.storage.topic: ignoring a log level record for %r", namespace)
            return
        apply = self._apply_logger_level
        if not self._started_reading or apply is None:
            return  # as Kafka: levels set before this worker started are not applied
        try:
            apply(namespace, str(level))
            log.info("log level of %r set to %s (cluster scope)", namespace, level)
        except Exception as exc:
            log.warning("cannot set the log level of %r to %r: %s", namespace, level, exc)

    def _apply_tail_records(
        self, records: Sequence[tuple[int, int, bytes | None, bytes | None]]
    ) -> None:
        if records:
            self._apply_config_records([(k, v) for _, _, k, v in records])
        # The tail's positions: past every record applied, and past transaction markers and
        # aborted records (the leader's transactional writes take offsets too); back at the
        # start of a topic that was deleted and created again.
        self._config_applied.update(self._config_tail.positions())

    def _apply_status_records(
        self, records: Sequence[tuple[int, int, bytes | None, bytes | None]]
    ) -> None:
        with self._lock:
            for _, _, raw_key, raw_value in records:
                key = (raw_key or b"").decode(errors="replace")
                topic_of = parse_topic_status_key(key)
                if topic_of is not None:
                    connector, topic = topic_of
                    known = self._topic_status.setdefault(connector, set())
                    if raw_value is None:
                        known.discard(topic)
                    else:
                        known.add(topic)
                    continue
                if raw_value is None:
                    self.statuses.pop(key, None)
                    continue
                try:
                    value = json.loads(raw_value)
                except ValueError:
                    continue
                if not isinstance(value, dict):
                    continue
                generation = _generation_of(value)
                self._status_generation = max(self._status_generation, generation)
                current = self.statuses.get(key)
                # A stale worker's write (older generation) never hides a newer state.
                if current is not None and generation < _generation_of(current):
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
            self._report_topics()
            self._stop.wait(0.05)

    def _report_topics(self) -> None:
        """Write an active topic record (KIP-558) for each topic a task running here has
        newly used and the status topic does not list yet, as Kafka's WorkerTask does."""
        if not self.worker.topic_tracking_enable or self.group_store.fenced:
            return
        now_ms = int(time.time() * 1000)
        for unit, hosted in list(self.hosted.items()):
            runner = hosted.runner
            if runner is None:
                continue
            reported = self._reported.setdefault(unit, set())
            with self._lock:
                listed = set(self._topic_status.get(hosted.connector, ()))
            for topic in sorted(runner.active_topics - reported):
                reported.add(topic)
                if topic in listed:
                    continue
                with self._lock:
                    self._topic_status.setdefault(hosted.connector, set()).add(topic)
                self.group_store.store.topic_status(hosted.connector, topic, hosted.index, now_ms)

    def sync(self, timeout_s: float = _WRITE_TIMEOUT_S) -> None:
        """Wait until this worker has read the config topic up to its current end."""
        try:
            with self._barrier_lock:
                ends = self._barrier.end_offsets()
        except KafkaException as exc:
            # The brokers are moving leadership (a broker died or restarts): the request can
            # be retried, as Kafka Connect answers while its herder is not ready.
            raise NotReadyError(
                "Request cannot be completed: this worker cannot read config.storage.topic "
                f"{self.config_log.topic!r} to its end now ({exc}); retry"
            ) from None
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
            if self.membership.refusal is not None:
                raise ConnectError(self.membership.refusal)
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
            if not self.group_store.fenced or self.worker.connectors or self.hosted:
                self._fence("its group lease lapsed (paused, or cut off from the brokers)")
            elif self.membership is not None:
                self.membership.reinstate()  # nothing runs here: the lease may be renewed

    def _fence(self, why: str) -> None:
        with self._run_lock:
            self._fence_locked(why)

    def _fence_locked(self, why: str) -> None:
        if self.group_store.fenced and not self.worker.connectors and not self.hosted:
            return
        self.group_store.fenced = True
        names = list(self.worker.connectors)
        if names or self.hosted:
            log.warning(
                "stopping connectors %s and tasks %s on this worker: %s",
                names,
                sorted(unit_label(u) for u in self.hosted),
                why,
            )
        self._stop_tasks(list(self.hosted))
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
                leader = self.membership is not None and self.membership.is_leader
                if leader:
                    self._lead()
                else:
                    self._drop_leader_producer()
                # Tasks whose configs changed stop here first; the new ones wait for the
                # leader's zombie fencing (exactly-once), done once it stopped its own.
                self._reconcile()
                if leader and self.eos_enabled:
                    self._fence_zombies_as_leader()
            except (KafkaException, NotReadyError) as exc:
                if self._stop.is_set():
                    return
                # The cluster is moving leadership: said in one line, asked again.
                log.warning(
                    "distributed: applying the group's assignment waits for the brokers (%s); "
                    "retrying",
                    exc,
                )
                self._stop.wait(1.0)
            except Exception:
                if self._stop.is_set():
                    return  # stopping: the follower is gone, nothing more to apply
                log.exception("distributed: applying the group's assignment failed; retrying")
                self._stop.wait(1.0)

    # -- the leader ----------------------------------------------------------------------
    def _units(self) -> list[str]:
        """Connectors and their tasks (from the stored task configs), in creation order."""
        out: list[str] = []
        for name, entry in self.view.items():
            out.append(name)
            if entry.target_state is not TargetState.STOPPED:
                out += [task_unit(name, i) for i in range(len(entry.task_configs))]
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
            generation = max(self.generation, self._status_generation) + 1
            plan = plan_connectors_and_tasks(
                generation=generation,
                units=self._units(),
                members=sorted(members),
                previous=self.assignment,
                revoking=self.revoking,
                applied=applied,
                held_for=held_for,
                eager=self.eager,
                previous_members=sorted(self.members),
            )
            if (
                plan.assignment == self.assignment
                and plan.revoking == self.revoking
                and self.leader == self.worker_id
                and set(members) == self.members
            ):
                return  # unchanged (held connectors are looked at again on the next tick)
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
            f"; revoking {sorted(unit_label(u) for u in plan.revoking)}" if plan.revoking else "",
            f"; held for departed workers {_describe(plan.held)}" if plan.held else "",
        )
        self._leader_write(ASSIGNMENT_KEY, value)
        self.sync()

    # -- every worker --------------------------------------------------------------------
    def _reconcile(self) -> None:
        with self._run_lock:
            self._reconcile_locked()

    def _reconcile_locked(self) -> None:
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
            # Tasks that moved, were deleted or stopped, or whose config changed stop first.
            leaving: list[str] = []
            for unit, hosted in list(self.hosted.items()):
                entry = view.get(hosted.connector)
                if unit not in mine or not self._still_valid(hosted, entry):
                    leaving.append(unit)
            if leaving:
                self._stop_tasks(leaving, view=view, generation=generation)
            starting = [n for n in view if n in mine and n not in worker.connectors]
            new_tasks = [u for u in sorted(mine) if is_task(u) and u not in self.hosted]
            if starting or new_tasks:
                self.offset_store.refresh()  # offsets the previous owner committed
            for name, entry in view.items():
                if name in mine:
                    self._apply_connector(name, entry)
            for unit in new_tasks:
                name, index = unit_task(unit)
                entry = view.get(name)
                if (
                    entry is not None
                    and entry.target_state is not TargetState.STOPPED
                    and index < len(entry.task_configs)
                ):
                    if self.eos_enabled and self.pending_fencing(name) and self._is_source(entry):
                        # As Kafka: a new generation of an exactly-once source connector's
                        # tasks starts once the leader has fenced the previous one.
                        log.info("task %s-%d waits for the leader's zombie fencing", name, index)
                        continue
                    failed = self._start_failed.get(unit)
                    if failed is not None and failed == (
                        dict(entry.task_configs[index]),
                        dict(entry.config),
                    ):
                        continue  # FAILED until its config changes or it is restarted
                    self._start_task(name, index, entry)
            for hosted in list(self.hosted.values()):
                entry = view.get(hosted.connector)
                if entry is not None:
                    self._apply_task_target(hosted, entry.target_state)
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
                self._revisions[name] = entry.revision
                return
            applied = self._revisions.get(name, entry.revision)
            self._revisions[name] = entry.revision
            if runtime.raw_config != entry.config:
                worker.put_connector_config(name, entry.config)
            elif entry.revision > applied and entry.target_state is not TargetState.STOPPED:
                # The same config written again: Kafka's herder restarts the connector (its
                # tasks only if their configs change).
                worker.restart_connector(name)
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

    # -- tasks assigned here ---------------------------------------------------------------
    @staticmethod
    def _still_valid(hosted: _HostedTask, entry: RecoveredConnector | None) -> bool:
        """Whether a task running here still has the configs it was started with."""
        return (
            entry is not None
            and entry.target_state is not TargetState.STOPPED
            and hosted.index < len(entry.task_configs)
            and dict(entry.task_configs[hosted.index]) == hosted.config
            and dict(entry.config) == hosted.connector_config
        )

    def _task_runtime(self, name: str, entry: RecoveredConnector) -> ConnectorRuntime:
        """The connector's plugin and parsed config, to build its tasks' specs from."""
        worker = self.worker
        running = worker.connectors.get(name)
        if running is not None and running.raw_config == entry.config:
            return running
        _, resolved, plugin, instance, parsed = worker._prepare(entry.config)
        runtime = ConnectorRuntime(
            name,
            resolved,
            dict(entry.config),
            plugin,
            instance,
            Status(worker_id=self.worker_id, version=plugin_version(instance)),
        )
        runtime.parsed_config = parsed
        return runtime

    def _start_task(self, name: str, index: int, entry: RecoveredConnector) -> None:
        worker = self.worker
        stored = dict(entry.task_configs[index])
        key = f"status-task-{name}-{index}"
        try:
            runtime = self._task_runtime(name, entry)
            runtime.target_state = entry.target_state
            config = worker.config_providers.resolve(stored)
        except (ConfigError, ConnectError) as exc:
            log.error("task %s-%d cannot start here: %s", name, index, exc)
            self.group_store.status(key, Status(State.FAILED, str(exc), worker_id=self.worker_id))
            self._start_failed[task_unit(name, index)] = (stored, dict(entry.config))
            return
        own_topic = str(entry.config.get("offsets.storage.topic") or "").strip()
        if own_topic and runtime.plugin.kind is PluginKind.SOURCE:
            try:
                self.offset_store.read_connector_topic(own_topic)
            except Exception as exc:
                log.error(
                    "task %s-%d: cannot read offsets.storage.topic %r: %s",
                    name,
                    index,
                    own_topic,
                    exc,
                )
                self.group_store.status(
                    key,
                    Status(
                        State.FAILED,
                        f"cannot read offsets.storage.topic {own_topic!r}: {exc}",
                        worker_id=self.worker_id,
                    ),
                )
                self._start_failed[task_unit(name, index)] = (stored, dict(entry.config))
                return
        self._start_failed.pop(task_unit(name, index), None)
        hosted = _HostedTask(name, index, stored, dict(entry.config), runtime)
        hosted.target = entry.target_state
        hosted.status = Status(worker_id=self.worker_id, version=plugin_version(runtime.instance))
        hosted.status.listener = self._task_listener(hosted)
        self.hosted[task_unit(name, index)] = hosted
        log.info("running task %s-%d here (generation %d)", name, index, self.generation)
        try:
            hosted.runner = worker.engine.start_task(
                worker._task_spec(runtime, index, config), hosted.status
            )
        except Exception as exc:
            log.error("task %s-%d failed to start", name, index, exc_info=exc)
            hosted.status.set(State.FAILED, exc)

    def _task_listener(self, hosted: _HostedTask) -> Callable[[Status], None]:
        def on_change(status: Status) -> None:
            if status.state is State.RUNNING and hosted.target is TargetState.PAUSED:
                if hosted.runner is not None:
                    hosted.runner.pause()
                else:
                    status.set(State.PAUSED)
                return
            self.group_store.status(hosted.key, status)
            if status.state is State.FAILED:
                self._schedule_auto_restart(hosted)

        return on_change

    def _schedule_auto_restart(self, hosted: _HostedTask) -> None:
        """``errors.restart.*``: restart a FAILED task here after an exponential backoff."""
        policy = hosted.runtime.parsed_config
        if "errors.restart.max.attempts" not in policy or self._stop.is_set():
            return
        unit = task_unit(hosted.connector, hosted.index)
        max_attempts: int = policy["errors.restart.max.attempts"]
        attempts = self._auto_restarts.get(unit, 0)
        if max_attempts == 0 or 0 < max_attempts <= attempts:
            if max_attempts > 0:
                log.error(
                    "task %s-%d FAILED again after %d automatic restarts "
                    "(errors.restart.max.attempts=%d); it stays FAILED until restarted through "
                    "POST /connectors/%s/tasks/%d/restart",
                    hosted.connector,
                    hosted.index,
                    attempts,
                    max_attempts,
                    hosted.connector,
                    hosted.index,
                )
            return
        initial: int = policy["errors.restart.backoff.initial.ms"]
        ceiling: int = policy["errors.restart.backoff.max.ms"]
        delay_ms = min(initial * (2**attempts), ceiling)
        self._auto_restarts[unit] = attempts + 1
        log.warning(
            "task %s-%d FAILED; restarting it automatically in %d ms (attempt %d)",
            hosted.connector,
            hosted.index,
            delay_ms,
            attempts + 1,
        )

        def restart() -> None:
            with self._run_lock:
                current = self.hosted.get(unit)
                if current is hosted and hosted.status.state is State.FAILED:
                    self._restart_hosted_locked(unit)

        timer = threading.Timer(delay_ms / 1000, restart)
        timer.daemon = True
        timer.start()

    def _apply_task_target(self, hosted: _HostedTask, target: TargetState) -> None:
        if hosted.target is target or hosted.runner is None:
            return
        hosted.target = target
        if target is TargetState.PAUSED:
            hosted.runner.pause()
        elif target is TargetState.STARTED:
            hosted.runner.resume()

    def _stop_tasks(
        self,
        units: Sequence[str],
        *,
        view: Mapping[str, RecoveredConnector] | None = None,
        generation: int = -1,
        shutdown: bool = False,
    ) -> None:
        """Stop tasks running here (all at once); their statuses say where they went."""
        self._report_topics()  # what they used last is kept in the status topic
        stopping = [self.hosted.pop(u) for u in units if u in self.hosted]
        for unit in units:
            self._reported.pop(unit, None)
        for hosted in stopping:
            # A shutdown is no state change (statuses kept); otherwise the one status the
            # stop leaves is written below, as Kafka writes one UNASSIGNED per stop.
            hosted.status.listener = None
            if hosted.runner is not None:
                hosted.runner.stop()
        for hosted in stopping:
            runner = hosted.runner
            if runner is not None:
                self.worker.engine.stop_task(runner, self.worker.shutdown_timeout_s)
            hosted.status.listener = None
            if shutdown:
                continue
            entry = (view or {}).get(hosted.connector)
            if entry is None and view is not None:
                # Deleted: as Kafka's herder, its active topic records go too (tombstones).
                with self._lock:
                    gone = sorted(self._topic_status.pop(hosted.connector, set()))
                for topic in gone:
                    self.group_store.store.topic_status(hosted.connector, topic, None, None)
            if entry is None:
                self.group_store.remove_status(hosted.key)  # deleted: its status goes
            elif entry.target_state is TargetState.STOPPED:
                # As Kafka: the shutdown's UNASSIGNED, then the removed task's tombstone.
                self.group_store.status(
                    hosted.key, Status(State.UNASSIGNED, worker_id=self.worker_id)
                )
                self.group_store.remove_status(hosted.key)
            else:
                if generation >= 0:
                    log.info(
                        "task %s-%d moves to another worker or restarts (generation %d)",
                        hosted.connector,
                        hosted.index,
                        generation,
                    )
                self.group_store.status(
                    hosted.key, Status(State.UNASSIGNED, worker_id=self.worker_id)
                )
        if stopping:
            self.offset_store.flush()  # the next owner starts where these tasks stopped

    def _restart_hosted(self, unit: str, *, announce: bool = False) -> None:
        with self._run_lock:
            self._restart_hosted_locked(unit, announce=announce)

    def _restart_hosted_locked(self, unit: str, *, announce: bool = False) -> None:
        """Stop the task (UNASSIGNED) and start it again, as Kafka's herder does; a restart
        request (``announce``, KIP-745) shows RESTARTING in between."""
        hosted = self.hosted.get(unit)
        if hosted is None:
            raise NotFoundError(f"Task {unit_label(unit)} is not running on this worker")
        with self._lock:
            entry = self.view.get(hosted.connector)
        hosted.status.listener = None
        self._stop_tasks([unit], shutdown=True)
        for state in (State.UNASSIGNED, State.RESTARTING) if announce else (State.UNASSIGNED,):
            self.group_store.status(hosted.key, Status(state, worker_id=self.worker_id))
        if entry is not None and hosted.index < len(entry.task_configs):
            self._start_task(hosted.connector, hosted.index, entry)

    def halt(self) -> None:
        """Stop following and applying assignments, and the tasks that run here (the worker
        then stops its connectors)."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(10)
        self._threads = []
        with self._run_lock:
            self._stop_tasks(list(self.hosted), shutdown=True)

    def close(self) -> None:
        """Leave the group (the others rebalance at once) and release the clients."""
        self.halt()
        if self.membership is not None:
            self.membership.close()
            self.membership = None
        self.group_store.fenced = True
        self._drop_leader_producer()
        for tail in (self._config_tail, self._status_tail, self._barrier):
            tail.close()

    # -- WorkerApi ---------------------------------------------------------------------
    def _require_ready(self) -> None:
        # A request that arrives while the worker starts waits a little for it (as Kafka's
        # requests wait for its herder), then gets Kafka's 503.
        if not self.ready.wait(_READ_TIMEOUT_S):
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

    def _owner(self, unit: str) -> str | None:
        """The worker a connector (its name) or a task (its unit) is assigned to."""
        with self._lock:
            owner = self.assignment.get(unit)
            if owner is None or unit in self.revoking:
                return None
            return owner

    def _forward(
        self,
        unit: str,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        body: Any = None,
    ) -> tuple[int, Any]:
        owner = self._owner(unit)
        if owner is None:
            raise RebalanceInProgressError(
                "Request cannot be completed because a rebalance is expected "
                f"({'task' if is_task(unit) else 'connector'} {unit_label(unit)} is not "
                "assigned to a worker right now); retry"
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
            "tasks": [{"connector": name, "task": i} for i in range(len(_tasks_of(entry)))],
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
        self,
        name: str,
        config: Mapping[str, str],
        created: bool,
        initial_state: TargetState | None,
    ) -> None:
        self.worker.check_connector_config(config)
        store = self.group_store.store
        if created and initial_state is not None:
            # As Kafka: a target state only when the request gives one (no record means
            # STARTED), written first so the connector never starts in another.
            store.target_state(name, initial_state)
        store.connector_config(name, config)
        self.sync()

    def create_connector(
        self, props: Mapping[str, str], *, initial_state: TargetState | None = None
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
        self._write_connector(name, config, created, None)
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
        # The statuses go with the connector (its worker may already have stopped it): as
        # Kafka leaves them, UNASSIGNED by the shutdown, then the tombstones of its deletion.
        keys = [f"status-connector-{name}"]
        keys += [f"status-task-{name}-{index}" for index in range(len(entry.task_configs))]
        for key in keys:
            self.group_store.status(key, Status(State.UNASSIGNED, worker_id=self.worker_id))
        for key in keys:
            self.group_store.remove_status(key)

    def _target(self, name: str, state: TargetState) -> None:
        self._entry(name)
        self.group_store.store.target_state(name, state)
        self.sync()

    def pause_connector(self, name: str) -> None:
        self._target(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._target(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._entry(name)
        # As Kafka's DistributedHerder: the empty task configs first, then the target state,
        # so a failure between the two leaves a running connector without tasks rather than a
        # stopped one with tasks. Asked twice, both are written twice, as Kafka does.
        self.group_store.store.task_configs(name, [])
        self.group_store.store.target_state(name, TargetState.STOPPED)
        self.sync()

    def _restart_connector_only(self, name: str) -> None:
        if self._local(name):
            self.worker.restart_connector(name)
        else:
            self._forward(name, "POST", f"/connectors/{path_segment(name)}/restart")

    def restart_connector(
        self, name: str, *, include_tasks: bool = False, only_failed: bool = False
    ) -> dict[str, Any] | None:
        """Kafka's restart (KIP-745): the connector on its worker, each task on its own."""
        self._entry(name)
        if not include_tasks and not only_failed:
            self._restart_connector_only(name)
            return None
        status = self.connector_status(name)
        restart_connector = not only_failed or status["connector"]["state"] == State.FAILED.value
        tasks = [
            t["id"]
            for t in status["tasks"]
            if include_tasks and (not only_failed or t["state"] == State.FAILED.value)
        ]
        if restart_connector:
            status["connector"] = {**status["connector"], "state": State.RESTARTING.value}
            status["connector"].pop("trace", None)
        for index in tasks:
            task = status["tasks"][index]
            task.pop("trace", None)
            task["state"] = State.RESTARTING.value

        # As Kafka's DistributedHerder: the request goes into the config topic, and each
        # worker restarts what of it runs there when it reads it.
        self.config_log.send(
            f"{RESTART_PREFIX}{name}".encode(),
            encode_json({"include-tasks": include_tasks, "only-failed": only_failed}),
        )
        self.config_log.flush()
        return status

    def _restart_request_record(self, name: str, raw_value: bytes | None) -> None:
        """A restart request read from the config topic: restart what runs here of it."""
        if not self._started_reading or raw_value is None:
            return  # as Kafka: requests made before this worker started are not replayed
        try:
            request = json.loads(raw_value)
            include_tasks = bool(request.get("include-tasks", False))
            only_failed = bool(request.get("only-failed", False))
        except (ValueError, AttributeError):
            log.warning("config.storage.topic: ignoring a restart request for %r", name)
            return

        def failed(status: Status | None) -> bool:
            return status is not None and status.state is State.FAILED

        def run() -> None:
            try:
                runtime = self.worker.connectors.get(name)
                if runtime is not None and (not only_failed or failed(runtime.status)):
                    # The tasks run on their own here: the worker restarts the connector only.
                    self.worker.restart_connector(name, include_tasks=True)
                if not include_tasks:
                    return
                for unit, hosted in list(self.hosted.items()):
                    if hosted.connector == name and (not only_failed or failed(hosted.status)):
                        self._auto_restarts.pop(unit, None)  # a manual restart resets it
                        self._restart_hosted(unit, announce=True)
                with self._run_lock:  # tasks that could not start here: the next round again
                    again = [u for u in self._start_failed if unit_task(u)[0] == name]
                    for unit in again:
                        self._start_failed.pop(unit, None)
                if again:
                    self._wake.set()
            except Exception as exc:
                log.error("connector %s: restart failed: %s", name, exc)

        threading.Thread(target=run, name=f"restart-{name}"[:60], daemon=True).start()

    def connector_status(self, name: str) -> dict[str, Any]:
        """Kafka's ``ConnectorStateInfo``: what runs here from the running code, the rest
        from the status topic, each with the worker it runs on."""
        entry = self._entry(name)
        running = self.worker.connectors.get(name) if self._local(name) else None
        with self._lock:
            stored = dict(self.statuses.get(f"status-connector-{name}") or {})
            stored_tasks = [
                dict(self.statuses.get(f"status-task-{name}-{i}") or {})
                for i in range(len(_tasks_of(entry)))
            ]
        if running is not None:
            connector = {**running.status.to_rest(), **_version(running.instance)}
        else:
            connector = _rest_status(stored, self._owner(name) or "")
        tasks = []
        for index, stored_task in enumerate(stored_tasks):
            unit = task_unit(name, index)
            hosted = self.hosted.get(unit)
            if hosted is not None and hosted.runner is not None:
                state = hosted.runner.status.to_rest()
                tasks.append({"id": index, **state, **_version(hosted.runner.task)})
            else:
                tasks.append({"id": index, **_rest_status(stored_task, self._owner(unit) or "")})
        return {"name": name, "connector": connector, "tasks": tasks, "type": self._type(entry)}

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
            for i, c in enumerate(_tasks_of(entry))
        ]

    def restart_task(self, name: str, task: int) -> None:
        entry = self._entry(name)
        if not 0 <= task < len(_tasks_of(entry)):
            raise NotFoundError(f"Task {name}-{task} not found")
        unit = task_unit(name, task)
        self._auto_restarts.pop(unit, None)  # a manual restart resets the count (as Kafka)
        if self._owner(unit) == self.worker_id:
            with self._run_lock:  # after any start or restart in progress here
                if unit in self.hosted:
                    self._restart_hosted_locked(unit)
                    return
                if self._start_failed.pop(unit, None) is not None:
                    self._wake.set()  # started again by the next reconciliation
                    return
            raise RebalanceInProgressError(
                f"Task {name}-{task} is being started on this worker; retry shortly"
            )
        self._forward(unit, "POST", f"/connectors/{path_segment(name)}/tasks/{task}/restart")

    def task_metrics(self) -> list[tuple[str, int, str, TaskMetrics, str]]:
        out = list(self.worker.task_metrics())
        for hosted in list(self.hosted.values()):
            runner = hosted.runner
            if runner is not None:
                out.append(
                    (
                        hosted.connector,
                        hosted.index,
                        runner.kind,
                        runner.metrics,
                        runner.status.state.value,
                    )
                )
        return out

    def progress(self) -> dict[str, tuple[str, int, int]]:
        """Per connector: (type, records in, records out) of its tasks running here."""
        out: dict[str, tuple[str, int, int]] = {}
        for hosted in list(self.hosted.values()):
            runner = hosted.runner
            if runner is None:
                continue
            kind, seen_in, seen_out = out.get(hosted.connector, (runner.kind, 0, 0))
            out[hosted.connector] = (
                kind,
                seen_in + runner.records_in,
                seen_out + runner.records_out,
            )
        return out

    def connector_topics(self, name: str) -> list[str]:
        """The connector's active topics (KIP-558): the status topic's records, which every
        worker reads, and what its tasks running here have just reported."""
        self._entry(name)
        if not self.worker.topic_tracking_enable:
            return self.worker.connector_topics(name)  # raises Kafka's 403
        with self._lock:
            return sorted(self._topic_status.get(name, ()))

    def reset_topics(self, name: str) -> None:
        self._entry(name)
        if not self.worker.topic_tracking_enable or not self.worker.topic_tracking_allow_reset:
            self.worker.reset_topics(name)  # raises Kafka's 403
        # As Kafka: a tombstone for each active topic record; the tasks name a topic again
        # with their next record to it (a sink's: with its next assignment).
        with self._lock:
            topics = sorted(self._topic_status.pop(name, set()))
        for unit, hosted in list(self.hosted.items()):
            runner = hosted.runner
            if hosted.connector == name and runner is not None and runner.reset_topics():
                self._reported.pop(unit, None)
        if not self._local(name):  # the connector's worker writes the tombstones
            self._forward(name, "PUT", f"/connectors/{path_segment(name)}/topics/reset")
            return
        for topic in topics:
            self.group_store.store.topic_status(name, topic, None, None)
        if name in self.worker.connectors:
            self.worker.reset_topics(name)

    def connector_offsets(self, name: str) -> list[dict[str, Any]]:
        self._entry(name)
        if self._local(name):
            self.offset_store.refresh()
            return self.worker.connector_offsets(name)
        _, body = self._forward(name, "GET", f"/connectors/{path_segment(name)}/offsets")
        return list(body.get("offsets", [])) if isinstance(body, dict) else []

    def alter_offsets(self, name: str, entries: Sequence[Mapping[str, Any]]) -> str:
        self._entry(name)
        if self._local(name):
            return self.worker.alter_offsets(name, entries)
        _, body = self._forward(
            name,
            "PATCH",
            f"/connectors/{path_segment(name)}/offsets",
            body={"offsets": list(entries)},
        )
        return str(body.get("message", "")) if isinstance(body, dict) else ""

    def reset_offsets(self, name: str) -> str:
        self._entry(name)
        if self._local(name):
            return self.worker.reset_offsets(name)
        _, body = self._forward(name, "DELETE", f"/connectors/{path_segment(name)}/offsets")
        return str(body.get("message", "")) if isinstance(body, dict) else ""

    def follow_cluster_logger_levels(self, apply: Callable[[str, str], object]) -> None:
        self._apply_logger_level = apply

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        # Kafka's KafkaConfigBackingStore.putLoggerLevel: any worker writes it, at once.
        self.config_log.send(
            f"{LOGGER_CLUSTER_PREFIX}{namespace}".encode(),
            json.dumps({"level": level}, separators=(",", ":")).encode(),
        )
        self.config_log.flush()
        self.sync()  # applied here before the answer, as a Java worker's reader does at once

    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return self.worker.plugins(*kinds)

    def plugin_config(
        self, plugin: str, kinds: Sequence[PluginKind], version: str | None = None
    ) -> ConfigDef:
        return self.worker.plugin_config(plugin, kinds, version)

    def validate_connector_config(self, plugin: str, props: Mapping[str, str]) -> dict[str, Any]:
        return self.worker.validate_connector_config(plugin, props)


def _tasks_of(entry: RecoveredConnector) -> list[dict[str, str]]:
    """The task configs REST shows: none while the connector is STOPPED (as Kafka, whose
    stopped connectors have empty task configs)."""
    if entry.target_state is TargetState.STOPPED:
        return []
    return [dict(c) for c in entry.task_configs]


def _version(plugin: object) -> dict[str, str]:
    """``{"version": …}`` as the plugin reports it (KIP-891), or nothing."""
    version = plugin_version(plugin)
    return {"version": version} if version else {}


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
    for unit, worker in assignment.items():
        by_worker.setdefault(worker, []).append(unit_label(unit))
    return ", ".join(f"{w}: {sorted(n)}" for w, n in sorted(by_worker.items())) or "nothing"


def _generation_of(status: Mapping[str, Any]) -> int:
    """A status record's ``generation``; 0 when it has none a number can be read from."""
    try:
        return int(status.get("generation") or 0)
    except (TypeError, ValueError):
        return 0
