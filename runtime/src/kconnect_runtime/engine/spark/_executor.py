"""What runs inside a Spark task (on an executor) for the spark engine: one bounded cycle.

Everything here arrives and leaves as plain, picklable data. The executor rebuilds the
task's spec and pipeline from its configs through the plugin registry and drives the same
:class:`~kconnect_runtime.tasks.SourcePipeline`/:class:`~kconnect_runtime.tasks.SinkPipeline`
the local engine drives, through their public methods, for one cycle, so conversion,
transforms, ``errors.*`` handling and the dead letter queue behave exactly as on the local
engine. It returns what the driver must commit. PySpark is imported only to
find plugin.path locations shipped as archives, so executors need ``kconnect_runtime``
installed (or shipped with ``spark.archives``).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import logging
import operator
import os
import pickle
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError, Message
from kconnect_sdk import ConfigError, ConnectError, TopicPartition

from kconnect_runtime.metrics import ErrorMetrics
from kconnect_runtime.plugins import CONNECTOR_VERSION_CONFIG, PluginKind, PluginRegistry
from kconnect_runtime.status import ConnectorTaskId, Status
from kconnect_runtime.storage import MemoryOffsetStore, offset_key
from kconnect_runtime.tasks import (
    SinkPipeline,
    SourcePipeline,
    TaskSpec,
    apply_gc_policy,
    build_pipeline,
)

__all__ = [
    "PLAN_PROPERTY",
    "CycleTimer",
    "ExecutorCheck",
    "PartitionRange",
    "PluginLocation",
    "SinkCycle",
    "SinkCycleResult",
    "SourceCycle",
    "SourceCycleResult",
    "check_executor",
    "encode_plan",
    "run_planned",
    "run_sink_cycle",
    "run_source_cycle",
]

log = logging.getLogger("kconnect.spark.task")

_Offsets = tuple[tuple[dict[str, Any] | None, dict[str, Any] | None], ...]
_MAX_BATCH = 5000
_CONSUME_WAIT_S = 0.05
_EXECUTOR = "spark-executor"
# confluent-kafka's Message accessors, unbound, so that a whole batch is checked in C.
_error = Message.error
_topic = Message.topic
_partition = Message.partition
_offset = Message.offset
_is_none = functools.partial(operator.is_, None)


PLAN_PROPERTY = "kconnect.engine.plan"
"""The Spark local property that carries a job's function and argument to its task."""


def encode_plan(func: Any, arg: Any) -> str:
    """``(func, arg)`` as the value of :data:`PLAN_PROPERTY` (cloudpickle, then base64)."""
    from pyspark import cloudpickle  # the driver's side: PySpark is there

    pickled: bytes = cloudpickle.dumps((func, arg))  # type: ignore[no-untyped-call]  # untyped in PySpark
    return base64.b64encode(pickled).decode("ascii")


def run_planned(_: object) -> Any:
    """The one function every engine job maps: ``func(arg)`` of the job's plan.

    The plan comes with the task as a local property of the job (set by the driver's thread
    that submits it, so concurrent cycles of several tasks each carry their own), which lets
    the driver submit every cycle on one RDD it built once: no RDD, closure or Python
    function to make, pickle and hand to the JVM per cycle.
    """
    from pyspark import TaskContext

    context = TaskContext.get()
    encoded = context.getLocalProperty(PLAN_PROPERTY) if context is not None else None
    if not encoded:
        raise ConnectError(
            f"a kconnect engine job reached an executor without its plan (Spark local property "
            f"{PLAN_PROPERTY!r}); it is set by SparkEngine.run_on_executor"
        )
    func, arg = pickle.loads(base64.b64decode(encoded))
    return func(arg)


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
    parsed_config: dict[str, Any]
    worker_props: dict[str, str]
    producer_config: dict[str, Any]
    committed: _Offsets
    """The connector's committed (partition, offset) pairs, served by the task's reader."""
    max_records: int
    max_ms: int
    flush_timeout_s: float
    topic_creation: tuple[int, int] | None = None
    plugin_locations: tuple[PluginLocation, ...] = ()
    follows: str = ""
    """The id of the task's last cycle whose result the driver committed ("" for none)."""


