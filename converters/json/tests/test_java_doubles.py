"""Doubles outside [1e-3, 1e7) are written as Java's Double.toString writes them."""

from __future__ import annotations

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import Schema, SchemaBuilder, Struct


@pytest.fixture
def converter() -> JsonConverter:
    c = JsonConverter()
    c.configure({"schemas.enable": "false"}, False)
    return c


# Expected text from Java's rules: plain decimal inside [1e-3, 1e7), else d.dddEn.
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e7, b"1.0E7"),
        (12345678.9, b"1.23456789E7"),
        (1.5e-5, b"1.5E-5"),
        (-2.5e20, b"-2.5E20"),
        (1e16, b"1.0E16"),
        (9999999.0, b"9999999.0"),
        (0.001, b"0.001"),
        (123.5, b"123.5"),
        (0.0, b"0.0"),
    ],
)
def test_double_text_matches_java(converter: JsonConverter, value: float, text: bytes) -> None:
    assert converter.from_connect_data("t", Schema.FLOAT64, value) == text
    assert converter.to_connect_data("t", text).value == value


def test_struct_field_doubles_match_java(converter: JsonConverter) -> None:
    schema = (
        SchemaBuilder.struct().field("big", Schema.FLOAT64).field("small", Schema.FLOAT64).build()
    )
    data = converter.from_connect_data(
        "t", schema, Struct(schema).put("big", 3e9).put("small", 2.5)
    )
    assert data == b'{"big":3.0E9,"small":2.5}'


# Schemaless values (no schema at all) take a different path through orjson; the expected
# text is again Java's Double.toString, which Jackson writes for a Double in a Map or List.
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e20, b"1.0E20"),
        (1e-5, b"1.0E-5"),
        (123456789.0, b"1.23456789E8"),
        (-1e-7, b"-1.0E-7"),
        (1.5e300, b"1.5E300"),
        (1e7, b"1.0E7"),
        (12345678.5, b"1.23456785E7"),
        (9999999.0, b"9999999.0"),
        (0.001, b"0.001"),
        (0.005, b"0.005"),
        (10.005, b"10.005"),
        (0.0, b"0.0"),
        (-0.0, b"-0.0"),
    ],
)
def test_schemaless_double_text_matches_java(
    converter: JsonConverter, value: float, text: bytes
) -> None:
    assert converter.from_connect_data("t", None, value) == text
    assert converter.from_connect_data("t", None, [value]) == b"[" + text + b"]"
    assert converter.to_connect_data("t", text).value == value


def test_schemaless_map_doubles_match_java_and_strings_stay(converter: JsonConverter) -> None:
    value = {"big": 1e20, "tiny": 1e-5, "id": 123456789, "note": "1e+20 and 0.00001", "x": 2.5}
    assert converter.from_connect_data("t", None, value) == (
        b'{"big":1.0E20,"tiny":1.0E-5,"id":123456789,"note":"1e+20 and 0.00001","x":2.5}'
    )
    # Non-string keys go through the slow path, written as [key, value] pairs.
    assert converter.from_connect_data("t", None, {1: 3e9}) == b"[[1,3.0E9]]"
    # With schemas.enable the schemaless payload sits in a null-schema envelope.
    enveloped = JsonConverter()
    enveloped.configure({}, False)
    assert enveloped.from_connect_data("t", None, {"a": 1e-5}) == (
        b'{"schema":null,"payload":{"a":1.0E-5}}'
    )
    assert enveloped.from_connect_batch([("t", None, {"a": 1e-5})]) == [
        b'{"schema":null,"payload":{"a":1.0E-5}}'
    ]


def test_schemaless_text_that_only_looks_like_a_double_is_unchanged(
    converter: JsonConverter,
) -> None:
    # Strings and integers holding the bytes of an exponent or a long number stay as written.
    value = {"a": "re-try e+1 0.0001 123456789.5", "b": 12345678901, "c": -0.5, "d": [1e-3]}
    assert converter.from_connect_data("t", None, value) == (
        b'{"a":"re-try e+1 0.0001 123456789.5","b":12345678901,"c":-0.5,"d":[0.001]}'
    )


def test_schemaless_batch_doubles_match_one_by_one(converter: JsonConverter) -> None:
    # The batch screens all its schemaless text at once; the bytes are those of one by one.
    values = [{"a": 1.5}, None, {"b": 1e20}, [1e-5, "e-"], {"c": "x"}, 3.0, {"d": 2e7}]
    items = [("t", None, v) for v in values]
    expected = [converter.from_connect_data("t", None, v) for v in values]
    assert converter.from_connect_batch(items) == expected
    assert expected[2] == b'{"b":1.0E20}'
    assert expected[3] == b'[1.0E-5,"e-"]'
    # A batch with no double outside [1e-3, 1e7) is left as orjson wrote it.
    assert converter.from_connect_batch([("t", None, {"a": 1.5, "b": "0.000"})]) == [
        b'{"a":1.5,"b":"0.000"}'
    ]
