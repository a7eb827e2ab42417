"""What source and sink task runners share: lifecycle, state, pause/stop, counters."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import Task

from ._errors import DeadLetterQueue, ErrorHandler, ErrorPolicy
from ._logging import set_task_context
from ._metrics import TaskMetrics
from ._status import ConnectorTaskId, State, Status

__all__ = ["TaskRunner"]

log = logging.getLogger("kconnect.task")


class TaskRunner:
    """Runs one task on a thread of its own (local engine). Subclasses implement ``_run``.

    ``stop()`` may be called from any thread; it asks the plugin task to stop (unblocking
    a ``poll``) and the loop to finish, committing what it safely can.
    """

    kind = "task"
    # Source tasks' stop() must unblock poll(), so it is called at once from the stopping
    # thread; a sink task is stopped by its own thread after its final flush and commit.
    stop_plugin_on_request = True

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: Task,
        task_config: Mapping[str, str],
        *,
        worker_id: str,
        commit_interval_s: float,
        connector_config: Mapping[str, str] | None = None,
        worker_props: Mapping[str, str] | None = None,
    ) -> None:
        self.id = task_id
        self.task = task
        self.task_config = dict(task_config)
        # Plain data from which an engine can rebuild this task's pipeline elsewhere
        # (a Spark executor, an isolated plugin process).
        self.connector_config: dict[str, str] = dict(connector_config or {})
        self.worker_props: dict[str, str] = dict(worker_props or {})
        self.status = Status(worker_id=worker_id)
        self.commit_interval_s = commit_interval_s
        self.records_in = 0  # records polled (source) or consumed (sink)
        self.records_out = 0  # records produced and acknowledged (source) or put (sink)
        self.metrics = TaskMetrics()
        self.error_policy = ErrorPolicy.from_config(self.connector_config)
        # Monotonic time the loop last showed it is alive; the engine's liveness check reads it.
        self.last_progress = time.monotonic()
        self._stopping = threading.Event()
        self._resumed = threading.Event()
        self._resumed.set()
        self._task_stopped = False
        self._stop_lock = threading.Lock()
        self.thread: threading.Thread | None = None

    @property
    def name(self) -> str:
        return f"{self.id.connector}-{self.id.task}"

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def beat(self) -> None:
        """Record that the loop made progress (once per batch, never per record)."""
        self.last_progress = time.monotonic()

    def _error_handler(self, bootstrap_servers: str, client: Mapping[str, Any]) -> ErrorHandler:
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

    def run(self) -> None:
        """The task thread's body. Never raises: failures become FAILED with the trace."""
        set_task_context(self.id.connector, self.id.task)
        self.beat()
        try:
            self._run()
        except BaseException as exc:
            log.error("task %s failed; it stays FAILED until restarted", self.name, exc_info=exc)
            self.status.set(State.FAILED, exc)
            self._stop_plugin_task()
        else:
            if self.status.state is not State.FAILED:
                self.status.set(State.UNASSIGNED)

    def _run(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """Ask the task to stop; returns at once."""
        self._stopping.set()
        self._resumed.set()
        if self.stop_plugin_on_request:
            self._stop_plugin_task()

    def _stop_plugin_task(self) -> None:
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

    def _wait_if_paused(self) -> bool:
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
