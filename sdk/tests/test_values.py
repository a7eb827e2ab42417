"""Values: Kafka's string grammar, formatting and coercions.

Expected values follow Kafka's ValuesTest and are worked out by hand.
"""

from __future__ import annotations

import datetime as dt
import decimal
import struct as binary
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
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
from kconnect_sdk._values import _is_plain_string, _parse_temporal, _ValueParser

UTC = dt.UTC


def _f32(x: float) -> float:
    return float(binary.unpack("<f", binary.pack("<f", x))[0])


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ("true", Schema.BOOLEAN, True),
        (" false ", Schema.BOOLEAN, False),
        ("127", Schema.INT8, 127),
        ("128", Schema.INT16, 128),
        ("-129", Schema.INT16, -129),
        ("32768", Schema.INT32, 32768),
        ("2147483648", Schema.INT64, 2147483648),
        ("1e3", Schema.INT16, 1000),
        ("+5", Schema.INT8, 5),
        ("1.0", Schema.INT8, 1),
        ("1.5", Schema.FLOAT32, 1.5),
        # As Kafka: FLOAT32 (rounded to float precision) for any number finite as a float
        ("1.1", Schema.FLOAT32, 1.100000023841858),
        ("1e-50", Schema.FLOAT32, 0.0),
        ("1e300", Schema.FLOAT64, 1e300),
        ("9223372036854775808", Decimal.schema(0), decimal.Decimal("9223372036854775808")),
        ("1e400", Decimal.schema(-400), decimal.Decimal("1e400")),
        ("", Schema.STRING, ""),
        ("   ", Schema.STRING, "   "),
        ("hello world", Schema.STRING, "hello world"),
        ("true}", Schema.STRING, "true}"),
        ("[1, 2, 3,,,]", Schema.STRING, "[1, 2, 3,,,]"),
        ("[a, b]", Schema.STRING, "[a, b]"),
        # Kafka 4.1 reads a value from the start of the text and ignores the rest
        ("[1] tail", SchemaBuilder.array(Schema.INT8).build(), [1]),
        ("1:2", Schema.INT8, 1),
        ("1,2", Schema.INT8, 1),
        (
            "2019-08-23T14:34:54.346Z]x",
            Timestamp.SCHEMA,
            dt.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC),
        ),
        (".5", Schema.STRING, ".5"),
        # SimpleDateFormat is lenient: month 13 is January of the next year, day 45 of it
        # is February 14; days before 1582-10-15 are Julian ones
        ("2019-13-45", Date.SCHEMA, dt.date(2020, 2, 14)),
        ("2019-1-2xx", Date.SCHEMA, dt.date(2019, 1, 2)),
        ("1500-02-29", Date.SCHEMA, dt.date(1500, 3, 10)),
        ("2019-08-23", Date.SCHEMA, dt.date(2019, 8, 23)),
        ("14:34:54.346Z", Time.SCHEMA, dt.time(14, 34, 54, 346000, tzinfo=UTC)),
        (
            "2019-08-23T14:34:54.346Z",
            Timestamp.SCHEMA,
            dt.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC),
        ),
        ("[1, 2, 3]", SchemaBuilder.array(Schema.INT8).build(), [1, 2, 3]),
        ("[1, 300]", SchemaBuilder.array(Schema.INT16).build(), [1, 300]),
        ("[1, 2.5]", SchemaBuilder.array(Schema.FLOAT32).build(), [1.0, 2.5]),
        ("[true, false]", SchemaBuilder.array(Schema.BOOLEAN).build(), [True, False]),
        # Kafka aligns null with the required INT8 element schema, fails, keeps the string
        ("[1, null]", Schema.STRING, "[1, null]"),
        ('{"a": 1, "b": null}', Schema.STRING, '{"a": 1, "b": null}'),
        (
            # quoted strings keep their escapes (Kafka's reader does not undo them)
            '["a\\"b", "c,d"]',
            SchemaBuilder.array(Schema.STRING).build(),
            ['a\\"b', "c,d"],
        ),
        (
            '["2019-08-23", "2020-01-01"]',
            SchemaBuilder.array(Date.SCHEMA).build(),
            [dt.date(2019, 8, 23), dt.date(2020, 1, 1)],
        ),
        (
            '{"a": 1, "b": 2}',
            SchemaBuilder.map(Schema.STRING, Schema.INT8).build(),
            {"a": 1, "b": 2},
        ),
        (
            '{"k": [1, 2]}',
            SchemaBuilder.map(Schema.STRING, SchemaBuilder.array(Schema.INT8).build()).build(),
            {"k": [1, 2]},
        ),
        (
            "[[1, 2], [3]]",
            SchemaBuilder.array(SchemaBuilder.array(Schema.INT8).build()).build(),
            [[1, 2], [3]],
        ),
    ],
)
def test_parse_string_infers_kafkas_schema(text: str, schema: Schema, value: Any) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema == schema
    assert parsed.value == value
    assert type(parsed.value) is type(value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (None, None),
        ("null", None),
    ],
)
def test_parse_string_without_a_schema(text: str | None, value: Any) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema is None
    assert parsed.value == value


