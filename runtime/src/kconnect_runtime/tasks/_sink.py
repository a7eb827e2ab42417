"""The sink side of the data path: Kafka consumer → converters → transforms → put → commit.

The consumer group is ``connect-<connector>``. Offsets are committed only as
``pre_commit`` reports them durable; a RetriableError from ``put`` redelivers the same
batch after ``context.timeout``.
"""

from __future__ import annotations

import decimal
import logging
import operator
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from functools import partial
from itertools import repeat
from typing import Any

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_INVALID,
    Consumer,
    KafkaError,
    KafkaException,
    Message,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import (
    ConnectError,
    Converter,
    Headers,
    PluginMetrics,
    RetriableError,
    SchemaAndValue,
    SinkBatch,
    SinkRecord,
    SinkTask,
    TimestampType,
    TopicPartition,
    optional_speedups,
)

from kconnect_runtime.errors import (
    ErrorHandler,
    Failure,
    Stage,
    class_name,
    executing_class,
    failed_records,
    tolerance_exceeded,
)
from kconnect_runtime.status import State

from ._chain import Converters, TransformChain, sink_record
from ._kafka_clients import TaskKafkaClient
from ._runner import TaskRunner

__all__ = ["SinkContext", "SinkPipeline"]

log = logging.getLogger("kconnect.sink")

MAX_BATCH = 5000

FETCH_QUEUE_BACKOFF_MS = 10
"""The sink consumer's ``fetch.queue.backoff.ms`` unless the user sets one (librdkafka: 1000)."""

# confluent-kafka's Message accessors, unbound: ``map(_topic, messages)`` reads a field of a
# whole batch in C, with no per-message attribute lookup.
_error = Message.error
_topic = Message.topic
_partition = Message.partition
_offset = Message.offset
_key = Message.key
_value = Message.value
_headers = Message.headers
_timestamp = Message.timestamp

# Message.timestamp()'s type code -> the record's TimestampType (as _chain.sink_record).
_TIMESTAMP_TYPES = {
    0: TimestampType.NO_TIMESTAMP_TYPE,
    1: TimestampType.CREATE_TIME,
    2: TimestampType.LOG_APPEND_TIME,
}
_UNTYPED = TimestampType.NO_TIMESTAMP_TYPE
_Columns = tuple[list[Any], list[Any], list[Any], list[Any], list[Any], list[Any]]
_FIELDS = (_topic, _partition, _offset, _key, _value, _headers)


def _compiled_columns() -> Callable[[list[Any]], _Columns | None] | None:
    """kconnect-speedups' one-pass reader of consumed messages (their topics, partitions,
    offsets, keys, values and headers), or None.

    It reads confluent-kafka's Message fields directly, so it is taken only when it reads
    probe messages exactly as the accessors do and answers None for one with an error (the
    caller then reads the batch through the accessors, finding the error).
    """
    speedups = optional_speedups("kconnect_speedups._messages", reads_layout=False)
    if speedups is None:
        return None
    try:
        probes = [
            Message(
                topic="kconnect-probe",
                partition=7,
                offset=(1 << 40) + 3,
                key=b"key",
                value=b"value",
                headers=[("h", b"1")],
            ),
            Message(topic="kconnect-probe-2", partition=0, offset=0, error=None),
        ]
        expected = tuple(list(map(read, probes)) for read in _FIELDS)
        failed = Message(topic="kconnect-probe", error=KafkaError(KafkaError._PARTITION_EOF))
        if (
            speedups.bind(Message)
            and speedups.columns(probes) == expected
            and speedups.columns([failed]) is None
        ):
            columns: Callable[[list[Any]], _Columns | None] = speedups.columns
            return columns
    except Exception:  # an older confluent-kafka's Message() takes no fields
        pass
    log.warning(
        "kconnect_speedups._messages does not read this confluent-kafka's messages as its "
        "accessors do: sink tasks read them through the accessors (a little more CPU per record)"
    )
    return None


_COLUMNS = _compiled_columns()


def _read_columns(messages: list[Any]) -> _Columns:
    """The messages' fields through confluent-kafka's accessors, a C-level ``map`` each."""
    topics, partitions, offsets, keys, values, headers = (
        list(map(read, messages)) for read in _FIELDS
    )
    return topics, partitions, offsets, keys, values, headers


# The two halves of a (schema, value) or (timestamp type, timestamp) pair, read in C.
_first = operator.itemgetter(0)
_second = operator.itemgetter(1)


