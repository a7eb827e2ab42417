"""Confluent's ``AvroConverterTest`` (schema-registry avro-converter), one test per method.

Upstream runs against ``MockSchemaRegistryClient``; these run against a real registry
(kconnect's, from the testkit's ``kc_schema_registry``), each test on its own topics.
Expected values are those of the Java test.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from typing import Any

import fastavro
import pytest
from confluent_kafka.schema_registry import (
    ConfigCompatibilityLevel,
    Metadata,
    MetadataProperties,
    SchemaRegistryClient,
    ServerConfig,
)
from confluent_kafka.schema_registry import Schema as RegistrySchema
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect_converter_avro import (
    AvroConverter,
    drop_mock_schema_registry,
    mock_schema_registry_client,
)
from kconnect_sdk import ConfigError, DataError, Headers, Schema, SchemaBuilder, Struct, Type

pytestmark = pytest.mark.integration

FOO_V1 = {"type": "record", "name": "Foo", "fields": [{"name": "key", "type": "int"}]}
FOO_V2 = {
    "type": "record",
    "name": "Foo",
    "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}],
}
RECORD_NAME_STRATEGY = "io.confluent.kafka.serializers.subject.RecordNameStrategy"


@pytest.fixture
def url(kc_schema_registry: Any) -> str:
    return str(kc_schema_registry.url)


@pytest.fixture
def topic() -> str:
    return f"topic-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def registry(url: str) -> Iterator[SchemaRegistryClient]:
    client = SchemaRegistryClient({"url": url})
    yield client
    client.close()


_OPEN: list[AvroConverter] = []


@pytest.fixture(autouse=True)
def _close_converters() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def _converter(url: str, is_key: bool = False, **extra: Any) -> AvroConverter:
    conv = AvroConverter()
    conv.configure({"schema.registry.url": url, **extra}, is_key)
    _OPEN.append(conv)
    return conv


def _avro(schema: dict[str, Any]) -> RegistrySchema:
    return RegistrySchema(json.dumps(schema), "AVRO")


def _no_compatibility(registry: SchemaRegistryClient, *subjects: str) -> None:
    # Java's MockSchemaRegistryClient checks no compatibility, and upstream registers Foo
    # v2 (a new required field) after v1; a real registry needs the check switched off.
    for subject in subjects:
        registry.set_config(subject, ServerConfig(compatibility=ConfigCompatibilityLevel.NONE))


def _frame(schema_id: int, schema: dict[str, Any], value: Any) -> bytes:
    """Confluent's wire format by hand: magic byte, big-endian id, Avro body."""
    out = io.BytesIO()
    out.write(b"\x00" + schema_id.to_bytes(4, "big"))
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), value)
    return out.getvalue()


def _serialize(
    client: SchemaRegistryClient, topic: str, schema: dict[str, Any], value: Any, **conf: Any
) -> bytes:
    serializer = AvroSerializer(client, json.dumps(schema), conf=conf or None)
    data = serializer(value, SerializationContext(topic, MessageField.VALUE))
    assert data is not None
    return bytes(data)


def test_configure(url: str) -> None:
    conv = _converter(url, is_key=True)
    assert conv.is_key is True
    assert conv.client is not None


def test_configure_alt(url: str) -> None:
    conv = _converter(url, is_key=False)
    assert conv.is_key is False
    assert conv.client is not None


def test_primitive(url: str, topic: str) -> None:
    conv = _converter(url)
    back = conv.to_connect_data(topic, conv.from_connect_data(topic, Schema.BOOLEAN, True))
    # The registry lookup adds the subject version, as in Java.
    assert back.schema == SchemaBuilder.boolean().version(1).build()
    assert back.value is True


