"""Apache Kafka's ``SimpleHeaderConverterTest``, method by method (same inputs, same
expected schemas and values, stated here as data)."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from kconnect_converter_string import SimpleHeaderConverter
from kconnect_sdk import Schema, SchemaAndValue, SchemaBuilder, Type

TOPIC = "topic"
HEADER = "header"

STRING_MAP = {"foo": "123", "bar": "baz"}
STRING_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING, Schema.STRING).build()
STRING_SHORT_MAP = {"foo": 12345, "bar": 0, "baz": -4321}
STRING_SHORT_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING, Schema.INT16).build()
STRING_INT_MAP = {"foo": 1234567890, "bar": 0, "baz": -987654321}
STRING_INT_MAP_SCHEMA = SchemaBuilder.map(Schema.STRING, Schema.INT32).build()
INT_LIST = [1234567890, -987654321]
INT_LIST_SCHEMA = SchemaBuilder.array(Schema.INT32).build()
STRING_LIST = ["foo", "bar"]
STRING_LIST_SCHEMA = SchemaBuilder.array(Schema.STRING).build()


@pytest.fixture
def converter() -> SimpleHeaderConverter:
    return SimpleHeaderConverter()


def round_trip(conv: SimpleHeaderConverter, schema: Schema | None, value: Any) -> SchemaAndValue:
    return conv.to_connect_header(
        TOPIC, HEADER, conv.from_connect_header(TOPIC, HEADER, schema, value)
    )


def assert_round_trip(conv: SimpleHeaderConverter, schema: Schema, value: Any) -> None:
    serialized = conv.from_connect_header(TOPIC, HEADER, schema, value)
    result = conv.to_connect_header(TOPIC, HEADER, serialized)
    if value is None:
        assert serialized is None
        assert result == SchemaAndValue(None, None)
        return
    assert serialized is not None
    assert result.value == value
    assert result.schema == schema
    serialized2 = conv.from_connect_header(TOPIC, HEADER, result.schema, result.value)
    result2 = conv.to_connect_header(TOPIC, HEADER, serialized2)
    assert serialized2 == serialized
    assert result2 == result


def test_should_convert_null_value(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, Schema.STRING, None)
    assert_round_trip(converter, Schema.OPTIONAL_STRING, None)


def test_should_convert_simple_string(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, Schema.STRING, "simple")


def test_should_convert_empty_string(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, Schema.STRING, "")


def test_should_convert_string_with_quotes_and_other_delimiter_characters(
    converter: SimpleHeaderConverter,
) -> None:
    assert_round_trip(converter, Schema.STRING, 'three"blind\\"mice')
    assert_round_trip(
        converter, Schema.STRING, "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':"
    )


def test_should_convert_map_with_string_keys(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, STRING_MAP_SCHEMA, STRING_MAP)


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ('{"foo":"123","bar":"baz"}', STRING_MAP_SCHEMA, STRING_MAP),
        ('{ "foo" : "123", \n"bar" : "baz" } ', STRING_MAP_SCHEMA, STRING_MAP),
        ('{"foo":12345,"bar":0,"baz":-4321}', STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
        (
            ' { "foo" :  12345 , "bar" : 0,  "baz" : -4321 }  ',
            STRING_SHORT_MAP_SCHEMA,
            STRING_SHORT_MAP,
        ),
        ('{"foo":1234567890,"bar":0,"baz":-987654321}', STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
        (
            ' { "foo" :  1234567890 , "bar" : 0,  "baz" : -987654321 }  ',
            STRING_INT_MAP_SCHEMA,
            STRING_INT_MAP,
        ),
    ],
    ids=[
        "should_parse_string_of_map_with_string_values_without_whitespace_as_map",
        "should_parse_string_of_map_with_string_values_with_whitespace_as_map",
        "should_parse_string_of_map_with_short_values_without_whitespace_as_map",
        "should_parse_string_of_map_with_short_values_with_whitespace_as_map",
        "should_parse_string_of_map_with_int_values_without_whitespace_as_map",
        "should_parse_string_of_map_with_int_values_with_whitespace_as_map",
    ],
)
def test_should_parse_string_of_map_as_map(
    converter: SimpleHeaderConverter, text: str, schema: Schema, value: Any
) -> None:
    result = round_trip(converter, Schema.STRING, text)
    assert result.schema == schema
    assert result.value == value


def test_should_convert_map_with_string_keys_and_short_values(
    converter: SimpleHeaderConverter,
) -> None:
    assert_round_trip(converter, STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP)


def test_should_convert_map_with_string_keys_and_integer_values(
    converter: SimpleHeaderConverter,
) -> None:
    assert_round_trip(converter, STRING_INT_MAP_SCHEMA, STRING_INT_MAP)


def test_should_convert_list_with_string_values(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, STRING_LIST_SCHEMA, STRING_LIST)


def test_should_convert_list_with_integer_values(converter: SimpleHeaderConverter) -> None:
    assert_round_trip(converter, INT_LIST_SCHEMA, INT_LIST)


def test_should_convert_map_with_string_keys_and_mixed_values_to_map(
    converter: SimpleHeaderConverter,
) -> None:
    value = {"foo": "bar", "baz": 3456}
    result = round_trip(converter, None, value)
    assert result.schema is not None
    assert result.schema.type is Type.MAP
    assert result.schema.key_schema is not None and result.schema.key_schema.type is Type.STRING
    assert result.schema.value_schema is None
    assert result.value == value


def test_should_convert_list_with_mixed_values_to_list_without_schema(
    converter: SimpleHeaderConverter,
) -> None:
    value = ["foo", 13344]
    result = round_trip(converter, None, value)
    assert result.schema is not None
    assert result.schema.type is Type.ARRAY
    assert result.schema.value_schema is None
    assert result.value == value


def test_should_convert_empty_map_to_map(converter: SimpleHeaderConverter) -> None:
    result = round_trip(converter, None, {})
    assert result.schema is not None
    assert result.schema.type is Type.MAP
    assert result.schema.key_schema is None
    assert result.schema.value_schema is None
    assert result.value == {}


def test_should_convert_empty_list_to_list(converter: SimpleHeaderConverter) -> None:
    result = round_trip(converter, None, [])
    assert result.schema is not None
    assert result.schema.type is Type.ARRAY
    assert result.schema.value_schema is None
    assert result.value == []


def test_converter_should_return_app_info_parser_version(converter: SimpleHeaderConverter) -> None:
    # Kafka reports its own version; kconnect reports the distribution's.
    assert converter.version() == version("kconnect-converter-string")


def test_a_decimal_literal_header_reads_as_float32_like_kafka(
    converter: SimpleHeaderConverter,
) -> None:
    # Kafka's Values.parseString gives FLOAT32 for 1.1, and writes it back as 1.1.
    result = converter.to_connect_header(TOPIC, HEADER, b"1.1")
    assert result.schema == Schema.FLOAT32
    assert converter.from_connect_header(TOPIC, HEADER, result.schema, result.value) == b"1.1"
