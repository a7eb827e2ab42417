"""The engine seam: where task code runs. The control plane is the same for every engine."""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from ._task_runner import TaskRunner

__all__ = ["Engine", "LocalEngine"]

log = logging.getLogger("kconnect.engine")


class Engine(Protocol):
    """Runs task runners. ``stop_task`` returns False when a task did not stop in time."""

    name: str

    def start_task(self, runner: TaskRunner) -> None: ...

    def stop_task(self, runner: TaskRunner, timeout_s: float) -> bool: ...


class LocalEngine:
    """One thread per task, in this process (``engine=local``, the default)."""

    name = "local"

    def start_task(self, runner: TaskRunner) -> None:
        thread = threading.Thread(target=runner.run, name=f"task-{runner.name}", daemon=True)
        runner.thread = thread
        thread.start()

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
