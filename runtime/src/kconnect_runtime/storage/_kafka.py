"""Kafka-backed stores for distributed mode, in Apache Kafka Connect's record formats.

Each store sits on a :class:`KafkaLog`: at start the whole topic is read to its end with a
plain consumer (``assign``, no group), then every write goes through an idempotent producer
and is applied locally at once (read-your-writes). Several workers share the topics in
distributed mode, so each also follows them with a :class:`LogTail` (a consumer that keeps its
position and reads what the others wrote, up to the end it saw when asked). Keys and values are the JSON Kafka's internal JsonConverter
writes with ``schemas.enable=false``: compact (no spaces), UTF-8, e.g. offset key
``["file-source",{"filename":"/tmp/in.txt"}]`` and value ``{"position":42}``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import ConnectError

from kconnect_runtime.logcontext import scrub_secrets
from kconnect_runtime.status import State, Status, TargetState

from ._offsets import MemoryOffsetStore, offset_key

__all__ = [
    "KafkaControlStore",
    "KafkaLog",
    "KafkaOffsetStore",
    "LogTail",
    "RecoveredConnector",
    "encode_json",
    "parse_topic_status_key",
    "replay_configs",
    "topic_status_key",
]

log = logging.getLogger("kconnect.distributed")

_TIMEOUT_S = 30.0
# While writes wait for acknowledgement, how often the topic is checked for having gone.
_LOST_CHECK_S = 2.0
# Delivery errors that say the topic is gone (librdkafka fails what it queued for it).
_TOPIC_LOST = frozenset({"_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION", "UNKNOWN_TOPIC_OR_PART"})


def encode_json(value: Any) -> bytes:
    """JSON bytes as Kafka's JsonConverter (schemas off) writes them: compact UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# Answers while leadership moves (a topic just created, a broker restarted, killed or
# replaced; librdkafka drops a dead broker's handle): asked again, they pass. An unknown
# topic is not among them: that one is a deleted topic, which the callers create again.
_LEADERSHIP_MOVING = frozenset(
    {
        "NOT_LEADER_FOR_PARTITION",
        "NOT_LEADER_OR_FOLLOWER",
        "LEADER_NOT_AVAILABLE",
        "_DESTROY_BROKER",
        "_TRANSPORT",
        "_TIMED_OUT",
        "REQUEST_TIMED_OUT",
        "NETWORK_EXCEPTION",
    }
)


def watermarks(consumer: Any, partition: Any, *, timeout_s: float = _TIMEOUT_S) -> tuple[int, int]:
    """``consumer.get_watermark_offsets`` asked again while the partition's leadership moves."""
    from confluent_kafka import KafkaException

    deadline = time.monotonic() + timeout_s
    while True:
        try:
            low, high = consumer.get_watermark_offsets(partition, timeout=timeout_s)
            return int(low), int(high)
        except KafkaException as exc:
            error: Any = exc.args[0] if exc.args else None
            name = error.name() if hasattr(error, "name") else ""
            if name not in _LEADERSHIP_MOVING or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def fetched(consumer: Any, timeout_s: float) -> list[Any]:
    """The records ``consumer`` has fetched, waiting up to ``timeout_s`` for the first only.

    ``consume(n, timeout)`` returns early only once it holds ``n`` records: on a topic that
    gains a record now and then (a connector's config, a status, an assignment) it waits out
    the whole timeout every time, and every read-to-end barrier of the herder with it.
    """
    first = consumer.poll(timeout_s)
    if first is None:
        return []
    return [first, *consumer.consume(10000, timeout=0)]


