"""kconnect's schema registry against confluent-kafka's own client, serializer and deserializer.

The server runs on the session's embedded broker; each test uses its own ``_schemas`` topic
so a restart (a second server on the same topic) shows what was kept.
"""

from __future__ import annotations

import importlib
import json
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

with warnings.catch_warnings():
    # authlib, imported by the registry client, warns that httpx is deprecated and installs
    # an "always" filter for that on import; silence exactly that, here only.
    importlib.import_module("authlib.deprecate")
    warnings.filterwarnings(
        "ignore", message="The httpx module is deprecated; please use httpx2 instead"
    )
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect_runtime.schema_registry import SchemaRegistryServer

pytestmark = pytest.mark.integration

USER_V1 = {
    "type": "record",
    "name": "User",
    "namespace": "com.example",
    "fields": [{"name": "name", "type": "string"}],
}
USER_V2 = {  # adds an optional field: backward compatible
    **USER_V1,
    "fields": [*USER_V1["fields"], {"name": "age", "type": ["null", "int"], "default": None}],
}
USER_REQUIRED_FIELD = {  # adds a field without a default: not backward compatible
    **USER_V1,
    "fields": [*USER_V1["fields"], {"name": "email", "type": "string"}],
}


def _avro(schema: Any) -> Schema:
    return Schema(json.dumps(schema), "AVRO")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def topic() -> str:
    return f"_schemas_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def server(kc_kafka: str, topic: str) -> Iterator[SchemaRegistryServer]:
    srv = SchemaRegistryServer(
        {
            "listeners": "http://127.0.0.1:0",
            "kafkastore.bootstrap.servers": kc_kafka,
            "kafkastore.topic": topic,
        }
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def client(server: SchemaRegistryServer) -> Iterator[SchemaRegistryClient]:
    with SchemaRegistryClient({"url": server.url}) as registry_client:
        yield registry_client


def test_register_lookup_versions_and_ids(
    client: SchemaRegistryClient, server: SchemaRegistryServer
) -> None:
    first = client.register_schema("users-value", _avro(USER_V1))
    assert client.register_schema("users-value", _avro(USER_V1)) == first  # idempotent
    second = client.register_schema("users-value", _avro(USER_V2))
    assert second == first + 1
    # The same schema under another subject keeps its id.
    assert client.register_schema("other-value", _avro(USER_V1)) == first

    assert client.get_subjects() == ["other-value", "users-value"]
    assert client.get_versions("users-value") == [1, 2]
    latest = client.get_latest_version("users-value")
    assert (latest.version, latest.schema_id) == (2, second)
    assert json.loads(client.get_schema(first).schema_str) == USER_V1
    found = client.lookup_schema("users-value", _avro(USER_V1))
    assert (found.version, found.schema_id) == (1, first)
    with pytest.raises(SchemaRegistryError) as missing:
        client.get_schema(9999)
    assert missing.value.error_code == 40403


def test_incompatible_schema_refused_under_backward(
    client: SchemaRegistryClient, server: SchemaRegistryServer
) -> None:
    client.register_schema("s-value", _avro(USER_V1))
    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema("s-value", _avro(USER_REQUIRED_FIELD))
    assert refused.value.http_status_code == 409
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" in refused.value.error_message
    assert "email" in refused.value.error_message
    assert client.test_compatibility("s-value", _avro(USER_V2)) is True
    assert client.test_compatibility("s-value", _avro(USER_REQUIRED_FIELD)) is False


@pytest.mark.parametrize(
    ("level", "new", "ok"),
    [
        ("NONE", USER_REQUIRED_FIELD, True),
        ("BACKWARD", USER_V2, True),
        ("FORWARD", USER_REQUIRED_FIELD, True),  # old readers ignore the new field
        ("FORWARD", {**USER_V1, "fields": []}, False),  # old readers need "name"
        ("FULL", USER_V2, True),
        ("FULL", USER_REQUIRED_FIELD, False),
        ("BACKWARD", {**USER_V1, "fields": [{"name": "name", "type": "int"}]}, False),
        ("BACKWARD", {**USER_V1, "name": "Person"}, False),
    ],
)
def test_compatibility_levels(
    client: SchemaRegistryClient, server: SchemaRegistryServer, level: str, new: Any, ok: bool
) -> None:
    subject = f"lvl-{uuid.uuid4().hex[:6]}"
    client.register_schema(subject, _avro(USER_V1))
    client.set_compatibility(subject, level)
    assert client.get_compatibility(subject) == level
    assert client.test_compatibility(subject, _avro(new)) is ok


def test_transitive_checks_every_version(
    client: SchemaRegistryClient, server: SchemaRegistryServer
) -> None:
    v1 = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    v2 = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int", "default": 0}]}
    v3 = {"type": "record", "name": "R", "fields": []}  # old v1 readers need "a" without default
    client.set_compatibility("t", "FORWARD")
    client.register_schema("t", _avro(v1))
    client.register_schema("t", _avro(v2))
    assert client.test_compatibility("t", _avro(v3)) is True  # only v2 is checked
    client.set_compatibility("t", "FORWARD_TRANSITIVE")
    with pytest.raises(SchemaRegistryError) as refused:
        client.register_schema("t", _avro(v3))
    assert refused.value.http_status_code == 409


def test_soft_and_hard_delete(client: SchemaRegistryClient, server: SchemaRegistryServer) -> None:
    client.register_schema("d", _avro(USER_V1))
    client.register_schema("d", _avro(USER_V2))
    assert client.delete_version("d", 1) == 1
    assert client.get_versions("d") == [2]
    with pytest.raises(SchemaRegistryError) as not_soft:
        client.delete_subject("d", permanent=True)
    assert not_soft.value.error_code == 40405
    assert client.delete_subject("d") == [2]
    assert client.get_subjects() == []
    assert client.get_subjects(deleted=True) == ["d"]
    assert client.delete_subject("d", permanent=True) == [1, 2]
    assert client.get_subjects(deleted=True) == []


def test_global_config(client: SchemaRegistryClient, server: SchemaRegistryServer) -> None:
    assert client.get_compatibility() == "BACKWARD"
    client.set_compatibility(level="FULL")
    assert client.get_compatibility() == "FULL"
    with pytest.raises(SchemaRegistryError) as bad:
        client.set_compatibility(level="SIDEWAYS")
    assert bad.value.error_code == 42203


def test_confluent_serializer_and_deserializer_work_unchanged(
    client: SchemaRegistryClient,
    server: SchemaRegistryServer,
) -> None:
    serializer = AvroSerializer(client, json.dumps(USER_V2))
    ctx = SerializationContext("people", MessageField.VALUE)
    data = serializer({"name": "Ada", "age": 36}, ctx)
    assert data is not None and data[0] == 0
    schema_id = int.from_bytes(data[1:5], "big")
    assert client.get_latest_version("people-value").schema_id == schema_id
    # A fresh client (no cache) reads it back through the REST API.
    with SchemaRegistryClient({"url": server.url}) as fresh:
        assert AvroDeserializer(fresh)(data, ctx) == {"name": "Ada", "age": 36}


def test_restart_keeps_subjects_versions_and_ids(
    client: SchemaRegistryClient, server: SchemaRegistryServer, kc_kafka: str, topic: str
) -> None:
    a = client.register_schema("a-value", _avro(USER_V1))
    b = client.register_schema("a-value", _avro(USER_V2))
    c = client.register_schema("b-key", _avro("string"))
    client.delete_version("a-value", 1)
    client.set_compatibility("b-key", "NONE")
    server.stop()

    again = SchemaRegistryServer(
        {
            "listeners": "http://127.0.0.1:0",
            "kafkastore.bootstrap.servers": kc_kafka,
            "kafkastore.topic": topic,
        }
    )
    again.start()
    try:
        with SchemaRegistryClient({"url": again.url}) as fresh:
            assert fresh.get_subjects() == ["a-value", "b-key"]
            assert fresh.get_versions("a-value") == [2]
            assert fresh.get_versions("b-key") == [1]
            assert fresh.get_schema(a) and fresh.get_schema(b) and fresh.get_schema(c)
            assert fresh.get_latest_version("a-value").schema_id == b
            assert fresh.get_compatibility("b-key") == "NONE"
            # New ids continue after the highest one.
            other = {"type": "record", "name": "Other", "fields": []}
            assert fresh.register_schema("c-value", _avro(other)) == max(a, b, c) + 1
    finally:
        again.stop()


def test_schemas_topic_uses_confluent_record_format(
    client: SchemaRegistryClient, server: SchemaRegistryServer, kc_kafka: str, topic: str
) -> None:
    schema_id = client.register_schema("fmt-value", _avro(USER_V1))
    client.set_compatibility("fmt-value", "FULL")
    client.delete_subject("fmt-value")
    consumer = Consumer(
        {"bootstrap.servers": kc_kafka, "group.id": "fmt-check", "enable.auto.commit": False}
    )
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        records: list[tuple[Any, Any]] = []
        deadline = time.monotonic() + 15
        while len(records) < 3 and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            value = msg.value()
            records.append((json.loads(msg.key()), None if value is None else json.loads(value)))
    finally:
        consumer.close()
    assert records[0][0] == {"keytype": "SCHEMA", "subject": "fmt-value", "version": 1, "magic": 1}
    assert records[0][1]["id"] == schema_id
    assert records[0][1]["deleted"] is False
    assert json.loads(records[0][1]["schema"]) == USER_V1
    assert records[1] == (
        {"keytype": "CONFIG", "subject": "fmt-value", "magic": 0},
        {"compatibilityLevel": "FULL"},
    )
    assert records[2] == (
        {"keytype": "DELETE_SUBJECT", "subject": "fmt-value", "magic": 0},
        {"subject": "fmt-value", "version": 1},
    )


def test_module_entry_point_serves_from_a_properties_file(
    kc_kafka: str, topic: str, tmp_path: Path
) -> None:
    port = _free_port()
    props = tmp_path / "schema-registry.properties"
    props.write_text(
        f"listeners=http://127.0.0.1:{port}\n"
        f"kafkastore.bootstrap.servers=PLAINTEXT://{kc_kafka}\n"
        f"kafkastore.topic={topic}\n"
        "schema.compatibility.level=full\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.schema_registry", str(props)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        body = None
        while time.monotonic() < deadline and body is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=2) as r:
                    body = json.loads(r.read())
            except OSError:
                time.sleep(0.2)
    finally:
        proc.terminate()
        output, _ = proc.communicate(timeout=10)
    assert body == {"compatibilityLevel": "FULL"}, output.decode(errors="replace")


def test_listing_endpoints_used_by_tools(
    client: SchemaRegistryClient, server: SchemaRegistryServer
) -> None:
    client.register_schema("l-value", _avro(USER_V1))
    client.register_schema("l-value", _avro(USER_V2))
    with urllib.request.urlopen(f"{server.url}/schemas?latestOnly=true", timeout=5) as r:
        listed = json.loads(r.read())
    assert [(e["subject"], e["version"]) for e in listed] == [("l-value", 2)]
    with urllib.request.urlopen(f"{server.url}/subjects/l-value/versions/1/referencedby") as r:
        assert json.loads(r.read()) == []
    with urllib.request.urlopen(f"{server.url}/schemas/ids/1/versions") as r:
        assert json.loads(r.read()) == [{"subject": "l-value", "version": 1}]


def test_worker_on_the_embedded_broker_gives_avro_converters_its_own_registry(
    tmp_path: Path,
) -> None:
    """No bootstrap.servers and no schema.registry.url: Avro still works end to end."""
    from kconnect_runtime import Standalone
    from runtime_harness import file_sink, file_source, line_count, wait_for, worker_props

    lines = [f"line {i}" for i in range(50)]
    (tmp_path / "in.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    worker = worker_props(tmp_path, "")
    del worker["bootstrap.servers"]
    avro = {"value.converter": "io.confluent.connect.avro.AvroConverter"}
    app = Standalone(
        worker,
        [
            file_source("avro-src", tmp_path / "in.txt", "avro-lines", **avro),
            file_sink("avro-sink", tmp_path / "out.txt", "avro-lines", **avro),
        ],
    )
    app.start()
    try:
        assert app.schema_registry is not None
        wait_for(lambda: line_count(tmp_path / "out.txt") == len(lines), 60, "every line")
        assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == lines
        # The values went through the embedded registry: the topic's value subject exists.
        base = app.schema_registry.url
        with urllib.request.urlopen(f"{base}/subjects") as response:
            assert "avro-lines-value" in json.load(response)
        with urllib.request.urlopen(f"{base}/subjects/avro-lines-value/versions/latest") as r:
            assert json.loads(json.load(r)["schema"]) == "string"
    finally:
        app.stop()
    assert app.schema_registry is None
