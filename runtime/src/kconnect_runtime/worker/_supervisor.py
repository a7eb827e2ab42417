"""The one place tasks are started, watched, restarted after failures and stopped.

Both herders hand their tasks to it: a spec goes to the engine, the task's status changes
go to the herder's listener (which keeps them), a paused task that reaches RUNNING is held
paused, and a FAILED task is restarted after ``errors.restart.*``'s backoff.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kconnect_runtime.engine import Engine
from kconnect_runtime.status import ConnectorTaskId, State, Status, TargetState
from kconnect_runtime.tasks import TaskRunner, TaskSpec

__all__ = ["StatusListener", "SupervisedTask", "TaskSupervisor"]

log = logging.getLogger("kconnect.worker")

StatusListener = Callable[[Status], None]
"""Where a task's status changes go (the herder keeps them in its control store)."""


@dataclass(eq=False)
class SupervisedTask:
    """One task this worker runs: what it was started from, and its runner once it runs."""

    spec: TaskSpec
    status: Status
    target: TargetState
    on_status: StatusListener
    runner: TaskRunner | None = None
    # Automatic restarts done since the herder last started it or an operator restarted it.
    attempts: int = 0
    stopped: bool = field(default=False, repr=False)

    @property
    def id(self) -> ConnectorTaskId:
        return self.spec.id


