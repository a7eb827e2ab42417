"""Apache Kafka's CastTest, method by method.

Java's ``new Date(Long.MAX_VALUE)`` is beyond Python's datetime range (years 1 to 9999);
``castLogicalToPrimitive`` uses the largest datetime Python has instead, with the value
Java's double cast gives for it. Dates format as Kafka's ``Values.dateFormatFor`` does:
a time of day (``HH:mm:ss.SSS'Z'``), a midnight date (``yyyy-MM-dd``) or a timestamp.
"""

from __future__ import annotations

import datetime as dt
import decimal
from importlib.metadata import version
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect_transforms import CastKey, CastValue

UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
DAY = dt.date(1970, 1, 2)  # new Date(MILLIS_PER_DAY)


def _key(spec: str) -> CastKey[SourceRecord]:
    xform: CastKey[SourceRecord] = CastKey()
    xform.configure({"spec": spec})
    return xform


def _value(spec: str, **config: Any) -> CastValue[SourceRecord]:
    xform: CastValue[SourceRecord] = CastValue()
    xform.configure({"spec": spec, **config})
    return xform


def _out(xform: Any, record: SourceRecord) -> SourceRecord:
    out = xform.apply(record)
    assert out is not None
    return out


def _value_record(schema: Schema | None, value: Any) -> SourceRecord:
    return SourceRecord(topic="topic", kafka_partition=0, value_schema=schema, value=value)


@pytest.mark.parametrize(
    "spec",
    ["", "foo:faketype", "foo:array", "array", "foo:bytes", "foo:int8:extra", "foo:int8,int32"],
    ids=[
        "test_config_empty",
        "test_config_invalid_schema_type",
        "test_config_invalid_target_type-field",
        "test_config_invalid_target_type-whole",
        "test_unsupported_target_type",
        "test_config_invalid_map",
        "test_config_mix_whole_and_field_transformation",
    ],
)
def test_invalid_config(spec: str) -> None:
    with pytest.raises(ConfigError):
        _key(spec)


def test_cast_null_value_record_with_schema() -> None:
    original = SourceRecord(
        topic="topic",
        kafka_partition=0,
        key_schema=Schema.STRING,
        key="key",
        value_schema=Schema.STRING,
    )
    assert _out(_value("foo:int64"), original) == original


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, "10")])
def test_cast_field_with_default_value_record_with_schema(
    replace: bool, expected: str | None
) -> None:
    schema = (
        SchemaBuilder.struct()
        .field("magic", SchemaBuilder.int32().optional().default_value(10).build())
        .build()
    )
    xform = _value("magic:string", **{"replace.null.with.default": replace})
    out = _out(xform, _value_record(schema, Struct(schema).put("magic", None)))
    field = out.value_schema.field("magic") if out.value_schema else None
    assert field is not None and field.schema.type is Type.STRING
    assert out.value.get_without_default("magic") == expected


def test_cast_null_value_record_schemaless() -> None:
    original = SourceRecord(topic="topic", kafka_partition=0, key_schema=Schema.STRING, key="key")
    assert _out(_value("foo:int64"), original) == original


def test_cast_null_key_record_with_schema() -> None:
    original = SourceRecord(
        topic="topic",
        kafka_partition=0,
        key_schema=Schema.STRING,
        value_schema=Schema.STRING,
        value="value",
    )
    assert _out(_key("foo:int64"), original) == original


def test_cast_null_key_record_schemaless() -> None:
    original = SourceRecord(
        topic="topic", kafka_partition=0, value_schema=Schema.STRING, value="value"
    )
    assert _out(_key("foo:int64"), original) == original


def test_cast_whole_record_key_with_schema() -> None:
    record = SourceRecord(
        topic="topic",
        kafka_partition=0,
        key_schema=Schema.INT32,
        key=42,
        value_schema=Schema.STRING,
        value="bogus",
    )
    out = _out(_key("int8"), record)
    assert out.key_schema is not None and out.key_schema.type is Type.INT8
    assert out.key == 42


WHOLE = [
    ("int8", 42, Type.INT8, 42),
    ("int16", 42, Type.INT16, 42),
    ("int32", 42, Type.INT32, 42),
    ("int64", 42, Type.INT64, 42),
    ("float32", 42, Type.FLOAT32, 42.0),
    ("float64", 42, Type.FLOAT64, 42.0),
    ("boolean", 42, Type.BOOLEAN, True),
    ("boolean", 0, Type.BOOLEAN, False),
    ("string", 42, Type.STRING, "42"),
]
WHOLE_IDS = [
    "int8",
    "int16",
    "int32",
    "int64",
    "float32",
    "float64",
    "boolean_true",
    "boolean_false",
    "string",
]


