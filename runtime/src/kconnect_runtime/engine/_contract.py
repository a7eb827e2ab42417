"""The engine seam: where task code runs. The control plane is the same for every engine.

The worker decides what runs (a frozen :class:`~kconnect_runtime.tasks.TaskSpec` per task)
and hands it to ``Engine.start_task`` with the task's status; the engine builds what it
needs from the spec and returns the running task's handle, which the worker pauses,
resumes and stops, and whose status, counters and metrics it reports.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
import weakref
from typing import Protocol

from kconnect_sdk import ConnectError

from kconnect_runtime.metrics import PluginMetricsRegistry
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.status import State, Status
from kconnect_runtime.storage import OffsetStore
from kconnect_runtime.tasks import TaskRunner, TaskSpec

__all__ = ["Engine", "LivenessMonitor", "liveness_timeout_s"]

log = logging.getLogger("kconnect.engine")


class Engine(Protocol):
    """Where the tasks of a worker run (``engine=local`` or ``engine=spark``)."""

    name: str

    def bind(
        self,
        *,
        registry: PluginRegistry,
        offset_store: OffsetStore,
        plugin_metrics: PluginMetricsRegistry | None = None,
    ) -> None:
        """Called once by the worker: the plugins and the source offsets its tasks use, and
        where the plugins' own metrics are exported from."""
        ...

    def start_task(self, spec: TaskSpec, status: Status) -> TaskRunner:
        """Start the task ``spec`` describes; its state changes go to ``status``.

        Raises (ConfigError, ConnectError) when the task's plugins cannot be built; the
        task is then not running. ``spec.start_paused`` starts it paused.
        """
        ...

    def stop_task(self, runner: TaskRunner, timeout_s: float) -> bool:
        """Stop a task; False when it did not stop within ``timeout_s``."""
        ...


DEFAULT_LIVENESS_TIMEOUT_MS = 300000


def liveness_timeout_s(runner: TaskRunner) -> float:
    """The worker's ``task.liveness.timeout.ms`` for this runner, in seconds (0: no bound)."""
    raw = str(runner.worker_props.get("task.liveness.timeout.ms", "")).strip()
    try:
        ms = int(raw) if raw else DEFAULT_LIVENESS_TIMEOUT_MS
    except ValueError:
        ms = DEFAULT_LIVENESS_TIMEOUT_MS
    return max(ms, 0) / 1000


class LivenessMonitor:
    """Marks FAILED, with an explanatory trace, a task whose thread died or stopped progressing.

    A RUNNING task must show progress (its loop calls ``beat()`` once per batch, and while
    paused or waiting to retry) at least every ``task.liveness.timeout.ms``; a thread that
    ended without a final state is a failure too. Never leaves RUNNING with no thread behind it.
    """

    def __init__(self) -> None:
        self._runners: weakref.WeakSet[TaskRunner] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, runner: TaskRunner) -> None:
        with self._lock:
            self._runners.add(runner)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="task-liveness", daemon=True
                )
                self._thread.start()

    def _loop(self) -> None:
        """Check every second or so; end once no task is watched (``watch`` starts it again).

        A stopped worker's monitor thread used to stay for the process's life, one per
        engine ever made (tests and applications that start workers over and over).
        """
        while True:
            interval = self._check_all()
            with self._lock:
                if not self._runners:
                    self._thread = None
                    return
            time.sleep(interval)

    def _check_all(self) -> float:
        """Check every task once; how long to sleep before the next round.

        The list of runners lives only during the round: kept across the sleep,
        it held every task ever watched alive, since the next round's list was taken from
        the weak set while the previous list still referenced them: each deleted connector
        leaked its task, pipeline and plugin objects (30-50 kB).
        """
        with self._lock:
            runners = list(self._runners)
        interval = 1.0
        for runner in runners:
            if runner.stopping:  # for good: a restarted task has a runner of its own
                with self._lock:
                    self._runners.discard(runner)
                continue
            bound = liveness_timeout_s(runner)
            if bound:
                interval = min(interval, max(bound / 4, 0.05))
            self.check(runner, bound)
        return interval

    @staticmethod
    def check(runner: TaskRunner, bound_s: float) -> None:
        state = runner.status.state
        if state not in (State.RUNNING, State.PAUSED) or runner.stopping:
            return
        thread = runner.thread
        if thread is not None and not thread.is_alive():
            error: ConnectError = ConnectError(
                f"connector {runner.id.connector!r} task {runner.id.task}: the task thread ended "
                "without stopping cleanly; restart the task"
            )
        elif (
            bound_s and state is State.RUNNING and time.monotonic() - runner.last_progress > bound_s
        ):
            stack = ""
            frames = sys._current_frames()  # the only way to show where a thread is stuck
            if thread is not None and thread.ident in frames:
                stack = "".join(traceback.format_stack(frames[thread.ident]))
            error = ConnectError(
                f"connector {runner.id.connector!r} task {runner.id.task}: no progress for more "
                f"than task.liveness.timeout.ms={bound_s * 1000:.0f} ms (a poll, put or flush "
                "that blocks; SourceTask.poll should return None when there is no data); the "
                "task is asked to stop. Its thread was here:\n" + stack
            )
        else:
            return
        log.error("task %s is FAILED: %s", runner.name, error)
        runner.status.set(State.FAILED, error)
        runner.stop()
