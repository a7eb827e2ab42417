"""Our bytes equal confluent-kafka's AvroSerializer's, and its AvroDeserializer reads ours.

Every Connect type goes both ways through a shared ``mock://`` registry scope: the converter
registers the schema, confluent-kafka's serializer (given the same Avro schema text and
plain Python data) must produce identical bytes, and each side decodes the other's.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka.schema_registry import Schema as RegistrySchema
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from kconnect_converter_avro import (
    AvroConverter,
    drop_mock_schema_registry,
    mock_schema_registry_client,
)
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)

UTC = dt.UTC

ADDRESS = (
    SchemaBuilder.struct()
    .name("com.example.Address")
    .field("street", Schema.STRING)
    .field("zip", Schema.OPTIONAL_INT32)
    .build()
)
ORDER = (
    SchemaBuilder.struct()
    .name("com.example.Order")
    .version(3)
    .doc("an order")
    .field("id", Schema.INT64)
    .field("tiny", Schema.INT8)
    .field("small", Schema.INT16)
    .field("qty", Schema.INT32)
    .field("ratio", Schema.FLOAT32)
    .field("price", Schema.FLOAT64)
    .field("paid", Schema.BOOLEAN)
    .field("note", Schema.OPTIONAL_STRING)
    .field("blob", Schema.BYTES)
    .field("amount", Decimal.builder(2).build())
    .field("big", Decimal.builder(10).parameter("connect.decimal.precision", "38").build())
    .field("day", Date.SCHEMA)
    .field("at", Time.SCHEMA)
    .field("ts", Timestamp.SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING).build())
    .field("attrs", SchemaBuilder.map(Schema.STRING, Schema.INT64).build())
    .field("by_id", SchemaBuilder.map(Schema.INT32, Schema.STRING).build())
    .field("ship_to", ADDRESS)
    .field(
        "bill_to",
        SchemaBuilder.struct().name("com.example.Bill").field("a", ADDRESS).optional().build(),
    )
    .field("status", SchemaBuilder.string().default_value("NEW").build())
    .field("opt_with_default", SchemaBuilder.int32().optional().default_value(7).build())
    .build()
)


def _order(note: str | None = "rush") -> tuple[Struct, dict[str, Any]]:
    """A Struct and the same data as plain Python for confluent-kafka's serializer."""
    day = dt.date(2024, 2, 29)
    at = dt.time(13, 45, 7, 123000, tzinfo=UTC)
    ts = dt.datetime(2024, 2, 29, 13, 45, 7, 123000, tzinfo=UTC)
    amount = decimal.Decimal("1234.50")
    big = decimal.Decimal("12345678901234567890123456.7890123456")
    struct = (
        Struct(ORDER)
        .put("id", 2**40)
        .put("tiny", -5)
        .put("small", 300)
        .put("qty", -7)
        .put("ratio", 0.5)
        .put("price", 19.99)
        .put("paid", True)
        .put("note", note)
        .put("blob", b"\x00\xffbin")
        .put("amount", amount)
        .put("big", big)
        .put("day", day)
        .put("at", at)
        .put("ts", ts)
        .put("tags", ["a", "b"])
        .put("attrs", {"x": 1, "y": -2})
        .put("by_id", {1: "one", 2: "two"})
        .put("ship_to", Struct(ADDRESS).put("street", "Main St").put("zip", 12345))
        .put("bill_to", None)
    )
    plain = {
        "id": 2**40,
        "tiny": -5,
        "small": 300,
        "qty": -7,
        "ratio": 0.5,
        "price": 19.99,
        "paid": True,
        "note": note,
        "blob": b"\x00\xffbin",
        "amount": amount,
        "big": big,
        "day": day,
        "at": dt.time(13, 45, 7, 123000),
        "ts": ts,
        "tags": ["a", "b"],
        "attrs": {"x": 1, "y": -2},
        "by_id": [{"key": 1, "value": "one"}, {"key": 2, "value": "two"}],
        "ship_to": {"street": "Main St", "zip": 12345},
        "bill_to": None,
        "status": "NEW",
        "opt_with_default": 7,
    }
    return struct, plain


@pytest.fixture
def scope() -> Any:
    name = f"wire-{uuid.uuid4().hex}"
    yield name
    drop_mock_schema_registry(name)


def _converter(scope: str, is_key: bool = False, **extra: Any) -> AvroConverter:
    conv = AvroConverter()
    conv.configure({"schema.registry.url": f"mock://{scope}", **extra}, is_key)
    return conv


