"""A running task's state, whatever engine runs it: status, pause and stop, counters, metrics."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from kconnect_sdk import Task

from kconnect_runtime.errors import DeadLetterQueue, ErrorHandler, ErrorPolicy
from kconnect_runtime.metrics import TaskMetrics
from kconnect_runtime.status import State, Status

from ._spec import TaskSpec

__all__ = ["TaskRunner"]

log = logging.getLogger("kconnect.task")


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
        self._stopping = threading.Event()
        self._resumed = threading.Event()
        self._resumed.set()
        self._task_stopped = False
        self._stop_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.spec.name

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

    def track_topics(self, topics: Callable[[], set[str]]) -> None:
        """Where :attr:`active_topics` comes from (the pipeline's view)."""
        self._topics = topics

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


def now() -> float:
    return time.monotonic()
