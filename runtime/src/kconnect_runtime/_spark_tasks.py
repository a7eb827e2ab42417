"""What runs inside a Spark task (on an executor) for the spark engine: one bounded cycle.

Everything here arrives and leaves as plain, picklable data. The executor rebuilds the
connector's pipeline from its configs through the plugin registry, runs the task for one
cycle, and returns what the driver must commit. Nothing here imports PySpark: the driver
ships these functions by reference, so executors need ``kconnect_runtime`` installed (or
shipped with ``spark.archives``).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import (
    ConnectError,
    RecordMetadata,
    RetriableError,
    SinkRecord,
    SinkTask,
    SourceRecord,
    SourceTask,
    TopicPartition,
)

from ._offsets import MemoryOffsetStore, TaskOffsetReader, offset_key
from ._pipeline import Converters, TransformChain, build_converters
from ._registry import PluginKind, PluginRegistry
from ._source_task import SourceContext as _SourceContext

__all__ = [
    "PartitionRange",
    "SinkCycle",
    "SinkCycleResult",
    "SourceCycle",
    "SourceCycleResult",
    "run_sink_cycle",
    "run_source_cycle",
]

log = logging.getLogger("kconnect.spark.task")

_Offsets = tuple[tuple[dict[str, Any] | None, dict[str, Any] | None], ...]
_MAX_BATCH = 5000


@dataclass(frozen=True, slots=True)
class SourceCycle:
    """One source task's cycle, as the driver plans it."""

    connector: str
    task: int
    task_config: dict[str, str]
    connector_config: dict[str, str]
    worker_props: dict[str, str]
    producer_config: dict[str, Any]
    committed: _Offsets
    """The connector's committed (partition, offset) pairs, served by the task's reader."""
    max_records: int
    max_ms: int
    flush_timeout_s: float
    topic_creation: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class SourceCycleResult:
    polled: int
    produced: int
    offsets: _Offsets
    """The last acknowledged (partition, offset) of each source partition the cycle read."""


@dataclass(frozen=True, slots=True)
class PartitionRange:
    """Where a sink cycle reads one topic partition: from ``start`` up to, not including,
    ``end`` (the cycle's bound), and never past the partition's end at that time."""

    topic: str
    partition: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class SinkCycle:
    connector: str
    task: int
    task_config: dict[str, str]
    connector_config: dict[str, str]
    worker_props: dict[str, str]
    consumer_config: dict[str, Any]
    ranges: tuple[PartitionRange, ...]
    max_ms: int


@dataclass(frozen=True, slots=True)
class SinkCycleResult:
    consumed: int
    put: int
    commit: tuple[tuple[str, int, int], ...] = field(default=())
    """(topic, partition, next offset) that the task's pre_commit reported durable."""
    high_watermarks: tuple[tuple[str, int, int], ...] = field(default=())
    """(topic, partition, high watermark) as the cycle's fetches last saw them."""


# A reused Python worker runs many cycles; discovery reads every installed distribution's
# metadata, so it is done once per worker process.
_known_topics: set[tuple[str, str]] = set()


@functools.cache
def _plugins() -> PluginRegistry:
    return PluginRegistry.discover()


def _task_class(registry: PluginRegistry, connector_config: Mapping[str, str]) -> type[Any]:
    plugin = registry.resolve(
        connector_config.get("connector.class", ""),
        PluginKind.SOURCE,
        PluginKind.SINK,
        key="connector.class",
    )
    task_class: type[Any] = plugin.load()().task_class()
    return task_class


class _Acks:
    """Delivery reports of one cycle's records."""

    def __init__(self) -> None:
        self.acked = 0
        self.error: KafkaError | None = None

    def on_delivery(self, err: KafkaError | None, _msg: Any) -> None:
        if err is not None:
            if self.error is None:
                self.error = err
        else:
            self.acked += 1


