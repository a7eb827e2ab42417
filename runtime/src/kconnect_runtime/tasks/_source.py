"""The source side of the data path: poll → transforms → converters → Kafka producer.

Offsets are committed only for records the broker acknowledged, and only up to the first
record still in flight: a batch's source offsets become committable once it and every
batch before it are fully acknowledged (at-least-once, as Kafka Connect's SubmittedRecords).
"""

from __future__ import annotations

import collections
import logging
import weakref
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import repeat
from operator import attrgetter, length_hint
from typing import Any, Protocol, TypeVar, runtime_checkable

from confluent_kafka import TIMESTAMP_NOT_AVAILABLE, KafkaError, KafkaException, Producer
from kconnect_sdk import (
    ConnectError,
    Headers,
    PluginMetrics,
    PluginMetricsGroup,
    RecordMetadata,
    RetriableError,
    SourceBatch,
    SourceRecord,
    SourceTask,
    TransactionContext,
    optional_speedups,
)
from kconnect_sdk.kafka_clients import security_settings

from kconnect_runtime.config import kafka_client_config, topic_creation_group
from kconnect_runtime.errors import (
    ErrorHandler,
    Failure,
    Stage,
    class_name,
    executing_class,
    source_record_json,
)
from kconnect_runtime.storage import OffsetStore, TaskOffsetReader, offset_key

from ._chain import Converters, TransformChain
from ._kafka_clients import (
    TOPIC_LOST_ERRORS,
    AckStallWatch,
    TaskKafkaClient,
    delivery_failure_message,
    kafka_logging,
    topic_lost_message,
)
from ._runner import TaskRunner, now

__all__ = ["SourceContext", "SourcePipeline"]

log = logging.getLogger("kconnect.source")

# Record fields read for a whole batch in C (``map(_topic, records)``), not per record in Python.
_key_item = attrgetter("topic", "key_schema", "key")
_value_item = attrgetter("topic", "value_schema", "value")
_topic = attrgetter("topic")
_kafka_partition = attrgetter("kafka_partition")
_headers = attrgetter("headers")
_timestamp = attrgetter("timestamp")
_source_partition = attrgetter("source_partition")
_T = TypeVar("_T")
_ANY_PARTITION = -1  # librdkafka's RD_KAFKA_PARTITION_UA: the configured partitioner chooses

_PartitionOffsets = dict[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]
# Takes a record the cluster lost with its topic: the topic and its produce arguments
# (on_delivery included), to send it again as it was.
_LostRecord = Callable[[str, dict[str, Any]], None]
_Ack = Callable[[KafkaError | None, Any], None]
# How long a topic created again may take until the producer can write to it.
_RESTORE_TIMEOUT_S = 30.0
# kconnect-speedups' AckCounter (successful delivery reports counted in C), or None.
_SPEEDUPS: Any = optional_speedups("kconnect_speedups._acks", reads_layout=False)
# Whether a task whose successes need no report has its batches acknowledged by reference
# (_Delivery); else each report is counted (AckCounter or _InFlightBatch.ack).
_BY_REFERENCE = True
# confluent-kafka's producer setting for reports of failures only (the worker's own).
_ONLY_ERRORS = "delivery.report.only.error"


class _Delivery:
    """The on_delivery callable of a batch's records when the producer reports only
    failures (``delivery.report.only.error``: a success then makes no Message and no Python
    call). confluent-kafka holds a reference to it for each record until that record's
    report is served, so the batch is acknowledged once its last reference goes."""

    __slots__ = ("__weakref__", "on_error")

    def __init__(self, on_error: _Ack) -> None:
        self.on_error = on_error

    def __call__(self, err: KafkaError | None, msg: Any) -> None:
        if err is not None:
            self.on_error(err, msg)


