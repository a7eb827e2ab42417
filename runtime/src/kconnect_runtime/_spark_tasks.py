"""What runs inside a Spark task (on an executor) for the spark engine: one bounded cycle.

Everything here arrives and leaves as plain, picklable data. The executor rebuilds the
connector's pipeline from its configs through the plugin registry and drives the local
engine's own task runners (``SourceTaskRunner``/``SinkTaskRunner``) for one cycle, so
conversion, transforms, ``errors.*`` handling and the dead letter queue behave exactly as
on the local engine. It returns what the driver must commit. PySpark is imported only to
find plugin.path locations shipped as archives, so executors need ``kconnect_runtime``
installed (or shipped with ``spark.archives``).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import (
    ConnectError,
    SinkTask,
    SourceTask,
    Task,
    TopicPartition,
)

from ._isolation import new_task
from ._metrics import ErrorMetrics
from ._offsets import MemoryOffsetStore, TaskOffsetReader, offset_key
from ._pipeline import TransformChain, build_converters
from ._registry import CONNECTOR_VERSION_CONFIG, PluginDesc, PluginKind, PluginRegistry
from ._sink_task import SinkTaskRunner
from ._sink_task import _SinkContext as _LocalSinkContext
from ._source_task import SourceContext, SourceTaskRunner
from ._status import ConnectorTaskId

__all__ = [
    "PartitionRange",
    "PluginLocation",
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
_EXECUTOR = "spark-executor"


@dataclass(frozen=True, slots=True)
class PluginLocation:
    """A plugin.path location as the driver sees it, and the archive it was shipped as."""

    path: str
    archive: str = ""
    """The name to give ``SparkFiles.get``; empty when the location was not shipped."""


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
    plugin_locations: tuple[PluginLocation, ...] = ()


@dataclass(frozen=True, slots=True)
class SourceCycleResult:
    polled: int
    produced: int
    offsets: _Offsets
    """The last (partition, offset) of each source partition whose records are all done
    (acknowledged by Kafka, or failed and tolerated)."""
    errors: dict[str, int] = field(default_factory=dict)
    """The cycle's error counters (``ErrorMetrics`` fields), for the driver's metrics."""


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
    plugin_locations: tuple[PluginLocation, ...] = ()


@dataclass(frozen=True, slots=True)
class SinkCycleResult:
    consumed: int
    put: int
    commit: tuple[tuple[str, int, int], ...] = field(default=())
    """(topic, partition, next offset) that the task's pre_commit reported durable."""
    high_watermarks: tuple[tuple[str, int, int], ...] = field(default=())
    """(topic, partition, high watermark) as the cycle's fetches last saw them."""
    errors: dict[str, int] = field(default_factory=dict)
    """The cycle's error counters (``ErrorMetrics`` fields), for the driver's metrics."""


# A reused Python worker runs many cycles; discovery reads every installed distribution's
# metadata, so it is done once per worker process (and set of plugin locations).
_known_topics: set[tuple[str, str]] = set()


@functools.cache
def _plugins(locations: tuple[str, ...]) -> PluginRegistry:
    return PluginRegistry.discover(plugin_path=list(locations))


def _executor_locations(locations: tuple[PluginLocation, ...]) -> tuple[str, ...]:
    """Where this executor finds each plugin.path location: its shipped copy, if any."""
    out = []
    for location in locations:
        if not location.archive:
            out.append(location.path)
            continue
        from pyspark import SparkFiles  # only executors of a shipping engine get here

        unpacked = SparkFiles.get(location.archive)
        if not os.path.isdir(unpacked):
            raise ConnectError(
                f"plugin.path location {location.path!r} was shipped as archive "
                f"{location.archive!r}, but this executor has no unpacked copy at {unpacked!r}; "
                "check that the cluster manager supports SparkContext.addArchive (Spark >= 3.1)"
            )
        out.append(unpacked)
    return tuple(out)


def _registry(locations: tuple[PluginLocation, ...]) -> PluginRegistry:
    return _plugins(_executor_locations(locations))


def _new_task(
    registry: PluginRegistry, connector: str, index: int, connector_config: Mapping[str, str]
) -> tuple[Task, PluginDesc]:
    """The plugin task, built as the worker builds it: isolated when its plugin is on plugin.path."""
    plugin = registry.resolve(
        connector_config.get("connector.class", ""),
        PluginKind.SOURCE,
        PluginKind.SINK,
        key="connector.class",
        version=connector_config.get(CONNECTOR_VERSION_CONFIG),
    )
    return new_task(plugin, connector, index, connector_config), plugin


def _error_counts(metrics: ErrorMetrics) -> dict[str, int]:
    return {f.name: int(getattr(metrics, f.name)) for f in dataclasses.fields(metrics)}


def merge_error_counts(metrics: ErrorMetrics, counts: Mapping[str, int]) -> None:
    """Add one cycle's error counters to a task's metrics on the driver."""
    for name, value in counts.items():
        if name == "last_error_timestamp":
            metrics.last_error_timestamp = max(metrics.last_error_timestamp, value)
        elif hasattr(metrics, name):
            setattr(metrics, name, getattr(metrics, name) + value)