@pytest.mark.parametrize(
    ("text", "value", "key_schema"),
    [
        ('[1, 2, 3, "four"]', [1, 2, 3, "four"], None),  # no common element schema
        ("[]", [], None),
        ("[null, null]", [None, None], None),
        ("{}", {}, None),
        ('{"a": null}', {"a": None}, Schema.STRING),
        ('{"a": 1, "b": "x"}', {"a": 1, "b": "x"}, Schema.STRING),
        ('{"a": 1, 2: 1}', {"a": 1, 2: 1}, None),
    ],
)
def test_parse_string_untyped_containers_get_kafkas_array_or_map_schema(
    text: str, value: Any, key_schema: Schema | None
) -> None:
    parsed = Values.parse_string(text)
    assert parsed.schema is not None
    assert parsed.schema.type is (Type.ARRAY if text.startswith("[") else Type.MAP)
    assert parsed.schema.value_schema is None
    assert parsed.schema.key_schema == key_schema
    assert parsed.value == value


def test_parse_string_treats_absurd_nesting_as_a_string() -> None:
    text = "[" * 5000 + "]" * 5000
    assert Values.parse_string(text) == (Schema.STRING, text)


def _struct() -> Struct:
    schema = SchemaBuilder.struct().field("name", Schema.STRING).field("age", Schema.INT32).build()
    return Struct(schema).put("name", "Ann").put("age", 30)


@pytest.mark.parametrize(
    ("schema", "value", "text"),
    [
        (None, None, None),
        (None, 5, "5"),
        (None, True, "true"),
        (None, 'plain "top" level', 'plain "top" level'),
        (Schema.STRING, "bench", "bench"),
        (Schema.OPTIONAL_STRING, "", ""),
        (None, b"\x00\x01", "AAE="),
        (None, 1.5, "1.5"),
        (None, 100.0, "100.0"),
        (None, 1e7, "1.0E7"),
        (None, 0.001, "0.001"),
        (None, 0.0001, "1.0E-4"),
        (None, -1.25e-10, "-1.25E-10"),
        (None, float("nan"), "NaN"),
        (None, float("-inf"), "-Infinity"),
        (Schema.FLOAT32, _f32(1.1), "1.1"),
        (None, decimal.Decimal("1.28"), "1.28"),
        (None, [1, "a", None, True], '[1,"a",null,true]'),
        (None, ['a"b\\c'], '["a\\"b\\\\c"]'),
        (None, {"k": b"\x00\x01"}, '{"k":"AAE="}'),
        (None, dt.date(2024, 1, 1), "2024-01-01"),
        (None, dt.time(12, 34, 56, 789000, tzinfo=UTC), "12:34:56.789Z"),
        (None, dt.datetime(2024, 1, 1, 12, 34, 56, 789000, tzinfo=UTC), "2024-01-01T12:34:56.789Z"),
        (None, _struct(), '{"name":"Ann","age":30}'),
    ],
)
def test_convert_to_string_formats_as_kafka(
    schema: Schema | None, value: Any, text: str | None
) -> None:
    assert Values.convert_to_string(schema, value) == text


def test_convert_to_string_refuses_unknown_objects() -> None:
    with pytest.raises(DataError, match="cannot format a value of type object"):
        Values.convert_to_string(None, object())


