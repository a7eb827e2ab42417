"""Apache Kafka's ``JsonConverterTest``, method by method.

One case per Java test method, named after it (``numberWithLeadingZerosToConnect`` ->
``test_number_with_leading_zeros_to_connect``), with the same inputs and the same expected
values, schema JSON and errors. Expected values are stated here as data, read from Kafka's
test; nothing expected is produced by our own converter. Where kconnect differs from
Kafka on purpose, the case asserts kconnect's behaviour and says why (see the README's
differences section).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)

TOPIC = "topic"
UTC = dt.UTC
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
DECIMAL = "org.apache.kafka.connect.data.Decimal"


@pytest.fixture
def converter() -> JsonConverter:
    conv = JsonConverter()
    conv.configure({}, False)
    return conv


def _configured(config: dict[str, Any], is_key: bool = False) -> JsonConverter:
    conv = JsonConverter()
    conv.configure(config, is_key)
    return conv


def parse(data: bytes | None) -> Any:
    """Parse JSON as Kafka's test does: exact decimals (USE_BIG_DECIMAL_FOR_FLOATS)."""
    assert data is not None
    return json.loads(data, parse_float=decimal.Decimal)


def envelope(data: bytes | None) -> tuple[Any, Any]:
    """The schema and payload of an envelope, checking its shape as validateEnvelope does."""
    node = parse(data)
    assert isinstance(node, dict)
    assert set(node) == {"schema", "payload"}
    return node["schema"], node["payload"]


def to_connect(conv: JsonConverter, text: str) -> SchemaAndValue:
    return conv.to_connect_data(TOPIC, text.encode())


# -- schema metadata ---------------------------------------------------------------------


def test_test_connect_schema_metadata_translation(converter: JsonConverter) -> None:
    assert to_connect(
        converter, '{ "schema": { "type": "boolean" }, "payload": true }'
    ) == SchemaAndValue(Schema.BOOLEAN, True)
    assert to_connect(
        converter, '{ "schema": { "type": "boolean", "optional": true }, "payload": null }'
    ) == SchemaAndValue(Schema.OPTIONAL_BOOLEAN, None)
    assert to_connect(
        converter, '{ "schema": { "type": "boolean", "default": true }, "payload": null }'
    ) == SchemaAndValue(SchemaBuilder.boolean().default_value(True).build(), True)
    expected = (
        SchemaBuilder.boolean()
        .required()
        .name("bool")
        .version(2)
        .doc("the documentation")
        .parameter("foo", "bar")
        .build()
    )
    assert to_connect(
        converter,
        '{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, '
        '"doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }',
    ) == SchemaAndValue(expected, True)


# -- JSON -> Connect, per type -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "boolean_to_connect",
            '{ "schema": { "type": "boolean" }, "payload": false }',
            SchemaAndValue(Schema.BOOLEAN, False),
        ),
        (
            "byte_to_connect",
            '{ "schema": { "type": "int8" }, "payload": 12 }',
            SchemaAndValue(Schema.INT8, 12),
        ),
        (
            "short_to_connect",
            '{ "schema": { "type": "int16" }, "payload": 12 }',
            SchemaAndValue(Schema.INT16, 12),
        ),
        (
            "int_to_connect",
            '{ "schema": { "type": "int32" }, "payload": 12 }',
            SchemaAndValue(Schema.INT32, 12),
        ),
        (
            "long_to_connect",
            '{ "schema": { "type": "int64" }, "payload": 4398046511104 }',
            SchemaAndValue(Schema.INT64, 4398046511104),
        ),
        (
            "double_to_connect",
            '{ "schema": { "type": "double" }, "payload": 12.34 }',
            SchemaAndValue(Schema.FLOAT64, 12.34),
        ),
        (
            "string_to_connect",
            '{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }',
            SchemaAndValue(Schema.STRING, "foo-bar-baz"),
        ),
        (
            "array_to_connect",
            '{ "schema": { "type": "array", "items": { "type" : "int32" } }, "payload": [1, 2, 3] }',
            SchemaAndValue(SchemaBuilder.array(Schema.INT32).build(), [1, 2, 3]),
        ),
        (
            "map_to_connect_string_keys",
            '{ "schema": { "type": "map", "keys": { "type" : "string" }, "values": { "type" : '
            '"int32" } }, "payload": { "key1": 12, "key2": 15} }',
            SchemaAndValue(
                SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {"key1": 12, "key2": 15}
            ),
        ),
        (
            "map_to_connect_non_string_keys",
            '{ "schema": { "type": "map", "keys": { "type" : "int32" }, "values": { "type" : '
            '"int32" } }, "payload": [ [1, 12], [2, 15] ] }',
            SchemaAndValue(SchemaBuilder.map(Schema.INT32, Schema.INT32).build(), {1: 12, 2: 15}),
        ),
    ],
)
def test_primitive_and_container_to_connect(
    converter: JsonConverter, name: str, text: str, expected: SchemaAndValue
) -> None:
    # booleanToConnect, byteToConnect, shortToConnect, intToConnect, longToConnect,
    # doubleToConnect, stringToConnect, arrayToConnect, mapToConnect{String,NonString}Keys
    assert to_connect(converter, text) == expected


