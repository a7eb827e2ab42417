"""Background work of the MirrorMaker connectors and tasks: one thread per owner.

As Kafka's ``Scheduler``: jobs run one at a time on a single thread, repeating jobs at a
fixed rate; a job that fails is logged and runs again at its next turn, so a cluster
that is briefly unreachable only delays topic discovery or config sync.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

__all__ = ["Scheduler"]

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: list[tuple[float, int, float, str, Callable[[], None]]] = []
        self._counter = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def execute(self, job: Callable[[], None], description: str) -> None:
        """Run ``job`` now, on the caller's thread, logging (not raising) its failure."""
        self._run_job(job, description)

    def execute_async(self, job: Callable[[], None], description: str) -> None:
        self._schedule(job, description, 0.0, -1.0)

    def schedule_repeating(
        self, job: Callable[[], None], interval_s: float, description: str
    ) -> None:
        """Every ``interval_s`` from now; a negative interval means never."""
        if interval_s >= 0:
            self._schedule(job, description, 0.0, interval_s)

    def schedule_repeating_delayed(
        self, job: Callable[[], None], interval_s: float, description: str
    ) -> None:
        """Every ``interval_s``, the first time one interval from now; negative: never."""
        if interval_s >= 0:
            self._schedule(job, description, interval_s, interval_s)

    def _schedule(
        self, job: Callable[[], None], description: str, delay_s: float, interval_s: float
    ) -> None:
        with self._cond:
            if self._closed:
                return
            due = time.monotonic() + delay_s
            heapq.heappush(self._queue, (due, next(self._counter), interval_s, description, job))
            self._cond.notify()

    def _run_job(self, job: Callable[[], None], description: str) -> None:
        if self._closed:
            log.info("%s skipping task due to shutdown: %s", self.name, description)
            return
        start = time.monotonic()
        try:
            job()
        except Exception:
            log.exception("%s caught exception in scheduled task: %s", self.name, description)
            return
        log.debug("%s took %d ms", description, (time.monotonic() - start) * 1000)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (
                    not self._queue or self._queue[0][0] > time.monotonic()
                ):
                    wait = self._queue[0][0] - time.monotonic() if self._queue else None
                    self._cond.wait(wait)
                if self._closed:
                    return
                due, _, interval_s, description, job = heapq.heappop(self._queue)
                if interval_s > 0:
                    # Fixed rate, as Java's scheduleAtFixedRate; a late run does not pile up.
                    following = max(due + interval_s, time.monotonic())
                    heapq.heappush(
                        self._queue, (following, next(self._counter), interval_s, description, job)
                    )
            self._run_job(job, description)

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop after the running job (if any); later jobs are dropped."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                log.error("%s timed out during shutdown of internal scheduler.", self.name)
