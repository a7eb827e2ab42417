"""Golden bytes of Kafka's JsonConverter for the corners where bytes differ most easily.

Expected bytes are stated by hand from the rules of Kafka's writer: Jackson escapes ``"``
and ``\\``, writes ``\\b \\t \\n \\f \\r`` short and every other character below 0x20 as
``\\u00XX`` with upper-case hex digits, writes a character outside the BMP as its escaped
UTF-16 surrogate pair (``\\uD83D\\uDE00``) and a lone surrogate as its escape, and writes
everything else (DEL, the rest of non-ASCII) as raw UTF-8; doubles and floats are written with Java's
``Double.toString``/``Float.toString``; NUMERIC decimals with ``BigDecimal.toString``;
BASE64 decimals as the base64 of ``BigInteger.toByteArray()`` of the unscaled value.
"""

from __future__ import annotations

import decimal

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import Decimal, Schema, SchemaBuilder, Struct

TOPIC = "topic"


def _converter(**config: str) -> JsonConverter:
    conv = JsonConverter()
    conv.configure(config, False)
    return conv


# Every character below 0x20, then DEL, '"', '\\' and '/'.
CONTROL = "".join(chr(c) for c in range(0x20)) + '\x7f"\\/'
CONTROL_JSON = (
    b'"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r'
    b"\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018"
    b'\\u0019\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F\x7f\\"\\\\/"'
)


@pytest.mark.parametrize("schemas_enable", ["true", "false"])
def test_every_control_character_is_escaped_as_jackson_does(schemas_enable: str) -> None:
    conv = _converter(**{"schemas.enable": schemas_enable})
    data = conv.from_connect_data(TOPIC, Schema.STRING, CONTROL)
    expected = (
        b'{"schema":{"type":"string","optional":false},"payload":' + CONTROL_JSON + b"}"
        if schemas_enable == "true"
        else CONTROL_JSON
    )
    assert data == expected
    assert conv.from_connect_batch([(TOPIC, Schema.STRING, CONTROL)]) == [expected]
    assert conv.to_connect_data(TOPIC, expected).value == CONTROL


def test_schemaless_control_characters_match_too() -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, None, {"k\x1f": "v\x0b"}) == b'{"k\\u001F":"v\\u000B"}'


def test_an_escaped_backslash_before_u00_text_is_left_alone() -> None:
    # The text backslash + "u001f" is not an escape: Jackson writes \\u001f as it is.
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.STRING, "\\u001f\x1f") == b'"\\\\u001f\\u001F"'


def test_control_characters_in_schema_text_are_escaped_the_same_way() -> None:
    conv = _converter()
    schema = SchemaBuilder.struct().doc("a\x01b").field("f\x1e", Schema.INT32).build()
    data = conv.from_connect_data(TOPIC, schema, Struct(schema).put("f\x1e", 1))
    assert data == (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,'
        b'"field":"f\\u001E"}],"optional":false,"doc":"a\\u0001b"},"payload":{"f\\u001E":1}}'
    )


def test_characters_outside_the_bmp_are_escaped_pairs_and_read_back() -> None:
    # Kafka 4.1's Jackson escapes every surrogate in its UTF-8 output, so a character
    # outside the BMP is written as its surrogate pair, upper-case, in keys and values.
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.STRING, "a\U0001f600b") == b'"a\\uD83D\\uDE00b"'
    assert conv.from_connect_data(TOPIC, None, {"\U00010000": "é"}) == (
        b'{"\\uD800\\uDC00":"\xc3\xa9"}'
    )
    assert (
        conv.from_connect_batch([(TOPIC, Schema.STRING, "\U0010ffff")] * 2)
        == [b'"\\uDBFF\\uDFFF"'] * 2
    )
    assert conv.to_connect_data(TOPIC, b'"\\ud83d\\ude00"').value == "\U0001f600"