def test_boolean_to_connect(converter: JsonConverter) -> None:
    assert to_connect(
        converter, '{ "schema": { "type": "boolean" }, "payload": true }'
    ) == SchemaAndValue(Schema.BOOLEAN, True)
    assert to_connect(
        converter, '{ "schema": { "type": "boolean" }, "payload": false }'
    ) == SchemaAndValue(Schema.BOOLEAN, False)


def test_long_to_connect(converter: JsonConverter) -> None:
    assert to_connect(converter, '{ "schema": { "type": "int64" }, "payload": 12 }') == (
        SchemaAndValue(Schema.INT64, 12)
    )
    assert to_connect(
        converter, '{ "schema": { "type": "int64" }, "payload": 4398046511104 }'
    ) == SchemaAndValue(Schema.INT64, 4398046511104)


def test_number_with_leading_zeros_to_connect(converter: JsonConverter) -> None:
    cases = [
        ("int8", "0012", Schema.INT8, 12),
        ("int16", "000123", Schema.INT16, 123),
        ("int32", "000012345", Schema.INT32, 12345),
        ("int64", "00000123456789", Schema.INT64, 123456789),
    ]
    for type_name, number, schema, value in cases:
        text = f'{{ "schema": {{ "type": "{type_name}" }}, "payload": {number} }}'
        assert to_connect(converter, text) == SchemaAndValue(schema, value)


def test_float_to_connect(converter: JsonConverter) -> None:
    got = to_connect(converter, '{ "schema": { "type": "float" }, "payload": 12.34 }')
    assert got.schema == Schema.FLOAT32
    # Java compares with 12.34f; a Python FLOAT32 value holds the same number as a double.
    assert got.value == pytest.approx(12.34, abs=1e-6)


def test_bytes_to_connect(converter: JsonConverter) -> None:
    got = to_connect(converter, '{ "schema": { "type": "bytes" }, "payload": "dGVzdC1zdHJpbmc=" }')
    assert got.value == b"test-string"


def test_struct_to_connect(converter: JsonConverter) -> None:
    text = (
        '{ "schema": { "type": "struct", "fields": [{ "field": "field1", "type": "boolean" }, '
        '{ "field": "field2", "type": "string" }] }, "payload": { "field1": true, '
        '"field2": "string" } }'
    )
    schema = SchemaBuilder.struct().field("field1", Schema.BOOLEAN).field("field2", Schema.STRING)
    expected_schema = schema.build()
    expected = Struct(expected_schema).put("field1", True).put("field2", "string")
    assert to_connect(converter, text) == SchemaAndValue(expected_schema, expected)


def test_struct_with_optional_field_to_connect(converter: JsonConverter) -> None:
    text = (
        '{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", '
        '"optional": true }, {  "field": "required", "type": "string" }] }, "payload": '
        '{ "required": "required" } }'
    )
    expected_schema = (
        SchemaBuilder.struct()
        .field("optional", Schema.OPTIONAL_STRING)
        .field("required", Schema.STRING)
        .build()
    )
    expected = Struct(expected_schema).put("required", "required")
    assert to_connect(converter, text) == SchemaAndValue(expected_schema, expected)


