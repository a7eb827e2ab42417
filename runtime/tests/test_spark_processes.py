"""The spark engine in real `kconnect` worker processes: the driver killed mid-stream, and
distributed mode. Each worker process starts its own local[2] Spark (a JVM of its own)."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from pathlib import Path

import httpx
import pytest
from kconnect_runtime.modes import free_port
from runtime_harness import (
    file_sink,
    file_source,
    kconnect,
    line_count,
    stop,
    wait_for,
    worker_props,
    write_props,
)
from test_distributed import _up, _worker_props_dict

pytestmark = pytest.mark.integration

SPARK = {"engine": "spark", "spark.master": "local[2]", "spark.ui.enabled": "false"}


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (Spark's JVM, its Python workers, ...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.timeout(600)  # the restarted worker starts Spark again: slow on a loaded machine
def test_killing_the_driver_mid_stream_then_restarting_delivers_every_line(
    kafka: str, tmp_path: Path
) -> None:
    total, batch = 100_000, 10_000
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    expected = [f"line {i}" for i in range(total)]
    source_file.write_text("".join(f"{line}\n" for line in expected), encoding="utf-8")
    topic, src, sink = _name("spark-kill"), _name("src"), _name("sink")
    limits = {
        "spark.source.batch.max.records": str(batch),
        "spark.sink.batch.max.records": str(batch),
        # Cycles of a fixed size, so that one repeated cycle is at most `batch` lines.
        "spark.cycle.growth.max": "1",
    }
    worker = write_props(
        tmp_path / "worker.properties", worker_props(tmp_path, kafka, **SPARK, **limits)
    )
    connectors = [
        str(write_props(tmp_path / "source.properties", file_source(src, source_file, topic))),
        str(write_props(tmp_path / "sink.properties", file_sink(sink, sink_file, topic))),
    ]
    proc = kconnect("standalone", str(worker), *connectors, cwd=tmp_path)
    spawned: list[int] = []
    try:
        wait_for(lambda: line_count(sink_file) >= batch, 90, "the stream to be under way")
        spawned = _descendants(proc.pid)
        commands = [_command(p) for p in spawned]
        stop(proc, signal.SIGKILL)
        killed_at = line_count(sink_file)
        assert killed_at < total, "the kill landed after the stream ended: use a larger file"
        assert any("java" in c for c in commands), f"no Spark JVM below the worker: {commands}"
        # PySpark's JVM exits when its driver's pipe closes; its Python workers follow it.
        wait_for(
            lambda: not any(_alive(p) for p in spawned),
            30,
            "Spark's JVM and Python workers to exit with the killed driver",
        )

        proc = kconnect("standalone", str(worker), *connectors, cwd=tmp_path)
        # Not a line count: duplicates reach the count before the tail arrives.

        def all_arrived() -> bool:
            if line_count(sink_file) < total:  # cheap, and spares the CPU Spark needs
                return False
            return set(expected) <= set(sink_file.read_text(encoding="utf-8").splitlines())

        wait_for(all_arrived, 240, "every line after the restart")
        spawned += _descendants(proc.pid)
    finally:
        output = stop(proc)
        _kill_all(spawned)  # a JVM that outlived its driver must not outlive the test
    lines = sink_file.read_text(encoding="utf-8").splitlines()
    duplicates = len(lines) - total
    print(f"killed at {killed_at} of {total} lines; {duplicates} lines arrived twice")
    # At-least-once, bounded: at most one source cycle and one sink cycle are repeated.
    assert 0 <= duplicates <= 2 * batch
    assert "Traceback" not in output, output[-3000:]


@pytest.mark.timeout(600)  # a worker on Spark starts slowly on a loaded machine
def test_a_distributed_worker_on_spark_runs_a_pipeline_created_through_rest(
    kafka: str, tmp_path: Path
) -> None:
    group, port = _name("kc-dist-spark"), free_port()
    worker = write_props(
        tmp_path / "worker.properties", {**_worker_props_dict(kafka, group, port), **SPARK}
    )
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    expected = [f"row {i}" for i in range(1000)]
    source_file.write_text("".join(f"{line}\n" for line in expected), encoding="utf-8")
    topic, src, sink = _name("dist-spark"), _name("src"), _name("sink")
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    proc = kconnect("distributed", str(worker), cwd=tmp_path)
    spawned: list[int] = []
    try:
        wait_for(lambda: _up(api), 180, "the distributed worker's REST API")
        for config in (file_source(src, source_file, topic), file_sink(sink, sink_file, topic)):
            response = api.post("/connectors", json={"name": config["name"], "config": config})
            assert response.status_code == 201, response.text
        wait_for(lambda: line_count(sink_file) >= len(expected), 180, "every line in the sink")
        states = {
            n: api.get(f"/connectors/{n}/status").json()["tasks"][0]["state"] for n in (src, sink)
        }
        spawned = _descendants(proc.pid)
        assert any("java" in _command(p) for p in spawned), "the worker runs no Spark"
    finally:
        output = stop(proc)
        api.close()
    try:
        assert states == {src: "RUNNING", sink: "RUNNING"}
        assert sink_file.read_text(encoding="utf-8").splitlines() == expected
        assert "runs on Spark (local[2])" in output  # the tasks ran as Spark jobs
        assert "Traceback" not in output, output[-3000:]
        # A clean shutdown closes the SparkSession: nothing of Spark is left running.
        wait_for(lambda: not any(_alive(p) for p in spawned), 30, "Spark to stop with the worker")
    finally:
        _kill_all(spawned)
