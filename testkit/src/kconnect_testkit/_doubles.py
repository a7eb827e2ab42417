"""Test doubles shipped with the testkit: in-memory stores and recording contexts.

They implement the SDK's protocols the way the runtime does (offsets stored as JSON, a
reporter whose futures complete at once), so plugin unit tests need no worker.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import (
    Headers,
    PluginMetricsGroup,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    TimestampType,
    TopicPartition,
)

__all__ = [
    "FakeClock",
    "InMemoryOffsetStore",
    "RecordFactory",
    "RecordingErrantReporter",
    "RecordingSinkContext",
    "ScriptedSourceContext",
]


def _partition_key(partition: Mapping[str, Any]) -> str:
    return json.dumps(dict(partition), sort_keys=True, separators=(",", ":"))


class InMemoryOffsetStore:
    """Committed source offsets in memory; also an ``OffsetStorageReader``.

    Partitions and offsets go through JSON on the way in, as in the runtime's file and
    Kafka stores, so a task that reads back its offsets sees what it would in production.

    Raises:
        TypeError: from :meth:`commit` when a partition or offset is not JSON data.
    """

    def __init__(self, offsets: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]] = ()) -> None:
        self._lock = threading.Lock()
        self._offsets: dict[str, Any] = {}
        for partition, offset in offsets:
            self.commit(partition, offset)

    def commit(self, partition: Mapping[str, Any], offset: Mapping[str, Any] | None) -> None:
        """Store ``offset`` as the latest committed offset of ``partition`` (None deletes it)."""
        key = _partition_key(partition)
        with self._lock:
            if offset is None:
                self._offsets.pop(key, None)
            else:
                self._offsets[key] = json.loads(json.dumps(dict(offset)))

    def commit_records(self, records: Iterable[SourceRecord]) -> None:
        """Commit the offset of each record, in order, as the runtime does after acks."""
        for record in records:
            if record.source_partition is not None and record.source_offset is not None:
                self.commit(record.source_partition, record.source_offset)

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        with self._lock:
            found = self._offsets.get(_partition_key(partition))
        return None if found is None else json.loads(json.dumps(found))

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        return [self.offset(p) for p in partitions]

    def snapshot(self) -> dict[str, Any]:
        """Every committed offset, keyed by the partition's canonical JSON."""
        with self._lock:
            return json.loads(json.dumps(self._offsets))  # type: ignore[no-any-return]


@dataclass
class ScriptedSourceContext:
    """A ``SourceTaskContext`` with a fixed config and an offset store you prepare."""

    configs: Mapping[str, str] = field(default_factory=dict)
    offset_storage_reader: InMemoryOffsetStore = field(default_factory=InMemoryOffsetStore)

    def transaction_context(self) -> None:  # the test double runs no transactions
        """None: the task runs without connector-defined transaction boundaries."""
        return None

    @functools.cached_property
    def plugin_metrics(self) -> PluginMetricsGroup:
        """Kept for the test to read (``plugin_metrics.samples()``)."""
        return PluginMetricsGroup({})


