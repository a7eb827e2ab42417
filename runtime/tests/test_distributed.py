"""Distributed mode: Kafka-backed stores in Kafka Connect's formats, recovery after kill -9."""

from __future__ import annotations

import json
import signal
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from kconnect_runtime.modes import free_port
from kconnect_runtime.storage import KafkaLog, KafkaOffsetStore
from runtime_harness import (
    SESSION_TIMEOUT,
    TANSU,
    file_sink,
    file_source,
    kconnect,
    line_count,
    stop,
    wait_for,
    write_props,
)

pytestmark = pytest.mark.integration

JAVA_KEY = b'["file-source",{"filename":"/tmp/in.txt"}]'
JAVA_VALUE = b'{"position":42}'


def _unique(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def _raw_records(kafka: str, topic: str) -> list[tuple[int, bytes | None, bytes | None]]:
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": _unique("peek")})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        out = []
        while messages := consumer.consume(1000, timeout=2):
            out += [(m.partition(), m.key(), m.value()) for m in messages if m.error() is None]
        return out
    finally:
        consumer.close()


def test_offsets_topic_uses_java_record_format(kafka: str) -> None:
    topic = _unique("connect-offsets")
    offsets_log = KafkaLog(
        {"bootstrap.servers": kafka},
        topic,
        partitions=5,
        replication_factor=1,
        key_name="offset.storage.topic",
    )
    offsets_log.ensure_topic()
    # As a Java worker writes it: JsonConverter bytes, Java's (murmur2) partitioner.
    java = Producer({"bootstrap.servers": kafka, "partitioner": "murmur2_random"})
    java.produce(topic, key=JAVA_KEY, value=JAVA_VALUE)
    java.flush(10)

    store = KafkaOffsetStore(offsets_log)
    assert store.get("file-source", {"filename": "/tmp/in.txt"}) == {"position": 42}

    partition = {"filename": "/tmp/in.txt"}
    store.put("file-source", {"k": (partition, {"position": 43})})
    store.flush()
    records = _raw_records(kafka, topic)
    assert len(records) == 2
    (java_partition, _, _), (ours_partition, key, value) = records
    assert (key, value) == (JAVA_KEY, b'{"position":43}')
    assert ours_partition == java_partition  # compaction keeps only the newest value
    assert KafkaOffsetStore(offsets_log).get("file-source", partition) == {"position": 43}
    offsets_log.close()


def _end_offset(kafka: str, topic: str) -> int:
    """The offset after the topic's last record (control batches excluded)."""
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": _unique("peek")})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        last = -1
        while messages := consumer.consume(10000, timeout=1):
            last = max([last, *(m.offset() or 0 for m in messages if m.error() is None)])
        return last + 1
    finally:
        consumer.close()


def _worker_props_dict(kafka: str, group: str, port: int = 0) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "3",
        "status.storage.partitions": "2",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.flush.interval.ms": "300",
        "consumer.session.timeout.ms": SESSION_TIMEOUT,
        "listeners": f"http://127.0.0.1:{port}",
    }


def _worker_file(tmp: Path, kafka: str, port: int, group: str) -> Path:
    return write_props(tmp / "worker.properties", _worker_props_dict(kafka, group, port))


def _up(api: httpx.Client) -> bool:
    try:
        return api.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def _states(api: httpx.Client) -> dict[str, Any]:
    body = api.get("/connectors", params={"expand": "status"}).json()
    return {name: entry["status"]["connector"]["state"] for name, entry in body.items()}


def _task_states(api: httpx.Client, name: str) -> list[str]:
    return [t["state"] for t in api.get(f"/connectors/{name}/status").json()["tasks"]]