@pytest.mark.parametrize(
    ("method", "schema", "value", "expected"),
    [
        ("convert_to_boolean", None, "true", True),
        ("convert_to_boolean", None, 0, False),
        ("convert_to_boolean", None, 2, True),
        ("convert_to_byte", None, "12", 12),
        ("convert_to_byte", None, 12.9, 12),
        ("convert_to_short", None, -12.9, -12),
        ("convert_to_integer", None, decimal.Decimal("7.5"), 7),
        ("convert_to_long", Date.SCHEMA, dt.date(2024, 1, 1), 19723),
        ("convert_to_long", Time.SCHEMA, dt.time(12, 34, 56, 789000, tzinfo=UTC), 45296789),
        ("convert_to_long", None, dt.datetime(2024, 1, 1, tzinfo=UTC), 1704067200000),
        ("convert_to_double", None, "1.5", 1.5),
        ("convert_to_float", None, 3, 3.0),
        ("convert_to_string", None, 42, "42"),
        ("convert_to_list", None, "[1, 2]", [1, 2]),
        ("convert_to_list", None, (1, 2), [1, 2]),
        ("convert_to_map", None, '{"a": 1}', {"a": 1}),
        ("convert_to_date", None, 19723, dt.date(2024, 1, 1)),
        ("convert_to_date", None, "2024-01-01", dt.date(2024, 1, 1)),
        (
            "convert_to_date",
            Timestamp.SCHEMA,
            dt.datetime(2024, 1, 1, 23, 59, tzinfo=UTC),
            dt.date(2024, 1, 1),
        ),
        ("convert_to_time", None, 45296789, dt.time(12, 34, 56, 789000, tzinfo=UTC)),
        (
            "convert_to_time",
            None,
            dt.datetime(2024, 1, 1, 1, 2, 3, tzinfo=UTC),
            dt.time(1, 2, 3, tzinfo=UTC),
        ),
        ("convert_to_timestamp", None, 1704067200000, dt.datetime(2024, 1, 1, tzinfo=UTC)),
        (
            "convert_to_timestamp",
            Date.SCHEMA,
            dt.date(2024, 1, 1),
            dt.datetime(2024, 1, 1, tzinfo=UTC),
        ),
        (
            "convert_to_timestamp",
            None,
            "2024-01-01T00:00:01.000Z",
            dt.datetime(2024, 1, 1, 0, 0, 1, tzinfo=UTC),
        ),
        ("convert_to_boolean", None, None, None),
        ("convert_to_long", None, None, None),
        ("convert_to_string", None, None, None),
    ],
)
def test_convert_to_coerces_like_kafka(
    method: str, schema: Schema | None, value: Any, expected: Any
) -> None:
    result = getattr(Values, method)(schema, value)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(
    ("method", "value", "message"),
    [
        ("convert_to_boolean", "yes", "not a number"),
        ("convert_to_byte", 300, r"outside \[-128, 127\]"),
        ("convert_to_integer", True, "booleans are not numbers"),
        ("convert_to_long", "abc", "not a number"),
        ("convert_to_double", [1], "unable to convert"),
        ("convert_to_list", 5, "unable to convert 5"),
        ("convert_to_map", "[1]", "unable to convert"),
        ("convert_to_struct", {"a": 1}, "only a Struct is a struct"),
        # Kafka converts to the required Date/Time/Timestamp/Decimal/struct schemas: null fails
        ("convert_to_struct", None, "null value to a schema that requires a value"),
        ("convert_to_date", None, "null value to a schema that requires a value"),
        ("convert_to_time", None, "null value to a schema that requires a value"),
        ("convert_to_timestamp", None, "null value to a schema that requires a value"),
        ("convert_to_date", dt.time(1, 0), "to a date"),
        ("convert_to_time", 86_400_000, "less than 86400000"),
    ],
)
def test_convert_to_refuses_with_data_error(method: str, value: Any, message: str) -> None:
    with pytest.raises(DataError, match=message):
        getattr(Values, method)(None, value)


def test_convert_to_decimal() -> None:
    assert Values.convert_to_decimal(None, b"\x00\x80", 2) == decimal.Decimal("1.28")
    assert Values.convert_to_decimal(None, 1.5, 2) == decimal.Decimal("1.5")
    assert Values.convert_to_decimal(None, "12.30", 2) == decimal.Decimal("12.30")
    with pytest.raises(DataError, match="with scale 2"):
        Values.convert_to_decimal(None, "x", 2)
    with pytest.raises(DataError, match="null value to a schema that requires a value"):
        Values.convert_to_decimal(None, None, 2)


def test_convert_to_struct_passes_structs_through() -> None:
    value = _struct()
    assert Values.convert_to_struct(value.schema, value) is value


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        (None, None),
        (True, Schema.BOOLEAN),
        (5, Schema.INT64),
        (2**63, None),
        (1.5, Schema.FLOAT64),
        ("s", Schema.STRING),
        (b"b", Schema.BYTES),
        (decimal.Decimal("1.28"), Decimal.schema(2)),
        (dt.date(2024, 1, 1), Date.SCHEMA),
        (dt.time(1, 0, tzinfo=UTC), Time.SCHEMA),
        (dt.datetime(2024, 1, 1, tzinfo=UTC), Timestamp.SCHEMA),
        ([1, None], SchemaBuilder.array(Schema.OPTIONAL_INT64).build()),
        ([1, "a"], None),
        ([], None),
        ({"a": 1.0}, SchemaBuilder.map(Schema.STRING, Schema.FLOAT64).build()),
        (object(), None),
    ],
)
def test_infer_schema(value: Any, schema: Schema | None) -> None:
    assert Values.infer_schema(value) == schema


