"""The sink side of the data path: Kafka consumer → converters → transforms → put → commit.

The consumer group is ``connect-<connector>``. Offsets are committed only as
``pre_commit`` reports them durable; a RetriableError from ``put`` redelivers the same
batch after ``context.timeout``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, OFFSET_INVALID, Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import (
    ConnectError,
    RetriableError,
    SinkRecord,
    SinkTask,
    TimestampType,
    TopicPartition,
)

from ._pipeline import Converters, TransformChain
from ._status import ConnectorTaskId, State
from ._task_runner import TaskRunner, now

__all__ = ["SinkTaskRunner"]

log = logging.getLogger("kconnect.sink")

_TIMESTAMP_TYPES = {
    0: TimestampType.NO_TIMESTAMP_TYPE,
    1: TimestampType.CREATE_TIME,
    2: TimestampType.LOG_APPEND_TIME,
}
MAX_BATCH = 5000


class _SinkContext:
    """The SinkTaskContext handed to the plugin task; acts on the runner's consumer."""

    def __init__(self, runner: SinkTaskRunner) -> None:
        self._runner = runner
        self.timeout_ms = 0
        self.commit_requested = False
        self.seeks: dict[TopicPartition, int] = {}

    @property
    def configs(self) -> Mapping[str, str]:
        return self._runner.task_config

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
    def errant_record_reporter(self) -> None:
        return None