def test_tasks_follow_pause_and_resume_of_their_connector_on_the_same_worker(
    kafka: str, tmp_path: Path
) -> None:
    # The connector and its task run on the one worker; pausing the connector first must
    # not leave its task running (the compat REST differential saw it RUNNING for good).
    port = free_port()
    worker = _worker_file(tmp_path, kafka, port, _unique("kc-pause"))
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    proc = kconnect("distributed", str(worker), cwd=tmp_path)
    try:
        wait_for(lambda: _up(api), 30, "the distributed worker's REST API")
        running = file_source("follows", tmp_path / "in.txt", _unique("t"))
        assert (
            api.post("/connectors", json={"name": "follows", "config": running}).status_code == 201
        )
        wait_for(lambda: _task_states(api, "follows") == ["RUNNING"], 30, "the task RUNNING")
        assert api.put("/connectors/follows/pause").status_code == 202
        wait_for(lambda: _task_states(api, "follows") == ["PAUSED"], 30, "the task PAUSED")
        assert api.put("/connectors/follows/resume").status_code == 202
        wait_for(lambda: _task_states(api, "follows") == ["RUNNING"], 30, "the task RUNNING again")

        created_paused = file_source("starts-paused", tmp_path / "p.txt", _unique("t"))
        body = {"name": "starts-paused", "config": created_paused, "initial_state": "PAUSED"}
        assert api.post("/connectors", json=body).status_code == 201
        assert api.put("/connectors/starts-paused/resume").status_code == 202
        wait_for(
            lambda: _task_states(api, "starts-paused") == ["RUNNING"],
            30,
            "the task of a connector created PAUSED RUNNING once resumed",
        )
    finally:
        api.close()
        stop(proc)


@pytest.mark.parametrize("kafka", ["kafka", TANSU], indirect=True)
def test_kill_9_then_restart_recovers_connectors_states_and_offsets(
    kafka: str, tmp_path: Path
) -> None:
    group = _unique("kc-dist")
    port = free_port()
    worker = _worker_file(tmp_path, kafka, port, group)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    skipped = "".join(f"old{i:03d}\n" for i in range(6))  # 42 bytes a Java worker already read
    assert len(skipped) == 42
    source_file.write_text(skipped + "".join(f"line {i}\n" for i in range(300)))
    topic = _unique("dist")
    src, sink = "file-source", _unique("sink")

    # Offsets carried over from a Java cluster: the source must start at byte 42.
    java = Producer({"bootstrap.servers": kafka, "partitioner": "murmur2_random"})
    key = f'["file-source",{{"filename":"{source_file}"}}]'.encode()
    java.produce(f"{group}-offsets", key=key, value=JAVA_VALUE)
    java.flush(10)

    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    proc = kconnect("distributed", str(worker), cwd=tmp_path)
    try:
        wait_for(lambda: _up(api), 30, "the distributed worker's REST API")
        for config in (file_source(src, source_file, topic), file_sink(sink, sink_file, topic)):
            assert (
                api.post("/connectors", json={"name": config["name"], "config": config}).status_code
                == 201
            )
        paused = file_source("kept-paused", tmp_path / "p.txt", _unique("t"))
        stopped = file_source("kept-stopped", tmp_path / "s.txt", _unique("t"))
        api.post(
            "/connectors", json={"name": "kept-paused", "config": paused, "initial_state": "PAUSED"}
        )
        api.post("/connectors", json={"name": "kept-stopped", "config": stopped})
        assert api.put("/connectors/kept-stopped/stop").status_code == 204
        wait_for(lambda: line_count(sink_file) >= 300, 60, "the first lines in the sink file")
        assert not sink_file.read_text().startswith("old")

        with source_file.open("a") as f:
            f.writelines(f"more {i}\n" for i in range(3000))
        wait_for(lambda: line_count(sink_file) >= 600, 60, "the stream to be mid-way")
        stop(proc, signal.SIGKILL)

        proc = kconnect("distributed", str(worker), cwd=tmp_path)
        wait_for(lambda: _up(api), 30, "the restarted worker")
        assert _states(api) == {
            src: "RUNNING",
            sink: "RUNNING",
            "kept-paused": "PAUSED",
            "kept-stopped": "STOPPED",
        }
        # Not a line count: after a crash, duplicates reach the count before the tail arrives.
        # One partition, so the last line written arrives last.
        wait_for(
            lambda: sink_file.read_text().endswith("more 2999\n"),
            60,
            "every line after the restart",
        )
        expected = [f"line {i}" for i in range(300)] + [f"more {i}" for i in range(3000)]
        assert set(expected) <= set(sink_file.read_text().splitlines())  # nothing lost
        committed = [
            {
                "partition": {"filename": str(source_file)},
                "offset": {"position": source_file.stat().st_size},
            }
        ]
        wait_for(
            lambda: api.get(f"/connectors/{src}/offsets").json()["offsets"] == committed,
            15,
            "the source offset at the end of the file",
        )

        # The sink has caught up (its group offset is the topic's end) before a clean stop.
        end = _end_offset(kafka, topic)
        wait_for(
            lambda: (
                api.get(f"/connectors/{sink}/offsets").json()["offsets"]
                == [
                    {
                        "partition": {"kafka_topic": topic, "kafka_partition": 0},
                        "offset": {"kafka_offset": end},
                    }
                ]
            ),
            60,
            "the sink's committed offset at the end of the topic",
        )
        stop(proc)
        before = line_count(sink_file)
        with source_file.open("a") as f:
            f.writelines(f"last {i}\n" for i in range(100))
        proc = kconnect("distributed", str(worker), cwd=tmp_path)
        wait_for(
            lambda: line_count(sink_file) >= before + 100, 60, "the lines after a clean restart"
        )
        lines = sink_file.read_text().splitlines()
        assert lines[before:] == [f"last {i}" for i in range(100)]  # no duplicates
    finally:
        output = stop(proc)
        api.close()
    assert "Traceback" not in output, output[-3000:]