def test_null_to_connect(converter: JsonConverter) -> None:
    assert converter.to_connect_data(TOPIC, None) == SchemaAndValue(None, None)


def test_empty_bytes_to_connect() -> None:
    conv = _configured({"schemas.enable": False}, is_key=True)
    assert conv.to_connect_data(TOPIC, b"") == SchemaAndValue(None, None)


def test_schemaless_with_empty_field_value_to_connect() -> None:
    conv = _configured({"schemas.enable": False}, is_key=True)
    got = conv.to_connect_data(TOPIC, b'{ "a": "", "b": null}')
    assert got == SchemaAndValue(None, {"a": "", "b": None})


def test_null_schema_primitive_to_connect(converter: JsonConverter) -> None:
    cases: list[tuple[str, Any]] = [
        ("null", None),
        ("true", True),
        ("12", 12),
        ("12.24", 12.24),
        ('"a string"', "a string"),
        ('[1, "2", 3]', [1, "2", 3]),
        ('{ "field1": 1, "field2": 2}', {"field1": 1, "field2": 2}),
    ]
    for payload, value in cases:
        got = to_connect(converter, f'{{ "schema": null, "payload": {payload} }}')
        assert got == SchemaAndValue(None, value)
        assert type(got.value) is type(value)


# -- logical types, JSON -> Connect ----------------------------------------------------

_DEC2 = '"name": "org.apache.kafka.connect.data.Decimal", "version": 1'


def test_decimal_to_connect(converter: JsonConverter) -> None:
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "parameters": {{ "scale": "2" }} }}, '
        '"payload": "AJw=" }'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.schema(2)
    assert got.value == decimal.Decimal("1.56")
    assert got.value.as_tuple().exponent == -2


def test_decimal_to_connect_optional(converter: JsonConverter) -> None:
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "optional": true, "parameters": '
        '{ "scale": "2" } }, "payload": null }'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.builder(2).optional().build()
    assert got.value is None


def test_decimal_to_connect_with_default_value(converter: JsonConverter) -> None:
    reference = decimal.Decimal("1.56")
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "default": "AJw=", "parameters": '
        '{ "scale": "2" } }, "payload": null }'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.builder(2).default_value(reference).build()
    assert got.value == reference


def test_decimal_to_connect_optional_with_default_value(converter: JsonConverter) -> None:
    reference = decimal.Decimal("1.56")
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "optional": true, "default": "AJw=", '
        '"parameters": { "scale": "2" } }, "payload": null }'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.builder(2).optional().default_value(reference).build()
    assert got.value == reference


@pytest.mark.parametrize(
    ("scale", "payload", "expected"),
    [
        (2, "1.56", "1.56"),  # numericDecimalToConnect
        (4, "1.5600", "1.5600"),  # numericDecimalWithTrailingZerosToConnect
        (17, "1.23456789123456789", "1.23456789123456789"),  # highPrecisionNumeric...
    ],
)
def test_numeric_decimal_to_connect(
    converter: JsonConverter, scale: int, payload: str, expected: str
) -> None:
    # numericDecimalToConnect, numericDecimalWithTrailingZerosToConnect,
    # highPrecisionNumericDecimalToConnect: numbers are read exactly, never via a double.
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "parameters": {{ "scale": "{scale}" }} }}, '
        f'"payload": {payload} }}'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.schema(scale)
    assert got.value == decimal.Decimal(expected)
    assert str(got.value) == expected


def test_numeric_decimal_with_trailing_zeros_to_connect(converter: JsonConverter) -> None:
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "parameters": {{ "scale": "4" }} }}, '
        '"payload": 1.5600 }'
    )
    assert str(to_connect(converter, text).value) == "1.5600"


def test_high_precision_numeric_decimal_to_connect(converter: JsonConverter) -> None:
    text = (
        f'{{ "schema": {{ "type": "bytes", {_DEC2}, "parameters": {{ "scale": "17" }} }}, '
        '"payload": 1.23456789123456789 }'
    )
    got = to_connect(converter, text)
    assert got.schema == Decimal.schema(17)
    assert got.value == decimal.Decimal("1.23456789123456789")


