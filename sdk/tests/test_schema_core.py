"""The data model core: builder refusals, logical encodings, validation paths."""

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
    SchemaBuilderError,
    Struct,
    Time,
    Timestamp,
    validate_value,
)

UTC = dt.UTC


@pytest.mark.parametrize(
    ("build", "message"),
    [
        # (setting a property again to the same value is allowed, as in Kafka)
        (lambda: SchemaBuilder.int8().optional().required(), "optionality has already been set"),
        (lambda: SchemaBuilder.string().name("a").name("b"), "name has already been set to 'a'"),
        (lambda: SchemaBuilder.string().version(1).version(2), "version has already been set"),
        (lambda: SchemaBuilder.string().doc("a").doc("b"), "doc has already been set"),
        (
            lambda: SchemaBuilder.int8().default_value(1).default_value(2),
            "default value has already been set",
        ),
        (
            lambda: SchemaBuilder.struct().field("a", Schema.INT8).field("a", Schema.STRING),
            "field name duplication a",
        ),
        (
            lambda: SchemaBuilder.int32().field("a", Schema.INT8),
            "cannot add field 'a' to a non-struct",
        ),
        (lambda: SchemaBuilder.struct().field("", Schema.INT8), "field names cannot be empty"),
        (lambda: SchemaBuilder.int8().default_value(300), "Invalid default value"),
        (lambda: SchemaBuilder.string().default_value(5), "Invalid default value"),
    ],
)
def test_schema_builder_refusals(build: Any, message: str) -> None:
    with pytest.raises(SchemaBuilderError, match=message):
        build()


@pytest.mark.parametrize(
    ("value", "scale", "encoded"),
    [
        # unscaled 128 needs a leading zero byte to stay positive in two's complement
        (decimal.Decimal("1.28"), 2, b"\x00\x80"),
        (decimal.Decimal("1.27"), 2, b"\x7f"),
        (decimal.Decimal("-1.28"), 2, b"\x80"),
        (decimal.Decimal("-1.29"), 2, b"\xff\x7f"),
        (decimal.Decimal("0"), 0, b"\x00"),
        (decimal.Decimal("-1"), 0, b"\xff"),
        (decimal.Decimal("655.36"), 2, b"\x01\x00\x00"),
    ],
)
def test_decimal_encoding(value: decimal.Decimal, scale: int, encoded: bytes) -> None:
    schema = Decimal.schema(scale)
    assert Decimal.from_logical(schema, value) == encoded
    assert Decimal.to_logical(schema, encoded) == value


def test_decimal_refuses_a_scale_that_differs_from_the_schema() -> None:
    with pytest.raises(DataError, match="has scale 1, schema expects scale 2"):
        Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.5"))


@pytest.mark.parametrize(
    ("logical", "schema", "value", "encoded"),
    [
        # 54 years since 1970 with 13 leap days: 54 * 365 + 13
        (Date, Date.SCHEMA, dt.date(2024, 1, 1), 19723),
        (Date, Date.SCHEMA, dt.date(1969, 12, 31), -1),
        # ((12 * 60 + 34) * 60 + 56) * 1000 + 789
        (Time, Time.SCHEMA, dt.time(12, 34, 56, 789000, tzinfo=UTC), 45296789),
        (Timestamp, Timestamp.SCHEMA, dt.datetime(2024, 1, 1, tzinfo=UTC), 19723 * 86_400_000),
        (Timestamp, Timestamp.SCHEMA, dt.datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=UTC), 1),
    ],
)
def test_temporal_encodings(logical: Any, schema: Schema, value: Any, encoded: int) -> None:
    assert logical.from_logical(schema, value) == encoded
    assert logical.to_logical(schema, encoded) == value


def test_logical_schemas_carry_kafkas_names() -> None:
    assert Date.SCHEMA.name == "org.apache.kafka.connect.data.Date"
    assert Decimal.schema(2).parameters == {"scale": "2"}
    assert Timestamp.SCHEMA.version == 1


def _order_schema() -> Schema:
    item = SchemaBuilder.struct().name("Item").field("price", Schema.FLOAT64).build()
    return (
        SchemaBuilder.struct()
        .name("Order")
        .field("id", Schema.INT64)
        .field("items", SchemaBuilder.array(item).build())
        .build()
    )


def test_validation_errors_name_the_field_path() -> None:
    schema = _order_schema()
    item_schema = schema.field("items").schema.value_schema  # type: ignore[union-attr]
    assert item_schema is not None
    incomplete = Struct(item_schema)  # price never set
    order = Struct(schema).put("id", 1)
    with pytest.raises(
        DataError, match=r'required field: "items\[1\].price", schema type: FLOAT64'
    ):
        order.put("items", [Struct(item_schema).put("price", 1.0), incomplete])
    with pytest.raises(DataError, match=r'field: "order\.id"'):
        validate_value(schema, Struct(schema), path="order")


def test_struct_put_names_the_field_and_types() -> None:
    order = Struct(_order_schema())
    with pytest.raises(DataError, match=r"at 'id': expected int64, got str"):
        order.put("id", "1")
    with pytest.raises(
        DataError, match="'nope' is not a valid field name; the schema has: id, items"
    ):
        order.put("nope", 1)


def test_struct_validate_reports_missing_required_fields() -> None:
    with pytest.raises(DataError, match='null used for required field: "id", schema type: INT64'):
        Struct(_order_schema()).validate()


def test_replace_changes_only_what_is_named_and_validates_again() -> None:
    from kconnect_sdk import Schema, SchemaBuilder, SchemaBuilderError

    base = (
        SchemaBuilder.struct()
        .name("com.example.Row")
        .version(2)
        .doc("a row")
        .parameter("k", "v")
        .field("id", Schema.INT32)
        .build()
    )
    optional = base.replace(optional=True)
    assert optional.optional and not base.optional
    assert (optional.name, optional.version, optional.doc, dict(optional.parameters)) == (
        "com.example.Row",
        2,
        "a row",
        {"k": "v"},
    )
    assert optional.fields == base.fields
    assert optional.replace(optional=False) == base
    assert dict(base.replace(parameters={"x": "y"}).parameters) == {"x": "y"}
    with pytest.raises(SchemaBuilderError):
        Schema.INT32.replace(default="not a number")
    with pytest.raises(TypeError, match="unknown properties"):
        base.replace(colour="red")