def _serializer(scope: str, avro_schema: Any, to_dict: Callable[..., Any] | None = None) -> Any:
    # A Schema object, not text: given text, the serializer rewrites a bare primitive
    # ("int") as {"type":"int"}, which the in-process registry sees as another schema.
    text = json.dumps(avro_schema, separators=(",", ":"), ensure_ascii=False)
    return AvroSerializer(mock_schema_registry_client(scope), RegistrySchema(text, "AVRO"), to_dict)


def _ctx(topic: str, is_key: bool = False) -> SerializationContext:
    return SerializationContext(topic, MessageField.KEY if is_key else MessageField.VALUE)


CASES: list[tuple[str, Schema, Any, Any]] = [
    ("int8", Schema.INT8, -128, -128),
    ("int16", Schema.INT16, 32767, 32767),
    ("int32", Schema.INT32, -(2**31), -(2**31)),
    ("int64", Schema.INT64, 2**63 - 1, 2**63 - 1),
    ("float32", Schema.FLOAT32, 1.5, 1.5),
    ("float64", Schema.FLOAT64, -2.25e300, -2.25e300),
    ("boolean", Schema.BOOLEAN, False, False),
    ("string", Schema.STRING, "héllo ✓", "héllo ✓"),
    ("bytes", Schema.BYTES, b"\x00\x01\xfe", b"\x00\x01\xfe"),
    ("optional string", Schema.OPTIONAL_STRING, "x", "x"),
    # A top-level bytes schema (Decimal too) is written raw, without Avro's length prefix,
    # by Confluent's serializers; confluent-kafka's wants the unscaled bytes for a Decimal.
    ("decimal", Decimal.schema(3), decimal.Decimal("-0.001"), b"\xff"),
    ("date", Date.SCHEMA, dt.date(1969, 12, 31), dt.date(1969, 12, 31)),
    ("time", Time.SCHEMA, dt.time(0, 0, 0, 1000, tzinfo=UTC), dt.time(0, 0, 0, 1000)),
    (
        "timestamp",
        Timestamp.SCHEMA,
        dt.datetime(1960, 1, 1, tzinfo=UTC),
        dt.datetime(1960, 1, 1, tzinfo=UTC),
    ),
    ("array", SchemaBuilder.array(Schema.OPTIONAL_INT32).build(), [1, None, 3], [1, None, 3]),
    (
        "string map",
        SchemaBuilder.map(Schema.STRING, Schema.BOOLEAN).build(),
        {"a": True},
        {"a": True},
    ),
    (
        "int map",
        SchemaBuilder.map(Schema.INT64, Schema.STRING).build(),
        {5: "five"},
        [{"key": 5, "value": "five"}],
    ),
]


@pytest.mark.parametrize(("name", "schema", "value", "plain"), CASES, ids=[c[0] for c in CASES])
def test_primitive_and_container_bytes_match_confluent(
    scope: str, name: str, schema: Schema, value: Any, plain: Any
) -> None:
    conv = _converter(scope)
    ours = conv.from_connect_data("t", schema, value)
    avro = conv.avro_data.from_connect_schema(schema)
    if isinstance(avro, str):
        # Java registers a bare primitive as "int"; confluent-kafka's serializer only takes
        # the {"type": "int"} spelling, a different schema text (so another id) for the
        # in-process registry. Compare the framing and the Avro body.
        theirs = _serializer(scope, {"type": avro})(plain, _ctx("t"))
        assert ours is not None and theirs is not None
        assert ours[0] == theirs[0] == 0
        assert ours[5:] == theirs[5:]
    else:
        theirs = _serializer(scope, avro)(plain, _ctx("t"))
        assert ours == theirs
    # Their bytes read back by us give the original Connect value and schema type.
    back = conv.to_connect_data("t", theirs)
    assert back.value == value
    assert back.schema is not None and back.schema.type is schema.type
    # And theirs reads ours.
    got = AvroDeserializer(mock_schema_registry_client(scope))(ours, _ctx("t"))
    assert got == plain or (name == "time" and got == plain)


