"""A running task's state, whatever engine runs it: status, pause and stop, counters, metrics."""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kconnect_sdk import PluginMetricsGroup, Task

from kconnect_runtime.errors import DeadLetterQueue, ErrorHandler, ErrorPolicy
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.status import State, Status

from ._spec import TaskSpec

__all__ = ["GC_GEN0_THRESHOLD", "TaskRunner", "apply_gc_policy"]

log = logging.getLogger("kconnect.task")

GC_GEN0_THRESHOLD = 500_000
"""Young-generation threshold of the cyclic collector once tasks run (CPython's: 700).

A batch of records allocates tens of thousands of small containers (record tuples, offset
dicts, converted values) that all outlive the batch; at 700 the collector ran dozens of
times per batch, each time walking objects that were all alive. Records hold no reference
cycles, so collecting less often frees nothing later that matters. CPython's young count
goes up with each allocation and down with each free (never below zero), so the threshold
has to sit above what a pipeline holds in flight at once, not above one batch: a CDC
source with a full queue (16,384 rows of ~14 containers each) and records awaiting
acknowledgement went over 50,000 again and again, and each pass walked every young
object, all alive (1.6 s of collector in 9 s of streaming). Measured: FileStream pipeline
(200,000 lines, worker CPU) 0.75-0.87 s at 700 -> 0.65 s at 50,000; MySQL binlog into
Kafka (1,000,000 rows, lz4) 110,303 rows/s at 50,000 -> 124,211 at 200,000 and
130,438-133,085 at 1,000,000; the snapshot 99,552 -> 108,125 at 500,000
(docs/performance.md).
"""

_INTERPRETER_GEN0_THRESHOLD = 700  # CPython's default: only that is raised, never an app's own
_gc_lock = threading.Lock()
_gc_applied = threading.Event()


def apply_gc_policy() -> bool:
    """Tune the cyclic garbage collector for record batches, once per process.

    Called by an engine before its first task runs. It collects once, then freezes what
    start-up made (imported modules, plugin classes, configs: ``gc.freeze`` moves them out
    of every later collection's walk) and raises the young-generation threshold to
    :data:`GC_GEN0_THRESHOLD` when it is still the interpreter's default, so an embedding
    application that tuned the collector keeps its settings. Returns True the first time.
    The settings are process-wide (CPython has no per-thread collector). Objects frozen
    are still freed by reference counting; only a reference cycle among them that becomes
    garbage later stays (start-up objects live as long as the worker anyway).
    """
    with _gc_lock:
        if _gc_applied.is_set():
            return False
        _gc_applied.set()
    threshold = gc.get_threshold()
    if threshold[0] == _INTERPRETER_GEN0_THRESHOLD:
        gc.set_threshold(GC_GEN0_THRESHOLD, *threshold[1:])
    gc.collect()
    gc.freeze()
    log.debug("garbage collector tuned for record batches: thresholds %s", gc.get_threshold())
    return True


