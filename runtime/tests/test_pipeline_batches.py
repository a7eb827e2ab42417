"""The batch paths of the task pipelines (issue 23) on a real broker: whatever a consumed
batch holds (error events, keys, headers), every record arrives, in order, and the task
stays RUNNING."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime import Standalone

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