class KafkaLog:
    """A compacted topic read fully at start and written through an idempotent producer."""

    def __init__(
        self,
        client_config: Mapping[str, Any],
        topic: str,
        *,
        partitions: int,
        replication_factor: int,
        key_name: str,
    ) -> None:
        self.client_config = dict(client_config)
        self.topic = topic
        self.partitions = partitions
        self.replication_factor = replication_factor
        self.key_name = key_name  # the worker config key naming this topic, for messages
        self._producer: Any = None
        self._errors: list[str] = []
        # Records the brokers did not take: (key, value, the send's sequence number).
        self._failed: list[tuple[bytes, bytes | None, int]] = []
        # key -> sequence number of its latest send: a failed record is sent again only if
        # nothing newer was sent for its key since (compaction keeps the last one written).
        self._latest: dict[bytes, int] = {}
        self._sequence = 0
        self._topic_lost = False  # a write failed because the topic was gone
        # partition -> the offset after the last record this process wrote (acknowledged)
        self.written: dict[int, int] = {}
        self._lock = threading.Lock()
        self._recreate_lock = threading.Lock()
        # Called after this process created the topic again (what it held is lost).
        self.on_recreated: Callable[[], None] | None = None

    def _recreate_if_missing(self) -> bool:
        """Create the topic again if it is gone; True when it was recreated.

        The records whose writes failed meanwhile are sent again to the new topic.
        """
        from confluent_kafka.admin import AdminClient

        with self._recreate_lock:  # the follower and a writer may both find it gone
            try:
                topics = AdminClient(self.client_config).list_topics(timeout=10).topics
            except Exception:  # the broker is unreachable: not a missing topic
                return False
            if self.topic in topics and topics[self.topic].error is None:
                return False
            log.warning(
                "%s %s has disappeared from the cluster; creating it again (what it held is "
                "lost: running connectors write their state again)",
                self.key_name,
                self.topic,
            )
            self.ensure_topic()
            # Offsets acknowledged on the deleted topic say nothing about the new one.
            self.written.clear()
        self._send_failed_again()
        if self.on_recreated is not None:
            self.on_recreated()
        return True

    def _send_failed_again(self) -> None:
        with self._lock:
            failed, self._failed = self._failed, []
            self._errors = []
            self._topic_lost = False
            if self._producer is None:
                return
            for key, value, sequence in failed:
                if self._latest.get(key) == sequence:
                    self._produce(key, value)
            self._producer.poll(0)

    def ensure_topic(self) -> None:
        """Create the topic, compacted, when it does not exist."""
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        admin = AdminClient(self.client_config)
        existing = admin.list_topics(timeout=_TIMEOUT_S).topics
        if self.topic in existing:
            found = len(existing[self.topic].partitions)
            if self.partitions == 1 and found != 1:
                raise ConnectError(
                    f"{self.key_name}: topic {self.topic!r} must have a single partition, so that "
                    f"connector configs are read in the order they were written, but it has "
                    f"{found}; point {self.key_name} at a new topic (or recreate this one with "
                    "one partition)"
                )
            return
        new = NewTopic(
            self.topic,
            num_partitions=self.partitions,
            replication_factor=self.replication_factor,
            config={"cleanup.policy": "compact"},
        )
        try:
            admin.create_topics([new], operation_timeout=_TIMEOUT_S)[self.topic].result(_TIMEOUT_S)
            log.info(
                "created %s %s (%d partitions, replication factor %d, compacted)",
                self.key_name,
                self.topic,
                self.partitions,
                self.replication_factor,
            )
            self._wait_for_leaders(admin)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if isinstance(error, KafkaError) and error.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                return
            raise ConnectError(
                f"{self.key_name}: cannot create topic {self.topic!r}: {exc}; create it "
                f"yourself (compacted) or check {self.key_name.rsplit('.', 1)[0]}"
                ".replication.factor against the number of brokers"
            ) from None

    def _wait_for_leaders(self, admin: Any) -> None:
        """Wait until every partition of the new topic has a leader the brokers know.

        Kafka answers CreateTopics once the controller has the topic; the brokers learn of
        it a moment later, and a ListOffsets or Produce before then gets "not leader".
        """
        deadline = time.monotonic() + _TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                found = admin.list_topics(self.topic, timeout=_TIMEOUT_S).topics.get(self.topic)
            except Exception:  # asked again until the deadline
                found = None
            if (
                found is not None
                and found.error is None
                and len(found.partitions) == self.partitions
                and all(p.leader >= 0 and p.error is None for p in found.partitions.values())
            ):
                return
            time.sleep(0.05)

    def read_to_end(self) -> list[tuple[bytes | None, bytes | None]]:
        """Every record of the topic, per partition in order, up to the current end."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

        consumer = Consumer(
            {
                **self.client_config,
                # Required by the client, never joined: partitions are assigned by hand.
                "group.id": f"kconnect-log-reader-{uuid.uuid4().hex}",
                "enable.auto.commit": False,
                "enable.partition.eof": False,
            }
        )
        records: list[tuple[bytes | None, bytes | None]] = []
        try:
            metadata = consumer.list_topics(self.topic, timeout=_TIMEOUT_S)
            topic_meta = metadata.topics.get(self.topic)
            if topic_meta is None or topic_meta.error is not None:
                raise ConnectError(f"{self.key_name}: topic {self.topic!r} is not available")
            ends: dict[int, int] = {}
            for partition in topic_meta.partitions:
                low, high = watermarks(consumer, TopicPartition(self.topic, partition))
                if high > low:
                    ends[partition] = high
            if not ends:
                return records
            consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in ends])
            remaining = dict(ends)
            deadline = time.monotonic() + _TIMEOUT_S
            while remaining:
                if time.monotonic() > deadline:
                    raise ConnectError(
                        f"{self.key_name}: timed out reading topic {self.topic!r} to its end"
                    )
                for message in fetched(consumer, 0.2):
                    if message.error() is not None:
                        continue
                    records.append((message.key(), message.value()))
                    partition, offset = message.partition(), message.offset()
                    if (
                        partition in remaining
                        and offset is not None
                        and offset + 1 >= remaining[partition]
                    ):
                        del remaining[partition]
        finally:
            consumer.close()
        return records

    def _get_producer(self) -> Any:
        if self._producer is None:
            from confluent_kafka import Producer

            self._producer = Producer(
                {
                    **self.client_config,
                    "enable.idempotence": True,
                    "acks": "all",
                    "linger.ms": 0,
                    # Java's default partitioner for keyed records, so a key lands where
                    # a Java worker put it and compaction keeps the newest value.
                    "partitioner": "murmur2_random",
                    # A deleted topic must come back as this worker creates it (compacted,
                    # with its partitions), never as a broker's auto-creation makes it
                    # (cleanup.policy=delete, num.partitions) on the producer's request.
                    "allow.auto.create.topics": False,
                }
            )
        return self._producer

    def _produce(self, key: bytes, value: bytes | None) -> None:
        """Produce under ``_lock``."""
        self._sequence += 1
        sequence = self._sequence
        self._latest[key] = sequence

        def on_delivery(err: Any, msg: Any) -> None:
            if err is not None:
                self._errors.append(str(err))
                self._failed.append((key, value, sequence))
                if err.name() in _TOPIC_LOST:
                    self._topic_lost = True
                return
            partition, offset = msg.partition(), msg.offset()
            if offset is not None and offset >= self.written.get(partition, 0):
                self.written[partition] = offset + 1

        self._producer.produce(self.topic, key=key, value=value, on_delivery=on_delivery)

    def send(self, key: bytes, value: bytes | None) -> None:
        """Queue a record; ``flush`` makes it durable."""
        with self._lock:
            self._get_producer()
            self._produce(key, value)
            self._producer.poll(0)

    def flush(self, timeout_s: float = _TIMEOUT_S) -> None:
        """Wait until every queued record is acknowledged; raise if one failed.

        A topic deleted under a running worker is created again (as at start) and the
        failed records are sent once more, instead of failing every later write. Records
        still queued for it go to the new topic once the producer sees it.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                if self._producer is None:
                    return
                wait = min(_LOST_CHECK_S, max(0.0, deadline - time.monotonic()))
                remaining = self._producer.flush(wait)
                failed, topic_lost = bool(self._failed), self._topic_lost
            if not remaining and not failed:
                return
            if self._recreate_if_missing():
                continue
            if time.monotonic() >= deadline:
                break
            if topic_lost:
                # Created again meanwhile (by another worker, or this one's follower).
                time.sleep(0.1)
                self._send_failed_again()
                continue
            if failed:
                break
        with self._lock:
            errors, self._errors = self._errors, []
            self._failed = []
        raise ConnectError(
            f"{self.key_name}: could not write to topic {self.topic!r} "
            f"({remaining} records unacknowledged; {'; '.join(errors) or 'timed out'})"
        )

    def close(self) -> None:
        try:
            self.flush(5)
        except ConnectError as exc:
            log.error("%s", exc)
        self._producer = None


