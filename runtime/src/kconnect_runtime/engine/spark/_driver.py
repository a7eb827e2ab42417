"""The spark engine (``engine=spark``): connector tasks run as Spark jobs through PySpark.

The worker process is the Spark driver and keeps the control plane (configs, status,
connector instances, offsets). Each task gets a driver thread that runs it in cycles; one
cycle is one Spark job of one Spark task, which builds the task's pipeline on an executor
from plain configs (see ``_executor``), or goes on with the started pipeline that executor
process kept after the task's previous cycle, when the driver committed that cycle's result
and ran no other cycle of the task since:

- source: the driver passes the connector's committed offsets in; the Spark task starts a
  fresh task object on them (or goes on with the kept one, which stands exactly there),
  polls a bounded batch, produces it with an idempotent producer, waits for every
  acknowledgement and returns the last offsets it moved. The driver commits them to the offset store only after the job succeeded. A failed Spark task is
  retried by Spark from the same offsets; a job that fails for good fails the task.
- sink: the driver plans, per topic partition, the range from the consumer group's
  committed offset (``connect-<name>``) to the high watermark (bounded); the Spark task
  consumes it with an assigned consumer, puts and pre-commits; the driver commits the
  offsets pre_commit reported to the group, so lag tooling sees progress.

Delivery is at-least-once: a source cycle that fails after some of its records reached
Kafka sends them again (at most ``spark.source.batch.max.records`` times
``spark.cycle.growth.max`` per failed attempt: a cycle that ended on its bound with records
still coming is followed by one with twice the bounds, up to that factor).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
import tarfile
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from confluent_kafka import OFFSET_INVALID, Consumer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import ConnectError, PluginKind

from kconnect_runtime.config import (
    kafka_client_config,
    parse_spark_engine_config,
    spark_session_conf,
)
from kconnect_runtime.logcontext import kafka_logging
from kconnect_runtime.metrics import PluginMetricsRegistry
from kconnect_runtime.plugins import PluginRegistry, plugin_locations
from kconnect_runtime.status import State, Status
from kconnect_runtime.storage import OffsetStore, offset_key
from kconnect_runtime.tasks import (
    SinkPipeline,
    SourcePipeline,
    TaskRunner,
    TaskSpec,
    build_pipeline,
)

from ._executor import (
    PLAN_PROPERTY,
    ExecutorCheck,
    PartitionRange,
    PluginLocation,
    SinkCycle,
    SinkCycleResult,
    SourceCycle,
    SourceCycleResult,
    check_executor,
    encode_plan,
    merge_error_counts,
    run_planned,
    run_sink_cycle,
    run_source_cycle,
)

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import SparkSession

__all__ = ["CycleStats", "CycleTrace", "SparkEngine"]

log = logging.getLogger("kconnect.engine.spark")

T = TypeVar("T")
R = TypeVar("R")


@dataclass(slots=True)
class CycleTrace:
    """Where one cycle's wall time went, on the driver's clock (seconds)."""

    kind: str
    task: str
    records: int = 0
    gap: float = 0.0
    """From the end of the task's previous cycle to the start of this one (idle pauses)."""
    plan: float = 0.0
    """Driver work before the Spark job: offsets read, sink ranges planned."""
    to_executor: float = 0.0
    """Job submission until the cycle started on the executor (Spark scheduling, pickling)."""
    executor: float = 0.0
    """The cycle on the executor (see ``phases``)."""
    from_executor: float = 0.0
    """The cycle's return on the executor until the driver held its result."""
    commit: float = 0.0
    """Committing the cycle's offsets (offset store, or the sink's consumer group)."""
    phases: tuple[tuple[str, float], ...] = ()
    """The executor's phases: start or take, poll or consume, flush (see ``CycleTimer``)."""


@dataclass(slots=True)
class CycleStats:
    """Cycles run by the engine (all tasks), for monitoring and the benchmark."""

    cycles: int = 0
    empty_cycles: int = 0
    seconds: float = 0.0
    failed_tasks: int = 0
    """Task loops ended by an error (a Spark job that failed for good, an unreachable broker)."""
    traces: deque[CycleTrace] = field(default_factory=lambda: deque(maxlen=_TRACES_KEPT))
    """The last cycles' breakdowns, oldest first."""


_TRACES_KEPT = 10_000


