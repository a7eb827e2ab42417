"""Avro keys and values through a real broker and kconnect's schema registry.

A source connector writes Connect structs through ``io.confluent.connect.avro.AvroConverter``
(configured by its Java name); confluent-kafka's own deserializer reads the topic; a file
sink reads it back through the converter. Schema evolution: a compatible version registers
and old records still decode; an incompatible one is refused under BACKWARD and handled by
``errors.*``; bytes that are not Avro go to the dead letter queue unchanged.
"""

from __future__ import annotations

import decimal
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect_runtime import Standalone

pytestmark = pytest.mark.integration

AVRO = "io.confluent.connect.avro.AvroConverter"
SESSION_TIMEOUT = "6000"


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def worker(tmp: Path, kafka: str, registry_url: str) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka,
        "key.converter": AVRO,
        "key.converter.schema.registry.url": registry_url,
        "value.converter": AVRO,
        "value.converter.schema.registry.url": registry_url,
        "offset.storage.file.filename": str(tmp / "offsets.json"),
        "offset.flush.interval.ms": "500",
        "consumer.session.timeout.ms": SESSION_TIMEOUT,
        "listeners": "",
    }


def source(name: str, topic: str, variant: str, first: int, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "_avro_source:OrderSource",
        "topic": topic,
        "variant": variant,
        "first": str(first),
        "count": "10",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **extra,
    }


@contextmanager
def standalone(props: Mapping[str, str], *connectors: Mapping[str, str]) -> Iterator[Standalone]:
    app = Standalone(props, connectors)
    app.start()
    try:
        yield app
    finally:
        app.stop()