class _SourceCycleRunner(SourceTaskRunner):
    """The local engine's source runner, driven for one bounded cycle on an executor."""

    def run_cycle(self, cycle: SourceCycle) -> SourceCycleResult:
        """Start the task on the committed offsets, poll a bounded batch, send it, wait for acks.

        Raises (failing the Spark task, which Spark retries) when a record is neither
        acknowledged nor tolerated: the driver then commits nothing, and the next attempt
        starts from the same offsets.
        """
        bootstrap = str(self.producer_config["bootstrap.servers"])
        self.errors = self._error_handler(bootstrap, self.producer_config)
        self.producer = Producer(self.producer_config)
        self._known_topics |= {t for b, t in _known_topics if b == bootstrap}
        task = self.source_task
        try:
            task.initialize(
                SourceContext(
                    self.task_config, TaskOffsetReader(self.offset_store, self.id.connector)
                )
            )
            task.start(self.task_config)
            deadline = time.monotonic() + cycle.max_ms / 1000
            while self.records_in < cycle.max_records and time.monotonic() < deadline:
                batch = self._poll()
                if not batch:
                    # A source that had data and now has none is drained for this cycle; one
                    # that has produced nothing yet may still be warming up, so it gets the
                    # whole cycle.
                    if self.records_in:
                        break
                    continue
                self.records_in += len(batch)
                self._send(batch)
                self.producer.poll(0)
                self._collect_acks()
            remaining = self.producer.flush(self.flush_timeout_s)
            if remaining:
                raise ConnectError(
                    f"{self._label}: {remaining} records were not acknowledged by Kafka within "
                    f"offset.flush.timeout.ms ({self.flush_timeout_s * 1000:.0f} ms); the cycle "
                    "fails so that its records are sent again from the last committed offsets"
                )
            self._collect_acks()  # raises when the broker refused a record not tolerated
            # Records sent to the DLQ must be there before the driver commits offsets past them.
            self.errors.flush()
            try:
                # Every record of the cycle is in Kafka now, so upstream may be acknowledged.
                task.commit()
            except Exception:
                log.exception("%s: commit() raised", self._label)
            offsets = tuple(
                (None if p is None else dict(p), None if o is None else dict(o))
                for p, o in self._committable.values()
            )
            return SourceCycleResult(
                self.records_in, self.records_out, offsets, _error_counts(self.metrics.errors)
            )
        finally:
            _known_topics.update((bootstrap, t) for t in self._known_topics)
            try:
                self._stop_plugin_task()
            finally:
                self._release()


def _runner_parts(
    cycle: SourceCycle | SinkCycle, *, sink: bool
) -> tuple[tuple[ConnectorTaskId, Any, Mapping[str, str]], dict[str, Any]]:
    """What both cycle runners are built from: the plugin task, converters and transforms.

    Returns the runner's positional arguments (task id, task, task config) and the keyword
    arguments both runners take.
    """
    registry = _registry(cycle.plugin_locations)
    task, _ = _new_task(registry, cycle.connector, cycle.task, cycle.connector_config)
    want: type = SinkTask if sink else SourceTask
    if not isinstance(task, want):
        raise ConnectError(
            f"connector {cycle.connector!r} task {cycle.task}: task_class() of a "
            f"{'sink' if sink else 'source'} connector must be a {want.__name__}"
        )
    converters = build_converters(registry, cycle.worker_props, cycle.connector_config)
    try:
        transforms: TransformChain[Any] = TransformChain.from_config(
            registry, cycle.connector_config
        )
    except BaseException:
        converters.close()
        raise
    positional = (ConnectorTaskId(cycle.connector, cycle.task), task, cycle.task_config)
    return positional, {
        "worker_id": _EXECUTOR,
        "commit_interval_s": 0.0,
        "connector_config": cycle.connector_config,
        "worker_props": cycle.worker_props,
        "converters": converters,
        "transforms": transforms,
    }


def run_source_cycle(cycle: SourceCycle) -> SourceCycleResult:
    """Run one source cycle on an executor (see :meth:`_SourceCycleRunner.run_cycle`)."""
    positional, common = _runner_parts(cycle, sink=False)
    store = MemoryOffsetStore()
    store.put(
        cycle.connector,
        {offset_key(cycle.connector, p): (p, o) for p, o in cycle.committed},
    )
    runner = _SourceCycleRunner(
        *positional,
        **common,
        producer_config=cycle.producer_config,
        offset_store=store,
        flush_timeout_s=cycle.flush_timeout_s,
        topic_creation=cycle.topic_creation,
    )
    return runner.run_cycle(cycle)