def test_a_lone_surrogate_is_written_as_its_escape() -> None:
    # A Java string may hold a lone surrogate and Jackson writes it as an escape; it has
    # no UTF-8 form, so orjson refuses it and the converter writes it as Jackson does.
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.STRING, "x\ud83dy\x01") == b'"x\\uD83Dy\\u0001"'
    assert conv.to_connect_data(TOPIC, b'"\\udc00x"').value == "\udc00x"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (9999999.0, b"9999999.0"),  # just below 1e7: plain
        (1e7, b"1.0E7"),  # 1e7 and up: scientific
        (123456789.0, b"1.23456789E8"),
        (0.001, b"0.001"),  # 1e-3 and up: plain
        (0.000999, b"9.99E-4"),  # below 1e-3: scientific
        (1e-10, b"1.0E-10"),
        (1.7976931348623157e308, b"1.7976931348623157E308"),
        (-0.0, b"-0.0"),
        (100.0, b"100.0"),
        (-2.5e-7, b"-2.5E-7"),
    ],
)
def test_doubles_at_the_double_to_string_boundaries(value: float, text: bytes) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.FLOAT64, value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (9999999.0, b"9999999.0"),
        (1e7, b"1.0E7"),
        (0.001, b"0.001"),
        (0.000999, b"9.99E-4"),
        (12.34, b"12.34"),  # the double 12.34 stands for the float 12.34f
        (12.340000152587890625, b"12.34"),  # the float 12.34f's exact value
        (3.4028234663852886e38, b"3.4028235E38"),  # Float.MAX_VALUE
        (0.1, b"0.1"),
    ],
)
def test_floats_at_the_float_to_string_boundaries(value: float, text: bytes) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.FLOAT32, value) == text


# DECIMAL(38,2) holding 36 integer digits: far beyond a double and Python's 28-digit context.
BIG = "123456789012345678901234567890123456.78"
# BigInteger("12345678901234567890123456789012345678").toByteArray(), base64
BIG_BASE64 = b"CUmw9vACMxPESZBQ3jjzTg=="
BIG_SCHEMA = (
    b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
    b'"version":1,"parameters":{"scale":"2"}}'
)


def test_a_38_digit_decimal_writes_exactly_as_a_number() -> None:
    conv = _converter(**{"decimal.format": "NUMERIC"})
    data = conv.from_connect_data(TOPIC, Decimal.schema(2), decimal.Decimal(BIG))
    assert data == b'{"schema":' + BIG_SCHEMA + b',"payload":' + BIG.encode() + b"}"


def test_a_38_digit_decimal_writes_exactly_as_base64() -> None:
    conv = _converter()
    data = conv.from_connect_data(TOPIC, Decimal.schema(2), decimal.Decimal(BIG))
    assert data == b'{"schema":' + BIG_SCHEMA + b',"payload":"' + BIG_BASE64 + b'"}'


@pytest.mark.parametrize("payload", [BIG.encode(), b'"' + BIG_BASE64 + b'"'])
def test_a_38_digit_decimal_reads_exactly_in_either_format(payload: bytes) -> None:
    for config in ({}, {"decimal.format": "NUMERIC"}):
        conv = _converter(**config)
        data = b'{"schema":' + BIG_SCHEMA + b',"payload":' + payload + b"}"
        for _ in range(2):  # the second read takes the cached-schema path
            got = conv.to_connect_data(TOPIC, data)
            assert str(got.value) == BIG
        assert str(conv.to_connect_batch([(TOPIC, data)])[0].value) == BIG


def test_a_numeric_decimal_with_scale_30_reads_without_a_context_error() -> None:
    conv = _converter()
    data = (
        b'{"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.'
        b'Decimal","version":1,"parameters":{"scale":"30"}},"payload":1.5}'
    )
    assert str(conv.to_connect_data(TOPIC, data).value) == "1." + "5" + "0" * 29


STRUCT_DEFAULT_BYTES = (
    b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"a"}],'
    b'"optional":true,"default":{"a":5}},"payload":{"a":5}}'
)


def _struct_with_default() -> tuple[Schema, Struct]:
    builder = SchemaBuilder.struct().field("a", Schema.INT32).optional()
    default = Struct(builder).put("a", 5)  # built on the builder, as Kafka does
    return builder.default_value(default).build(), default


def test_a_struct_default_is_written_in_the_schema_and_replaces_null() -> None:
    schema, _ = _struct_with_default()
    assert _converter().from_connect_data(TOPIC, schema, None) == STRUCT_DEFAULT_BYTES


def test_a_struct_default_reads_back() -> None:
    schema, default = _struct_with_default()
    data = STRUCT_DEFAULT_BYTES.replace(b'"payload":{"a":5}', b'"payload":null')
    got = _converter().to_connect_data(TOPIC, data)
    assert got.schema == schema
    assert got.value == default
    assert got.schema is not None and got.schema.default == default


def test_an_empty_struct_default_reads_back() -> None:
    data = b'{"schema":{"type":"struct","fields":[],"optional":false,"default":{}},"payload":null}'
    got = _converter().to_connect_data(TOPIC, data)
    assert got.schema is not None and got.schema.default is not None
    assert got.value == got.schema.default