_PARTITIONS_TTL_S = 5.0  # how long a LogTail trusts the partitions it last saw


class LogTail:
    """Follows a :class:`KafkaLog`'s topic: ``read`` returns what was written since the last
    call, up to the end of every partition at the time of the call (a read-to-end barrier).

    Not thread-safe: one thread reads. A topic that disappears is created again.
    """

    def __init__(self, kafka_log: KafkaLog) -> None:
        self.log = kafka_log
        self._consumer: Any = None
        self._positions: dict[int, int] = {}
        self._partitions: list[int] | None = None  # the topic's partitions, as last asked
        self._probe: Any = None  # a consumer that only asks for end offsets
        self._uncommitted_probe: Any = None  # asks for high watermarks (see _high_watermark)
        self._partitions_at = 0.0

    def _open(self) -> Any:
        from confluent_kafka import Consumer

        if self._consumer is None:
            self._consumer = Consumer(
                {
                    **self.log.client_config,
                    # Required by the client, never joined: partitions are assigned by hand.
                    "group.id": f"kconnect-log-tail-{uuid.uuid4().hex}",
                    "enable.auto.commit": False,
                    "enable.partition.eof": False,
                    "fetch.wait.max.ms": 50,
                    # Compaction may have removed offset 0: start at the first record kept.
                    "auto.offset.reset": "earliest",
                }
            )
            if self._positions:  # opened again after ``close``: go on where it was
                from confluent_kafka import TopicPartition

                self._consumer.assign(
                    [TopicPartition(self.log.topic, p, o) for p, o in self._positions.items()]
                )
        return self._consumer

    def _open_probe(self) -> Any:
        from confluent_kafka import Consumer

        if self._probe is None:
            self._probe = Consumer(
                {
                    **self.log.client_config,
                    "group.id": f"kconnect-log-probe-{uuid.uuid4().hex}",
                    "enable.auto.commit": False,
                }
            )
        return self._probe

    def end_offsets(self) -> dict[int, int]:
        """The current end (high watermark) of each partition."""
        from confluent_kafka import TopicPartition

        # Asked of a consumer that never fetches: behind a fetching consumer's long poll
        # on the same connection, each answer waits for the fetch to return.
        consumer = self._open_probe()
        now = time.monotonic()
        # A metadata request costs a few hundred ms on some brokers and every read-to-end
        # barrier asks for the ends: the partitions are asked again every few seconds only.
        if self._partitions is None or now - self._partitions_at > _PARTITIONS_TTL_S:
            metadata = consumer.list_topics(self.log.topic, timeout=_TIMEOUT_S)
            topic_meta = metadata.topics.get(self.log.topic)
            if topic_meta is None or topic_meta.error is not None or not topic_meta.partitions:
                self._partitions = None
                self.log._recreate_if_missing()
                return {}
            self._partitions = sorted(topic_meta.partitions)
            self._partitions_at = now
        ends: dict[int, int] = {}
        try:
            for partition in self._partitions:
                _, high = watermarks(consumer, TopicPartition(self.log.topic, partition))
                ends[partition] = high
        except Exception:
            self._partitions = None  # asked again next time (the topic may have changed)
            if self.log._recreate_if_missing():
                return {}  # deleted since the partitions were asked: it is empty now
            raise
        return ends

    def _high_watermark(self, partition: int) -> int:
        """The partition's end as a ``read_uncommitted`` reader sees it.

        ``end_offsets`` asks as the reader reads (``read_committed``: the last stable
        offset), which an open transaction holds back, below what was read already on
        Tansu (it answers 0 while a transaction is open). Only an end below what was read
        by this measure too means the topic was deleted and created again.
        """
        from confluent_kafka import Consumer, TopicPartition

        if self._uncommitted_probe is None:
            self._uncommitted_probe = Consumer(
                {
                    **self.log.client_config,
                    "group.id": f"kconnect-log-probe-{uuid.uuid4().hex}",
                    "enable.auto.commit": False,
                    "isolation.level": "read_uncommitted",
                }
            )
        _, high = self._uncommitted_probe.get_watermark_offsets(
            TopicPartition(self.log.topic, partition), timeout=_TIMEOUT_S
        )
        return int(high)

    def caught_up(self, ends: Mapping[int, int]) -> bool:
        """Whether everything up to ``ends`` has been read."""
        return all(self._positions.get(p, 0) >= end for p, end in ends.items())

    def read(
        self, timeout_s: float = _TIMEOUT_S
    ) -> list[tuple[int, int, bytes | None, bytes | None]]:
        """(partition, offset, key, value) of the records written since the last call."""
        from confluent_kafka import TopicPartition

        ends = self.end_offsets()
        for partition in ends:
            if (
                partition in self._positions
                and ends[partition] < self._positions[partition]
                and self._high_watermark(partition) < self._positions[partition]
            ):
                # The topic ends before what was read: it was deleted and created again.
                log.warning(
                    "%s %s was created again (partition %d ends at %d, %d records were read): "
                    "reading it from its start",
                    self.log.key_name,
                    self.log.topic,
                    partition,
                    ends[partition],
                    self._positions[partition],
                )
                self._positions[partition] = 0
                # This process's writes acknowledged on the deleted topic no longer count
                # (the read-to-end barrier would wait for offsets the new topic never has).
                self.log.written.pop(partition, None)
                self.close()  # opened again below, at the positions kept
        consumer = self._open()
        for partition in ends:
            if partition not in self._positions:  # a partition seen for the first time
                self._positions[partition] = 0
                consumer.incremental_assign([TopicPartition(self.log.topic, partition, 0)])
        records: list[tuple[int, int, bytes | None, bytes | None]] = []
        deadline = time.monotonic() + timeout_s
        while not self.caught_up(ends):
            if time.monotonic() > deadline:
                raise ConnectError(
                    f"{self.log.key_name}: timed out reading topic {self.log.topic!r} to its end"
                )
            for message in fetched(consumer, 0.1):
                if message.error() is not None:
                    continue
                partition, offset = message.partition(), message.offset()
                records.append((partition, offset, message.key(), message.value()))
                self._positions[partition] = max(self._positions.get(partition, 0), offset + 1)
            if not self.caught_up(ends):
                self._advance_past_markers(consumer, ends)
        return records

    def poll(self, timeout_s: float) -> list[tuple[int, int, bytes | None, bytes | None]]:
        """(partition, offset, key, value) of the records fetched since the last call,
        waiting up to ``timeout_s`` for the first: no end offsets are asked, so this is no
        barrier (``read`` is), only the cheap way to see new records as they come."""
        consumer = self._consumer
        if consumer is None:  # never read yet: nothing is assigned
            time.sleep(timeout_s)
            return []
        records: list[tuple[int, int, bytes | None, bytes | None]] = []
        for message in fetched(consumer, timeout_s):
            if message.error() is not None:
                continue
            partition, offset = message.partition(), message.offset()
            records.append((partition, offset, message.key(), message.value()))
            self._positions[partition] = max(self._positions.get(partition, 0), offset + 1)
        return records

    def _advance_past_markers(self, consumer: Any, ends: Mapping[int, int]) -> None:
        """Count what the consumer skipped as read: transaction markers, and the records of
        aborted transactions (never returned to a ``read_committed`` reader), which take
        offsets up to the end too."""
        from confluent_kafka import TopicPartition

        behind = [p for p, end in ends.items() if self._positions.get(p, 0) < end]
        try:
            positions = consumer.position([TopicPartition(self.log.topic, p) for p in behind])
        except Exception:  # not known yet: the next round of consume tells
            return
        for tp in positions:
            if tp.offset >= 0 and tp.error is None:
                self._positions[tp.partition] = max(self._positions.get(tp.partition, 0), tp.offset)

    def positions(self) -> dict[int, int]:
        """partition -> the next offset to read (everything before it has been read)."""
        return dict(self._positions)

    def close(self) -> None:
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None
        for probe in (self._probe, self._uncommitted_probe):
            if probe is not None:
                probe.close()
        self._probe = self._uncommitted_probe = None