class _InFlightBatch:
    """Records of one poll awaiting acknowledgement, and the offsets they will commit."""

    __slots__ = (
        "_by_reference",
        "_counter",
        "_delivery",
        "_remaining",
        "count",
        "error",
        "error_topic",
        "lost",
        "offsets",
        "polled",
        "refused",
        "sent",
    )

    def __init__(
        self,
        count: int,
        offsets: _PartitionOffsets,
        polled: int,
        lost: _LostRecord | None,
        by_reference: bool = False,
    ) -> None:
        self.sent = now()  # how long its acknowledgements take
        self.count = count  # records that will have been written once all are acknowledged
        # Records not acknowledged yet: counted by kconnect-speedups' AckCounter when it is
        # installed (a success then costs no Python call), else here. By reference (the
        # producer reports only failures): acknowledged once its _Delivery is gone.
        self._remaining = count
        self._by_reference = by_reference
        self._delivery: weakref.ref[_Delivery] | None = None
        self._counter: Any = (
            None if _SPEEDUPS is None or by_reference else _SPEEDUPS.AckCounter(count, self.ack)
        )
        self.offsets = offsets
        self.polled = polled
        self.error: KafkaError | None = None
        self.error_topic = ""
        self.refused: list[tuple[KafkaError, Any]] = []  # tolerated broker refusals
        # Where a record goes that the cluster lost with its topic: it is sent again once
        # the topic is back, and stays unacknowledged until then (None: it fails the task).
        self.lost = lost

    def ack_tolerant(self, err: KafkaError | None, msg: Any) -> None:
        # errors.tolerance=all (KIP-779): a refused record is skipped, its offset committed.
        # A lost topic is no refusal of the record: skipping would drop all sent to it.
        if err is not None:
            if self.lost is not None and err.name() in TOPIC_LOST_ERRORS:
                self.lost(msg.topic(), _produced_as(msg, self._again(self.ack_tolerant)))
                return
            self.refused.append((err, msg))
            self.count -= 1
        self.remaining -= 1

    @property
    def remaining(self) -> int:
        if self._delivery is not None:  # by reference: all or nothing
            return 0 if self._delivery() is None else max(1, self._remaining)
        counter = self._counter
        return self._remaining if counter is None else int(counter.remaining)

    @remaining.setter
    def remaining(self, value: int) -> None:
        if self._counter is None:
            self._remaining = value
        else:
            self._counter.remaining = value

    def on_delivery(self, tolerant: bool) -> _Ack:
        """The on_delivery callable of the batch's records: :meth:`ack_tolerant` when
        errors are tolerated, else :meth:`ack` or the counter that calls it only for a
        report with an error; by reference, the batch's :class:`_Delivery` for either."""
        handler = self.ack_tolerant if tolerant else self.ack
        if self._by_reference:
            live = None if self._delivery is None else self._delivery()
            if live is None:
                live = _Delivery(handler)
                self._delivery = weakref.ref(live)
            return live
        if tolerant or self._counter is None:
            return handler
        counter: _Ack = self._counter
        return counter

    def _again(self, handler: _Ack) -> _Ack:
        """The on_delivery of a record sent again: the batch's _Delivery while it lives
        (the record keeps the batch unacknowledged until its own report), else ``handler``."""
        live = None if self._delivery is None else self._delivery()
        return handler if live is None else live

    def skip(self) -> None:
        """A record of this batch failed and was tolerated: it is done but not written."""
        self.count -= 1
        self.remaining -= 1

    def ack(self, err: KafkaError | None, msg: Any) -> None:
        # Runs on the task thread, inside producer.poll()/flush().
        if err is not None:
            if self.lost is not None and err.name() in TOPIC_LOST_ERRORS:
                self.lost(msg.topic(), _produced_as(msg, self._again(self.ack)))
                return
            if self.error is None:
                self.error = err
                self.error_topic = msg.topic()
        self.remaining -= 1

    def kept(self, ack: _Ack, kwargs: dict[str, Any]) -> _Ack:
        """``ack`` for a record produced with ``kwargs`` (its on_delivery aside), kept to
        send it again as it was: a report carries no headers, nor whether the partition
        was chosen. ``kwargs`` must not hold the callable returned: a reference cycle
        would keep a batch acknowledged by reference unacknowledged until the collector
        ran."""
        return partial(self._ack_kept, ack, kwargs)

    def _ack_kept(
        self, ack: _Ack, kwargs: dict[str, Any], err: KafkaError | None, msg: Any
    ) -> None:
        if err is not None and self.lost is not None and err.name() in TOPIC_LOST_ERRORS:
            self.lost(msg.topic(), {**kwargs, "on_delivery": self.kept(ack, kwargs)})
            return
        ack(err, msg)


def _produced_as(msg: Any, on_delivery: _Ack) -> dict[str, Any]:
    """The produce arguments of a record of the usual batch (no headers, no chosen
    partition), from its delivery report."""
    kwargs: dict[str, Any] = {"key": msg.key(), "value": msg.value()}
    kind, timestamp = msg.timestamp()
    if kind != TIMESTAMP_NOT_AVAILABLE and timestamp > 0:
        kwargs["timestamp"] = timestamp
    kwargs["on_delivery"] = on_delivery
    return kwargs


@runtime_checkable
class ForwardsCommitRecord(Protocol):
    """A task that stands for one in another process (an isolated plugin's proxy): it says
    whether the task behind it implements ``commit_record``."""

    @property
    def forwards_commit_record(self) -> bool: ...


class SourceContext:
    """The SourceTaskContext a source task gets: its config and its connector's offsets."""

    def __init__(
        self,
        configs: Mapping[str, str],
        reader: TaskOffsetReader,
        transactions: TransactionContext | None = None,
        progress: Any = None,  # the runner's report_progress
        plugin_metrics: PluginMetrics | None = None,
    ) -> None:
        self._configs = configs
        self._reader = reader
        self._transactions = transactions
        self._progress = progress
        self._plugin_metrics = plugin_metrics or PluginMetricsGroup({})

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> TaskOffsetReader:
        return self._reader

    def transaction_context(self) -> TransactionContext | None:  # KIP-618
        """Set only with exactly-once enabled and ``transaction.boundary=connector``."""
        return self._transactions

    @property
    def plugin_metrics(self) -> PluginMetrics:  # KIP-877
        return self._plugin_metrics

    def report_progress(self, done: int, total: int | None = None) -> None:
        """A snapshot's or bulk load's rows done, of about ``total``: status, metrics, log."""
        if self._progress is not None:
            self._progress(done, total)


