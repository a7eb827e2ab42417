"""A topic lost under a running worker (deleted, or the cluster replaced), on Apache Kafka.

A source task whose topic is gone gets it back where something may create it (the
connector's ``topic.creation.default.*``, or the brokers' ``auto.create.topics.enable``) and
its records arrive, none lost; where nothing may, the task FAILS at once with a trace that
names the topic and what to do, and a restart after the topic is back loses nothing. A
distributed worker whose config, offset and status topics are deleted creates them again
as at start (compacted, with their partitions) and goes on.

What librdkafka does when a topic is deleted under a producer (measured on Kafka 4.1.1):
records it still holds for the topic wait while the topic is younger than
``topic.metadata.propagation.max.ms`` (30 s) in its metadata cache; once older, the next
metadata answer fails everything queued for it with ``Local: Unknown partition``, and it
never creates the topic again, not even on a broker with ``auto.create.topics.enable=true``.
Two tests set that setting to 1 s on the connector (``producer.override.``) to stand for a
producer that has written to its topic for longer than 30 s.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
    AdminClient,
    ConfigResource,
    NewTopic,
)
from kconnect_runtime.modes import free_port
from kconnect_testkit._java import JavaUnavailable, KafkaCluster
from runtime_harness import file_source, kconnect, stop, worker_props, write_props

pytestmark = pytest.mark.integration

_BEFORE = [f"before {i}" for i in range(100)]
_AFTER = [f"after {i}" for i in range(1000)]
_BEFORE_BYTES = sum(len(line) + 1 for line in _BEFORE)


# -- helpers ----------------------------------------------------------------------------------
class _Output:
    """A worker process's output lines, collected on a thread."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()
        stdout = proc.stdout
        assert stdout is not None

        def read() -> None:
            for raw in iter(stdout.readline, b""):
                with self._lock:
                    self.lines.append(raw.decode(errors="replace").rstrip("\n"))

        threading.Thread(target=read, daemon=True).start()

    def matching(self, pattern: str) -> list[str]:
        with self._lock:
            return [line for line in self.lines if re.search(pattern, line)]

    def tail(self, chars: int = 6000) -> str:
        with self._lock:
            return "\n".join(self.lines)[-chars:]


def _until(what: str, condition: Callable[[], Any], timeout_s: float, output: _Output) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}:\n{output.tail()}")


_Record = tuple[bytes | None, bytes | None, list[tuple[str, bytes]]]


def _records(bootstrap: str, topic: str) -> list[_Record] | None:
    """Every (key, value, headers) of ``topic`` from start to end; None if it does not exist."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    # Every topic, not this one: asking for one by name makes a broker with
    # auto.create.topics.enable=true create it, which would hide what the worker does.
    found = admin.list_topics(timeout=10).topics.get(topic)
    if found is None or found.error is not None or not found.partitions:
        return None
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"topic-loss-reader-{uuid.uuid4().hex[:8]}",
            "enable.partition.eof": True,
            "enable.auto.commit": False,
        }
    )
    out: list[_Record] = []
    try:
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in found.partitions])
        at_end: set[int] = set()
        deadline = time.monotonic() + 15
        while len(at_end) < len(found.partitions) and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            error = message.error()
            if error is not None:
                partition = message.partition()
                if error.code() == KafkaError._PARTITION_EOF and partition is not None:
                    at_end.add(partition)
                continue
            out.append((message.key(), message.value(), list(message.headers() or [])))
    finally:
        consumer.close()
    return out


def _lines(bootstrap: str, topic: str) -> list[str] | None:
    records = _records(bootstrap, topic)
    return None if records is None else [(v or b"").decode() for _, v, _ in records]


def _create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


def _delete_topics(bootstrap: str, *topics: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.delete_topics(list(topics)).values():
        future.result(30)
    deadline = time.monotonic() + 30
    while set(topics) & set(admin.list_topics(timeout=10).topics):
        assert time.monotonic() < deadline, f"{topics} still listed 30 s after their deletion"
        time.sleep(0.2)


def _committed_position(offsets_file: Path) -> int | None:
    """The FileStream source's committed position in a standalone worker's offsets file."""
    try:
        stored = json.loads(offsets_file.read_text())
    except (OSError, ValueError):
        return None
    for entry in stored.get("offsets", []):
        return int(entry["value"]["position"])
    return None


def _task(url: str, connector: str) -> dict[str, Any]:
    try:
        tasks = httpx.get(f"{url}/connectors/{connector}/status", timeout=5).json()["tasks"]
    except (httpx.HTTPError, KeyError, ValueError):
        return {}
    return dict(tasks[0]) if tasks else {}


@pytest.fixture(scope="module")
def kafka_without_auto_create() -> Iterator[str]:
    """A private Apache Kafka broker that never creates a topic on a client's request."""
    cluster = KafkaCluster(config={"auto.create.topics.enable": "false"})
    try:
        bootstrap = cluster.start()
    except JavaUnavailable as exc:
        cluster.stop()
        pytest.fail(f"Apache Kafka is not available ({exc})", pytrace=False)
    try:
        yield bootstrap
    finally:
        cluster.stop()