class RecordingErrantReporter:
    """An ``ErrantRecordReporter`` that remembers every report; its futures complete at once."""

    def __init__(self) -> None:
        self.reported: list[tuple[SinkRecord, BaseException]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.reported.append((record, error))
        done: Future[None] = Future()
        done.set_result(None)
        return done


class RecordingSinkContext:
    """A ``SinkTaskContext`` that records what the task asked of the runtime.

    Attributes:
        offsets_requested: every ``offset()`` call's mapping, in order.
        timeouts_ms: every ``timeout()`` value, in order.
        commit_requests: how many times ``request_commit()`` was called.
        paused: the currently paused partitions.
    """

    def __init__(
        self,
        configs: Mapping[str, str] | None = None,
        *,
        assignment: Iterable[TopicPartition] = (),
        reporter: RecordingErrantReporter | None = None,
    ) -> None:
        self._configs = dict(configs or {})
        self._assignment = set(assignment)
        self._reporter = reporter
        self.offsets_requested: list[dict[TopicPartition, int]] = []
        self.timeouts_ms: list[int] = []
        self.commit_requests = 0
        self.paused: set[TopicPartition] = set()

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.offsets_requested.append(dict(offsets))

    def timeout(self, timeout_ms: int) -> None:
        self.timeouts_ms.append(timeout_ms)

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        """Add ``partitions`` to the assignment, as a rebalance that gives them to the task."""
        self._assignment.update(partitions)

    def revoke(self, partitions: Iterable[TopicPartition]) -> None:
        """Take ``partitions`` out of the assignment, as a rebalance that moves them away."""
        self._assignment.difference_update(partitions)
        self.paused.difference_update(partitions)

    def pause(self, *partitions: TopicPartition) -> None:
        self.paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        self.commit_requests += 1

    @property
    def errant_record_reporter(self) -> RecordingErrantReporter | None:
        return self._reporter

    @functools.cached_property
    def plugin_metrics(self) -> PluginMetricsGroup:
        """Kept for the test to read (``plugin_metrics.samples()``)."""
        return PluginMetricsGroup({})


class FakeClock:
    """A clock that moves only when told to; ``sleep`` advances it instead of waiting."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self._now_ms = start_ms

    def time(self) -> float:
        """Seconds since the epoch, as ``time.time``."""
        return self._now_ms / 1000

    def now_ms(self) -> int:
        return self._now_ms

    def advance(self, ms: int) -> None:
        self._now_ms += ms

    def sleep(self, seconds: float) -> None:
        self._now_ms += round(seconds * 1000)


SAMPLE_VALUE_SCHEMA = (
    SchemaBuilder.struct()
    .name("kc.test.Sample")
    .field("id", Schema.INT32)
    .field("name", Schema.OPTIONAL_STRING)
    .field("amount", Schema.OPTIONAL_FLOAT64)
    .build()
)


class RecordFactory:
    """Builds the records the suites feed to plugins: numbered, on one topic partition."""

    def __init__(
        self, topic: str = "kc-test", partition: int = 0, *, timestamp: int = 1_700_000_000_000
    ):
        self.topic = topic
        self.partition = partition
        self.timestamp = timestamp

    def sink_records(
        self,
        count: int,
        *,
        start: int = 0,
        value: Callable[[int], Any] = lambda i: f"value-{i}",
        value_schema: Schema | None = Schema.STRING,
    ) -> list[SinkRecord]:
        """``count`` records at offsets ``start..start+count-1`` with ``value(offset)``."""
        return [
            SinkRecord(
                topic=self.topic,
                kafka_partition=self.partition,
                key_schema=Schema.OPTIONAL_STRING,
                key=f"key-{i}",
                value_schema=value_schema,
                value=value(i),
                timestamp=self.timestamp + i,
                timestamp_type=TimestampType.CREATE_TIME,
                kafka_offset=i,
            )
            for i in range(start, start + count)
        ]

    def samples(self) -> list[SinkRecord]:
        """Typical record shapes: a struct with schema, a schemaless map, a tombstone."""
        struct = Struct(SAMPLE_VALUE_SCHEMA).put("id", 7).put("name", "Zoë").put("amount", 12.5)
        headers = Headers([("source", Schema.STRING, "kc")])
        return [
            SinkRecord(
                topic=self.topic,
                kafka_partition=self.partition,
                key_schema=Schema.INT32,
                key=7,
                value_schema=SAMPLE_VALUE_SCHEMA,
                value=struct,
                timestamp=self.timestamp,
                headers=headers,
                kafka_offset=0,
            ),
            SinkRecord(
                topic=self.topic,
                kafka_partition=self.partition,
                key={"id": 8},
                value={"id": 8, "name": "plain", "amount": 1.0},
                timestamp=self.timestamp + 1,
                headers=headers,
                kafka_offset=1,
            ),
            self.tombstone(offset=2),
        ]

    def tombstone(self, *, offset: int = 0) -> SinkRecord:
        """A record with a key and a null value."""
        return SinkRecord(
            topic=self.topic,
            kafka_partition=self.partition,
            key_schema=Schema.INT32,
            key=9,
            timestamp=self.timestamp + offset,
            kafka_offset=offset,
        )