@dataclass(frozen=True, slots=True)
class SourceCycleResult:
    polled: int
    produced: int
    offsets: _Offsets
    """The last (partition, offset) of each source partition whose records are all done
    (acknowledged by Kafka, or failed and tolerated)."""
    errors: dict[str, int] = field(default_factory=dict)
    """The cycle's error counters (``ErrorMetrics`` fields), for the driver's metrics."""
    cycle_id: str = ""
    """This cycle's id: the next cycle ``follows`` it once the driver committed its result."""
    timings: tuple[tuple[str, float], ...] = ()
    """Where the cycle's time went on the executor (see ``CycleTimer``)."""
    full: bool = False
    """The cycle ended on its records or time bound with records still coming (the source
    was not drained), so the driver may follow it with a bigger one."""
    warnings: tuple[str, ...] = ()
    """Warnings the cycle logged on the executor (the plugin's, the pipeline's), first few."""


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
    parsed_config: dict[str, Any]
    worker_props: dict[str, str]
    consumer_config: dict[str, Any]
    ranges: tuple[PartitionRange, ...]
    max_ms: int
    plugin_locations: tuple[PluginLocation, ...] = ()
    follows: str = ""
    """The id of the task's last cycle whose result the driver committed ("" for none)."""


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
    cycle_id: str = ""
    """This cycle's id: the next cycle ``follows`` it once the driver committed its result."""
    timings: tuple[tuple[str, float], ...] = ()
    """Where the cycle's time went on the executor (see ``CycleTimer``)."""
    full: bool = False
    """A range ended at its bound, not at the partition's end, or the time bound ended the
    cycle: the partitions hold more, so the driver may follow it with a bigger one."""
    warnings: tuple[str, ...] = ()
    """Warnings the cycle logged on the executor (the plugin's, the pipeline's), first few."""


class CycleTimer:
    """Seconds per phase of one cycle on the executor, and its wall-clock start and end.

    ``entered``/``left`` are ``time.time()`` stamps, so that the driver (on the same host for
    a local master) can tell the Spark job's scheduling from the cycle's own work.
    """

    __slots__ = ("_last", "entered", "phases")

    def __init__(self) -> None:
        self.entered = time.time()
        self._last = time.perf_counter()
        self.phases: list[tuple[str, float]] = []

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.phases.append((phase, now - self._last))
        self._last = now

    def result(self) -> tuple[tuple[str, float], ...]:
        return (*self.phases, ("entered", self.entered), ("left", time.time()))


_WARNINGS_KEPT = 5


class _CycleWarnings(logging.Handler):
    """Collects the WARNING and ERROR records one cycle logs in its own thread.

    An executor's log is out of the operator's sight (a file in the worker's work directory);
    a cycle returns what it warned about, so that the driver's log and the task's status show
    it (a source that cannot read its file polls nothing and would otherwise look healthy).
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        root = logging.getLogger()
        if root.handlers == [self] and logging.lastResort is not None:
            # Python would print it to the executor's stderr had this handler not been there.
            logging.lastResort.handle(record)
        if record.thread != self.thread or len(self.messages) >= _WARNINGS_KEPT:
            return
        try:
            text = f"{record.levelname} {record.name}: {record.getMessage()}"
        except Exception:  # a plugin's bad format arguments must not fail the cycle
            text = f"{record.levelname} {record.name}: {record.msg}"
        if text not in self.messages:
            self.messages.append(text)

    def __enter__(self) -> _CycleWarnings:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)


@dataclass(frozen=True, slots=True)
class ExecutorCheck:
    """What an executor's Python reported about itself (see :func:`check_executor`)."""

    python: str
    """The executors' interpreter (``sys.executable``)."""
    runtime: str
    """Where this executor imported ``kconnect_runtime`` from (this module's file)."""
    missing: tuple[str, ...]
    """One message per plugin the executor cannot load."""


def check_executor(
    request: tuple[tuple[PluginLocation, ...], tuple[tuple[str, str, str], ...]],
) -> ExecutorCheck:
    """Resolve each ``(config key, plugin kind, name)`` the way a cycle will, on an executor.

    Run as a Spark task at the engine's start: unpickling this function already needs
    ``kconnect_runtime`` in the executors' environment, and the plugins named in the worker
    config (converters, header converter) must be there for every cycle.
    """
    locations, needs = request
    registry = _registry(locations)
    missing = []
    for key, kind, name in needs:
        try:
            registry.resolve(name, PluginKind(kind), key=key)
        except ConfigError as exc:
            missing.append(str(exc))
    # This very module is part of the executors' kconnect_runtime.
    return ExecutorCheck(sys.executable, __file__, tuple(missing))


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


