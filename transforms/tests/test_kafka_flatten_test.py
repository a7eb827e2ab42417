"""Apache Kafka's FlattenTest, method by method (same inputs, same expectations)."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from kconnect_sdk import DataError, Schema, SchemaBuilder, SourceRecord, Struct, Type
from kconnect_transforms import FlattenKey, FlattenValue


def _value(**config: Any) -> FlattenValue[SourceRecord]:
    xform: FlattenValue[SourceRecord] = FlattenValue()
    xform.configure(config)
    return xform


def _apply(xform: FlattenValue[SourceRecord], schema: Schema | None, value: Any) -> SourceRecord:
    out = xform.apply(
        SourceRecord(topic="topic", kafka_partition=0, value_schema=schema, value=value)
    )
    assert out is not None
    return out


SUPPORTED = {
    "int8": (Schema.INT8, 8),
    "int16": (Schema.INT16, 16),
    "int32": (Schema.INT32, 32),
    "int64": (Schema.INT64, 64),
    "float32": (Schema.FLOAT32, 32.0),
    "float64": (Schema.FLOAT64, 64.0),
    "boolean": (Schema.BOOLEAN, True),
    "string": (Schema.STRING, "stringy"),
    "bytes": (Schema.BYTES, b"bytes"),
}


def test_top_level_struct_required() -> None:
    with pytest.raises(DataError):
        _apply(_value(), Schema.INT32, 42)


def test_top_level_map_required() -> None:
    with pytest.raises(DataError):
        _apply(_value(), None, 42)


def test_test_nested_struct() -> None:
    builder = SchemaBuilder.struct()
    for name, (schema, _) in SUPPORTED.items():
        builder.field(name, schema)
    supported = builder.build()
    one = SchemaBuilder.struct().field("B", supported).build()
    two = SchemaBuilder.struct().field("A", one).build()
    inner = Struct(supported)
    for name, (_, value) in SUPPORTED.items():
        inner.put(name, value)
    out = _apply(_value(), two, Struct(two).put("A", Struct(one).put("B", inner)))
    assert out.value_schema is not None and out.value_schema.type is Type.STRUCT
    assert len(out.value.schema.fields) == 9
    for name, (_, value) in SUPPORTED.items():
        assert out.value.get(f"A.B.{name}") == value


def test_test_nested_map_with_delimiter() -> None:
    value = {"A": {"B": {name: v for name, (_, v) in SUPPORTED.items()}}}
    out = _apply(_value(delimiter="#"), None, value)
    assert out.value_schema is None
    assert out.value == {f"A#B#{name}": v for name, (_, v) in SUPPORTED.items()}


def test_test_optional_field_struct() -> None:
    supported = SchemaBuilder.struct().field("opt_int32", Schema.OPTIONAL_INT32).build()
    one = SchemaBuilder.struct().field("B", supported).build()
    value = Struct(one).put("B", Struct(supported).put("opt_int32", None))
    out = _apply(_value(), one, value)
    assert out.value_schema is not None and out.value_schema.type is Type.STRUCT
    assert out.value.get("B.opt_int32") is None


def test_test_optional_struct() -> None:
    schema = SchemaBuilder.struct().optional().field("opt_int32", Schema.OPTIONAL_INT32).build()
    out = _apply(_value(), schema, None)
    assert out.value_schema is not None and out.value_schema.type is Type.STRUCT
    assert out.value is None


def test_test_optional_nested_struct() -> None:
    supported = SchemaBuilder.struct().optional().field("opt_int32", Schema.OPTIONAL_INT32).build()
    one = SchemaBuilder.struct().field("B", supported).build()
    out = _apply(_value(), one, Struct(one).put("B", None))
    assert out.value_schema is not None and out.value_schema.type is Type.STRUCT
    assert out.value.get("B.opt_int32") is None


def test_test_optional_field_map() -> None:
    out = _apply(_value(), None, {"B": {"opt_int32": None}})
    assert out.value_schema is None
    assert out.value.get("B.opt_int32") is None


def test_test_key() -> None:
    xform: FlattenKey[SourceRecord] = FlattenKey()
    xform.configure({})
    out = xform.apply(SourceRecord(topic="topic", key={"A": {"B": 12}}))
    assert out is not None
    assert out.key_schema is None
    assert out.key == {"A.B": 12}


def test_test_schemaless_array() -> None:
    value = {"foo": ["bar", {"baz": {"lfg": "lfg"}}]}
    assert _apply(_value(), None, value).value == value


def test_test_array_with_schema() -> None:
    nested = SchemaBuilder.struct().field("lfg", Schema.STRING).build()
    inner = SchemaBuilder.struct().field("baz", nested).build()
    schema = (
        SchemaBuilder.struct().field("foo", SchemaBuilder.array(inner).doc("durk").build()).build()
    )
    value = Struct(schema).put("foo", [Struct(inner).put("baz", Struct(nested).put("lfg", "lfg"))])
    out = _apply(_value(), schema, value)
    assert out.value == value
    assert out.value_schema == schema


def test_test_optional_and_default_values_nested() -> None:
    builder = (
        SchemaBuilder.struct()
        .optional()
        .field("req_field", Schema.STRING)
        .field(
            "opt_field", SchemaBuilder.string().optional().default_value("child_default").build()
        )
    )
    child_default = Struct(builder).put("req_field", "req_default")
    schema = builder.default_value(child_default).build()
    out = _apply(_value(), schema, Struct(schema))
    assert out.value_schema is not None and out.value_schema.type is Type.STRUCT
    assert len(out.value_schema.fields) == 2
    req = out.value_schema.field("req_field")
    opt = out.value_schema.field("opt_field")
    assert req is not None
    assert req.schema == SchemaBuilder.string().optional().default_value("req_default").build()
    assert opt is not None
    assert opt.schema == SchemaBuilder.string().optional().default_value("child_default").build()


def test_tombstone_event_without_schema_should_pass_through() -> None:
    out = _apply(_value(), None, None)
    assert (out.value, out.value_schema) == (None, None)


def test_tombstone_event_with_schema_should_pass_through() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", Schema.OPTIONAL_INT64)
        .build()
    )
    out = _apply(_value(), schema, None)
    assert out.value is None
    assert out.value_schema == schema


def test_test_map_with_null_fields() -> None:
    value = {
        "firstNull": None,
        "firstNonNull": "nonNull",
        "secondNull": None,
        "secondNonNull": "alsoNonNull",
        "thirdNonNull": None,
    }
    assert _apply(_value(), None, value).value == value


def test_test_struct_with_null_fields() -> None:
    names = ["firstNull", "firstNonNull", "secondNull", "secondNonNull", "thirdNonNull"]
    builder = SchemaBuilder.struct()
    for name in names:
        builder.field(name, Schema.OPTIONAL_STRING)
    schema = builder.build()
    value = (
        Struct(schema)
        .put("firstNull", None)
        .put("firstNonNull", "nonNull")
        .put("secondNull", None)
        .put("secondNonNull", "alsoNonNull")
        .put("thirdNonNull", None)
    )
    assert _apply(_value(), schema, value).value == value


def test_test_flatten_version_retrieved_from_app_info_parser() -> None:
    assert FlattenKey().version() == version("kconnect-transforms")
    assert FlattenValue().version() == FlattenKey().version()
