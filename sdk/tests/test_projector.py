"""SchemaProjector: Kafka's promotions, default filling and refusals."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import (
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaProjector,
    SchemaProjectorError,
    Struct,
)


@pytest.mark.parametrize(
    ("source", "value", "target", "expected"),
    [
        (Schema.INT8, 5, Schema.INT16, 5),
        (Schema.INT8, -5, Schema.INT64, -5),
        (Schema.INT16, 300, Schema.INT32, 300),
        (Schema.INT32, 7, Schema.FLOAT32, 7.0),
        (Schema.INT64, 2**40, Schema.FLOAT64, float(2**40)),
        (Schema.FLOAT32, 1.5, Schema.FLOAT64, 1.5),
        (Schema.STRING, "same", Schema.STRING, "same"),
        (Schema.OPTIONAL_INT32, None, Schema.OPTIONAL_INT64, None),
        (Schema.OPTIONAL_INT32, None, SchemaBuilder.int32().default_value(9).build(), 9),
        (Schema.OPTIONAL_INT32, 3, SchemaBuilder.int64().default_value(9).build(), 3),
        (
            SchemaBuilder.array(Schema.INT8).build(),
            [1, 2],
            SchemaBuilder.array(Schema.FLOAT64).build(),
            [1.0, 2.0],
        ),
        (
            SchemaBuilder.map(Schema.STRING, Schema.INT16).build(),
            {"a": 1},
            SchemaBuilder.map(Schema.STRING, Schema.INT64).build(),
            {"a": 1},
        ),
    ],
)
def test_projection_widens_numbers(
    source: Schema, value: Any, target: Schema, expected: Any
) -> None:
    result = SchemaProjector.project(source, value, target)
    assert result == expected
    assert type(result) is type(expected)
    if isinstance(expected, list):
        assert all(type(r) is type(e) for r, e in zip(result, expected, strict=True))


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        (Schema.INT64, Schema.INT32, "source type int64 cannot be projected to target type int32"),
        (Schema.FLOAT64, Schema.FLOAT32, "float64 cannot be projected"),
        (Schema.STRING, Schema.INT32, "string cannot be projected"),
        (Schema.INT32, Schema.STRING, "int32 cannot be projected"),
        (Schema.INT32, Date.SCHEMA, "name mismatch"),
        (Decimal.schema(2), Decimal.schema(3), "parameters differ"),
        (Schema.OPTIONAL_INT32, Schema.INT32, "has no default value"),
    ],
)
def test_projection_refusals(source: Schema, target: Schema, message: str) -> None:
    with pytest.raises(SchemaProjectorError, match=message):
        SchemaProjector.project(source, 1, target)


def test_struct_projection_fills_defaults_and_drops_unknown_fields() -> None:
    source = (
        SchemaBuilder.struct()
        .name("Order")
        .field("id", Schema.INT8)
        .field("dropped", Schema.STRING)
        .build()
    )
    target = (
        SchemaBuilder.struct()
        .name("Order")
        .field("id", Schema.INT64)
        .field("note", Schema.OPTIONAL_STRING)
        .field("qty", SchemaBuilder.int32().default_value(1))
        .build()
    )
    projected = SchemaProjector.project(
        source, Struct(source).put("id", 7).put("dropped", "x"), target
    )
    assert projected.schema is target
    assert projected.to_dict() == {"id": 7, "note": None, "qty": 1}


def test_struct_projection_refuses_a_missing_required_field() -> None:
    source = SchemaBuilder.struct().field("id", Schema.INT8).build()
    target = SchemaBuilder.struct().field("id", Schema.INT8).field("sku", Schema.STRING).build()
    with pytest.raises(SchemaProjectorError, match="required field 'sku' is missing"):
        SchemaProjector.project(source, Struct(source).put("id", 1), target)
