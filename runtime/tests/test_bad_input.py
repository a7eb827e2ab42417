"""What an operator sees when a config, a file or the broker is wrong."""

from __future__ import annotations

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
    standalone,
    wait_for,
    worker_props,
    write_props,
)

pytestmark = pytest.mark.integration


def _run(tmp_path: Path, *args: str, timeout: float = 60) -> tuple[int, str]:
    proc = kconnect("standalone", *args, cwd=tmp_path)
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out.decode(errors="replace")


def test_unknown_connector_class_lists_close_matches(tmp_path: Path, kafka: str) -> None:
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    conn = write_props(
        tmp_path / "c.properties",
        {"name": "typo", "connector.class": "FileStreamSorce", "file": "x", "topic": "t"},
    )
    code, out = _run(tmp_path, str(worker), str(conn))
    assert code == 1, out
    assert f"kconnect: error: {conn}: connector 'typo'" in out
    assert "connector.class" in out
    assert "Did you mean: FileStreamSource" in out


def test_missing_required_key_names_connector_and_key(tmp_path: Path, kafka: str) -> None:
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    conn = write_props(
        tmp_path / "c.properties",
        {
            "name": "no-topic",
            "connector.class": "FileStreamSource",
            "file": str(tmp_path / "in.txt"),
        },
    )
    code, out = _run(tmp_path, str(worker), str(conn))
    assert code == 1, out
    assert f"kconnect: error: {conn}: connector 'no-topic'" in out
    assert '"topic"' in out or "'topic'" in out or " topic" in out


def test_malformed_properties_line_names_file_and_line(tmp_path: Path, kafka: str) -> None:
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    conn = tmp_path / "broken.properties"
    conn.write_text(
        "name=broken\nconnector.class=FileStreamSource\n=value without a key\n", encoding="utf-8"
    )
    code, out = _run(tmp_path, str(worker), str(conn))
    assert code == 1, out
    assert f"{conn}:3:" in out


def test_a_worker_config_error_names_the_worker_file(tmp_path: Path, kafka: str) -> None:
    props = worker_props(tmp_path, kafka)
    del props["offset.storage.file.filename"]
    worker = write_props(tmp_path / "worker.properties", props)
    code, out = _run(tmp_path, str(worker))
    assert code == 1, out
    assert f"kconnect: error: {worker}: worker config: Missing required configuration" in out


def test_unreachable_broker_fails_fast_with_advice(tmp_path: Path) -> None:
    dead = f"127.0.0.1:{free_port()}"
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, dead))
    code, out = _run(tmp_path, str(worker))
    assert code == 1, out
    assert f"cannot reach Kafka at bootstrap.servers={dead}" in out
    assert "remove bootstrap.servers" in out


def test_unreadable_input_file_warns_and_worker_keeps_running(tmp_path: Path, kafka: str) -> None:
    missing = tmp_path / "not-yet.txt"
    out_file = tmp_path / "out.txt"
    topic = f"late-{uuid.uuid4().hex[:6]}"
    with standalone(
        worker_props(tmp_path, kafka),
        file_source(f"src-{topic}", missing, topic),
        file_sink(f"sink-{topic}", out_file, topic),
    ) as app:
        assert app.herder is not None
        status = app.herder.connector_status(f"src-{topic}")
        assert status["tasks"][0]["state"] == "RUNNING"
        missing.write_text("now it exists\n", encoding="utf-8")
        wait_for(lambda: line_count(out_file) == 1, 60, "the line written after the file appeared")


def test_failing_task_is_failed_with_trace_while_others_keep_running(
    tmp_path: Path, kafka: str
) -> None:
    port = free_port()
    source_file, good_out = tmp_path / "in.txt", tmp_path / "good.txt"
    source_file.write_text("a\nb\nc\n", encoding="utf-8")
    topic = f"fail-{uuid.uuid4().hex[:6]}"
    bad_sink = file_sink(f"bad-{topic}", tmp_path / "no-such-dir" / "out.txt", topic)
    good_sink = file_sink(f"good-{topic}", good_out, topic)
    worker = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}")
    with standalone(worker, file_source(f"src-{topic}", source_file, topic), bad_sink, good_sink):
        wait_for(lambda: line_count(good_out) == 3, 60, "the healthy sink to receive every line")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            bad = http.get(f"/connectors/bad-{topic}/status").json()
            good = http.get(f"/connectors/good-{topic}/status").json()
    task = bad["tasks"][0]
    assert task["state"] == "FAILED"
    # As a Java stack trace does, the trace leads with the exception and its message: the
    # first line is what `kconnect status` and the console show.
    first, rest = task["trace"].split("\n", 1)
    assert "Error: " in first and "no-such-dir" in first, first
    assert rest.startswith("Traceback (most recent call last):")
    assert good["tasks"][0]["state"] == "RUNNING"
