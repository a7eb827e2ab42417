"""A source batch acknowledged by reference: the producer reports only failures, and the
batch is acknowledged once confluent-kafka has served the report of each of its records
(and so let go of its on_delivery), not before; a refusal still reaches the batch."""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.tasks._source import _InFlightBatch
from runtime_harness import file_source, standalone, wait_for, worker_props

pytestmark = pytest.mark.integration


def _topic(kafka: str, **config: str) -> str:
    name = f"acks-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(name, 1, 1, config=config)]).values():
        future.result(30)
    return name


def _producer(kafka: str) -> Producer:
    return Producer(
        {"bootstrap.servers": kafka, "delivery.report.only.error": True, "linger.ms": 50}
    )


def test_a_batch_is_acknowledged_once_every_report_is_served(kafka: str) -> None:
    topic = _topic(kafka)
    producer = _producer(kafka)
    batches = [_InFlightBatch(100, {}, 100, None, by_reference=True) for _ in range(2)]
    for batch in batches:
        ack = batch.on_delivery(tolerant=False)
        for i in range(100):
            producer.produce(topic, f"v{i}".encode(), on_delivery=ack)
        del ack
    # Nothing served yet: both wait, whatever the brokers did meanwhile.
    assert all(b.remaining > 0 for b in batches)
    assert producer.flush(30) == 0
    assert [b.remaining for b in batches] == [0, 0]
    assert all(b.error is None and b.count == 100 for b in batches)


def test_a_refused_record_reaches_its_batch(kafka: str) -> None:
    topic = _topic(kafka, **{"max.message.bytes": "1024"})
    producer = _producer(kafka)
    strict = _InFlightBatch(2, {}, 2, None, by_reference=True)
    tolerant = _InFlightBatch(2, {}, 2, None, by_reference=True)
    for batch, on_delivery in (
        (strict, strict.on_delivery(tolerant=False)),
        (tolerant, tolerant.on_delivery(tolerant=True)),
    ):
        # One at a time: the brokers refuse a whole record batch over the topic's limit.
        producer.produce(topic, b"small", on_delivery=on_delivery)
        assert producer.flush(30) == 0 and batch.remaining > 0
        producer.produce(topic, b"x" * 4096, on_delivery=on_delivery)
        assert producer.flush(30) == 0
    del on_delivery
    assert strict.remaining == 0 and strict.error is not None
    assert strict.error.name() == "MSG_SIZE_TOO_LARGE"
    # errors.tolerance=all: the refused record is skipped, the batch done without error.
    assert tolerant.remaining == 0 and tolerant.error is None
    assert tolerant.count == 1 and [e.name() for e, _ in tolerant.refused] == ["MSG_SIZE_TOO_LARGE"]


def test_the_worker_decides_whether_the_producer_reports_only_failures(
    kafka: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A user setting would either stall the counting of acknowledgements or send a report
    # per record for nothing: it is overridden, with a warning naming it.
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(500)), encoding="utf-8")
    worker = worker_props(tmp_path, kafka, **{"producer.delivery.report.only.error": "false"})
    topic = f"acks-{uuid.uuid4().hex[:8]}"
    offsets = tmp_path / "offsets.json"
    with caplog.at_level(logging.WARNING), standalone(worker, file_source("src", source, topic)):
        wait_for(
            lambda: _positions(offsets) == [source.stat().st_size], 60, "the file's end committed"
        )
    assert "producer setting delivery.report.only.error=false is ignored" in caplog.text


def _positions(path: Path) -> list[int]:
    doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"offsets": []}
    return [entry["value"]["position"] for entry in doc["offsets"]]