class KafkaOffsetStore(MemoryOffsetStore):
    """Source offsets in ``offset.storage.topic``: key ``["<connector>",{partition}]``."""

    def __init__(self, kafka_log: KafkaLog) -> None:
        super().__init__()
        self.log = kafka_log
        self._pending: dict[str, tuple[list[Any], dict[str, Any] | None]] = {}
        self._flush_lock = threading.Lock()
        self._tail = LogTail(kafka_log)
        # Connector-specific offsets topics (``offsets.storage.topic`` of a connector, KIP-618)
        # and the offsets read from them, which win over the worker's topic.
        self._connector_tails: dict[str, LogTail] = {}
        self._own_topic_keys: set[str] = set()
        for _, _, key, value in self._tail.read():
            self._apply(key, value)

    def read_connector_topic(self, topic: str) -> None:
        """Read a connector's own offsets topic (``offsets.storage.topic`` in its config).

        As Kafka's ``ConnectorOffsetBackingStore``: a task of that connector finds its offsets
        there first, then in the worker's ``offset.storage.topic``. Exactly-once source tasks
        write their offsets to the connector's topic in their transactions; a task started
        again (here or on another worker) resumes from them.
        """
        tail = self._connector_tails.get(topic)
        if tail is None:
            tail = LogTail(
                KafkaLog(
                    self.log.client_config,
                    topic,
                    partitions=self.log.partitions,
                    replication_factor=self.log.replication_factor,
                    key_name="offsets.storage.topic",
                )
            )
            self._connector_tails[topic] = tail
        with self._flush_lock:
            records = tail.read()
        with self._lock:
            for _, _, key, value in records:
                self._apply(key, value, own_topic=True)

    def refresh(self) -> None:
        """Read what other workers committed since (before a connector starts here)."""
        with self._flush_lock:
            records = self._tail.read()
        with self._lock:
            for _, _, key, value in records:
                self._apply(key, value)

    def _apply(self, key: bytes | None, value: bytes | None, *, own_topic: bool = False) -> None:
        try:
            connector, partition = json.loads(key or b"")
            if not isinstance(connector, str):
                raise ValueError("the first element is not a connector name")
            offset = None if value is None else json.loads(value)
        except (ValueError, TypeError) as exc:
            log.warning(
                "offset.storage.topic %s: ignoring a record with key %r (%s)",
                self.log.topic,
                key,
                exc,
            )
            return
        canonical = offset_key(connector, partition)
        if own_topic:
            self._own_topic_keys.add(canonical)
        elif canonical in self._own_topic_keys:
            return  # the connector's own offsets topic has it: that one wins
        if offset is None:
            self._data.pop(canonical, None)
        else:
            self._data[canonical] = ([connector, partition], offset)

    def put(
        self,
        connector: str,
        offsets: Mapping[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]],
    ) -> None:
        super().put(connector, offsets)
        with self._lock:
            for key, (partition, offset) in offsets.items():
                self._pending[key] = (
                    [connector, None if partition is None else dict(partition)],
                    None if offset is None else dict(offset),
                )

    def flush(self) -> None:
        with self._flush_lock:
            with self._lock:
                pending, self._pending = self._pending, {}
            for key, value in pending.values():
                self.log.send(encode_json(key), None if value is None else encode_json(value))
            self.log.flush()

    def close(self) -> None:
        self._tail.close()
        for tail in self._connector_tails.values():
            tail.close()
        self._connector_tails.clear()