def test_complex(url: str, topic: str) -> None:
    builder = (
        SchemaBuilder.struct()
        .field("int8", SchemaBuilder.int8().default_value(2).doc("int8 field").build())
        .field("int16", Schema.INT16)
        .field("int32", Schema.INT32)
        .field("int64", Schema.INT64)
        .field("float32", Schema.FLOAT32)
        .field("float64", Schema.FLOAT64)
        .field("boolean", Schema.BOOLEAN)
        .field("string", Schema.STRING)
        .field("bytes", Schema.BYTES)
        .field("array", SchemaBuilder.array(Schema.STRING).build())
        .field("map", SchemaBuilder.map(Schema.STRING, Schema.INT32).build())
        .field("mapNonStringKeys", SchemaBuilder.map(Schema.INT32, Schema.INT32).build())
    )
    schema = builder.build()
    values = {
        "int8": 12,
        "int16": 12,
        "int32": 12,
        "int64": 12,
        "float32": 12.25,  # 12.2f in Java; a float32 round trip keeps 12.25 exactly
        "float64": 12.2,
        "boolean": True,
        "string": "foo",
        "bytes": b"foo",
        "array": ["a", "b", "c"],
        "map": {"field": 1},
        "mapNonStringKeys": {1: 1},
    }
    original = Struct(schema)
    expected = Struct(builder.version(1).build())
    for name, value in values.items():
        original.put(name, value)
        expected.put(name, value)
    conv = _converter(url)
    back = conv.to_connect_data(topic, conv.from_connect_data(topic, schema, original))
    assert back.value == expected


def test_type_bytes(url: str, topic: str) -> None:
    conv = _converter(url)
    back = conv.to_connect_data(topic, conv.from_connect_data(topic, Schema.BYTES, b"jellomellow"))
    assert back.schema is not None and back.schema.type is Type.BYTES
    assert back.value == b"jellomellow"


def test_null(url: str, topic: str, registry: SchemaRegistryClient) -> None:
    conv = _converter(url)
    assert conv.from_connect_data(topic, Schema.OPTIONAL_BOOLEAN, None) is None
    assert conv.to_connect_data(topic, None) == (None, None)
    assert f"{topic}-value" not in registry.get_subjects()  # nothing registered


def _version_extracted(
    registry: SchemaRegistryClient, conv: AvroConverter, topic: str, subject: str, **conf: Any
) -> None:
    _no_compatibility(registry, subject)
    registry.register_schema(subject, _avro(FOO_V1))
    registry.register_schema(subject, _avro(FOO_V2))
    first = _serialize(registry, topic, FOO_V1, {"key": 15}, **conf)
    second = _serialize(registry, topic, FOO_V2, {"key": 15, "value": "bar"}, **conf)
    one = conv.to_connect_data(topic, first).schema
    two = conv.to_connect_data(topic, second).schema
    assert one is not None and one.version == 1
    assert two is not None and two.version == 2


def test_version_extracted_for_default_subject_name_strategy(
    url: str, topic: str, registry: SchemaRegistryClient
) -> None:
    _version_extracted(registry, _converter(url), topic, f"{topic}-value")


def test_version_extracted_for_record_subject_name_strategy(
    url: str, topic: str, registry: SchemaRegistryClient
) -> None:
    # Upstream registers under "Foo"; a per-test record name keeps the shared registry clean.
    name = f"Foo{uuid.uuid4().hex[:8]}"
    v1 = dict(FOO_V1, name=name)
    v2 = dict(FOO_V2, name=name)
    conv = _converter(url, **{"value.subject.name.strategy": RECORD_NAME_STRATEGY})
    _no_compatibility(registry, name)
    registry.register_schema(name, _avro(v1))
    registry.register_schema(name, _avro(v2))

    def strategy(ctx: Any, record_name: str | None) -> str | None:
        return record_name

    conf = {"subject.name.strategy": strategy}
    one = conv.to_connect_data(topic, _serialize(registry, topic, v1, {"key": 15}, **conf))
    two = conv.to_connect_data(
        topic, _serialize(registry, topic, v2, {"key": 15, "value": "bar"}, **conf)
    )
    assert one.schema is not None and one.schema.version == 1
    assert two.schema is not None and two.schema.version == 2


