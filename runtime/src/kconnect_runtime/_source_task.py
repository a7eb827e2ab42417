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
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from kconnect_sdk import ConnectError, RecordMetadata, RetriableError, SourceRecord, SourceTask

from ._errors import ErrorHandler, Failure, Stage, class_name, json_text, source_record_json
from ._offsets import OffsetStore, TaskOffsetReader, offset_key
from ._pipeline import Converters, TransformChain
from ._status import ConnectorTaskId, State
from ._task_runner import TaskRunner, now

__all__ = ["SourceTaskRunner"]

log = logging.getLogger("kconnect.source")

_PartitionOffsets = dict[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]


class _InFlightBatch:
    """Records of one poll awaiting acknowledgement, and the offsets they will commit."""

    __slots__ = ("count", "error", "offsets", "polled", "refused", "remaining")

    def __init__(self, count: int, offsets: _PartitionOffsets, polled: int) -> None:
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

    def __init__(self, configs: Mapping[str, str], reader: TaskOffsetReader) -> None:
        self._configs = configs
        self._reader = reader

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> TaskOffsetReader:
        return self._reader


class SourceTaskRunner(TaskRunner):
    kind = "source"

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        task_config: Mapping[str, str],
        *,
        worker_id: str,
        commit_interval_s: float,
        connector_config: Mapping[str, str] | None = None,
        worker_props: Mapping[str, str] | None = None,
        converters: Converters,
        transforms: TransformChain[SourceRecord],
        producer_config: Mapping[str, Any],
        offset_store: OffsetStore,
        flush_timeout_s: float,
        topic_creation: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(
            task_id,
            task,
            task_config,
            worker_id=worker_id,
            commit_interval_s=commit_interval_s,
            connector_config=connector_config,
            worker_props=worker_props,
        )
        self.source_task = task
        self.converters = converters
        self.transforms = transforms
        self.producer_config = dict(producer_config)
        self.offset_store = offset_store
        self.flush_timeout_s = flush_timeout_s
        self._in_flight: collections.deque[_InFlightBatch] = collections.deque()
        self._committable: _PartitionOffsets = {}
        # (partitions, replication factor) for topics this task writes to that do not exist
        # yet (Kafka's topic.creation.default.*); None leaves creation to the broker.
        self.topic_creation = topic_creation
        self._known_topics: set[str] = set()
        # Every topic this task has written to (Kafka's topic tracking, GET /connectors/{c}/topics).
        self.active_topics: set[str] = set()
        self._label = f"connector {task_id.connector!r} task {task_id.task}"

    # -- loop -----------------------------------------------------------------------
    def _run(self) -> None:
        connector = self.id.connector
        self.errors: ErrorHandler = self._error_handler(
            str(self.producer_config["bootstrap.servers"]), self.producer_config
        )
        self.producer = Producer(self.producer_config)
        try:
            self.source_task.initialize(
                SourceContext(self.task_config, TaskOffsetReader(self.offset_store, connector))
            )
            self.source_task.start(self.task_config)
            self.status.set(State.RUNNING)
            log.info("source task %s started", self.name)
            next_commit = now() + self.commit_interval_s
            metrics = self.metrics
            while not self.stopping:
                self.beat()
                if not self._wait_if_paused():
                    break
                started = now()
                batch = self._poll()
                if batch:
                    count = len(batch)
                    self.records_in += count
                    metrics.poll_total += count
                    metrics.active_count += count
                    metrics.batch_size.record(count)
                    metrics.poll_batch_ms.record((now() - started) * 1000)
                    self._send(batch)
                self.producer.poll(0)
                self._collect_acks()
                if now() >= next_commit:
                    self._commit_offsets()
                    next_commit = now() + self.commit_interval_s
        finally:
            self._finish()

    def _poll(self) -> list[SourceRecord] | None:
        try:
            return self.source_task.poll()
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
            self._stopping.wait(0.1)  # a poll that fails at once must not spin the CPU
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
                keys = conv.key.from_connect_batch(
                    [(r.topic, r.key_schema, r.key) for r in records]
                )
                values = conv.value.from_connect_batch(
                    [(r.topic, r.value_schema, r.value) for r in records]
                )
            except Exception:
                # Only a batch that failed pays for per-record conversion, to find the culprits.
                records, keys, values = self._convert_one_by_one(records)
        count = len(records)
        in_flight = _InFlightBatch(count, offsets, len(batch))
        self._in_flight.append(in_flight)
        if not count:
            return
        topics = {r.topic for r in records}
        if not topics <= self.active_topics:
            if self.topic_creation is not None:
                self._ensure_topics(topics)
            self.active_topics |= topics
        produce = self.producer.produce
        ack = None
        if not self._wants_commit_record:
            ack = in_flight.ack_tolerant if self.errors.tolerate_all else in_flight.ack
        for record, key, value in zip(records, keys, values, strict=True):
            kwargs: dict[str, Any] = {"key": key, "value": value}
            if record.kafka_partition is not None:
                kwargs["partition"] = record.kafka_partition
            if record.timestamp is not None:
                kwargs["timestamp"] = record.timestamp
            if record.headers:
                try:
                    kwargs["headers"] = conv.headers_to_kafka(record.topic, record.headers)
                except Exception as exc:
                    self._record_failed(
                        record, Stage.HEADER_CONVERTER, class_name(conv.header), exc
                    )
                    in_flight.skip()
                    continue
            kwargs["on_delivery"] = ack or self._record_ack(in_flight, record)
            while True:
                try:
                    produce(record.topic, **kwargs)
                    break
                except BufferError:
                    # The local queue is full: serve delivery reports until there is room.
                    self.producer.poll(0.05)
                    self._collect_acks()
                    self.beat()
                except KafkaException as exc:
                    if not self.errors.tolerate_all:
                        raise ConnectError(
                            f"{self._label}: cannot produce to topic {record.topic!r} at stage "
                            f"{Stage.KAFKA_PRODUCE}: {exc}"
                        ) from exc
                    self._record_failed(record, Stage.KAFKA_PRODUCE, class_name(Producer), exc)
                    in_flight.skip()
                    break

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
        failure = Failure(
            stage,
            exc,
            executing,
            topic=record.topic,
            partition=json_text(record.source_partition),
            offset=json_text(record.source_offset),
            record=lambda: repr(record),
        )
        self.errors.failed(failure)
        if stage is not Stage.KAFKA_PRODUCE:  # KIP-779 skips refused records; no DLQ for them
            self.errors.to_dlq(failure, None, source_record_json(record), None, record.timestamp)
        if self._wants_commit_record:
            self.source_task.commit_record(record, None)

    def _ensure_topics(self, topics: set[str]) -> None:
        missing = topics - self._known_topics
        if not missing or self.topic_creation is None:
            return
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        partitions, replication = self.topic_creation
        admin = AdminClient({"bootstrap.servers": self.producer_config["bootstrap.servers"]})
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
                            f"connector {self.id.connector!r} task {self.id.task}: cannot create topic "
                            f"{topic!r}: {exc}"
                        ) from exc
        self._known_topics |= missing

    @property
    def _wants_commit_record(self) -> bool:
        """Whether the task implements ``commit_record`` (else acknowledgements skip it).

        An isolated task says so for the plugin behind it once its host is running.
        """
        task = self.source_task
        forwards = getattr(task, "forwards_commit_record", None)
        if forwards is not None:
            return bool(forwards)
        return type(task).commit_record is not SourceTask.commit_record

    def _record_ack(self, in_flight: _InFlightBatch, record: SourceRecord) -> Any:
        task = self.source_task

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
                self.source_task.commit_record(record, None)
        return out

    @staticmethod
    def _batch_offsets(batch: list[SourceRecord]) -> _PartitionOffsets:
        """The last offset of each source partition in the batch."""
        offsets: _PartitionOffsets = {}
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

    def _collect_acks(self) -> None:
        while self._in_flight and self._in_flight[0].remaining <= 0:
            done = self._in_flight.popleft()
            if done.error is not None:
                raise ConnectError(
                    f"{self._label}: the broker refused a record at stage {Stage.KAFKA_PRODUCE}: "
                    f"{done.error.str()}; offsets after the last acknowledged record are not "
                    "committed (errors.tolerance=all skips such records)"
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
            self.records_out += done.count
            self.metrics.write_total += done.count
            self.metrics.active_count -= done.polled

    def _commit_offsets(self) -> None:
        if not self._committable:
            return
        started = now()
        # Records sent to the DLQ must be there before offsets past them are committed.
        self.errors.flush()
        connector = self.id.connector
        self.offset_store.put(
            connector, {offset_key(connector, p): (p, o) for p, o in self._committable.values()}
        )
        self.offset_store.flush()
        self._committable = {}
        self.metrics.offset_commit_ms.record((now() - started) * 1000)
        try:
            self.source_task.commit()
        except Exception:
            log.exception("source task %s: commit() raised", self.name)

    def _finish(self) -> None:
        """Wait for acknowledgements, commit what was acknowledged, release the producer."""
        try:
            remaining = self.producer.flush(self.flush_timeout_s)
            if remaining:
                log.warning(
                    "source task %s: %d records were not acknowledged within offset.flush.timeout.ms; "
                    "their offsets are not committed and they will be sent again",
                    self.name,
                    remaining,
                )
            try:
                self._collect_acks()
            finally:
                self._commit_offsets()
        finally:
            self._stop_plugin_task()
            self._release()

    def _release(self) -> None:
        """Close the pipeline's plugins and clients (after the plugin task stopped)."""
        self.converters.close()
        self.transforms.close()
        self.errors.close()
        # Release librdkafka's threads now, not whenever the runner is collected
        # (older confluent-kafka clients have no close() and free it on collection).
        close = getattr(self.producer, "close", None)
        if close is not None:
            close()