def run_source_cycle(cycle: SourceCycle) -> SourceCycleResult:
    """Start the task with the committed offsets, poll a bounded batch, produce it, wait for acks.

    Raises (failing the Spark task, which Spark retries) when anything is not acknowledged:
    the driver then commits nothing, and the next attempt starts from the same offsets.
    """
    where = f"connector {cycle.connector!r} task {cycle.task}"
    registry = _plugins()
    task = _task_class(registry, cycle.connector_config)()
    if not isinstance(task, SourceTask):
        raise ConnectError(f"{where}: task_class() of a source connector must be a SourceTask")
    store = MemoryOffsetStore()
    store.put(
        cycle.connector,
        {offset_key(cycle.connector, p): (p, o) for p, o in cycle.committed},
    )
    converters = build_converters(registry, cycle.worker_props, cycle.connector_config)
    transforms: TransformChain[SourceRecord] = TransformChain.from_config(
        registry, cycle.connector_config
    )
    producer = Producer(cycle.producer_config)
    acks = _Acks()
    wants_commit_record = type(task).commit_record is not SourceTask.commit_record
    last: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None]] = {}
    polled = 0
    try:
        task.initialize(_SourceContext(cycle.task_config, TaskOffsetReader(store, cycle.connector)))
        task.start(cycle.task_config)
        deadline = time.monotonic() + cycle.max_ms / 1000
        while polled < cycle.max_records and time.monotonic() < deadline:
            batch = task.poll()
            if not batch:
                # A source that had data and now has none is drained for this cycle; one that
                # has produced nothing yet may still be warming up, so it gets the whole cycle.
                if polled:
                    break
                continue
            polled += len(batch)
            for record in batch:
                if record.source_partition is not None or record.source_offset is not None:
                    partition = record.source_partition
                    offset = record.source_offset
                    last[offset_key("", partition)] = (
                        None if partition is None else dict(partition),
                        None if offset is None else dict(offset),
                    )
            _produce(
                cycle,
                task,
                producer,
                batch,
                converters=converters,
                transforms=transforms,
                acks=acks,
                wants_commit_record=wants_commit_record,
            )
            producer.poll(0)
        remaining = producer.flush(cycle.flush_timeout_s)
        if remaining:
            raise ConnectError(
                f"{where}: {remaining} records were not acknowledged by Kafka within "
                f"offset.flush.timeout.ms ({cycle.flush_timeout_s * 1000:.0f} ms); the cycle fails "
                "so that its records are sent again from the last committed offsets"
            )
        if acks.error is not None:
            raise ConnectError(
                f"{where}: the broker refused a record: {acks.error.str()}; the cycle fails so that "
                "its records are sent again from the last committed offsets"
            )
        try:
            # Every record of the cycle is in Kafka now, so upstream may be acknowledged.
            task.commit()
        except Exception:
            log.exception("%s: commit() raised", where)
        return SourceCycleResult(polled, acks.acked, tuple(last.values()))
    finally:
        try:
            task.stop()
        finally:
            converters.close()
            transforms.close()


def _produce(
    cycle: SourceCycle,
    task: SourceTask,
    producer: Producer,
    batch: list[SourceRecord],
    *,
    converters: Converters,
    transforms: TransformChain[SourceRecord],
    acks: _Acks,
    wants_commit_record: bool,
) -> None:
    if wants_commit_record and len(transforms):
        records = []
        for record in batch:
            out = transforms.apply_batch([record])
            if out:
                records.extend(out)
            else:
                task.commit_record(record, None)
    else:
        records = transforms.apply_batch(batch) if len(transforms) else batch
    if not records:
        return
    if cycle.topic_creation is not None:
        _ensure_topics(cycle, {r.topic for r in records})
    keys = converters.key.from_connect_batch([(r.topic, r.key_schema, r.key) for r in records])
    values = converters.value.from_connect_batch(
        [(r.topic, r.value_schema, r.value) for r in records]
    )
    for record, key, value in zip(records, keys, values, strict=True):
        kwargs: dict[str, Any] = {"key": key, "value": value}
        if record.kafka_partition is not None:
            kwargs["partition"] = record.kafka_partition
        if record.timestamp is not None:
            kwargs["timestamp"] = record.timestamp
        if record.headers:
            kwargs["headers"] = converters.headers_to_kafka(record.topic, record.headers)
        kwargs["on_delivery"] = (
            _record_ack(acks, task, record) if wants_commit_record else acks.on_delivery
        )
        while True:
            try:
                producer.produce(record.topic, **kwargs)
                break
            except BufferError:
                producer.poll(0.05)  # the local queue is full: serve delivery reports
            except KafkaException as exc:
                raise ConnectError(
                    f"connector {cycle.connector!r} task {cycle.task}: cannot produce to topic "
                    f"{record.topic!r}: {exc}"
                ) from exc


