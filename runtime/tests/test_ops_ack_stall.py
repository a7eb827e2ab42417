"""A broker that stops acknowledging: a warning naming the cause, no spinning, honest failure.

Issue 24: a stalled broker left source tasks RUNNING without a word for minutes, then failed
them advising ``errors.tolerance=all`` (which would drop records) for what is a
connectivity problem, while one librdkafka thread of the producer spun a core.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from confluent_kafka import KafkaError
from kconnect_runtime.modes import free_port
from kconnect_runtime.tasks._kafka_clients import delivery_failure_message
from kconnect_testkit import KafkaCluster
from runtime_harness import file_source, kconnect, stop, worker_props, write_props
from test_ops_broker_health import _create_topic, _health, _Lines, _wait


def _thread_cpu(pid: int) -> dict[str, tuple[str, int]]:
    """{thread id: (name, user+system clock ticks)} of a process."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[tid] = (name, int(fields[11]) + int(fields[12]))
    return out


@contextlib.contextmanager
def _stalled_broker_worker(
    kafka: KafkaCluster, tmp_path: Path, name: str, url: str | None = None, **worker_extra: str
) -> Iterator[tuple[subprocess.Popen[bytes], _Lines, Path]]:
    """A ``kconnect standalone`` worker whose FileStream source ``name`` had its first 100
    lines acknowledged, then its broker (``kafka``'s one node) SIGSTOPped: it accepts
    connections and answers nothing. Yields the worker's process, its output and the source
    file. The broker is resumed and the worker stopped on the way out."""
    bootstrap = kafka.bootstrap_servers
    topic = f"{name}-topic"
    _create_topic(bootstrap, topic)
    source_file = tmp_path / "in.txt"
    source_file.write_text("", encoding="utf-8")
    extra = {"broker.unreachable.timeout.ms": "600000", **worker_extra}  # stalled, not gone
    if url is not None:
        extra["listeners"] = url
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, bootstrap, **extra))
    source = write_props(tmp_path / "src.properties", file_source(name, source_file, topic))
    proc = kconnect("standalone", str(worker), str(source), cwd=tmp_path)
    lines = _Lines(proc)
    stopped = False
    try:
        if url is not None:
            _wait("a healthy worker", lambda: _health(url)[0] == 200, 90, lines)
        with source_file.open("a", encoding="utf-8") as f:
            f.writelines(f"before {i}\n" for i in range(100))
        _wait(
            "the first lines acknowledged", lambda: lines.matching(r"100 acknowledged"), 90, lines
        )
        kafka.pause_node(1)
        stopped = True
        yield proc, lines, source_file
    finally:
        if stopped:
            kafka.resume_node(1)
        stop(proc)


@pytest.mark.integration
@pytest.mark.chaos
def test_stalled_broker_warns_once_with_the_cause_and_fails_without_advising_data_loss(
    own_kafka: KafkaCluster, tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    settings = {"source.ack.stall.timeout.ms": "2000", "producer.delivery.timeout.ms": "14000"}
    stalled = _stalled_broker_worker(own_kafka, tmp_path, "src", url, **settings)
    with stalled as (proc, lines, source_file):
        with source_file.open("a", encoding="utf-8") as f:
            f.writelines(f"stalled {i} {'x' * 80}\n" for i in range(300_000))
        warned = _wait(
            "the stall warning",
            lambda: lines.matching(r"have waited \d+ s for the brokers' acknowledgement"),
            60,
            lines,
        )
        assert "source.ack.stall.timeout.ms=2000" in warned[0]
        assert "the brokers accept connections but do not answer" in warned[0], warned

        # While the broker is stalled no librdkafka thread spins (with 5 requests in flight one
        # took 20-36 % of a core here).
        hz = os.sysconf("SC_CLK_TCK")
        before, started = _thread_cpu(proc.pid), time.monotonic()
        time.sleep(4)
        after, elapsed = _thread_cpu(proc.pid), time.monotonic() - started
        busy = {
            name: (ticks - before.get(tid, (name, 0))[1]) / hz / elapsed
            for tid, (name, ticks) in after.items()
            if name.startswith("rdk:")
        }
        assert busy, after
        assert max(busy.values()) < 0.10, busy
        assert len(lines.matching(r"for the brokers' acknowledgement")) == 1, lines.text()[-4000:]

        status = httpx.get(f"{url}/connectors/src/status", timeout=5).json()
        assert "for the brokers' acknowledgement" in status["tasks"][0].get("trace", ""), status

        trace = _wait(
            "the delivery timeout to fail the task",
            lambda: (
                (s := httpx.get(f"{url}/connectors/src/status", timeout=5).json())["tasks"][0][
                    "state"
                ]
                == "FAILED"
                and s["tasks"][0]["trace"]
            ),
            90,
            lines,
        )
        assert "errors.tolerance=all" not in trace, trace
        assert "not of the record" in trace, trace
        assert re.search(r"Local: Message timed out|timed out", trace), trace


@pytest.mark.parametrize(
    "code",
    [KafkaError._MSG_TIMED_OUT, KafkaError._TRANSPORT, KafkaError.NOT_ENOUGH_REPLICAS],
)
def test_connectivity_failures_never_advise_errors_tolerance_all(code: int) -> None:
    message = delivery_failure_message(
        "connector 'c' task 0", "KAFKA_PRODUCE", KafkaError(code), "the brokers are unreachable"
    )
    assert "errors.tolerance" not in message
    assert "none is lost" in message
    assert "(the brokers are unreachable)" in message


def test_a_record_the_broker_refuses_keeps_the_tolerance_hint() -> None:
    message = delivery_failure_message(
        "connector 'c' task 0", "KAFKA_PRODUCE", KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), None
    )
    assert "the broker refused a record" in message
    assert "errors.tolerance=all" in message


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.mark.integration
@pytest.mark.chaos
def test_a_source_faster_than_its_brokers_buffers_32_mb_not_its_whole_input(
    own_kafka: KafkaCluster, tmp_path: Path
) -> None:
    """As Kafka Connect's producer (buffer.memory 32 MB): with librdkafka's 1 GB queue, a
    worker whose brokers stopped answering read 300 MB of input into memory."""
    with _stalled_broker_worker(own_kafka, tmp_path, "buf") as (proc, lines, source_file):
        before = _rss_mb(proc.pid)
        line = "y" * 3999 + "\n"
        with source_file.open("a", encoding="utf-8") as f:
            for _ in range(75):  # 300 MB in 4 KB lines
                f.write(line * 1000)
        peak, deadline = before, time.monotonic() + 15
        while time.monotonic() < deadline:
            peak = max(peak, _rss_mb(proc.pid))
            time.sleep(0.25)
        assert proc.poll() is None, lines.text()[-4000:]
        # 32 MB queued, a FileStream batch held and the allocator's slack: well under 300.
        assert peak - before < 160, (before, peak)
