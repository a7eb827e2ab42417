"""Apache Kafka's ``ConnectHeadersTest`` and ``ConnectHeaderTest``, method by method.

kconnect's ``Headers`` is immutable: where Kafka mutates ``headers``, the case rebinds it
to the returned copy. Java's ``NullPointerException`` cases raise an error here too.
"""

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
    Type,
    Values,
    validate_value,
)

UTC = dt.UTC
KEY = "k1"
OTHER = "other key"
TEN_THOUSAND_DAYS = dt.date(1970, 1, 1) + dt.timedelta(days=10000)
TEN_THOUSAND_MILLIS = dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=10000)


def populate(headers: Headers) -> Headers:
    return (
        headers.add_boolean(KEY, True)
        .add_int(KEY, 0)
        .add_string(OTHER, "other value")
        .add_string(KEY, None)
        .add_string(KEY, "third")
    )


def assert_headers(found: list[Header], expected: list[tuple[str, Schema, Any]]) -> None:
    assert [(h.key, h.schema, h.value) for h in found] == expected


def _key_headers(key: str = KEY) -> list[tuple[str, Schema, Any]]:
    return [
        (key, Schema.BOOLEAN, True),
        (key, Schema.INT32, 0),
        (key, Schema.OPTIONAL_STRING, None),
        (key, Schema.STRING, "third"),
    ]


def test_should_not_allow_null_key() -> None:
    with pytest.raises(DataError):
        Headers().add(None, "value", Schema.STRING)  # type: ignore[arg-type]


def test_should_be_equals() -> None:
    headers, other = Headers(), Headers()
    assert headers == other
    assert hash(headers) == hash(other)
    headers = populate(headers)
    assert headers != other
    assert hash(headers) != hash(other)
    other = populate(other)
    assert headers == other
    assert hash(headers) == hash(other)
    assert headers.add_string("wow", "some value") != other


def test_should_have_to_string() -> None:
    assert repr(Headers())
    assert "third" in repr(populate(Headers()))


def test_should_retain_latest_when_empty() -> None:
    headers = Headers().retain_latest(OTHER).retain_latest(KEY).retain_latest()
    assert not headers


def test_should_add_multiple_headers_with_same_key_and_retain_latest() -> None:
    headers = populate(Headers())
    last = headers.last_with_name(KEY)
    assert last is not None and (last.schema, last.value) == (Schema.STRING, "third")
    assert_headers(headers.all_with_name(KEY), _key_headers())
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])
    headers = headers.retain_latest(OTHER)
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])
    headers = headers.retain_latest(KEY)
    assert_headers(headers.all_with_name(KEY), [(KEY, Schema.STRING, "third")])
    headers = headers.retain_latest()
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])
    assert_headers(headers.all_with_name(KEY), [(KEY, Schema.STRING, "third")])


def test_should_add_headers_with_primitive_values() -> None:
    headers = (
        Headers()
        .add_boolean(KEY, True)
        .add_byte(KEY, 0)
        .add_short(KEY, 0)
        .add_int(KEY, 0)
        .add_long(KEY, 0)
        .add_float(KEY, 1.0)
        .add_double(KEY, 1.0)
        .add_string(KEY, None)
        .add_string(KEY, "third")
    )
    assert len(headers) == 9


def test_should_add_headers_with_null_object_values_with_optional_schema() -> None:
    for key, schema, value in (
        ("k1", Schema.BOOLEAN, True),
        ("k2", Schema.STRING, "hello"),
        ("k3", Schema.OPTIONAL_STRING, None),
    ):
        header = Headers().add(key, value, schema).last_with_name(key)
        assert header is not None
        assert header.schema is schema
        assert header.value is value


@pytest.mark.parametrize(
    ("schema", "value"),
    [(Schema.BOOLEAN, None), (Schema.STRING, None)],
)
def test_should_not_add_headers_with_null_object_values_with_non_optional_schema(
    schema: Schema, value: Any
) -> None:
    with pytest.raises(DataError):
        Headers().add("k1", value, schema)


@pytest.mark.parametrize(
    ("schema", "value"), [(Schema.BOOLEAN, "wrong"), (Schema.OPTIONAL_STRING, 0)]
)
def test_should_not_add_headers_with_object_values_and_mismatched_schema(
    schema: Schema, value: Any
) -> None:
    with pytest.raises(DataError):
        Headers().add("k1", value, schema)


def test_should_remove_all_headers_with_same_key_when_empty() -> None:
    assert Headers().remove(KEY).all_with_name(KEY) == []


def test_should_remove_all_headers_with_same_key() -> None:
    headers = populate(Headers())
    for expected in _key_headers():
        assert Header(*expected) in headers.all_with_name(KEY)
    headers = headers.remove(KEY)
    assert headers.all_with_name(KEY) == []
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])


def test_should_remove_all_headers() -> None:
    headers = populate(Headers())
    headers = Headers()  # Kafka's clear(): an immutable Headers is replaced by an empty one
    assert headers.all_with_name(KEY) == []
    assert headers.all_with_name(OTHER) == []
    assert len(headers) == 0
    assert not headers


