"""A sink batch's message fields as the consumer hands them over: read in one pass by
kconnect-speedups when it reads this confluent-kafka's messages, through the accessors
otherwise, with the same result either way (headers still undecoded in librdkafka's form,
keyless records, tombstones, two partitions, and the error a batch may carry)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.tasks import _sink
from runtime_harness import file_sink, line_count, standalone, wait_for, worker_props

pytestmark = pytest.mark.integration


def test_consumed_messages_read_in_one_pass_as_through_the_accessors(kafka: str) -> None:
    # The locked confluent-kafka's Message has the layout the compiled reader mirrors: a
    # change there would silently cost every sink task its fast path.
    assert _sink._COLUMNS is not None
    topic = f"columns-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": kafka})
    sent = 0
    for i in range(300):
        producer.produce(
            topic,
            key=None if i % 3 == 0 else f"k{i}".encode(),
            value=None if i % 7 == 0 else f"v{i}".encode(),
            headers=[("n", str(i).encode()), ("empty", None)] if i % 2 else None,
            partition=i % 2,
        )
        sent += 1
    assert producer.flush(30) == 0
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": topic,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
        }
    )
    consumer.subscribe([topic])
    seen: list[Any] = []
    eof = None
    try:
        while len(seen) < sent or eof is None:
            batch = consumer.consume(100, 5)
            assert batch, f"consumed {len(seen)} of {sent} records"
            columns = _sink._COLUMNS(batch)
            if any(m.error() for m in batch):
                # A batch with an error (here a partition's end) is left to the accessors.
                assert columns is None
                eof = batch
                batch = [m for m in batch if m.error() is None]
                if not batch:
                    continue
                columns = _sink._COLUMNS(batch)
            assert columns == _sink._read_columns(batch)
            seen.extend(zip(*columns, strict=True))
    finally:
        consumer.close()
    by_value = {value: (key, headers) for _, _, _, key, value, headers in seen if value}
    assert by_value[b"v1"] == (b"k1", [("n", b"1"), ("empty", None)])
    assert by_value[b"v2"] == (b"k2", None)
    assert sum(value is None for *_, value, _ in seen) == len(range(0, 300, 7))
    assert {partition for _, partition, *_ in seen} == {0, 1}


@pytest.mark.parametrize("compiled", [True, False], ids=["read-in-one-pass", "via-accessors"])
def test_a_sink_task_writes_every_record_and_commits_past_the_last(
    kafka: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    if not compiled:
        monkeypatch.setattr(_sink, "_COLUMNS", None)
    assert (_sink._COLUMNS is not None) is compiled
    topic = f"columns-sink-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": kafka})
    lines = [f"line {i}" for i in range(2000)]
    for i, line in enumerate(lines):
        producer.produce(topic, value=line.encode(), headers=[("n", str(i).encode())])
    assert producer.flush(30) == 0
    out = tmp_path / "out.txt"
    name = f"{topic}-sink"
    with standalone(worker_props(tmp_path, kafka), file_sink(name, out, topic)):
        wait_for(lambda: line_count(out) >= len(lines), 60, "every line in the sink's file")
        group = Consumer({"bootstrap.servers": kafka, "group.id": f"connect-{name}"})
        try:

            def committed() -> int:
                (tp,) = group.committed([KafkaTopicPartition(topic, 0)], timeout=10)
                return int(tp.offset)

            # Kafka Connect commits the offset after the last record written.
            wait_for(lambda: committed() == len(lines), 60, "the offset after the last line")
        finally:
            group.close()
    assert out.read_text(encoding="utf-8").splitlines() == lines
