"""A dead broker is noticed: /health, a metric, one log line per task; recovery clears it.

Issue 24: with the broker stopped, /health stayed healthy and tasks RUNNING while
librdkafka printed hundreds of raw lines. This test runs ``kconnect standalone`` against an
Apache Kafka broker of its own, stops it (SIGTERM), watches what an operator sees, and
starts it again on the same port with its data.
"""

from __future__ import annotations

import logging
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime.logcontext import KafkaClientLog, RepeatCollapser
from kconnect_runtime.modes import free_port
from kconnect_testkit import KafkaCluster
from runtime_harness import file_sink, file_source, kconnect, stop, worker_props, write_props


class _Lines:
    """Collects a process's output lines on a thread, so the test can wait for them."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        assert proc.stdout is not None
        stdout = proc.stdout

        def read() -> None:
            for raw in iter(stdout.readline, b""):
                with self._lock:
                    self.lines.append(raw.decode(errors="replace").rstrip("\n"))

        self._thread = threading.Thread(target=read, daemon=True)
        self._thread.start()

    def matching(self, pattern: str) -> list[str]:
        with self._lock:
            return [line for line in self.lines if re.search(pattern, line)]

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.lines)


def _wait(what: str, condition: Any, timeout: float, lines: _Lines) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}; worker output:\n{lines.text()[-6000:]}")


def _create_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=10).values():
        future.result(timeout=30)


def _health(url: str) -> tuple[int, dict[str, Any]]:
    try:
        response = httpx.get(f"{url}/health", timeout=5)
    except httpx.HTTPError:
        return 0, {}
    return response.status_code, response.json()


@pytest.mark.integration
@pytest.mark.chaos
def test_stopped_broker_makes_health_unhealthy_once_per_task_then_recovers(
    own_kafka: KafkaCluster, tmp_path: Path
) -> None:
    bootstrap = own_kafka.bootstrap_servers
    _create_topic(bootstrap, "health-topic")  # the sink is assigned at once
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    (tmp_path / "in.txt").write_text("", encoding="utf-8")
    props = worker_props(
        tmp_path,
        bootstrap,
        listeners=url,
        **{"broker.unreachable.timeout.ms": "4000"},
    )
    worker = write_props(tmp_path / "worker.properties", props)
    source = write_props(
        tmp_path / "src.properties", file_source("src", tmp_path / "in.txt", "health-topic")
    )
    sink = write_props(
        tmp_path / "sink.properties", file_sink("snk", tmp_path / "out.txt", "health-topic")
    )
    proc = kconnect("standalone", str(worker), str(source), str(sink), cwd=tmp_path)
    lines = _Lines(proc)
    try:
        _wait("a healthy worker", lambda: _health(url)[0] == 200, 90, lines)
        _wait(
            "the sink to be assigned",
            lambda: lines.matching(r"sink task snk-0 assigned"),
            60,
            lines,
        )

        # Timed from the SIGTERM: Kafka's controlled shutdown closes client connections
        # early and takes a second or more to finish.
        stopped = time.monotonic()
        own_kafka.stop_node(1)
        _, body = _wait(
            "/health to say unhealthy",
            lambda: (
                (h := _health(url))[0] == 500
                and "src-0" in h[1]["message"]
                and "snk-0" in h[1]["message"]
                and h
            ),
            90,
            lines,
        )
        assert body["status"] == "unhealthy"
        assert body["message"].startswith(
            "Worker was unable to handle this request and may be unable to handle other requests."
        )
        assert time.monotonic() - stopped >= 4  # not before broker.unreachable.timeout.ms

        metrics = httpx.get(f"{url}/metrics", timeout=5).text
        assert re.search(
            r'kafka_connect_connector_task_metrics_broker_unreachable\{connector="src",task="0"\} 1',
            metrics,
        ), metrics
        status = httpx.get(f"{url}/connectors/src/status", timeout=5).json()
        assert status["tasks"][0]["state"] == "RUNNING"
        assert "reached no Kafka broker" in status["tasks"][0]["trace"]

        time.sleep(8)  # the outage goes on: still one line per task, repeats collapsed
        for task in ("'src' task 0", "'snk' task 0"):
            told = lines.matching(f"connector {task}: its .* has reached no Kafka broker")
            assert len(told) == 1, (task, lines.text()[-6000:])
            assert f"bootstrap.servers={bootstrap}" in told[0]
        # librdkafka's own lines come through logging (kconnect.kafka), never raw ("%3|...").
        assert not lines.matching(r"^%\d\|"), lines.text()[-4000:]
        routed = lines.matching(r"\(kconnect\.kafka\)$")
        assert routed, lines.text()[-4000:]
        assert any("[src|task-0]" in line for line in routed), routed
        assert len(lines.matching(r"Connection refused")) < 20, lines.text()[-6000:]

        own_kafka.start_node(1)  # same port, same data
        _wait("/health to be healthy again", lambda: _health(url)[0] == 200, 90, lines)
        _wait(
            "the recovery line",
            lambda: lines.matching(
                r"connector 'src' task 0: its producer reaches the Kafka brokers"
            ),
            30,
            lines,
        )
        status = httpx.get(f"{url}/connectors/src/status", timeout=5).json()
        assert "trace" not in status["tasks"][0], status
        metrics = httpx.get(f"{url}/metrics", timeout=5).text
        assert re.search(
            r'kafka_connect_connector_task_metrics_broker_unreachable\{connector="src",task="0"\} 0',
            metrics,
        ), metrics
    finally:
        out = stop(proc)
    assert "Traceback" not in out


def test_repeated_lines_are_written_once_per_window_with_their_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = [0.0]
    logger = logging.getLogger("kconnect.test.repeats")
    repeats = RepeatCollapser(logger, window_s=30, clock=lambda: clock[0])
    with caplog.at_level(logging.INFO, logger="kconnect.test.repeats"):
        for second in range(58):
            clock[0] = float(second)
            repeats.log(logging.ERROR, f"Connect to 127.0.0.1:9092 failed (after {second}ms)")
        repeats.log(logging.WARNING, "something else")
        clock[0] = 61.0
        repeats.flush()
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "Connect to 127.0.0.1:9092 failed (after 0ms)",
        "Connect to 127.0.0.1:9092 failed (after 30ms) (repeated 30 times in 30 s)",
        "something else",
        "Connect to 127.0.0.1:9092 failed (after 57ms) (repeated 27 times in 31 s)",
    ]


def test_librdkafka_lines_carry_the_task_context(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = KafkaClientLog("producer connector-producer-x-0", context="[x|task-0] ")
    with caplog.at_level(logging.DEBUG, logger="kconnect.kafka"):
        client.log(
            logging.ERROR,
            "%s [%s] %s",
            "FAIL",
            "rdkafka#producer-1",
            "[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect failed",
        )
    (record,) = caplog.records
    assert record.getMessage() == (
        "producer connector-producer-x-0: FAIL: 127.0.0.1:1/bootstrap: Connect failed"
    )
    assert record.connector_context == "[x|task-0] "  # type: ignore[attr-defined]
    assert record.levelno == logging.ERROR