def _suffix(header: Header) -> Header:
    return header.rename(header.key + "-suffix")


def _drop_strings(header: Header) -> Header | None:
    return None if header.schema is not None and header.schema.type is Type.STRING else header


def test_should_transform_headers_when_empty() -> None:
    assert not Headers().apply(_suffix)
    assert not Headers().apply(_suffix, KEY)


def test_should_transform_headers() -> None:
    headers = populate(Headers())
    assert len(headers) == 5
    headers = headers.apply(_suffix)
    assert len(headers) == 5
    assert headers.all_with_name(KEY) == []
    assert headers.all_with_name(OTHER) == []
    assert_headers(headers.all_with_name(KEY + "-suffix"), _key_headers(KEY + "-suffix"))
    assert_headers(
        headers.all_with_name(OTHER + "-suffix"),
        [(OTHER + "-suffix", Schema.STRING, "other value")],
    )


def test_should_transform_headers_with_key() -> None:
    headers = populate(Headers()).apply(_suffix, KEY)
    assert len(headers) == 5
    assert headers.all_with_name(KEY) == []
    assert_headers(headers.all_with_name(KEY + "-suffix"), _key_headers(KEY + "-suffix"))
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])


def test_should_transform_and_remove_headers() -> None:
    headers = populate(Headers()).apply(_drop_strings, KEY)
    assert len(headers) == 3
    assert_headers(
        headers.all_with_name(KEY), [(KEY, Schema.BOOLEAN, True), (KEY, Schema.INT32, 0)]
    )
    last = headers.last_with_name(KEY)
    assert last is not None and (last.schema, last.value) == (Schema.INT32, 0)
    assert_headers(headers.all_with_name(OTHER), [(OTHER, Schema.STRING, "other value")])
    headers = headers.apply(_drop_strings)
    assert len(headers) == 2
    assert headers.all_with_name(OTHER) == []


_EMPTY_STRUCT = SchemaBuilder.struct().build()
_FOO_BAR = (
    SchemaBuilder.struct().field("foo", Schema.OPTIONAL_BOOLEAN).field("bar", Schema.STRING).build()
)


def test_should_validate_build_in_types() -> None:
    for schema in (
        Schema.OPTIONAL_BOOLEAN,
        Schema.OPTIONAL_BYTES,
        Schema.OPTIONAL_INT8,
        Schema.OPTIONAL_INT16,
        Schema.OPTIONAL_INT32,
        Schema.OPTIONAL_INT64,
        Schema.OPTIONAL_FLOAT32,
        Schema.OPTIONAL_FLOAT64,
        Schema.OPTIONAL_STRING,
    ):
        validate_value(schema, None)
    for schema, value in (
        (Schema.BOOLEAN, True),
        (Schema.BYTES, b""),
        (Schema.INT8, 0),
        (Schema.INT16, 0),
        (Schema.INT32, 0),
        (Schema.INT64, 0),
        (Schema.FLOAT32, 1.0),
        (Schema.FLOAT64, 1.0),
        (Schema.STRING, "value"),
        (SchemaBuilder.array(Schema.STRING).build(), []),
        (SchemaBuilder.array(Schema.STRING).build(), ["value"]),
        (SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {}),
        (SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {"a": 0}),
        (_EMPTY_STRUCT, Struct(_EMPTY_STRUCT)),
        (_FOO_BAR, Struct(_FOO_BAR).put("foo", True).put("bar", "v")),
    ):
        validate_value(schema, value)
        Headers().add(KEY, value, schema)


def test_should_validate_logical_types() -> None:
    now = dt.datetime(2024, 5, 17, 13, 45, tzinfo=UTC)
    validate_value(Decimal.schema(3), decimal.Decimal(100))
    validate_value(Time.SCHEMA, now.timetz())
    validate_value(Date.SCHEMA, now.date())
    validate_value(Timestamp.SCHEMA, now)


@pytest.mark.parametrize(
    "schema",
    [
        Schema.BOOLEAN,
        Schema.BYTES,
        Schema.INT8,
        Schema.INT16,
        Schema.INT32,
        Schema.INT64,
        Schema.FLOAT32,
        Schema.FLOAT64,
        Schema.STRING,
        SchemaBuilder.array(Schema.STRING).build(),
        SchemaBuilder.map(Schema.STRING, Schema.INT32).build(),
        _EMPTY_STRUCT,
    ],
)
def test_should_not_validate_null_values_with_built_in_types(schema: Schema) -> None:
    with pytest.raises(DataError):
        validate_value(schema, None)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.BOOLEAN, 0),
        (Schema.BYTES, "oops"),
        (Schema.INT8, 1.0),
        (Schema.INT16, 1.0),
        (Schema.INT32, 2**40),  # Java's 0L: a long where an int belongs
        (Schema.INT64, 1.0),
        (Schema.FLOAT32, "1"),  # Java's 1L; Python accepts an int where a float belongs
        (Schema.FLOAT64, "1"),
        (Schema.STRING, True),
        (SchemaBuilder.array(Schema.STRING).build(), "value"),
        (SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), "value"),
        (_EMPTY_STRUCT, []),
    ],
)
def test_should_not_validate_mismatched_values_with_built_in_types(
    schema: Schema, value: Any
) -> None:
    with pytest.raises(DataError):
        validate_value(schema, value)