def _logical_text(type_name: str, name: str, extra: str, payload: str) -> str:
    return (
        f'{{ "schema": {{ "type": "{type_name}", "name": "org.apache.kafka.connect.data.{name}", '
        f'"version": 1{extra} }}, "payload": {payload} }}'
    )


@pytest.mark.parametrize(
    ("type_name", "name", "extra", "payload", "schema", "value"),
    [
        # dateToConnect: 1970-01-01 plus 10000 days
        (
            "int32",
            "Date",
            "",
            "10000",
            Date.SCHEMA,
            dt.date(1970, 1, 1) + dt.timedelta(days=10000),
        ),
        ("int32", "Date", ', "optional": true', "null", Date.builder().optional().build(), None),
        (
            "int32",
            "Date",
            ', "default": 0',
            "null",
            Date.builder().default_value(dt.date(1970, 1, 1)).build(),
            dt.date(1970, 1, 1),
        ),
        (
            "int32",
            "Date",
            ', "optional": true, "default": 0',
            "null",
            Date.builder().optional().default_value(dt.date(1970, 1, 1)).build(),
            dt.date(1970, 1, 1),
        ),
        # timeToConnect: midnight plus 14400000 ms
        ("int32", "Time", "", "14400000", Time.SCHEMA, dt.time(4, 0, tzinfo=UTC)),
        ("int32", "Time", ', "optional": true', "null", Time.builder().optional().build(), None),
        (
            "int32",
            "Time",
            ', "default": 0',
            "null",
            Time.builder().default_value(dt.time(0, 0, tzinfo=UTC)).build(),
            dt.time(0, 0, tzinfo=UTC),
        ),
        (
            "int32",
            "Time",
            ', "optional": true, "default": 0',
            "null",
            Time.builder().optional().default_value(dt.time(0, 0, tzinfo=UTC)).build(),
            dt.time(0, 0, tzinfo=UTC),
        ),
        # timestampToConnect: the epoch plus 4000000000 ms
        (
            "int64",
            "Timestamp",
            "",
            "4000000000",
            Timestamp.SCHEMA,
            EPOCH + dt.timedelta(milliseconds=4_000_000_000),
        ),
        (
            "int64",
            "Timestamp",
            ', "optional": true',
            "null",
            Timestamp.builder().optional().build(),
            None,
        ),
        (
            "int64",
            "Timestamp",
            ', "default": 42',
            "null",
            Timestamp.builder().default_value(EPOCH + dt.timedelta(milliseconds=42)).build(),
            EPOCH + dt.timedelta(milliseconds=42),
        ),
        (
            "int64",
            "Timestamp",
            ',  "optional": true, "default": 42',
            "null",
            Timestamp.builder()
            .optional()
            .default_value(EPOCH + dt.timedelta(milliseconds=42))
            .build(),
            EPOCH + dt.timedelta(milliseconds=42),
        ),
    ],
    ids=[
        "date_to_connect",
        "date_to_connect_optional",
        "date_to_connect_with_default_value",
        "date_to_connect_optional_with_default_value",
        "time_to_connect",
        "time_to_connect_optional",
        "time_to_connect_with_default_value",
        "time_to_connect_optional_with_default_value",
        "timestamp_to_connect",
        "timestamp_to_connect_optional",
        "timestamp_to_connect_with_default_value",
        "timestamp_to_connect_optional_with_default_value",
    ],
)
def test_temporal_to_connect(
    converter: JsonConverter,
    type_name: str,
    name: str,
    extra: str,
    payload: str,
    schema: Schema,
    value: Any,
) -> None:
    # dateToConnect ... timestampToConnectOptionalWithDefaultValue (12 Java methods)
    got = to_connect(converter, _logical_text(type_name, name, extra, payload))
    assert got.schema == schema
    assert got.value == value


# -- schema metadata and caches ----------------------------------------------------------