def test_infer_schema_of_struct_is_its_schema() -> None:
    value = _struct()
    assert Values.infer_schema(value) is value.schema


def _plain(text: str) -> bool:
    """A string Kafka's reader gives back as written inside quotes: no escapes, no
    blanks (a blank-only token between delimiters is skipped), not a date or time."""
    return _parse_temporal(text) is None and not any(c in '\\"' or c <= " " for c in text)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_integers_round_trip_with_the_narrowest_type(number: int) -> None:
    parsed = Values.parse_string(Values.convert_to_string(None, number))
    assert parsed.value == number
    assert parsed.schema is not None
    expected = next(
        t
        for t, bits in ((Type.INT8, 8), (Type.INT16, 16), (Type.INT32, 32), (Type.INT64, 64))
        if -(2 ** (bits - 1)) <= number < 2 ** (bits - 1)
    )
    assert parsed.schema.type is expected


@given(st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_floats_round_trip_numerically(number: float) -> None:
    # Java's shortest digits may read back as an integer type (1.0E7 -> INT32), as in Kafka;
    # a number with a float form comes back unchanged.
    assert float(Values.parse_string(Values.convert_to_string(None, number)).value) == number


def test_doubles_parse_as_float32_like_kafka() -> None:
    # Kafka's parseString gives FLOAT32 for every non-integral number finite as a float,
    # so a double's digits come back rounded to float precision.
    parsed = Values.parse_string(Values.convert_to_string(None, 0.1))
    assert parsed.schema == Schema.FLOAT32
    assert parsed.value == binary.unpack("<f", binary.pack("<f", 0.1))[0]


@given(st.lists(st.text().filter(_plain), min_size=1))
def test_string_lists_round_trip(items: list[str]) -> None:
    schema = SchemaBuilder.array(Schema.STRING).build()
    parsed = Values.parse_string(Values.convert_to_string(schema, items))
    assert parsed == (schema, items)


@given(
    st.dictionaries(
        st.text(min_size=1).filter(_plain),
        st.integers(min_value=-(2**31), max_value=2**31 - 1),
        min_size=1,
    )
)
def test_string_to_int_maps_round_trip(items: dict[str, int]) -> None:
    parsed = Values.parse_string(Values.convert_to_string(None, items))
    assert parsed.value == items
    assert parsed.schema is not None and parsed.schema.key_schema == Schema.STRING


@given(st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)))
def test_timestamps_round_trip_at_millisecond_precision(moment: dt.datetime) -> None:
    value = moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=UTC)
    assert Values.parse_string(Values.convert_to_string(None, value)) == (Timestamp.SCHEMA, value)


@given(st.dates())
def test_dates_round_trip(day: dt.date) -> None:
    assert Values.parse_string(Values.convert_to_string(None, day)) == (Date.SCHEMA, day)


@pytest.mark.parametrize(
    ("schema", "value", "text"),
    [
        # Java writes at least two digits: the two-digit decimal closest to the value.
        (Schema.FLOAT64, 5e-324, "4.9E-324"),
        (Schema.FLOAT64, 1e-323, "9.9E-324"),
        (Schema.FLOAT32, 1.401298464324817e-45, "1.4E-45"),
        # The largest float: a shorter candidate (3.4028235e38) overflows a float.
        (Schema.FLOAT32, 3.4028234663852886e38, "3.4028235E38"),
    ],
)
def test_floats_format_as_java_at_the_ends_of_their_range(
    schema: Schema, value: float, text: str
) -> None:
    assert Values.convert_to_string(schema, value) == text


def test_parse_string_trims_as_java_trim_does() -> None:
    # String.trim() removes characters up to U+0020 only: U+2029 keeps "null" a string.
    assert Values.parse_string("\u2029null") == SchemaAndValue(Schema.STRING, "\u2029null")
    assert Values.parse_string(" 1 ") == SchemaAndValue(Schema.INT8, 1)