TOPIC_STATUS_PREFIX = "status-topic-"
TOPIC_STATUS_SEPARATOR = ":connector-"


def topic_status_key(connector: str, topic: str) -> str:
    """Kafka's key of an active topic record: ``status-topic-<topic>:connector-<name>``."""
    return f"{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"


def parse_topic_status_key(key: str) -> tuple[str, str] | None:
    """(connector, topic) of an active topic record's key; None for any other key.

    A topic name cannot hold ':', so the first separator ends it.
    """
    if not key.startswith(TOPIC_STATUS_PREFIX):
        return None
    topic, sep, connector = key[len(TOPIC_STATUS_PREFIX) :].partition(TOPIC_STATUS_SEPARATOR)
    return (connector, topic) if sep and topic and connector else None


def _status_value(status: Status) -> dict[str, Any]:
    return {
        "state": status.state.value,
        # Secrets registered by the worker never reach the status topic.
        "trace": None if status.trace is None else scrub_secrets(status.trace),
        "worker_id": status.worker_id,
        "generation": status.generation,
        # Kafka 4.1 (KIP-891) writes the plugin's version; null where there is none.
        "version": (
            None if status.state in (State.UNASSIGNED, State.RESTARTING) else status.version
        ),
    }


class KafkaControlStore:
    """Connector configs, task configs and target states in ``config.storage.topic``;
    statuses in ``status.storage.topic``."""

    def __init__(self, config_log: KafkaLog, status_log: KafkaLog) -> None:
        self.config_log = config_log
        self.status_log = status_log

    def connector_config(self, name: str, config: Mapping[str, str] | None) -> None:
        value = None if config is None else encode_json({"properties": dict(config)})
        self.config_log.send(f"connector-{name}".encode(), value)
        if config is None:
            self.config_log.send(f"target-state-{name}".encode(), None)
        self.config_log.flush()

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        for index, config in enumerate(configs):
            self.config_log.send(
                f"task-{name}-{index}".encode(), encode_json({"properties": dict(config)})
            )
        self.config_log.send(f"commit-{name}".encode(), encode_json({"tasks": len(configs)}))
        self.config_log.flush()

    def target_state(self, name: str, state: TargetState) -> None:
        # Workers that only know STARTED/PAUSED read "state"; STOPPED is PAUSED to them.
        v1 = TargetState.PAUSED if state is TargetState.STOPPED else state
        self.config_log.send(
            f"target-state-{name}".encode(),
            encode_json({"state": v1.value, "state.v2": state.value}),
        )
        self.config_log.flush()

    def status(self, key: str, status: Status | None) -> None:
        # Statuses are advisory, as in Kafka: written without waiting for the ack.
        value = None if status is None else encode_json(_status_value(status))
        self.status_log.send(key.encode(), value)

    def topic_status(
        self, connector: str, topic: str, task: int | None, discovered_ms: int | None
    ) -> None:
        """A connector's active topic (KIP-558) in Kafka's record; ``task=None`` deletes it."""
        value = (
            None
            if task is None
            else encode_json(
                {
                    "topic": {
                        "name": topic,
                        "connector": connector,
                        "task": task,
                        "discoverTimestamp": discovered_ms,
                    }
                }
            )
        )
        self.status_log.send(topic_status_key(connector, topic).encode(), value)

    def close(self) -> None:
        self.config_log.close()
        self.status_log.close()