class _Standalone:
    """A ``kconnect standalone`` worker running the FileStream source ``src`` into ``topic``."""

    def __init__(self, tmp: Path, bootstrap: str, topic: str) -> None:
        self.tmp = tmp
        self.bootstrap = bootstrap
        self.topic = topic
        self.url = f"http://127.0.0.1:{free_port()}"
        self.source_file = tmp / "in.txt"
        self.offsets_file = tmp / "offsets.json"
        self.output: _Output

    def append(self, lines: list[str]) -> None:
        with self.source_file.open("a", encoding="utf-8") as f:
            f.writelines(f"{line}\n" for line in lines)

    def task(self) -> dict[str, Any]:
        return _task(self.url, "src")

    def lines(self) -> list[str] | None:
        return _lines(self.bootstrap, self.topic)


@contextlib.contextmanager
def _source_worker(
    tmp_path: Path,
    bootstrap: str,
    worker_extra: dict[str, str],
    source_extra: dict[str, str],
    *,
    create_topic: bool = False,
) -> Iterator[_Standalone]:
    """A worker whose source wrote ``_BEFORE`` to its topic and committed its offset."""
    topic = f"lost-{uuid.uuid4().hex[:8]}"
    if create_topic:
        _create_topic(bootstrap, topic)
    worker = _Standalone(tmp_path, bootstrap, topic)
    worker.source_file.write_text("", encoding="utf-8")
    props = worker_props(tmp_path, bootstrap, listeners=worker.url, **worker_extra)
    worker_file = write_props(tmp_path / "worker.properties", props)
    source = file_source("src", worker.source_file, topic, **source_extra)
    source_file = write_props(tmp_path / "source.properties", source)
    proc = kconnect("standalone", str(worker_file), str(source_file), cwd=tmp_path)
    worker.output = _Output(proc)
    try:
        _until(
            "the task RUNNING", lambda: worker.task().get("state") == "RUNNING", 60, worker.output
        )
        worker.append(_BEFORE)
        _until("the first lines in Kafka", lambda: worker.lines() == _BEFORE, 30, worker.output)
        _until(
            "their offset committed",
            lambda: _committed_position(worker.offsets_file) == _BEFORE_BYTES,
            30,
            worker.output,
        )
        yield worker
    finally:
        stop(proc)


