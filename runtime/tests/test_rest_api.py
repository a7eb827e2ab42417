"""Every REST endpoint of Kafka Connect 4.x against a live worker and a real broker."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_sdk import ConfigDef, ConnectError
from runtime_harness import (
    RecordingSourceConnector,
    file_sink,
    file_source,
    line_count,
    wait_for,
    worker_props,
)

pytestmark = pytest.mark.integration


class FailingStartConnector(RecordingSourceConnector):
    """Fails in start() while the file named by ``fail.marker`` exists."""

    def start(self, props: Mapping[str, str]) -> None:
        if Path(props["fail.marker"]).exists():
            raise ConnectError(f"cannot start: {props['fail.marker']} exists")
        super().start(props)

    def config(self) -> ConfigDef:
        return ConfigDef()


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rest")


@pytest.fixture(scope="module")
def api(kafka: str, workdir: Path) -> Iterator[httpx.Client]:
    app = Standalone(worker_props(workdir, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    assert app.rest is not None
    try:
        with httpx.Client(base_url=app.rest.url, timeout=30) as client:
            yield client
    finally:
        app.stop()


def _state(api: httpx.Client, name: str) -> tuple[str, list[str]]:
    body = api.get(f"/connectors/{name}/status").json()
    return body["connector"]["state"], [t["state"] for t in body["tasks"]]


def _wait_state(api: httpx.Client, name: str, connector: str, tasks: list[str]) -> None:
    wait_for(
        lambda: _state(api, name) == (connector, tasks), 30, f"{name} {connector} with {tasks}"
    )


def _create(api: httpx.Client, config: dict[str, str], **extra: Any) -> httpx.Response:
    name = config["name"]
    return api.post("/connectors", json={"name": name, "config": config, **extra})


def test_root_health_and_openapi(api: httpx.Client) -> None:
    root = api.get("/")
    assert root.status_code == 200
    assert set(root.json()) == {"version", "commit", "kafka_cluster_id", "kconnect_version"}
    health = api.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "healthy"
    paths = api.get("/openapi.json").json()["paths"]
    for path in (
        "/connectors/{name}/offsets",
        "/connectors/{name}/stop",
        "/connector-plugins/{plugin}/config/validate",
        "/admin/loggers/{logger}",
    ):
        assert path in paths


def test_create_conflict_and_bad_input(api: httpx.Client, workdir: Path) -> None:
    name = _name("src")
    config = file_source(name, workdir / f"{name}.txt", _name("t"))
    created = _create(api, config)
    assert created.status_code == 201
    assert created.headers["location"] == f"/connectors/{name}"
    assert created.json()["name"] == name and created.json()["type"] == "source"
    assert created.json()["config"]["file"] == config["file"]

    again = _create(api, config)
    assert again.status_code == 409
    assert again.json() == {"error_code": 409, "message": f"Connector {name} already exists"}

    bad_json = api.post(
        "/connectors", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad_json.status_code == 400 and bad_json.json()["error_code"] == 400

    missing_class = _create(api, {"name": _name("x")})
    assert missing_class.status_code == 400
    assert "connector.class" in missing_class.json()["message"]

    unknown_class = _create(api, {"name": _name("x"), "connector.class": "NoSuchConnector"})
    assert unknown_class.status_code == 400 and "NoSuchConnector" in unknown_class.json()["message"]

    sink_without_topics = _create(
        api, {"name": _name("x"), "connector.class": "FileStreamSink", "file": "/tmp/x"}
    )
    assert sink_without_topics.status_code == 400
    assert "topics" in sink_without_topics.json()["message"]

    # Kafka's words, which differ between its views of a connector.
    for path, message in (
        ("/connectors/nope", "Connector nope not found"),
        ("/connectors/nope/status", "No status found for connector nope"),
        ("/connectors/nope/config", "Connector nope not found"),
    ):
        missing = api.get(path)
        assert missing.status_code == 404
        assert missing.json() == {"error_code": 404, "message": message}
    assert api.delete("/connectors/nope").status_code == 404
    assert api.get(f"/connectors/{name}/tasks/7/status").status_code == 404

    assert name in api.get("/connectors").json()
    expanded = api.get("/connectors", params=[("expand", "status"), ("expand", "info")]).json()
    assert expanded[name]["status"]["connector"]["state"] == "RUNNING"
    assert expanded[name]["info"]["type"] == "source"

    assert api.delete(f"/connectors/{name}").status_code == 204
    assert api.get(f"/connectors/{name}").status_code == 404


def test_config_put_patch_and_tasks(api: httpx.Client, workdir: Path) -> None:
    name = _name("cfg")
    config = file_source(name, workdir / f"{name}.txt", _name("t"))
    put_new = api.put(f"/connectors/{name}/config", json=config)
    assert put_new.status_code == 201

    changed = {**config, "topic": "other-topic", "batch.size": 7}  # numbers become strings
    put_again = api.put(f"/connectors/{name}/config", json=changed)
    assert put_again.status_code == 200
    assert api.get(f"/connectors/{name}/config").json()["topic"] == "other-topic"
    tasks = api.get(f"/connectors/{name}/tasks").json()
    assert tasks[0]["id"] == {"connector": name, "task": 0}
    assert tasks[0]["config"]["topic"] == "other-topic"  # the task restarted with the new config

    mismatch = api.put(f"/connectors/{name}/config", json={**config, "name": "someone-else"})
    assert mismatch.status_code == 400 and "someone-else" in mismatch.json()["message"]
    invalid = api.put(f"/connectors/{name}/config", json={**config, "tasks.max": "0"})
    assert invalid.status_code == 400 and "tasks.max" in invalid.json()["message"]
    assert _state(api, name)[0] == "RUNNING"  # a rejected update leaves the connector alone

    patched = api.patch(f"/connectors/{name}/config", json={"batch.size": None, "topic": "t3"})
    assert patched.status_code == 200
    assert (
        "batch.size" not in patched.json()["config"] and patched.json()["config"]["topic"] == "t3"
    )
    assert api.patch("/connectors/nope/config", json={"a": "b"}).status_code == 404
    not_object = api.patch(f"/connectors/{name}/config", json=["a"])
    assert not_object.status_code == 400
    _wait_state(api, name, "RUNNING", ["RUNNING"])
    assert api.get(f"/connectors/{name}/tasks/0/status").json()["state"] == "RUNNING"
    api.delete(f"/connectors/{name}")


def test_passwords_are_hidden(api: httpx.Client) -> None:
    name = _name("secret")
    config = {
        "name": name,
        "connector.class": "runtime_harness:RecordingSourceConnector",
        "password": "hunter2",
    }
    assert _create(api, config).status_code == 201
    bodies = [
        api.get(f"/connectors/{name}").text,
        api.get(f"/connectors/{name}/config").text,
        api.get(f"/connectors/{name}/tasks").text,
        api.get("/connectors", params={"expand": "info"}).text,
        api.put(
            "/connector-plugins/runtime_harness:RecordingSourceConnector/config/validate",
            json=config,
        ).text,
    ]
    for body in bodies:
        assert "hunter2" not in body
        assert "[hidden]" in body
    api.delete(f"/connectors/{name}")


def test_pause_resume_stop_and_initial_states(api: httpx.Client, workdir: Path) -> None:
    src_file = workdir / "pause-in.txt"
    out_file = workdir / "pause-out.txt"
    src_file.write_text("a\nb\n")
    topic = _name("pause")
    src, sink = _name("src"), _name("sink")
    assert _create(api, file_source(src, src_file, topic)).status_code == 201
    assert _create(api, file_sink(sink, out_file, topic)).status_code == 201
    wait_for(lambda: line_count(out_file) == 2, 30, "two lines in the sink file")

    assert api.put(f"/connectors/{src}/pause").status_code == 202
    _wait_state(api, src, "PAUSED", ["PAUSED"])
    with src_file.open("a") as f:
        f.write("c\n")
    assert api.get(f"/connectors/{src}/status").json()["tasks"][0]["state"] == "PAUSED"
    time.sleep(1.0)
    assert line_count(out_file) == 2  # nothing moves while paused
    assert api.put(f"/connectors/{src}/resume").status_code == 202
    _wait_state(api, src, "RUNNING", ["RUNNING"])
    wait_for(lambda: line_count(out_file) == 3, 30, "the line written while paused")

    assert api.put(f"/connectors/{src}/stop").status_code == 204
    assert api.put(f"/connectors/{src}/stop").status_code == 204  # idempotent
    assert _state(api, src) == ("STOPPED", [])
    assert api.get(f"/connectors/{src}/tasks").json() == []
    with src_file.open("a") as f:
        f.write("d\n")
    assert api.put(f"/connectors/{src}/resume").status_code == 202
    _wait_state(api, src, "RUNNING", ["RUNNING"])
    wait_for(lambda: line_count(out_file) == 4, 30, "the line written while stopped")
    assert out_file.read_text() == "a\nb\nc\nd\n"  # resumed from its offsets: no duplicates

    paused = _name("init-paused")
    assert (
        _create(api, file_source(paused, src_file, _name("t")), initial_state="PAUSED").status_code
        == 201
    )
    # As Kafka: a connector created PAUSED is not started, so it has no task configs (and no
    # tasks) until it is resumed.
    _wait_state(api, paused, "PAUSED", [])
    assert api.get(f"/connectors/{paused}/tasks").json() == []
    assert api.put(f"/connectors/{paused}/resume").status_code == 202
    _wait_state(api, paused, "RUNNING", ["RUNNING"])
    stopped = _name("init-stopped")
    assert (
        _create(
            api, file_source(stopped, src_file, _name("t")), initial_state="STOPPED"
        ).status_code
        == 201
    )
    assert _state(api, stopped) == ("STOPPED", [])
    bad_state = _create(api, file_source(_name("x"), src_file, "t"), initial_state="SLEEPING")
    assert bad_state.status_code == 400

    assert api.get(f"/connectors/{sink}/topics").json() == {sink: {"topics": [topic]}}
    assert api.get(f"/connectors/{src}/topics").json() == {src: {"topics": [topic]}}
    # As Kafka's worker: an unknown connector has no active topics, and none to reset.
    assert api.get("/connectors/nope/topics").json() == {"nope": {"topics": []}}
    assert api.put("/connectors/nope/topics/reset").status_code == 202
    assert api.put(f"/connectors/{sink}/topics/reset").status_code == 202
    for name in (src, sink, paused, stopped):
        assert api.delete(f"/connectors/{name}").status_code == 204


def test_offsets_source_and_sink(api: httpx.Client, workdir: Path) -> None:
    src_file = workdir / "offsets-in.txt"
    out_file = workdir / "offsets-out.txt"
    src_file.write_text("one\ntwo\nthree\n")
    topic = _name("offsets")
    src, sink = _name("src"), _name("sink")
    _create(api, file_source(src, src_file, topic))
    _create(api, file_sink(sink, out_file, topic))
    wait_for(lambda: line_count(out_file) == 3, 30, "three lines in the sink file")
    partition = {"filename": str(src_file)}

    def source_offsets() -> list[dict[str, Any]]:
        return list(api.get(f"/connectors/{src}/offsets").json()["offsets"])

    wait_for(lambda: bool(source_offsets()), 15, "a committed source offset")
    [entry] = source_offsets()
    assert entry["partition"] == partition
    assert entry["offset"]["position"] == len("one\ntwo\nthree\n")

    def sink_offsets() -> list[dict[str, Any]]:
        return list(api.get(f"/connectors/{sink}/offsets").json()["offsets"])

    wait_for(lambda: bool(sink_offsets()), 20, "a committed sink offset")
    assert sink_offsets() == [
        {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 3}}
    ]

    running = api.patch(
        f"/connectors/{src}/offsets",
        json={"offsets": [{"partition": partition, "offset": {"position": 4}}]},
    )
    assert running.status_code == 400 and "STOPPED" in running.json()["message"]
    assert api.delete(f"/connectors/{sink}/offsets").status_code == 400

    assert api.put(f"/connectors/{src}/stop").status_code == 204
    altered = api.patch(
        f"/connectors/{src}/offsets",
        json={"offsets": [{"partition": partition, "offset": {"position": 4}}]},
    )
    assert altered.status_code == 200 and "altered successfully" in altered.json()["message"]
    assert source_offsets() == [{"partition": partition, "offset": {"position": 4}}]
    assert api.patch(f"/connectors/{src}/offsets", json={"offsets": "x"}).status_code == 400
    assert (
        api.patch(
            f"/connectors/{src}/offsets", content=b"[", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )
    # From byte 4 the source reads "two" and "three" again.
    api.put(f"/connectors/{src}/resume")
    wait_for(lambda: line_count(out_file) == 5, 30, "lines re-read from the altered offset")
    assert out_file.read_text() == "one\ntwo\nthree\ntwo\nthree\n"

    api.put(f"/connectors/{src}/stop")
    reset = api.delete(f"/connectors/{src}/offsets")
    assert reset.status_code == 200 and "reset successfully" in reset.json()["message"]
    assert source_offsets() == []

    assert api.put(f"/connectors/{sink}/stop").status_code == 204
    bad_sink = api.patch(
        f"/connectors/{sink}/offsets",
        json={"offsets": [{"partition": {"kafka_topic": topic}, "offset": {"kafka_offset": 1}}]},
    )
    assert bad_sink.status_code == 400 and "kafka_partition" in bad_sink.json()["message"]
    sink_partition = {"kafka_topic": topic, "kafka_partition": 0}
    moved = api.patch(
        f"/connectors/{sink}/offsets",
        json={"offsets": [{"partition": sink_partition, "offset": {"kafka_offset": 1}}]},
    )
    assert moved.status_code == 200
    assert sink_offsets() == [{"partition": sink_partition, "offset": {"kafka_offset": 1}}]
    assert api.delete(f"/connectors/{sink}/offsets").status_code == 200
    assert sink_offsets() == []
    for name in (src, sink):
        api.delete(f"/connectors/{name}")


def test_restarts_and_failed_tasks(api: httpx.Client, workdir: Path) -> None:
    missing_dir = workdir / "not-yet"
    topic = _name("restart")
    sink = _name("sink")
    _create(api, file_sink(sink, missing_dir / "out.txt", topic))
    _wait_state(api, sink, "RUNNING", ["FAILED"])
    status = api.get(f"/connectors/{sink}/tasks/0/status").json()
    assert "not-yet" in status["trace"]

    other = _name("ok")
    _create(api, file_source(other, workdir / "ok.txt", _name("t")))
    _wait_state(api, other, "RUNNING", ["RUNNING"])  # one failed task does not stop others

    missing_dir.mkdir()
    assert api.post(f"/connectors/{sink}/tasks/0/restart").status_code == 204
    _wait_state(api, sink, "RUNNING", ["RUNNING"])
    assert api.post(f"/connectors/{sink}/tasks/9/restart").status_code == 404

    assert api.post(f"/connectors/{other}/restart").status_code == 204
    accepted = api.post(f"/connectors/{other}/restart", params={"includeTasks": "true"})
    assert accepted.status_code == 202
    assert accepted.json()["connector"]["state"] == "RESTARTING"
    assert [t["state"] for t in accepted.json()["tasks"]] == ["RESTARTING"]
    _wait_state(api, other, "RUNNING", ["RUNNING"])
    only_failed = api.post(
        f"/connectors/{other}/restart", params={"includeTasks": "true", "onlyFailed": "true"}
    )
    assert only_failed.status_code == 202
    assert only_failed.json()["connector"]["state"] == "RUNNING"  # nothing failed: untouched
    assert api.post("/connectors/nope/restart").status_code == 404
    for name in (sink, other):
        api.delete(f"/connectors/{name}")


def test_automatic_restart_with_backoff(api: httpx.Client, workdir: Path) -> None:
    missing_dir = workdir / "auto-later"
    sink = _name("auto")
    config = file_sink(
        sink,
        missing_dir / "out.txt",
        _name("t"),
        **{
            "errors.restart.max.attempts": "-1",
            "errors.restart.backoff.initial.ms": "100",
            "errors.restart.backoff.max.ms": "300",
        },
    )
    _create(api, config)
    wait_for(lambda: _state(api, sink)[1] == ["FAILED"], 30, "the task to fail")
    missing_dir.mkdir()
    _wait_state(api, sink, "RUNNING", ["RUNNING"])  # no manual restart needed
    api.delete(f"/connectors/{sink}")


def test_plugins_validate_and_config(api: httpx.Client) -> None:
    plugins = api.get("/connector-plugins").json()
    assert {"FileStreamSink", "FileStreamSource"} <= {
        p["class"].rsplit(".", 1)[-1].replace("Connector", "") for p in plugins
    }
    assert {
        p["type"] for p in api.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    } >= {"source", "sink", "converter", "transformation"}
    keys = api.get("/connector-plugins/FileStreamSink/config").json()
    file_key = next(k for k in keys if k["name"] == "file")
    assert set(file_key) == {
        "name",
        "type",
        "required",
        "default_value",
        "importance",
        "documentation",
        "group",
        "order",
        "width",
        "display_name",
        "dependents",
    }
    assert api.get("/connector-plugins/NoSuch/config").status_code == 404

    good = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={"connector.class": "FileStreamSink", "name": "v", "topics": "t", "file": "/tmp/o"},
    ).json()
    assert good["error_count"] == 0
    assert "Common" in good["groups"]
    names = {c["value"]["name"] for c in good["configs"]}
    assert {"topics", "tasks.max", "errors.tolerance", "file"} <= names

    bad = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={
            "connector.class": "FileStreamSink",
            "name": "v",
            "tasks.max": "zero",
            "transforms": "x",
        },
    )
    assert bad.status_code == 200
    body = bad.json()
    assert body["error_count"] >= 2
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"]}
    assert errors["tasks.max"] and errors["topics"]
    mismatch = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={"connector.class": "FileStreamSource", "name": "v"},
    )
    assert mismatch.status_code == 400
    assert (
        api.put(
            "/connector-plugins/FileStreamSink/config/validate",
            content=b"nope",
            headers={"content-type": "application/json"},
        ).status_code
        == 400
    )


def test_admin_loggers(api: httpx.Client) -> None:
    logging.getLogger("kconnect.test.rest").setLevel(logging.INFO)
    listed = api.get("/admin/loggers").json()
    assert "root" in listed and listed["kconnect.test.rest"]["level"] == "INFO"
    changed = api.put("/admin/loggers/kconnect.test", json={"level": "DEBUG"})
    assert changed.status_code == 200 and "kconnect.test.rest" in changed.json()
    one = api.get("/admin/loggers/kconnect.test.rest").json()
    assert one["level"] == "DEBUG" and isinstance(one["last_modified"], int)
    assert logging.getLogger("kconnect.test.rest").getEffectiveLevel() == logging.DEBUG
    assert api.put("/admin/loggers/kconnect.test", json={"level": "LOUD"}).status_code == 404
    assert api.put("/admin/loggers/kconnect.test", json={}).status_code == 400
    assert api.get("/admin/loggers/never.seen.logger").status_code == 404
    logging.getLogger("kconnect.test").setLevel(logging.NOTSET)
    logging.getLogger("kconnect.test.rest").setLevel(logging.NOTSET)


def test_connector_failing_at_start_is_failed_and_restartable(
    api: httpx.Client, workdir: Path
) -> None:
    marker = workdir / "fail-marker"
    marker.touch()
    name = _name("fails")
    config = {
        "name": name,
        "connector.class": "test_rest_api:FailingStartConnector",
        "fail.marker": str(marker),
    }
    assert _create(api, config).status_code == 201
    status = api.get(f"/connectors/{name}/status").json()
    assert status["connector"]["state"] == "FAILED" and status["tasks"] == []
    assert "fail-marker exists" in status["connector"]["trace"]

    marker.unlink()
    restarted = api.post(
        f"/connectors/{name}/restart", params={"includeTasks": "true", "onlyFailed": "true"}
    )
    assert restarted.status_code == 202
    assert restarted.json()["connector"]["state"] == "RESTARTING"
    _wait_state(api, name, "RUNNING", ["RUNNING"])
    assert "trace" not in api.get(f"/connectors/{name}/status").json()["connector"]
    api.delete(f"/connectors/{name}")