class SinkTaskRunner(TaskRunner):
    kind = "sink"
    stop_plugin_on_request = False

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        task_config: Mapping[str, str],
        *,
        worker_id: str,
        commit_interval_s: float,
        connector_config: Mapping[str, str] | None = None,
        worker_props: Mapping[str, str] | None = None,
        converters: Converters,
        transforms: TransformChain[SinkRecord],
        consumer_config: Mapping[str, Any],
        topics: Sequence[str],
        topics_regex: str,
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
        self.sink_task = task
        self.converters = converters
        self.transforms = transforms
        self.consumer_config = dict(consumer_config)
        self.subscription = [f"^{topics_regex}"] if topics_regex else list(topics)
        self.assigned: set[TopicPartition] = set()
        self.current: dict[TopicPartition, int] = {}  # next offset to consume, per partition
        self.committed: dict[TopicPartition, int] = {}
        # Set after the final commit and close: consumer.close() then triggers no callbacks.
        self._closed = False

    # -- rebalance callbacks (run inside consumer.consume on the task thread) ----------------
    def _on_assign(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        self.assigned.update(tps)
        log.info("sink task %s assigned %s", self.name, ", ".join(map(str, tps)) or "nothing")
        self.sink_task.open(tps)

    def _on_revoke(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        if not tps or self._closed:
            return
        self._commit(only=set(tps))
        self.sink_task.close(tps)
        for tp in tps:
            self.assigned.discard(tp)
            self.current.pop(tp, None)
            self.committed.pop(tp, None)

    def _on_lost(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        # Lost partitions belong to another member already: close without committing.
        tps = [TopicPartition(p.topic, p.partition) for p in partitions]
        if self._closed:
            return
        self.sink_task.close(tps)
        for tp in tps:
            self.assigned.discard(tp)
            self.current.pop(tp, None)

    # -- loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        self.context = _SinkContext(self)
        self.consumer = Consumer(self.consumer_config)
        try:
            self.sink_task.initialize(self.context)
            self.sink_task.start(self.task_config)
            self.consumer.subscribe(
                self.subscription,
                on_assign=self._on_assign,
                on_revoke=self._on_revoke,
                on_lost=self._on_lost,
            )
            self.status.set(State.RUNNING)
            log.info("sink task %s started; consuming %s", self.name, ", ".join(self.subscription))
            next_commit = now() + self.commit_interval_s
            while not self.stopping:
                if not self._wait_if_paused():
                    break
                self._apply_seeks()
                messages = self.consumer.consume(MAX_BATCH, 0.5)
                if messages:
                    self._deliver(messages)
                if self.context.commit_requested or now() >= next_commit:
                    self.context.commit_requested = False
                    self._commit()
                    next_commit = now() + self.commit_interval_s
            self._commit()
            if self.assigned:
                self.sink_task.close(sorted(self.assigned))
        finally:
            self._closed = True
            self._stop_plugin_task()
            try:
                self.consumer.close()
            finally:
                self.converters.close()
                self.transforms.close()

    def _apply_seeks(self) -> None:
        if not self.context.seeks:
            return
        seeks, self.context.seeks = self.context.seeks, {}
        for tp, offset in seeks.items():
            if tp in self.assigned:
                self.consumer.seek(KafkaTopicPartition(tp.topic, tp.partition, offset))
                self.current[tp] = offset

    def _deliver(self, messages: list[Any]) -> None:
        good = []
        for m in messages:
            err = m.error()
            if err is None:
                good.append(m)
            elif err.fatal():
                raise ConnectError(
                    f"connector {self.id.connector!r} task {self.id.task}: consumer error: {err.str()}"
                )
            elif err.code() != KafkaError._PARTITION_EOF:
                # e.g. a subscribed topic that does not exist yet: Kafka Connect waits for it.
                log.debug("sink task %s: %s", self.name, err.str())
        if not good:
            return
        self.records_in += len(good)
        records = self._to_records(good)
        records = self.transforms.apply_batch(records) if len(self.transforms) else records
        self._put(records)
        self.records_out += len(records)
        for m in good:
            self.current[TopicPartition(m.topic(), m.partition())] = m.offset() + 1

    def _to_records(self, messages: list[Any]) -> list[SinkRecord]:
        conv = self.converters
        keys = conv.key.to_connect_batch([(m.topic(), m.key()) for m in messages])
        values = conv.value.to_connect_batch([(m.topic(), m.value()) for m in messages])
        records = []
        for m, (key_schema, key), (value_schema, value) in zip(messages, keys, values, strict=True):
            ts_type, ts = m.timestamp()
            topic = m.topic()
            raw_headers = m.headers()
            records.append(
                SinkRecord(
                    topic=topic,
                    kafka_partition=m.partition(),
                    key_schema=key_schema,
                    key=key,
                    value_schema=value_schema,
                    value=value,
                    timestamp=ts if ts_type else None,
                    timestamp_type=_TIMESTAMP_TYPES.get(ts_type, TimestampType.NO_TIMESTAMP_TYPE),
                    kafka_offset=m.offset(),
                    headers=conv.headers_from_kafka(topic, raw_headers),
                )
            )
        return records

    def _put(self, records: list[SinkRecord]) -> None:
        while True:
            try:
                self.sink_task.put(records)
                return
            except RetriableError as exc:
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
                    if self._stopping.wait(wait_ms / 1000):
                        raise ConnectError(
                            f"connector {self.id.connector!r} task {self.id.task}: stopped while retrying put"
                        ) from exc
                finally:
                    self.consumer.resume(
                        [KafkaTopicPartition(tp.topic, tp.partition) for tp in self.assigned]
                    )

    def _commit(self, only: set[TopicPartition] | None = None) -> None:
        current = {tp: o for tp, o in self.current.items() if only is None or tp in only}
        if not current:
            return
        try:
            to_commit = dict(self.sink_task.pre_commit(dict(current)))
        except Exception:
            # As Kafka Connect: a failed flush/pre_commit does not fail the task; we rewind to
            # the last committed offsets so nothing unflushed is skipped.
            log.exception(
                "sink task %s: pre_commit failed; rewinding to the last committed offsets",
                self.name,
            )
            self._rewind(current)
            return
        offsets = [
            KafkaTopicPartition(tp.topic, tp.partition, off)
            for tp, off in to_commit.items()
            if tp in self.assigned and self.committed.get(tp) != off
        ]
        if not offsets:
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
