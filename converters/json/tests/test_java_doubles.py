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