def test_version_extracted_from_metadata() -> None:
    # Runs on the in-process registry: kconnect's registry does not keep schema metadata
    # (Confluent's data contracts), so only the mock can carry "confluent:version".
    scope = f"meta-{uuid.uuid4().hex}"
    client = mock_schema_registry_client(scope)
    try:
        ids = [
            client.register_schema(
                "topic-value",
                RegistrySchema(
                    json.dumps(schema),
                    "AVRO",
                    metadata=Metadata(
                        None, MetadataProperties({"confluent:version": version}), None
                    ),
                ),
            )
            for schema, version in ((FOO_V1, "2"), (FOO_V2, "200"))
        ]
        conv = _converter(f"mock://{scope}")
        first = _frame(ids[0], FOO_V1, {"key": 15})
        second = _frame(ids[1], FOO_V2, {"key": 15, "value": "bar"})
        one = conv.to_connect_data("topic", first).schema
        two = conv.to_connect_data("topic", second).schema
        assert one is not None and one.version == 2
        assert two is not None and two.version == 200
    finally:
        drop_mock_schema_registry(scope)


def test_version_maintained(url: str, topic: str) -> None:
    conv = _converter(url)
    newer = (
        SchemaBuilder.struct()
        .version(2)
        .field("orig", Schema.OPTIONAL_INT16)
        .field("new", Schema.OPTIONAL_INT16)
        .build()
    )
    newer_bytes = conv.from_connect_data(topic, newer, Struct(newer))
    older = SchemaBuilder.struct().version(1).field("orig", Schema.OPTIONAL_INT16).build()
    older_bytes = conv.from_connect_data(topic, older, Struct(older))
    newer_back = conv.to_connect_data(topic, newer_bytes).schema
    older_back = conv.to_connect_data(topic, older_bytes).schema
    assert newer_back is not None and newer_back.version == 2
    assert older_back is not None and older_back.version == 1


def _same_schema_multiple_topic(url: str, registry: SchemaRegistryClient, is_key: bool) -> None:
    suffix = "key" if is_key else "value"
    t1, t2 = f"topic1-{uuid.uuid4().hex[:8]}", f"topic2-{uuid.uuid4().hex[:8]}"
    _no_compatibility(registry, f"{t1}-{suffix}", f"{t2}-{suffix}")
    registry.register_schema(f"{t1}-{suffix}", _avro(FOO_V2))
    registry.register_schema(f"{t2}-{suffix}", _avro(FOO_V1))
    registry.register_schema(f"{t2}-{suffix}", _avro(FOO_V2))
    field = MessageField.KEY if is_key else MessageField.VALUE
    serializer = AvroSerializer(registry, json.dumps(FOO_V2))
    record = {"key": 15, "value": "bar"}
    first = serializer(record, SerializationContext(t1, field))
    second = serializer(record, SerializationContext(t2, field))
    conv = _converter(url, is_key=is_key)
    one = conv.to_connect_data(t1, first).schema
    assert one is not None and one.version == 1
    two = conv.to_connect_data(t2, second).schema
    assert two is not None and two.version == 2
    again = conv.to_connect_data(t2, second).schema
    assert again is not None and again.version == 2


def test_same_schema_multiple_topic_for_value(url: str, registry: SchemaRegistryClient) -> None:
    _same_schema_multiple_topic(url, registry, is_key=False)


def test_same_schema_multiple_topic_for_key(url: str, registry: SchemaRegistryClient) -> None:
    _same_schema_multiple_topic(url, registry, is_key=True)


def test_explicitly_named_nested_maps_with_non_string_keys(url: str, topic: str) -> None:
    schema = (
        SchemaBuilder.map(
            Schema.OPTIONAL_STRING,
            SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.INT32).name("foo.bar").build(),
        )
        .name("biz.baz")
        .version(1)
        .build()
    )
    value = {"foo": {"bar": 1}}
    conv = _converter(url)
    back = conv.to_connect_data(topic, conv.from_connect_data(topic, schema, value))
    assert back.schema == schema
    assert back.value == value


def _latest_version_converter(
    url: str, registry: SchemaRegistryClient, topic: str
) -> AvroConverter:
    registry.register_schema(
        f"{topic}-value",
        _avro({"type": "record", "name": "MySchema", "fields": [{"name": "id", "type": "string"}]}),
    )
    return _converter(
        url,
        **{
            "auto.register.schemas": False,
            "latest.compatibility.strict": False,
            "normalize.schemas": True,
            "use.latest.version": True,
            "value.subject.name.strategy": (
                "io.confluent.kafka.serializers.subject.TopicNameStrategy"
            ),
        },
    )


