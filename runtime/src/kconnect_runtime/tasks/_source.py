"""The source side of the data path: poll → transforms → converters → Kafka producer.

Offsets are committed only for records the broker acknowledged, and only up to the first
record still in flight: a batch's source offsets become committable once it and every
batch before it are fully acknowledged (at-least-once, as Kafka Connect's SubmittedRecords).
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Mapping
from functools import partial
from operator import attrgetter
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from kconnect_sdk import (
    ConnectError,
    Headers,
    RecordMetadata,
    RetriableError,
    SourceRecord,
    SourceTask,
    TransactionContext,  # issue 20
)

from kconnect_runtime.errors import (
    ErrorHandler,
    Failure,
    Stage,
    class_name,
    source_record_json,
)
from kconnect_runtime.storage import OffsetStore, TaskOffsetReader, offset_key

from ._chain import Converters, TransformChain
from ._kafka_clients import (  # issue 24
    AckStallWatch,
    TaskKafkaClient,
    delivery_failure_message,
    kafka_logging,
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
_ANY_PARTITION = -1  # librdkafka's RD_KAFKA_PARTITION_UA: the configured partitioner chooses

_PartitionOffsets = dict[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]


class _InFlightBatch:
    """Records of one poll awaiting acknowledgement, and the offsets they will commit."""

    __slots__ = ("count", "error", "offsets", "polled", "refused", "remaining", "sent")

    def __init__(self, count: int, offsets: _PartitionOffsets, polled: int) -> None:
        self.sent = now()  # issue 24: how long its acknowledgements take
        self.count = count  # records that will have been written once all are acknowledged
        self.remaining = count
        self.offsets = offsets
        self.polled = polled
        self.error: KafkaError | None = None
        self.refused: list[tuple[KafkaError, Any]] = []  # tolerated broker refusals

    def ack_tolerant(self, err: KafkaError | None, msg: Any) -> None:
        # errors.tolerance=all (KIP-779): a refused record is skipped, its offset committed.
        if err is not None:
            self.refused.append((err, msg))
            self.count -= 1
        self.remaining -= 1

    def skip(self) -> None:
        """A record of this batch failed and was tolerated: it is done but not written."""
        self.count -= 1
        self.remaining -= 1

    def ack(self, err: KafkaError | None, _msg: Any) -> None:
        # Runs on the task thread, inside producer.poll()/flush().
        if err is not None and self.error is None:
            self.error = err
        self.remaining -= 1


class SourceContext:
    """The SourceTaskContext a source task gets: its config and its connector's offsets."""

    def __init__(
        self,
        configs: Mapping[str, str],
        reader: TaskOffsetReader,
        transactions: TransactionContext | None = None,  # issue 20
        progress: Any = None,  # issue 24: the runner's report_progress
    ) -> None:
        self._configs = configs
        self._reader = reader
        self._transactions = transactions
        self._progress = progress

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> TaskOffsetReader:
        return self._reader

    def transaction_context(self) -> TransactionContext | None:  # issue 20 (KIP-618)
        """Set only with exactly-once enabled and ``transaction.boundary=connector``."""
        return self._transactions

    def report_progress(self, done: int, total: int | None = None) -> None:  # issue 24
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
        self.producer_config = dict(spec.client_config)
        self.offset_store = offset_store
        self.flush_timeout_s = spec.flush_timeout_s
        self.metrics = runner.metrics
        self._in_flight: collections.deque[_InFlightBatch] = collections.deque()
        self._committable: _PartitionOffsets = {}
        # (partitions, replication factor) for topics this task writes to that do not exist
        # yet (Kafka's topic.creation.default.*); None leaves creation to the broker.
        self.topic_creation = spec.topic_creation
        self.known_topics: set[str] = set(known_topics or ())
        # Every topic this task has written to (Kafka's topic tracking, GET /connectors/{c}/topics).
        self.active_topics: set[str] = set()
        runner.track_topics(lambda: self.active_topics)
        self._label = f"connector {spec.id.connector!r} task {spec.id.task}"

    # -- lifecycle --------------------------------------------------------------------
    def open(self) -> None:
        """Create the error handler (and its DLQ producer) and the task's producer."""
        self.errors: ErrorHandler = self.runner.error_handler(
            str(self.producer_config["bootstrap.servers"]), self.producer_config
        )
        self.kafka = TaskKafkaClient(self.runner, "producer", self.producer_config)  # issue 24
        self.producer = Producer(self.kafka.config(self.producer_config))
        self.ack_stall = AckStallWatch(self.runner, self.kafka)

    def start_task(self) -> None:
        """Initialize and start the plugin task on its connector's committed offsets."""
        connector = self.runner.id.connector
        self.task.initialize(
            SourceContext(
                self.task_config,
                TaskOffsetReader(self.offset_store, connector),
                progress=self.runner.report_progress,  # issue 24
            )
        )
        self.task.start(self.task_config)

    def poll_and_send(self) -> int:
        """Poll the task once and send what it returned; the number of records polled."""
        started = now()
        batch = self._poll()
        if not batch:
            return 0
        count = len(batch)
        metrics = self.metrics
        self.runner.records_in += count
        metrics.poll_total += count
        metrics.active_count += count
        metrics.batch_size.record(count)
        metrics.poll_batch_ms.record((now() - started) * 1000)
        self._send(batch)
        return count

    def serve_acks(self, timeout_s: float = 0.0) -> None:
        """Serve the producer's delivery reports, then collect the fully acknowledged batches."""
        self.producer.poll(timeout_s)
        self.collect_acks()
        # issue 24: warn when acknowledgements stall, say when they flow again
        self.ack_stall.observe(
            self._in_flight[0].sent if self._in_flight else None, self.producer, self.active_topics
        )

    def flush(self, timeout_s: float) -> int:
        """Wait for every record to be acknowledged; how many were not, after ``timeout_s``."""
        remaining: int = self.producer.flush(timeout_s)
        return remaining

    def flush_errors(self) -> None:
        """Wait until records reported to the DLQ are there (before committing past them)."""
        self.errors.flush()

    def committable_offsets(self) -> tuple[tuple[Any, Any], ...]:
        """The last (partition, offset) of each source partition whose records are all done."""
        return tuple(
            (None if p is None else dict(p), None if o is None else dict(o))
            for p, o in self._committable.values()
        )

    def _poll(self) -> list[SourceRecord] | None:
        try:
            return self.task.poll()
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
                # Only a batch that failed pays for per-record conversion, to find the culprits.
                records, keys, values = self._convert_one_by_one(records)
        count = len(records)
        in_flight = _InFlightBatch(count, offsets, len(batch))
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
            ack = in_flight.ack_tolerant if self.errors.tolerate_all else in_flight.ack
        partitions = list(map(_kafka_partition, records))
        headers = list(map(_headers, records))
        if (
            ack is not None
            and partitions.count(None) == count
            and headers.count(Headers.EMPTY) == count
        ):
            # The usual batch: no headers, no chosen partition, no commit_record. One
            # produce call per record with nothing built per record, its arguments passed by
            # position (topic, value, key, partition, on_delivery, callback, timestamp:
            # confluent-kafka parses keywords ~0.4 us slower per call); a call that fails
            # (full queue, refused) goes the general way below.
            produce = self.producer.produce
            for record, topic, key, value, ts in zip(
                records, topics, keys, values, map(_timestamp, records), strict=True
            ):
                try:
                    produce(topic, value, key, _ANY_PARTITION, ack, None, ts or 0)
                except (BufferError, KafkaException):
                    self._produce(record, {"key": key, "value": value}, ack, in_flight)
            return
        for record, key, value in zip(records, keys, values, strict=True):
            kwargs: dict[str, Any] = {"key": key, "value": value}
            if record.kafka_partition is not None:
                kwargs["partition"] = record.kafka_partition
            if record.headers:
                try:
                    kwargs["headers"] = conv.headers_to_kafka(record.topic, record.headers)
                except Exception as exc:
                    self._record_failed(
                        record, Stage.HEADER_CONVERTER, class_name(conv.header), exc
                    )
                    in_flight.skip()
                    continue
            self._produce(record, kwargs, ack or self._record_ack(in_flight, record), in_flight)

    def _produce(
        self, record: SourceRecord, kwargs: dict[str, Any], ack: Any, in_flight: _InFlightBatch
    ) -> None:
        """Produce one record, waiting for room in a full queue; a refusal fails or skips it."""
        if record.timestamp is not None:
            kwargs["timestamp"] = record.timestamp
        kwargs["on_delivery"] = ack
        while True:
            try:
                self.producer.produce(record.topic, **kwargs)
                return
            except BufferError:
                # The local queue is full: serve delivery reports until there is room.
                self.producer.poll(0.05)
                self.collect_acks()
                self.runner.beat()
            except KafkaException as exc:
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

        partitions, replication = self.topic_creation
        admin = AdminClient(
            kafka_logging(
                {"bootstrap.servers": self.producer_config["bootstrap.servers"]},
                f"admin client of source task {self.name}",
            )
        )
        existing = set(admin.list_topics(timeout=10).topics)
        to_create = [NewTopic(t, partitions, replication) for t in sorted(missing - existing)]
        if to_create:
            for topic, future in admin.create_topics(to_create, operation_timeout=10).items():
                try:
                    future.result()
                    log.info(
                        "source task %s created topic %s (%d partitions, replication factor %d)",
                        self.name,
                        topic,
                        partitions,
                        replication,
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
        forwards = getattr(task, "forwards_commit_record", None)
        if forwards is not None:
            return bool(forwards)
        return type(task).commit_record is not SourceTask.commit_record

    def _record_ack(self, in_flight: _InFlightBatch, record: SourceRecord) -> Any:
        task = self.task

        tolerate = self.errors.tolerate_all
        wants_commit_record = self._wants_commit_record

        def on_delivery(err: KafkaError | None, msg: Any) -> None:
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
                executing = getattr(exc, "executing_class", class_name(TransformChain))
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

    def collect_acks(self) -> None:
        """Make the offsets of fully acknowledged batches committable, in poll order.

        Raises ConnectError when the broker refused a record that is not tolerated.
        """
        while self._in_flight and self._in_flight[0].remaining <= 0:
            done = self._in_flight.popleft()
            if done.error is not None:
                raise ConnectError(  # issue 24: never advise dropping records for a timeout
                    delivery_failure_message(
                        self._label, str(Stage.KAFKA_PRODUCE), done.error, self.ack_stall.cause
                    )
                )
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
        """Write the committable offsets to the offset store, then call the task's commit()."""
        if not self._committable:
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
        try:
            self.task.commit()
        except Exception:
            log.exception("source task %s: commit() raised", self.name)

    def drain_and_commit(self) -> None:
        """Wait for acknowledgements (up to offset.flush.timeout.ms), commit what was acknowledged."""
        remaining = self.producer.flush(self.flush_timeout_s)
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
        self.errors.close()
        # Release librdkafka's threads now, not whenever the runner is collected
        # (older confluent-kafka clients have no close() and free it on collection).
        close = getattr(self.producer, "close", None)
        if close is not None:
            close()
        self.kafka.close()  # issue 24