def _spec(
    cycle: SourceCycle | SinkCycle, registry: PluginRegistry, client_config: Mapping[str, Any]
) -> TaskSpec:
    """The task's spec on this executor: the plugin as this executor's registry finds it."""
    config = cycle.connector_config
    plugin = registry.resolve(
        config.get("connector.class", ""),
        PluginKind.SOURCE,
        PluginKind.SINK,
        key="connector.class",
        version=config.get(CONNECTOR_VERSION_CONFIG),
    )
    return TaskSpec(
        id=ConnectorTaskId(cycle.connector, cycle.task),
        plugin=plugin,
        task_config=cycle.task_config,
        connector_config=config,
        parsed_config=cycle.parsed_config,
        worker_props=cycle.worker_props,
        worker_id=_EXECUTOR,
        client_config=client_config,
        topic_creation=cycle.topic_creation if isinstance(cycle, SourceCycle) else None,
        commit_interval_s=0.0,
        flush_timeout_s=cycle.flush_timeout_s if isinstance(cycle, SourceCycle) else 5.0,
    )


def _pipeline(
    cycle: SourceCycle | SinkCycle, client_config: Mapping[str, Any], *, sink: bool, **kwargs: Any
) -> SourcePipeline | SinkPipeline:
    registry = _registry(cycle.plugin_locations)
    spec = _spec(cycle, registry, client_config)
    if (spec.kind is PluginKind.SINK) != sink:
        want = "SinkTask" if sink else "SourceTask"
        raise ConnectError(
            f"connector {cycle.connector!r} task {cycle.task}: task_class() of a "
            f"{'sink' if sink else 'source'} connector must be a {want}"
        )
    apply_gc_policy()  # once per Python worker process, as the local engine does
    _, pipeline = build_pipeline(spec, Status(worker_id=_EXECUTOR), registry=registry, **kwargs)
    return pipeline


def _error_counts(metrics: ErrorMetrics, before: Mapping[str, int] | None = None) -> dict[str, int]:
    """The counters now, less ``before`` (a kept pipeline's counters at the cycle's start)."""
    counts = {f.name: int(getattr(metrics, f.name)) for f in dataclasses.fields(metrics)}
    if before:
        for name, value in before.items():
            if name != "last_error_timestamp":
                counts[name] -= value
    return counts


# -- pipelines kept across cycles ---------------------------------------------------------
# A reused Python worker keeps a task's started pipeline (plugin task, Kafka client,
# converters, transforms) after a cycle that succeeded, so that the task's next cycle in this
# process skips starting the task and creating its clients. The next cycle takes it only when
# it ``follows`` that very cycle: the driver committed the kept cycle's result and ran no other
# cycle of the task since (elsewhere, or one that failed), so the kept task stands exactly
# where the committed offsets say. Any other cycle closes it and starts afresh from the
# committed offsets, as every cycle did before. A cycle that fails closes its pipeline.
# Pipelines nobody took for _KEEP_IDLE_S (a stopped, paused or deleted task) are closed.
_KEEP_IDLE_S = 30.0


@dataclass(slots=True)
class _Kept:
    pipeline: SourcePipeline | SinkPipeline
    configs: tuple[Any, ...]
    cycle_id: str
    used: float


_kept: dict[tuple[str, str, int], _Kept] = {}
_kept_lock = threading.Lock()
_reaper: list[threading.Thread] = []


def _configs(cycle: SourceCycle | SinkCycle) -> tuple[Any, ...]:
    return (
        cycle.task_config,
        cycle.connector_config,
        cycle.worker_props,
        cycle.plugin_locations,
    )


def _key(cycle: SourceCycle | SinkCycle) -> tuple[str, str, int]:
    return (type(cycle).__name__, cycle.connector, cycle.task)


def _take(cycle: SourceCycle | SinkCycle) -> SourcePipeline | SinkPipeline | None:
    """The task's kept pipeline when this cycle follows the one that kept it; else None."""
    with _kept_lock:
        kept = _kept.pop(_key(cycle), None)
    if kept is None:
        return None
    if cycle.follows and kept.cycle_id == cycle.follows and kept.configs == _configs(cycle):
        return kept.pipeline
    _close_quietly(kept.pipeline)
    return None


def _keep(cycle: SourceCycle | SinkCycle, pipeline: SourcePipeline | SinkPipeline) -> str:
    """Keep ``pipeline`` for the task's next cycle in this process; the id that cycle follows."""
    cycle_id = uuid.uuid4().hex
    with _kept_lock:
        old = _kept.pop(_key(cycle), None)
        _kept[_key(cycle)] = _Kept(pipeline, _configs(cycle), cycle_id, time.monotonic())
        if not _reaper:
            reaper = threading.Thread(target=_reap, name="kconnect-spark-kept", daemon=True)
            _reaper.append(reaper)
            reaper.start()
    if old is not None:
        _close_quietly(old.pipeline)
    return cycle_id