class SourcePipeline:
    """A source task's data path, as methods an engine drives: no loop of its own.

    ``open`` and ``start_task`` begin; then, as often as the engine likes,
    ``poll_and_send`` (poll → transforms → converters → producer), ``serve_acks``
    (delivery reports make batches' offsets committable) and ``commit_offsets``;
    ``drain_and_commit`` and ``close`` end. The local engine drives it on a thread until
    stopped, the spark engine's executor for one bounded cycle.

    Args:
        runner: The task's state (status, counters, metrics, stop flag).
        task: The plugin task (or its isolation proxy).
        converters: The connector's key, value and header converters.
        transforms: The connector's transform chain.
        offset_store: Where committed source offsets are read and written.
        known_topics: Topics known to exist already (shared by a process's cycles).
    """

    def __init__(
        self,
        runner: TaskRunner,
        task: SourceTask,
        *,
        converters: Converters,
        transforms: TransformChain[SourceRecord],
        offset_store: OffsetStore,
        known_topics: set[str] | None = None,
    ) -> None:
        spec = runner.spec
        self.runner = runner
        self.task = task
        self.name = spec.name
        self.task_config = spec.task_config
        self.converters = converters
        self.transforms = transforms
        self.columnar = (
            not len(transforms)
            and type(task).poll_batch is not SourceTask.poll_batch
            and type(task).commit_record is SourceTask.commit_record
        )
        """Whether the task is polled for columns (``poll_batch``): its class overrides it,
        not ``commit_record`` (which takes records), and the connector has no transforms."""
        self.producer_config = dict(spec.client_config)
        self.offset_store = offset_store
        self.flush_timeout_s = spec.flush_timeout_s
        self.metrics = runner.metrics
        self._in_flight: collections.deque[_InFlightBatch] = collections.deque()
        self._committable: _PartitionOffsets = {}
        # Records the cluster lost with their topic, in the order their reports came:
        # (topic, produce arguments with their on_delivery), sent again once it is back.
        self._lost: list[tuple[str, dict[str, Any]]] = []
        # Set once a record failed for good: nothing after it becomes committable, so a
        # restart sends it again (and everything after it) and none is lost.
        self._delivery_failed = False
        # Whether lost records may be sent again: not from inside a transaction, whose
        # records stand or fall together.
        self._sends_again = True
        # Whether batches are acknowledged by reference (set by open() with the producer).
        self._by_reference = False
        # (partitions, replication factor) for topics this task writes to that do not exist
        # yet (Kafka's topic.creation.default.*); None leaves creation to the broker.
        self.topic_creation = spec.topic_creation
        # The connector's topic.creation.* keys: its groups, and each group's topic configs.
        self._topic_creation_props = {
            k: str(v) for k, v in spec.connector_config.items() if k.startswith("topic.creation.")
        }
        self.known_topics: set[str] = set(known_topics or ())
        # Every topic this task has written to (Kafka's topic tracking, GET /connectors/{c}/topics).
        self.active_topics: set[str] = set()
        runner.track_topics(lambda: self.active_topics, self.active_topics.clear)
        self._label = f"connector {spec.id.connector!r} task {spec.id.task}"

    # -- lifecycle --------------------------------------------------------------------
    def open(self) -> None:
        """Create the error handler (and its DLQ producer) and the task's producer."""
        self.errors: ErrorHandler = self.runner.error_handler(
            str(self.producer_config["bootstrap.servers"]), self.producer_config
        )
        self.kafka = TaskKafkaClient(self.runner, "producer", self.producer_config)
        config = self.kafka.config(self.producer_config)
        self._sends_again = "transactional.id" not in self.producer_config
        # A batch acknowledged by reference (see _Delivery) needs no report of a success:
        # not for a task that takes commit_record (each success carries its metadata), one
        # in a plugin host (whether it does is known only once the host runs), nor within
        # transactions.
        task = self.task
        self._by_reference = (
            _BY_REFERENCE
            and self._sends_again
            and not isinstance(task, ForwardsCommitRecord)
            and type(task).commit_record is SourceTask.commit_record
        )
        asked = config.get(_ONLY_ERRORS)
        if asked is not None and str(asked).strip().lower() != str(self._by_reference).lower():
            log.warning(
                "%s: producer setting %s=%s is ignored: the worker sets it (%s) as it "
                "acknowledges this task's records",
                self._label,
                _ONLY_ERRORS,
                asked,
                str(self._by_reference).lower(),
            )
        config[_ONLY_ERRORS] = self._by_reference
        self.producer = Producer(config)
        self.ack_stall = AckStallWatch(self.runner, self.kafka)

    def start_task(self) -> None:
        """Initialize and start the plugin task on its connector's committed offsets."""
        connector = self.runner.id.connector
        self.task.initialize(
            SourceContext(
                self.task_config,
                TaskOffsetReader(self.offset_store, connector),
                progress=self.runner.report_progress,
                plugin_metrics=self.runner.plugin_metrics,
            )
        )
        self.task.start(self.task_config)

    def poll_and_send(self) -> int:
        """Poll the task once and send what it returned; the number of records polled."""
        started = now()
        batch: list[SourceRecord] | SourceBatch | None
        batch = self._poll(self.task.poll_batch) if self.columnar else self._poll(self.task.poll)
        if not batch:
            return 0
        count = len(batch)
        metrics = self.metrics
        self.runner.records_in += count
        metrics.poll_total += count
        metrics.active_count += count
        metrics.batch_size.record(count)
        metrics.poll_batch_ms.record((now() - started) * 1000)
        if isinstance(batch, SourceBatch):
            self._send_columns(batch)
        else:
            self._send(batch)
        return count

    def serve_acks(self, timeout_s: float = 0.0) -> None:
        """Serve the producer's delivery reports, then collect the fully acknowledged batches."""
        self.producer.poll(timeout_s)
        self._send_lost_again()
        self.collect_acks()
        # Warn when acknowledgements stall, say when they flow again
        self.ack_stall.observe(
            self._in_flight[0].sent if self._in_flight else None, self.producer, self.active_topics
        )
        missing = self.ack_stall.missing_topic
        if missing is not None and not self._delivery_failed:
            # The records wait in the producer for a topic that is gone: create it again
            # (they flow once it is back) or fail now with the cause, not at
            # delivery.timeout.ms with a timeout.
            self.ack_stall.missing_topic = None
            self._failing(self._restore_topic, missing)

    def flush(self, timeout_s: float) -> int:
        """Wait for every record to be acknowledged; how many were not, after ``timeout_s``.

        Records the cluster lost with their topic are sent again once it is back (and
        count as not acknowledged until they are).
        """
        deadline = now() + timeout_s
        while True:
            remaining: int = self.producer.flush(max(0.0, deadline - now()))
            if not self._lost or self._delivery_failed or now() >= deadline:
                return remaining + len(self._lost)
            self._send_lost_again()

    def flush_errors(self) -> None:
        """Wait until records reported to the DLQ are there (before committing past them)."""
        self.errors.flush()

    def committable_offsets(self) -> tuple[tuple[Any, Any], ...]:
        """The last (partition, offset) of each source partition whose records are all done."""
        return tuple(
            (None if p is None else dict(p), None if o is None else dict(o))
            for p, o in self._committable.values()
        )

    def _poll(self, poll: Callable[[], _T | None]) -> _T | None:
        try:
            return poll()
        except RetriableError as exc:
            # As Kafka Connect: a retriable poll failure is logged and polling goes on.
            self.metrics.errors.record_failures += 1
            self.metrics.errors.retries += 1
            log.warning(
                "source task %s: poll raised a retriable error at stage %s; polling again: %s",
                self.name,
                Stage.TASK_POLL,
                exc,
            )
            self.runner.wait_stopping(0.1)  # a poll that fails at once must not spin the CPU
            return None
        except Exception as exc:
            raise ConnectError(
                f"{self._label}: SourceTask.poll failed at stage {Stage.TASK_POLL}: "
                f"{type(exc).__name__}: {exc}; fix the cause and restart the task (only "
                "RetriableError from poll is retried)"
            ) from exc

    def _send(self, batch: list[SourceRecord]) -> None:
        offsets = self._batch_offsets(batch)
        records = self._transform(batch)
        conv = self.converters
        if records:
            try:
                # (topic, schema, value) items read in C (attrgetter), one converter call each.
                keys = conv.key.from_connect_batch(list(map(_key_item, records)))
                values = conv.value.from_connect_batch(list(map(_value_item, records)))
                if len(keys) != len(records) or len(values) != len(records):
                    raise ConnectError(
                        f"{self._label}: a converter returned {len(keys)} keys and "
                        f"{len(values)} values for {len(records)} records; "
                        "from_connect_batch must return one per item"
                    )
            except Exception:
                batch_failed = True
            else:
                batch_failed = False
            if batch_failed:
                # Only a batch that failed pays for per-record conversion, to find the
                # culprits; outside the except block, so that a record's own error is not
                # chained to the batch's (its log line and DLQ trace show only its cause).
                records, keys, values = self._convert_one_by_one(records)
        count = len(records)
        in_flight = _InFlightBatch(
            count,
            offsets,
            len(batch),
            self._keep_lost if self._sends_again else None,
            self._by_reference,
        )
        self._in_flight.append(in_flight)
        if not count:
            return
        topics = list(map(_topic, records))
        if not self.active_topics.issuperset(topics):
            if self.topic_creation is not None:
                self._ensure_topics(set(topics))
            self.active_topics.update(topics)
        ack = None
        if not self._wants_commit_record:
            ack = in_flight.on_delivery(self.errors.tolerate_all)
        partitions = list(map(_kafka_partition, records))
        headers = list(map(_headers, records))
        if (
            ack is not None
            and partitions.count(None) == count
            and headers.count(Headers.EMPTY) == count
        ):
            # The usual batch: no headers, no chosen partition, no commit_record.
            stamps = list(map(_timestamp, records))
            timestamps = (
                repeat(0, count) if stamps.count(None) == count else [ts or 0 for ts in stamps]
            )
            self._produce_all(
                topics,
                keys,
                values,
                timestamps,
                ack=ack,
                in_flight=in_flight,
                record_at=records.__getitem__,
            )
            return
        # Records that share their headers (InsertHeader gives a batch one Headers) have them
        # written once when the header converter says the same header gives the same bytes.
        deterministic = getattr(conv.header, "deterministic", False)
        last_topic: Any = None
        last_headers: Any = None
        written: Any = None
        for record, key, value in zip(records, keys, values, strict=True):
            kwargs: dict[str, Any] = {"key": key, "value": value}
            if record.kafka_partition is not None:
                kwargs["partition"] = record.kafka_partition
            shared = record.headers
            if shared:
                if not (deterministic and shared is last_headers and record.topic == last_topic):
                    try:
                        written = conv.headers_to_kafka(record.topic, shared)
                    except Exception as exc:
                        self._record_failed(
                            record, Stage.HEADER_CONVERTER, class_name(conv.header), exc
                        )
                        in_flight.skip()
                        last_headers = None
                        continue
                    last_topic, last_headers = record.topic, shared
                kwargs["headers"] = written
            if ack is None:
                callback = self._record_ack(in_flight, record, kwargs)
            elif in_flight.lost is not None:
                callback = in_flight.kept(ack, kwargs)
            else:
                callback = ack
            self._produce(record, kwargs, callback, in_flight)

    def _send_columns(self, batch: SourceBatch) -> None:
        """Send a columnar batch (one topic, one source partition, no headers, no chosen
        partition): converted by columns and produced with no record per row. A batch the
        converters fail on is sent as its records, which finds the culprits."""
        count = len(batch)
        topic, conv = batch.topic, self.converters
        try:
            keys = conv.key.from_connect_columns(
                topic, batch.key_schema, [None] * count if batch.keys is None else batch.keys
            )
            values = conv.value.from_connect_columns(topic, batch.value_schema, batch.values)
            if len(keys) != count or len(values) != count:
                raise ConnectError(
                    f"{self._label}: a converter returned {len(keys)} keys and {len(values)} "
                    f"values for {count} records; from_connect_columns must return one per value"
                )
        except Exception:
            converted = False
        else:
            converted = True
        if not converted:
            self._send(batch.records())
            return
        partition = batch.source_partition
        offsets: _PartitionOffsets = (
            {}
            if partition is None
            else {offset_key("", partition): (partition, batch.source_offset(count - 1))}
        )
        in_flight = _InFlightBatch(
            count,
            offsets,
            count,
            self._keep_lost if self._sends_again else None,
            self._by_reference,
        )
        self._in_flight.append(in_flight)
        if topic not in self.active_topics:
            if self.topic_creation is not None:
                self._ensure_topics({topic})
            self.active_topics.add(topic)
        stamps = batch.timestamps
        timestamps: Any = (
            repeat(0, count)
            if stamps is None
            else stamps
            if None not in stamps
            else [ts or 0 for ts in stamps]
        )
        records: list[SourceRecord] = []

        def record_at(row: int) -> SourceRecord:  # only for a refused record: rare
            if not records:
                records.extend(batch.records())
            return records[row]

        ack = in_flight.on_delivery(self.errors.tolerate_all)
        self._produce_all(
            repeat(topic, count),
            keys,
            values,
            timestamps,
            ack=ack,
            in_flight=in_flight,
            record_at=record_at,
        )

    def _produce_all(
        self,
        topics: Any,
        keys: Sequence[bytes | None],
        values: Sequence[bytes | None],
        timestamps: Any,
        *,
        ack: _Ack,
        in_flight: _InFlightBatch,
        record_at: Callable[[int], SourceRecord],
    ) -> None:
        """Produce the usual batch: no headers, no chosen partition, no commit_record.

        One produce call per record with nothing built per record, its arguments passed by
        position (topic, value, key, partition, on_delivery, callback, timestamp:
        confluent-kafka parses keywords ~0.4 us slower per call), the calls made by map()
        in C; a call that fails (full queue, refused) goes the general way and the rest of
        the batch the fast way again.
        """
        count = len(values)
        pending = iter(topics)
        calls = map(
            self.producer.produce,
            pending,
            iter(values),
            iter(keys),
            repeat(_ANY_PARTITION),
            repeat(ack),
            repeat(None),
            iter(timestamps),
        )
        while True:
            try:
                collections.deque(calls, 0)  # runs every call, keeps nothing
                return
            except (BufferError, KafkaException):
                # map() had taken this record's arguments from every iterator: the topics
                # left say which record it was.
                failed = count - length_hint(pending) - 1
                refused = {"key": keys[failed], "value": values[failed]}
                self._produce(record_at(failed), refused, ack, in_flight)

    def _produce(
        self, record: SourceRecord, kwargs: dict[str, Any], ack: Any, in_flight: _InFlightBatch
    ) -> None:
        """Produce one record, waiting for room in a full queue; a refusal fails or skips it."""
        if record.timestamp is not None:
            kwargs["timestamp"] = record.timestamp
        # A dict of its own: ``ack`` may hold ``kwargs`` (InFlightBatch.kept).
        produced = {**kwargs, "on_delivery": ack}
        restoring: float | None = None  # until when a lost topic is waited for
        while True:
            try:
                self.producer.produce(record.topic, **produced)
                return
            except BufferError:
                # The local queue is full: serve delivery reports until there is room.
                self.producer.poll(0.05)
                self._send_lost_again()
                self.collect_acks()
                self.runner.beat()
            except KafkaException as exc:
                if exc.args[0].name() in TOPIC_LOST_ERRORS and self._sends_again:
                    # The producer knows the topic is gone. What it failed for that topic
                    # is sent first (in order), then this record, once the topic is back.
                    self.producer.poll(0)
                    self._send_lost_again()
                    if restoring is None:
                        restoring = now() + _RESTORE_TIMEOUT_S
                    if now() < restoring:
                        if not self._failing(self._restore_topic, record.topic):
                            self.runner.wait_stopping(0.5)  # the brokers do not answer yet
                        continue
                if not self.errors.tolerate_all:
                    raise ConnectError(
                        f"{self._label}: cannot produce to topic {record.topic!r} at stage "
                        f"{Stage.KAFKA_PRODUCE}: {exc}"
                    ) from exc
                self._record_failed(record, Stage.KAFKA_PRODUCE, class_name(Producer), exc)
                in_flight.skip()
                return

    def _convert_one_by_one(
        self, records: list[SourceRecord]
    ) -> tuple[list[SourceRecord], list[bytes | None], list[bytes | None]]:
        conv = self.converters
        retry = self.errors.retry
        good: list[SourceRecord] = []
        keys: list[bytes | None] = []
        values: list[bytes | None] = []
        for r in records:
            stage, converter = Stage.KEY_CONVERTER, conv.key
            try:
                key = retry(
                    stage, partial(conv.key.from_connect_data, r.topic, r.key_schema, r.key)
                )
                stage, converter = Stage.VALUE_CONVERTER, conv.value
                value = retry(
                    stage, partial(conv.value.from_connect_data, r.topic, r.value_schema, r.value)
                )
            except Exception as exc:
                self._record_failed(r, stage, class_name(converter), exc)
                continue
            good.append(r)
            keys.append(key)
            values.append(value)
        return good, keys, values

    def _record_failed(
        self, record: SourceRecord, stage: Stage, executing: str, exc: BaseException
    ) -> None:
        """A source record failed for good: fail the task, or log/DLQ/acknowledge and skip it.

        The DLQ record's value is the source record as JSON; the partition and offset
        context headers carry the source partition and offset as JSON text.
        """
        failure = Failure.of_source_record(stage, exc, executing, record)
        self.errors.failed(failure)
        if stage is not Stage.KAFKA_PRODUCE:  # KIP-779 skips refused records; no DLQ for them
            self.errors.to_dlq(failure, None, source_record_json(record), None, record.timestamp)
        if self._wants_commit_record:
            self.task.commit_record(record, None)

    def _ensure_topics(self, topics: set[str]) -> None:
        missing = topics - self.known_topics
        if not missing or self.topic_creation is None:
            return
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        default = self.topic_creation
        admin = AdminClient(
            kafka_logging(
                kafka_client_config(
                    {
                        "bootstrap.servers": self.producer_config["bootstrap.servers"],
                        # The producer's principal creates the topics it writes to.
                        **security_settings(self.producer_config),
                    }
                ),
                f"admin client of source task {self.name}",
            )
        )
        existing = set(admin.list_topics(timeout=10).topics)
        groups = {
            t: topic_creation_group(self._topic_creation_props, t, default)
            for t in sorted(missing - existing)
        }
        to_create = [
            NewTopic(t, g.partitions, g.replication_factor, config=dict(g.configs))
            for t, g in groups.items()
        ]
        if to_create:
            for topic, future in admin.create_topics(to_create, operation_timeout=10).items():
                try:
                    future.result()
                    group = groups[topic]
                    log.info(
                        "source task %s created topic %s (topic creation group %s: %d "
                        "partitions, replication factor %d%s)",
                        self.name,
                        topic,
                        group.name,
                        group.partitions,
                        group.replication_factor,
                        "".join(f", {k}={v}" for k, v in sorted(group.configs.items())),
                    )
                except KafkaException as exc:
                    if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                        raise ConnectError(
                            f"{self._label}: cannot create topic {topic!r}: {exc}"
                        ) from exc
        self.known_topics |= missing

    @property
    def _wants_commit_record(self) -> bool:
        """Whether the task implements ``commit_record`` (else acknowledgements skip it).

        An isolated task says so for the plugin behind it once its host is running.
        """
        task = self.task
        if isinstance(task, ForwardsCommitRecord):
            return bool(task.forwards_commit_record)
        return type(task).commit_record is not SourceTask.commit_record

    def _record_ack(
        self, in_flight: _InFlightBatch, record: SourceRecord, kwargs: dict[str, Any]
    ) -> Any:
        task = self.task

        tolerate = self.errors.tolerate_all
        wants_commit_record = self._wants_commit_record
        sends_again = in_flight.lost is not None

        def on_delivery(err: KafkaError | None, msg: Any) -> None:
            if err is not None and sends_again and err.name() in TOPIC_LOST_ERRORS:
                # Sent again as it was produced (partition, headers and timestamp are in
                # ``kwargs``), with this callback: a delivery report carries no headers.
                self._keep_lost(record.topic, {**kwargs, "on_delivery": on_delivery})
                return
            if err is not None and tolerate:
                # KIP-779: a record the broker refused is skipped and acknowledged with no
                # metadata; its offset is committed with its batch.
                in_flight.ack(None, msg)
                in_flight.count -= 1
                self._record_failed(
                    record, Stage.KAFKA_PRODUCE, class_name(Producer), KafkaException(err)
                )
                return
            in_flight.ack(err, msg)
            if err is None and wants_commit_record:
                task.commit_record(
                    record,
                    RecordMetadata(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1]),
                )

        return on_delivery

    def _transform(self, batch: list[SourceRecord]) -> list[SourceRecord]:
        if not len(self.transforms):
            return batch
        if not self._wants_commit_record:
            try:
                return self.transforms.apply_batch(batch)
            except Exception:
                pass  # find the failing records one by one
        apply = self.transforms.apply_batch
        out = []
        for record in batch:
            try:
                result = self.errors.retry(Stage.TRANSFORMATION, partial(apply, [record]))
            except Exception as exc:
                executing = executing_class(exc, class_name(TransformChain))
                self._record_failed(record, Stage.TRANSFORMATION, executing, exc)
                continue
            if result:
                out.extend(result)
            elif self._wants_commit_record:
                # Kafka Connect acknowledges filtered records with no metadata.
                self.task.commit_record(record, None)
        return out

    @staticmethod
    def _batch_offsets(batch: list[SourceRecord]) -> _PartitionOffsets:
        """The last offset of each source partition in the batch."""
        offsets: _PartitionOffsets = {}
        if batch:
            # One source partition for the whole batch (a file, a table): its last offset.
            partitions = list(map(_source_partition, batch))
            last = batch[-1]
            partition = last.source_partition
            if partition is not None and partitions.count(partition) == len(partitions):
                return {offset_key("", partition): (partition, last.source_offset)}
        last_partition: Any = object()
        last_key = ""
        for record in batch:
            partition = record.source_partition
            if partition is None and record.source_offset is None:
                continue
            if partition is not last_partition and partition != last_partition:
                last_key = offset_key("", partition)
                last_partition = partition
            offsets[last_key] = (partition, record.source_offset)
        return offsets

    # -- a topic the cluster lost ------------------------------------------------------------
    def _keep_lost(self, topic: str, kwargs: dict[str, Any]) -> None:
        """Keep a record the cluster lost with its topic, to send it again."""
        self._lost.append((topic, kwargs))

    def _failing(self, step: Callable[..., bool], *args: Any) -> bool:
        """Run ``step``; a ConnectError it raises fails the task for good (nothing after
        the records that wait is committed)."""
        try:
            return step(*args)
        except ConnectError:
            self._delivery_failed = True
            raise

    def _send_lost_again(self) -> None:
        """Send again, in order, the records the cluster lost with their topic, once the
        topic is back (created again by this task or by the brokers), or fail the task."""
        if not self._lost or self._delivery_failed:
            return
        lost, self._lost = self._lost, []
        for topic in dict.fromkeys(topic for topic, _ in lost):
            if not self._failing(self._restore_topic, topic):
                self._lost[:0] = lost  # the brokers do not answer now: the next round
                return
        log.warning(
            "%s: sending %d records again that the Kafka cluster lost with topic(s) %s",
            self._label,
            len(lost),
            ", ".join(sorted({topic for topic, _ in lost})),
        )
        deadline = now() + _RESTORE_TIMEOUT_S  # for the whole round, not per record
        for sent, (topic, kwargs) in enumerate(lost):
            if not self._failing(self._produce_again, topic, kwargs, deadline):
                # Stopping: what was not sent again stays lost, and its batches are not
                # committed (a batch acknowledged by reference would be, were they dropped).
                self._lost[:0] = lost[sent:]
                return

    def _produce_again(self, topic: str, kwargs: dict[str, Any], deadline: float) -> bool:
        """Produce a lost record again, once the producer sees its topic again."""
        while True:
            try:
                self.producer.produce(topic, **kwargs)
                return True
            except BufferError:
                self.producer.poll(0.05)  # reports of records lost again join the next round
                self.runner.beat()
            except KafkaException as exc:
                if exc.args[0].name() not in TOPIC_LOST_ERRORS or now() > deadline:
                    raise ConnectError(
                        f"{self._label}: cannot send a record again to topic {topic!r}, "
                        f"which the Kafka cluster lost, at stage {Stage.KAFKA_PRODUCE}: {exc}"
                    ) from exc
                # The producer's metadata does not show the topic back yet.
                self._topic_state(topic)
                if self.runner.wait_stopping(0.1):
                    return False  # unacknowledged, so not committed: sent after a restart

    def _topic_state(self, topic: str) -> str | None:
        """``missing``, ``pending`` (no leader yet), ``ready``; None if no broker answers.

        Asked through the producer, whose metadata it refreshes: a broker with
        ``auto.create.topics.enable=true`` creates the topic on this request, as it does
        for a producer's own.
        """
        try:
            metadata = self.producer.list_topics(topic, timeout=5)
        except KafkaException:
            return None
        found = metadata.topics.get(topic)
        if found is None or (
            found.error is not None and found.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
        ):
            return "missing"
        if (
            found.error is not None
            or not found.partitions
            or any(p.leader < 0 for p in found.partitions.values())
        ):
            return "pending"
        return "ready"

    def _why_not_created_again(self) -> str:
        if not self._sends_again:
            return (
                "an exactly-once source task does not send records again outside the "
                "transaction they belong to"
            )
        enabled = str(self.runner.worker_props.get("topic.creation.enable", "true"))
        creation = (
            "the worker sets topic.creation.enable=false"
            if enabled.strip().lower() == "false"
            else "the connector sets no topic.creation.default.replication.factor and "
            "topic.creation.default.partitions"
        )
        return f"{creation}, and the brokers do not create topics on demand"

    def _restore_topic(self, topic: str) -> bool:
        """Make a topic the cluster lost writable again: created again with the
        connector's ``topic.creation.default.*`` (or by the brokers' auto-creation).

        False while no broker answers (try again later); raises ConnectError when nothing
        may create it, naming the topic and what to do.
        """
        if not self._sends_again:
            raise ConnectError(
                topic_lost_message(
                    self._label, topic, self.metrics.active_count, self._why_not_created_again()
                )
            )
        state = self._topic_state(topic)
        if state is None:
            return False
        if state == "missing":
            if self.topic_creation is None:
                raise ConnectError(
                    topic_lost_message(
                        self._label,
                        topic,
                        self.metrics.active_count,
                        self._why_not_created_again(),
                    )
                )
            partitions, replication = self.topic_creation
            log.warning(
                "%s: topic %r is gone from the Kafka cluster (deleted?); creating it again "
                "(%d partitions, replication factor %d, from topic.creation.default.*) for the "
                "%d records that wait for it",
                self._label,
                topic,
                partitions,
                replication,
                self.metrics.active_count,
            )
            self.known_topics.discard(topic)
            self._ensure_topics({topic})
        deadline = now() + _RESTORE_TIMEOUT_S
        while state != "ready":
            if now() > deadline:
                raise ConnectError(
                    f"{self._label}: topic {topic!r}, created again after the Kafka cluster "
                    f"lost it, has partitions without a leader after {_RESTORE_TIMEOUT_S:.0f} "
                    "s; check the brokers, then restart the task (offsets after the last "
                    "acknowledged record are not committed, so none is lost)"
                )
            self.runner.beat()
            if self.runner.wait_stopping(0.1):
                return False
            state = self._topic_state(topic)
        return True

    def collect_acks(self) -> None:
        """Make the offsets of fully acknowledged batches committable, in poll order.

        Raises ConnectError when the broker refused a record that is not tolerated; from
        then on no later batch becomes committable (their records are sent again after a
        restart, with the one that failed).
        """
        if self._delivery_failed:
            return
        while self._in_flight and self._in_flight[0].remaining <= 0:
            done = self._in_flight[0]
            if done.error is not None:
                self._delivery_failed = True
                if done.error.name() in TOPIC_LOST_ERRORS:
                    raise ConnectError(
                        topic_lost_message(
                            self._label,
                            done.error_topic,
                            self.metrics.active_count,
                            self._why_not_created_again(),
                        )
                    )
                raise ConnectError(  # Never advise dropping records for a timeout
                    delivery_failure_message(
                        self._label, str(Stage.KAFKA_PRODUCE), done.error, self.ack_stall.cause
                    )
                )
            self._in_flight.popleft()
            for err, msg in done.refused:
                self.errors.failed(
                    Failure(
                        Stage.KAFKA_PRODUCE,
                        KafkaException(err),
                        class_name(Producer),
                        topic=msg.topic(),
                        partition=str(msg.partition()),
                        offset=None,
                    )
                )
            self._committable.update(done.offsets)
            self.runner.records_out += done.count
            self.metrics.write_total += done.count
            self.metrics.active_count -= done.polled

    def commit_offsets(self) -> None:
        """Write the committable offsets to the offset store, then call the task's commit().

        commit() is called at every flush interval even with no new offsets, as Kafka's
        worker does: a task may hold work for it (MirrorMaker's source task sends the offset
        syncs it had to hold back then, so a quiet partition still gets its last sync).
        """
        if not self._committable:
            self._task_commit()
            return
        started = now()
        # Records sent to the DLQ must be there before offsets past them are committed.
        self.errors.flush()
        connector = self.runner.id.connector
        self.offset_store.put(
            connector, {offset_key(connector, p): (p, o) for p, o in self._committable.values()}
        )
        self.offset_store.flush()
        self._committable = {}
        self.metrics.offset_commit_ms.record((now() - started) * 1000)
        self._task_commit()

    def _task_commit(self) -> None:
        try:
            self.task.commit()
        except Exception:
            log.exception("source task %s: commit() raised", self.name)

    def drain_and_commit(self) -> None:
        """Wait for acknowledgements (up to offset.flush.timeout.ms), commit what was acknowledged."""
        if self._delivery_failed:
            # Nothing after the failed record becomes committable: waiting for more
            # acknowledgements would only hold the task back from FAILED.
            self.commit_offsets()
            return
        remaining = self.flush(self.flush_timeout_s)
        if remaining:
            log.warning(
                "source task %s: %d records were not acknowledged within offset.flush.timeout.ms; "
                "their offsets are not committed and they will be sent again",
                self.name,
                remaining,
            )
        try:
            self.collect_acks()
        finally:
            self.commit_offsets()

    def close(self) -> None:
        """Stop the plugin task (once), then close the pipeline's plugins and clients."""
        try:
            self.runner.stop_plugin_task()
        finally:
            self._release()

    def _release(self) -> None:
        self.converters.close()
        self.transforms.close()
        self.runner.close_plugin_metrics()
        self.errors.close()
        # Release librdkafka's threads now, not whenever the runner is collected
        # (older confluent-kafka clients have no close() and free it on collection).
        if self._delivery_failed:
            # close() would wait for what is still queued (for a lost topic, until librdkafka
            # gives up on it); none of it is committed, so it is sent again after a restart.
            self.producer.purge()
        close = getattr(self.producer, "close", None)
        if close is not None:
            close()
        self.kafka.close()