@pytest.mark.parametrize(
    ("spec", "value", "target", "expected"),
    WHOLE,
    ids=[
        "cast_whole_record_value_with_schema_int8",
        "cast_whole_record_value_with_schema_int16",
        "cast_whole_record_value_with_schema_int32",
        "cast_whole_record_value_with_schema_int64",
        "cast_whole_record_value_with_schema_float32",
        "cast_whole_record_value_with_schema_float64",
        "cast_whole_record_value_with_schema_boolean_true",
        "cast_whole_record_value_with_schema_boolean_false",
        "cast_whole_record_value_with_schema_string",
    ],
)
def test_cast_whole_record_value_with_schema(
    spec: str, value: int, target: Type, expected: Any
) -> None:
    out = _out(_value(spec), _value_record(Schema.INT32, value))
    assert out.value_schema is not None and out.value_schema.type is target
    assert out.value == expected
    assert type(out.value) is type(expected)


@pytest.mark.parametrize(
    ("spec", "value", "target", "expected"),
    WHOLE,
    ids=[
        "cast_whole_record_value_schemaless_int8",
        "cast_whole_record_value_schemaless_int16",
        "cast_whole_record_value_schemaless_int32",
        "cast_whole_record_value_schemaless_int64",
        "cast_whole_record_value_schemaless_float32",
        "cast_whole_record_value_schemaless_float64",
        "cast_whole_record_value_schemaless_boolean_true",
        "cast_whole_record_value_schemaless_boolean_false",
        "cast_whole_record_value_schemaless_string",
    ],
)
def test_cast_whole_record_value_schemaless(
    spec: str, value: int, target: Type, expected: Any
) -> None:
    out = _out(_value(spec), _value_record(None, value))
    assert out.value_schema is None
    assert out.value == expected
    assert type(out.value) is type(expected)


def test_cast_whole_big_decimal_record_value_with_schema_string() -> None:
    out = _out(_value("string"), _value_record(Decimal.schema(0), decimal.Decimal(42)))
    assert out.value_schema is not None and out.value_schema.type is Type.STRING
    assert out.value == "42"


def test_cast_whole_date_record_value_with_schema_string() -> None:
    stamp = EPOCH + dt.timedelta(days=1, milliseconds=1)  # a day and 1 ms: timestamp format
    out = _out(_value("string"), _value_record(Timestamp.SCHEMA, stamp))
    assert out.value_schema is not None and out.value_schema.type is Type.STRING
    assert out.value == "1970-01-02T00:00:00.001Z"


def test_cast_whole_record_default_value() -> None:
    schema = SchemaBuilder.float32().default_value(-42.125).build()
    out = _out(_value("int32"), _value_record(schema, 42.125))
    assert out.value_schema is not None and out.value_schema.type is Type.INT32
    assert out.value == 42
    assert out.value_schema.default == -42


def test_cast_whole_record_key_schemaless() -> None:
    record = SourceRecord(
        topic="topic", kafka_partition=0, key=42, value_schema=Schema.STRING, value="bogus"
    )
    out = _out(_key("int8"), record)
    assert out.key_schema is None
    assert out.key == 42


def test_cast_whole_record_value_schemaless_unsupported_type() -> None:
    with pytest.raises(DataError):
        _value("int8").apply(_value_record(None, ["foo"]))


def test_cast_logical_to_primitive() -> None:
    spec = ",".join(
        [
            "date_to_int32:int32",
            "timestamp_to_int64:int64",
            "time_to_int64:int64",
            "decimal_to_int32:int32",
            "timestamp_to_float64:float64",
            "null_timestamp_to_int32:int32",
        ]
    )
    schema = (
        SchemaBuilder.struct()
        .field("date_to_int32", Date.SCHEMA)
        .field("timestamp_to_int64", Timestamp.SCHEMA)
        .field("time_to_int64", Time.SCHEMA)
        .field("decimal_to_int32", Decimal.schema(0))
        .field("timestamp_to_float64", Timestamp.SCHEMA)
        .field("null_timestamp_to_int32", Timestamp.builder().optional().build())
        .build()
    )
    latest = dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)  # 253402300799999 ms
    value = (
        Struct(schema)
        .put("date_to_int32", DAY)
        .put("timestamp_to_int64", EPOCH)
        .put("time_to_int64", dt.time(0, 0, 0, 1000, tzinfo=UTC))
        .put("decimal_to_int32", decimal.Decimal(2**31))
        .put("timestamp_to_float64", latest)
        .put("null_timestamp_to_int32", None)
    )
    out = _out(_value(spec), _value_record(schema, value)).value
    assert out.get("date_to_int32") == 1
    assert out.get("timestamp_to_int64") == 0
    assert out.get("time_to_int64") == 1
    assert out.get("decimal_to_int32") == -(2**31)  # Integer.MIN_VALUE: Java's narrowing
    assert out.get("timestamp_to_float64") == 2.53402300799999e14
    assert out.get("null_timestamp_to_int32") is None
    types = {f.name: f.schema.type for f in out.schema.fields}
    assert types == {
        "date_to_int32": Type.INT32,
        "timestamp_to_int64": Type.INT64,
        "time_to_int64": Type.INT64,
        "decimal_to_int32": Type.INT32,
        "timestamp_to_float64": Type.FLOAT64,
        "null_timestamp_to_int32": Type.INT32,
    }