def _record_ack(acks: _Acks, task: SourceTask, record: SourceRecord) -> Any:
    def on_delivery(err: KafkaError | None, msg: Any) -> None:
        acks.on_delivery(err, msg)
        if err is None:
            task.commit_record(
                record,
                RecordMetadata(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1]),
            )

    return on_delivery


def _ensure_topics(cycle: SourceCycle, topics: set[str]) -> None:
    bootstrap = str(cycle.producer_config["bootstrap.servers"])
    missing = {t for t in topics if (bootstrap, t) not in _known_topics}
    if not missing or cycle.topic_creation is None:
        return
    from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
        AdminClient,
        NewTopic,
    )

    partitions, replication = cycle.topic_creation
    admin = AdminClient({"bootstrap.servers": bootstrap})
    existing = set(admin.list_topics(timeout=10).topics)
    to_create = [NewTopic(t, partitions, replication) for t in sorted(missing - existing)]
    if to_create:
        for topic, future in admin.create_topics(to_create, operation_timeout=10).items():
            try:
                future.result()
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise ConnectError(
                        f"connector {cycle.connector!r} task {cycle.task}: cannot create topic "
                        f"{topic!r}: {exc}"
                    ) from exc
    _known_topics.update((bootstrap, t) for t in missing)


class _SinkContext:
    """The SinkTaskContext of one cycle: its assignment is the cycle's partitions."""

    def __init__(self, configs: Mapping[str, str], assignment: set[TopicPartition]) -> None:
        self._configs = configs
        self._assignment = assignment
        self.timeout_ms = 0
        self.seeks: dict[TopicPartition, int] = {}
        self.consumer: Consumer | None = None

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.seeks.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def pause(self, *partitions: TopicPartition) -> None:
        if self.consumer is not None:
            self.consumer.pause([KafkaTopicPartition(p.topic, p.partition) for p in partitions])

    def resume(self, *partitions: TopicPartition) -> None:
        if self.consumer is not None:
            self.consumer.resume([KafkaTopicPartition(p.topic, p.partition) for p in partitions])

    def request_commit(self) -> None:
        """Every cycle ends with a commit, so there is nothing to request."""

    @property
    def errant_record_reporter(self) -> None:
        return None


