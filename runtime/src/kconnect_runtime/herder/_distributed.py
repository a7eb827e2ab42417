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
from kconnect_sdk import AlreadyExistsError, ConfigError, ConnectError, NotFoundError

from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginDesc, PluginKind
from kconnect_runtime.status import ConnectorTaskId, State, Status, TargetState
from kconnect_runtime.storage import (
    BadRequestError,
    ForbiddenError,
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    LogTail,
    RecoveredConnector,
    connector_status_key,
    encode_json,
    parse_topic_status_key,
    replay_configs,
    task_status_key,
)
from kconnect_runtime.tasks import TaskRunner, transactional_id
from kconnect_runtime.worker import (
    ConnectorRuntime,
    PreparedConnector,
    StatusListener,
    SupervisedTask,
    TaskSupervisor,
    Worker,
)

from ._assignment import is_task, plan_connectors_and_tasks, task_unit, unit_label, unit_task
from ._base import AbstractHerder, named_config, version_field
from ._forwarding import NotReadyError, RebalanceInProgressError, forward, path_segment
from ._membership import MEMBER_SLOTS, GroupMembership, live_members
from ._signing import (
    SESSION_KEY_KEY,
    SessionKey,
    SigningSettings,
    decode_session_key,
    generate_key,
    has_signature,
    key_matches,
    session_key_value,
    signature_headers,
    verify_request,
)

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
_PUBLISH_BACKOFF_S = (0.25, 5.0)  # retrying task configs the leader did not take yet
# The longest a worker waits for a record the others wrote to the config and status topics
# before it looks again (a record fetched ends the wait), and how often it reads them to
# their ends when no read-to-end barrier asks it to.
_FOLLOW_INTERVAL_S = 0.05
_READ_INTERVAL_S = 1.0

# The protocols, oldest first: a group speaks the oldest of its members' (as Kafka's).
_PROTOCOLS = ("eager", "compatible", "sessioned")
_KIP_507 = "https://cwiki.apache.org/confluence/display/KAFKA/KIP-507%3A+Securing+Internal+Connect+REST+Endpoints"


@dataclass(eq=False)
class _HostedTask:
    """A task assigned to this worker: run from the task config in the config topic."""

    connector: str
    index: int
    config: dict[str, str]  # as stored (placeholders intact)
    connector_config: dict[str, str]  # the connector config it was started with
    supervisor: TaskSupervisor = field(repr=False)

    @property
    def id(self) -> ConnectorTaskId:
        return ConnectorTaskId(self.connector, self.index)

    @property
    def key(self) -> str:
        return task_status_key(self.connector, self.index)

    @property
    def task(self) -> SupervisedTask | None:
        """The task as it runs now (an automatic restart replaces it)."""
        return self.supervisor.get(self.id)

    @property
    def runner(self) -> TaskRunner | None:
        task = self.task
        return None if task is None else task.runner

    @property
    def status(self) -> Status | None:
        task = self.task
        return None if task is None else task.status


class GroupStore:
    """The local worker's control store in distributed mode.

    Statuses are stamped with the generation this worker runs under and dropped while it is
    fenced (a stale worker must not overwrite newer states); task configs a connector
    running here generates are written only when they changed.
    """

    def __init__(self, store: KafkaControlStore) -> None:
        self.store = store
        self.generation = 0
        self.fenced = True
        self.may_write: Callable[[], bool] | None = None
        # The task configs the config topic holds for a connector (written only if changed).
        self.stored_task_configs: Callable[[str], list[dict[str, str]] | None] | None = None
        # Who writes them: the leader does, a follower sends them to it (set by the herder).
        self.publish_task_configs: Callable[[str, list[dict[str, str]]], None] | None = None

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        if self.fenced:
            return
        if self.stored_task_configs is not None and self.stored_task_configs(name) == [
            dict(c) for c in configs
        ]:
            return  # unchanged: the tasks running elsewhere keep running (as Kafka)
        if self.publish_task_configs is not None:
            self.publish_task_configs(name, [dict(c) for c in configs])
        else:
            self.store.task_configs(name, configs)

    def status(self, key: str, status: Status | None) -> None:
        # Checked at each write: a task thread that runs on after a pause, before the
        # watchdog stopped it, must not overwrite the state its new owner wrote.
        if self.fenced or (self.may_write is not None and not self.may_write()):
            return
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