class TaskSupervisor:
    """Runs a worker's tasks on its engine.

    Every method is safe to call from any thread. A task is known by its
    :class:`~kconnect_runtime.status.ConnectorTaskId`; starting a task whose id runs
    already is the caller's mistake (stop it first).
    """

    def __init__(self, engine: Engine, *, shutdown_timeout_s: float) -> None:
        self.engine = engine
        self.shutdown_timeout_s = shutdown_timeout_s
        self.tasks: dict[ConnectorTaskId, SupervisedTask] = {}
        self._lock = threading.RLock()
        self._closed = False

    def start(
        self,
        spec: TaskSpec,
        *,
        version: str | None,
        target: TargetState,
        on_status: StatusListener,
        attempts: int = 0,
        fail_fast: bool = False,
    ) -> SupervisedTask:
        """Start a task; a task that cannot start is kept, FAILED with the reason.

        ``version`` is the connector plugin's (one package provides the connector and its
        tasks); ``target`` PAUSED starts it paused. ``fail_fast``: a task that cannot start
        is not kept, and the error is raised (its connector fails instead).
        """
        spec = dataclasses.replace(spec, start_paused=target is TargetState.PAUSED)
        status = Status(worker_id=spec.worker_id, version=version)
        task = SupervisedTask(spec, status, target, on_status, attempts=attempts)
        # The listener is set before the engine returns the runner: a task may reach RUNNING
        # (or fail) while it starts.
        status.listener = self._listener(task)
        with self._lock:
            self.tasks[spec.id] = task
        try:
            task.runner = self.engine.start_task(spec, status)
        except Exception as exc:
            if fail_fast:
                with self._lock:
                    if self.tasks.get(spec.id) is task:
                        del self.tasks[spec.id]
                status.listener = None
                raise
            log.error("task %s failed to start", spec.name, exc_info=exc)
            status.set(State.FAILED, exc)
        return task

    def get(self, task_id: ConnectorTaskId) -> SupervisedTask | None:
        return self.tasks.get(task_id)

    def of_connector(self, connector: str) -> list[SupervisedTask]:
        """The connector's tasks running here, by index."""
        with self._lock:
            found = [t for i, t in self.tasks.items() if i.connector == connector]
        return sorted(found, key=lambda t: t.id.task)

    def _listener(self, task: SupervisedTask) -> StatusListener:
        def on_change(status: Status) -> None:
            if status.state is State.RUNNING and task.target is TargetState.PAUSED:
                # The task reached RUNNING after the pause was asked for: show it paused (a
                # task the engine started paused only needs its state shown).
                if task.runner is not None:
                    task.runner.pause()
                else:
                    status.set(State.PAUSED)
                return
            task.on_status(status)
            if status.state is State.FAILED:
                self._schedule_restart(task)

        return on_change

    def set_target(self, task_ids: Iterable[ConnectorTaskId], target: TargetState) -> None:
        """Pause or resume running tasks (their resources are kept while paused)."""
        for task_id in task_ids:
            task = self.tasks.get(task_id)
            if task is None or task.target is target:
                continue
            task.target = target
            if task.runner is None:
                continue
            if target is TargetState.PAUSED:
                task.runner.pause()
            elif target is TargetState.STARTED:
                task.runner.resume()

    def stop(
        self,
        task_ids: Iterable[ConnectorTaskId],
        *,
        before_wait: Callable[[SupervisedTask], None] | None = None,
    ) -> list[SupervisedTask]:
        """Stop tasks, all at once, and wait for each (up to the shutdown timeout).

        Their statuses stop reaching the herder first: what a stopped task's status says
        is the herder's to write. ``before_wait`` sees each task once all were asked to stop.
        """
        stopping = self.detach(task_ids)
        self.await_stopped(stopping, before_wait=before_wait)
        return stopping

    def detach(self, task_ids: Iterable[ConnectorTaskId]) -> list[SupervisedTask]:
        """Take tasks out of this supervisor (their statuses reach no one from now on),
        for :meth:`await_stopped` to stop, possibly on another thread."""
        with self._lock:
            stopping = [t for t in (self.tasks.pop(i, None) for i in task_ids) if t is not None]
        for task in stopping:
            task.stopped = True
            task.status.listener = None
        return stopping

    def await_stopped(
        self,
        tasks: Iterable[SupervisedTask],
        *,
        before_wait: Callable[[SupervisedTask], None] | None = None,
    ) -> None:
        """Ask detached tasks to stop, all at once, then wait for each (up to the shutdown
        timeout). A task's ``stop()`` may block: call it where the caller may wait."""
        tasks = list(tasks)
        for task in tasks:
            if task.runner is not None:
                task.runner.stop()
        for task in tasks:
            if before_wait is not None:
                before_wait(task)
            if task.runner is not None:
                self.engine.stop_task(task.runner, self.shutdown_timeout_s)

    def restart(
        self, task_id: ConnectorTaskId, *, reset_attempts: bool = True, announce: bool = False
    ) -> SupervisedTask:
        """Stop the task (UNASSIGNED) and start it again from the same spec, in its current
        target state; a restart request (``announce``, KIP-745) shows RESTARTING in between.

        ``reset_attempts``: an operator's restart starts the count of automatic ones again.
        """
        with self._lock:
            old = self.tasks.get(task_id)
            if old is None:
                raise KeyError(task_id)
            self.stop([task_id])
            for state in (State.UNASSIGNED, State.RESTARTING) if announce else (State.UNASSIGNED,):
                old.on_status(Status(state, worker_id=old.spec.worker_id))
            return self.start(
                old.spec,
                version=old.status.version,
                target=old.target,
                on_status=old.on_status,
                attempts=0 if reset_attempts else old.attempts,
            )

    def _schedule_restart(self, task: SupervisedTask) -> None:
        """errors.restart.*: restart a FAILED task after an exponential backoff, a few times."""
        policy: Mapping[str, Any] = task.spec.parsed_config
        if "errors.restart.max.attempts" not in policy:
            return
        max_attempts: int = policy["errors.restart.max.attempts"]
        attempts = task.attempts
        if self._closed or max_attempts == 0 or (0 < max_attempts <= attempts):
            if max_attempts > 0:
                connector, index = task.id.connector, task.id.task
                log.error(
                    "task %s-%d FAILED again after %d automatic restarts "
                    "(errors.restart.max.attempts=%d); it stays FAILED until restarted through "
                    "POST /connectors/%s/tasks/%d/restart",
                    connector,
                    index,
                    attempts,
                    max_attempts,
                    connector,
                    index,
                )
            return
        initial: int = policy["errors.restart.backoff.initial.ms"]
        ceiling: int = policy["errors.restart.backoff.max.ms"]
        delay_ms = min(initial * (2**attempts), ceiling)
        task.attempts = attempts + 1
        log.warning(
            "task %s FAILED; restarting it automatically in %d ms (attempt %d%s)",
            task.spec.name,
            delay_ms,
            attempts + 1,
            f" of {max_attempts}" if max_attempts > 0 else "",
        )

        def restart() -> None:
            with self._lock:
                if (
                    self._closed
                    or task.stopped
                    or self.tasks.get(task.id) is not task
                    or task.status.state is not State.FAILED
                ):
                    return
                self.restart(task.id, reset_attempts=False)

        timer = threading.Timer(delay_ms / 1000, restart)
        timer.daemon = True
        timer.start()

    def close(self) -> None:
        """Stop every task (all at once) for good: no automatic restart from now on. The
        stopped tasks stay listed, so a stopped worker still shows what they did."""
        self._closed = True
        with self._lock:
            tasks = list(self.tasks.values())
        for task in tasks:
            task.stopped = True
            task.status.listener = None
        self.await_stopped(tasks)