class _Timestamps:
    """A batch's timestamps and timestamp types, read from its messages on first use."""

    __slots__ = ("_columns", "_messages")

    def __init__(self, messages: list[Any]) -> None:
        self._messages = messages
        self._columns: tuple[list[Any], list[Any]] | None = None

    def __len__(self) -> int:
        return len(self._messages)

    def columns(self) -> tuple[list[Any], list[Any]]:
        if self._columns is None:
            count = len(self._messages)
            stamps: list[Any] = list(map(_timestamp, self._messages))
            kinds: list[Any] = list(map(_first, stamps))
            kind = kinds[0] if kinds else 0
            if kinds.count(kind) == count:
                # The usual batch: every message has the same timestamp type (the topic's).
                self._columns = (
                    list(map(_second, stamps)) if kind else [None] * count,
                    [_TIMESTAMP_TYPES.get(kind, _UNTYPED)] * count,
                )
            else:
                self._columns = (
                    [ts if tt else None for tt, ts in stamps],
                    list(map(_TIMESTAMP_TYPES.get, kinds, repeat(_UNTYPED))),
                )
        return self._columns


# Header values records may share: none can be changed in place by the task.
_IMMUTABLE_VALUES = frozenset({str, int, float, bool, bytes, type(None), decimal.Decimal})


def _immutable(headers: Headers) -> bool:
    return all(type(h.value) in _IMMUTABLE_VALUES for h in headers)


class _Column(Sequence[Any]):
    """One of the two columns of a :class:`_Timestamps`, read when first indexed."""

    __slots__ = ("_index", "_source")

    def __init__(self, source: _Timestamps, index: int) -> None:
        self._source = source
        self._index = index

    def __len__(self) -> int:
        return len(self._source)

    def __getitem__(self, item: Any) -> Any:
        return self._source.columns()[self._index][item]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._source.columns()[self._index])

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]  # a mutable-looking sequence, as list

    def __repr__(self) -> str:
        return repr(self._source.columns()[self._index])


def _as_records(records: list[SinkRecord] | SinkBatch) -> list[SinkRecord]:
    return records.records() if isinstance(records, SinkBatch) else records


def _first_and_last(records: list[SinkRecord] | SinkBatch) -> tuple[SinkRecord, SinkRecord]:
    if isinstance(records, SinkBatch):
        return records.record(0), records.record(-1)
    return records[0], records[-1]


def _one(converter: Converter, topic: str, data: bytes | None) -> SchemaAndValue:
    return converter.to_connect_batch([(topic, data)])[0]


# Consumer errors librdkafka reports and then retries for ever, which the broker will answer
# the same way until someone changes a setting or an ACL: Kafka's Java consumer throws them
# from poll() and the task fails, so an operator sees the cause instead of a silent task.
_REFUSED_FOR_GOOD: dict[int, str] = {
    KafkaError.INVALID_SESSION_TIMEOUT: (
        "consumer.session.timeout.ms (or consumer.override.session.timeout.ms) must lie "
        "within the brokers' group.min.session.timeout.ms and group.max.session.timeout.ms "
        "(6000 and 1800000 by default)"
    ),
    KafkaError.GROUP_AUTHORIZATION_FAILED: (
        "the worker's principal may not use its consumer group: grant it READ on the group"
    ),
    KafkaError.TOPIC_AUTHORIZATION_FAILED: (
        "the worker's principal may not read the topic: grant it READ (and DESCRIBE)"
    ),
}