def test_single_field_serialization(url: str, topic: str, registry: SchemaRegistryClient) -> None:
    conv = _latest_version_converter(url, registry, topic)
    first = SchemaBuilder.struct().field("foo", Schema.STRING).field("id", Schema.STRING).build()
    second = SchemaBuilder.struct().field("id", Schema.STRING).field("foo", Schema.STRING).build()
    one = conv.to_connect_data(
        topic,
        conv.from_connect_data(topic, first, Struct(first).put("foo", "123").put("id", "456")),
    )
    two = conv.to_connect_data(
        topic,
        conv.from_connect_data(topic, second, Struct(second).put("id", "456").put("foo", "123")),
    )
    assert one.value == two.value
    assert one.value.get("id") == "456"


def test_single_field_serialization_different_case(
    url: str, topic: str, registry: SchemaRegistryClient
) -> None:
    conv = _latest_version_converter(url, registry, topic)
    schema = SchemaBuilder.struct().field("ID", Schema.STRING).build()
    # Java writes the struct with the latest schema, whose only field "id" the struct lacks
    # (names are case-sensitive), and both reads give the same value. kconnect refuses the
    # write instead: the struct cannot fill the required "id" (a DataError, never bad bytes).
    with pytest.raises(DataError, match="id"):
        conv.from_connect_data(topic, schema, Struct(schema).put("ID", "456"))


def _unreachable(conv: AvroConverter) -> AvroConverter:
    # The registry goes away after configure(): point the client at a closed port.
    conv.settings = type(conv.settings).parse({"schema.registry.url": "http://127.0.0.1:9"})
    conv._client = SchemaRegistryClient({"url": "http://127.0.0.1:9"})
    return conv


def test_from_connect_data_throws_network_exception_on_serialization_exception_caused_by_network_connection_exception() -> (
    None
):
    # Java turns a socket failure while serialising into a retriable NetworkException;
    # kconnect raises a DataError naming the unreachable registry (errors.* handles it).
    conv = _unreachable(_converter(f"mock://net-{uuid.uuid4().hex}"))
    with pytest.raises(DataError, match="unreachable"):
        conv.from_connect_data("topic", Schema.STRING, "value")


def test_to_connect_data_throws_network_exception_on_serialization_exception_caused_by_network_connection_exception() -> (
    None
):
    scope = f"net-{uuid.uuid4().hex}"
    data = _converter(f"mock://{scope}").from_connect_data("topic", Schema.BOOLEAN, True)
    drop_mock_schema_registry(scope)
    reader = _unreachable(_converter(f"mock://{scope}-reader"))
    with pytest.raises(DataError, match="unreachable"):
        reader.to_connect_data("topic", data)


@pytest.mark.parametrize("side", ["key", "value"])
def test_header_schema_id_serializer(url: str, side: str) -> None:
    # Covers testHeaderSchemaIdSerializerForKey and ...ForValue. Confluent writes a schema
    # GUID to the __key_schema_id/__value_schema_id header; kconnect keeps ids in the
    # payload prefix and refuses the setting by name rather than ignoring it.
    with pytest.raises(ConfigError, match=f"'{side}.schema.id.serializer'"):
        _converter(
            url,
            is_key=side == "key",
            **{
                f"{side}.schema.id.serializer": (
                    "io.confluent.kafka.serializers.schema.id.HeaderSchemaIdSerializer"
                ),
                f"{side}.schema.id.deserializer": (
                    "io.confluent.kafka.serializers.schema.id.DualSchemaIdDeserializer"
                ),
            },
        )
    # A record that carries its id in the header (written by a Java client) is a DataError
    # naming the header, never read with a stale prefix id.
    conv = _converter(url, is_key=side == "key")
    schema = SchemaBuilder.struct().field(side, Schema.STRING).build()
    data = conv.from_connect_data("topic", schema, Struct(schema).put(side, "x"))
    headers = Headers().add_bytes(f"__{side}_schema_id", b"\x01" + bytes(16))
    with pytest.raises(DataError, match=f"__{side}_schema_id"):
        conv.to_connect_data("topic", data, headers)