class SparkEngine:
    """Runs tasks as Spark jobs; the calling process is the Spark driver.

    Args:
        worker_props: The worker config; its ``spark.*`` keys configure the session and the
            cycles (see ``docs/spark.md``).
        session: An existing classic SparkSession to use instead of building one; the
            engine then leaves it running on ``close()``.
    """

    name = "spark"

    def __init__(
        self, worker_props: Mapping[str, str], *, session: SparkSession | None = None
    ) -> None:
        parsed = parse_spark_engine_config(worker_props)
        self.source_max_records: int = parsed["spark.source.batch.max.records"]
        self.source_max_ms: int = parsed["spark.source.batch.max.ms"]
        self.sink_max_records: int = parsed["spark.sink.batch.max.records"]
        self.sink_max_ms: int = parsed["spark.sink.batch.max.ms"]
        self.idle_s: float = parsed["spark.cycle.idle.ms"] / 1000
        self.growth_max: int = parsed["spark.cycle.growth.max"]
        # A grown cycle's time bound stays within half the graceful stop timeout, so that
        # stopping a task under load waits for its cycle to end, not cancels its job.
        graceful_ms = int(worker_props.get("task.shutdown.graceful.timeout.ms", 5000))
        self.grown_max_ms: int = graceful_ms // 2
        self.stats = CycleStats()
        if worker_props.get("spark.remote") or (
            session is not None and type(session).__module__.startswith("pyspark.sql.connect")
        ):
            raise ConnectError(
                "engine=spark needs a classic SparkSession (it runs RDD jobs and cancels job "
                "groups); Spark Connect (spark.remote) cannot run it: set spark.master instead"
            )
        # A session that was already running in this process (a notebook's, a test's) is
        # only borrowed: the engine stops just the session it started itself.
        self._owns_session = session is None and not _session_running()
        self.session = session if session is not None else _build_session(worker_props)
        self._archive_dir: tempfile.TemporaryDirectory[str] | None = None
        try:
            self.plugin_locations: tuple[PluginLocation, ...] = self._plugin_locations(
                worker_props, str(parsed["spark.plugin.path.ship"]).lower()
            )
        except BaseException:
            self.close()
            raise
        self._lock = threading.Lock()
        # The running sink tasks of each connector, among which its partitions are shared.
        self._sink_tasks: dict[str, dict[int, TaskRunner]] = {}
        # Sink partitions a cycle is working on, so that two tasks of a connector never
        # read (or commit) the same partition at once.
        self._in_flight: dict[str, set[tuple[str, int]]] = {}
        self._groups: dict[str, _GroupOffsets] = {}  # per sink task, used by its loop only
        # Per task: the id of its last cycle whose result is committed. The next cycle
        # carries it, so that the executor process that ran that cycle goes on with the
        # started task it kept (see ``_executor._take``).
        self._follows: weakref.WeakKeyDictionary[TaskRunner, str] = weakref.WeakKeyDictionary()
        # Per task: the factor its next cycle's bounds are multiplied by (see _grow).
        self._growth: weakref.WeakKeyDictionary[TaskRunner, int] = weakref.WeakKeyDictionary()
        self._registry: PluginRegistry | None = None
        self._offset_store: OffsetStore | None = None
        # Per task: its configs with relative file paths made absolute (non-local master).
        self._paths: weakref.WeakKeyDictionary[
            TaskRunner, tuple[dict[str, str], dict[str, str]]
        ] = weakref.WeakKeyDictionary()
        # Per task: the executor warnings its status shows now (see _show_warnings).
        self._warned: weakref.WeakKeyDictionary[TaskRunner, tuple[str, ...]] = (
            weakref.WeakKeyDictionary()
        )
        self._job: RDD[Any] | None = None
        self.local = str(self.session.sparkContext.master).startswith("local")
        self.executor_check: ExecutorCheck | None = None
        """What the executors reported at start (a cluster only)."""
        if not self.local:
            try:
                self.executor_check = self._check_executors(worker_props)
            except BaseException:
                self.close()
                raise

    # -- Engine protocol -----------------------------------------------------------------
    def bind(
        self,
        *,
        registry: PluginRegistry,
        offset_store: OffsetStore,
        plugin_metrics: PluginMetricsRegistry | None = None,
    ) -> None:
        # Plugins' own metrics are recorded where their records are: on the executors, in
        # groups the worker does not export (docs/metrics.md says so); the driver's pipeline
        # never runs, so ``plugin_metrics`` has nothing to show.
        self._registry = registry
        self._offset_store = offset_store

    def start_task(self, spec: TaskSpec, status: Status) -> TaskRunner:
        from pyspark import InheritableThread

        if self._registry is None or self._offset_store is None:
            raise RuntimeError("SparkEngine.start_task before bind(): the worker binds its engine")
        # Built on the driver too, as the local engine builds it: bad plugin configs fail
        # here, at once, and the task object reports the version the status shows. Its
        # cycles build their own pipelines on executors; this one is never started.
        runner, pipeline = build_pipeline(
            spec, status, registry=self._registry, offset_store=self._offset_store
        )
        self._paths[runner] = (
            self._absolute_paths(runner, spec.task_config),
            self._absolute_paths(runner, spec.connector_config),
        )
        if spec.start_paused:
            runner.pause()
        body = self._run_source if runner.kind == "source" else self._run_sink
        if runner.kind == "sink":
            with self._lock:
                self._sink_tasks.setdefault(runner.id.connector, {})[runner.id.task] = runner
        # InheritableThread keeps this thread's Spark job group its own (pinned thread mode).
        thread = InheritableThread(
            target=self._loop, args=(runner, pipeline, body), name=f"spark-{runner.name}"
        )
        thread.daemon = True
        runner.thread = thread
        # RUNNING from now: the task's cycles are scheduled (each goes on with the started
        # task its executor process kept, or starts it anew).
        runner.status.set(State.RUNNING)
        thread.start()
        return runner

    def stop_task(self, runner: TaskRunner, timeout_s: float) -> bool:
        """Stop after the current cycle; cancel its Spark job when that takes longer than ``timeout_s``."""
        runner.stop()
        thread = runner.thread
        if thread is None:
            return True
        thread.join(timeout_s)
        if thread.is_alive():
            log.error(
                "task %s: its Spark job did not finish within task.shutdown.graceful.timeout.ms "
                "(%.0f ms); cancelling it (its uncommitted records are sent again on restart)",
                runner.name,
                timeout_s * 1000,
            )
            self.session.sparkContext.cancelJobGroup(_job_group(runner))
            thread.join(5)
            return not thread.is_alive()
        return True

    def close(self) -> None:
        """Stop the SparkSession when the engine built it; remove the packed plugin locations."""
        try:
            if self._owns_session:
                self.session.stop()
        finally:
            if self._archive_dir is not None:
                self._archive_dir.cleanup()
                self._archive_dir = None

    # -- plugin.path on executors ----------------------------------------------------------
    def _plugin_locations(
        self, worker_props: Mapping[str, str], ship: str
    ) -> tuple[PluginLocation, ...]:
        """The worker's plugin.path locations, each packed and shipped to executors if asked.

        ``auto`` ships unless the master is local (whose executors see the driver's disk).
        A shipped location is a tar.gz of the venv added with ``SparkContext.addArchive``;
        executors unpack it and run its plugin hosts from the copy (see docs/spark.md for
        what must match on the cluster).
        """
        locations = plugin_locations(worker_props.get("plugin.path"))
        if not locations:
            return ()
        sc = self.session.sparkContext
        if ship == "false" or (ship == "auto" and str(sc.master).startswith("local")):
            return tuple(PluginLocation(str(loc)) for loc in locations)
        self._archive_dir = tempfile.TemporaryDirectory(prefix="kconnect-plugin-archives-")
        out = []
        for location in locations:
            digest = hashlib.sha256(str(location.resolve()).encode()).hexdigest()[:10]
            name = f"kconnect-plugins-{location.name}-{digest}.tar.gz"
            archive = os.path.join(self._archive_dir.name, name)
            started = time.monotonic()
            with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
                # Symlinks stay symlinks: a venv's bin/python points at its base interpreter.
                tar.add(str(location), arcname=".")
            sc.addArchive(archive)
            log.info(
                "plugin.path location %s shipped to executors as %s (%.1f MB, packed in %.1f s)",
                location,
                name,
                os.path.getsize(archive) / 1e6,
                time.monotonic() - started,
            )
            out.append(PluginLocation(str(location), name))
        return tuple(out)

    # -- driver loops --------------------------------------------------------------------
    def _loop(
        self,
        runner: TaskRunner,
        pipeline: SourcePipeline | SinkPipeline,
        body: Callable[[TaskRunner, CycleTrace], bool],
    ) -> None:
        sc = self.session.sparkContext
        sc.setJobGroup(_job_group(runner), f"kconnect {runner.kind} task {runner.name}", True)
        log.info("%s task %s runs on Spark (%s)", runner.kind, runner.name, sc.master)
        ended = time.monotonic()
        try:
            while not runner.stopping:
                if not runner.wait_if_paused():
                    break
                started = time.monotonic()
                trace = CycleTrace(runner.kind, runner.name, gap=started - ended)
                moved = body(runner, trace)
                runner.beat()
                ended = time.monotonic()
                with self._lock:
                    self.stats.cycles += 1
                    self.stats.seconds += ended - started
                    self.stats.traces.append(trace)
                    if not moved:
                        self.stats.empty_cycles += 1
                if not moved and self._pause(runner, ended - started):
                    break
        except BaseException as exc:
            with self._lock:
                self.stats.failed_tasks += 1
            log.error("task %s failed; it stays FAILED until restarted", runner.name, exc_info=exc)
            runner.status.set(State.FAILED, exc)
        else:
            runner.status.set(State.UNASSIGNED)
        finally:
            with self._lock:
                running = self._sink_tasks.get(runner.id.connector, {})
                # A restarted task's new runner may be registered already: keep that one.
                if running.get(runner.id.task) is runner:
                    del running[runner.id.task]
                group = self._groups.pop(runner.name, None)
            if group is not None:
                group.close()
            # The driver-side pipeline was built but never started.
            runner.stop_plugin_task()
            pipeline.converters.close()
            pipeline.transforms.close()

    def run_on_executor(self, func: Callable[[T], R], arg: T) -> R:
        """``func(arg)`` as one Spark task, in a Python worker of an executor: one Spark job.

        Every cycle is such a job, and all of them collect the same one-element RDD, built
        once per engine with its Python function (``run_planned``) handed to the JVM once;
        ``func`` and ``arg`` travel as a local property of the calling thread's job, which
        Spark sends with the task (and with each retry of it). Building an RDD, a closure and
        a Python function per cycle cost about 20 calls from the driver into its JVM, each a
        round trip that waits for a JVM thread on a busy machine. Spark errors propagate as
        PySpark raises them.
        """
        sc = self.session.sparkContext
        with self._lock:
            if self._job is None:
                self._job = sc.parallelize([0], 1).map(run_planned)
            job = self._job
        sc.setLocalProperty(PLAN_PROPERTY, encode_plan(func, arg))
        try:
            results: list[R] = job.collect()
        finally:
            sc.setLocalProperty(PLAN_PROPERTY, None)  # type: ignore[arg-type]  # None removes it
        return results[0]

    def _run_job(self, runner: TaskRunner, func: Callable[[T], R], plan: T, trace: CycleTrace) -> R:
        submitted = time.time()
        try:
            result = self.run_on_executor(func, plan)
        except Exception as exc:
            raise ConnectError(
                f"connector {runner.id.connector!r} task {runner.id.task}: its Spark job failed "
                f"(after spark.task.maxFailures attempts); the executor reported:\n"
                f"{_executor_trace(exc)}"
            ) from None
        received = time.time()
        timings = dict(getattr(result, "timings", ()))
        entered, left = timings.pop("entered", submitted), timings.pop("left", received)
        trace.to_executor = max(0.0, entered - submitted)
        trace.executor = max(0.0, left - entered)
        trace.from_executor = max(0.0, received - left)
        trace.phases = tuple(timings.items())
        return result

    def _pause(self, runner: TaskRunner, took_s: float) -> bool:
        """Wait after a cycle that moved nothing; True when the task is stopping.

        The pause is what is left of ``spark.cycle.idle.ms`` after the empty cycle itself
        (``took_s``): a task whose empty cycle waited that long already (a source whose
        ``poll`` blocks) runs its next one at once, and no task runs more than one empty
        cycle per ``spark.cycle.idle.ms``. A sink task whose partitions had nothing to read
        ends the pause as soon as one of them has, and one whose topics did not exist yet as
        soon as one does (the driver asks for the high watermarks or the topics, first after
        10 ms, then at most every 100 ms); any other task waits the whole pause.
        """
        idle_s = self.idle_s - took_s
        if idle_s <= 0:
            return runner.stopping
        group = self._groups.get(runner.name) if runner.kind == "sink" else None
        if group is None or not (group.idle_positions or group.awaiting_partitions):
            return runner.wait_stopping(idle_s)
        deadline = time.monotonic() + idle_s
        step = 0.01
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if runner.wait_stopping(min(step, remaining)):
                return True
            step = min(step * 2, 0.1)
            if group.has_new_records():
                return False

    def _bounds(self, runner: TaskRunner) -> int:
        """The factor by which the task's next cycle multiplies its records (and time) bound."""
        with self._lock:
            return self._growth.get(runner, 1)

    def _grown_ms(self, configured_ms: int, factor: int, grown_ms: int) -> int:
        """A cycle's time bound: as configured at x1; when grown, ``grown_ms`` but at most
        half of task.shutdown.graceful.timeout.ms (never below the configured x1 bound)."""
        if factor == 1:
            return configured_ms
        return min(grown_ms, max(self.grown_max_ms, min(configured_ms, grown_ms)))

    def _grow(self, runner: TaskRunner, factor: int, full: bool) -> None:
        """After a full cycle the next one gets twice the bounds, up to spark.cycle.growth.max;
        after any other (the source or partitions drained) it goes back to the configured ones."""
        with self._lock:
            self._growth[runner] = min(factor * 2, self.growth_max) if full else 1

    def _follow(self, runner: TaskRunner) -> str:
        """The cycle the task's next cycle follows, forgotten until that one is committed."""
        with self._lock:
            return self._follows.pop(runner, "")

    def _run_source(self, runner: TaskRunner, trace: CycleTrace) -> bool:
        planned = time.monotonic()
        connector = runner.id.connector
        factor = self._bounds(runner)
        spec = runner.spec
        store = self._offset_store
        assert store is not None  # bound before any task starts
        task_config, connector_config = self._configs(runner)
        plan = SourceCycle(
            connector=connector,
            task=runner.id.task,
            task_config=task_config,
            connector_config=connector_config,
            parsed_config=dict(spec.parsed_config),
            worker_props=dict(spec.worker_props),
            producer_config=dict(spec.client_config),
            committed=tuple(store.connector_offsets(connector)),
            max_records=self.source_max_records * factor,
            max_ms=self._grown_ms(self.source_max_ms, factor, self.source_max_ms * factor),
            flush_timeout_s=spec.flush_timeout_s,
            topic_creation=spec.topic_creation,
            plugin_locations=self.plugin_locations,
            follows=self._follow(runner),
        )
        trace.plan = time.monotonic() - planned
        result: SourceCycleResult = self._run_job(runner, run_source_cycle, plan, trace)
        committing = time.monotonic()
        merge_error_counts(runner.metrics.errors, result.errors)
        if result.offsets:
            store.put(connector, {offset_key(connector, p): (p, o) for p, o in result.offsets})
            store.flush()
        trace.commit = time.monotonic() - committing
        trace.records = result.polled
        self._grow(runner, factor, result.full)
        # Committed: the executor that ran this cycle may go on with the task it kept.
        with self._lock:
            self._follows[runner] = result.cycle_id
        runner.records_in += result.polled
        runner.records_out += result.produced
        _count_source_cycle(runner, result, trace.commit)
        self._show_warnings(runner, result.warnings, moved=result.polled > 0)
        return result.polled > 0

    def _run_sink(self, runner: TaskRunner, trace: CycleTrace) -> bool:
        planned = time.monotonic()
        connector = runner.id.connector
        group = self._groups.get(runner.name)
        if group is None:
            group = self._groups[runner.name] = _GroupOffsets(runner)
        partitions = group.partitions()
        group.awaiting_partitions = not partitions
        with self._lock:
            tasks = sorted(self._sink_tasks.get(connector) or {runner.id.task: runner})
            index = tasks.index(runner.id.task) if runner.id.task in tasks else 0
            busy = self._in_flight.setdefault(connector, set())
            # Round-robin over the connector's running tasks, as a range of the group would.
            mine = [tp for i, tp in enumerate(partitions) if i % len(tasks) == index]
            mine = [tp for tp in mine if tp not in busy]
            busy.update(mine)
        try:
            factor = self._bounds(runner)
            ranges = group.plan(mine, self.sink_max_records * factor)
            trace.plan = time.monotonic() - planned
            if not ranges:
                return False
            spec = runner.spec
            task_config, connector_config = self._configs(runner)
            plan = SinkCycle(
                connector=connector,
                task=runner.id.task,
                task_config=task_config,
                connector_config=connector_config,
                parsed_config=dict(spec.parsed_config),
                worker_props=dict(spec.worker_props),
                consumer_config=dict(spec.client_config),
                ranges=tuple(ranges),
                max_ms=self._grown_ms(self.sink_max_ms, factor, self.sink_max_ms),
                plugin_locations=self.plugin_locations,
                follows=self._follow(runner),
            )
            trace.plan = time.monotonic() - planned
            result: SinkCycleResult = self._run_job(runner, run_sink_cycle, plan, trace)
            committing = time.monotonic()
            merge_error_counts(runner.metrics.errors, result.errors)
            group.commit(result.commit)
            trace.commit = time.monotonic() - committing
            trace.records = result.consumed
            self._grow(runner, factor, result.full)
            # Committed: the executor that ran this cycle may go on with the task it kept.
            with self._lock:
                self._follows[runner] = result.cycle_id
            group.saw_high_watermarks(result.high_watermarks)
            runner.records_in += result.consumed
            runner.records_out += result.put
            _count_sink_cycle(runner, result, trace.commit, len(mine))
            self._show_warnings(runner, result.warnings, moved=result.consumed > 0)
            return result.consumed > 0
        finally:
            with self._lock:
                busy.difference_update(mine)

    # -- what a cluster's executors need ---------------------------------------------------
    def _check_executors(self, worker_props: Mapping[str, str]) -> ExecutorCheck:
        """Run one Spark task that loads, as every cycle will, the plugins the worker config
        names (converters, header converter); fail the worker's start, naming what to
        install, when the executors cannot import kconnect or find one of them."""
        needs = tuple(
            (key, kind, name)
            for key, kind, name in (
                ("key.converter", PluginKind.CONVERTER, worker_props.get("key.converter", "")),
                (
                    "value.converter",
                    PluginKind.CONVERTER,
                    worker_props.get("value.converter", ""),
                ),
                (
                    "header.converter",
                    PluginKind.HEADER_CONVERTER,
                    worker_props.get("header.converter", _DEFAULT_HEADER_CONVERTER),
                ),
            )
            if name.strip()
        )
        sc = self.session.sparkContext
        python = str(sc.pythonExec)
        try:
            found: ExecutorCheck = self.run_on_executor(
                check_executor, (self.plugin_locations, needs)
            )
        except Exception as exc:
            raise ConnectError(
                f"engine=spark: the executors of {sc.master} cannot run kconnect's cycles with "
                f"Python {python!r}: {_executor_trace(exc).splitlines()[-1]}. Give them an "
                "environment that has kconnect-runtime and the plugins (spark.archives with a "
                "packed venv and spark.pyspark.python=./environment/bin/python, see "
                'docs/spark.md "Running on a standalone cluster")'
            ) from None
        if found.missing:
            raise ConnectError(
                f"engine=spark: the executors' Python ({found.python}) cannot load plugins the "
                "worker config names; install their packages in the executors' environment: "
                + "; ".join(found.missing)
            )
        log.info(
            "executors run Python %s with kconnect-runtime from %s", found.python, found.runtime
        )
        return found

    def _absolute_paths(self, runner: TaskRunner, config: Mapping[str, str]) -> dict[str, str]:
        """``config`` with relative file paths made absolute against the worker's directory.

        Executors of a cluster resolve a relative path in their own work directory, where
        the file is not: a source would read nothing and a sink write where nobody looks.
        The worker's own directory is what the user meant, as on the local engine; each
        change is logged as a warning.
        """
        out = dict(config)
        if self.local:
            return out
        for key, value in config.items():
            if not _PATH_KEY.search(key) or not value or "://" in value:
                continue
            if os.path.isabs(value) or value.startswith("~"):
                continue
            out[key] = os.path.abspath(value)
            log.warning(
                "connector %r task %d: config %r is a relative path (%r); executors of %s would "
                "resolve it in their own work directories, so it is taken as %r (the worker's "
                "working directory). Give an absolute path to silence this warning",
                runner.id.connector,
                runner.id.task,
                key,
                value,
                self.session.sparkContext.master,
                out[key],
            )
        return out

    def _configs(self, runner: TaskRunner) -> tuple[dict[str, str], dict[str, str]]:
        paths = self._paths.get(runner)
        if paths is None:
            return dict(runner.spec.task_config), dict(runner.spec.connector_config)
        return dict(paths[0]), dict(paths[1])

    def _show_warnings(self, runner: TaskRunner, warnings: tuple[str, ...], *, moved: bool) -> None:
        """Log a cycle's executor warnings and show them in the task's status trace until a
        cycle moves records without any (the state stays RUNNING)."""
        for text in warnings:
            log.warning("task %s: the executor reported: %s", runner.name, text)
        if runner.status.state is not State.RUNNING:
            return  # a paused or stopping task's last cycle: its state is not for us to change
        shown = self._warned.get(runner, ())
        if warnings and warnings != shown:
            self._warned[runner] = warnings
            runner.status.set(
                State.RUNNING,
                ConnectError(
                    "the task runs, but its last cycle on a Spark executor warned:\n"
                    + "\n".join(warnings)
                ),
            )
        elif shown and not warnings and moved:
            del self._warned[runner]
            runner.status.set(State.RUNNING)

    def measure_empty_cycle(self, repeat: int = 5) -> float:
        """Seconds of the fastest one-task Spark job that does nothing: the floor of any cycle."""
        best = float("inf")
        for _ in range(repeat):
            started = time.monotonic()
            self.run_on_executor(_identity, 0)
            best = min(best, time.monotonic() - started)
        return best