class SinkContext:
    """The SinkTaskContext handed to the plugin task; acts on the pipeline's consumer."""

    def __init__(self, runner: SinkPipeline) -> None:
        self._runner = runner
        self.timeout_ms = 0
        self.commit_requested = False
        self.seeks: dict[TopicPartition, int] = {}

    @property
    def configs(self) -> Mapping[str, str]:
        return self._runner.task_config

    @property
    def plugin_metrics(self) -> PluginMetrics:  # KIP-877
        return self._runner.runner.plugin_metrics

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.seeks.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return set(self._runner.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        self._runner.consumer.pause(
            [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        )

    def resume(self, *partitions: TopicPartition) -> None:
        self._runner.consumer.resume(
            [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        )

    def request_commit(self) -> None:
        self.commit_requested = True

    @property
    def errant_record_reporter(self) -> _ErrantRecordReporter | None:
        return self._runner.reporter


class _ErrantRecordReporter:
    """KIP-610's reporter: errant records go to the errors log and the DLQ.

    Call it on the task thread (from ``put``/``flush``/``pre_commit``); offsets covering
    a reported record are committed only after its DLQ write is acknowledged.
    """

    def __init__(self, runner: SinkPipeline) -> None:
        self._runner = runner

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        return self._runner.report_errant(record, error, Stage.TASK_PUT)


class SinkPipeline:
    """A sink task's data path, as methods an engine drives: no loop of its own.

    ``open`` and ``start_task`` begin; the consumer is either subscribed (``subscribe``:
    the group assigns partitions through the ``on_assign``/``on_revoke``/``on_lost``
    callbacks) or assigned planned ranges (``open_partitions`` and ``assign``). Then, as
    often as the engine likes, ``consume`` and ``deliver`` (converters → transforms →
    put) and ``commit``; ``close`` ends. The local engine drives it on a thread until
    stopped, the spark engine's executor for one cycle of planned offset ranges.

    Args:
        runner: The task's state (status, counters, metrics, stop flag).
        task: The plugin task (or its isolation proxy).
        converters: The connector's key, value and header converters.
        transforms: The connector's transform chain.
        rewind_on_failed_pre_commit: What a failed ``pre_commit`` does: rewind to the last
            committed offsets (a consumer that goes on), or only skip the commit (a cycle
            whose next run starts from the committed offsets anyway).
    """

    def __init__(
        self,
        runner: TaskRunner,
        task: SinkTask,
        *,
        converters: Converters,
        transforms: TransformChain[SinkRecord],
        rewind_on_failed_pre_commit: bool = True,
    ) -> None:
        spec = runner.spec
        self.runner = runner
        self.task = task
        self.name = spec.name
        self.task_config = spec.task_config
        self.converters = converters
        self.transforms = transforms
        self.columnar = not len(transforms) and type(task).put_batch is not SinkTask.put_batch
        """Whether batches go to ``put_batch`` as columns: the task's class overrides it
        and the connector has no transforms."""
        self.metrics = runner.metrics
        self.consumer_config = dict(spec.client_config)
        # librdkafka stops fetching a partition for fetch.queue.backoff.ms (default 1000)
        # whenever its prefetch queue is full; a task that converts and puts between polls
        # fills it on every busy stretch and then waits a second for data the broker has.
        # Measured on 1M FileStream lines: 10.3 s at the default, 4.6 s at 10 ms. A user's
        # consumer.fetch.queue.backoff.ms still wins.
        self.consumer_config.setdefault("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS)
        self.subscription = spec.subscription
        self.rewind_on_failed_pre_commit = rewind_on_failed_pre_commit
        self.assigned: set[TopicPartition] = set()
        self.current: dict[TopicPartition, int] = {}  # next offset to consume, per partition
        self.committed: dict[TopicPartition, int] = {}
        runner.track_topics(lambda: {tp.topic for tp in list(self.current)})
        # Set after the final commit and close: consumer.close() then triggers no callbacks.
        self._closed = False
        self.reporter = (
            _ErrantRecordReporter(self) if runner.error_policy.reports_errant_records else None
        )
        self._batch: list[Any] = []
        self._batch_index: dict[tuple[str | None, int | None, int | None], Any] | None = None
        self._label = f"connector {spec.id.connector!r} task {spec.id.task}"
        # -- a group that never assigns ------------------------------------------------
        # When the group gave this member no assignment at all (not even an empty one),
        # since when; None once an assignment arrived or while not subscribed.
        self._unassigned_since: float | None = None
        self._stall_told = False  # the stall was reported; the rejoin comes later
        self._consumer_overrides: Mapping[str, Any] | None = None

    # -- rebalance callbacks (run inside consumer.consume on the task thread) ----------------
    def on_assign(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        self.assigned.update(tps)
        self.metrics.partition_count = len(self.assigned)
        if self._unassigned_since is not None:  # the group answered (maybe with nothing)
            self._unassigned_since = None
            status = self.runner.status
            if status.trace and status.state is State.RUNNING:
                status.set(State.RUNNING)  # clears the stall's trace
        log.info("sink task %s assigned %s", self.name, ", ".join(map(str, tps)) or "nothing")
        self.task.open(tps)

    def on_revoke(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        if not tps or self._closed:
            return
        self.commit(only=set(tps))
        self.task.close(tps)
        for tp in tps:
            self.assigned.discard(tp)
            self.current.pop(tp, None)
            self.committed.pop(tp, None)
        self.metrics.partition_count = len(self.assigned)

    def on_lost(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        # Lost partitions belong to another member already: close without committing.
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        if self._closed:
            return
        self.task.close(tps)
        for tp in tps:
            self.assigned.discard(tp)
            self.current.pop(tp, None)
        self.metrics.partition_count = len(self.assigned)

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self, consumer_overrides: Mapping[str, Any] | None = None) -> None:
        """Create the task's context, error handler (and DLQ producer) and consumer."""
        self.context = SinkContext(self)
        self.errors: ErrorHandler = self.runner.error_handler(
            str(self.consumer_config["bootstrap.servers"]), self.consumer_config
        )
        self._consumer_overrides = consumer_overrides  # a fresh consumer reuses them
        self.kafka = TaskKafkaClient(self.runner, "consumer", self.consumer_config)
        self.consumer = Consumer(
            self.kafka.config({**self.consumer_config, **(consumer_overrides or {})})
        )

    def start_task(self) -> None:
        """Initialize and start the plugin task."""
        self.task.initialize(self.context)
        self.task.start(self.task_config)

    def subscribe(self) -> None:
        """Join the consumer group on the task's topics; partitions come through callbacks."""
        self.consumer.subscribe(
            self.subscription,
            on_assign=self.on_assign,
            on_revoke=self.on_revoke,
            on_lost=self.on_lost,
        )
        self._unassigned_since = time.monotonic()

    # -- a group that never assigns ------------------------------------------------------
    def unassigned_timeout_s(self) -> float:
        """Twice the consumer's session timeout: how long a join may take before it is told."""
        session_ms = float(self.consumer_config.get("session.timeout.ms") or 45000)
        return 2 * session_ms / 1000

    def check_assignment(self, now: float | None = None) -> bool:
        """Say so, then rejoin with a fresh consumer, when the group assigns nothing.

        A member that joined and was given no partitions gets an (empty) assignment and is
        left alone, as is one whose topics do not exist yet; this is for a join the
        coordinator never completes (seen with a test broker after a member left
        mid-join): without it the task would show RUNNING and consume nothing, silently,
        for ever. After twice the session timeout it says so (status trace, log); after
        five times it rejoins with a fresh consumer (``unassigned-rejoin-total``). The
        rejoin waits longer because closing a consumer while its join is merely slow is
        what wedges that broker's group. Returns True when it rejoined.
        """
        since = self._unassigned_since
        if since is None or self.assigned:
            return False
        now = time.monotonic() if now is None else now
        waited = now - since
        told = self.unassigned_timeout_s()
        if waited <= told:
            return False
        if not self._subscribed_topic_exists():
            # librdkafka joins only once a subscribed topic exists: waiting, not stalled.
            self._unassigned_since = now
            return False
        rejoin = waited > 2.5 * told
        if not rejoin and self._stall_told:
            return False
        message = (
            f"{self._label}: the consumer group {self.consumer_config.get('group.id')!r} has "
            f"assigned this task nothing for {waited:.0f}s (more than twice session.timeout.ms)"
            + (
                "; rejoining with a fresh consumer. If this repeats, check the broker's group "
                "coordinator"
                if rejoin
                else f"; it rejoins with a fresh consumer after {2.5 * told:.0f}s"
            )
        )
        log.warning("%s", message)
        if self.runner.status.state is State.RUNNING:
            self.runner.status.set(State.RUNNING, ConnectError(message))
        if not rejoin:
            self._stall_told = True
            return False
        self._stall_told = False
        self.metrics.unassigned_rejoins += 1
        old = self.consumer
        self._closed = True  # no callbacks from the old consumer's close
        try:
            old.close()
        except Exception as exc:
            log.warning("sink task %s: closing the stalled consumer: %s", self.name, exc)
        finally:
            self._closed = False
        self.consumer = Consumer(
            self.kafka.config({**self.consumer_config, **(self._consumer_overrides or {})})
        )
        self.subscribe()
        return True

    def _subscribed_topic_exists(self) -> bool:
        """Whether any topic the task subscribes to exists (one metadata request)."""
        try:
            topics = self.consumer.list_topics(timeout=5).topics
        except KafkaException:
            return False
        for wanted in self.subscription:
            if wanted.startswith("^"):
                pattern = re.compile(wanted)
                if any(pattern.fullmatch(t) for t in topics):
                    return True
            elif wanted in topics:
                return True
        return False

    def open_partitions(self, partitions: Sequence[TopicPartition]) -> None:
        """Hand the task partitions chosen by the engine (no group): ``SinkTask.open``."""
        self.assigned = set(partitions)
        self.task.open(list(partitions))

    def close_partitions(self, partitions: Sequence[TopicPartition] | None = None) -> None:
        """``SinkTask.close`` on ``partitions`` (default: every assigned one, if any)."""
        if partitions is None:
            if not self.assigned:
                return
            partitions = sorted(self.assigned)
        self.task.close(list(partitions))

    def take_seeks(self) -> dict[TopicPartition, int]:
        """The offsets the task asked to rewind to (``context.offset``), forgotten here."""
        seeks, self.context.seeks = self.context.seeks, {}
        return seeks

    def take_commit_request(self) -> bool:
        """Whether the task asked for a commit (``context.request_commit``) since last asked."""
        requested = self.context.commit_requested
        self.context.commit_requested = False
        return requested

    def assign(self, positions: Mapping[TopicPartition, int]) -> None:
        """Read ``positions`` without a group (the engine plans and commits offsets)."""
        self.consumer.assign(
            [KafkaTopicPartition(tp.topic, tp.partition, positions[tp]) for tp in sorted(positions)]
        )

    def consume(self, max_messages: int, timeout_s: float) -> list[Any]:
        """Up to ``max_messages`` consumed messages (errors included), waiting ``timeout_s``."""
        messages: list[Any] = self.consumer.consume(max_messages, timeout_s)
        return messages

    def positions(self, partitions: Sequence[TopicPartition]) -> dict[TopicPartition, int]:
        """The consumer's next offset in each of ``partitions``."""
        return {
            TopicPartition(kp.topic, kp.partition): kp.offset
            for kp in self.consumer.position(
                [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
            )
        }

    def high_watermarks(
        self, partitions: Sequence[TopicPartition]
    ) -> tuple[tuple[str, int, int], ...]:
        """(topic, partition, high watermark) as the consumer's fetches last saw them."""
        highs = []
        for tp in partitions:
            try:
                _, high = self.consumer.get_watermark_offsets(
                    KafkaTopicPartition(tp.topic, tp.partition), cached=True
                )
            except Exception:
                continue
            if high is not None and high >= 0:
                highs.append((tp.topic, tp.partition, int(high)))
        return tuple(highs)

    def flush_errors(self) -> None:
        """Wait until records reported to the DLQ are there (before committing past them)."""
        self.errors.flush()

    def close(self) -> None:
        """Stop the plugin task (once), then close the consumer and the pipeline's plugins."""
        self._closed = True
        try:
            self.runner.stop_plugin_task()
        finally:
            self._release()

    def _release(self) -> None:
        """Close the consumer and the pipeline's plugins (after the plugin task stopped)."""
        try:
            self.consumer.close()
        finally:
            self.kafka.close()
            self.converters.close()
            self.transforms.close()
            self.errors.close()
            self.runner.close_plugin_metrics()

    def apply_seeks(self) -> None:
        """Move the consumer to the offsets the task asked for (``context.offset``)."""
        if not self.context.seeks:
            return
        seeks, self.context.seeks = self.context.seeks, {}
        for tp, offset in seeks.items():
            if tp in self.assigned:
                self.consumer.seek(KafkaTopicPartition(tp.topic, tp.partition, offset))
                self.current[tp] = offset

    def deliver(self, messages: list[Any]) -> None:
        """Convert, transform and put consumed messages; fatal consumer errors raise."""
        columns = _COLUMNS(messages) if _COLUMNS is not None and messages else None
        if columns is not None:  # no message carries an error: read in one pass
            good = messages
        else:
            # One C-level pass finds an error (a KafkaError is truthy), with no list.
            good = (
                self._without_errors(messages, list(map(_error, messages)))
                if any(map(_error, messages))
                else messages
            )
            if not good:
                return
            columns = _read_columns(good)
        count = len(good)
        self.runner.records_in += count
        metrics = self.metrics
        metrics.read_total += count
        metrics.batch_size.record(count)
        self._batch, self._batch_index = good, None
        # Each message's fields, read once: the records are made of them, and the offsets
        # to commit of their coordinates.
        topics, partitions, offsets = columns[0], columns[1], columns[2]
        one_topic = topics.count(topics[0]) == count
        batch: SinkBatch | None
        try:
            batch = self._to_batch(good, columns, one_topic)
        except Exception:
            batch = None
        records: list[SinkRecord] | SinkBatch
        if batch is None:
            # Only a batch that failed pays for per-record conversion, to find the culprits;
            # outside the except block, so that a record's own error is not chained to the
            # batch's (its log line and DLQ trace show only its cause).
            records = self._to_records_one_by_one(good)
        elif self.columnar:
            records = batch  # put_batch: no SinkRecord is made
        else:
            records = batch.records()
        if len(self.transforms):
            records = self._transform(_as_records(records))
        self._put(records)
        self.runner.records_out += len(records)
        metrics.send_total += len(records)
        # The last offset of each partition in the batch. The usual batch is of one
        # partition: two C-level counts say so, and its last message has the offset.
        last: dict[Any, Any]
        if one_topic and partitions.count(partitions[0]) == count:
            last = {(topics[0], partitions[0]): offsets[-1]}
        else:  # dict keeps the last value per key
            last = dict(zip(zip(topics, partitions, strict=True), offsets, strict=True))
        current = self.current
        for (topic, partition), offset in last.items():
            current[TopicPartition(topic, partition)] = offset + 1

    def _without_errors(self, messages: list[Any], errors: list[Any]) -> list[Any]:
        """The messages that carry no error; a fatal error raises, others are logged."""
        good = []
        for m, err in zip(messages, errors, strict=True):
            if err is None:
                good.append(m)
            elif err.fatal() or err.code() in _REFUSED_FOR_GOOD:
                hint = _REFUSED_FOR_GOOD.get(
                    err.code(), "check the broker and the consumer.* settings"
                )
                raise ConnectError(
                    f"{self._label}: consumer error at stage {Stage.KAFKA_CONSUME}: {err.str()}; "
                    f"{hint}, then restart the task"
                )
            elif err.code() != KafkaError._PARTITION_EOF:
                # e.g. a subscribed topic that does not exist yet: Kafka Connect waits for it.
                log.debug("sink task %s: %s", self.name, err.str())
        return good

    def _to_batch(self, messages: list[Any], columns: _Columns, one_topic: bool) -> SinkBatch:
        """Consumed messages (and their fields, as columns) as a SinkBatch: converters
        called once per batch, no per-record Python call beyond the converters' own."""
        topics, partitions, offsets, raw_keys, raw_values, raw_headers = columns
        conv = self.converters
        count = len(messages)
        key_schemas: Sequence[Any]
        keys: Sequence[Any]
        value_schemas: Sequence[Any]
        values: Sequence[Any]
        if one_topic:
            # The usual batch: each converter answers with columns, no pair per record.
            topic = topics[0]
            key_schemas, keys = conv.key.to_connect_columns(topic, raw_keys)
            value_schemas, values = conv.value.to_connect_columns(topic, raw_values)
            what = "to_connect_columns must return one schema and one value per item"
            sizes = {len(key_schemas), len(keys), len(value_schemas), len(values)}
        else:
            key_pairs = conv.key.to_connect_batch(list(zip(topics, raw_keys, strict=True)))
            value_pairs = conv.value.to_connect_batch(list(zip(topics, raw_values, strict=True)))
            what = "to_connect_batch must return one per item"
            sizes = {len(key_pairs), len(value_pairs)}
            key_schemas, keys = list(map(_first, key_pairs)), list(map(_second, key_pairs))
            value_schemas = list(map(_first, value_pairs))
            values = list(map(_second, value_pairs))
        if sizes != {count}:
            raise ConnectError(
                f"{self._label}: a converter returned {len(keys)} keys and {len(values)} values "
                f"for {count} messages; {what}"
            )
        headers: list[Headers]
        first = raw_headers[0]
        if raw_headers.count(None) == count:
            headers = [Headers.EMPTY] * count
        elif (
            one_topic
            and getattr(conv.header, "deterministic", False)
            and raw_headers.count(first) == count
            and _immutable(read := conv.headers_from_kafka(topics[0], first))
        ):
            # Every message carries the same headers (a static InsertHeader upstream, a
            # producer's fixed tags): read once, and the records share the immutable result.
            headers = [read] * count
        else:
            from_kafka = conv.headers_from_kafka
            headers = [from_kafka(t, h) for t, h in zip(topics, raw_headers, strict=True)]
        # Read from the messages only if asked for: most sinks never look at them.
        stamps = _Timestamps(messages)
        return SinkBatch(
            topics=topics,
            kafka_partitions=partitions,
            kafka_offsets=offsets,
            key_schemas=key_schemas,
            keys=keys,
            value_schemas=value_schemas,
            values=values,
            timestamps=_Column(stamps, 0),
            timestamp_types=_Column(stamps, 1),
            headers=headers,
        )

    def _to_records_one_by_one(self, messages: list[Any]) -> list[SinkRecord]:
        conv = self.converters
        retry = self.errors.retry
        records = []
        for m in messages:
            topic = m.topic()
            stage, executing = Stage.KEY_CONVERTER, class_name(conv.key)
            try:
                key_schema, key = retry(stage, partial(_one, conv.key, topic, m.key()))
                stage, executing = Stage.VALUE_CONVERTER, class_name(conv.value)
                value_schema, value = retry(stage, partial(_one, conv.value, topic, m.value()))
                stage, executing = Stage.HEADER_CONVERTER, class_name(conv.header)
                headers = retry(stage, partial(conv.headers_from_kafka, topic, m.headers()))
            except Exception as exc:
                self._message_failed(m, stage, executing, exc)
                continue
            records.append(sink_record(m, (key_schema, key), (value_schema, value), headers))
        return records

    def _transform(self, records: list[SinkRecord]) -> list[SinkRecord]:
        try:
            return self.transforms.apply_batch(records)
        except Exception:
            pass
        out: list[SinkRecord] = []
        apply = self.transforms.apply_batch
        for record in records:
            try:
                out.extend(self.errors.retry(Stage.TRANSFORMATION, partial(apply, [record])))
            except Exception as exc:
                executing = executing_class(exc, class_name(TransformChain))
                message = self._message_for(record)
                if message is not None:
                    self._message_failed(message, Stage.TRANSFORMATION, executing, exc)
                else:
                    self._record_failed(record, Stage.TRANSFORMATION, executing, exc)
        return out

    # -- failures --------------------------------------------------------------------------
    def _message_failed(
        self, m: Any, stage: Stage, executing: str, exc: BaseException
    ) -> Future[None] | None:
        """A consumed message failed for good: fail the task, or log/DLQ it and skip it."""
        failure = Failure(
            stage,
            exc,
            executing,
            topic=m.topic(),
            partition=str(m.partition()),
            offset=str(m.offset()),
            record=lambda: f"key={m.key()!r} value={m.value()!r} headers={m.headers()!r}",
        )
        self.errors.failed(failure)
        ts_type, ts = m.timestamp()
        return self.errors.to_dlq(failure, m.key(), m.value(), m.headers(), ts if ts_type else None)

    def _record_failed(
        self, record: SinkRecord, stage: Stage, executing: str, exc: BaseException
    ) -> Future[None] | None:
        """As _message_failed, for a record whose consumed bytes are gone: converted back."""
        failure = Failure(
            stage,
            exc,
            executing,
            topic=record.original_topic,
            partition=str(record.original_kafka_partition),
            offset=str(record.original_kafka_offset),
            record=lambda: repr(record),
        )
        self.errors.failed(failure)
        conv = self.converters
        topic = record.topic
        try:
            key = conv.key.from_connect_data(topic, record.key_schema, record.key)
            value = conv.value.from_connect_data(topic, record.value_schema, record.value)
            headers = conv.headers_to_kafka(topic, record.headers)
        except Exception:
            log.exception(
                "%s: cannot convert an errant record back to bytes for the DLQ", self._label
            )
            return None
        return self.errors.to_dlq(failure, key, value, headers, record.timestamp)

    def _message_for(self, record: SinkRecord) -> Any:
        """The consumed message a record of the current batch came from, if any."""
        if self._batch_index is None:
            self._batch_index = {(m.topic(), m.partition(), m.offset()): m for m in self._batch}
        return self._batch_index.get(
            (record.original_topic, record.original_kafka_partition, record.original_kafka_offset)
        )

    def report_errant(self, record: SinkRecord, error: BaseException, stage: Stage) -> Future[None]:
        """Report one record the task could not write (errant record reporter, put errors)."""
        executing = class_name(self.task)
        message = self._message_for(record)
        if message is not None:
            future = self._message_failed(message, stage, executing, error)
        else:
            future = self._record_failed(record, stage, executing, error)
        if future is None:
            future = Future()
            future.set_result(None)
        return future

    def _put(self, records: list[SinkRecord] | SinkBatch) -> None:
        started = time.monotonic()
        put: Any = self.task.put_batch if isinstance(records, SinkBatch) else self.task.put
        while True:
            try:
                put(records)
                break
            except RetriableError as exc:
                self.metrics.errors.record_failures += len(records)
                self.metrics.errors.retries += 1
                wait_ms = self.context.timeout_ms or 1000
                log.warning(
                    "sink task %s: put raised a retriable error; redelivering %d records in %d ms: %s",
                    self.name,
                    len(records),
                    wait_ms,
                    exc,
                )
                self.consumer.pause(
                    [KafkaTopicPartition(tp.topic, tp.partition) for tp in self.assigned]
                )
                try:
                    if self.runner.wait_stopping(wait_ms / 1000):
                        raise ConnectError(f"{self._label}: stopped while retrying put") from exc
                finally:
                    self.runner.beat()
                    self.consumer.resume(
                        [KafkaTopicPartition(tp.topic, tp.partition) for tp in self.assigned]
                    )
            except Exception as exc:
                if not self._tolerated_with_records(exc, Stage.TASK_PUT):
                    raise self._put_failed(records, exc) from exc
                break
        self.metrics.put_batch_ms.record((time.monotonic() - started) * 1000)

    def _tolerated_with_records(self, exc: BaseException, stage: Stage) -> bool:
        """An error naming the records it failed on (``records``): report those, go on."""
        failed = failed_records(exc)
        if not isinstance(exc, ConnectError) or failed is None or not self.errors.tolerate_all:
            return False
        for record in failed:
            self.report_errant(record, exc, stage)
        log.warning(
            "sink task %s: %d records failed at stage %s and were reported as errant: %s",
            self.name,
            len(failed),
            stage,
            exc,
        )
        return True

    def _put_failed(self, records: list[SinkRecord] | SinkBatch, exc: Exception) -> ConnectError:
        where = "an empty batch"
        if len(records):
            first, last = _first_and_last(records)
            where = (
                f"{len(records)} records from topic {first.topic!r} partition {first.kafka_partition} "
                f"offset {first.kafka_offset} to topic {last.topic!r} partition "
                f"{last.kafka_partition} offset {last.kafka_offset}"
            )
        if self.errors.tolerate_all:
            return ConnectError(
                f"{self._label}: SinkTask.put failed at stage {Stage.TASK_PUT} on {where}: "
                f"{type(exc).__name__}: {exc}; errors.tolerance=all does not cover put: the task "
                "must report bad records with context.errant_record_reporter (or raise an error "
                "with a 'records' attribute); offsets of this batch are not committed"
            )
        return tolerance_exceeded(self._label, Stage.TASK_PUT, where, exc)

    def commit(self, only: set[TopicPartition] | None = None) -> None:
        """Commit to the group the offsets ``pre_commit`` reports durable (``only`` these)."""
        current = {tp: o for tp, o in self.current.items() if only is None or tp in only}
        if not current:
            return
        started = time.monotonic()
        to_commit = self.pre_commit(current)
        if to_commit is None:
            return
        self._record_lag()
        offsets = [
            KafkaTopicPartition(tp.topic, tp.partition, off)
            for tp, off in to_commit.items()
            if tp in self.assigned and self.committed.get(tp) != off
        ]
        if not offsets:
            return
        try:
            # Records reported to the DLQ must be there before offsets past them are committed.
            self.errors.flush()
        except ConnectError as exc:
            log.warning("sink task %s: %s; will retry next interval", self.name, exc)
            return
        try:
            self.consumer.commit(offsets=offsets, asynchronous=False)
        except KafkaException as exc:
            log.warning(
                "sink task %s: offset commit failed (will retry next interval): %s", self.name, exc
            )
            return
        for tp in offsets:
            self.committed[TopicPartition(tp.topic, tp.partition)] = tp.offset
        self.metrics.offset_commit_completions += 1
        self.metrics.offset_commit_ms.record((time.monotonic() - started) * 1000)

    def pre_commit(self, current: Mapping[TopicPartition, int]) -> dict[TopicPartition, int] | None:
        """The offsets pre_commit reports durable; None when it failed (and was handled)."""
        try:
            return dict(self.task.pre_commit(dict(current)))
        except Exception as exc:
            if self._tolerated_with_records(exc, Stage.TASK_PUT):
                return dict(current)
            self._pre_commit_failed(current, exc)
            return None

    def _record_lag(self) -> None:
        lag = 0
        for tp, position in self.current.items():
            try:
                _low, high = self.consumer.get_watermark_offsets(
                    KafkaTopicPartition(tp.topic, tp.partition), cached=True
                )
            except KafkaException:
                continue
            if high >= 0 and high - position > lag:
                lag = high - position
        self.metrics.record_lag_max = lag

    def _pre_commit_failed(self, current: Mapping[TopicPartition, int], exc: Exception) -> None:
        if not self.rewind_on_failed_pre_commit:
            # As Kafka Connect: not a task failure. Nothing is committed, so the next cycle
            # starts again from the last committed offsets (no rewind needed).
            log.error(
                "%s: pre_commit failed; this cycle's offsets are not committed",
                self._label,
                exc_info=exc,
            )
            return
        # As Kafka Connect: a failed flush/pre_commit does not fail the task; we rewind to
        # the last committed offsets so nothing unflushed is skipped.
        log.error(
            "sink task %s: pre_commit failed; rewinding to the last committed offsets",
            self.name,
            exc_info=exc,
        )
        self._rewind(current)

    def _rewind(self, current: Mapping[TopicPartition, int]) -> None:
        for tp in current:
            committed = self.committed.get(tp)
            if committed is None:
                got = self.consumer.committed(
                    [KafkaTopicPartition(tp.topic, tp.partition)], timeout=10
                )
                committed = (
                    got[0].offset if got and got[0].offset != OFFSET_INVALID else OFFSET_BEGINNING
                )
            self.consumer.seek(KafkaTopicPartition(tp.topic, tp.partition, committed))
            self.current[tp] = committed