def _reap() -> None:
    while True:
        time.sleep(_KEEP_IDLE_S / 6)
        limit = time.monotonic() - _KEEP_IDLE_S
        with _kept_lock:
            idle = [key for key, kept in _kept.items() if kept.used < limit]
            closing = [_kept.pop(key) for key in idle]
        for kept in closing:
            _close_quietly(kept.pipeline)


def _close_quietly(pipeline: SourcePipeline | SinkPipeline) -> None:
    try:
        pipeline.close()
    except Exception:
        log.exception("task %s: closing its kept pipeline failed", pipeline.runner.name)


def merge_error_counts(metrics: ErrorMetrics, counts: Mapping[str, int]) -> None:
    """Add one cycle's error counters to a task's metrics on the driver."""
    for name, value in counts.items():
        if name == "last_error_timestamp":
            metrics.last_error_timestamp = max(metrics.last_error_timestamp, value)
        elif hasattr(metrics, name):
            setattr(metrics, name, getattr(metrics, name) + value)


def _offset_items(offsets: _Offsets) -> list[str]:
    """Each (partition, offset) pair as a comparable key."""
    return [offset_key("", p) + "\x00" + offset_key("", o) for p, o in offsets]


def _new_offsets(offsets: _Offsets, before: set[str]) -> _Offsets:
    """The pairs of ``offsets`` that are not in ``before`` (moved in this cycle)."""
    return tuple(
        pair
        for pair, item in zip(offsets, _offset_items(offsets), strict=True)
        if item not in before
    )


def run_source_cycle(cycle: SourceCycle) -> SourceCycleResult:
    """Run one source cycle on an executor (see ``_source_cycle``), with the warnings it logged."""
    with _CycleWarnings() as warned:
        result = _source_cycle(cycle)
    return (
        dataclasses.replace(result, warnings=tuple(warned.messages)) if warned.messages else result
    )


def _source_cycle(cycle: SourceCycle) -> SourceCycleResult:
    """Run one source cycle on an executor.

    Starts the task on the committed offsets (or takes the task this process kept started
    after the cycle this one follows), polls a bounded batch, sends it and waits for every
    acknowledgement. Raises (failing the Spark task, which Spark retries) when a record is
    neither acknowledged nor tolerated: the driver then commits nothing, and the next
    attempt starts from the same offsets.
    """
    timer = CycleTimer()
    bootstrap = str(cycle.producer_config["bootstrap.servers"])
    kept = _take(cycle)
    if kept is None:
        store = MemoryOffsetStore()
        store.put(
            cycle.connector,
            {offset_key(cycle.connector, p): (p, o) for p, o in cycle.committed},
        )
        fresh = _pipeline(
            cycle,
            cycle.producer_config,
            sink=False,
            offset_store=store,
            known_topics={t for b, t in _known_topics if b == bootstrap},
        )
        assert isinstance(fresh, SourcePipeline)
        pipeline = fresh
    else:
        assert isinstance(kept, SourcePipeline)
        pipeline = kept
    runner = pipeline.runner
    runner.records_in = runner.records_out = 0
    errors_before = _error_counts(runner.metrics.errors)
    # A kept pipeline's committable offsets include its earlier cycles' (committed already).
    offsets_before = set(_offset_items(pipeline.committable_offsets()))
    label = f"connector {cycle.connector!r} task {cycle.task}"
    done = False
    try:
        if kept is None:
            pipeline.open()
            pipeline.start_task()
        timer.lap("start" if kept is None else "take")
        deadline = time.monotonic() + cycle.max_ms / 1000
        drained = False
        while runner.records_in < cycle.max_records and time.monotonic() < deadline:
            if not pipeline.poll_and_send():
                # A source that had data and now has none is drained for this cycle, and so
                # is a kept one; one just started that has produced nothing yet may still be
                # warming up, so it gets the whole cycle.
                if runner.records_in or kept is not None:
                    drained = True
                    break
                continue
            pipeline.serve_acks()
        timer.lap("poll")
        remaining = pipeline.flush(cycle.flush_timeout_s)
        if remaining:
            raise ConnectError(
                f"{label}: {remaining} records were not acknowledged by Kafka within "
                f"offset.flush.timeout.ms ({cycle.flush_timeout_s * 1000:.0f} ms); the cycle "
                "fails so that its records are sent again from the last committed offsets"
            )
        pipeline.collect_acks()  # raises when the broker refused a record not tolerated
        # Records sent to the DLQ must be there before the driver commits offsets past them.
        pipeline.flush_errors()
        try:
            # Every record of the cycle is in Kafka now, so upstream may be acknowledged.
            pipeline.task.commit()
        except Exception:
            log.exception("%s: commit() raised", label)
        timer.lap("flush")
        result = SourceCycleResult(
            runner.records_in,
            runner.records_out,
            _new_offsets(pipeline.committable_offsets(), offsets_before),
            _error_counts(runner.metrics.errors, errors_before),
            _keep(cycle, pipeline),
            timer.result(),
            full=not drained and runner.records_in > 0,
        )
        done = True
        return result
    finally:
        _known_topics.update((bootstrap, t) for t in pipeline.known_topics)
        if not done:
            pipeline.close()