def _identity(value: int) -> int:
    return value


class _GroupOffsets:
    """The driver's view of a sink connector's consumer group: plan ranges, commit offsets.

    The consumer never subscribes, so it never joins the group; it only reads and commits
    the group's offsets (as an admin tool would).
    """

    def __init__(self, runner: TaskRunner) -> None:
        config = dict(runner.spec.client_config)
        self.where = f"connector {runner.id.connector!r} task {runner.id.task}"
        self.reset = str(config.get("auto.offset.reset", "latest")).lower()
        self.subscription: list[str] = runner.spec.subscription
        config["enable.auto.commit"] = False
        self.consumer = Consumer(
            kafka_logging(kafka_client_config(config), f"offsets consumer of {self.where}")
        )
        # Some brokers (Tansu) answer ListOffsets with the start of the last batch, not
        # its end; the fetches of the last cycle know better.
        self.fetched_high: dict[tuple[str, int], int] = {}
        # Where each partition stood when the last plan found nothing to read in any of them.
        self.idle_positions: dict[tuple[str, int], int] = {}
        # Whether the last cycle found none of the subscribed topics.
        self.awaiting_partitions = False
        # Whether the broker's ListOffsets lags its fetches (answers the start of the last
        # batch, as Tansu does): then a high watermark equal to the position means a new batch.
        self.lagging_list_offsets = False

    def close(self) -> None:
        self.consumer.close()

    def partitions(self) -> list[tuple[str, int]]:
        metadata = self.consumer.list_topics(timeout=10)
        patterns = [re.compile(s[1:]) for s in self.subscription if s.startswith("^")]
        names = {s for s in self.subscription if not s.startswith("^")}
        out: list[tuple[str, int]] = []
        for topic, meta in metadata.topics.items():
            if meta.error is not None:
                continue
            if topic in names or any(p.fullmatch(topic) for p in patterns):
                out.extend((topic, p) for p in meta.partitions)
        return sorted(out)

    def plan(self, partitions: list[tuple[str, int]], max_records: int) -> list[PartitionRange]:
        if not partitions:
            self.idle_positions = {}
            return []
        committed = self.consumer.committed(
            [KafkaTopicPartition(t, p) for t, p in partitions], timeout=10
        )
        ranges = []
        first_positions = []
        positions: dict[tuple[str, int], int] = {}
        for kp in committed:
            low, high = self.consumer.get_watermark_offsets(
                KafkaTopicPartition(kp.topic, kp.partition), timeout=10
            )
            start = kp.offset
            if start == OFFSET_INVALID or start < 0:
                start = low if self.reset in ("earliest", "smallest", "beginning") else high
                first_positions.append((kp.topic, kp.partition, start))
            start = max(start, low)
            positions[kp.topic, kp.partition] = start
            fetched_high = self.fetched_high.get((kp.topic, kp.partition), high)
            # A high watermark never goes back: one below what a fetch saw is a lagging answer.
            self.lagging_list_offsets = self.lagging_list_offsets or high < fetched_high
            high = max(high, fetched_high)
            if start < high:
                # The bound, not the watermark, ends the range: the executor reads on to
                # the partition's end as its fetches see it.
                ranges.append(PartitionRange(kp.topic, kp.partition, start, start + max_records))
        if self.reset not in ("earliest", "smallest", "beginning") and first_positions:
            # 'latest' means "from now on": pin that position, or every cycle would skip ahead.
            self.commit(tuple(first_positions))
        self.idle_positions = {} if ranges else positions
        return ranges

    def has_new_records(self) -> bool:
        """Whether a partition that was idle at the last plan has records past that point now
        (or, when the last cycle found no subscribed topic, whether one exists now)."""
        if self.awaiting_partitions:
            return bool(self.partitions())
        for (topic, partition), start in self.idle_positions.items():
            _, high = self.consumer.get_watermark_offsets(
                KafkaTopicPartition(topic, partition), timeout=10
            )
            if high > start or (self.lagging_list_offsets and high == start):
                return True
        return False

    def saw_high_watermarks(self, highs: tuple[tuple[str, int, int], ...]) -> None:
        for topic, partition, high in highs:
            key = (topic, partition)
            self.fetched_high[key] = max(high, self.fetched_high.get(key, high))

    def commit(self, offsets: tuple[tuple[str, int, int], ...]) -> None:
        if not offsets:
            return
        self.consumer.commit(
            offsets=[KafkaTopicPartition(t, p, o) for t, p, o in offsets], asynchronous=False
        )


