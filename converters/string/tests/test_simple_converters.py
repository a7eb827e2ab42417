"""Golden bytes worked out by hand from Kafka's serializer formats (big-endian, IEEE-754)."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_converter_string import (
    BooleanConverter,
    ByteArrayConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
    StringConverter,
)
from kconnect_sdk import (
    ConfigError,
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

NUMBER_CASES: list[tuple[type[Any], Any, bytes, Schema]] = [
    # 12345 = 0x3039; -2 in 16-bit two's complement is 0xFFFE
    (ShortConverter, 12345, b"\x30\x39", Schema.OPTIONAL_INT16),
    (ShortConverter, -2, b"\xff\xfe", Schema.OPTIONAL_INT16),
    (ShortConverter, -(2**15), b"\x80\x00", Schema.OPTIONAL_INT16),
    (IntegerConverter, 0x12345678, b"\x12\x34\x56\x78", Schema.OPTIONAL_INT32),
    (IntegerConverter, -1, b"\xff\xff\xff\xff", Schema.OPTIONAL_INT32),
    (LongConverter, 1, b"\x00\x00\x00\x00\x00\x00\x00\x01", Schema.OPTIONAL_INT64),
    (LongConverter, -(2**63), b"\x80\x00\x00\x00\x00\x00\x00\x00", Schema.OPTIONAL_INT64),
    (LongConverter, 1700000000000, b"\x00\x00\x01\x8b\xcf\xe5\x68\x00", Schema.OPTIONAL_INT64),
    # 1.0f: exponent 127 -> 0x3F800000; -2.5f = -1.25 * 2^1: sign 1, exponent 128 -> 0xC0200000
    (FloatConverter, 1.0, b"\x3f\x80\x00\x00", Schema.OPTIONAL_FLOAT32),
    (FloatConverter, -2.5, b"\xc0\x20\x00\x00", Schema.OPTIONAL_FLOAT32),
    # 1.0 -> 0x3FF0000000000000; 0.1 -> 0x3FB999999999999A (round-to-nearest of 0x...9999.99)
    (DoubleConverter, 1.0, b"\x3f\xf0\x00\x00\x00\x00\x00\x00", Schema.OPTIONAL_FLOAT64),
    (DoubleConverter, 0.1, b"\x3f\xb9\x99\x99\x99\x99\x99\x9a", Schema.OPTIONAL_FLOAT64),
]


def _configured(cls: type[Any], is_key: bool = False, **configs: str) -> Any:
    converter = cls()
    converter.configure(configs, is_key)
    return converter


@pytest.mark.parametrize(("cls", "value", "wire", "schema"), NUMBER_CASES)
def test_numbers_match_kafka_serializer_bytes(
    cls: type[Any], value: Any, wire: bytes, schema: Schema
) -> None:
    for is_key in (True, False):
        converter = _configured(cls, is_key)
        assert converter.from_connect_data("t", schema, value) == wire
        assert converter.to_connect_data("t", wire) == SchemaAndValue(schema, value)
    header = _configured(cls)
    assert header.from_connect_header("t", "h", None, value) == wire
    assert header.to_connect_header("t", "h", wire) == SchemaAndValue(schema, value)


@pytest.mark.parametrize(
    ("cls", "size"),
    [
        (ShortConverter, 2),
        (IntegerConverter, 4),
        (LongConverter, 8),
        (FloatConverter, 4),
        (DoubleConverter, 8),
    ],
)
def test_wrong_size_names_the_expected_size(cls: type[Any], size: int) -> None:
    with pytest.raises(DataError, match=rf"is not {size} \(got 3 bytes\)") as info:
        _configured(cls).to_connect_data("orders", b"abc")
    assert "'orders'" in str(info.value)


@pytest.mark.parametrize(
    "cls",
    [
        ShortConverter,
        IntegerConverter,
        LongConverter,
        FloatConverter,
        DoubleConverter,
        BooleanConverter,
        StringConverter,
        ByteArrayConverter,
    ],
)
def test_null_is_a_tombstone_both_ways(cls: type[Any]) -> None:
    converter = _configured(cls)
    assert converter.from_connect_data("t", None, None) is None
    result = converter.to_connect_data("t", None)
    assert result.value is None
    assert result.schema is not None and result.schema.optional


def test_integer_out_of_range_and_wrong_type_are_data_errors() -> None:
    with pytest.raises(DataError, match=r"java\.lang\.Long"):  # no Short holds 40000
        _configured(ShortConverter).from_connect_data("t", None, 40000)
    with pytest.raises(DataError, match="must be a number"):
        _configured(IntegerConverter).from_connect_data("t", None, "12")
    with pytest.raises(DataError, match="must be a number"):
        _configured(LongConverter).from_connect_data("t", None, True)
    with pytest.raises(DataError, match="fit in a float"):
        _configured(FloatConverter).from_connect_data("t", None, 1e300)


def test_number_batches_match_single_conversion() -> None:
    converter = _configured(IntegerConverter)
    assert converter.from_connect_batch([("t", None, 1), ("t", None, None)]) == [
        b"\x00\x00\x00\x01",
        None,
    ]
    assert converter.to_connect_batch([("t", b"\x00\x00\x01\x00"), ("t", None)]) == [
        SchemaAndValue(Schema.OPTIONAL_INT32, 256),
        SchemaAndValue(Schema.OPTIONAL_INT32, None),
    ]
    with pytest.raises(DataError, match="is not 4"):
        converter.to_connect_batch([("t", b"\x00")])


def test_boolean_is_one_byte() -> None:
    converter = _configured(BooleanConverter)
    assert converter.from_connect_data("t", Schema.BOOLEAN, True) == b"\x01"
    assert converter.from_connect_data("t", None, False) == b"\x00"
    assert converter.to_connect_data("t", b"\x01") == SchemaAndValue(Schema.OPTIONAL_BOOLEAN, True)
    assert converter.to_connect_data("t", b"\x00") == SchemaAndValue(Schema.OPTIONAL_BOOLEAN, False)
    with pytest.raises(DataError, match="0x02"):
        converter.to_connect_data("t", b"\x02")
    with pytest.raises(DataError, match="is not 1"):
        converter.to_connect_data("t", b"\x00\x01")
    with pytest.raises(DataError, match="Invalid schema type for BooleanConverter: string"):
        converter.from_connect_data("t", Schema.STRING, True)
    with pytest.raises(DataError, match="type int"):
        converter.from_connect_data("t", None, 1)


def test_string_converter_defaults_to_utf8() -> None:
    converter = _configured(StringConverter)
    # 'é' is U+00E9 -> UTF-8 C3 A9
    assert converter.from_connect_data("t", Schema.STRING, "héllo") == b"h\xc3\xa9llo"
    assert converter.to_connect_data("t", b"h\xc3\xa9llo") == SchemaAndValue(
        Schema.OPTIONAL_STRING, "héllo"
    )


def test_string_converter_uses_configured_encoding() -> None:
    latin1 = _configured(StringConverter, **{"converter.encoding": "ISO-8859-1"})
    assert latin1.from_connect_data("t", None, "héllo") == b"h\xe9llo"
    assert latin1.to_connect_data("t", b"h\xe9llo").value == "héllo"
    # Java's UTF-16 writes a big-endian byte order mark then big-endian code units.
    utf16 = _configured(StringConverter, **{"converter.encoding": "UTF-16"})
    assert utf16.from_connect_data("t", None, "hi") == b"\xfe\xff\x00h\x00i"
    assert utf16.from_connect_data("t", None, "") == b""  # Java: "".getBytes("UTF-16")
    assert utf16.to_connect_data("t", b"\xfe\xff\x00h\x00i").value == "hi"
    assert utf16.to_connect_batch([("t", b"\x00h\x00i")])[0].value == "hi"


def test_string_converter_writes_non_strings_as_text() -> None:
    converter = _configured(StringConverter)
    assert converter.from_connect_data("t", Schema.INT64, 42) == b"42"
    assert converter.from_connect_data("t", Schema.BOOLEAN, True) == b"true"
    assert converter.from_connect_batch([("t", None, "a"), ("t", None, 7), ("t", None, None)]) == [
        b"a",
        b"7",
        None,
    ]


def test_string_batches_match_single_conversion_whatever_the_batch_holds() -> None:
    converter = _configured(StringConverter)
    batches: list[list[tuple[str, bytes | None]]] = [
        [("t", "ä €".encode()), ("t", b"plain")],  # all bytes: the C-level pass
        [("t", None), ("t", None)],  # e.g. keys never set: one shared result
        [("t", b"a"), ("t", None), ("t", b"c")],  # nulls among values
        [("t", bytearray(b"ba")), ("t", b"b")],  # not all bytes
        [],
    ]
    for batch in batches:
        assert converter.to_connect_batch(batch) == [converter.to_connect_data(*i) for i in batch]
        assert all(sv.schema == Schema.OPTIONAL_STRING for sv in converter.to_connect_batch(batch))
        # A sink's one-topic batch as two columns: the same schemas and values.
        datas = [data for _, data in batch]
        schemas, values = converter.to_connect_columns("t", datas)
        singles = [converter.to_connect_data("t", data) for data in datas]
        assert list(schemas) == [sv.schema for sv in singles]
        assert list(values) == [sv.value for sv in singles]
    utf16 = _configured(StringConverter, **{"converter.encoding": "UTF-16LE"})
    assert utf16.to_connect_columns("t", [b"a\x00", b"\xff"])[1] == ["a", "\ufffd"]
    assert converter.to_connect_columns("t", [b"ok", b"a\xffb"])[1] == ["ok", "a\ufffdb"]
    written = [("t", None, "ä €"), ("t", None, "b")]
    assert converter.from_connect_batch(written) == ["ä €".encode(), b"b"]
    # A lone surrogate has no UTF-8 form: Java's String.getBytes writes "?" for it.
    assert converter.from_connect_batch([("t", None, "ok"), ("t", None, "a\ud800")]) == [
        b"ok",
        b"a?",
    ]
    # A source's columnar batch (one topic, one schema): what the items would give.
    columns: list[list[Any]] = [
        ["ä €", "b"],  # all strings: the C-level pass
        [None, None],  # keys never set
        ["a", None, 7, True, 2.5, b"\x01"],  # others, written with Java's toString
        ["ok", "a\ud800"],
        [],
    ]
    for values in columns:
        items = [("t", None, v) for v in values]
        assert converter.from_connect_columns("t", None, values) == converter.from_connect_batch(
            items
        )
    assert converter.from_connect_columns("t", None, ["ok", "a\ud800"]) == [b"ok", b"a?"]


def test_string_converter_replaces_what_the_charset_cannot_hold_as_java_does() -> None:
    # Kafka's StringSerializer/Deserializer use String.getBytes and new String(bytes):
    # malformed bytes read as U+FFFD, unmappable characters are written as "?".
    converter = _configured(StringConverter)
    assert converter.to_connect_data("logs", b"a\xffb").value == "a\ufffdb"
    assert [
        sv.value for sv in converter.to_connect_batch([("logs", b"ok"), ("logs", b"\xff")])
    ] == [
        "ok",
        "\ufffd",
    ]
    with pytest.raises(ConfigError, match=r"converter\.encoding"):
        _configured(StringConverter, **{"converter.encoding": "no-such-charset"})
    ascii_ = _configured(StringConverter, **{"converter.encoding": "US-ASCII"})
    assert ascii_.from_connect_data("t", None, "é\U0001d11ex") == b"??x"


def test_malformed_utf16_reads_as_javas_decoder_reads_it() -> None:
    # Texts Kafka 4.1.1's StringConverter read from the same bytes: a high surrogate
    # followed by another unit drops both units; a last odd byte is one U+FFFD.
    utf16le = _configured(StringConverter, **{"converter.encoding": "UTF-16LE"})
    assert (
        utf16le.to_connect_data("t", b"K\x0bZ\xdbdm\x1b\x8d9").value == "\u0b4b\ufffd\u8d1b\ufffd"
    )
    utf16be = _configured(StringConverter, **{"converter.encoding": "UTF-16BE"})
    assert utf16be.to_connect_data("t", b"\x00\xd8A").value == "\u00d8\ufffd"
    assert utf16be.to_connect_data("t", b"\xd8\x00\xdc").value == "\ufffd"
    utf16 = _configured(StringConverter, **{"converter.encoding": "UTF-16"})
    assert utf16.to_connect_batch([("t", b"\xff\xfeA\x00\x00\xdcA\x00")])[0].value == "A\ufffdA"


def test_string_converter_writes_other_values_with_javas_to_string() -> None:
    # Bytes Kafka 4.1.1's StringConverter wrote for the same values (compat/ compares them).
    converter = _configured(StringConverter)
    struct_schema = (
        SchemaBuilder.struct().field("c", Schema.BOOLEAN).field("n", Schema.OPTIONAL_INT32).build()
    )
    cases = [
        (Schema.FLOAT64, 84897000000.0, b"8.4897E10"),
        (Schema.FLOAT64, -1.7976931348623157e308, b"-1.7976931348623157E308"),
        (Schema.FLOAT32, 0.0017142947763204575, b"0.0017142948"),
        (
            Timestamp.SCHEMA,
            dt.datetime(1969, 9, 22, 0, 40, 21, 423000, tzinfo=dt.UTC),
            b"Mon Sep 22 00:40:21 UTC 1969",
        ),
        (Time.SCHEMA, dt.time(9, 50, 23, 939000, tzinfo=dt.UTC), b"Thu Jan 01 09:50:23 UTC 1970"),
        (Date.SCHEMA, dt.date(1, 1, 1), b"Mon Jan 03 00:00:00 UTC 1"),  # Julian before 1582
        (Date.SCHEMA, dt.date(1582, 10, 15), b"Fri Oct 15 00:00:00 UTC 1582"),
        (None, {"ü": False, "k": [1.5, None, "a"]}, "{ü=false, k=[1.5, null, a]}".encode()),
        (struct_schema, Struct(struct_schema).put("c", False), b"Struct{c=false}"),
        (Decimal.schema(-2), decimal.Decimal("5E+2"), b"5E+2"),
    ]
    for schema, value, expected in cases:
        assert converter.from_connect_data("t", schema, value) == expected


def test_byte_array_converter_passes_bytes_through() -> None:
    converter = _configured(ByteArrayConverter)
    assert converter.from_connect_data("t", Schema.BYTES, b"\x00\xff") == b"\x00\xff"
    assert converter.from_connect_data("t", None, bytearray(b"ab")) == b"ab"
    assert converter.to_connect_data("t", b"\x00\xff") == SchemaAndValue(
        Schema.OPTIONAL_BYTES, b"\x00\xff"
    )
    with pytest.raises(DataError, match="type str"):
        converter.from_connect_data("t", None, "text")
    with pytest.raises(DataError, match="Invalid schema type for ByteArrayConverter: int32"):
        converter.from_connect_data("t", Schema.INT32, b"\x00")


def test_every_converter_reports_its_version() -> None:
    assert _configured(StringConverter).version() == "0.1.0"


def test_number_converters_refuse_a_value_of_another_schema_type() -> None:
    # Kafka's serializers cast to their own class: a Byte (INT8) is not a Short.
    short = _configured(ShortConverter)
    assert short.from_connect_data("t", Schema.INT16, 5) == b"\x00\x05"
    assert short.from_connect_data("t", None, 5) == b"\x00\x05"
    with pytest.raises(DataError, match=r"java\.lang\.Byte"):
        short.from_connect_data("t", Schema.INT8, 5)
    with pytest.raises(DataError, match=r"java\.lang\.Integer"):
        _configured(DoubleConverter).from_connect_data("t", Schema.INT32, 5)


def test_number_converters_ignore_a_schema_that_does_not_describe_the_value() -> None:
    # Kafka's NumberConverter never reads the schema: a double under a BOOLEAN schema is
    # still a Double, and Kafka 4.1.1's DoubleConverter wrote these bytes for it.
    written = _configured(DoubleConverter).from_connect_data("t", Schema.BOOLEAN, -670120000.0)
    assert written == bytes.fromhex("c1c3f89c20000000")
    with pytest.raises(DataError, match=r"java\.lang\.Boolean"):
        _configured(DoubleConverter).from_connect_data("t", Schema.BOOLEAN, True)
    # An int the schema does not describe is a Long, which Kafka's DoubleConverter refuses
    # ("Failed to serialize to double (was class java.lang.Long)"); without a schema it is
    # taken as the converter's own type.
    with pytest.raises(DataError, match=r"java\.lang\.Long"):
        _configured(DoubleConverter).from_connect_data("t", Schema.BOOLEAN, 255)
    # An int its INT16 schema cannot hold is no Short either: Kafka's ShortConverter
    # said "was class java.lang.Long".
    with pytest.raises(DataError, match=r"java\.lang\.Long"):
        _configured(ShortConverter).from_connect_data("t", Schema.INT16, -330336749198)
    assert _configured(DoubleConverter).from_connect_data("t", None, 255) == bytes.fromhex(
        "406fe00000000000"
    )
