"""File → source task → Kafka → sink task → file, through a real broker."""

from __future__ import annotations

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
    standalone,
    stop,
    wait_for,
    worker_props,
    write_props,
)

pytestmark = pytest.mark.integration


def _lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i} ünïcode ✓\n" for i in range(n))


def _ends_with(path: Path, tail: bytes) -> bool:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - len(tail)))
            return f.read() == tail
    except FileNotFoundError:
        return False


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize(
    "converters",
    [
        pytest.param({}, id="string"),
        pytest.param(
            {
                "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "key.converter.schemas.enable": "true",
                "value.converter.schemas.enable": "true",
            },
            id="json-schemas",
        ),
        pytest.param(
            {
                "key.converter": "JsonConverter",
                "value.converter": "JsonConverter",
                "value.converter.schemas.enable": "false",
                "key.converter.schemas.enable": "false",
            },
            id="json-schemaless",
        ),
        pytest.param(
            {
                "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
                "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            },
            id="bytearray-key",
        ),
    ],
)
def test_file_to_topic_to_file(tmp_path: Path, kafka: str, converters: dict[str, str]) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    text = _lines(3000)
    source_file.write_text(text, encoding="utf-8")
    topic = _name("e2e")
    worker = worker_props(tmp_path, kafka, **converters)
    with standalone(
        worker,
        file_source(_name("src"), source_file, topic),
        file_sink(_name("sink"), sink_file, topic),
    ):
        wait_for(lambda: line_count(sink_file) >= 3000, 60, "all lines in the sink file")
    assert sink_file.read_text(encoding="utf-8") == text


def test_lines_appended_later_also_arrive(tmp_path: Path, kafka: str) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("first\n", encoding="utf-8")
    topic = _name("append")
    with standalone(
        worker_props(tmp_path, kafka),
        file_source(_name("src"), source_file, topic),
        file_sink(_name("sink"), sink_file, topic),
    ):
        wait_for(lambda: line_count(sink_file) == 1, 60, "the first line")
        with source_file.open("a", encoding="utf-8") as f:
            f.write("second\nthird\n")
        wait_for(lambda: line_count(sink_file) == 3, 30, "the appended lines")
    assert sink_file.read_text(encoding="utf-8") == "first\nsecond\nthird\n"


def test_clean_stop_mid_file_then_restart_gives_every_line_exactly_once(
    tmp_path: Path, kafka: str
) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    total = 400_000
    text = _lines(total)
    source_file.write_text(text, encoding="utf-8")
    topic = _name("restart")
    worker = worker_props(tmp_path, kafka)
    source = file_source(_name("src"), source_file, topic, **{"batch.size": "500"})
    sink = file_sink(_name("sink"), sink_file, topic)
    with standalone(worker, source, sink):
        wait_for(lambda: line_count(sink_file) > 0, 60, "the first lines in the sink file")
    # The stop came in mid-stream: not everything has arrived yet.
    stopped_at = line_count(sink_file)
    assert 0 < stopped_at < total
    with standalone(worker, source, sink):
        wait_for(lambda: line_count(sink_file) >= total, 120, "the rest of the lines after restart")
    assert sink_file.read_text(encoding="utf-8") == text


def test_kill_9_mid_stream_then_restart_loses_nothing(tmp_path: Path, kafka: str) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    total = 400_000
    lines = [f"row {i}" for i in range(total)]
    source_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    topic = _name("kill")
    worker_file = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    src_file = write_props(
        tmp_path / "src.properties", file_source(_name("src"), source_file, topic)
    )
    sink_cfg = write_props(tmp_path / "sink.properties", file_sink(_name("sink"), sink_file, topic))
    args = (str(worker_file), str(src_file), str(sink_cfg))
    proc = kconnect("standalone", *args, cwd=tmp_path)
    try:
        wait_for(lambda: line_count(sink_file) > 0, 60, "the first lines before the kill")
    finally:
        output = stop(proc, signal.SIGKILL)
    killed_at = line_count(sink_file)
    assert killed_at < total, output
    proc = kconnect("standalone", *args, cwd=tmp_path)
    try:
        # Not a line count: after a crash, duplicates reach the count before the tail arrives.
        # The topic has one partition, so the last input line arrives last.
        last = f"{lines[-1]}\n".encode()
        wait_for(lambda: _ends_with(sink_file, last), 120, "the last line after the restart")
    finally:
        output = stop(proc)
    seen = sink_file.read_text(encoding="utf-8").splitlines()
    # At least once: duplicates are allowed after a crash, loss is not.
    assert set(seen) == set(lines), output
    assert proc.returncode == 0, output


def test_rest_read_endpoints_have_kafka_connect_shapes(tmp_path: Path, kafka: str) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("a\nb\n", encoding="utf-8")
    topic = _name("rest")
    port = free_port()
    src_name, sink_name = _name("src"), _name("sink")
    worker = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}")
    with standalone(
        worker, file_source(src_name, source_file, topic), file_sink(sink_name, sink_file, topic)
    ):
        wait_for(lambda: line_count(sink_file) == 2, 60, "both lines")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            root = http.get("/").json()
            assert set(root) == {"version", "commit", "kafka_cluster_id", "kconnect_version"}
            assert sorted(http.get("/connectors").json()) == sorted([src_name, sink_name])
            info = http.get(f"/connectors/{src_name}").json()
            assert info == {
                "name": src_name,
                "config": file_source(src_name, source_file, topic),
                "tasks": [{"connector": src_name, "task": 0}],
                "type": "source",
            }
            assert http.get(f"/connectors/{sink_name}/config").json() == file_sink(
                sink_name, sink_file, topic
            )
            status = http.get(f"/connectors/{sink_name}/status").json()
            assert status["name"] == sink_name
            assert status["type"] == "sink"
            assert status["connector"]["state"] == "RUNNING"
            assert status["connector"]["worker_id"] == f"127.0.0.1:{port}"
            assert [(t["id"], t["state"]) for t in status["tasks"]] == [(0, "RUNNING")]
            tasks = http.get(f"/connectors/{src_name}/tasks").json()
            assert tasks[0]["id"] == {"connector": src_name, "task": 0}
            assert tasks[0]["config"]["file"] == str(source_file)
            assert http.get(f"/connectors/{src_name}/tasks/0/status").json()["state"] == "RUNNING"
            expanded = http.get(
                "/connectors", params=[("expand", "status"), ("expand", "info")]
            ).json()
            assert expanded[src_name]["status"]["connector"]["state"] == "RUNNING"
            assert expanded[src_name]["info"]["type"] == "source"
            plugins = http.get("/connector-plugins").json()
            assert {
                "class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                "type": "source",
                "version": "0.1.0",
            } in plugins
            assert {p["type"] for p in plugins} == {"source", "sink"}
            all_plugins = http.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
            assert "converter" in {p["type"] for p in all_plugins}
            missing = http.get("/connectors/nope")
            assert missing.status_code == 404
            assert missing.json() == {"error_code": 404, "message": "Connector nope not found"}
            assert http.get("/openapi.json").status_code == 200