def test_test_json_schema_metadata_translation(converter: JsonConverter) -> None:
    schema, payload = envelope(converter.from_connect_data(TOPIC, Schema.BOOLEAN, True))
    assert schema == {"type": "boolean", "optional": False}
    assert payload is True
    schema, payload = envelope(converter.from_connect_data(TOPIC, Schema.OPTIONAL_BOOLEAN, None))
    assert schema == {"type": "boolean", "optional": True}
    assert payload is None
    with_default = SchemaBuilder.boolean().default_value(True).build()
    schema, payload = envelope(converter.from_connect_data(TOPIC, with_default, True))
    assert schema == {"type": "boolean", "optional": False, "default": True}
    assert payload is True
    full = (
        SchemaBuilder.boolean()
        .required()
        .name("bool")
        .version(3)
        .doc("the documentation")
        .parameter("foo", "bar")
        .build()
    )
    schema, payload = envelope(converter.from_connect_data(TOPIC, full, True))
    assert schema == {
        "type": "boolean",
        "optional": False,
        "name": "bool",
        "version": 3,
        "doc": "the documentation",
        "parameters": {"foo": "bar"},
    }
    assert payload is True


def test_test_cache_schema_to_connect_conversion(converter: JsonConverter) -> None:
    assert len(converter._decodings) == 0
    to_connect(converter, '{ "schema": { "type": "boolean" }, "payload": true }')
    assert len(converter._decodings) == 1
    to_connect(converter, '{ "schema": { "type": "boolean" }, "payload": true }')
    assert len(converter._decodings) == 1
    to_connect(converter, '{ "schema": { "type": "boolean", "optional": true }, "payload": true }')
    assert len(converter._decodings) == 2
    # An equivalent schema written differently is a different cache entry, as in Kafka.
    to_connect(converter, '{ "schema": { "type": "boolean", "optional": false }, "payload": true }')
    assert len(converter._decodings) == 3


# -- Connect -> JSON, per type -----------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "value", "schema_json", "payload"),
    [
        (Schema.BOOLEAN, True, {"type": "boolean", "optional": False}, True),
        (Schema.INT8, 12, {"type": "int8", "optional": False}, 12),
        (Schema.INT16, 12, {"type": "int16", "optional": False}, 12),
        (Schema.INT32, 12, {"type": "int32", "optional": False}, 12),
        (Schema.INT64, 4398046511104, {"type": "int64", "optional": False}, 4398046511104),
        (Schema.STRING, "test-string", {"type": "string", "optional": False}, "test-string"),
        (
            SchemaBuilder.array(Schema.INT32).build(),
            [1, 2, 3],
            {"type": "array", "items": {"type": "int32", "optional": False}, "optional": False},
            [1, 2, 3],
        ),
        (
            SchemaBuilder.map(Schema.STRING, Schema.INT32).build(),
            {"key1": 12, "key2": 15},
            {
                "type": "map",
                "keys": {"type": "string", "optional": False},
                "values": {"type": "int32", "optional": False},
                "optional": False,
            },
            {"key1": 12, "key2": 15},
        ),
    ],
    ids=[
        "boolean_to_json",
        "byte_to_json",
        "short_to_json",
        "int_to_json",
        "long_to_json",
        "string_to_json",
        "array_to_json",
        "map_to_json_string_keys",
    ],
)
def test_to_json(
    converter: JsonConverter, schema: Schema, value: Any, schema_json: Any, payload: Any
) -> None:
    # booleanToJson, byteToJson, shortToJson, intToJson, longToJson, stringToJson,
    # arrayToJson, mapToJsonStringKeys
    got_schema, got_payload = envelope(converter.from_connect_data(TOPIC, schema, value))
    assert got_schema == schema_json
    assert got_payload == payload


def test_float_to_json(converter: JsonConverter) -> None:
    schema, payload = envelope(converter.from_connect_data(TOPIC, Schema.FLOAT32, 12.34))
    assert schema == {"type": "float", "optional": False}
    assert float(payload) == pytest.approx(12.34, abs=0.001)


def test_double_to_json(converter: JsonConverter) -> None:
    schema, payload = envelope(converter.from_connect_data(TOPIC, Schema.FLOAT64, 12.34))
    assert schema == {"type": "double", "optional": False}
    assert float(payload) == pytest.approx(12.34, abs=0.001)