def test_struct_with_every_type_matches_confluent_both_ways(scope: str) -> None:
    conv = _converter(scope)
    struct, plain = _order()
    ours = conv.from_connect_data("orders", ORDER, struct)
    avro = conv.avro_data.from_connect_schema(ORDER)
    theirs = _serializer(scope, avro)(plain, _ctx("orders"))
    assert ours == theirs

    back = conv.to_connect_data("orders", theirs)
    assert back.schema == conv.avro_data.to_connect_schema(avro, None)
    assert back.value.get("big") == decimal.Decimal("12345678901234567890123456.7890123456")
    assert back.value.get("by_id") == {1: "one", 2: "two"}
    assert back.value.get("ship_to").get("zip") == 12345
    assert back.value.get("at") == dt.time(13, 45, 7, 123000, tzinfo=UTC)
    assert back.value.get("status") == "NEW"
    decoded = AvroDeserializer(mock_schema_registry_client(scope))(ours, _ctx("orders"))
    assert decoded == plain


def test_key_converter_uses_key_subject_and_null_is_a_tombstone(scope: str) -> None:
    conv = _converter(scope, is_key=True)
    data = conv.from_connect_data("t", Schema.STRING, "k1")
    assert mock_schema_registry_client(scope).get_subjects() == ["t-key"]
    assert conv.to_connect_data("t", data).value == "k1"
    assert conv.from_connect_data("t", Schema.OPTIONAL_STRING, None) is None
    assert conv.to_connect_data("t", None) == (None, None)


def test_record_name_strategies(scope: str) -> None:
    conv = _converter(
        scope,
        **{
            "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"
        },
    )
    conv.from_connect_data("t", ADDRESS, Struct(ADDRESS).put("street", "s"))
    conv2 = _converter(
        scope,
        **{
            "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"
        },
    )
    conv2.from_connect_data("t", ADDRESS, Struct(ADDRESS).put("street", "s"))
    assert sorted(mock_schema_registry_client(scope).get_subjects()) == [
        "com.example.Address",
        "t-com.example.Address",
    ]


def test_schemaless_values_round_trip(scope: str) -> None:
    conv = _converter(scope)
    value = {"a": [1, "two", None, 2.5, True], "b": {"nested": b"x"}}
    data = conv.from_connect_data("t", None, value)
    back = conv.to_connect_data("t", data)
    assert back.schema is None
    assert back.value == value


def test_batch_equals_single(scope: str) -> None:
    conv = _converter(scope)
    items = [("orders", ORDER, _order(note)[0]) for note in ("a", None, "c")]
    batch = conv.from_connect_batch(items)
    assert batch == [conv.from_connect_data(t, s, v) for t, s, v in items]
    decoded = conv.to_connect_batch([("orders", b) for b in batch])
    assert [d.value.get("note") for d in decoded] == ["a", None, "c"]


def test_bad_bytes_are_data_errors_naming_the_topic(scope: str) -> None:
    conv = _converter(scope)
    with pytest.raises(DataError, match=r"topic 'orders'.*Unknown magic byte"):
        conv.to_connect_data("orders", b'{"json": true}')
    with pytest.raises(DataError, match=r"topic 'orders'.*schema for id 999"):
        conv.to_connect_data("orders", b"\x00\x00\x00\x03\xe7\x02")
    with pytest.raises(DataError, match=r"topic 'orders'"):
        conv.to_connect_batch([("orders", b"\x01abcd")])


def test_value_not_matching_schema_is_a_data_error(scope: str) -> None:
    conv = _converter(scope)
    with pytest.raises(DataError, match="topic 't'"):
        conv.from_connect_data("t", Schema.INT32, "not an int")
    with pytest.raises(DataError, match="non-optional"):
        conv.from_connect_data("t", Schema.INT32, None)


def test_version_extracted_from_the_registry(scope: str) -> None:
    """Confluent's testVersionExtractedForDefaultSubjectNameStrategy."""
    foo1 = {"type": "record", "name": "Foo", "fields": [{"name": "key", "type": "int"}]}
    foo2 = {
        "type": "record",
        "name": "Foo",
        "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}],
    }
    client = mock_schema_registry_client(scope)
    compact = {"separators": (",", ":")}
    client.register_schema("topic-value", RegistrySchema(json.dumps(foo1, **compact), "AVRO"))
    client.register_schema("topic-value", RegistrySchema(json.dumps(foo2, **compact), "AVRO"))
    first = _serializer(scope, foo1)({"key": 15}, _ctx("topic"))
    second = _serializer(scope, foo2)({"key": 15, "value": "bar"}, _ctx("topic"))
    conv = _converter(scope)
    one, two = conv.to_connect_data("topic", first), conv.to_connect_data("topic", second)
    assert one.schema is not None and one.schema.version == 1
    assert two.schema is not None and two.schema.version == 2
    assert two.value.get("value") == "bar"


