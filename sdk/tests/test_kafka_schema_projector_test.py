"""Apache Kafka's ``SchemaProjectorTest``, method by method, same inputs and expectations."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaProjector,
    SchemaProjectorError,
    Struct,
    Time,
    Timestamp,
    Type,
)

UTC = dt.UTC
PROMOTABLE = [Schema.INT8, Schema.INT16, Schema.INT32, Schema.INT64, Schema.FLOAT32, Schema.FLOAT64]
PROMOTABLE_OPTIONAL = [
    Schema.OPTIONAL_INT8,
    Schema.OPTIONAL_INT16,
    Schema.OPTIONAL_INT32,
    Schema.OPTIONAL_INT64,
    Schema.OPTIONAL_FLOAT32,
    Schema.OPTIONAL_FLOAT64,
]


def test_test_primitive_type_projection() -> None:
    data = bytes([1, 2])
    assert SchemaProjector.project(Schema.BOOLEAN, False, Schema.BOOLEAN) is False
    assert SchemaProjector.project(Schema.BYTES, data, Schema.BYTES) == data
    assert SchemaProjector.project(Schema.STRING, "abc", Schema.STRING) == "abc"
    assert SchemaProjector.project(Schema.BOOLEAN, False, Schema.OPTIONAL_BOOLEAN) is False
    assert SchemaProjector.project(Schema.BYTES, data, Schema.OPTIONAL_BYTES) == data
    assert SchemaProjector.project(Schema.STRING, "abc", Schema.OPTIONAL_STRING) == "abc"
    for source, value, target in (
        (Schema.OPTIONAL_BOOLEAN, False, Schema.BOOLEAN),
        (Schema.OPTIONAL_BYTES, data, Schema.BYTES),
        (Schema.OPTIONAL_STRING, "abc", Schema.STRING),
    ):
        with pytest.raises(DataError):
            SchemaProjector.project(source, value, target)


def test_test_numeric_type_projection() -> None:
    values: list[Any] = [127, 255, 32767, 327890, 1.2, 1.2345]
    expected: list[list[Any]] = [
        [127, 127, 127, 127, 127.0, 127.0],
        [255, 255, 255, 255.0, 255.0],
        [32767, 32767, 32767.0, 32767.0],
        [327890, 327890.0, 327890.0],
        [1.2, 1.2],
        [1.2345],
    ]
    for i, source in enumerate(PROMOTABLE):
        for targets in (PROMOTABLE, PROMOTABLE_OPTIONAL):
            for j in range(i, len(targets)):
                promoted = SchemaProjector.project(source, values[i], targets[j])
                if targets[j].type is Type.FLOAT64:
                    assert promoted == pytest.approx(expected[i][j - i], abs=1e-6)
                else:
                    assert promoted == expected[i][j - i]
                    assert type(promoted) is type(expected[i][j - i])
    for source in PROMOTABLE:
        for target in (Schema.BOOLEAN, Schema.BYTES, Schema.STRING):
            with pytest.raises(DataError):
                SchemaProjector.project(source, object(), target)


_OPTIONAL_CASES: list[tuple[Schema, Type, Any, Any, Any]] = [
    (Schema.OPTIONAL_BOOLEAN, Type.BOOLEAN, False, True, False),
    (Schema.OPTIONAL_BYTES, Type.BYTES, b"\x01\x02", b"\x03\x04", b"\x01\x02"),
    (Schema.OPTIONAL_STRING, Type.STRING, "abc", "def", "abc"),
    (Schema.OPTIONAL_INT8, Type.INT8, 12, 127, 12),
    (Schema.OPTIONAL_INT8, Type.INT16, 12, 127, 12),
    (Schema.OPTIONAL_INT8, Type.INT32, 12, 12789, 12),
    (Schema.OPTIONAL_INT8, Type.INT64, 12, 127890, 12),
    (Schema.OPTIONAL_INT8, Type.FLOAT32, 12, 3.45, 12.0),
    (Schema.OPTIONAL_INT8, Type.FLOAT64, 12, 3.4567, 12.0),
    (Schema.OPTIONAL_INT16, Type.INT16, 12, 127, 12),
    (Schema.OPTIONAL_INT16, Type.INT32, 12, 12789, 12),
    (Schema.OPTIONAL_INT16, Type.INT64, 12, 127890, 12),
    (Schema.OPTIONAL_INT16, Type.FLOAT32, 12, 3.45, 12.0),
    (Schema.OPTIONAL_INT16, Type.FLOAT64, 12, 3.4567, 12.0),
    (Schema.OPTIONAL_INT32, Type.INT32, 12, 12789, 12),
    (Schema.OPTIONAL_INT32, Type.INT64, 12, 127890, 12),
    (Schema.OPTIONAL_INT32, Type.FLOAT32, 12, 3.45, 12.0),
    (Schema.OPTIONAL_INT32, Type.FLOAT64, 12, 3.4567, 12.0),
    (Schema.OPTIONAL_INT64, Type.INT64, 12, 127890, 12),
    (Schema.OPTIONAL_INT64, Type.FLOAT32, 12, 3.45, 12.0),
    (Schema.OPTIONAL_INT64, Type.FLOAT64, 12, 3.4567, 12.0),
    (Schema.OPTIONAL_FLOAT32, Type.FLOAT32, 12.345, 3.45, 12.345),
    (Schema.OPTIONAL_FLOAT32, Type.FLOAT64, 12.345, 3.4567, 12.345),
]


def test_test_primitive_optional_projection() -> None:
    for source, target_type, value, default, expected in _OPTIONAL_CASES:
        for optional in (True, False):
            builder = SchemaBuilder.type(target_type)
            if optional:
                builder.optional()
            target = builder.default_value(default).build()
            projected = SchemaProjector.project(source, value, target)
            if target_type is Type.FLOAT64:
                assert projected == pytest.approx(expected, abs=1e-6)
            else:
                assert projected == expected
            projected = SchemaProjector.project(source, None, target)
            assert projected == (None if optional else default)


def test_test_struct_add_field() -> None:
    source = SchemaBuilder.struct().field("field", Schema.INT32).build()
    source_struct = Struct(source).put("field", 1)
    target = (
        SchemaBuilder.struct()
        .field("field", Schema.INT32)
        .field("field2", SchemaBuilder.int32().default_value(123).build())
        .build()
    )
    projected = SchemaProjector.project(source, source_struct, target)
    assert projected.get("field") == 1
    assert projected.get("field2") == 123
    incompatible = (
        SchemaBuilder.struct().field("field", Schema.INT32).field("field2", Schema.INT32).build()
    )
    with pytest.raises(DataError):
        SchemaProjector.project(source, source_struct, incompatible)


def test_test_struct_remove_field() -> None:
    source = (
        SchemaBuilder.struct().field("field", Schema.INT32).field("field2", Schema.INT32).build()
    )
    source_struct = Struct(source).put("field", 1).put("field2", 234)
    target = SchemaBuilder.struct().field("field", Schema.INT32).build()
    projected = SchemaProjector.project(source, source_struct, target)
    assert projected.get("field") == 1
    with pytest.raises(DataError):
        projected.get("field2")


def test_test_struct_default_value() -> None:
    source = (
        SchemaBuilder.struct()
        .optional()
        .field("field", Schema.INT32)
        .field("field2", Schema.INT32)
        .build()
    )
    builder = SchemaBuilder.struct().field("field", Schema.INT32).field("field2", Schema.INT32)
    default_struct = Struct(builder).put("field", 12).put("field2", 345)
    builder.default_value(default_struct)
    target = builder.build()
    assert SchemaProjector.project(source, None, target) == default_struct
    source_struct = Struct(source).put("field", 45).put("field2", 678)
    projected = SchemaProjector.project(source, source_struct, target)
    assert projected.get("field") == source_struct.get("field")
    assert projected.get("field2") == source_struct.get("field2")


def test_test_nested_schema_projection() -> None:
    source_flat = SchemaBuilder.struct().field("field", Schema.INT32).build()
    target_flat = (
        SchemaBuilder.struct()
        .field("field", Schema.INT32)
        .field("field2", SchemaBuilder.int32().default_value(123).build())
        .build()
    )

    def nested(flat: Schema) -> Schema:
        return (
            SchemaBuilder.struct()
            .field("first", Schema.INT32)
            .field("second", Schema.STRING)
            .field("array", SchemaBuilder.array(Schema.INT32).build())
            .field("map", SchemaBuilder.map(Schema.INT32, Schema.STRING).build())
            .field("nested", flat)
            .build()
        )

    source_nested, target_nested = nested(source_flat), nested(target_flat)
    value = (
        Struct(source_nested)
        .put("first", 1)
        .put("second", "abc")
        .put("array", [1, 2])
        .put("map", {5: "def"})
        .put("nested", Struct(source_flat).put("field", 113))
    )
    projected = SchemaProjector.project(source_nested, value, target_nested)
    assert projected.get("first") == 1
    assert projected.get("second") == "abc"
    assert projected.get("array") == [1, 2]
    assert projected.get("map") == {5: "def"}
    assert projected.get("nested").get("field") == 113
    assert projected.get("nested").get("field2") == 123


def test_test_logical_type_projection() -> None:
    value = decimal.Decimal("1.56")
    assert SchemaProjector.project(Decimal.schema(2), value, Decimal.schema(2)) == value
    assert SchemaProjector.project(Date.SCHEMA, 1000, Date.SCHEMA) == 1000
    assert SchemaProjector.project(Time.SCHEMA, 231, Time.SCHEMA) == 231
    assert SchemaProjector.project(Timestamp.SCHEMA, 34567, Timestamp.SCHEMA) == 34567
    now = dt.datetime(2024, 5, 17, 13, 45, tzinfo=UTC)
    assert SchemaProjector.project(Date.SCHEMA, now.date(), Date.SCHEMA) == now.date()
    assert SchemaProjector.project(Time.SCHEMA, now.timetz(), Time.SCHEMA) == now.timetz()
    assert SchemaProjector.project(Timestamp.SCHEMA, now, Timestamp.SCHEMA) == now
    named = SchemaBuilder.int32().name("invalidLogicalTypeName").build()
    for logical in (Decimal.schema(2), Date.SCHEMA, Time.SCHEMA, Timestamp.SCHEMA):
        for source, target in (
            (logical, Schema.BOOLEAN),
            (logical, named),
            (Schema.BOOLEAN, logical),
        ):
            with pytest.raises(SchemaProjectorError):
                SchemaProjector.project(source, None, target)


def test_test_array_projection() -> None:
    source = SchemaBuilder.array(Schema.INT32).build()
    assert SchemaProjector.project(source, [1, 2, 3], source) == [1, 2, 3]
    optional_source = SchemaBuilder.array(Schema.INT32).optional().build()
    target = SchemaBuilder.array(Schema.INT32).default_value([1, 2, 3]).build()
    assert SchemaProjector.project(optional_source, [4, 5], target) == [4, 5]
    assert SchemaProjector.project(optional_source, None, target) == [1, 2, 3]
    promoted = SchemaBuilder.array(Schema.INT64).default_value([1, 2, 3]).build()
    assert SchemaProjector.project(optional_source, [4, 5], promoted) == [4, 5]
    assert SchemaProjector.project(optional_source, None, promoted) == [1, 2, 3]
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(optional_source, None, SchemaBuilder.array(Schema.INT32).build())
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(optional_source, None, SchemaBuilder.array(Schema.BOOLEAN).build())


def test_test_map_projection() -> None:
    source = SchemaBuilder.map(Schema.INT32, Schema.INT32).optional().build()
    target = SchemaBuilder.map(Schema.INT32, Schema.INT32).default_value({1: 2}).build()
    assert SchemaProjector.project(source, {3: 4}, target) == {3: 4}
    assert SchemaProjector.project(source, None, target) == {1: 2}
    promoted = SchemaBuilder.map(Schema.INT64, Schema.FLOAT32).default_value({3: 4.5}).build()
    projected = SchemaProjector.project(source, {3: 4}, promoted)
    assert projected == {3: 4.0}
    assert type(projected[3]) is float
    assert SchemaProjector.project(source, None, promoted) == {3: 4.5}
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(source, None, SchemaBuilder.map(Schema.INT32, Schema.INT32).build())
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(
            source, None, SchemaBuilder.map(Schema.BOOLEAN, Schema.STRING).build()
        )


def test_test_maybe_compatible() -> None:
    source = SchemaBuilder.int32().name("source").build()
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(source, 12, SchemaBuilder.int32().name("target").build())
    with_parameters = SchemaBuilder.int32().parameters({"key": "value"}).build()
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(source, 34, with_parameters)


def test_test_project_missing_default_valued_struct_field() -> None:
    source = SchemaBuilder.struct().build()
    target = (
        SchemaBuilder.struct().field("id", SchemaBuilder.int64().default_value(42).build()).build()
    )
    assert SchemaProjector.project(source, Struct(source), target).get("id") == 42


def test_test_project_missing_optional_struct_field() -> None:
    source = SchemaBuilder.struct().build()
    target = SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT64).build()
    assert SchemaProjector.project(source, Struct(source), target).get("id") is None


def test_test_project_missing_required_field() -> None:
    source = SchemaBuilder.struct().build()
    target = SchemaBuilder.struct().field("id", Schema.INT64).build()
    with pytest.raises(SchemaProjectorError):
        SchemaProjector.project(source, Struct(source), target)