_DEFAULT_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

# Config keys whose values are local file paths (FileStream's ``file``, ``*.file``, ``*.path``,
# ``*.filename``): made absolute for a cluster's executors. Directory prefixes of remote stores
# (the S3 sink's ``topics.dir``) are not paths on the executors' disks and are left alone.
_PATH_KEY = re.compile(r"(^file|\.file|\.filename|\.path)$")


def _job_group(runner: TaskRunner) -> str:
    return f"kconnect-{runner.name}"


_PY_TRACE = re.compile(r"Traceback \(most recent call last\):.*?(?=\n\tat |\n\s*at org\.|\Z)", re.S)


def _executor_trace(exc: BaseException) -> str:
    """The Python traceback from the executor inside a Spark error, without the JVM frames."""
    text = str(exc)
    found = _PY_TRACE.findall(text)
    return found[-1].strip() if found else text


def _session_running() -> bool:
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    # getActiveSession() is per thread; the process-wide context is what getOrCreate reuses.
    return SparkContext._active_spark_context is not None


def _session_defaults(conf: Mapping[str, str]) -> dict[str, str]:
    """The settings of a session the engine builds: ``conf`` plus the engine's defaults, each
    only where the worker config sets no value of its own (see docs/spark.md)."""
    out = dict(conf)
    # A worker logs; Spark's console progress bar would garble that log.
    out.setdefault("spark.ui.showConsoleProgress", "false")
    if out["spark.master"].startswith("local"):
        # A local master's JVM only schedules one-task jobs (Kafka I/O is in the Python
        # workers) and shares the cores with them: its C2 JIT compiler took 0.2-1.0 CPU-s of
        # each 1M-line benchmark run here; C1 only, the whole JVM took 0.37-0.47 (was 0.5-1.6).
        out.setdefault("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
    return out


def _executors_python(conf: Mapping[str, str]) -> None:
    """Set ``PYSPARK_PYTHON`` for the session about to start, and log it.

    PySpark takes the executors' interpreter only from the driver process's
    ``PYSPARK_PYTHON`` when its SparkContext starts; ``spark.pyspark.python`` and
    ``spark.executorEnv.PYSPARK_PYTHON`` act only through ``spark-submit``, which a worker
    does not go through. So the worker applies them itself (``spark.pyspark.python`` first,
    as spark-submit does). Without either, a local master's executors run this interpreter
    (and so see this environment's plugins); a cluster's keep an inherited PYSPARK_PYTHON.
    """
    for key in ("spark.pyspark.python", "spark.executorEnv.PYSPARK_PYTHON"):
        python = conf.get(key, "").strip()
        if python:
            previous = os.environ.get("PYSPARK_PYTHON")
            os.environ["PYSPARK_PYTHON"] = python
            log.info(
                "executors run Python %s (%s%s)",
                python,
                key,
                f"; replaces PYSPARK_PYTHON={previous}" if previous and previous != python else "",
            )
            return
    if conf["spark.master"].startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    log.info(
        "executors run Python %s (PYSPARK_PYTHON)", os.environ.get("PYSPARK_PYTHON", "python3")
    )


def _build_session(worker_props: Mapping[str, str]) -> SparkSession:
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ConnectError(
            "engine=spark needs PySpark: install kconnect-runtime[spark] (and Java 17)"
        ) from None
    conf = _session_defaults(spark_session_conf(worker_props))
    _executors_python(conf)
    builder: Any = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        session: SparkSession = builder.getOrCreate()
    except Exception as exc:
        raise ConnectError(
            f"engine=spark: cannot start a SparkSession with spark.master={conf['spark.master']} "
            f"({type(exc).__name__}: {exc}); check that Java 17 is installed (JAVA_HOME) and the "
            "master is reachable"
        ) from None
    return session


def _phase_ms(timings: tuple[tuple[str, float], ...], phase: str) -> float | None:
    found = [seconds for name, seconds in timings if name == phase]
    return found[0] * 1000 if found else None


def _count_source_cycle(runner: TaskRunner, result: SourceCycleResult, commit_s: float) -> None:
    """A source cycle in the task's metrics, as the local engine counts a poll loop: the
    records polled and written, the batch, its poll time and the offset commit."""
    metrics = runner.metrics
    metrics.poll_total += result.polled
    metrics.write_total += result.produced
    if result.polled:
        metrics.batch_size.record(result.polled)
        poll_ms = _phase_ms(result.timings, "poll")
        if poll_ms is not None:
            metrics.poll_batch_ms.record(poll_ms)
    if result.offsets:
        metrics.offset_commit_ms.record(commit_s * 1000)


def _count_sink_cycle(
    runner: TaskRunner, result: SinkCycleResult, commit_s: float, partitions: int
) -> None:
    """A sink cycle in the task's metrics, as the local engine counts consumed batches: the
    records read and put, the batch, the time it took to read and put them, the partitions
    it read and the commit."""
    metrics = runner.metrics
    metrics.read_total += result.consumed
    metrics.send_total += result.put
    metrics.partition_count = partitions
    if result.consumed:
        metrics.batch_size.record(result.consumed)
        put_ms = _phase_ms(result.timings, "consume")
        if put_ms is not None:
            metrics.put_batch_ms.record(put_ms)
    if result.commit:
        metrics.offset_commit_completions += 1
        metrics.offset_commit_ms.record(commit_s * 1000)