class _SinkCycleRunner(SinkTaskRunner):
    """The local engine's sink runner, driven for one cycle of planned offset ranges.

    Its consumer is assigned (never subscribed), so it joins no group: the driver owns the
    group's offsets and commits what the cycle returns.
    """

    def _pre_commit_failed(self, current: Mapping[TopicPartition, int], exc: Exception) -> None:
        # As Kafka Connect: not a task failure. Nothing is committed, so the next cycle
        # starts again from the last committed offsets (no rewind needed).
        log.error(
            "%s: pre_commit failed; this cycle's offsets are not committed",
            self._label,
            exc_info=exc,
        )

    def run_cycle(self, cycle: SinkCycle) -> SinkCycleResult:
        """Consume the planned offset ranges, put them to the task, and pre-commit."""
        self.context = _LocalSinkContext(self)
        self.errors = self._error_handler(
            str(self.consumer_config["bootstrap.servers"]), self.consumer_config
        )
        self.consumer = Consumer(
            {
                **self.consumer_config,
                "enable.auto.commit": False,
                # The end of a partition is where a range ends when it holds fewer records
                # than the bound (some brokers' ListOffsets, which the driver plans with, lag).
                "enable.partition.eof": True,
            }
        )
        ends = {TopicPartition(r.topic, r.partition): r.end for r in cycle.ranges}
        starts = {TopicPartition(r.topic, r.partition): r.start for r in cycle.ranges}
        task = self.sink_task
        current = self.current
        try:
            task.initialize(self.context)
            task.start(self.task_config)
            tps = sorted(ends)
            self.assigned = set(tps)
            task.open(tps)
            for tp, offset in self.context.seeks.items():
                if tp in starts:
                    starts[tp] = offset
                    current[tp] = offset
            self.context.seeks = {}
            pending = {tp for tp in tps if starts[tp] < ends[tp]}
            if pending:
                self.consumer.assign(
                    [
                        KafkaTopicPartition(tp.topic, tp.partition, starts[tp])
                        for tp in sorted(pending)
                    ]
                )
            deadline = time.monotonic() + cycle.max_ms / 1000
            while pending and time.monotonic() < deadline:
                self._consume_once(pending, starts, ends)
            commit: Mapping[TopicPartition, int] = {}
            if current:
                to_commit = self._pre_commit(current)
                if to_commit:
                    # Records reported to the DLQ must be there before offsets past them are
                    # committed; a DLQ that does not acknowledge fails the cycle.
                    self.errors.flush()
                    commit = to_commit
            task.close(tps)
            return SinkCycleResult(
                self.records_in,
                self.records_out,
                tuple((tp.topic, tp.partition, off) for tp, off in commit.items() if tp in ends),
                self._high_watermarks(tps),
                _error_counts(self.metrics.errors),
            )
        finally:
            self._closed = True
            try:
                self._stop_plugin_task()
            finally:
                self._release()

    def _consume_once(
        self,
        pending: set[TopicPartition],
        starts: Mapping[TopicPartition, int],
        ends: Mapping[TopicPartition, int],
    ) -> None:
        current = self.current
        messages: list[Any] = self.consumer.consume(_MAX_BATCH, 0.2)
        good: list[Any] = []
        at_end: dict[TopicPartition, int] = {}
        for m in messages:
            err = m.error()
            tp = TopicPartition(m.topic(), m.partition())
            if err is None:
                if tp in pending and m.offset() < ends[tp]:
                    good.append(m)
            elif err.code() == KafkaError._PARTITION_EOF:
                if tp in pending:
                    pending.discard(tp)
                    at_end[tp] = min(m.offset(), ends[tp])
            elif err.fatal():
                raise ConnectError(f"{self._label}: consumer error: {err.str()}")
        if good:
            # Conversion, transforms, put and errors.* exactly as on the local engine.
            self._deliver(good)
        for tp, eof in at_end.items():
            # Past the last record: offsets without records (transaction markers) count.
            current[tp] = max(current.get(tp, starts[tp]), eof)
        # Positions, not record offsets, end a range: transaction markers and compaction
        # leave offsets that no record carries.
        for kp in self.consumer.position(
            [KafkaTopicPartition(tp.topic, tp.partition) for tp in pending]
        ):
            tp = TopicPartition(kp.topic, kp.partition)
            if kp.offset >= ends[tp]:
                pending.discard(tp)
                current[tp] = max(current.get(tp, ends[tp]), ends[tp])

    def _high_watermarks(self, tps: list[TopicPartition]) -> tuple[tuple[str, int, int], ...]:
        highs = []
        for tp in tps:
            try:
                _, high = self.consumer.get_watermark_offsets(
                    KafkaTopicPartition(tp.topic, tp.partition), cached=True
                )
            except Exception:
                continue
            if high is not None and high >= 0:
                highs.append((tp.topic, tp.partition, int(high)))
        return tuple(highs)


def run_sink_cycle(cycle: SinkCycle) -> SinkCycleResult:
    """Run one sink cycle on an executor (see :meth:`_SinkCycleRunner.run_cycle`)."""
    positional, common = _runner_parts(cycle, sink=True)
    runner = _SinkCycleRunner(
        *positional,
        **common,
        consumer_config=cycle.consumer_config,
        topics=sorted({r.topic for r in cycle.ranges}),
        topics_regex="",
    )
    return runner.run_cycle(cycle)
