"""Creating and deleting source connectors all day does not grow the worker's memory.

Each create+delete of a source connector once kept 30-50 kB, with no plateau over 251
cycles: the task liveness monitor's list of tasks lived across its sleep, so every round's
list was taken while the previous one still held every task ever watched (with its
pipeline, plugin task, converters and Kafka client), and a cache of connector redactors
kept up to 512 configs (now 64). Later a connector of a new name kept about 60 kB after
its deletion. These tests churn connectors in-process and assert that traced memory
levels off.
"""

from __future__ import annotations

import gc
import os
import threading
import time
import tracemalloc
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest
from kconnect_runtime.tasks import TaskRunner
from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask, Task
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
        worker = app.herder
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
            assert app.herder is not None
            deadline = time.monotonic() + 60
            while app.herder.connector_status(f"monitor-{i}")["tasks"][0]["state"] != "RUNNING":
                assert time.monotonic() < deadline, app.herder.connector_status(f"monitor-{i}")
                time.sleep(0.01)
            assert monitors() >= 1  # the running task is watched
    deadline = time.monotonic() + 10
    while monitors() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert monitors() <= before, [t.name for t in threading.enumerate()]


class IdleSourceTask(SourceTask):
    """Polls nothing, quickly, and keeps nothing between runs."""

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        time.sleep(0.02)
        return None

    def stop(self) -> None:
        pass


class IdleSourceConnector(SourceConnector):
    """One idle task; nothing kept at class level, so whatever stays is the worker's."""

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return IdleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def _rss() -> int:
    """This process's resident set size, in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


DISTINCT_CYCLES = 200
DISTINCT_BOUND = 1024 * 1024  # 10 kB per connector; the leak was about 60 kB per connector


def test_create_delete_of_new_connectors_levels_off(tmp_path: Path, kafka: str) -> None:
    """200 connectors, each of a name never used before, created (RUNNING) and deleted:
    the worker keeps nothing of a deleted connector, so memory stops growing."""
    with standalone(
        worker_props(tmp_path, kafka, **{"task.shutdown.graceful.timeout.ms": "2000"})
    ) as app:
        herder = app.herder
        assert herder is not None
        run = uuid.uuid4().hex[:6]

        def cycle(i: int) -> None:
            name = f"new-{run}-{i}"
            herder.create_connector(
                {
                    "name": name,
                    "connector.class": f"{__name__}:IdleSourceConnector",
                }
            )
            deadline = time.monotonic() + 30
            while [t["state"] for t in herder.connector_status(name)["tasks"]] != ["RUNNING"]:
                assert time.monotonic() < deadline, herder.connector_status(name)
                time.sleep(0.005)
            herder.delete_connector(name)

        started = time.monotonic()
        for i in range(20):  # warm-up: caches, pools, first-use imports
            cycle(i)
        gc.collect()
        tracemalloc.start()
        try:
            levels, snapshots, rss = [], [], [_rss()]
            for i in range(20, 20 + DISTINCT_CYCLES):
                cycle(i)
                if (i - 20 + 1) % (DISTINCT_CYCLES // 4) == 0:
                    gc.collect()
                    levels.append(tracemalloc.get_traced_memory()[0])
                    snapshots.append(tracemalloc.take_snapshot())
                    rss.append(_rss())
        finally:
            tracemalloc.stop()
        elapsed = time.monotonic() - started
    growth = levels[-1] - levels[1]  # over the last half of the cycles
    grown = snapshots[-1].compare_to(snapshots[1], "lineno")[:8]
    top = "\n".join(str(stat) for stat in grown)
    print(
        f"traced memory at quarters of {DISTINCT_CYCLES} new connectors: {levels}; "
        f"{growth / (DISTINCT_CYCLES // 2):.0f} B/connector over the last half; {elapsed:.1f}s; "
        f"RSS {rss}\n{top}"
    )
    assert growth < DISTINCT_BOUND, (levels, top)
