"""Avro -> Connect methods of Confluent's ``AvroDataTest``: primitives, records, maps, logical
types, fixed, unions, enums, schemaless data and the schema cache.

One test per upstream method, named after it; expected values are the Java test's. Java's
``toConnectData(avroSchema, datum)`` is ``to_connect_schema`` then ``to_connect_data``
(``_avro_helpers.to_connect``); a datum is in the form fastavro's reader gives it (named union
members as ``(name, datum)``, as Java's ``GenericRecord`` carries its schema).
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from _avro_helpers import to_connect
from kconnect_converter_avro import ANYTHING_SCHEMA, AvroData
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
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
TEST_DECIMAL = decimal.Decimal("1.56")
TEST_DECIMAL_BYTES = bytes([0, 156])
ENHANCED = {"enhanced.avro.schema.support": True}
UNION = "io.confluent.connect.avro.Union"


def _data(**config: Any) -> AvroData:
    return AvroData({"schemas.cache.config": 2, **config})


def test_to_connect_null() -> None:
    assert _data().to_connect_data(None, None) is None


@pytest.mark.parametrize(
    ("avro", "schema", "datum"),
    [
        ("boolean", Schema.BOOLEAN, True),
        ("int", Schema.INT32, 12),
        ("long", Schema.INT64, 12),
        ("float", Schema.FLOAT32, 12.0),
        ("double", Schema.FLOAT64, 12.0),
        ("string", Schema.STRING, "teststring"),
        ("bytes", Schema.BYTES, b"foo"),
        ({"type": "int", "connect.type": "int8"}, Schema.INT8, 12),
        ({"type": "int", "connect.type": "int16"}, Schema.INT16, 12),
    ],
    ids=[
        "testToConnectBoolean",
        "testToConnectInt32",
        "testToConnectInt64",
        "testToConnectFloat32",
        "testToConnectFloat64",
        "testToConnectString",
        "testToConnectBytes",
        "testToConnectInt8",
        "testToConnectInt16",
    ],
)
def test_to_connect_primitive(avro: Any, schema: Schema, datum: Any) -> None:
    # Java also passes Utf8 for strings and ByteBuffer for bytes; fastavro gives str and bytes.
    assert to_connect(_data(), avro, datum) == (schema, datum)


def test_to_connect_nullable_string_nullvalue() -> None:
    assert to_connect(_data(), ["null", "string"], None) == (Schema.OPTIONAL_STRING, None)


def test_to_connect_nullable_string() -> None:
    expected = (Schema.OPTIONAL_STRING, "teststring")
    assert to_connect(_data(), ["null", "string"], "teststring") == expected


def test_to_connect_array() -> None:
    avro = {"type": "array", "items": {"type": "int", "connect.type": "int8"}}
    assert to_connect(_data(), avro, [12, 13]) == (
        SchemaBuilder.array(Schema.INT8).build(),
        [12, 13],
    )


def test_to_connect_map_string_keys() -> None:
    avro = {"type": "map", "values": {"type": "int", "connect.type": "int8"}}
    assert to_connect(_data(), avro, {"field": 12}) == (
        SchemaBuilder.map(Schema.STRING, Schema.INT8).build(),
        {"field": 12},
    )


def _int8_record(string: Any) -> dict[str, Any]:
    return {
        "type": "record",
        "name": "Record",
        "fields": [{"name": "int8", "type": {"type": "int", "connect.type": "int8"}}, string],
    }


def test_to_connect_record() -> None:
    avro = _int8_record({"name": "string", "type": "string"})
    schema = (
        SchemaBuilder.struct()
        .name("Record")
        .field("int8", Schema.INT8)
        .field("string", Schema.STRING)
        .build()
    )
    expected = Struct(schema).put("int8", 12).put("string", "sample string")
    assert to_connect(_data(), avro, {"int8": 12, "string": "sample string"}) == (
        schema,
        expected,
    )


@pytest.mark.parametrize(
    "value",
    ["sample string", None],
    ids=["testToConnectRecordWithOptionalValue", "testToConnectRecordWithOptionalNullValue"],
)
def test_to_connect_record_with_optional(value: Any) -> None:
    avro = _int8_record({"name": "string", "type": ["null", "string"], "default": None})
    schema = (
        SchemaBuilder.struct()
        .name("Record")
        .field("int8", Schema.INT8)
        .field("string", Schema.OPTIONAL_STRING)
        .build()
    )
    expected = Struct(schema).put("int8", 12).put("string", value)
    assert to_connect(_data(), avro, {"int8": 12, "string": value}) == (schema, expected)


@pytest.mark.parametrize(
    "value",
    [["test"], None],
    ids=[
        "testToConnectRecordWithOptionalArrayValue",
        "testToConnectRecordWithOptionalArrayNullValue",
    ],
)
def test_to_connect_record_with_optional_array(value: Any) -> None:
    avro = {
        "type": "record",
        "name": "Record",
        "fields": [
            {"name": "string", "type": ["null", "string"], "default": None},
            {"name": "array", "type": ["null", {"type": "array", "items": "string"}]},
        ],
    }
    schema = (
        SchemaBuilder.struct()
        .name("Record")
        .field("string", Schema.OPTIONAL_STRING)
        .field("array", SchemaBuilder.array(Schema.STRING).optional().build())
        .build()
    )
    expected = Struct(schema).put("string", "xx").put("array", value)
    assert to_connect(_data(), avro, {"string": "xx", "array": value}) == (schema, expected)


def _nested() -> tuple[dict[str, Any], Schema, Schema]:
    inner_avro = {
        "type": "record",
        "name": "nestedRecord",
        "fields": [{"name": "string", "type": "string"}],
    }
    avro = {
        "type": "record",
        "name": "Record",
        "fields": [{"name": "nestedRecord", "type": [inner_avro, "null"]}],
    }
    inner = (
        SchemaBuilder.struct()
        .optional()
        .name("nestedRecord")
        .field("string", Schema.STRING)
        .build()
    )
    outer = SchemaBuilder.struct().name("Record").field("nestedRecord", inner).build()
    return avro, outer, inner


def test_to_connect_nested_record_with_optional_record_value() -> None:
    avro, outer, inner = _nested()
    expected = Struct(outer).put("nestedRecord", Struct(inner).put("string", "xx"))
    got = to_connect(_data(), avro, {"nestedRecord": {"string": "xx"}})
    assert got == (outer, expected)


def test_to_connect_nested_record_with_optional_record_null_value() -> None:
    avro, outer, _ = _nested()
    assert to_connect(_data(), avro, {"nestedRecord": None}) == (outer, Struct(outer))


def test_to_connect_decimal() -> None:
    avro = {
        "type": "bytes",
        "connect.name": "org.apache.kafka.connect.data.Decimal",
        "connect.version": 1,
        "connect.parameters": {"scale": "2"},
    }
    assert to_connect(_data(), avro, TEST_DECIMAL_BYTES) == (Decimal.schema(2), TEST_DECIMAL)


def _avro_decimal(**extra: Any) -> dict[str, Any]:
    return {"type": "bytes", "logicalType": "decimal", "precision": 50} | extra


def test_to_connect_decimal_avro() -> None:
    expected = Decimal.builder(2).parameter("connect.decimal.precision", "50").build()
    schema, value = to_connect(_data(), _avro_decimal(scale=2), TEST_DECIMAL_BYTES)
    assert schema is not None
    assert dict(schema.parameters) == dict(expected.parameters)
    assert (schema, value) == (expected, TEST_DECIMAL)


def test_to_connect_decimal_avro_fixed() -> None:
    avro = _avro_decimal(scale=2) | {"type": "fixed", "name": "fixed", "size": 100}
    expected = (
        Decimal.builder(2)
        .parameter("connect.decimal.precision", "50")
        .parameter("connect.fixed.size", "100")
        .build()
    )
    schema, value = to_connect(_data(), avro, TEST_DECIMAL_BYTES)
    assert schema is not None
    assert dict(schema.parameters) == dict(expected.parameters)
    assert (schema, value) == (expected, TEST_DECIMAL)


def test_to_connect_decimal_avro_default_scale() -> None:
    expected = Decimal.builder(0).parameter("connect.decimal.precision", "50").build()
    schema, value = to_connect(_data(), _avro_decimal(), TEST_DECIMAL_BYTES)
    assert (schema, value) == (expected, decimal.Decimal(156))


def _connect_logical(kind: str, name: str) -> dict[str, Any]:
    return {
        "type": kind,
        "connect.name": f"org.apache.kafka.connect.data.{name}",
        "connect.version": 1,
    }


def test_to_connect_date() -> None:
    expected = (Date.SCHEMA, (EPOCH + dt.timedelta(days=10000)).date())
    assert to_connect(_data(), _connect_logical("int", "Date"), 10000) == expected


def test_to_connect_date_avro() -> None:
    expected = (Date.SCHEMA, (EPOCH + dt.timedelta(days=10000)).date())
    assert to_connect(_data(), {"type": "int", "logicalType": "date"}, 10000) == expected


def test_to_connect_time() -> None:
    expected = (Time.SCHEMA, dt.time(0, 0, 10, tzinfo=UTC))
    assert to_connect(_data(), _connect_logical("int", "Time"), 10000) == expected


def test_to_connect_time_avro() -> None:
    expected = (Time.SCHEMA, dt.time(0, 0, 10, tzinfo=UTC))
    assert to_connect(_data(), {"type": "int", "logicalType": "time-millis"}, 10000) == expected


_NOW = dt.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)
_NOW_MILLIS = int((_NOW - EPOCH).total_seconds() * 1000)


def test_to_connect_timestamp() -> None:
    expected = (Timestamp.SCHEMA, _NOW)
    assert to_connect(_data(), _connect_logical("long", "Timestamp"), _NOW_MILLIS) == expected


def test_to_connect_timestamp_avro() -> None:
    avro = {"type": "long", "logicalType": "timestamp-millis"}
    assert to_connect(_data(), avro, _NOW_MILLIS) == (Timestamp.SCHEMA, _NOW)


def _map_entry(value: Any) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {
            "type": "record",
            "name": "MapEntry",
            "namespace": "io.confluent.connect.avro",
            "fields": [
                {"name": "key", "type": {"type": "int", "connect.type": "int8"}},
                {"name": "value", "type": value},
            ],
        },
    }


def test_to_connect_map_non_string_keys() -> None:
    avro = _map_entry({"type": "int", "connect.type": "int16"})
    expected = SchemaBuilder.map(Schema.INT8, Schema.INT16).build()
    assert to_connect(_data(), avro, [{"key": 12, "value": 16}]) == (expected, {12: 16})


@pytest.mark.parametrize(
    "value",
    ["some value", None],
    ids=["testToConnectMapOptionalValue", "testToConnectMapOptionalNullValue"],
)
def test_to_connect_map_optional(value: Any) -> None:
    avro = _map_entry(["null", "string"])
    expected = SchemaBuilder.map(Schema.INT8, Schema.OPTIONAL_STRING).build()
    assert to_connect(_data(), avro, [{"key": 12, "value": value}]) == (expected, {12: value})


def test_to_connect_map_with_named_schema() -> None:
    avro = {
        "type": "array",
        "connect.name": "foo.bar",
        "items": {
            "type": "record",
            "name": "foo.bar",
            "connect.internal.type": "MapEntry",
            "fields": [
                {"name": "key", "type": ["null", "string"], "default": None},
                {"name": "value", "type": "int"},
            ],
        },
    }
    expected = SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.INT32).name("foo.bar").build()
    assert _data().to_connect_schema(avro) == expected


def test_to_connect_null_type() -> None:
    with pytest.raises(DataError):
        to_connect(_data(), "null", True)


def _fixed(name: str, size: int, optional: bool = False) -> Schema:
    builder = SchemaBuilder.bytes().name(name).parameter("connect.fixed.size", str(size))
    return (builder.optional() if optional else builder).build()


def test_to_connect_fixed() -> None:
    avro = {"type": "fixed", "name": "sample", "size": 4}
    assert to_connect(_data(), avro, b"foob") == (_fixed("sample", 4), b"foob")


_FIXED_UNION = [
    {"type": "fixed", "name": "sample", "size": 4},
    {"type": "fixed", "name": "other", "size": 6},
    {"type": "fixed", "name": "sameOther", "size": 6},
]


@pytest.mark.parametrize(
    "config", [{}, ENHANCED], ids=["testToConnectFixedUnion", "testToConnectFixedUnionWithEnhanced"]
)
def test_to_connect_fixed_union(config: dict[str, Any]) -> None:
    schema = (
        SchemaBuilder.struct()
        .name(UNION)
        .field("sample", _fixed("sample", 4, optional=True))
        .field("other", _fixed("other", 6, optional=True))
        .field("sameOther", _fixed("sameOther", 6, optional=True))
        .build()
    )
    data = _data(**config)
    assert data.to_connect_schema(_FIXED_UNION) == schema
    for name, raw in (("sample", b"foob"), ("other", b"foobar"), ("sameOther", b"foobar")):
        assert to_connect(data, _FIXED_UNION, (name, raw)) == (
            schema,
            Struct(schema).put(name, raw),
        )


def _records_union() -> tuple[list[Any], Schema, Schema]:
    avro = [
        "int",
        "string",
        {"type": "record", "name": "Test1", "fields": [{"name": "test", "type": "int"}]},
        {
            "type": "record",
            "name": "Test2",
            "namespace": "io.confluent",
            "fields": [{"name": "test", "type": "int"}],
        },
    ]
    one = SchemaBuilder.struct().name("Test1").field("test", Schema.INT32).optional().build()
    two = (
        SchemaBuilder.struct()
        .name("io.confluent.Test2")
        .field("test", Schema.INT32)
        .optional()
        .build()
    )
    return avro, one, two


@pytest.mark.parametrize(
    "config", [{}, ENHANCED], ids=["testToConnectUnion", "testToConnectUnionWithEnhanced"]
)
def test_to_connect_union(config: dict[str, Any]) -> None:
    avro, one, two = _records_union()
    second = "io.confluent.Test2" if config else "Test2"
    schema = (
        SchemaBuilder.struct()
        .name(UNION)
        .field("int", Schema.OPTIONAL_INT32)
        .field("string", Schema.OPTIONAL_STRING)
        .field("Test1", one)
        .field(second, two)
        .build()
    )
    data = _data(**config)
    assert to_connect(data, avro, 12) == (schema, Struct(schema).put("int", 12))
    assert to_connect(data, avro, "teststring") == (
        schema,
        Struct(schema).put("string", "teststring"),
    )
    assert to_connect(data, avro, ("Test1", {"test": 12})) == (
        schema,
        Struct(schema).put("Test1", Struct(one).put("test", 12)),
    )
    assert to_connect(data, avro, ("io.confluent.Test2", {"test": 12})) == (
        schema,
        Struct(schema).put(second, Struct(two).put("test", 12)),
    )


def _conflicting_records() -> list[Any]:
    fields = [{"name": "test", "type": "int"}]
    return [
        {"type": "record", "name": "Test1", "fields": fields},
        {"type": "record", "name": "Test1", "namespace": "io.confluent", "fields": fields},
    ]


def test_to_connect_union_record_conflict() -> None:
    with pytest.raises(DataError):
        to_connect(_data(), _conflicting_records(), ("Test1", {"test": 12}))


def test_to_connect_union_record_conflict_with_enhanced() -> None:
    schema, value = to_connect(_data(**ENHANCED), _conflicting_records(), ("Test1", {"test": 12}))
    assert schema is not None
    assert value.get("Test1").get("test") == 12


def test_to_connect_union_doc_change() -> None:
    def first(doc: str) -> dict[str, Any]:
        return {
            "type": "record",
            "name": "FirstRecord",
            "doc": doc,
            "fields": [{"name": "int1", "type": "int"}],
        }

    irrelevant = {
        "type": "record",
        "name": "placeholder",
        "doc": "old doc",
        "fields": [{"name": "holder", "type": "int"}],
    }
    data = _data()
    old = to_connect(data, [first("old doc"), irrelevant], ("FirstRecord", {"int1": 12}))
    new = to_connect(data, [first("new doc"), irrelevant], ("FirstRecord", {"int1": 12}))
    assert old[1] is not None and new[1] is not None
    assert old[0] != new[0]  # the doc is part of the schema: no stale cached schema


def test_to_connect_singleton_union() -> None:
    assert to_connect(_data(), ["string"], "bar") == (Schema.STRING, "bar")


def _enum_schema(doc: str | None) -> Schema:
    builder = SchemaBuilder.string().name("TestEnum")
    if doc is not None:
        builder.parameter("io.confluent.connect.avro.enum.doc.TestEnum", doc)
    builder.parameter("io.confluent.connect.avro.Enum", "TestEnum")
    for symbol in ("foo", "bar", "baz"):
        builder.parameter(f"io.confluent.connect.avro.Enum.{symbol}", symbol)
    return builder.build()


def test_to_connect_enum() -> None:
    avro = {
        "type": "enum",
        "name": "TestEnum",
        "doc": "some documentation",
        "symbols": ["foo", "bar", "baz"],
    }
    assert to_connect(_data(), avro, "bar") == (_enum_schema("some documentation"), "bar")


def test_to_connect_enum_with_no_doc() -> None:
    avro = {"type": "enum", "name": "TestEnum", "symbols": ["foo", "bar", "baz"]}
    assert to_connect(_data(), avro, "bar") == (_enum_schema(None), "bar")


def _anything(**member: Any) -> dict[str, Any]:
    return member


def test_to_connect_schemaless() -> None:
    data = _data()
    assert to_connect(data, ANYTHING_SCHEMA, _anything()) == (None, None)
    an_int, a_string = _anything(int=12), _anything(string="teststring")
    for member, value in (
        ("int", 12),
        ("long", 12),
        ("float", 12.2),
        ("double", 12.2),
        ("boolean", True),
        ("string", "teststring"),
    ):
        assert to_connect(data, ANYTHING_SCHEMA, _anything(**{member: value})) == (None, value)
    array = _anything(array=[an_int, a_string, _anything()])
    assert to_connect(data, ANYTHING_SCHEMA, array) == (None, [12, "teststring", None])
    entries = [
        {"key": an_int, "value": a_string},
        {"key": _anything(int=13), "value": _anything()},
    ]
    expected = {12: "teststring", 13: None}
    assert to_connect(data, ANYTHING_SCHEMA, _anything(map=entries)) == (None, expected)


def test_cache_schema_to_connect_conversion() -> None:
    data = _data()
    cache = data._to_schema_cache
    assert len(cache) == 0
    to_connect(data, {"type": "boolean"}, True)
    assert len(cache) == 1
    to_connect(data, {"type": "boolean"}, True)
    assert len(cache) == 1
    to_connect(data, {"type": "int"}, 32)
    assert len(cache) == 2
    to_connect(data, {"type": "string"}, "foo")  # the limit of the cache
    assert len(cache) == 2