# One-token texts on both sides of every test the plain-string shortcut makes: what it
# answers must be what the full parser answers (Kafka's results, worked out by hand).
_ONE_TOKEN_STRINGS = [
    "bench",
    "x y",
    " padded ",
    "\tbench\n",
    " ",
    "\x00",
    "T",
    "é",
    "nul",
    "nullx",
    "truex",
    "False",  # the literals are lower case only
    "NULL",
    "\u2029true",  # U+2029 is no blank to String.trim()
    "a\\b",  # an escape of no delimiter
    "Infinity",
    "NaN",
    ".5",  # a number, but the parser only tries numbers that start with a digit or a sign
    "e5",
    "v2.3-beta",
]
_FULL_PARSER_TEXTS = [
    "null",
    " true ",
    "false",
    "1",
    " 12 ",
    "+",
    "-",
    "+x",
    "-bench",
    "1x",
    "2020-01-01",
    "\u0663",  # ARABIC-INDIC DIGIT THREE: a digit to Java's Character.isDigit
    "a:b",
    "a,b",
    "[1]",
    "{a:1}",
    '"quoted"',
    "ends]",
]


@pytest.mark.parametrize("text", _ONE_TOKEN_STRINGS)
def test_parse_string_reads_one_plain_token_as_itself(text: str) -> None:
    assert _is_plain_string(text)
    parsed = Values.parse_string(text)
    assert parsed == SchemaAndValue(Schema.STRING, text)
    assert type(parsed) is SchemaAndValue
    # The full parser, which the shortcut skips, reads the same.
    assert _ValueParser(text).parse(embedded=False) == parsed


@pytest.mark.parametrize("text", _FULL_PARSER_TEXTS)
def test_parse_string_leaves_literals_numbers_dates_and_structure_to_the_parser(
    text: str,
) -> None:
    assert not _is_plain_string(text)
    full = _ValueParser(text).parse(embedded=False)
    assert Values.parse_string(text) == (SchemaAndValue(None, None) if full is None else full)


def test_parse_string_of_a_plain_token_is_what_a_header_converter_reads() -> None:
    assert Values.parse_string("bench") == SchemaAndValue(Schema.STRING, "bench")
    assert Values.parse_string("-bench") == SchemaAndValue(Schema.STRING, "-bench")
    assert Values.parse_string(" true ") == SchemaAndValue(Schema.BOOLEAN, True)
    assert Values.parse_string("\u0663") == SchemaAndValue(Schema.INT8, 3)


def test_container_elements_convert_to_their_common_schema_as_kafka() -> None:
    # What Kafka 4.1.1's Values.parseString gave for these texts: its SchemaMerger merges
    # by type alone (an INT32 and a Timestamp make a Timestamp, an INT64 and a FLOAT32 a
    # FLOAT32) and converts every element to the merged schema.
    parsed = Values.parse_string('{"a":14,"n2":-7.2515E7,"c":2106-02-09T15:08:56.664Z}')
    assert parsed.schema == SchemaBuilder.map(Schema.STRING, Timestamp.SCHEMA).build()
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    assert parsed.value == {
        "a": epoch + dt.timedelta(milliseconds=14),
        "n2": epoch + dt.timedelta(milliseconds=-72515000),
        "c": epoch + dt.timedelta(milliseconds=4295171336664),
    }
    floats = Values.parse_string("[1.0E16,6.6618E7,-2.8809E27,1.0E7]")
    assert floats.schema == SchemaBuilder.array(Schema.FLOAT32).build()
    assert floats.value == [1.0000000272564224e16, 66618000.0, -2.8809000380800844e27, 1e7]
    days = Values.parse_string("[1,2020-01-01]")
    assert days.value == [dt.date(1970, 1, 2), dt.date(2020, 1, 1)]
    # A time of day under a Timestamp is that instant on 1970-01-01.
    instants = Values.parse_string("[12:00:00.000Z,2020-01-01T00:00:01.000Z]")
    assert instants.value[0] == epoch + dt.timedelta(hours=12)
    # A Timestamp and a FLOAT32 merge to FLOAT32, which a date cannot be: a string.
    assert Values.parse_string("[2020-01-01T00:00:01.000Z,1.5]").schema == Schema.STRING


def test_convert_to_float_rounds_to_float_precision_as_java() -> None:
    # Kafka's convertToFloat is (float) of the double: 9e99 is Infinity, 0.1 is 0.1f.
    assert Values.convert_to_float(None, "9e99") == float("inf")
    assert Values.convert_to_float(None, 0.1) == binary.unpack("<f", binary.pack("<f", 0.1))[0]