def test_bytes_to_json(converter: JsonConverter) -> None:
    schema, payload = envelope(converter.from_connect_data(TOPIC, Schema.BYTES, b"test-string"))
    assert schema == {"type": "bytes", "optional": False}
    assert payload == "dGVzdC1zdHJpbmc="


def test_map_to_json_non_string_keys(converter: JsonConverter) -> None:
    schema = SchemaBuilder.map(Schema.INT32, Schema.INT32).build()
    got_schema, payload = envelope(converter.from_connect_data(TOPIC, schema, {1: 12, 2: 15}))
    assert got_schema == {
        "type": "map",
        "keys": {"type": "int32", "optional": False},
        "values": {"type": "int32", "optional": False},
        "optional": False,
    }
    assert isinstance(payload, list)
    assert sorted(payload) == [[1, 12], [2, 15]]


_FOUR_FIELDS = [
    ("field1", Schema.BOOLEAN),
    ("field2", Schema.STRING),
    ("field3", Schema.STRING),
    ("field4", Schema.BOOLEAN),
]


def _four_field_schema() -> Schema:
    builder = SchemaBuilder.struct()
    for name, field_schema in _FOUR_FIELDS:
        builder.field(name, field_schema)
    return builder.build()


def test_struct_to_json(converter: JsonConverter) -> None:
    schema = _four_field_schema()
    value = (
        Struct(schema)
        .put("field1", True)
        .put("field2", "string2")
        .put("field3", "string3")
        .put("field4", False)
    )
    got_schema, payload = envelope(converter.from_connect_data(TOPIC, schema, value))
    assert got_schema == {
        "type": "struct",
        "optional": False,
        "fields": [
            {"field": "field1", "type": "boolean", "optional": False},
            {"field": "field2", "type": "string", "optional": False},
            {"field": "field3", "type": "string", "optional": False},
            {"field": "field4", "type": "boolean", "optional": False},
        ],
    }
    assert payload == {
        "field1": True,
        "field2": "string2",
        "field3": "string3",
        "field4": False,
    }


def test_struct_schema_identical(converter: JsonConverter) -> None:
    schema = _four_field_schema()
    input_schema = _four_field_schema()
    value = (
        Struct(input_schema)
        .put("field1", True)
        .put("field2", "string2")
        .put("field3", "string3")
        .put("field4", False)
    )
    converter.from_connect_data(TOPIC, schema, value)
    assert schema == value.schema


def test_decimal_to_json(converter: JsonConverter) -> None:
    schema, payload = envelope(
        converter.from_connect_data(TOPIC, Decimal.schema(2), decimal.Decimal("1.56"))
    )
    assert schema == {
        "type": "bytes",
        "optional": False,
        "name": DECIMAL,
        "version": 1,
        "parameters": {"scale": "2"},
    }
    assert payload == "AJw="  # base64 of the bytes 0, -100


def test_decimal_to_numeric_json() -> None:
    conv = _configured({"decimal.format": "NUMERIC"})
    data = conv.from_connect_data(TOPIC, Decimal.schema(2), decimal.Decimal("1.56"))
    schema, payload = envelope(data)
    assert schema["parameters"] == {"scale": "2"}
    assert payload == decimal.Decimal("1.56")
    assert data is not None and data.endswith(b',"payload":1.56}')


def test_decimal_with_trailing_zeros_to_numeric_json() -> None:
    conv = _configured({"decimal.format": "NUMERIC"})
    data = conv.from_connect_data(TOPIC, Decimal.schema(4), decimal.Decimal("1.5600"))
    schema, payload = envelope(data)
    assert schema["parameters"] == {"scale": "4"}
    assert str(payload) == "1.5600"
    assert data is not None and data.endswith(b',"payload":1.5600}')


def test_decimal_to_json_without_schema(converter: JsonConverter) -> None:
    with pytest.raises(DataError):
        converter.from_connect_data(TOPIC, None, decimal.Decimal("1.56"))


