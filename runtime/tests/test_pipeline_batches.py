"""The batch paths of the task pipelines (issue 23) on a real broker: whatever a consumed
batch holds (error events, keys, headers), every record arrives, in order, and the task
stays RUNNING."""

from __future__ import annotations

import collections
import json
import time
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import runtime_harness
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_connector_file import FileStreamSourceConnector, FileStreamSourceTask
from kconnect_converter_string import SimpleHeaderConverter
from kconnect_runtime import Standalone
from kconnect_runtime.tasks import _source as source_tasks
from kconnect_sdk import (
    ConfigDef,
    SinkBatch,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceBatch,
    SourceRecord,
    Task,
    optional_speedups,
)

pytestmark = pytest.mark.integration


def _worker(kafka: str, tmp_path: Path) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "consumer.session.timeout.ms": "6000",
        # Find the topic soon after it is created (the worker's default is 10 s).
        "consumer.topic.metadata.refresh.interval.ms": "1000",
        "listeners": "",
    }


def test_sink_started_before_its_topic_skips_error_events_and_writes_every_line(
    tmp_path: Path, kafka: str
) -> None:
    """A sink whose topic does not exist yet is handed error events (unknown topic) mixed
    into its batches; the batch path drops them without failing and then writes every
    record, with or without keys and headers, in order."""
    topic = f"batches-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "out.txt"
    name = f"{topic}-sink"
    app = Standalone(
        _worker(kafka, tmp_path),
        [{"name": name, "connector.class": "FileStreamSink", "file": str(out), "topics": topic}],
    )
    worker = app.start()
    try:
        time.sleep(2)  # the consumer asks for the missing topic meanwhile
        admin = AdminClient({"bootstrap.servers": kafka})
        for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
            future.result()
        producer = Producer({"bootstrap.servers": kafka, "linger.ms": 5})
        expected = []
        for i in range(3000):
            value = f"line {i} ✓"
            expected.append(value)
            if i % 3 == 0:
                producer.produce(topic, value.encode())
            elif i % 3 == 1:
                producer.produce(topic, value.encode(), key=f"k{i}".encode())
            else:
                producer.produce(
                    topic, value.encode(), key=b"k", headers=[("h", f"{i}".encode()), ("n", None)]
                )
        producer.flush(30)
        want = "".join(f"{v}\n" for v in expected)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_text(encoding="utf-8")) >= len(want):
                break
            task = worker.connector_status(name)["tasks"][0]
            assert task["state"] != "FAILED", task.get("trace")
            time.sleep(0.1)
        assert out.read_text(encoding="utf-8") == want
        assert worker.connector_status(name)["tasks"][0]["state"] == "RUNNING"
    finally:
        app.stop()


def test_sink_commits_the_next_offset_of_every_partition_it_consumed(
    tmp_path: Path, kafka: str
) -> None:
    """Batches of one partition and batches mixing partitions and topics: the consumer
    group's committed offsets, as lag tooling reads them, end at each partition's end."""
    tag = uuid.uuid4().hex[:8]
    spread, single = f"commits-{tag}-a", f"commits-{tag}-b"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(spread, 3, 1), NewTopic(single, 1, 1)]).values():
        future.result()
    counts = {(spread, 0): 700, (spread, 1): 2500, (spread, 2): 40, (single, 0): 1800}
    producer = Producer({"bootstrap.servers": kafka, "linger.ms": 5})
    for (topic, partition), count in counts.items():
        for i in range(count):
            producer.produce(topic, f"{topic}/{partition}/{i}".encode(), partition=partition)
    producer.flush(30)
    out, name = tmp_path / "out.txt", f"commits-{tag}-sink"
    app = Standalone(
        _worker(kafka, tmp_path),
        [
            {
                "name": name,
                "connector.class": "FileStreamSink",
                "file": str(out),
                "topics": f"{spread},{single}",
            }
        ],
    )
    app.start()
    try:
        runtime_harness.wait_for(
            lambda: runtime_harness.line_count(out) >= sum(counts.values()), 120, "every line"
        )
    finally:
        app.stop()  # commits what was written
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"connect-{name}"})
    try:
        committed = consumer.committed([KafkaTopicPartition(t, p) for t, p in counts], timeout=10)
    finally:
        consumer.close()
    assert {(tp.topic, tp.partition): tp.offset for tp in committed} == counts
    assert len(out.read_text(encoding="utf-8").splitlines()) == sum(counts.values())