def test_use_latest_version_writes_with_the_latest_registered_schema(scope: str) -> None:
    latest = {
        "type": "record",
        "name": "Address",
        "namespace": "com.example",
        "fields": [
            {"name": "street", "type": "string"},
            {"name": "zip", "type": ["null", "int"], "default": None},
            {"name": "country", "type": "string", "default": "SE"},
        ],
    }
    client = mock_schema_registry_client(scope)
    latest_id = client.register_schema(
        "t-value", RegistrySchema(json.dumps(latest, separators=(",", ":")), "AVRO")
    )
    conv = _converter(scope, **{"use.latest.version": "true", "auto.register.schemas": "false"})
    data = conv.from_connect_data("t", ADDRESS, Struct(ADDRESS).put("street", "s").put("zip", 1))
    assert data is not None and int.from_bytes(data[1:5], "big") == latest_id
    back = AvroDeserializer(client)(data, _ctx("t"))
    assert back == {"street": "s", "zip": 1, "country": "SE"}


def test_decimal_beyond_28_digits_round_trips_exactly(scope: str) -> None:
    conv = _converter(scope)
    schema = Decimal.schema(10)
    value = decimal.Decimal("12345678901234567890123456.7890123456")
    assert conv.to_connect_data("t", conv.from_connect_data("t", schema, value)).value == value


def test_union_of_records_written_by_confluent_reads_as_a_connect_union(scope: str) -> None:
    cat = {
        "type": "record",
        "name": "Cat",
        "namespace": "pets",
        "fields": [{"name": "lives", "type": "int"}],
    }
    dog = {
        "type": "record",
        "name": "Dog",
        "namespace": "pets",
        "fields": [{"name": "good", "type": "boolean"}],
    }
    schema = {
        "type": "record",
        "name": "Owner",
        "namespace": "pets",
        "fields": [
            {"name": "pet", "type": [cat, dog]},
            {"name": "e", "type": {"type": "enum", "name": "Size", "symbols": ["S", "L"]}},
        ],
    }
    data = _serializer(scope, schema)({"pet": ("pets.Dog", {"good": True}), "e": "L"}, _ctx("pets"))
    conv = _converter(scope, **{"enhanced.avro.schema.support": "true"})
    back = conv.to_connect_data("pets", data)
    pet = back.value.get("pet")
    assert pet.schema.name == "io.confluent.connect.avro.Union"
    assert pet.get("pets.Cat") is None
    assert pet.get("pets.Dog").get("good") is True
    assert back.value.get("e") == "L"
    # Written back through the converter: the same Avro body. (The schema registered carries
    # connect.* properties, as Confluent's converter adds them, so its id is another.)
    again = conv.from_connect_data("pets", back.schema, back.value)
    assert again is not None and again[5:] == data[5:]


# -- Confluent's AvroConverterTest, method by method -----------------------------------


def test_null_of_an_optional_schema_is_null_and_registers_nothing(scope: str) -> None:
    """testNull."""
    conv = _converter(scope)
    assert conv.from_connect_data("t", Schema.OPTIONAL_BOOLEAN, None) is None
    assert conv.to_connect_data("t", None) == (None, None)
    assert mock_schema_registry_client(scope).get_subjects() == []


def test_version_maintained(scope: str) -> None:
    """testVersionMaintained: a Connect version wins over the registry's."""
    conv = _converter(scope)
    newer = (
        SchemaBuilder.struct()
        .version(2)
        .field("orig", Schema.OPTIONAL_INT16)
        .field("new", Schema.OPTIONAL_INT16)
        .build()
    )
    older = SchemaBuilder.struct().version(1).field("orig", Schema.OPTIONAL_INT16).build()
    newer_bytes = conv.from_connect_data("t", newer, Struct(newer))
    older_bytes = conv.from_connect_data("t", older, Struct(older))
    back_newer = conv.to_connect_data("t", newer_bytes).schema
    back_older = conv.to_connect_data("t", older_bytes).schema
    assert back_newer is not None and back_newer.version == 2
    assert back_older is not None and back_older.version == 1


def test_explicitly_named_nested_maps_with_non_string_keys(scope: str) -> None:
    """testExplicitlyNamedNestedMapsWithNonStringKeys."""
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
    conv = _converter(scope)
    back = conv.to_connect_data("topic", conv.from_connect_data("topic", schema, value))
    assert back.schema == schema
    assert back.value == value