# -- a source task's topic --------------------------------------------------------------------
@pytest.mark.parametrize(
    "source_extra",
    [
        pytest.param({}, id="records-held-by-the-producer"),
        pytest.param(
            {"producer.override.topic.metadata.propagation.max.ms": "1000"},
            id="records-failed-by-the-producer",
        ),
        pytest.param(
            {
                "producer.override.topic.metadata.propagation.max.ms": "1000",
                "transforms": "origin",
                "transforms.origin.type": "org.apache.kafka.connect.transforms.InsertHeader",
                "transforms.origin.header": "origin",
                "transforms.origin.value.literal": "file",
            },
            id="records-with-headers-failed-by-the-producer",
        ),
    ],
)
def test_a_deleted_topic_is_created_again_from_topic_creation_and_no_record_is_lost(
    tmp_path: Path, kafka_without_auto_create: str, source_extra: dict[str, str]
) -> None:
    worker_extra = {"source.ack.stall.timeout.ms": "2000"}
    with _source_worker(tmp_path, kafka_without_auto_create, worker_extra, source_extra) as w:
        _delete_topics(w.bootstrap, w.topic)
        w.append(_AFTER)

        # Every line written while the topic was gone arrives, once and in order, in the
        # topic the task created again from topic.creation.default.* (1 partition).
        _until("the lines after the deletion", lambda: w.lines() == _AFTER, 40, w.output)
        assert w.task().get("state") == "RUNNING", w.output.tail()
        if "transforms" in source_extra:  # sent again with the headers they were sent with
            records = _records(w.bootstrap, w.topic) or []
            assert all(headers == [("origin", b"file")] for _, _, headers in records), records[:3]
        created = w.output.matching(rf"topic '{w.topic}' is gone from the Kafka cluster")
        assert created and "creating it again (1 partitions" in created[0], w.output.tail()
        metadata = AdminClient({"bootstrap.servers": w.bootstrap}).list_topics(timeout=10)
        assert len(metadata.topics[w.topic].partitions) == 1
        _until(
            "the offset of the last line committed",
            lambda: _committed_position(w.offsets_file) == w.source_file.stat().st_size,
            30,
            w.output,
        )


def test_a_deleted_topic_nothing_may_create_fails_the_task_naming_it_and_loses_nothing(
    tmp_path: Path, kafka_without_auto_create: str
) -> None:
    worker_extra = {"topic.creation.enable": "false", "source.ack.stall.timeout.ms": "2000"}
    with _source_worker(
        tmp_path, kafka_without_auto_create, worker_extra, {}, create_topic=True
    ) as w:
        _delete_topics(w.bootstrap, w.topic)
        w.append(_AFTER)

        # FAILED once the stall is seen, not minutes later at delivery.timeout.ms, with the
        # cause an operator can act on.
        failed = _until(
            "the task FAILED",
            lambda: (t := w.task()).get("state") == "FAILED" and t,
            20,
            w.output,
        )
        trace = failed["trace"]
        assert f"connector 'src' task 0: topic '{w.topic}' does not exist" in trace, trace
        assert "topic.creation.enable=false" in trace, trace
        assert "Create the topic" in trace and "restart the task" in trace, trace
        # No offset past the records that never reached Kafka was committed.
        assert _committed_position(w.offsets_file) == _BEFORE_BYTES

        # The operator creates the topic and restarts the task: every line arrives.
        _create_topic(w.bootstrap, w.topic)
        restart = httpx.post(f"{w.url}/connectors/src/tasks/0/restart", timeout=10)
        assert restart.status_code in (200, 202, 204), restart.text
        _until("the lines after the restart", lambda: w.lines() == _AFTER, 40, w.output)


def test_a_topic_the_brokers_create_on_demand_comes_back_without_losing_records(
    tmp_path: Path, kafka: str
) -> None:
    """The suite's broker creates topics on demand; the connector may not create any."""
    worker_extra = {"topic.creation.enable": "false"}
    source_extra = {"producer.override.topic.metadata.propagation.max.ms": "1000"}
    with _source_worker(tmp_path, kafka, worker_extra, source_extra, create_topic=True) as w:
        _delete_topics(w.bootstrap, w.topic)
        time.sleep(3)  # the next records come a moment later
        w.append(_AFTER)
        _until("the lines after the deletion", lambda: w.lines() == _AFTER, 40, w.output)
        assert w.task().get("state") == "RUNNING", w.output.tail()