class FieldsSinkTask(SinkTask):
    """Writes every field of each record it is handed as one JSON line."""

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.path = Path(props["file"])

    def put(self, records: Sequence[SinkRecord]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            for r in records:
                fields = {
                    "via": "put",
                    "topic": r.topic,
                    "partition": r.kafka_partition,
                    "offset": r.kafka_offset,
                    "key": r.key,
                    "key_schema": None if r.key_schema is None else r.key_schema.type.name,
                    "value": r.value,
                    "timestamp": r.timestamp,
                    "timestamp_type": r.timestamp_type.name,
                    "headers": [
                        [h.key, None if h.schema is None else h.schema.type.name, h.value]
                        for h in r.headers
                    ],
                    "original": [
                        r.original_topic,
                        r.original_kafka_partition,
                        r.original_kafka_offset,
                    ],
                }
                f.write(json.dumps(fields) + "\n")

    def stop(self) -> None:
        pass


class FieldsBatchSinkTask(FieldsSinkTask):
    """The same lines, written from the columns of the batches ``put_batch`` is handed."""

    def put_batch(self, batch: SinkBatch) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            for i in range(len(batch)):
                key_schema = batch.key_schemas[i]
                fields = {
                    "via": "put_batch",
                    "topic": batch.topics[i],
                    "partition": batch.kafka_partitions[i],
                    "offset": batch.kafka_offsets[i],
                    "key": batch.keys[i],
                    "key_schema": None if key_schema is None else key_schema.type.name,
                    "value": batch.values[i],
                    "timestamp": batch.timestamps[i],
                    "timestamp_type": batch.timestamp_types[i].name,
                    "headers": [
                        [h.key, None if h.schema is None else h.schema.type.name, h.value]
                        for h in batch.headers[i]
                    ],
                    "original": [
                        batch.topics[i],
                        batch.kafka_partitions[i],
                        batch.kafka_offsets[i],
                    ],
                }
                f.write(json.dumps(fields) + "\n")


class FieldsSink(SinkConnector):
    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return FieldsBatchSinkTask if self.props.get("columns") == "true" else FieldsSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def config(self) -> ConfigDef:
        return ConfigDef()

    def stop(self) -> None:
        pass


# A transform that changes nothing (its regex matches no topic): the records still go
# through the chain, so a task with put_batch is handed them by put.
_IDENTITY = {
    "transforms": "route",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "no-such-topic",
    "transforms.route.replacement": "x",
}


@pytest.mark.parametrize(
    ("columns", "transforms", "via"),
    [(False, False, "put"), (True, False, "put_batch"), (True, True, "put")],
    ids=["put", "put_batch", "put_batch-with-a-transform"],
)
def test_sink_records_carry_each_messages_coordinates_timestamp_and_headers(
    tmp_path: Path, kafka: str, columns: bool, transforms: bool, via: str
) -> None:
    """What a sink task is handed, field by field, for messages of two topics: one whose
    timestamps the producer set (CreateTime), one whose broker stamps them
    (LogAppendTime); keys or none, headers or none, header values read by the default
    SimpleHeaderConverter (a plain word, a number, a boolean, a list, an empty value).
    The same whether the task takes records (``put``) or columns (``put_batch``, which
    the worker calls only for a connector without transforms)."""
    suffix = uuid.uuid4().hex[:8]
    created, appended = f"created-{suffix}", f"appended-{suffix}"
    admin = AdminClient({"bootstrap.servers": kafka})
    topics = [
        NewTopic(created, 1, 1),
        NewTopic(appended, 1, 1, config={"message.timestamp.type": "LogAppendTime"}),
    ]
    for future in admin.create_topics(topics).values():
        future.result()
    producer = Producer({"bootstrap.servers": kafka, "linger.ms": 5})
    headers = [("word", b"bench"), ("n", b"42"), ("b", b"true"), ("list", b"[1,2]"), ("e", b"")]
    before = int(time.time() * 1000)
    for i in range(6):
        for topic in (created, appended):
            producer.produce(
                topic,
                f"v{i}".encode(),
                key=f"k{i}".encode() if i % 2 else None,
                headers=headers if i % 3 == 0 else None,
                timestamp=1_700_000_000_000 + i,
            )
    assert producer.flush(30) == 0
    after = int(time.time() * 1000) + 60_000  # the broker's clock may run a little ahead
    out, name = tmp_path / "fields.jsonl", f"fields-{suffix}"
    sink = {
        "name": name,
        "connector.class": f"{__name__}:FieldsSink",
        "topics": f"{created},{appended}",
        "file": str(out),
        "columns": str(columns).lower(),
    } | (_IDENTITY if transforms else {})
    worker = _worker(kafka, tmp_path) | {"consumer.auto.offset.reset": "earliest"}
    with runtime_harness.standalone(worker, sink):
        runtime_harness.wait_for(
            lambda: runtime_harness.line_count(out) >= 12, 60, "12 records in the sink"
        )
    seen = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    read = [
        ["word", "STRING", "bench"],
        ["n", "INT8", 42],
        ["b", "BOOLEAN", True],
        ["list", "ARRAY", [1, 2]],
        ["e", "STRING", ""],
    ]
    for topic in (created, appended):
        records = [r for r in seen if r["topic"] == topic]
        assert [r["offset"] for r in records] == list(range(6))
        for i, r in enumerate(records):
            assert r["via"] == via
            assert r["partition"] == 0
            assert r["original"] == [topic, 0, i]
            assert r["value"] == f"v{i}"
            # StringConverter reads a missing key as null with its optional STRING schema.
            assert (r["key"], r["key_schema"]) == (f"k{i}" if i % 2 else None, "STRING")
            assert r["headers"] == (read if i % 3 == 0 else [])
            if topic == created:
                assert (r["timestamp_type"], r["timestamp"]) == (
                    "CREATE_TIME",
                    1_700_000_000_000 + i,
                )
            else:
                assert r["timestamp_type"] == "LOG_APPEND_TIME"
                assert before <= r["timestamp"] <= after


# Which of its poll methods each CountingFileSource task was called by, per topic.
_POLLED: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


class CountingFileSourceTask(FileStreamSourceTask):
    """FileStreamSource's task, counting the polls that returned lines."""

    def poll(self) -> list[SourceRecord] | None:
        records = super().poll()
        if records:
            _POLLED[self._topic]["poll"] += 1
        return records

    def poll_batch(self) -> SourceBatch | None:
        batch = super().poll_batch()
        if batch:
            _POLLED[self._topic]["poll_batch"] += 1
        return batch


class CountingFileSource(FileStreamSourceConnector):
    def task_class(self) -> type[FileStreamSourceTask]:
        return CountingFileSourceTask


@pytest.mark.parametrize("acks", ["by-reference", "counted-in-C", "counted-in-Python"])
@pytest.mark.parametrize(
    ("transforms", "via"),
    [(False, "poll_batch"), (True, "poll")],
    ids=["columns", "records-through-a-transform"],
)
def test_source_whose_producer_queue_fills_sends_every_line_once_in_order(
    tmp_path: Path,
    kafka: str,
    transforms: bool,
    via: str,
    acks: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A producer queue of 50 messages fills on every batch of the file source: each record
    the producer refuses for room is sent after the queue drains, and the rest of the
    batch after it, so the topic holds every line once, in the file's order. The same
    whether the worker polls the task for columns (a connector without transforms) or
    for records, and the committed offset is the file's end either way: whether a batch
    is acknowledged by reference (the producer reporting only failures) or its delivery
    reports are counted, by kconnect-speedups or in Python."""
    speedups = optional_speedups("kconnect_speedups._acks", reads_layout=False)
    assert speedups is not None, "kconnect-speedups is part of the workspace: uv sync"
    counted: list[int] = []  # the records of each batch a counter was made for

    def counter(remaining: int, on_error: Any) -> Any:
        counted.append(remaining)
        return speedups.AckCounter(remaining, on_error)

    acks_in_c = acks == "counted-in-C"
    monkeypatch.setattr(source_tasks, "_BY_REFERENCE", acks == "by-reference")
    monkeypatch.setattr(
        source_tasks, "_SPEEDUPS", SimpleNamespace(AckCounter=counter) if acks_in_c else None
    )
    topic = f"full-queue-{uuid.uuid4().hex[:8]}"
    source = tmp_path / "in.txt"
    lines = [f"line {i}" for i in range(4000)]
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    worker = _worker(kafka, tmp_path) | {
        "producer.queue.buffering.max.messages": "50",
        "offset.flush.interval.ms": "500",
    }
    name = f"{topic}-source"
    connector = runtime_harness.file_source(name, source, topic) | {
        "connector.class": f"{__name__}:CountingFileSource"
    }
    with runtime_harness.standalone(worker, connector | (_IDENTITY if transforms else {})) as app:
        got = _read_values(kafka, topic, len(lines))
        assert app.herder is not None
        assert app.herder.connector_status(name)["tasks"][0]["state"] == "RUNNING"
        runtime_harness.wait_for(
            lambda: _committed_positions(tmp_path / "offsets.json") == [source.stat().st_size],
            30,
            "the file's end as the committed offset",
        )
    assert got == lines
    assert set(_POLLED[topic]) == {via}
    assert sum(counted) == (len(lines) if acks_in_c else 0)


def _committed_positions(path: Path) -> list[int]:
    """The positions the worker's offset file holds (FileStreamSource's offsets)."""
    if not path.exists():
        return []
    doc = json.loads(path.read_text(encoding="utf-8") or '{"offsets": []}')
    return [entry["value"]["position"] for entry in doc["offsets"]]


def _read_values(kafka: str, topic: str, expected: int, timeout: float = 90) -> list[str]:
    from confluent_kafka import OFFSET_BEGINNING, Consumer
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"read-{topic}"})
    consumer.assign([KafkaTopicPartition(topic, 0, OFFSET_BEGINNING)])
    got: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < expected and time.monotonic() < deadline:
            got.extend(m.value().decode() for m in consumer.consume(1000, 0.2) if m.error() is None)
        time.sleep(1)  # anything sent twice would arrive now
        got.extend(m.value().decode() for m in consumer.consume(1000, 0.5) if m.error() is None)
    finally:
        consumer.close()
    return got


class CountingHeaderConverter(SimpleHeaderConverter):
    """SimpleHeaderConverter, counting the headers it writes (per topic)."""

    written: collections.Counter[str] = collections.Counter()

    def from_connect_header(self, topic: str, header_key: str, schema: Any, value: Any) -> Any:
        CountingHeaderConverter.written[topic] += 1
        return super().from_connect_header(topic, header_key, schema, value)


class UndeclaredHeaderConverter(CountingHeaderConverter):
    deterministic = False  # a plugin that says nothing about its calls


@pytest.mark.parametrize("converter", [CountingHeaderConverter, UndeclaredHeaderConverter])
def test_source_records_sharing_headers_carry_them_all(
    tmp_path: Path, kafka: str, converter: type
) -> None:
    """InsertHeader gives a batch's records one Headers: a header converter that declares
    itself deterministic writes them once per run of records, any other once per record,
    and every record carries them either way."""
    topic = f"shared-headers-{uuid.uuid4().hex[:8]}"
    source = tmp_path / "in.txt"
    lines = [f"line {i}" for i in range(500)]
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    name = f"{topic}-source"
    connector = runtime_harness.file_source(name, source, topic) | {
        "header.converter": f"{__name__}:{converter.__name__}",
        "transforms": "origin",
        "transforms.origin.type": "org.apache.kafka.connect.transforms.InsertHeader",
        "transforms.origin.header": "origin",
        "transforms.origin.value.literal": "bench",
    }
    with runtime_harness.standalone(_worker(kafka, tmp_path), connector):
        consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"read-{topic}"})
        consumer.assign([KafkaTopicPartition(topic, 0, 0)])
        got: list[Any] = []
        deadline = time.monotonic() + 90
        try:
            while len(got) < len(lines) and time.monotonic() < deadline:
                got.extend(m for m in consumer.consume(1000, 0.2) if m.error() is None)
        finally:
            consumer.close()
    assert [m.value().decode() for m in got] == lines
    assert {tuple(m.headers() or ()) for m in got} == {(("origin", b"bench"),)}
    written = CountingHeaderConverter.written[topic]
    if converter.deterministic:
        assert 1 <= written < len(lines) / 5  # once per poll of the file, not per line
    else:
        assert written == len(lines)
