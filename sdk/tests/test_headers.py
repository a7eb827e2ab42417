"""Typed header adders."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Header,
    Headers,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)

UTC = dt.UTC
_ARRAY = SchemaBuilder.array(Schema.STRING).build()
_MAP = SchemaBuilder.map(Schema.STRING, Schema.INT32).build()
_STRUCT = Struct(SchemaBuilder.struct().field("a", Schema.INT32).build()).put("a", 1)


@pytest.mark.parametrize(
    ("method", "args", "schema"),
    [
        # As Kafka: the required schema for a value, the optional one for null
        ("add_string", ("v",), Schema.STRING),
        ("add_string", (None,), Schema.OPTIONAL_STRING),
        ("add_bytes", (None,), Schema.OPTIONAL_BYTES),
        ("add_boolean", (True,), Schema.BOOLEAN),
        ("add_byte", (-128,), Schema.INT8),
        ("add_short", (300,), Schema.INT16),
        ("add_int", (2**31 - 1,), Schema.INT32),
        ("add_long", (2**40,), Schema.INT64),
        ("add_float", (1.5,), Schema.FLOAT32),
        ("add_double", (1.5,), Schema.FLOAT64),
        ("add_bytes", (b"\x01",), Schema.BYTES),
        ("add_list", (["a"], _ARRAY), _ARRAY),
        ("add_map", ({"a": 1}, _MAP), _MAP),
        ("add_struct", (_STRUCT,), _STRUCT.schema),
        ("add_decimal", (decimal.Decimal("1.28"),), Decimal.schema(2)),
        ("add_date", (dt.date(2024, 1, 1),), Date.SCHEMA),
        ("add_time", (dt.time(1, 2, tzinfo=UTC),), Time.SCHEMA),
        ("add_timestamp", (dt.datetime(2024, 1, 1, tzinfo=UTC),), Timestamp.SCHEMA),
    ],
)
def test_typed_adders_set_the_schema_and_return_new_headers(
    method: str, args: tuple[Any, ...], schema: Schema
) -> None:
    original = Headers().add("first", "x")
    added = getattr(original, method)("k", *args)
    assert len(original) == 1  # the original is untouched
    header = added.last_with_name("k")
    assert header is not None
    assert header.schema == schema
    assert header.value == args[0]
    assert [h.key for h in added] == ["first", "k"]


@pytest.mark.parametrize(
    ("method", "value", "message"),
    [
        ("add_byte", 128, "header 'k'.*out of range for int8"),
        ("add_int", "1", "header 'k'.*expected int32, got str"),
        ("add_boolean", None, "header 'k'.*null used for required field"),
        ("add_struct", {"a": 1}, "header 'k': add_struct needs a Struct"),
    ],
)
def test_typed_adders_refuse_values_that_do_not_fit(method: str, value: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        getattr(Headers(), method)("k", value)


def test_add_list_checks_elements_against_the_schema() -> None:
    with pytest.raises(DataError, match=r"'\[1\]'"):
        Headers().add_list("k", ["a", 2], _ARRAY)


def test_a_struct_header_without_a_schema_has_the_structs_own() -> None:
    # Kafka's ConnectHeader.schema(): a Struct value given no schema reports its own.
    schema = SchemaBuilder.struct().field("foo", Schema.STRING).build()
    value = Struct(schema).put("foo", "x")
    headers = Headers([("a", None, value)]).add_all([Header("b", None, value)])
    assert [h.schema for h in headers] == [schema, schema]
    assert [h.schema for h in Headers([("c", None, "text")])] == [None]