def run_sink_cycle(cycle: SinkCycle) -> SinkCycleResult:
    """Consume the planned offset ranges, put them to the task, and pre-commit.

    The consumer is assigned (never subscribed), so it joins no group: the driver owns the
    group's offsets and commits what this returns.
    """
    where = f"connector {cycle.connector!r} task {cycle.task}"
    registry = _plugins()
    task = _task_class(registry, cycle.connector_config)()
    if not isinstance(task, SinkTask):
        raise ConnectError(f"{where}: task_class() of a sink connector must be a SinkTask")
    converters = build_converters(registry, cycle.worker_props, cycle.connector_config)
    transforms: TransformChain[SinkRecord] = TransformChain.from_config(
        registry, cycle.connector_config
    )
    ends = {TopicPartition(r.topic, r.partition): r.end for r in cycle.ranges}
    starts = {TopicPartition(r.topic, r.partition): r.start for r in cycle.ranges}
    context = _SinkContext(cycle.task_config, set(ends))
    consumer_config = {
        **cycle.consumer_config,
        "enable.auto.commit": False,
        # The end of a partition is where a range ends when it holds fewer records than
        # the bound (some brokers' ListOffsets, which the driver plans with, lag behind).
        "enable.partition.eof": True,
    }
    consumer = Consumer(consumer_config)
    context.consumer = consumer
    consumed = put = 0
    current: dict[TopicPartition, int] = {}
    try:
        task.initialize(context)
        task.start(cycle.task_config)
        tps = sorted(ends)
        task.open(tps)
        for tp, offset in context.seeks.items():
            if tp in starts:
                starts[tp] = offset
                current[tp] = offset
        context.seeks = {}
        pending = {tp for tp in tps if starts[tp] < ends[tp]}
        if pending:
            consumer.assign(
                [KafkaTopicPartition(tp.topic, tp.partition, starts[tp]) for tp in sorted(pending)]
            )
        at_end: set[TopicPartition] = set()
        eof_at: dict[TopicPartition, int] = {}
        deadline = time.monotonic() + cycle.max_ms / 1000
        while pending and time.monotonic() < deadline:
            messages: list[Any] = consumer.consume(_MAX_BATCH, 0.2)
            good: list[Any] = []
            for m in messages:
                err = m.error()
                tp = TopicPartition(m.topic(), m.partition())
                if err is None:
                    if tp in pending and m.offset() < ends[tp]:
                        good.append(m)
                elif err.code() == KafkaError._PARTITION_EOF:
                    if tp in pending:
                        pending.discard(tp)
                        at_end.add(tp)
                        eof_at[tp] = min(m.offset(), ends[tp])
                elif err.fatal():
                    raise ConnectError(f"{where}: consumer error: {err.str()}")
            if good:
                consumed += len(good)
                records = converters.to_sink_records(good)
                records = transforms.apply_batch(records) if len(transforms) else records
                _put(where, task, context, records, deadline)
                put += len(records)
                for m in good:
                    current[TopicPartition(m.topic(), m.partition())] = m.offset() + 1
            for tp in at_end:
                # Past the last record: offsets without records (transaction markers) count.
                current[tp] = max(current.get(tp, starts[tp]), eof_at[tp])
            at_end.clear()
            # Positions, not record offsets, end a range: transaction markers and compaction
            # leave offsets that no record carries.
            for kp in consumer.position(
                [KafkaTopicPartition(tp.topic, tp.partition) for tp in pending]
            ):
                tp = TopicPartition(kp.topic, kp.partition)
                if kp.offset >= ends[tp]:
                    pending.discard(tp)
                    current[tp] = max(current.get(tp, ends[tp]), ends[tp])
        commit: Mapping[TopicPartition, int] = {}
        if current:
            try:
                commit = task.pre_commit(dict(current))
            except Exception:
                # As Kafka Connect: not a task failure. Nothing is committed, so the next
                # cycle starts again from the last committed offsets.
                log.exception(
                    "%s: pre_commit failed; this cycle's offsets are not committed", where
                )
                commit = {}
        task.close(tps)
        highs = []
        for tp in tps:
            try:
                _, high = consumer.get_watermark_offsets(
                    KafkaTopicPartition(tp.topic, tp.partition), cached=True
                )
            except KafkaException:
                continue
            if high is not None and high >= 0:
                highs.append((tp.topic, tp.partition, int(high)))
        return SinkCycleResult(
            consumed,
            put,
            tuple((tp.topic, tp.partition, off) for tp, off in commit.items() if tp in ends),
            tuple(highs),
        )
    finally:
        try:
            task.stop()
        finally:
            try:
                consumer.close()
            finally:
                converters.close()
                transforms.close()


def _put(
    where: str,
    task: SinkTask,
    context: _SinkContext,
    records: Sequence[SinkRecord],
    deadline: float,
) -> None:
    while True:
        try:
            task.put(records)
            return
        except RetriableError as exc:
            wait_s = (context.timeout_ms or 1000) / 1000
            if time.monotonic() + wait_s > deadline:
                raise ConnectError(
                    f"{where}: put kept raising a retriable error until the end of the cycle "
                    f"(spark.sink.batch.max.ms); the cycle fails and its records are delivered "
                    f"again: {exc}"
                ) from exc
            log.warning("%s: put raised a retriable error; redelivering in %.1f s", where, wait_s)
            time.sleep(wait_s)