def run_sink_cycle(cycle: SinkCycle) -> SinkCycleResult:
    """Run one sink cycle on an executor (see ``_sink_cycle``), with the warnings it logged."""
    with _CycleWarnings() as warned:
        result = _sink_cycle(cycle)
    return (
        dataclasses.replace(result, warnings=tuple(warned.messages)) if warned.messages else result
    )


def _sink_cycle(cycle: SinkCycle) -> SinkCycleResult:
    """Run one sink cycle on an executor: consume the planned ranges, put, pre-commit.

    Its consumer is assigned (never subscribed), so it joins no group: the driver owns the
    group's offsets and commits what the cycle returns. The started task and its consumer are
    kept for the task's next cycle in this process (see ``_take``).
    """
    timer = CycleTimer()
    kept = _take(cycle)
    if kept is None:
        fresh = _pipeline(
            cycle,
            cycle.consumer_config,
            sink=True,
            offset_store=MemoryOffsetStore(),
            # As Kafka Connect: a failed pre_commit is not a task failure. Nothing is
            # committed, so the next cycle starts again from the last committed offsets.
            rewind_on_failed_pre_commit=False,
        )
        assert isinstance(fresh, SinkPipeline)
        pipeline = fresh
    else:
        assert isinstance(kept, SinkPipeline)
        pipeline = kept
    runner = pipeline.runner
    runner.records_in = runner.records_out = 0
    errors_before = _error_counts(runner.metrics.errors)
    ends = {TopicPartition(r.topic, r.partition): r.end for r in cycle.ranges}
    starts = {TopicPartition(r.topic, r.partition): r.start for r in cycle.ranges}
    current = pipeline.current
    current.clear()
    done = False
    try:
        if kept is None:
            pipeline.open(
                # The end of a partition is where a range ends when it holds fewer records
                # than the bound (some brokers' ListOffsets, which the driver plans with, lag).
                {"enable.auto.commit": False, "enable.partition.eof": True}
            )
            pipeline.start_task()
        timer.lap("start" if kept is None else "take")
        tps = sorted(ends)
        pipeline.open_partitions(tps)
        for tp, offset in pipeline.take_seeks().items():
            if tp in starts:
                starts[tp] = offset
                current[tp] = offset
        pending = {tp for tp in tps if starts[tp] < ends[tp]}
        if pending:
            pipeline.assign({tp: starts[tp] for tp in pending})
        deadline = time.monotonic() + cycle.max_ms / 1000
        fetched: set[TopicPartition] = set()
        while pending and time.monotonic() < deadline:
            _consume_once(pipeline, pending, starts, ends, fetched)
        timer.lap("consume")
        # Ended by the deadline, or some range by its bound: there is more to read.
        full = bool(pending) or any(current.get(tp, -1) >= end for tp, end in ends.items())
        commit: Mapping[TopicPartition, int] = {}
        if current:
            to_commit = pipeline.pre_commit(current)
            if to_commit:
                # Records reported to the DLQ must be there before offsets past them are
                # committed; a DLQ that does not acknowledge fails the cycle.
                pipeline.flush_errors()
                commit = to_commit
        pipeline.close_partitions(tps)
        highs = pipeline.high_watermarks(tps)
        # The next cycle assigns its own ranges; nothing is fetched for this one meanwhile.
        pipeline.assign({})
        timer.lap("flush")
        result = SinkCycleResult(
            runner.records_in,
            runner.records_out,
            tuple((tp.topic, tp.partition, off) for tp, off in commit.items() if tp in ends),
            highs,
            _error_counts(runner.metrics.errors, errors_before),
            _keep(cycle, pipeline),
            timer.result(),
            full=full and runner.records_in > 0,
        )
        done = True
        return result
    finally:
        if not done:
            pipeline.close()