def test_date_to_json(converter: JsonConverter) -> None:
    day = dt.date(1970, 1, 1) + dt.timedelta(days=10000)
    schema, payload = envelope(converter.from_connect_data(TOPIC, Date.SCHEMA, day))
    assert schema == {
        "type": "int32",
        "optional": False,
        "name": "org.apache.kafka.connect.data.Date",
        "version": 1,
    }
    assert payload == 10000


def test_time_to_json(converter: JsonConverter) -> None:
    schema, payload = envelope(
        converter.from_connect_data(TOPIC, Time.SCHEMA, dt.time(4, 0, tzinfo=UTC))
    )
    assert schema == {
        "type": "int32",
        "optional": False,
        "name": "org.apache.kafka.connect.data.Time",
        "version": 1,
    }
    assert payload == 14400000


def test_timestamp_to_json(converter: JsonConverter) -> None:
    stamp = EPOCH + dt.timedelta(milliseconds=4_000_000_000)
    schema, payload = envelope(converter.from_connect_data(TOPIC, Timestamp.SCHEMA, stamp))
    assert schema == {
        "type": "int64",
        "optional": False,
        "name": "org.apache.kafka.connect.data.Timestamp",
        "version": 1,
    }
    assert payload == 4000000000


def _null_schema_envelope(data: bytes | None) -> Any:
    node = parse(data)
    assert set(node) == {"schema", "payload"}
    assert node["schema"] is None
    return node["payload"]


def test_null_schema_and_primitive_to_json(converter: JsonConverter) -> None:
    assert _null_schema_envelope(converter.from_connect_data(TOPIC, None, True)) is True


def test_null_schema_and_array_to_json(converter: JsonConverter) -> None:
    payload = _null_schema_envelope(converter.from_connect_data(TOPIC, None, [1, "string", True]))
    assert payload == [1, "string", True]


def test_null_schema_and_map_to_json(converter: JsonConverter) -> None:
    value = {"key1": 12, "key2": "string", "key3": True}
    assert _null_schema_envelope(converter.from_connect_data(TOPIC, None, value)) == value


def test_null_schema_and_map_non_string_keys_to_json(converter: JsonConverter) -> None:
    value: dict[Any, Any] = {"string": 12, 52: "string", False: True}
    payload = _null_schema_envelope(converter.from_connect_data(TOPIC, None, value))
    assert isinstance(payload, list)
    assert len(payload) == 3
    assert {json.dumps(entry) for entry in payload} == {
        '["string", 12]',
        '[52, "string"]',
        "[false, true]",
    }


def test_null_schema_and_null_value_to_json() -> None:
    conv = _configured({"schemas.enable": True}, is_key=True)
    assert conv.from_connect_data(TOPIC, None, None) is None


def test_null_value_to_json() -> None:
    conv = _configured({"schemas.enable": False}, is_key=True)
    assert conv.from_connect_data(TOPIC, None, None) is None


def test_mismatch_schema_json(converter: JsonConverter) -> None:
    with pytest.raises(DataError):
        converter.from_connect_data(TOPIC, Schema.FLOAT64, True)


def test_no_schema_to_connect() -> None:
    conv = _configured({"schemas.enable": False}, is_key=True)
    assert conv.to_connect_data(TOPIC, b"true") == SchemaAndValue(None, True)


def test_no_schema_to_json() -> None:
    conv = _configured({"schemas.enable": False}, is_key=True)
    assert parse(conv.from_connect_data(TOPIC, None, True)) is True


def test_test_cache_schema_to_json_conversion(converter: JsonConverter) -> None:
    assert len(converter._encodings) == 0
    converter.from_connect_data(TOPIC, SchemaBuilder.boolean().build(), True)
    assert len(converter._encodings) == 1
    # An equal schema object of its own reuses the entry.
    converter.from_connect_data(TOPIC, SchemaBuilder.boolean().build(), True)
    assert len(converter._encodings) == 1
    converter.from_connect_data(TOPIC, SchemaBuilder.boolean().optional().build(), True)
    assert len(converter._encodings) == 2