# -- a distributed worker's internal topics -------------------------------------------------------
def _topic_shape(bootstrap: str, topic: str) -> tuple[int, str] | None:
    """(partitions, cleanup.policy) of a topic; None if it does not exist."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    found = admin.list_topics(timeout=10).topics.get(topic)
    if found is None or found.error is not None:
        return None
    resource = ConfigResource("topic", topic)
    config = admin.describe_configs([resource])[resource].result(10)
    return len(found.partitions), str(config["cleanup.policy"].value)


def test_internal_topics_deleted_under_a_distributed_worker_come_back_compacted(
    tmp_path: Path, kafka: str
) -> None:
    group = f"lost-internal-{uuid.uuid4().hex[:8]}"
    shapes = {f"{group}-configs": (1, "compact"), f"{group}-offsets": (3, "compact")}
    shapes[f"{group}-status"] = (2, "compact")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    props = {
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
        "consumer.session.timeout.ms": "6000",
        "listeners": url,
    }
    worker = write_props(tmp_path / "worker.properties", props)
    source_file = tmp_path / "in.txt"
    source_file.write_text("".join(f"{line}\n" for line in _BEFORE), encoding="utf-8")
    data = f"{group}-data"
    api = httpx.Client(base_url=url, timeout=30)
    proc = kconnect("distributed", str(worker), cwd=tmp_path)
    output = _Output(proc)

    def position() -> Any:
        # The source's offset as the recreated offsets topic holds it (not the worker's memory).
        key = json.dumps(["src", {"filename": str(source_file)}], separators=(",", ":"))
        found = None
        for k, v, _ in _records(kafka, f"{group}-offsets") or []:
            if k == key.encode():
                found = json.loads(v or b"null")
        return found and found["position"]

    try:

        def healthy() -> bool:
            with contextlib.suppress(httpx.HTTPError):
                return api.get("/health").status_code == 200
            return False

        _until("the worker's REST API", healthy, 60, output)
        config = file_source("src", source_file, data)
        assert api.post("/connectors", json={"name": "src", "config": config}).status_code == 201
        _until("the first lines in Kafka", lambda: _lines(kafka, data) == _BEFORE, 30, output)
        _until("their offset committed", lambda: position() == _BEFORE_BYTES, 30, output)

        _delete_topics(kafka, *shapes)
        with source_file.open("a", encoding="utf-8") as f:
            f.writelines(f"{line}\n" for line in _AFTER)

        # Created again as at start: compacted, with their partitions (a broker's
        # auto-creation would make them cleanup.policy=delete with num.partitions).
        _until(
            "the internal topics created again",
            lambda: all(_topic_shape(kafka, t) is not None for t in shapes),
            40,
            output,
        )
        assert {t: _topic_shape(kafka, t) for t in shapes} == shapes
        # What the config topic held is gone: the worker says which connectors to write again.
        _until(
            "the error naming the connectors not in the new config topic",
            lambda: output.matching(r"created again empty: connectors src keep running"),
            30,
            output,
        )
        # The source goes on, and its offsets land in the new offsets topic.
        _until(
            "the lines after the deletion",
            lambda: _lines(kafka, data) == _BEFORE + _AFTER,
            30,
            output,
        )
        _until(
            "the last offset in the new offsets topic",
            lambda: position() == source_file.stat().st_size,
            30,
            output,
        )
        # The worker still answers and takes new connectors (it read the new config
        # topic to its end), whose status lands in the new status topic.
        other = file_source("src2", tmp_path / "other.txt", f"{group}-other")
        (tmp_path / "other.txt").write_text("x\n", encoding="utf-8")
        created = api.post("/connectors", json={"name": "src2", "config": other})
        assert created.status_code == 201, created.text
        _until(
            "the new connector RUNNING",
            lambda: _task(url, "src2").get("state") == "RUNNING",
            30,
            output,
        )
        _until(
            "its status in the new status topic",
            lambda: any(
                k == b"status-task-src2-0" for k, _, _ in _records(kafka, f"{group}-status") or []
            ),
            30,
            output,
        )
        assert sorted(api.get("/connectors").json()) == ["src", "src2"]
        assert _task(url, "src").get("state") == "RUNNING", output.tail()
    finally:
        api.close()
        stop(proc)