def read_all(kafka: str, topic: str, expected: int, timeout: float = 30) -> list[Any]:
    """The first ``expected`` records of partition 0 (every test topic has one partition)."""
    consumer = Consumer(
        {"bootstrap.servers": kafka, "group.id": "avro-tests", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    try:
        wait_for(
            lambda: (
                bool(out.extend(m for m in consumer.consume(100, 0.2) if not m.error()))
                or len(out) >= expected
            ),
            timeout,
            f"{expected} records in {topic}",
        )
    finally:
        consumer.close()
    return sorted(out, key=lambda m: m.offset())


def line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_avro_keys_and_values_through_a_broker_with_schema_evolution(
    tmp_path: Path, kc_kafka: str, kc_schema_registry: Any
) -> None:
    url = kc_schema_registry.url
    topic = f"orders-{uuid.uuid4().hex[:8]}"
    props = worker(tmp_path, kc_kafka, url)
    with standalone(props, source(f"v1-{topic}", topic, "v1", 0)):
        read_all(kc_kafka, topic, 10)
    with standalone(props, source(f"v2-{topic}", topic, "v2", 10)):
        messages = read_all(kc_kafka, topic, 20)

    with SchemaRegistryClient({"url": url}) as client:
        # The compatible change (an optional field) registered a second version.
        assert client.get_versions(f"{topic}-value") == [1, 2]
        assert client.get_versions(f"{topic}-key") == [1]
        deserializer = AvroDeserializer(client)
        values = [
            deserializer(m.value(), SerializationContext(topic, MessageField.VALUE))
            for m in messages
        ]
        keys = [
            deserializer(m.key(), SerializationContext(topic, MessageField.KEY)) for m in messages
        ]
    assert keys == list(range(20))
    assert values[3] == {"id": 3, "name": "order-3", "amount": decimal.Decimal("0.03")}
    assert values[15] == {
        "id": 15,
        "name": "order-15",
        "amount": decimal.Decimal("0.15"),
        "note": "note 15",
    }
    assert {m.value()[1:5] for m in messages[:10]} != {m.value()[1:5] for m in messages[10:]}

    # A sink reading through the converter decodes old and new records alike.
    out = tmp_path / "out.txt"
    sink = {
        "name": f"sink-{topic}",
        "connector.class": "FileStreamSink",
        "file": str(out),
        "topics": topic,
    }
    with standalone(props, sink):
        wait_for(lambda: line_count(out) >= 20, 30, "every record in the file")
    lines = out.read_text().splitlines()
    assert len(lines) == 20
    assert "order-3" in lines[3] and "note" not in lines[3]
    assert "note 15" in lines[15]


def test_incompatible_schema_is_refused_and_errors_tolerance_applies(
    tmp_path: Path, kc_kafka: str, kc_schema_registry: Any
) -> None:
    url = kc_schema_registry.url
    topic = f"evolve-{uuid.uuid4().hex[:8]}"
    props = worker(tmp_path, kc_kafka, url)
    with standalone(props, source(f"v1-{topic}", topic, "v1", 0)):
        read_all(kc_kafka, topic, 10)

    name = f"bad-{topic}"
    with standalone(props, source(name, topic, "incompatible", 10)) as app:
        status = app.herder.connector_status  # type: ignore[union-attr]
        wait_for(lambda: status(name)["tasks"][0]["state"] == "FAILED", 30, "the task to fail")
        trace = status(name)["tasks"][0]["trace"]
    assert "incompatible" in trace
    assert f"{topic}-value" in trace

    tolerant = source(f"tolerant-{topic}", topic, "incompatible", 20, **{"errors.tolerance": "all"})
    with standalone(props, tolerant, source(f"after-{topic}", topic, "v2", 30)) as app:
        # The refused records are skipped; the worker keeps going and a good connector
        # after it still writes.
        messages = read_all(kc_kafka, topic, 20)
        status = app.herder.connector_status  # type: ignore[union-attr]
        assert status(f"tolerant-{topic}")["tasks"][0]["state"] == "RUNNING"
    with SchemaRegistryClient({"url": url}) as client:
        assert client.get_versions(f"{topic}-value") == [1, 2]
    assert len(messages) == 20
    # Nothing of the refused records reached the topic: 10 v1 and 10 v2 records only.
    with pytest.raises(AssertionError, match="21 records"):
        read_all(kc_kafka, topic, 21, timeout=3)
    assert all(b"@example.com" not in m.value() for m in messages)


def test_bytes_that_are_not_avro_go_to_the_dead_letter_queue_unchanged(
    tmp_path: Path, kc_kafka: str, kc_schema_registry: Any
) -> None:
    topic = f"notavro-{uuid.uuid4().hex[:8]}"
    dlq = f"{topic}-dlq"
    producer = Producer({"bootstrap.servers": kc_kafka})
    producer.produce(topic, key=None, value=b'{"plain": "json"}', partition=0)
    assert producer.flush(10) == 0
    out = tmp_path / "out.txt"
    sink = {
        "name": f"sink-{topic}",
        "connector.class": "FileStreamSink",
        "file": str(out),
        "topics": topic,
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
    }
    with standalone(worker(tmp_path, kc_kafka, kc_schema_registry.url), sink):
        dead = read_all(kc_kafka, dlq, 1)
    assert dead[0].value() == b'{"plain": "json"}'
    headers = dict(dead[0].headers())
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.topic"] == topic.encode()
    assert headers["__connect.errors.offset"] == b"0"
    assert b"Unknown magic byte" in headers["__connect.errors.exception.message"]


def test_same_schema_under_two_topics_reads_each_topics_version(kc_schema_registry: Any) -> None:
    """Confluent's testSameSchemaMultipleTopicForValue, against a real registry (the
    in-process mock gives a new id per registration, so it cannot show this)."""
    from confluent_kafka.schema_registry import Schema as RegistrySchema
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from kconnect_converter_avro import AvroConverter

    prefix = uuid.uuid4().hex[:6]
    foo1 = '{"type":"record","name":"Foo","fields":[{"name":"key","type":"int"}]}'
    foo2 = (
        '{"type":"record","name":"Foo","fields":[{"name":"key","type":"int"},'
        '{"name":"value","type":"string"}]}'
    )
    with SchemaRegistryClient({"url": kc_schema_registry.url}) as client:
        client.register_schema(f"{prefix}1-value", RegistrySchema(foo2, "AVRO"))
        # Confluent's test uses a mock that checks no compatibility; the added required field
        # is not BACKWARD compatible.
        client.set_compatibility(f"{prefix}2-value", "NONE")
        client.register_schema(f"{prefix}2-value", RegistrySchema(foo1, "AVRO"))
        client.register_schema(f"{prefix}2-value", RegistrySchema(foo2, "AVRO"))
        serializer = AvroSerializer(client, foo2)
        one = serializer(
            {"key": 15, "value": "bar"}, SerializationContext(f"{prefix}1", MessageField.VALUE)
        )
        two = serializer(
            {"key": 15, "value": "bar"}, SerializationContext(f"{prefix}2", MessageField.VALUE)
        )
    assert one == two  # one schema, one id
    conv = AvroConverter()
    conv.configure({"schema.registry.url": kc_schema_registry.url}, False)
    try:
        assert conv.to_connect_data(f"{prefix}1", one).schema.version == 1  # type: ignore[union-attr]
        assert conv.to_connect_data(f"{prefix}2", two).schema.version == 2  # type: ignore[union-attr]
        batch = conv.to_connect_batch([(f"{prefix}1", one), (f"{prefix}2", two)])
        assert [sv.schema.version for sv in batch] == [1, 2]  # type: ignore[union-attr]
    finally:
        conv.close()
