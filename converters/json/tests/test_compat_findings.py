"""Bytes and values the differential suite (compat/) found Kafka 4.1.1 gives, pinned here.

Each expectation is what Apache Kafka's own JsonConverter produced for the same input.
"""

from __future__ import annotations

import decimal

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import DataError, Decimal, Schema, SchemaBuilder, Struct

TOPIC = "topic"


def _converter(**config: str) -> JsonConverter:
    conv = JsonConverter()
    conv.configure(config, False)
    return conv


def test_a_null_key_of_a_string_keyed_map_is_the_member_null() -> None:
    schema = SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.INT32).build()
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, schema, {None: 1, "a": 2}) == b'{"null":1,"a":2}'


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.401298464324817e-45, b"1.4E-45"), (2.802596928649634e-45, b"2.8E-45"), (1e-3, b"0.001")],
)
def test_floats_with_one_shortest_digit_get_javas_two(value: float, text: bytes) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, Schema.FLOAT32, value) == text


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a":1}x', {"a": 1}),  # Jackson stops after the first value
        (b"[1] [2]", [1]),
        (b"\xef\xbb\xbf 1", 1),  # a byte order mark is skipped
        (b" 007 ", 7),
        (b"-1e400", float("-inf")),  # too large for a double
        (b'"\\udc00x"', "\udc00x"),  # a lone surrogate escape
    ],
)
def test_reads_what_jackson_reads(data: bytes, value: object) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.to_connect_data(TOPIC, data).value == value
    assert conv.to_connect_batch([(TOPIC, data)])[0].value == value


@pytest.mark.parametrize("data", [b"01x", b"truex", b" 12x"])
def test_a_root_number_or_literal_must_end_at_a_blank(data: bytes) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    with pytest.raises(DataError):
        conv.to_connect_data(TOPIC, data)


def test_an_int64_beyond_its_range_is_out_of_range_not_rounded() -> None:
    conv = _converter()
    data = b'{"schema":{"type":"int64","optional":false},"payload":-9223372036854775809}'
    with pytest.raises(DataError, match="out of range"):
        conv.to_connect_data(TOPIC, data)


def test_an_empty_base64_decimal_is_an_error_not_zero() -> None:
    conv = _converter()
    data = (
        b'{"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal",'
        b'"version":1,"parameters":{"scale":"2"}},"payload":""}'
    )
    with pytest.raises(DataError, match="Decimal"):
        conv.to_connect_data(TOPIC, data)
    with pytest.raises(DataError):
        Decimal.to_logical(Decimal.schema(2), b"")
    assert Decimal.to_logical(Decimal.schema(2), b"\x00") == decimal.Decimal("0.00")


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b"9223372036854775807", 2**63 - 1),
        (b"9223372036854775808", -(2**63)),  # BigInteger.longValue: the low 64 bits
        (b"-9223372036854775809", 2**63 - 1),
        (b"18446744073709551616", 0),
        (b"[18446744073709551615]", [-1]),
        (b'{"a":123456789012345678901234567890}', {"a": -4362896299872285998}),
        (b'{"a":"\\n","b":[1' + b"0" * 500 + b"]}", {"a": "\n", "b": [0]}),  # orjson: too big
        (b'{"a":"12345678901234567890","b":1.5e19}', {"a": "12345678901234567890", "b": 1.5e19}),
        (b" 0018446744073709551617 ", 1),  # leading zeros, on the lenient path
    ],
)
def test_schemaless_integers_beyond_int64_keep_their_low_64_bits(
    data: bytes, value: object
) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.to_connect_data(TOPIC, data).value == value
    batch = conv.to_connect_batch([(TOPIC, b"[1]"), (TOPIC, data), (TOPIC, None)])
    assert [sv.value for sv in batch] == [[1], value, None]
    enveloped = _converter()
    assert enveloped.to_connect_data(TOPIC, b'{"schema":null,"payload":' + data + b"}").value == (
        value
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (float("nan"), b'"NaN"'),
        ({"a": float("inf"), "b": None}, b'{"a":"Infinity","b":null}'),
        ([1e20, float("-inf"), b"\x01"], b'[1.0E20,"-Infinity","AQ=="]'),
        ({1: float("nan")}, b'[[1,"NaN"]]'),
        ({"a": [None, 1.5]}, b'{"a":[null,1.5]}'),
    ],
)
def test_schemaless_non_finite_doubles_are_javas_strings(value: object, text: bytes) -> None:
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data(TOPIC, None, value) == text
    batch = [(TOPIC, None, {"x": 1}), (TOPIC, None, value), (TOPIC, None, [None])]
    assert conv.from_connect_batch(batch) == [b'{"x":1}', text, b"[null]"]
    enveloped = _converter()
    assert enveloped.from_connect_batch(batch[1:2]) == [b'{"schema":null,"payload":' + text + b"}"]