def _record_connector(key: str) -> str | None:
    """The connector a config topic record belongs to, by its key."""
    for prefix in ("connector-", "target-state-", "commit-", FENCING_PREFIX):
        if key.startswith(prefix):
            return key[len(prefix) :]
    if key.startswith("task-"):
        name, _, index = key[len("task-") :].rpartition("-")
        return name if index.isdigit() else None
    return None


def without_connector_records(
    records: Sequence[tuple[bytes | None, bytes | None]], name: str
) -> list[tuple[bytes | None, bytes | None]] | None:
    """``records`` without connector ``name``'s, for its tombstone: None when no config of
    it is among them (a tombstone of a connector that is not there keeps its records).

    While a connector exists, a target state written for it applies to it and an earlier
    one was taken by its config, so after the tombstone none of its records changes what
    :func:`replay_configs` makes of the others.
    """
    connector_key = f"connector-{name}".encode()
    if not any(key == connector_key and value is not None for key, value in records):
        return None
    return [
        record
        for record in records
        if _record_connector((record[0] or b"").decode(errors="replace")) != name
    ]


class DistributedHerder(AbstractHerder):
    """The :class:`~._api.WorkerApi` of a distributed worker: it decides from the group and
    the config topic, and forwards what runs on another worker."""

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
        topic_tracking_enable: bool = True,
        topic_tracking_allow_reset: bool = True,
        signing: SigningSettings | None = None,
        internal_rest: bool = True,
        rest_url: str | None = None,
        rest_namespace: Sequence[str] = (),
    ) -> None:
        super().__init__(worker)
        self.signing = signing or SigningSettings()
        # A worker without a REST API (MirrorMaker's dedicated nodes without their internal
        # server) cannot be reached by the others: it writes its connectors' task configs
        # itself.
        self.internal_rest = internal_rest
        # Kafka's restUrl and restNamespace: a dedicated MirrorMaker node serves every flow
        # from one server, each under /{source}/{target}, so the URL the group knows this
        # worker by is the node's, and the path of a request to another member is prefixed.
        self._rest_url = rest_url
        self.rest_namespace = tuple(rest_namespace)
        self.protocol = connect_protocol.strip().lower()
        self.group_protocol = self.protocol  # until the leader's assignment says otherwise
        self.session_key: SessionKey | None = None
        self._key_expiration = float("inf")  # ms since the epoch
        self._publishing: dict[str, list[dict[str, str]]] = {}  # connector -> to send
        self._fencing_lock = threading.Lock()
        if self.protocol != "sessioned":
            log.warning(
                "Internal request verification will be disabled for this cluster as this "
                "worker's connect.protocol configuration has been set to '%s'. If this is not "
                "intentional, either remove the 'connect.protocol' configuration from the "
                "worker config file or change its value to 'SESSIONED'. If this configuration "
                "is left as-is, the cluster will be insecure; for more information, see "
                "KIP-507: %s",
                self.protocol,
                _KIP_507,
            )
        self.topic_tracking_enable = topic_tracking_enable
        self.topic_tracking_allow_reset = topic_tracking_allow_reset
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
        # A read-to-end barrier asks the follower for a read to the end (it does one every
        # _READ_INTERVAL_S anyway); the follower signals each round it applied.
        self._follow_now = threading.Event()
        self._followed = threading.Condition()
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
        # Connector running here -> the task configs it generated last (resolved, stored).
        self._generated: dict[str, tuple[list[dict[str, str]], list[dict[str, str]]]] = {}
        # KIP-558 in the status topic, as Kafka keeps it: connector -> its active topics
        # (every worker's records), and per task running here the topics it has reported.
        self._topic_status: dict[str, set[str]] = {}
        self._revisions: dict[str, int] = {}  # connector -> config revision applied here
        self._reported: dict[str, set[str]] = {}
        group_store.stored_task_configs = self._stored_task_configs
        group_store.publish_task_configs = self._publish_task_configs
        self.membership: GroupMembership | None = None
        self.ready = threading.Event()
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
            if self._is_source(entry):
                self._fence_one(name, entry)

    def _fence_one(self, name: str, entry: RecoveredConnector) -> None:
        with self._fencing_lock:
            if not self.pending_fencing(name):
                return  # fenced meanwhile (by the leader's round or a fencing request)
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
    def url(self) -> str:
        """The URL the other members reach this worker's REST API at."""
        return self._rest_url or f"{self.url_scheme}://{self.worker_id}"

    def _namespaced(self, path: str) -> str:
        return "".join(f"/{path_segment(p)}" for p in self.rest_namespace) + path

    def _apply_config_records(self, records: Sequence[tuple[bytes | None, bytes | None]]) -> None:
        changed = False
        with self._lock:
            for raw_key, raw_value in records:
                key = (raw_key or b"").decode(errors="replace")
                if key == SESSION_KEY_KEY:
                    self._session_key_record(raw_value)
                    continue
                if key.startswith(LOGGER_CLUSTER_PREFIX):
                    self._logger_level_record(key[len(LOGGER_CLUSTER_PREFIX) :], raw_value)
                    continue
                if key.startswith(RESTART_PREFIX):
                    self._restart_request_record(key[len(RESTART_PREFIX) :], raw_value)
                    continue
                if not key.startswith("kconnect-"):
                    self._track_fencing(key, raw_value)
                    changed = True
                    # Only a connector's tombstone means something to a replay (others, such
                    # as the target state's that follows it, change nothing).
                    if raw_value is None and (
                        not key.startswith("connector-")
                        or self._forget_connector(key[len("connector-") :])
                    ):
                        continue
                    self._records.append((raw_key, raw_value))
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
                    self._group_protocol_is(str(value.get("protocol", "compatible")))
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

    # -- KIP-507: the session key and signed internal requests ------------------------------
    def _signing_enabled(self) -> bool:
        """Kafka's ``internalRequestValidationEnabled``: the group speaks ``sessioned``."""
        return self.group_protocol == "sessioned"

    def _group_protocol_is(self, protocol: str) -> None:
        if protocol not in _PROTOCOLS or protocol == self.group_protocol:
            return
        was, self.group_protocol = self._signing_enabled(), protocol
        if self._signing_enabled() and not was:
            log.info("Internal request validation has been re-enabled")
        elif was and not self._signing_enabled():
            log.warning(
                "The protocol used by this Connect cluster has been downgraded from 'sessioned' "
                "to '%s' and internal request validation is now disabled. This is most likely "
                "caused by a new worker joining the cluster with an older protocol specified for "
                "the connect.protocol configuration; if this is not intentional, either remove "
                "the connect.protocol configuration from that worker's config file, or change "
                "its value to 'SESSIONED'. If this configuration is left as-is, the cluster will "
                "be insecure; for more information, see KIP-507: %s",
                protocol,
                _KIP_507,
            )

    def _session_key_record(self, raw_value: bytes | None) -> None:
        """A ``session-key`` record (the leader's, Java's or ours): the key every internal
        request is signed and verified with from now on."""
        key, why = decode_session_key(raw_value)
        if key is None:
            log.error("config.storage.topic: %s", why)
            return
        self.session_key = key
        ttl = self.signing.key_ttl_ms
        self._key_expiration = key.creation_timestamp + ttl if ttl > 0 else float("inf")
        log.info("Session key updated")

    def _rotate_session_key(self) -> None:
        """As Kafka's leader: a new key when there is none, when it expired, or when it was
        made with another algorithm or size than this worker's configuration asks for."""
        if not self._signing_enabled():
            return
        settings = self.signing
        now_ms = int(time.time() * 1000)
        with self._lock:
            key, expiration = self.session_key, self._key_expiration
        if key is None:
            why = "no session key has been distributed yet"
        elif expiration <= now_ms:
            why = "the existing key has expired"
        elif not key_matches(key, settings.key_algorithm, settings.key_size):
            why = "the existing key uses another algorithm or key size than this worker's"
        else:
            return
        log.info("distributing a new session key (%s)", why)
        new_key = generate_key(settings.key_algorithm, settings.key_size, now_ms)
        with self._lock:
            self._key_expiration = float("inf")  # the record read back sets it
        self._leader_write(SESSION_KEY_KEY, session_key_value(new_key))
        self.sync()

    def _verify_internal(self, headers: Mapping[str, str], body: bytes) -> None:
        """Refuse an internal request that is not signed with the group's session key (as
        Kafka, when the group speaks ``sessioned``; a request that carries a signature is
        checked whatever the protocol, so that a made-up one never passes)."""
        if not self._signing_enabled() and not has_signature(headers):
            return
        with self._lock:
            key = self.session_key
        verify_request(
            headers, body, key=key, verification_algorithms=self.signing.verification_algorithms
        )

    def _is_leader(self) -> bool:
        return self.membership is not None and self.membership.is_leader

    def _publish_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """Task configs the connector running here generated: the leader writes them to the
        config topic; a follower sends them to the leader's internal endpoint, signed (on
        a thread of their own, retried until the leader takes them, as Kafka's herder)."""
        if not self.internal_rest or not self._signing_enabled() or self._is_leader():
            # Without signing, there is no way to tell a group member's request from anyone
            # else's: the worker writes them itself, as every member may write the topic.
            self.group_store.store.task_configs(name, configs)
            return
        with self._lock:
            sending = name in self._publishing
            self._publishing[name] = configs
        if not sending:
            threading.Thread(
                target=self._send_task_configs,
                args=(name,),
                name=f"publish-{name}"[:60],
                daemon=True,
            ).start()

    def _send_task_configs(self, name: str) -> None:
        backoff = _PUBLISH_BACKOFF_S[0]
        while not self._stop.is_set():
            with self._lock:
                configs = self._publishing.get(name)
            if (
                configs is None
                or self.group_store.fenced
                or name not in self.worker.connectors
                or self._stored_task_configs(name) == configs
            ):
                with self._lock:
                    self._publishing.pop(name, None)
                return  # sent, superseded, or no longer this worker's to send
            try:
                if self._is_leader():
                    self.group_store.store.task_configs(name, configs)
                else:
                    self._send_to_leader(f"/connectors/{path_segment(name)}/tasks", configs)
                self.sync()
                backoff = _PUBLISH_BACKOFF_S[0]
            except Exception as exc:  # any failure: asked again, as Kafka's herder retries
                log.warning(
                    "connector %s: Request to leader to reconfigure connector tasks failed "
                    "(%s); retrying in %.2fs",
                    name,
                    exc,
                    backoff,
                )
                self._stop.wait(backoff)
                backoff = min(backoff * 2, _PUBLISH_BACKOFF_S[1])

    def _send_to_leader(self, path: str, body: Any) -> None:
        """A signed internal request to the leader's REST API."""
        with self._lock:
            url = self._urls.get(self.leader, "") if self.leader else ""
            key = self.session_key
        if not url:
            raise ConnectError(
                "the URL of the leader's REST interface is empty (no leader is known yet)"
            )
        if key is None:
            raise NotReadyError("no session key has been read from the config topic yet")
        raw = json.dumps(body, separators=(",", ":")).encode()
        headers = signature_headers(key, self.signing.signature_algorithm, raw)
        forward(url, "POST", self._namespaced(path), raw_body=raw, extra_headers=headers)

    def put_task_configs(
        self,
        name: str,
        configs: Sequence[Mapping[str, str]] | None,
        *,
        headers: Mapping[str, str],
        body: bytes,
    ) -> None:
        """``POST /connectors/{name}/tasks``: task configs another worker's connector
        generated, for the leader to write (Kafka's ``putTaskConfigs``)."""
        self._verify_internal(headers, body)
        if configs is None:
            raise BadRequestError("Task configurations must be a JSON list of string maps")
        self._require_ready()
        if not self._is_leader():
            raise RebalanceInProgressError("Only the leader may write task configurations.")
        self.sync()
        with self._lock:
            exists = name in self.view
        if not exists:
            raise NotFoundError(f"Connector {name} not found")
        self.group_store.store.task_configs(name, [dict(c) for c in configs])
        self.sync()

    def fence_zombies(self, name: str, *, headers: Mapping[str, str], body: bytes) -> None:
        """``PUT /connectors/{name}/fence``: a round of zombie fencing for an exactly-once
        source connector, done by the leader (Kafka's ``fenceZombieSourceTasks``)."""
        self._verify_internal(headers, body)
        self._require_ready()
        if not self._is_leader():
            raise RebalanceInProgressError("Only the leader may perform zombie fencing.")
        self.sync()
        with self._lock:
            entry = self.view.get(name)
        if entry is None:
            raise NotFoundError(f"Connector {name} not found")
        if not self._is_source(entry):
            raise BadRequestError(f"Connector {name} is not a source connector")
        if self.pending_fencing(name):
            self._fence_one(name, entry)

    def _forget_connector(self, name: str) -> bool:
        """Drop what this worker kept of connector ``name``, whose tombstone is being
        applied: its config records (a replay without them and without the tombstone gives
        the same connectors) and its applied config revision. False when the connector was
        not there to delete: then the tombstone is kept, as any record."""
        remaining = without_connector_records(self._records, name)
        if remaining is None:
            return False
        self._records = remaining
        self._revisions.pop(name, None)
        return True

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
                    if raw_value is not None:
                        self._topic_status.setdefault(connector, set()).add(topic)
                    elif (known := self._topic_status.get(connector)) is not None:
                        known.discard(topic)
                        if not known:
                            del self._topic_status[connector]
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
        read_at = time.monotonic()
        while not self._stop.is_set():
            try:
                if self._follow_now.is_set() or time.monotonic() - read_at >= _READ_INTERVAL_S:
                    # A read to the end: what a barrier waits for (past transaction markers
                    # too), and how a topic deleted and created again is noticed.
                    self._follow_now.clear()
                    read_at = time.monotonic()
                    config = self._config_tail.read()
                    statuses = self._status_tail.read()
                else:
                    # Between reads, records are taken as they are fetched (a config record
                    # at once), without asking the brokers for the topics' ends each round.
                    config = self._config_tail.poll(_FOLLOW_INTERVAL_S)
                    statuses = self._status_tail.poll(0)
            except Exception as exc:
                log.warning("distributed: reading the internal topics failed (%s); retrying", exc)
                self._stop.wait(1.0)
                continue
            self._apply_tail_records(config)
            if statuses:
                self._apply_status_records(statuses)
            with self._followed:
                self._followed.notify_all()
            if config or statuses:
                self._wake.set()
            self._report_topics()

    def _report_topics(self) -> None:
        """Write an active topic record (KIP-558) for each topic a task running here has
        newly used and the status topic does not list yet, as Kafka's WorkerTask does."""
        if not self.topic_tracking_enable or self.group_store.fenced:
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
            # The follower reads now rather than at its next round; the short timeout
            # covers a round that ended between the check above and this wait.
            self._follow_now.set()
            with self._followed:
                self._followed.wait(0.02)

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
                    "protocol": self.protocol,
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
                self._release_connector(name)
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
                    self._rotate_session_key()
                else:
                    self._drop_leader_producer()
                # Tasks whose configs changed stop here first; the new ones wait for the
                # leader's zombie fencing (exactly-once), done once it stopped its own.
                self._reconcile()
                if leader and self.eos_enabled:
                    self._fence_zombies_as_leader()
                self._round_done(leader=leader)
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

    def _round_done(self, *, leader: bool) -> None:
        """After each round in which this worker, a member of the group, has read the config
        topic to its end and applied the group's assignment (Kafka's ``rebalanceSuccess``);
        ``leader`` says whether it leads the group. A herder that writes configs of its own
        (MirrorMaker's) does it here; this one writes none."""

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
            protocol = min(
                (str(a.get("protocol", "compatible")) for a in members.values()),
                key=lambda p: _PROTOCOLS.index(p) if p in _PROTOCOLS else 1,
            )
            value = {
                "generation": generation,
                "leader": self.worker_id,
                "protocol": protocol,
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
        with self._run_lock:
            for name in list(worker.connectors):
                if name not in view:
                    self._drop_connector(name)
                elif name not in mine:
                    log.info(
                        "connector %s moves to another worker (generation %d)", name, generation
                    )
                    self._release_connector(name)
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
                    worker.tasks.set_target([hosted.id], entry.target_state)
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
                runtime = worker.start_connector(
                    worker.prepare(entry.config),
                    target_state=entry.target_state,
                    on_status=self._status_listener(connector_status_key(name)),
                    on_reconfigure=lambda: self._reconfigure_tasks(name),
                )
                self._generate_task_configs(runtime)
                log.info(
                    "running connector %s here (%s, target state %s)",
                    name,
                    runtime.plugin.name,
                    entry.target_state.value,
                )
                self._revisions[name] = entry.revision
                return
            applied = self._revisions.get(name, entry.revision)
            self._revisions[name] = entry.revision
            if runtime.raw_config != entry.config:
                # A new config: the connector restarts with it, in its target state.
                prepared = worker.prepare(entry.config)
                worker.reconfigure(runtime, prepared)
                runtime.status.set(State.UNASSIGNED)
                self._start_here(runtime)
            elif entry.revision > applied and entry.target_state is not TargetState.STOPPED:
                # The same config written again: Kafka's herder restarts the connector (its
                # tasks only if their configs change).
                self._restart_here(runtime)
            if runtime.target_state is not entry.target_state:
                self._retarget_here(runtime, entry.target_state)
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
                    connector_status_key(name),
                    Status(State.FAILED, str(exc), worker_id=self.worker_id),
                )

    # -- connectors assigned here ------------------------------------------------------------
    def _status_listener(self, key: str) -> StatusListener:
        def on_change(status: Status) -> None:
            self.group_store.status(key, status)

        return on_change

    def _start_here(self, runtime: ConnectorRuntime) -> None:
        """Start the connector's instance as its target state says, then its task configs."""
        if runtime.target_state is TargetState.STOPPED:
            self._generated.pop(runtime.name, None)
        start_if_paused = bool(self._generated.get(runtime.name, ([], []))[0])
        self.worker.start_instance(runtime, start_if_paused=start_if_paused)
        self._generate_task_configs(runtime)

    def _generate_task_configs(self, runtime: ConnectorRuntime) -> None:
        """The connector running here generates its tasks' configs; the config topic gets
        them (when they changed), and the workers given its tasks run them from there."""
        if not runtime.started:
            return
        try:
            configs = self.worker.task_configs(runtime)
        except Exception as exc:
            self.worker.failed_to_start(runtime, exc)
            return
        providers = self.worker.config_providers
        stored = [providers.unresolve(runtime.raw_config, runtime.config, c) for c in configs]
        self._generated[runtime.name] = ([dict(c) for c in configs], stored)
        self.group_store.task_configs(runtime.name, stored)

    def _reconfigure_tasks(self, name: str) -> None:
        """The connector asked: its task configs again, stored if they changed."""
        with self._run_lock:
            runtime = self.worker.connectors.get(name)
            if runtime is None or runtime.target_state is TargetState.STOPPED:
                return
            generated = self._generated.get(name, ([], []))[0]
            if self.worker.task_configs(runtime) != generated:
                self._generate_task_configs(runtime)

    def _restart_here(self, runtime: ConnectorRuntime, *, announce: bool = False) -> None:
        """Stop the connector (UNASSIGNED) and start it again, as Kafka's herder does; a
        restart request (``announce``, KIP-745) shows RESTARTING in between."""
        if runtime.target_state is TargetState.STOPPED:
            if announce:  # Kafka restarts a stopped connector too: it comes back STOPPED
                for state in (State.UNASSIGNED, State.RESTARTING, State.STOPPED):
                    runtime.status.set(state)
            return
        self.worker.stop_instance(runtime)
        runtime.status.set(State.UNASSIGNED)
        if announce:
            runtime.status.set(State.RESTARTING)
        self.worker.replace_instance(runtime)
        self._start_here(runtime)

    def _retarget_here(self, runtime: ConnectorRuntime, target: TargetState) -> None:
        """The connector's new target state (its tasks follow it wherever they run)."""
        previous = runtime.target_state
        if target is TargetState.STOPPED:
            runtime.target_state = target
            self.worker.stop_instance(runtime)
            self._generated.pop(runtime.name, None)
            runtime.status.set(State.STOPPED)  # from any state, FAILED included (as Kafka)
            return
        runtime.target_state = target
        if previous is TargetState.STOPPED:
            self.worker.replace_instance(runtime)
            self._start_here(runtime)
        elif target is TargetState.PAUSED:
            if runtime.status.state is not State.FAILED:
                runtime.status.set(State.PAUSED)
        elif not runtime.started and runtime.status.state is State.PAUSED:
            self._start_here(runtime)  # created PAUSED: it starts only now
        elif runtime.status.state is State.PAUSED:
            runtime.status.set(State.RUNNING)

    def _release_connector(self, name: str) -> None:
        """Stop a connector here because it was assigned elsewhere: its config stays, its
        status shows UNASSIGNED, and offsets are flushed so that the next owner starts
        where this one stopped."""
        runtime = self.worker.connectors.get(name)
        if runtime is None:
            return
        self.worker.stop_instance(runtime)
        runtime.status.set(State.UNASSIGNED)
        self.worker.remove_connector(name)
        self._generated.pop(name, None)
        self._revisions.pop(name, None)
        self.worker.offset_store.flush()

    def _drop_connector(self, name: str) -> None:
        """Stop a deleted connector here (the herder that took the request wrote its end)."""
        runtime = self.worker.remove_connector(name)
        self._generated.pop(name, None)
        self._revisions.pop(name, None)
        if runtime is not None:
            self.worker.stop_instance(runtime)

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

    def _task_connector(self, name: str, entry: RecoveredConnector) -> PreparedConnector:
        """The connector's plugin and parsed config, to build its tasks' specs from."""
        running = self.worker.connectors.get(name)
        if running is not None and running.raw_config == entry.config:
            return running
        return self.worker.prepare(entry.config)

    def _start_task(self, name: str, index: int, entry: RecoveredConnector) -> None:
        worker = self.worker
        stored = dict(entry.task_configs[index])
        key = task_status_key(name, index)
        try:
            connector = self._task_connector(name, entry)
            config = worker.config_providers.resolve(stored)
        except (ConfigError, ConnectError) as exc:
            log.error("task %s-%d cannot start here: %s", name, index, exc)
            self.group_store.status(key, Status(State.FAILED, str(exc), worker_id=self.worker_id))
            self._start_failed[task_unit(name, index)] = (stored, dict(entry.config))
            return
        own_topic = str(entry.config.get("offsets.storage.topic") or "").strip()
        if own_topic and connector.plugin.kind is PluginKind.SOURCE:
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
        self.hosted[task_unit(name, index)] = _HostedTask(
            name, index, stored, dict(entry.config), worker.tasks
        )
        log.info("running task %s-%d here (generation %d)", name, index, self.generation)
        worker.start_task(
            connector,
            index,
            config,
            target=entry.target_state,
            on_status=self._status_listener(key),
        )

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
        # A shutdown is no state change (statuses kept); otherwise the one status the stop
        # leaves is written below, as Kafka writes one UNASSIGNED per stop.
        self.worker.tasks.stop([hosted.id for hosted in stopping])
        for hosted in stopping:
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
        self._follow_now.set()
        for thread in self._threads:
            thread.join(10)
        self._threads = []
        with self._run_lock:
            self._stop_tasks(list(self.hosted), shutdown=True)

    def stop(self) -> None:
        """Stop applying assignments, then everything that runs here."""
        self.halt()
        self.worker.stop()

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
        return self.ready.is_set() and self.started.is_set()

    def connector_names(self) -> list[str]:
        self._read_barrier()
        with self._lock:
            return sorted(self.view)

    def _plugin(self, entry: RecoveredConnector) -> PluginDesc:
        return self.worker.registry.resolve(
            entry.config.get("connector.class", ""), *CONNECTOR_KINDS, key="connector.class"
        )

    def _config_of(self, name: str) -> Mapping[str, str]:
        running = self.worker.connectors.get(name)
        return running.raw_config if running is not None else self._entry(name).config

    def _shown_task_configs(self, name: str) -> list[dict[str, str]]:
        return _tasks_of(self._entry(name))

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

    def _write_connector(
        self,
        name: str,
        config: Mapping[str, str],
        created: bool,
        initial_state: TargetState | None,
    ) -> None:
        self.worker.prepare(config)  # validated here; run where the group assigns it
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
        config = named_config(name, config)
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
        keys = [connector_status_key(name)]
        keys += [task_status_key(name, index) for index in range(len(entry.task_configs))]
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
            with self._run_lock:
                runtime = self.worker.connectors.get(name)
                if runtime is not None:
                    self._restart_here(runtime)
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
                with self._run_lock:
                    runtime = self.worker.connectors.get(name)
                    if runtime is not None and (not only_failed or failed(runtime.status)):
                        # Its tasks restart on their own workers, each reading this request.
                        self._restart_here(runtime, announce=True)
                if not include_tasks:
                    return
                for unit, hosted in list(self.hosted.items()):
                    if hosted.connector == name and (not only_failed or failed(hosted.status)):
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
            stored = dict(self.statuses.get(connector_status_key(name)) or {})
            stored_tasks = [
                dict(self.statuses.get(task_status_key(name, i)) or {})
                for i in range(len(_tasks_of(entry)))
            ]
        if running is not None:
            connector = _with_version(running.status.to_rest(), running.instance)
        else:
            connector = _rest_status(stored, self._owner(name) or "")
        tasks = []
        for index, stored_task in enumerate(stored_tasks):
            unit = task_unit(name, index)
            hosted = self.hosted.get(unit)
            runner = None if hosted is None else hosted.runner
            if runner is not None:
                tasks.append({"id": index, **_with_version(runner.status.to_rest(), runner.task)})
            else:
                tasks.append({"id": index, **_rest_status(stored_task, self._owner(unit) or "")})
        return {"name": name, "connector": connector, "tasks": tasks, "type": self._type(entry)}

    def restart_task(self, name: str, task: int) -> None:
        entry = self._entry(name)
        if not 0 <= task < len(_tasks_of(entry)):
            raise NotFoundError(f"Task {name}-{task} not found")
        unit = task_unit(name, task)
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

    def connector_topics(self, name: str) -> list[str]:
        """The connector's active topics (KIP-558): the status topic's records, which every
        worker reads, and what its tasks running here have just reported."""
        self._entry(name)
        if not self.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled (topic.tracking.enable=false).")
        with self._lock:
            return sorted(self._topic_status.get(name, ()))

    def reset_topics(self, name: str) -> None:
        self._entry(name)
        if not self.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled (topic.tracking.enable=false).")
        if not self.topic_tracking_allow_reset:
            raise ForbiddenError(
                "Topic tracking reset is disabled (topic.tracking.allow.reset=false)."
            )
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

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        # Kafka's KafkaConfigBackingStore.putLoggerLevel: any worker writes it, at once.
        self.config_log.send(
            f"{LOGGER_CLUSTER_PREFIX}{namespace}".encode(),
            json.dumps({"level": level}, separators=(",", ":")).encode(),
        )
        self.config_log.flush()
        self.sync()  # applied here before the answer, as a Java worker's reader does at once


