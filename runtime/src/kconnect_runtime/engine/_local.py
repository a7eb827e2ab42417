"""``engine=local``: a thread per task in the worker process, driving the task's pipeline."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kconnect_runtime.logcontext import set_task_context
from kconnect_runtime.metrics import PluginMetricsRegistry
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.status import State, Status
from kconnect_runtime.storage import OffsetStore
from kconnect_runtime.tasks import (
    SinkPipeline,
    SourcePipeline,
    TaskRunner,
    TaskSpec,
    apply_gc_policy,
    build_pipeline,
)

from ._contract import LivenessMonitor

__all__ = ["LocalEngine"]

log = logging.getLogger("kconnect.engine")
source_log = logging.getLogger("kconnect.source")
sink_log = logging.getLogger("kconnect.sink")
task_log = logging.getLogger("kconnect.task")

MAX_BATCH = 5000  # messages a sink task's consumer hands over per poll

now = time.monotonic

# -- bounded repeats ------------------------------------------------------------------------
PROMPT_COMMIT_S = 1.0
"""How soon acknowledged (source) or put (sink) records' offsets are committed.

``offset.flush.interval.ms`` (Kafka's default: 60 s) stays an upper bound; committing
about once a second (only when offsets moved: one small file write or broker request)
means a kill -9 repeats about a second of data instead of up to a minute.
"""


def _commit_interval(runner: TaskRunner) -> float:
    return min(runner.spec.commit_interval_s, PROMPT_COMMIT_S)


class LocalEngine:
    """One thread per task, in this process (``engine=local``, the default)."""

    name = "local"

    def __init__(self) -> None:
        self.liveness = LivenessMonitor()
        self._registry: PluginRegistry | None = None
        self._offset_store: OffsetStore | None = None
        self._plugin_metrics: PluginMetricsRegistry | None = None

    def bind(
        self,
        *,
        registry: PluginRegistry,
        offset_store: OffsetStore,
        plugin_metrics: PluginMetricsRegistry | None = None,
    ) -> None:
        self._registry = registry
        self._offset_store = offset_store
        self._plugin_metrics = plugin_metrics

    def start_task(self, spec: TaskSpec, status: Status) -> TaskRunner:
        if self._registry is None or self._offset_store is None:
            raise RuntimeError("LocalEngine.start_task before bind(): the worker binds its engine")
        apply_gc_policy()  # once per process: batches of records, not a young heap per 700
        runner, pipeline = build_pipeline(
            spec,
            status,
            registry=self._registry,
            offset_store=self._offset_store,
            plugin_metrics=self._plugin_metrics,
        )
        if spec.start_paused:
            runner.pause()
        target: Callable[[TaskRunner, Any], None] = (
            _run_source if isinstance(pipeline, SourcePipeline) else _run_sink
        )
        thread = threading.Thread(
            target=_run, args=(runner, target, pipeline), name=f"task-{runner.name}", daemon=True
        )
        runner.thread = thread
        thread.start()
        self.liveness.watch(runner)
        return runner

    def stop_task(self, runner: TaskRunner, timeout_s: float) -> bool:
        runner.stop()
        if runner.thread is None:
            return True
        runner.thread.join(timeout_s)
        if runner.thread.is_alive():
            log.error(
                "task %s did not stop within task.shutdown.graceful.timeout.ms (%.0f ms); abandoning it",
                runner.name,
                timeout_s * 1000,
            )
            return False
        return True


def _run(
    runner: TaskRunner,
    loop: Callable[[TaskRunner, Any], None],
    pipeline: SourcePipeline | SinkPipeline,
) -> None:
    """The task thread's body. Never raises: failures become FAILED with the trace."""
    set_task_context(runner.id.connector, runner.id.task)
    runner.beat()
    try:
        loop(runner, pipeline)
    except BaseException as exc:
        task_log.error("task %s failed; it stays FAILED until restarted", runner.name, exc_info=exc)
        runner.status.set(State.FAILED, exc)
        runner.stop_plugin_task()
    else:
        if runner.status.state is not State.FAILED:
            runner.status.set(State.UNASSIGNED)


def _run_source(runner: TaskRunner, pipeline: SourcePipeline) -> None:
    """Poll and send until stopped, committing every offset.flush.interval.ms."""
    interval = _commit_interval(runner)
    pipeline.open()
    try:
        pipeline.start_task()
        runner.status.set(State.RUNNING)
        source_log.info("source task %s started", runner.name)
        next_commit = now() + interval
        while not runner.stopping:
            runner.beat()
            if not runner.wait_if_paused():
                break
            pipeline.poll_and_send()
            pipeline.serve_acks()
            if now() >= next_commit:
                pipeline.commit_offsets()
                next_commit = now() + interval
    finally:
        try:
            pipeline.drain_and_commit()
        finally:
            pipeline.close()


def _run_sink(runner: TaskRunner, pipeline: SinkPipeline) -> None:
    """Consume and deliver until stopped, committing every offset.flush.interval.ms."""
    interval = _commit_interval(runner)
    pipeline.open()
    try:
        pipeline.start_task()
        pipeline.subscribe()
        runner.status.set(State.RUNNING)
        sink_log.info(
            "sink task %s started; consuming %s", runner.name, ", ".join(pipeline.subscription)
        )
        next_commit = now() + interval
        while not runner.stopping:
            runner.beat()
            if not runner.wait_if_paused():
                break
            pipeline.apply_seeks()
            messages = pipeline.consume(MAX_BATCH, 0.5)
            if messages:
                pipeline.deliver(messages)
            else:
                pipeline.check_assignment()  # a group that never assigns
            if pipeline.take_commit_request() or now() >= next_commit:
                pipeline.commit()
                next_commit = now() + interval
        pipeline.commit()
        pipeline.close_partitions()
    finally:
        pipeline.close()
