"""Creating and deleting source connectors all day does not grow the worker's memory.

Issue 24: each create+delete of a source connector kept 30-50 kB, with no plateau over 251
cycles. The cause was the task liveness monitor: its list of tasks lived across its sleep,
so every round's list was taken while the previous one still held every task ever watched
(with its pipeline, plugin task, converters and Kafka client). A cache of connector
redactors also kept up to 512 configs (now 64). This test churns connectors in-process and
asserts that traced memory levels off (about 40 s: a task takes about a second to stop).
"""

from __future__ import annotations

import gc
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
from kconnect_runtime.tasks import TaskRunner
from runtime_harness import file_source, standalone, worker_props

pytestmark = pytest.mark.integration

WARM_UP = 8
MEASURED = 30
NAMES = 4  # a few connectors created and deleted again and again (bounded caches stay warm)
BOUND_PER_CYCLE = 5 * 1024  # the leak was 30-50 kB per cycle


def _live_runners() -> int:
    # This test's tasks only: in a full run, other tests' workers may still be winding down.
    return sum(isinstance(o, TaskRunner) and o.name.startswith("churn-") for o in gc.get_objects())


def _settle() -> None:
    """Wait until the deleted connectors' task threads have ended, then collect cycles."""
    deadline = time.monotonic() + 60
    while any(t.name.startswith("task-churn-") for t in threading.enumerate()):
        assert time.monotonic() < deadline, threading.enumerate()
        time.sleep(0.05)
    gc.collect()


def test_create_delete_churn_levels_off(tmp_path: Path, kafka: str) -> None:
    source_file = tmp_path / "in.txt"
    source_file.write_text("one\ntwo\n", encoding="utf-8")
    with standalone(worker_props(tmp_path, kafka)) as app:
        worker = app.worker
        assert worker is not None

        def cycle(i: int) -> None:
            name = f"churn-{i % NAMES}"
            worker.create_connector(file_source(name, source_file, "churn-topic"))
            deadline = time.monotonic() + 60
            while worker.connector_status(name)["tasks"][0]["state"] != "RUNNING":
                assert time.monotonic() < deadline, worker.connector_status(name)
                time.sleep(0.01)
            worker.delete_connector(name)

        for i in range(WARM_UP):
            cycle(i)
        _settle()
        assert _live_runners() == 0  # deleted tasks are gone (every one stayed before)

        tracemalloc.start()
        try:
            levels = []
            for i in range(WARM_UP, WARM_UP + MEASURED):
                cycle(i)
                if (i - WARM_UP + 1) % (MEASURED // 3) == 0:
                    _settle()
                    levels.append(tracemalloc.get_traced_memory()[0])
        finally:
            tracemalloc.stop()
    growth = levels[-1] - levels[0]
    cycles = 2 * MEASURED // 3
    print(f"traced memory at thirds of {MEASURED} cycles: {levels}; {growth / cycles:.0f} B/cycle")
    assert growth < BOUND_PER_CYCLE * cycles, (levels, growth / cycles)


def test_stopped_workers_leave_no_monitor_thread(tmp_path: Path, kafka: str) -> None:
    """Each engine's task liveness monitor ends with its last task; it stayed for good before."""
    source_file = tmp_path / "in.txt"
    source_file.write_text("one\n", encoding="utf-8")

    def monitors() -> int:
        return sum(t.name == "task-liveness" for t in threading.enumerate())

    before = monitors()
    for i in range(3):
        connector = file_source(f"monitor-{i}", source_file, "monitor-topic")
        with standalone(worker_props(tmp_path, kafka), connector) as app:
            assert app.worker is not None
            deadline = time.monotonic() + 60
            while app.worker.connector_status(f"monitor-{i}")["tasks"][0]["state"] != "RUNNING":
                assert time.monotonic() < deadline, app.worker.connector_status(f"monitor-{i}")
                time.sleep(0.01)
            assert monitors() >= 1  # the running task is watched
    deadline = time.monotonic() + 10
    while monitors() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert monitors() <= before, [t.name for t in threading.enumerate()]