def _tasks_of(entry: RecoveredConnector) -> list[dict[str, str]]:
    """The task configs REST shows: none while the connector is STOPPED (as Kafka, whose
    stopped connectors have empty task configs)."""
    if entry.target_state is TargetState.STOPPED:
        return []
    return [dict(c) for c in entry.task_configs]


# A status the plugin did not reach itself carries no version (as its status record).
_UNVERSIONED_STATES = frozenset({State.UNASSIGNED.value, State.RESTARTING.value})


def _with_version(status: dict[str, Any], plugin: object) -> dict[str, Any]:
    """A status running here with the plugin's version (KIP-891), as the status record that
    every other worker reads it from carries it."""
    if status["state"] in _UNVERSIONED_STATES:
        return status
    return {**status, **version_field(plugin)}


def _rest_status(stored: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """A status of a connector or task running on another worker, from its status record:
    Kafka's ``ConnectorStateInfo`` state, with the version the record carries."""
    out: dict[str, Any] = {
        "state": str(stored.get("state") or State.UNASSIGNED.value),
        "worker_id": str(stored.get("worker_id") or owner),
    }
    if stored.get("trace"):
        out["trace"] = stored["trace"]
    if stored.get("version") and out["state"] not in _UNVERSIONED_STATES:
        out["version"] = str(stored["version"])
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
