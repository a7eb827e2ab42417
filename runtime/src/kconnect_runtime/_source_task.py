"""The source side of the data path: poll → transforms → converters → Kafka producer.

Offsets are committed only for records the broker acknowledged, and only up to the first
record still in flight: a batch's source offsets become committable once it and every
batch before it are fully acknowledged (at-least-once, as Kafka Connect's SubmittedRecords).
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from kconnect_sdk import ConnectError, RecordMetadata, SourceRecord, SourceTask

from ._offsets import OffsetStore, TaskOffsetReader, offset_key
from ._pipeline import Converters, TransformChain
from ._status import ConnectorTaskId, State
from ._task_runner import TaskRunner, now

__all__ = ["SourceTaskRunner"]

log = logging.getLogger("kconnect.source")

_PartitionOffsets = dict[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]


class _InFlightBatch:
    """Records of one poll awaiting acknowledgement, and the offsets they will commit."""

    __slots__ = ("count", "error", "offsets", "remaining")

    def __init__(self, count: int, offsets: _PartitionOffsets) -> None:
        self.count = count
        self.remaining = count
        self.offsets = offsets
        self.error: KafkaError | None = None

    def ack(self, err: KafkaError | None, _msg: Any) -> None:
        # Runs on the task thread, inside producer.poll()/flush().
        if err is not None and self.error is None:
            self.error = err
        self.remaining -= 1


class _SourceContext:
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
        self._wants_commit_record = type(task).commit_record is not SourceTask.commit_record
        # (partitions, replication factor) for topics this task writes to that do not exist
        # yet (Kafka's topic.creation.default.*); None leaves creation to the broker.
        self.topic_creation = topic_creation
        self._known_topics: set[str] = set()

    # -- loop -----------------------------------------------------------------------
    def _run(self) -> None:
        connector = self.id.connector
        self.producer = Producer(self.producer_config)
        try:
            self.source_task.initialize(
                _SourceContext(self.task_config, TaskOffsetReader(self.offset_store, connector))
            )
            self.source_task.start(self.task_config)
            self.status.set(State.RUNNING)
            log.info("source task %s started", self.name)
            next_commit = now() + self.commit_interval_s
            while not self.stopping:
                if not self._wait_if_paused():
                    break
                batch = self.source_task.poll()
                if batch:
                    self.records_in += len(batch)
                    self._send(batch)
                self.producer.poll(0)
                self._collect_acks()
                if now() >= next_commit:
                    self._commit_offsets()
                    next_commit = now() + self.commit_interval_s
        finally:
            self._finish()

    def _send(self, batch: list[SourceRecord]) -> None:
        offsets = self._batch_offsets(batch)
        records = self._transform(batch)
        count = len(records)
        in_flight = _InFlightBatch(count, offsets)
        self._in_flight.append(in_flight)
        if not count:
            return
        if self.topic_creation is not None:
            self._ensure_topics({r.topic for r in records})
        conv = self.converters
        keys = conv.key.from_connect_batch([(r.topic, r.key_schema, r.key) for r in records])
        values = conv.value.from_connect_batch(
            [(r.topic, r.value_schema, r.value) for r in records]
        )
        produce = self.producer.produce
        ack = in_flight.ack if not self._wants_commit_record else None
        for record, key, value in zip(records, keys, values, strict=True):
            kwargs: dict[str, Any] = {"key": key, "value": value}
            if record.kafka_partition is not None:
                kwargs["partition"] = record.kafka_partition
            if record.timestamp is not None:
                kwargs["timestamp"] = record.timestamp
            if record.headers:
                kwargs["headers"] = conv.headers_to_kafka(record.topic, record.headers)
            kwargs["on_delivery"] = ack or self._record_ack(in_flight, record)
            while True:
                try:
                    produce(record.topic, **kwargs)
                    break
                except BufferError:
                    # The local queue is full: serve delivery reports until there is room.
                    self.producer.poll(0.05)
                    self._collect_acks()
                except KafkaException as exc:
                    raise ConnectError(
                        f"connector {self.id.connector!r} task {self.id.task}: cannot produce to topic "
                        f"{record.topic!r}: {exc}"
                    ) from exc

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

    def _record_ack(self, in_flight: _InFlightBatch, record: SourceRecord) -> Any:
        task = self.source_task

        def on_delivery(err: KafkaError | None, msg: Any) -> None:
            in_flight.ack(err, msg)
            if err is None:
                task.commit_record(
                    record,
                    RecordMetadata(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1]),
                )

        return on_delivery

    def _transform(self, batch: list[SourceRecord]) -> list[SourceRecord]:
        if not len(self.transforms):
            return batch
        if not self._wants_commit_record:
            return self.transforms.apply_batch(batch)
        out = []
        for record in batch:
            result = self.transforms.apply_batch([record])
            if result:
                out.extend(result)
            else:
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
                    f"connector {self.id.connector!r} task {self.id.task}: the broker refused a record: "
                    f"{done.error.str()}; offsets after the last acknowledged record are not committed"
                )
            self._committable.update(done.offsets)
            self.records_out += done.count

    def _commit_offsets(self) -> None:
        if not self._committable:
            return
        connector = self.id.connector
        self.offset_store.put(
            connector, {offset_key(connector, p): (p, o) for p, o in self._committable.values()}
        )
        self.offset_store.flush()
        self._committable = {}
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
            self.converters.close()
            self.transforms.close()