@pytest.mark.parametrize(
    ("payload", "value"),
    [
        (b'"\\u0000"', b""),  # Jackson skips control characters and spaces between quanta
        (b'" AQ== AQID\\n"', b"\x01\x01\x02\x03"),
        (b'"AA==AQID"', b"\x00\x01\x02\x03"),  # and reads on after a padded quantum
    ],
)
def test_base64_bytes_read_as_jackson_reads_them(payload: bytes, value: bytes) -> None:
    data = b'{"schema":{"type":"bytes","optional":true},"payload":' + payload + b"}"
    conv = _converter(**{"schemas.enable": "true"})
    assert conv.to_connect_data(TOPIC, data).value == value
    assert conv.to_connect_batch([(TOPIC, data)])[0].value == value


@pytest.mark.parametrize("payload", [b'"AQI"', b'"SEBA="', b'"AAAA===="', b'"AQ=A"'])
def test_base64_jackson_refuses_is_an_error(payload: bytes) -> None:
    # Jackson requires the padding, and no "=" after a whole quantum.
    data = b'{"schema":{"type":"bytes","optional":true},"payload":' + payload + b"}"
    with pytest.raises(DataError, match="is not base64"):
        _converter(**{"schemas.enable": "true"}).to_connect_data(TOPIC, data)


def test_a_decimal_in_base64_text_with_blanks_reads_as_kafka() -> None:
    data = (
        b'{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal",'
        b'"parameters":{"scale":"2"},"optional":true},"payload":" BNI= "}'
    )
    value = _converter(**{"schemas.enable": "true"}).to_connect_data(TOPIC, data).value
    assert value == decimal.Decimal("12.34")


def test_an_int64_written_as_a_large_double_keeps_every_digit() -> None:
    # 1.2345678901234567e16 is 12345678901234568.0 as a double; Kafka reads the text's
    # exact value.
    conv = _converter(**{"schemas.enable": "true"})
    data = b'{"schema":{"type":"int64","optional":false},"payload":1.2345678901234567e16}'
    assert conv.to_connect_data(TOPIC, data).value == 12345678901234567
    keyed = (
        b'{"schema":{"type":"struct","fields":[{"type":"map","keys":{"type":"int64",'
        b'"optional":false},"values":{"type":"int32","optional":false},"optional":false,'
        b'"field":"n2"}],"optional":false},"payload":{"n2":[[1.2345678901234567e16,2]]}}'
    )
    for read in (conv.to_connect_data(TOPIC, keyed), conv.to_connect_batch([(TOPIC, keyed)])[0]):
        assert read.value.get("n2") == {12345678901234567: 2}


def test_a_decimal_default_past_64_bits_is_read() -> None:
    # The bytes Kafka 4.1.1 wrote for this schema and value, and read back.
    schema = (
        SchemaBuilder.struct()
        .field("key", Decimal.builder(0).default_value(decimal.Decimal(2**64)).build())
        .build()
    )
    data = (
        b'{"schema":{"type":"struct","fields":[{"type":"bytes","optional":false,'
        b'"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0"},'
        b'"default":18446744073709551616,"field":"key"}],"optional":false},"payload":{"key":5}}'
    )
    conv = _converter(**{"schemas.enable": "true", "decimal.format": "NUMERIC"})
    assert (
        conv.from_connect_data(TOPIC, schema, Struct(schema).put("key", decimal.Decimal(5))) == data
    )
    read = conv.to_connect_data(TOPIC, data)
    assert read.value.get("key") == 5
    assert read.schema.field("key").schema.default == 2**64


def test_without_schemas_a_default_that_cannot_be_written_is_no_error() -> None:
    # Kafka never converts the schema (nor its defaults) when schemas.enable=false: it
    # wrote [] for this empty array, whose element schema's default has a required null.
    a = SchemaBuilder.int64().default_value(-9759153).build()
    element = SchemaBuilder.struct().optional().field("a", a).build()
    schema = SchemaBuilder.array(
        SchemaBuilder.struct().optional().field("a", a).default_value(Struct(element)).build()
    ).build()
    conv = _converter(**{"schemas.enable": "false", "replace.null.with.default": "false"})
    assert conv.from_connect_data(TOPIC, schema, []) == b"[]"


def test_a_timestamp_past_int64_is_out_of_range_not_a_double() -> None:
    data = (
        b'{"schema":{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp",'
        b'"optional":false},"payload":18446744073709551616}'
    )
    with pytest.raises(DataError, match="18446744073709551616 is out of range for INT64"):
        _converter(**{"schemas.enable": "true"}).to_connect_data(TOPIC, data)