def _records_in_ranges(
    messages: list[Any], pending: set[TopicPartition], ends: Mapping[TopicPartition, int]
) -> set[TopicPartition] | None:
    """The partitions of ``messages`` when every message is a record inside a pending range,
    else None (a batch with an error or end-of-partition event, or past a range's end).

    A partition's messages come in offset order, so its last one being before the range's
    end says all are; the per-message work is C (``map`` over unbound accessors). A cycle
    of one range (the consumer is assigned only the cycle's ranges) checks the first and
    last message only.
    """
    if not all(map(_is_none, map(_error, messages))):
        return None
    if len(ends) == 1:
        first, final = messages[0], messages[-1]
        tp = TopicPartition(final.topic(), final.partition())
        if (
            tp in pending
            and final.offset() < ends[tp]
            and first.topic() == tp.topic
            and first.partition() == tp.partition
        ):
            return {tp}
        return None
    tps = zip(map(_topic, messages), map(_partition, messages), strict=True)
    # Records (no error) always carry their topic, partition and offset.
    last: dict[Any, Any] = dict(zip(tps, map(_offset, messages), strict=True))
    partitions = set()
    for (topic, partition), offset in last.items():
        tp = TopicPartition(topic, partition)
        if tp not in pending or offset >= ends[tp]:
            return None
        partitions.add(tp)
    return partitions


def _consume_once(
    pipeline: SinkPipeline,
    pending: set[TopicPartition],
    starts: Mapping[TopicPartition, int],
    ends: Mapping[TopicPartition, int],
    fetched: set[TopicPartition],
) -> None:
    """Consume one batch of the pending ranges; drop each range that is done from ``pending``.

    ``fetched``: the partitions this cycle has received records of; for them the consumer's
    high watermark comes from this cycle's own fetches.
    """
    current = pipeline.current
    # A short wait: consume() holds out for a full batch until its timeout, and a range's
    # last records (or a trickle's one) should not wait for a batch that is not coming.
    messages = pipeline.consume(_MAX_BATCH, _CONSUME_WAIT_S)
    at_end: dict[TopicPartition, int] = {}
    whole = _records_in_ranges(messages, pending, ends) if messages else None
    if whole is not None:
        # The usual bulk batch: no per-message Python step on top of the local engine's.
        good = messages
        fetched.update(whole)
    else:
        good = []
        for m in messages:
            err = m.error()
            tp = TopicPartition(m.topic(), m.partition())
            if err is None:
                if tp in pending and m.offset() < ends[tp]:
                    good.append(m)
                    fetched.add(tp)
            elif err.code() == KafkaError._PARTITION_EOF:
                if tp in pending:
                    pending.discard(tp)
                    at_end[tp] = min(m.offset(), ends[tp])
            elif err.fatal():
                raise ConnectError(
                    f"connector {pipeline.runner.id.connector!r} task "
                    f"{pipeline.runner.id.task}: consumer error: {err.str()}"
                )
    if good:
        # Conversion, transforms, put and errors.* exactly as on the local engine.
        pipeline.deliver(good)
    for tp, eof in at_end.items():
        # Past the last record: offsets without records (transaction markers) count.
        current[tp] = max(current.get(tp, starts[tp]), eof)
    # Positions, not record offsets, end a range: transaction markers and compaction
    # leave offsets that no record carries.
    positions = pipeline.positions(sorted(pending))
    for tp, position in positions.items():
        if position >= ends[tp]:
            pending.discard(tp)
            current[tp] = max(current.get(tp, ends[tp]), ends[tp])
    # A range whose records are all read up to the high watermark of the fetch that brought
    # them (or a later one) is at the partition's end now: it ends here rather than after the
    # next fetch, which the broker holds up to fetch.wait.max.ms (500 ms) before it answers
    # with nothing and the consumer reports the end.
    reached = [tp for tp in pending if tp in fetched]
    if reached:
        for topic, partition, high in pipeline.high_watermarks(reached):
            tp = TopicPartition(topic, partition)
            position = positions.get(tp, -1)
            if 0 <= high <= position:
                pending.discard(tp)
                current[tp] = max(current.get(tp, starts[tp]), position)