class TaskRunner:
    """The handle of one running task: what the worker, REST and the engine share.

    An engine creates it in ``start_task`` and drives the task's pipeline; the worker
    pauses, resumes and stops it and reads its status, counters and metrics. ``stop()``
    may be called from any thread; it asks the plugin task to stop when the task's
    ``stop()`` must unblock a ``poll`` (source tasks), and the engine's loop to finish,
    committing what it safely can.

    Args:
        spec: What runs.
        status: The task's status, owned by the worker (its listener persists changes).
        task: The plugin task object, for its ``version()`` and ``stop()``.
        stop_plugin_on_request: Whether ``stop()`` calls the plugin task's ``stop()`` at once
            (a source task's ``poll`` must be unblocked); a sink task is stopped by its own
            thread after its final flush and commit.
    """

    def __init__(
        self,
        spec: TaskSpec,
        status: Status,
        task: Task,
        *,
        stop_plugin_on_request: bool,
    ) -> None:
        self.spec = spec
        self.id = spec.id
        self.kind = spec.kind.value
        self.task = task
        self.status = status
        self.stop_plugin_on_request = stop_plugin_on_request
        self.records_in = 0  # records polled (source) or consumed (sink)
        self.records_out = 0  # records produced and acknowledged (source) or put (sink)
        self.metrics = TaskMetrics()
        self.error_policy = ErrorPolicy.from_config(spec.connector_config)
        # Monotonic time the loop last showed it is alive; the engine's liveness check reads it.
        self.last_progress = time.monotonic()
        self.thread: threading.Thread | None = None
        self._topics: Callable[[], set[str]] = set
        self._reset_topics: Callable[[], None] | None = None
        self._stopping = threading.Event()
        self._resumed = threading.Event()
        self._resumed.set()
        self._task_stopped = False
        self._stop_lock = threading.Lock()
        self._progress_logged = float("-inf")
        # The task's own plugin metrics (its context's) and those of its converters,
        # transforms and predicates: closed with the pipeline, as Kafka closes them. The
        # engine replaces this group with one its worker exports.
        self.plugin_metrics = PluginMetricsGroup(
            {"connector": spec.id.connector, "task": str(spec.id.task)}
        )
        self.plugin_metric_groups: list[PluginMetricsGroup] = []

    def close_plugin_metrics(self) -> None:
        self.plugin_metrics.close()
        for group in self.plugin_metric_groups:
            group.close()

    @property
    def name(self) -> str:
        return self.spec.name

    # -- progress of long work (snapshots, bulk loads) ----------------------------------------
    def report_progress(self, done: int, total: int | None = None) -> None:
        """Record a task's progress: status (``progress``), metrics, and a log line at most
        every :data:`PROGRESS_LOG_INTERVAL_S` (and when the work is done)."""
        done = max(int(done), 0)
        total = None if total is None else max(int(total), 0)
        metrics = self.metrics
        metrics.progress_done, metrics.progress_total = done, total
        self.status.progress = {"done": done, "total": total}
        at = time.monotonic()
        finished = total is not None and done >= total
        if finished or at - self._progress_logged >= PROGRESS_LOG_INTERVAL_S:
            self._progress_logged = at
            log.info("task %s progress: %s", self.name, describe_progress(done, total))

    @property
    def worker_props(self) -> Mapping[str, str]:
        return self.spec.worker_props

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    @property
    def active_topics(self) -> set[str]:
        """Topics the task has written to (source) or is consuming from (sink), as it shows."""
        return set(self._topics())

    def track_topics(
        self, topics: Callable[[], set[str]], reset: Callable[[], None] | None = None
    ) -> None:
        """Where :attr:`active_topics` comes from (the pipeline's view), and how the pipeline
        forgets them (``reset``, when it records topics as records pass)."""
        self._topics = topics
        self._reset_topics = reset

    def reset_topics(self) -> bool:
        """Forget the active topics (``PUT /connectors/{c}/topics/reset``) so that the next
        record names its topic again; False when the pipeline's topics are its assignment
        (a sink's), which only a new assignment changes."""
        if self._reset_topics is None:
            return False
        self._reset_topics()
        return True

    def beat(self) -> None:
        """Record that the loop made progress (once per batch, never per record)."""
        self.last_progress = time.monotonic()

    def wait_stopping(self, timeout_s: float) -> bool:
        """Sleep up to ``timeout_s`` unless asked to stop; True when asked to stop."""
        return self._stopping.wait(timeout_s)

    def error_handler(self, bootstrap_servers: str, client: Mapping[str, Any]) -> ErrorHandler:
        """The task's ``errors.*`` handler, with a DLQ producer when one is configured."""
        policy = self.error_policy
        dlq = None
        if policy.dlq_topic:
            # The DLQ producer shares the task client's security settings, not its tuning.
            security = {
                k: v
                for k, v in client.items()
                if k.startswith(("security.", "sasl.", "ssl.")) or k == "client.dns.lookup"
            }
            dlq = DeadLetterQueue(
                policy.dlq_topic,
                bootstrap_servers=bootstrap_servers,
                replication_factor=policy.dlq_replication_factor,
                metrics=self.metrics.errors,
                producer_settings={**security, "client.id": f"connector-dlq-producer-{self.id}"},
            )
        return ErrorHandler(
            policy,
            connector=self.id.connector,
            task=self.id.task,
            metrics=self.metrics.errors,
            stopping=self._stopping,
            dlq=dlq,
        )

    def stop(self) -> None:
        """Ask the task to stop; returns at once."""
        self._stopping.set()
        self._resumed.set()
        if self.stop_plugin_on_request:
            self.stop_plugin_task()

    def stop_plugin_task(self) -> None:
        """Call the plugin task's ``stop()``, once, whoever asks first."""
        with self._stop_lock:
            if self._task_stopped:
                return
            self._task_stopped = True
        try:
            self.task.stop()
        except Exception:
            log.exception("task %s: stop() raised", self.name)

    def pause(self) -> None:
        self._resumed.clear()
        self.metrics.pause_started()
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)

    def resume(self) -> None:
        self.metrics.pause_ended()
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)
        self._resumed.set()

    def wait_if_paused(self) -> bool:
        """Block while paused; True when the task should go on."""
        while not self._resumed.wait(0.5):
            self.beat()
            if self.stopping:
                return False
        self.beat()
        return not self.stopping

    def counters(self) -> dict[str, Any]:
        return {"in": self.records_in, "out": self.records_out}


PROGRESS_LOG_INTERVAL_S = 10.0
"""At most one progress line per task this often."""


def describe_progress(done: int, total: int | None) -> str:
    """``1234 of about 5000 rows (25 %)`` or ``1234 rows`` when the total is unknown."""
    if total:
        return f"{done} of about {total} rows ({min(100.0, 100.0 * done / total):.0f} %)"
    return f"{done} rows"


def now() -> float:
    return time.monotonic()