def test_should_add_date() -> None:
    days = Date.from_logical(Date.SCHEMA, TEN_THOUSAND_DAYS)
    headers = Headers().add_date(KEY, TEN_THOUSAND_DAYS)
    header = headers.last_with_name(KEY)
    assert header is not None
    assert Values.convert_to_integer(header.schema, header.value) == days
    assert Values.convert_to_date(header.schema, header.value) is TEN_THOUSAND_DAYS
    header = headers.add_int(OTHER, days).last_with_name(OTHER)
    assert header is not None
    assert Values.convert_to_integer(header.schema, header.value) == days
    assert Values.convert_to_date(header.schema, header.value) == TEN_THOUSAND_DAYS


def test_should_add_time() -> None:
    value = TEN_THOUSAND_MILLIS.timetz()
    millis = Time.from_logical(Time.SCHEMA, value)
    headers = Headers().add_time(KEY, value)
    header = headers.last_with_name(KEY)
    assert header is not None
    assert Values.convert_to_long(header.schema, header.value) == millis
    assert Values.convert_to_time(header.schema, header.value) is value
    header = headers.add_long(OTHER, millis).last_with_name(OTHER)
    assert header is not None
    assert Values.convert_to_long(header.schema, header.value) == millis
    assert Values.convert_to_time(header.schema, header.value) == value


def test_should_add_timestamp() -> None:
    millis = Timestamp.from_logical(Timestamp.SCHEMA, TEN_THOUSAND_MILLIS)
    headers = Headers().add_timestamp(KEY, TEN_THOUSAND_MILLIS)
    header = headers.last_with_name(KEY)
    assert header is not None
    assert Values.convert_to_long(header.schema, header.value) == millis
    assert Values.convert_to_timestamp(header.schema, header.value) is TEN_THOUSAND_MILLIS
    header = headers.add_long(OTHER, millis).last_with_name(OTHER)
    assert header is not None
    assert Values.convert_to_long(header.schema, header.value) == millis
    assert Values.convert_to_timestamp(header.schema, header.value) == TEN_THOUSAND_MILLIS


def test_should_add_decimal() -> None:
    value = decimal.Decimal("3.038573478e+3")
    header = Headers().add_decimal(KEY, value).last_with_name(KEY)
    assert header is not None
    assert Values.convert_to_double(header.schema, header.value) == pytest.approx(
        float(value), abs=0.00001
    )
    assert Values.convert_to_decimal(header.schema, header.value, 6) == value
    truncated = value.quantize(decimal.Decimal("0.001"), rounding=decimal.ROUND_DOWN)
    converted = Values.convert_to_decimal(header.schema, header.value, 3)
    assert converted.quantize(decimal.Decimal("0.001"), rounding=decimal.ROUND_DOWN) == truncated


def test_should_duplicate_and_always_return_equivalent_but_different_object() -> None:
    headers = Headers()
    assert headers.duplicate() == headers
    assert headers.duplicate() is not headers


def test_should_not_allow_to_add_null_header() -> None:
    with pytest.raises(TypeError):
        Headers().add_all([None])  # type: ignore[list-item]


def test_should_throw_npe_when_adding_collection_with_null_header() -> None:
    with pytest.raises(TypeError):
        Headers([None])  # type: ignore[list-item]


# -- ConnectHeaderTest ---------------------------------------------------------------------


def test_should_allow_null_values() -> None:
    Headers().add("key", None, Schema.OPTIONAL_STRING)


def test_should_allow_null_schema() -> None:
    header = Headers().add("key", None).last_with_name("key")
    assert header is not None and header.schema is None and header.value is None
    value = "non-null value"
    header = Headers().add("key", value).last_with_name("key")
    assert header is not None and header.schema is None and header.value is value


def test_should_allow_non_null_value() -> None:
    header = Headers().add("key", "non-null value", Schema.STRING).last_with_name("key")
    assert header is not None and header.schema is Schema.STRING
    header = Headers().add("key", True, Schema.BOOLEAN).last_with_name("key")
    assert header is not None and (header.schema, header.value) == (Schema.BOOLEAN, True)


def test_should_get_schema_from_struct() -> None:
    schema = SchemaBuilder.struct().field("foo", Schema.STRING).field("bar", Schema.INT32).build()
    value = Struct(schema).put("foo", "value").put("bar", 100)
    header = Headers().add("key", value).last_with_name("key")
    assert header is not None
    assert header.schema is schema
    assert header.value is value


def test_should_satisfy_equals() -> None:
    h1 = Header("key", Schema.STRING, "non-null value")
    h2 = Header("key", Schema.STRING, "non-null value")
    assert h1 == h2
    assert hash(h1) == hash(h2)
    assert Header("key", Schema.INT8, 100) != h2