def test_cast_logical_to_string() -> None:
    now = dt.datetime(2024, 5, 17, 13, 45, 12, 345000, tzinfo=UTC)
    schema = (
        SchemaBuilder.struct()
        .field("date", Date.SCHEMA)
        .field("decimal", Decimal.schema(0))
        .field("time", Time.SCHEMA)
        .field("timestamp", Timestamp.SCHEMA)
        .build()
    )
    value = (
        Struct(schema)
        .put("date", DAY)
        .put("decimal", decimal.Decimal(1982))
        .put("time", dt.time(1, 0, tzinfo=UTC))  # new Date(MILLIS_PER_HOUR)
        .put("timestamp", now)
    )
    out = _out(
        _value("date:string,decimal:string,time:string,timestamp:string"),
        _value_record(schema, value),
    ).value
    assert out.get("date") == "1970-01-02"
    assert out.get("decimal") == "1982"
    assert out.get("time") == "01:00:00.000Z"
    assert out.get("timestamp") == "2024-05-17T13:45:12.345Z"
    assert {f.schema.type for f in out.schema.fields} == {Type.STRING}


def test_cast_fields_with_schema() -> None:
    spec = (
        "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,"
        "boolean:int8,string:int32,bigdecimal:string,date:string,optional:int32,bytes:string,"
        "byteArray:string"
    )
    data = bytes([0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
    schema = (
        SchemaBuilder.struct()
        .field("int8", Schema.INT8)
        .field("int16", Schema.OPTIONAL_INT16)
        .field("int32", SchemaBuilder.int32().default_value(2).build())
        .field("int64", Schema.INT64)
        .field("float32", Schema.FLOAT32)
        .field("float64", SchemaBuilder.float64().default_value(-1.125).build())
        .field("boolean", Schema.BOOLEAN)
        .field("string", Schema.STRING)
        .field("bigdecimal", Decimal.schema(0))
        .field("date", Date.SCHEMA)
        .field("optional", Schema.OPTIONAL_FLOAT32)
        .field("timestamp", Timestamp.SCHEMA)
        .field("bytes", Schema.BYTES)
        .field("byteArray", Schema.BYTES)
        .build()
    )
    value = (
        Struct(schema)
        .put("int8", 8)
        .put("int16", 16)
        .put("int32", 32)
        .put("int64", 64)
        .put("float32", 32.0)
        .put("float64", -64.0)
        .put("boolean", True)
        .put("bigdecimal", decimal.Decimal(42))
        .put("date", DAY)
        .put("string", "42")
        .put("timestamp", EPOCH)
        .put("bytes", bytearray(data))
        .put("byteArray", data)
    )
    out = _out(_value(spec), _value_record(schema, value)).value
    fields = {f.name: f.schema for f in out.schema.fields}
    expected = {
        "int8": (Type.INT16, 8),
        "int16": (Type.INT32, 16),
        "int32": (Type.INT64, 32),
        "int64": (Type.BOOLEAN, True),
        "float32": (Type.FLOAT64, 32.0),
        "float64": (Type.BOOLEAN, True),
        "boolean": (Type.INT8, 1),
        "string": (Type.INT32, 42),
        "bigdecimal": (Type.STRING, "42"),
        "date": (Type.STRING, "1970-01-02"),
        "optional": (Type.INT32, None),
        "bytes": (Type.STRING, "/ty6mHZUMhA="),
        "byteArray": (Type.STRING, "/ty6mHZUMhA="),
        "timestamp": (Type.INT64, EPOCH),
    }
    for name, (target, cast) in expected.items():
        assert fields[name].type is target, name
        assert out.get(name) == cast, name
    assert fields["int16"].optional
    assert fields["int32"].default == 2
    assert fields["float64"].default is True


def test_cast_fields_schemaless() -> None:
    spec = "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,string:int32"
    value = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": 64,
        "float32": 32.0,
        "float64": -64.0,
        "boolean": True,
        "string": "42",
    }
    out = _out(_value(spec), _value_record(None, value))
    assert out.value_schema is None
    assert out.value == {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": True,
        "float32": 32.0,
        "float64": True,
        "boolean": 1,
        "string": 42,
    }


def test_test_cast_version_retrieved_from_app_info_parser() -> None:
    assert CastKey().version() == version("kconnect-transforms")
    assert CastValue().version() == CastKey().version()
