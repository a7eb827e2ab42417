"""SimpleHeaderConverter: UTF-8 text written with Values.convert_to_string, read with parse_string."""

from __future__ import annotations

from kconnect_converter_string import SimpleHeaderConverter
from kconnect_sdk import Schema, SchemaAndValue


def test_reads_infer_types_like_kafka() -> None:
    converter = SimpleHeaderConverter()
    converter.configure({})
    assert converter.to_connect_header("t", "h", b"true") == SchemaAndValue(Schema.BOOLEAN, True)
    assert converter.to_connect_header("t", "h", b"hello") == SchemaAndValue(Schema.STRING, "hello")
    assert converter.to_connect_header("t", "h", b"") == SchemaAndValue(Schema.STRING, "")
    assert converter.to_connect_header("t", "h", None) == SchemaAndValue(None, None)
    number = converter.to_connect_header("t", "h", b"42")
    assert number.value == 42


def test_writes_utf8_text() -> None:
    converter = SimpleHeaderConverter()
    assert converter.from_connect_header("t", "h", Schema.STRING, "héllo") == b"h\xc3\xa9llo"
    assert converter.from_connect_header("t", "h", Schema.BOOLEAN, True) == b"true"
    assert converter.from_connect_header("t", "h", Schema.INT32, 42) == b"42"
    assert converter.from_connect_header("t", "h", None, None) is None


def test_bytes_that_are_not_utf8_read_as_replacement_characters() -> None:
    # As Kafka's new String(bytes, UTF_8), then Values.parseString.
    converter = SimpleHeaderConverter()
    converter.configure({})
    assert converter.to_connect_header("t", "h", b"ab\xff") == SchemaAndValue(
        Schema.STRING, "ab\ufffd"
    )