def test_test_json_schema_cache_size_from_config_file() -> None:
    # Kafka's connect-test.properties holds schemas.cache.size=1, read as worker props.
    conv = JsonConverter()
    conv.configure({"schemas.cache.size": "1"}, False)
    assert conv.settings.schemas_cache_size == 1
    conv.from_connect_data(TOPIC, Schema.BOOLEAN, True)
    conv.from_connect_data(TOPIC, Schema.OPTIONAL_BOOLEAN, True)
    assert len(conv._encodings) == 1


def test_test_string_header_to_json(converter: JsonConverter) -> None:
    data = converter.from_connect_header(TOPIC, "headerName", Schema.STRING, "test-string")
    schema, payload = envelope(data)
    assert schema == {"type": "string", "optional": False}
    assert payload == "test-string"


def test_string_header_to_connect(converter: JsonConverter) -> None:
    data = b'{ "schema": { "type": "string" }, "payload": "foo-bar-baz" }'
    assert converter.to_connect_header(TOPIC, "headerName", data) == SchemaAndValue(
        Schema.STRING, "foo-bar-baz"
    )


_OPTIONAL_WITH_DEFAULT = SchemaBuilder.string().optional().default_value("default").build()
_STRUCT_WITH_DEFAULT_FIELD = SchemaBuilder.struct().field("field1", _OPTIONAL_WITH_DEFAULT).build()
_NULL_STRING = '{"schema":{"type":"string","optional":true,"default":"default"},"payload":null}'
_NULL_FIELD = (
    '{"schema":{"type":"struct","fields":[{"field":"field1","type":"string","optional":true,'
    '"default":"default"}],"optional":false},"payload":{"field1":null}}'
)


def test_serialize_null_to_default() -> None:
    conv = _configured({"replace.null.with.default": True})
    assert parse(conv.from_connect_data(TOPIC, _OPTIONAL_WITH_DEFAULT, None)) == parse(
        b'{"schema":{"type":"string","optional":true,"default":"default"},"payload":"default"}'
    )


def test_serialize_null_to_null() -> None:
    conv = _configured({"replace.null.with.default": False})
    assert parse(conv.from_connect_data(TOPIC, _OPTIONAL_WITH_DEFAULT, None)) == parse(
        _NULL_STRING.encode()
    )


def test_deserialize_null_to_default() -> None:
    conv = _configured({"replace.null.with.default": True})
    assert conv.to_connect_data(TOPIC, _NULL_STRING.encode(), None).value == "default"


def test_deserialize_null_to_null() -> None:
    conv = _configured({"replace.null.with.default": False})
    assert conv.to_connect_data(TOPIC, _NULL_STRING.encode(), None).value is None


def test_serialize_field_null_to_default() -> None:
    conv = _configured({"replace.null.with.default": True})
    data = conv.from_connect_data(
        TOPIC, _STRUCT_WITH_DEFAULT_FIELD, Struct(_STRUCT_WITH_DEFAULT_FIELD)
    )
    assert parse(data) == parse(_NULL_FIELD.replace('"field1":null', '"field1":"default"').encode())


def test_serialize_field_null_to_null() -> None:
    conv = _configured({"replace.null.with.default": False})
    data = conv.from_connect_data(
        TOPIC, _STRUCT_WITH_DEFAULT_FIELD, Struct(_STRUCT_WITH_DEFAULT_FIELD)
    )
    assert parse(data) == parse(_NULL_FIELD.encode())


def test_deserialize_field_null_to_default() -> None:
    conv = _configured({"replace.null.with.default": True})
    got = conv.to_connect_data(TOPIC, _NULL_FIELD.encode(), None)
    assert got.value == Struct(_STRUCT_WITH_DEFAULT_FIELD).put("field1", "default")


def test_deserialize_field_null_to_null() -> None:
    conv = _configured({"replace.null.with.default": False})
    got = conv.to_connect_data(TOPIC, _NULL_FIELD.encode(), None)
    assert got.value == Struct(_STRUCT_WITH_DEFAULT_FIELD)


def test_test_version_retrieved_from_app_info_parser(converter: JsonConverter) -> None:
    # Kafka reports its AppInfoParser version; kconnect reports the distribution's version.
    from importlib.metadata import version

    assert converter.version() == version("kconnect-converter-json")