def test_config_topic_written_by_java_is_recovered(kafka: str, tmp_path: Path) -> None:
    from kconnect_runtime.modes import Distributed

    group = _unique("kc-java")
    configs = f"{group}-configs"
    source = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "name": "java-source",
        "file": str(tmp_path / "in.txt"),
        "topic": "t",
    }
    KafkaLog(
        {"bootstrap.servers": kafka},
        configs,
        partitions=1,
        replication_factor=1,
        key_name="config.storage.topic",
    ).ensure_topic()
    java = Producer({"bootstrap.servers": kafka})
    for key, value in [
        (b"connector-java-source", {"properties": source}),
        (b"task-java-source-0", {"properties": {**source, "task.class": "x"}}),
        (b"commit-java-source", {"tasks": 1}),
        (b"target-state-java-source", {"state": "PAUSED", "state.v2": "STOPPED"}),
        (b"connector-gone", {"properties": {**source, "name": "gone"}}),
        (b"connector-gone", None),
    ]:
        raw = None if value is None else json.dumps(value, separators=(",", ":")).encode()
        java.produce(configs, key=key, value=raw)
    java.flush(10)

    props = {**_worker_props_dict(kafka, group), "listeners": ""}
    app = Distributed(props)
    app.start()
    try:
        assert app.worker is not None  # what runs here: the connector assigned to this worker
        assert sorted(app.worker.connectors) == ["java-source"]
        herder = app.herder  # what REST asks: the group's view (tasks are assigned apart)
        assert herder is not None
        status = herder.connector_status("java-source")
        assert status["connector"]["state"] == "STOPPED" and status["tasks"] == []
        herder.resume_connector("java-source")
        wait_for(
            lambda: (
                [t["state"] for t in herder.connector_status("java-source")["tasks"]] == ["RUNNING"]
            ),
            30,
            "the recovered connector's task",
        )
    finally:
        app.stop()
    written = [(k, v) for _, k, v in _raw_records(kafka, configs)]
    assert (
        b"target-state-java-source",
        b'{"state":"STARTED","state.v2":"STARTED"}',
    ) in written


