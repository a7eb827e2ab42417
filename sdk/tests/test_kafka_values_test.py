"""Apache Kafka's ``ValuesTest``, method by method (``shouldParseNull`` ->
``test_should_parse_null``), with the same inputs and expected schemas and values.

Two differences come from Python itself and are asserted as such:

- Python has one ``int`` and one ``float``: ``Values.infer_schema`` gives INT64 for any
  integer and FLOAT64 for any float, where Java infers INT8 for a ``Byte``. The round-trip
  helper below therefore expects the inferred schema with Python's number types.
- ``Values.parse_string("null")`` gives ``SchemaAndValue(None, None)``; Kafka returns a
  Java ``null`` there (and ``SchemaAndValue(null, null)`` for a null string).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from typing import Any

import pytest
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
    Type,
    Values,
)
from kconnect_sdk._values import _escape, _Parser

UTC = dt.UTC
WHITESPACE = "\n \t \t\n"
FLOAT_MAX = 3.4028234663852886e38  # Float.MAX_VALUE
DOUBLE_MAX = 1.7976931348623157e308  # Double.MAX_VALUE
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)

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

_PYTHON_NUMBER = {
    Type.INT8: Schema.INT64,
    Type.INT16: Schema.INT64,
    Type.INT32: Schema.INT64,
    Type.INT64: Schema.INT64,
    Type.FLOAT32: Schema.FLOAT64,
    Type.FLOAT64: Schema.FLOAT64,
}


def _python_inferred(schema: Schema) -> Schema:
    """The schema Values.infer_schema gives for a value of ``schema`` in Python."""
    if schema.type in _PYTHON_NUMBER:
        return _PYTHON_NUMBER[schema.type]
    if schema.type is Type.ARRAY and schema.value_schema is not None:
        return SchemaBuilder.array(_python_inferred(schema.value_schema)).build()
    if schema.type is Type.MAP and schema.key_schema and schema.value_schema:
        return SchemaBuilder.map(
            _python_inferred(schema.key_schema), _python_inferred(schema.value_schema)
        ).build()
    return Schema(schema.type)


_CONVERT = {
    Type.STRING: Values.convert_to_string,
    Type.INT8: Values.convert_to_byte,
    Type.INT16: Values.convert_to_short,
    Type.INT32: Values.convert_to_integer,
    Type.INT64: Values.convert_to_long,
    Type.FLOAT32: Values.convert_to_float,
    Type.FLOAT64: Values.convert_to_double,
    Type.BOOLEAN: Values.convert_to_boolean,
    Type.ARRAY: Values.convert_to_list,
    Type.MAP: Values.convert_to_map,
}


def convert_to(desired: Schema, value: Any) -> SchemaAndValue:
    new_value = _CONVERT[desired.type](Schema.STRING, value)
    return SchemaAndValue(Values.infer_schema(new_value), new_value)


def round_trip(desired: Schema | None, current: SchemaAndValue) -> SchemaAndValue:
    serialized = Values.convert_to_string(current.schema, current.value)
    if current.value is not None:
        assert serialized is not None
    if desired is None:
        desired = Values.infer_schema(current.value)
        assert desired is not None
    return convert_to(desired, serialized)


def assert_round_trip(schema: Schema, current_schema: Schema, value: Any) -> None:
    result = round_trip(schema, SchemaAndValue(current_schema, value))
    if value is None:
        assert result == SchemaAndValue(None, None)
        return
    assert result.value == value
    assert result.schema == _python_inferred(schema)
    result2 = round_trip(result.schema, result)
    assert result2.schema == _python_inferred(schema)
    assert result2.value == value
    assert result == result2


def assert_short_circuit(schema: Schema, value: Any) -> None:
    result = convert_to(schema, value)
    assert result.value == value
    assert result.schema == _python_inferred(schema)


def _string_parse(text: str, value: Any = None) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema is not None and parsed.schema.type is Type.STRING
    assert parsed.value == (text if value is None else value)


# -- parsing literals --------------------------------------------------------------------


def test_should_parse_null_string() -> None:
    assert Values.parse_string(None) == SchemaAndValue(None, None)


def test_should_parse_empty_string() -> None:
    assert Values.parse_string("") == SchemaAndValue(Schema.STRING, "")


def test_should_not_encounter_infinite_loop() -> None:
    text = bytes([0xEF, 0xBF, 0xBF]).decode("utf-8")  # U+FFFF, Java's CharacterIterator.DONE
    _string_parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "{foo: 3}",
        "{3: foo}",
        "[foo]",
        "null=",
        "true}",
        "false]",
        "{6:9 4:20}",
        "[0 1 2]",
        "{null: 3}",
    ],
    ids=[
        "should_not_parse_unquoted_embedded_map_keys_as_strings",
        "should_not_parse_unquoted_embedded_map_values_as_strings",
        "should_not_parse_unquoted_array_elements_as_strings",
        "should_not_parse_strings_beginning_with_null_as_strings",
        "should_parse_strings_beginning_with_true_as_strings",
        "should_parse_strings_beginning_with_false_as_strings",
        "should_not_parse_as_map_without_commas",
        "should_not_parse_as_array_without_commas",
        "should_not_parse_as_map_with_null_keys",
    ],
)
def test_text_that_stays_a_string(text: str) -> None:
    _string_parse(text)


def test_should_parse_true_as_boolean_if_surrounded_by_whitespace() -> None:
    assert Values.parse_string(WHITESPACE + "true" + WHITESPACE) == (Schema.BOOLEAN, True)


def test_should_parse_false_as_boolean_if_surrounded_by_whitespace() -> None:
    assert Values.parse_string(WHITESPACE + "false" + WHITESPACE) == (Schema.BOOLEAN, False)


def test_should_parse_null_as_null_if_surrounded_by_whitespace() -> None:
    assert Values.parse_string(WHITESPACE + "null" + WHITESPACE) == SchemaAndValue(None, None)


def test_should_parse_boolean_literals_embedded_in_array() -> None:
    parsed = Values.parse_string("[true, false]")
    assert parsed.schema == SchemaBuilder.array(Schema.BOOLEAN).build()
    assert parsed.value == [True, False]


def test_should_parse_boolean_literals_embedded_in_map() -> None:
    parsed = Values.parse_string("{true: false, false: true}")
    assert parsed.schema == SchemaBuilder.map(Schema.BOOLEAN, Schema.BOOLEAN).build()
    assert parsed.value == {True: False, False: True}


def test_should_parse_empty_map() -> None:
    parsed = Values.parse_string("{}")
    assert parsed.schema is not None and parsed.schema.type is Type.MAP
    assert parsed.value == {}


def test_should_parse_empty_array() -> None:
    parsed = Values.parse_string("[]")
    assert parsed.schema is not None and parsed.schema.type is Type.ARRAY
    assert parsed.value == []


def test_should_parse_null() -> None:
    assert Values.parse_string("null") == SchemaAndValue(None, None)


def test_should_convert_string_of_null() -> None:
    assert_round_trip(Schema.STRING, Schema.STRING, "null")


def test_should_parse_null_map_values() -> None:
    parsed = Values.parse_string("{3: null}")
    assert parsed.schema is not None and parsed.schema.type is Type.MAP
    assert parsed.schema.key_schema == Schema.INT8
    assert parsed.value == {3: None}


def test_should_parse_null_array_elements() -> None:
    parsed = Values.parse_string("[null]")
    assert parsed.schema is not None and parsed.schema.type is Type.ARRAY
    assert parsed.value == [None]


def test_should_escape_strings_with_embedded_quotes_and_backslashes() -> None:
    assert _escape('three"blind\\"mice') == 'three\\"blind\\\\\\"mice'


# -- conversions -------------------------------------------------------------------------


def test_should_convert_null_value() -> None:
    for schema in (
        Schema.INT8,
        Schema.OPTIONAL_INT8,
        Schema.INT16,
        Schema.OPTIONAL_INT16,
        Schema.INT32,
        Schema.OPTIONAL_INT32,
        Schema.INT64,
        Schema.OPTIONAL_INT64,
        Schema.FLOAT32,
        Schema.OPTIONAL_FLOAT32,
        Schema.FLOAT64,
        Schema.OPTIONAL_FLOAT64,
        Schema.BOOLEAN,
        Schema.OPTIONAL_BOOLEAN,
        Schema.STRING,
        Schema.OPTIONAL_STRING,
    ):
        assert_round_trip(schema, Schema.STRING, None)


def test_should_convert_boolean_values() -> None:
    assert_round_trip(Schema.BOOLEAN, Schema.BOOLEAN, False)
    assert_short_circuit(Schema.BOOLEAN, False)
    for text, value in (("false", False), ("0", False), ("true", True), ("1", True)):
        result = round_trip(Schema.BOOLEAN, SchemaAndValue(Schema.STRING, text))
        assert result == SchemaAndValue(Schema.BOOLEAN, value)
    assert_round_trip(Schema.BOOLEAN, Schema.BOOLEAN, True)
    assert_short_circuit(Schema.BOOLEAN, True)


def test_should_fail_to_parse_invalid_boolean_value_string() -> None:
    with pytest.raises(DataError):
        Values.convert_to_boolean(Schema.STRING, '"green"')


def test_should_convert_int8() -> None:
    assert_round_trip(Schema.INT8, Schema.INT8, 0)
    assert_round_trip(Schema.INT8, Schema.INT8, 1)


def test_should_convert_int64() -> None:
    assert_round_trip(Schema.INT64, Schema.INT64, 1)
    assert_short_circuit(Schema.INT64, 1)


def test_should_convert_float32() -> None:
    assert_round_trip(Schema.FLOAT32, Schema.FLOAT32, 1.0)
    assert_short_circuit(Schema.FLOAT32, 1.0)


def test_should_convert_float64() -> None:
    assert_round_trip(Schema.FLOAT64, Schema.FLOAT64, 1.0)
    assert_short_circuit(Schema.FLOAT64, 1.0)


def test_should_convert_empty_struct() -> None:
    struct = Struct(SchemaBuilder.struct().build())
    with pytest.raises(DataError):
        Values.convert_to_struct(struct.schema, None)
    with pytest.raises(DataError):
        Values.convert_to_struct(struct.schema, "")
    assert Values.convert_to_struct(struct.schema, struct) is struct


def test_should_convert_simple_string() -> None:
    assert_round_trip(Schema.STRING, Schema.STRING, "simple")


def test_should_convert_empty_string() -> None:
    assert_round_trip(Schema.STRING, Schema.STRING, "")


def test_should_convert_string_with_quotes_and_other_delimiter_characters() -> None:
    assert_round_trip(Schema.STRING, Schema.STRING, 'three"blind\\"mice')
    assert_round_trip(
        Schema.STRING, Schema.STRING, "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':"
    )


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (STRING_MAP_SCHEMA, STRING_MAP),
        (STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
        (STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
        (STRING_LIST_SCHEMA, STRING_LIST),
        (INT_LIST_SCHEMA, INT_LIST),
    ],
    ids=[
        "should_convert_map_with_string_keys",
        "should_convert_map_with_string_keys_and_short_values",
        "should_convert_map_with_string_keys_and_integer_values",
        "should_convert_list_with_string_values",
        "should_convert_list_with_integer_values",
    ],
)
def test_containers_round_trip(schema: Schema, value: Any) -> None:
    assert_round_trip(schema, schema, value)


@pytest.mark.parametrize(
    ("schema", "text", "value"),
    [
        (STRING_MAP_SCHEMA, '{"foo":"123","bar":"baz"}', STRING_MAP),
        (STRING_MAP_SCHEMA, '{ "foo" : "123", \n"bar" : "baz" } ', STRING_MAP),
        (STRING_SHORT_MAP_SCHEMA, '{"foo":12345,"bar":0,"baz":-4321}', STRING_SHORT_MAP),
        (
            STRING_SHORT_MAP_SCHEMA,
            ' { "foo" :  12345 , "bar" : 0,  "baz" : -4321 }  ',
            STRING_SHORT_MAP,
        ),
        (STRING_INT_MAP_SCHEMA, '{"foo":1234567890,"bar":0,"baz":-987654321}', STRING_INT_MAP),
        (
            STRING_INT_MAP_SCHEMA,
            ' { "foo" :  1234567890 , "bar" : 0,  "baz" : -987654321 }  ',
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
def test_strings_of_maps_convert_to_maps(schema: Schema, text: str, value: Any) -> None:
    result = round_trip(schema, SchemaAndValue(Schema.STRING, text))
    assert result.schema == _python_inferred(schema)
    assert result.value == value
    # and parse_string itself gives Kafka's narrow schema
    assert Values.parse_string(text) == SchemaAndValue(schema, value)


def test_should_convert_string_of_list_with_only_numeric_element_types_into_list_of_largest_numeric_type() -> (
    None
):
    third = 32767 + 1
    parsed = Values.parse_string(f"[1, 2, {third}]")
    assert parsed.schema == SchemaBuilder.array(Schema.INT32).build()
    assert Values.convert_to_list(Schema.STRING, f"[1, 2, {third}]") == [1, 2, third]


def test_should_convert_integral_types_to_float() -> None:
    # Java writes Float.MAX_VALUE as 3.4028235E38
    result = Values.convert_to_list(Schema.STRING, "[1, 2, 3.4028235E38]")
    assert result == [1.0, 2.0, FLOAT_MAX]
    assert (
        Values.parse_string("[1, 2, 3.4028235E38]").schema
        == SchemaBuilder.array(Schema.FLOAT32).build()
    )


def test_should_convert_integral_types_to_double() -> None:
    result = Values.convert_to_list(Schema.STRING, "[1, 2, 1.7976931348623157E308]")
    assert result == [1.0, 2.0, DOUBLE_MAX]
    assert (
        Values.parse_string("[1, 2, 1.7976931348623157E308]").schema
        == SchemaBuilder.array(Schema.FLOAT64).build()
    )


def _assert_untyped(text: str, expected: Any, kind: Type) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema is not None and parsed.schema.type is kind
    assert parsed.schema.value_schema is None
    assert parsed.value == expected


def test_should_parse_string_list_with_multiple_element_types() -> None:
    _assert_untyped('[1, 2, 300, "four"]', [1, 2, 300, "four"], Type.ARRAY)
    _assert_untyped('[2, 300, "four", 1]', [2, 300, "four", 1], Type.ARRAY)
    _assert_untyped('[300, "four", 1, 2]', [300, "four", 1, 2], Type.ARRAY)
    _assert_untyped('["four", 1, 2, 300]', ["four", 1, 2, 300], Type.ARRAY)


def test_should_parse_string_map_with_multiple_key_types() -> None:
    expected = {1: 1, 2: 1, 300: 300, "four": 1}
    for text in (
        '{1:1, 2:1, 300:300, "four":1}',
        '{2:1, 300:300, "four":1, 1:1}',
        '{300:300, "four":1, 1:1, 2:1}',
        '{"four":1, 1:1, 2:1, 300:300}',
    ):
        _assert_untyped(text, expected, Type.MAP)


def test_should_parse_string_map_with_multiple_value_types() -> None:
    expected = {1: 1, 2: 1, 300: 300, 4: "four"}
    for text in (
        '{1:1, 2:1, 300:300, 4:"four"}',
        '{2:1, 300:300, 4:"four", 1:1}',
        '{300:300, 4:"four", 1:1, 2:1}',
        '{4:"four", 1:1, 2:1, 300:300}',
    ):
        _assert_untyped(text, expected, Type.MAP)
        parsed = Values.parse_string(text)
        assert parsed.schema is not None and parsed.schema.key_schema == Schema.INT16


@pytest.mark.parametrize(
    ("text", "outer", "inner"),
    [
        ("[[]]", Type.ARRAY, Type.ARRAY),
        ("[{}]", Type.ARRAY, Type.MAP),
        ('{"a":{}}', Type.MAP, Type.MAP),
        ('{"a":[]}', Type.MAP, Type.ARRAY),
    ],
    ids=[
        "should_parse_nested_array",
        "should_parse_array_containing_map",
        "should_parse_nested_map",
        "should_parse_map_containing_array",
    ],
)
def test_nested_containers(text: str, outer: Type, inner: Type) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema is not None and parsed.schema.type is outer
    assert parsed.schema.value_schema is not None and parsed.schema.value_schema.type is inner


@pytest.mark.parametrize(
    "text",
    ["[1, 2, 3,,,]", "[1, null]", "[null, 1]"],
    ids=[
        "should_parse_string_list_with_extra_delimiters_and_return_string",
        "should_parse_string_list_with_null_last_as_string",
        "should_parse_string_list_with_null_first_as_string",
    ],
)
def test_lists_that_stay_strings(text: str) -> None:
    _string_parse(text)


# -- temporal literals -------------------------------------------------------------------

TS = dt.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC)
TIME = dt.time(14, 34, 54, 346000, tzinfo=UTC)
DAY = dt.date(2019, 8, 23)


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ("2019-08-23T14:34:54.346Z", Timestamp.SCHEMA, TS),
        ("2019-08-23", Date.SCHEMA, DAY),
        ("14:34:54.346Z", Time.SCHEMA, TIME),
        ("2019-08-23T14\\:34\\:54.346Z", Timestamp.SCHEMA, TS),
        ("14\\:34\\:54.346Z", Time.SCHEMA, TIME),
    ],
    ids=[
        "should_parse_timestamp_string_as_timestamp",
        "should_parse_date_string_as_date",
        "should_parse_time_string_as_date",
        "should_parse_timestamp_string_with_escaped_colons_as_timestamp",
        "should_parse_time_string_with_escaped_colons_as_date",
    ],
)
def test_temporal_literals(text: str, schema: Schema, value: Any) -> None:
    assert Values.parse_string(text) == SchemaAndValue(schema, value)


@pytest.mark.parametrize(
    ("text", "element", "value"),
    [
        ("[2019-08-23]", Date.SCHEMA, [DAY]),
        ("[14:34:54.346Z]", Time.SCHEMA, [TIME]),
        ("[2019-08-23T14:34:54.346Z]", Timestamp.SCHEMA, [TS]),
        (
            "[2019-08-23T14:34:54.346Z,2019-01-23T15:12:34.567Z,   2019-04-23T19:12:34.567Z]",
            Timestamp.SCHEMA,
            [
                TS,
                dt.datetime(2019, 1, 23, 15, 12, 34, 567000, tzinfo=UTC),
                dt.datetime(2019, 4, 23, 19, 12, 34, 567000, tzinfo=UTC),
            ],
        ),
    ],
    ids=[
        "should_parse_date_string_as_date_in_array",
        "should_parse_time_string_as_time_in_array",
        "should_parse_timestamp_string_as_timestamp_in_array",
        "should_parse_multiple_timestamp_string_as_timestamp_in_array",
    ],
)
def test_temporal_literals_in_arrays(text: str, element: Schema, value: Any) -> None:
    assert Values.parse_string(text) == SchemaAndValue(SchemaBuilder.array(element).build(), value)


@pytest.mark.parametrize(
    "text",
    ['{"k1":"14:34:54.346Z"}', '{"k1":14:34:54.346Z}'],
    ids=[
        "should_parse_quoted_time_string_as_time_in_map",
        "should_parse_time_string_as_time_in_map",
    ],
)
def test_time_literals_in_maps(text: str) -> None:
    assert Values.parse_string(text) == SchemaAndValue(
        SchemaBuilder.map(Schema.STRING, Time.SCHEMA).build(), {"k1": TIME}
    )


def test_should_fail_to_convert_null_time() -> None:
    for convert in (Values.convert_to_time, Values.convert_to_date, Values.convert_to_timestamp):
        with pytest.raises(DataError):
            convert(None, None)


@pytest.mark.parametrize(
    ("convert", "text"),
    [
        (Values.convert_to_list, "[1, 2, 3,,,]"),
        (Values.convert_to_list, '[1, 2, 3, "four",,,]'),
        (Values.convert_to_map, ' { "foo" :  1234567890 ,, "bar" : 0,  "baz" : -987654321 }  '),
        (Values.convert_to_map, ' { "foo" :  1234567890 , "a", "bar" : 0,  "baz" : -987654321 }  '),
        (Values.convert_to_map, " { ,,  , , }  "),
        (Values.convert_to_map, ' { "foo" :  "1234567890" ,, "bar" : "0",  "baz" : "boz" }  '),
    ],
    ids=[
        "should_fail_to_convert_to_list_from_string_with_extra_delimiters",
        "should_fail_to_convert_to_list_from_string_with_non_common_element_type_and_blank_element",
        "should_fail_to_parse_string_of_map_with_int_values_with_blank_entry",
        "should_fail_to_parse_string_of_malformed_map",
        "should_fail_to_parse_string_of_map_with_int_values_with_only_blank_entries",
        "should_fail_to_parse_string_of_map_with_int_values_with_blank_entries",
    ],
)
def test_malformed_containers_fail_to_convert(convert: Any, text: str) -> None:
    with pytest.raises(DataError):
        convert(Schema.STRING, text)


# -- the tokenizer (Kafka's Values.Parser) -----------------------------------------------


def _tokens(text: str) -> list[str]:
    parser = _Parser(text)
    tokens = []
    while parser.has_next():
        tokens.append(parser.next())
    return tokens


def test_should_consume_multiple_tokens() -> None:
    parser = _Parser("a:b:c:d:e:f:g:h")
    assert parser.next_tokens(5) == "a:b:c"
    assert [parser.next(), parser.next(), parser.next()] == [":", "d", ":"]
    assert parser.next_tokens(8) is None  # fewer than eight remain: nothing consumed
    assert parser.next_tokens(7) == "e:f:g:h"


@pytest.mark.parametrize(
    "text",
    [
        "  ",
        "simple",
        "simple string",
        "simple \n\t\bstring",
        "'simple' string",
        "si\\mple",
        "si\\\\mple",
    ],
)
def test_should_parse_strings_without_delimiters(text: str) -> None:
    assert _tokens(text) == [text]


@pytest.mark.parametrize(
    "text",
    ['si\\"mple', "si\\{mple", "si\\}mple", "si\\]mple", "si\\[mple", "si\\:mple", "si\\,mple"],
)
def test_should_parse_strings_with_escaped_delimiters(text: str) -> None:
    assert _tokens(text) == [text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a{b", ["a", "{", "b"]),
        ("a}b", ["a", "}", "b"]),
        ("a[b", ["a", "[", "b"]),
        ("a]b", ["a", "]", "b"]),
        ("a:b", ["a", ":", "b"]),
        ("a,b", ["a", ",", "b"]),
        ('a"b', ["a", '"', "b"]),
        ("{b", ["{", "b"]),
        ("}b", ["}", "b"]),
        ("[b", ["[", "b"]),
        ("]b", ["]", "b"]),
        (":b", [":", "b"]),
        (",b", [",", "b"]),
        ('"b', ['"', "b"]),
        ("{", ["{"]),
        ("}", ["}"]),
        ("[", ["["]),
        ("]", ["]"]),
        (":", [":"]),
        (",", [","]),
        ('"', ['"']),
    ],
)
def test_should_parse_strings_with_single_delimiter(text: str, expected: list[str]) -> None:
    assert _tokens(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"simple" string', ['"', "simple", '"', " string"]),
        ("a{bc}d", ["a", "{", "bc", "}", "d"]),
        ("a { b c } d", ["a ", "{", " b c ", "}", " d"]),
    ],
)
def test_should_parse_strings_with_multiple_delimiters(text: str, expected: list[str]) -> None:
    assert _tokens(text) == expected


def test_can_consume() -> None:
    # Kafka's canConsume test has no body; consuming a delimiter and a padded token:
    tokens = _Parser(" [ 1 ]")
    assert tokens.can_consume("[")
    assert tokens.can_consume("1")
    assert tokens.can_consume("]")
    assert not tokens.has_next()


# -- temporal, decimal conversions ---------------------------------------------------------

NOW = dt.datetime(2024, 5, 17, 13, 45, 12, 345000, tzinfo=UTC)
NOW_MILLIS = int((NOW - dt.datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1000)
MILLIS_OF_DAY = NOW_MILLIS % 86_400_000
DAYS = NOW_MILLIS // 86_400_000


def test_should_convert_time_values() -> None:
    time_of_day = NOW.time().replace(tzinfo=UTC)
    assert Values.convert_to_time(Time.SCHEMA, time_of_day) == time_of_day
    # a Timestamp keeps only the time of day
    assert Values.convert_to_time(Timestamp.SCHEMA, NOW) == time_of_day
    assert Values.convert_to_time(Time.SCHEMA, str(MILLIS_OF_DAY)) == time_of_day
    assert Values.convert_to_time(Time.SCHEMA, MILLIS_OF_DAY) == time_of_day


def test_should_convert_date_values() -> None:
    assert Values.convert_to_date(Date.SCHEMA, NOW.date()) == NOW.date()
    # a Timestamp keeps only the date
    assert Values.convert_to_date(Timestamp.SCHEMA, NOW) == NOW.date()
    assert Values.convert_to_date(Date.SCHEMA, str(DAYS)) == NOW.date()
    assert Values.convert_to_date(Date.SCHEMA, DAYS) == NOW.date()


def test_should_convert_timestamp_values() -> None:
    midnight = dt.datetime(NOW.year, NOW.month, NOW.day, tzinfo=UTC)
    assert Values.convert_to_timestamp(Timestamp.SCHEMA, NOW) == NOW
    assert Values.convert_to_timestamp(Date.SCHEMA, NOW.date()) == midnight
    assert Values.convert_to_timestamp(Time.SCHEMA, MILLIS_OF_DAY) == dt.datetime(
        1970, 1, 1, tzinfo=UTC
    ) + dt.timedelta(milliseconds=MILLIS_OF_DAY)
    assert Values.convert_to_timestamp(Timestamp.SCHEMA, str(NOW_MILLIS)) == NOW
    assert Values.convert_to_timestamp(Timestamp.SCHEMA, NOW_MILLIS) == NOW


def test_should_convert_decimal_values() -> None:
    # 1.0f, its Float.toString text "1.0", BigDecimal("1.0") and its bytes all give 1.0
    value = decimal.Decimal("1.0")
    encoded = base64.b64decode("Cg==")  # BigInteger(10).toByteArray(): unscaled 10, scale 1
    assert Values.convert_to_decimal(None, 1.0, 1) == value
    assert Values.convert_to_decimal(None, "1.0", 1) == value
    assert Values.convert_to_decimal(None, value, 1) == value
    assert Values.convert_to_decimal(None, encoded, 1) == value
    assert Values.convert_to_decimal(None, bytearray(encoded), 1) == value
    assert Decimal.from_logical(Decimal.schema(1), value) == encoded


def test_should_fail_to_convert_null_to_decimal() -> None:
    with pytest.raises(DataError):
        Values.convert_to_decimal(None, None, 1)


# -- schema inference ----------------------------------------------------------------------


def test_should_infer_byte_schema() -> None:
    assert Values.infer_schema(bytes(1)) == Schema.BYTES
    assert Values.infer_schema(memoryview(bytes(1))) == Schema.BYTES


def test_should_infer_struct_schema() -> None:
    struct = Struct(SchemaBuilder.struct().build())
    assert Values.infer_schema(struct) == struct.schema


@pytest.mark.parametrize(
    "value",
    [[], [object()], {}, {object(): object()}],
    ids=[
        "should_infer_no_schema_for_empty_list",
        "should_infer_no_schema_for_list_containing_object",
        "should_infer_no_schema_for_empty_map",
        "should_infer_no_schema_for_map_containing_object",
    ],
)
def test_no_schema_is_inferred(value: Any) -> None:
    assert Values.infer_schema(value) is None


def test_should_not_convert_array_values_to_decimal() -> None:
    # Java's List.toString of ["\"1.0\"", Long.MAX+1, Long.MIN-1, (byte) 1, (byte) 1]
    parsed = Values.parse_string('["1.0", 9223372036854775808, -9223372036854775809, 1, 1]')
    assert parsed.schema is not None and parsed.schema.type is Type.ARRAY
    assert parsed.schema.value_schema is None
    assert parsed.value == [
        "1.0",
        decimal.Decimal(LONG_MAX + 1),
        decimal.Decimal(LONG_MIN - 1),
        1,
        1,
    ]


def test_should_parse_array_of_only_decimals() -> None:
    parsed = Values.parse_string("[9223372036854775808, -9223372036854775809]")
    assert parsed.schema == SchemaBuilder.array(Decimal.schema(0)).build()
    assert parsed.value == [decimal.Decimal(LONG_MAX + 1), decimal.Decimal(LONG_MIN - 1)]


def test_should_parse_big_integer_as_decimal_with_zero_scale() -> None:
    for value in (LONG_MAX + 1, LONG_MIN - 1):
        parsed = Values.parse_string(str(value))
        assert parsed.schema == Decimal.schema(0)
        assert isinstance(parsed.value, decimal.Decimal)
        assert parsed.value == value


@pytest.mark.parametrize(
    ("values", "schema"),
    [
        ((127, -128), Schema.INT8),
        ((32767, -32768), Schema.INT16),
        ((2**31 - 1, -(2**31)), Schema.INT32),
        ((LONG_MAX, LONG_MIN), Schema.INT64),
    ],
    ids=[
        "should_parse_byte_as_int8",
        "should_parse_short_as_int16",
        "should_parse_integer_as_int32",
        "should_parse_long_as_int64",
    ],
)
def test_integers_parse_as_the_narrowest_type(values: tuple[int, int], schema: Schema) -> None:
    for value in values:
        assert Values.parse_string(str(value)) == SchemaAndValue(schema, value)


def test_should_parse_float_as_float32() -> None:
    # Float.toString(Float.MAX_VALUE) is 3.4028235E38
    for text, value in (("3.4028235E38", FLOAT_MAX), ("-3.4028235E38", -FLOAT_MAX)):
        assert Values.parse_string(text) == SchemaAndValue(Schema.FLOAT32, value)


def test_should_parse_double_as_float64() -> None:
    for text, value in (
        ("1.7976931348623157E308", DOUBLE_MAX),
        ("-1.7976931348623157E308", -DOUBLE_MAX),
    ):
        assert Values.parse_string(text) == SchemaAndValue(Schema.FLOAT64, value)


def test_should_parse_fractional_parts_as_integer_when_no_fractional_part() -> None:
    # Java's float literals 1.1f, 300.01f and 66000.0008f, as exact doubles
    assert Values.parse_string("1.0") == SchemaAndValue(Schema.INT8, 1)
    assert Values.parse_string("1.1") == SchemaAndValue(Schema.FLOAT32, 1.100000023841858)
    assert Values.parse_string("300.0") == SchemaAndValue(Schema.INT16, 300)
    assert Values.parse_string("300.01") == SchemaAndValue(Schema.FLOAT32, 300.010009765625)
    assert Values.parse_string("66000.0") == SchemaAndValue(Schema.INT32, 66000)
    assert Values.parse_string("66000.0008") == SchemaAndValue(Schema.FLOAT32, 66000.0)