@dataclass
class RecoveredConnector:
    """A connector as the config topic describes it."""

    config: dict[str, str]
    target_state: TargetState = TargetState.STARTED
    task_configs: list[dict[str, str]] = field(default_factory=list)
    # How many times its config was written (an identical write counts: Kafka restarts the
    # connector for each).
    revision: int = 1


def replay_configs(
    records: Sequence[tuple[bytes | None, bytes | None]],
) -> dict[str, RecoveredConnector]:
    """Connectors, in creation order, from the records of a config topic."""
    connectors: dict[str, RecoveredConnector] = {}
    pending_tasks: dict[str, dict[int, dict[str, str]]] = {}
    early_states: dict[str, TargetState] = {}
    for raw_key, raw_value in records:
        key = (raw_key or b"").decode(errors="replace")
        try:
            value = None if raw_value is None else json.loads(raw_value)
        except ValueError:
            log.warning("config.storage.topic: ignoring record %r: value is not JSON", key)
            continue
        if key.startswith("connector-"):
            name = key[len("connector-") :]
            if value is None:
                connectors.pop(name, None)
                pending_tasks.pop(name, None)
            else:
                previous = connectors.get(name)
                entry = RecoveredConnector(
                    {str(k): str(v) for k, v in value.get("properties", {}).items()}
                )
                if previous is not None:
                    entry.target_state = previous.target_state
                    entry.task_configs = previous.task_configs
                    entry.revision = previous.revision + 1
                elif name in early_states:
                    entry.target_state = early_states.pop(name)
                connectors[name] = entry
        elif key.startswith("target-state-") and value is not None:
            name = key[len("target-state-") :]
            raw_state = value.get("state.v2") or value.get("state") or "STARTED"
            try:
                state = TargetState(raw_state)
            except ValueError:
                log.warning("config.storage.topic: unknown target state %r of %s", raw_state, name)
                continue
            if name in connectors:
                connectors[name].target_state = state
            else:  # written before the connector's config, e.g. by a Java worker
                early_states[name] = state
        elif key.startswith("task-") and value is not None:
            name, _, index = key[len("task-") :].rpartition("-")
            if index.isdigit():
                pending_tasks.setdefault(name, {})[int(index)] = {
                    str(k): str(v) for k, v in value.get("properties", {}).items()
                }
        elif key.startswith("commit-") and value is not None:
            name = key[len("commit-") :]
            count = int(value.get("tasks", 0))
            tasks = pending_tasks.pop(name, {})
            if name in connectors and all(i in tasks for i in range(count)):
                connectors[name].task_configs = [tasks[i] for i in range(count)]
    return connectors