def test_config_topic_with_many_partitions_is_refused(kafka: str) -> None:
    from kconnect_runtime.modes import Distributed
    from kconnect_sdk import ConnectError

    group = _unique("kc-parts")
    KafkaLog(
        {"bootstrap.servers": kafka},
        f"{group}-configs",
        partitions=3,
        replication_factor=1,
        key_name="config.storage.topic",
    ).ensure_topic()
    with pytest.raises(ConnectError, match="must have a single partition"):
        Distributed({**_worker_props_dict(kafka, group), "listeners": ""}).start()


def _config_record(key: str, value: dict[str, Any] | None) -> tuple[bytes, bytes | None]:
    raw = None if value is None else json.dumps(value).encode()
    return key.encode(), raw


def test_a_deleted_connectors_records_are_forgotten_without_changing_the_replay() -> None:
    from kconnect_runtime.herder._distributed import without_connector_records
    from kconnect_runtime.storage import replay_configs

    source = {"connector.class": "FileStreamSource", "topic": "t"}
    records = [
        _config_record("target-state-early", {"state": "PAUSED"}),  # before any config
        _config_record("connector-gone", {"properties": source}),
        _config_record("connector-gone-1", {"properties": source}),
        _config_record("task-gone-0", {"properties": source}),
        _config_record("task-gone-1-0", {"properties": source}),
        _config_record("commit-gone", {"tasks": 1}),
        _config_record("commit-gone-1", {"tasks": 1}),
        _config_record("target-state-gone", {"state": "PAUSED", "state.v2": "STOPPED"}),
        _config_record("tasks-fencing-gone", {"task-count": 1}),
        _config_record("connector-gone", {"properties": {**source, "topic": "u"}}),
    ]
    tombstone = _config_record("connector-gone", None)
    kept = without_connector_records(records, "gone")
    assert kept is not None
    assert [k for k, _ in kept] == [
        b"target-state-early",
        b"connector-gone-1",
        b"task-gone-1-0",
        b"commit-gone-1",
    ]
    assert replay_configs(kept) == replay_configs([*records, tombstone])
    # The connector comes back under its name: as if it had never been there.
    again = _config_record("connector-gone", {"properties": source})
    assert replay_configs([*kept, again]) == replay_configs([*records, tombstone, again])
    # A tombstone of a connector that is not there keeps every record.
    assert without_connector_records(kept, "gone") is None
    assert without_connector_records(kept, "early") is None


def test_the_herder_keeps_nothing_of_a_deleted_connector(kafka: str, tmp_path: Path) -> None:
    from kconnect_runtime.herder import DistributedHerder
    from kconnect_runtime.modes import Distributed

    group = _unique("kc-forget")
    source = tmp_path / "in.txt"
    source.write_text("one\n")
    app = Distributed({**_worker_props_dict(kafka, group), "listeners": ""})
    app.start()
    try:
        herder = app.herder
        assert isinstance(herder, DistributedHerder)
        herder.create_connector(file_source("kept", source, f"{group}-t"))
        for round_ in range(3):
            name = f"churn-{round_}"
            herder.create_connector(file_source(name, source, f"{group}-t"))
            wait_for(
                lambda n=name: (
                    [t["state"] for t in herder.connector_status(n)["tasks"]] == ["RUNNING"]
                ),
                60,
                f"{name}'s task",
            )
            herder.delete_connector(name)
            wait_for(lambda n=name: n not in herder.connector_names(), 30, f"{name} deleted")
        wait_for(lambda: set(herder._revisions) == {"kept"}, 30, "the applied revisions")
        # What the worker keeps of the config topic: the live connector's records only, so
        # it does not grow with every connector created and deleted.
        keys = {(k or b"").decode() for k, _ in herder._records}
        assert not any("churn" in k for k in keys), sorted(keys)
        assert "connector-kept" in keys
        assert list(herder.view) == ["kept"]
    finally:
        app.stop()
