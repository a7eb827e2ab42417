"""kconnect_speedups._json on its own: doubles as Java writes them, the flat encoder's
hand-backs, the schemaless decode loop and its JSON parser (against orjson). (The JSON
converter's tests run on this module and on the pure-Python code, and compare the two on
random batches.)"""

from __future__ import annotations

import base64
import decimal
import gc
import json
import math
import random
import struct
from typing import Any, NamedTuple

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kconnect_speedups import _json


def java_double(value: float) -> bytes:
    """Java's Double.toString, written from Python's shortest digits (repr)."""
    magnitude = abs(value)
    if magnitude == 0.0 or 1e-3 <= magnitude < 1e7:
        return repr(value).encode()
    _, digits, exponent = decimal.Decimal(repr(magnitude)).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + exponent - 1
    if len(text) == 1:
        # At least two digits: the two closest to the value when they read back as it.
        two = f"{decimal.Decimal(magnitude):.1e}"
        if float(two) == magnitude:
            text, power = two[0] + two[2].rstrip("0"), int(two[4:])
    sign = "-" if value < 0 else ""
    return f"{sign}{text[0]}.{text[1:] or '0'}E{power}".encode()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, b"0.0"),
        (-0.0, b"-0.0"),
        (1.0, b"1.0"),
        (20.99, b"20.99"),
        (0.001, b"0.001"),
        (0.00099, b"9.9E-4"),
        (1e7, b"1.0E7"),
        (9999999.999, b"9999999.999"),
        (123456789.5, b"1.234567895E8"),
        (1e16, b"1.0E16"),
        (-1.5e-5, b"-1.5E-5"),
        (5e-324, b"4.9E-324"),  # at least two digits: the two closest to the value
        (1e-323, b"9.9E-324"),
        (-5e-323, b"-4.9E-323"),
        (1.7976931348623157e308, b"1.7976931348623157E308"),
        (0.1 + 0.2, b"0.30000000000000004"),
    ],
)
def test_doubles_as_java_writes_them(value: float, text: bytes) -> None:
    assert _json.format_double(value) == text


@settings(max_examples=3000, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(1, 2**20).map(lambda bits: struct.unpack("<d", struct.pack("<q", bits))[0])
)
def test_any_double_as_java_writes_it(value: float) -> None:
    assert _json.format_double(value) == java_double(value)


def test_short_decimal_path_is_repr() -> None:
    """The paths that skip dtoa, against repr on 400,000 doubles of the shapes records
    hold (a few decimals, sums that carry 17 digits such as 19.99 + 13), their neighbours
    and the ends of binades; inside [1e-3, 1e7) every one takes them."""
    rnd = random.Random(23)
    taken = 0
    for _ in range(400_000):
        pick = rnd.random()
        if pick < 0.2:
            value = rnd.uniform(1e-3, 1e7)
        elif pick < 0.4:
            value = rnd.randint(-(10**12), 10**12) / 10 ** rnd.randint(0, 15)
        elif pick < 0.55:
            value = math.nextafter(rnd.randint(1, 10**6) / 10 ** rnd.randint(0, 9), math.inf)
        elif pick < 0.7:
            value = 19.99 + rnd.randint(0, 10**6)
        elif pick < 0.8:
            power = math.ldexp(1.0, rnd.randint(-10, 23))
            value = rnd.choice([power, math.nextafter(power, 0), math.nextafter(power, math.inf)])
        else:
            value = struct.unpack("<d", rnd.randbytes(8))[0]
        fast = _json.short_double(value)
        if 1e-3 <= abs(value) < 1e7:
            assert fast == repr(value).encode(), value
            taken += 1
        else:
            assert fast is None, value
    assert taken > 250_000


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_doubles_have_no_text(value: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        _json.format_double(value)


class Box:
    """A stand-in for kconnect's Struct: two slots."""

    __slots__ = ("_values", "schema")

    def __init__(self, schema: object, values: list[Any]) -> None:
        self.schema = schema
        self._values = values


SCHEMA = object()
KEYS = (b'{"n":', b',"x":', b',"b":', b',"s":', b',"o":')
KINDS = (0, 4, 5, 6, 3)  # int8, float64, boolean, string, int64
NULLABLE = (False, False, False, False, True)


def encoder() -> _json.FlatEncoder:
    return _json.FlatEncoder(SCHEMA, KEYS, KINDS, NULLABLE, Box)


def test_flat_encoder_writes_json() -> None:
    rows = [
        Box(SCHEMA, [-128, 2.5, True, 'a"\\\x01é', None]),
        Box(SCHEMA, [127, 1e20, False, "", 2**63 - 1]),
    ]
    out = encoder().encode(rows)
    assert out == [
        b'{"n":-128,"x":2.5,"b":true,"s":"a\\"\\\\\\u0001\xc3\xa9","o":null}',
        b'{"n":127,"x":1.0E20,"b":false,"s":"","o":9223372036854775807}',
    ]
    assert orjson.loads(out[0])["s"] == 'a"\\\x01é'
    assert encoder().encode(rows, b"<") == [b"<" + b + b"}" for b in out]
    items = [("t", SCHEMA, r) for r in rows]
    assert encoder().encode_items(items, b"<") == [b"<" + b + b"}" for b in out]


@pytest.mark.parametrize(
    "values",
    [
        pytest.param([128, 2.5, True, "s", 1], id="int8 out of range"),
        pytest.param([1, 2.5, True, "s", 2**63], id="int64 out of range"),
        pytest.param([True, 2.5, True, "s", 1], id="bool for an int"),
        pytest.param([1, 2, True, "s", 1], id="int for a double"),
        pytest.param([1, math.nan, True, "s", 1], id="nan"),
        pytest.param([1, -math.inf, True, "s", 1], id="infinity"),
        pytest.param([1, 2.5, 1, "s", 1], id="int for a boolean"),
        pytest.param([1, 2.5, True, "\ud800", 1], id="lone surrogate"),
        pytest.param([1, 2.5, True, None, 1], id="null in a required field"),
        pytest.param([1, 2.5, True, "s"], id="too few values"),
    ],
)
def test_flat_encoder_hands_back_what_it_does_not_write(values: list[Any]) -> None:
    good = Box(SCHEMA, [1, 2.5, True, "s", 1])
    assert encoder().encode([good]) is not None
    assert encoder().encode([good, Box(SCHEMA, values)]) is None


def test_flat_encoder_hands_back_other_schemas_and_classes() -> None:
    good = Box(SCHEMA, [1, 2.5, True, "s", 1])
    assert encoder().encode([good, Box(object(), [1, 2.5, True, "s", 1])]) is None
    assert encoder().encode([good, {"n": 1}]) is None
    assert encoder().encode_items([("t", SCHEMA, good), ("t", object(), good)]) is None
    assert encoder().encode([]) == []


class SV(NamedTuple):
    schema: Any
    value: Any


NULL = SV(None, None)


def long_loads(data: Any) -> Any:
    return ("long_loads", bytes(data))


def test_decode_schemaless() -> None:
    items = [("t", b'{"a":[1,2.5,null]}'), ("t", None), ("t", b'"x"')]
    out = _json.decode_schemaless(items, orjson.loads, SV, NULL, long_loads)
    assert out == [SV(None, {"a": [1, 2.5, None]}), NULL, SV(None, "x")]
    assert all(type(sv) is SV for sv in out)
    assert out[1] is NULL


def test_decode_schemaless_raises_what_loads_raises_and_restores_the_collector() -> None:
    assert gc.isenabled()
    with pytest.raises(orjson.JSONDecodeError):
        _json.decode_schemaless([("t", b"{}"), ("t", b"{bad")], orjson.loads, SV, NULL, long_loads)
    assert gc.isenabled()
    gc.disable()
    try:
        _json.decode_schemaless([("t", b"1")], orjson.loads, SV, NULL, long_loads)
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


def test_flat_encoder_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="one length"):
        _json.FlatEncoder(SCHEMA, KEYS, KINDS[:2], NULLABLE, Box)
    with pytest.raises(ValueError, match="unknown field kind"):
        _json.FlatEncoder(SCHEMA, KEYS[:1], (42,), (False,), Box)
    with pytest.raises(TypeError, match="FlatEncoder"):
        _json.FlatEncoder(SCHEMA, KEYS[:1], (7,), (False,), Box, None, (None,))
    half = _json.FlatEncoder.__new__(_json.FlatEncoder)
    with pytest.raises(TypeError, match="not initialised"):
        half.encode([])


def test_nested_defaults_and_calls() -> None:
    child = _json.FlatEncoder(SCHEMA, (b'{"v":',), (0,), (True,), Box)
    outer_schema = object()
    outer = _json.FlatEncoder(
        outer_schema,
        (b'{"c":', b',"d":', b',"b":'),
        (7, 3, 8),
        (True, False, False),
        Box,
        (None, b"7", None),
        (child, None, (bytes, lambda b: b.hex())),
    )
    rows = [
        Box(outer_schema, [Box(SCHEMA, [1]), None, b"\x01"]),
        Box(outer_schema, [None, 2, b""]),
        Box(outer_schema, [Box(SCHEMA, [None]), 3, b"\xff"]),
    ]
    assert outer.encode(rows) == [
        b'{"c":{"v":1},"d":7,"b":"01"}',
        b'{"c":null,"d":2,"b":""}',
        b'{"c":{"v":null},"d":3,"b":"ff"}',
    ]
    assert outer.encode([Box(outer_schema, [Box(object(), [1]), 1, b""])]) is None
    assert outer.encode([Box(outer_schema, [None, 1, bytearray(b"")])]) is None
    assert outer.encode_items([("t", None, None), ("t", outer_schema, rows[1])]) == [
        None,
        b'{"c":null,"d":2,"b":""}',
    ]


def test_a_call_that_raises_hands_the_batch_back() -> None:
    def boom(value: bytes) -> str:
        raise RuntimeError("no")

    enc = _json.FlatEncoder(SCHEMA, (b'{"b":',), (8,), (False,), Box, None, ((bytes, boom),))
    assert enc.encode([Box(SCHEMA, [b"x"])]) is None


def test_bytes_are_written_as_base64() -> None:
    enc = _json.FlatEncoder(SCHEMA, (b'{"b":',), (9,), (True,), Box)
    values = [b"", b"\x00", b"\xff\xfe", b"abc", b"\x01\x02\x03\x04", bytes(range(256)), None]
    out = enc.encode([Box(SCHEMA, [v]) for v in values])
    assert out is not None
    assert out[:5] == [
        b'{"b":""}',
        b'{"b":"AA=="}',
        b'{"b":"//4="}',
        b'{"b":"YWJj"}',
        b'{"b":"AQIDBA=="}',
    ]
    for value, text in zip(values, out, strict=True):
        expected = b"null" if value is None else b'"' + base64.b64encode(value) + b'"'
        assert text == b'{"b":' + expected + b"}"
    # bytearray and memoryview go the Python way (the caller's pure-Python encoder)
    assert enc.encode([Box(SCHEMA, [bytearray(b"x")])]) is None


def java_unscaled_base64(value: decimal.Decimal, scale: int) -> str:
    """Base64 of BigInteger.toByteArray() of the value's unscaled integer at ``scale``
    (Kafka's Decimal.fromLogical; the value is exact at that scale)."""
    unscaled = int(value.scaleb(scale))
    size = 1
    while not -(2 ** (8 * size - 1)) <= unscaled < 2 ** (8 * size - 1):
        size += 1
    return base64.b64encode(unscaled.to_bytes(size, "big", signed=True)).decode()


def decimal_encoder(scale: int, fallback: Any) -> _json.FlatEncoder:
    extra = (decimal.Decimal, scale, fallback)
    return _json.FlatEncoder(SCHEMA, (b'{"d":',), (10,), (True,), Box, None, (extra,))


@pytest.mark.parametrize(
    ("text", "scale", "expected"),
    [
        ("123.45", 2, "MDk="),  # 12345 = 0x3039
        ("-0.01", 2, "/w=="),  # -1
        ("0.00", 2, "AA=="),
        ("-0.00", 2, "AA=="),  # BigInteger has no negative zero
        ("1.28", 2, "AIA="),  # 128 needs a sign byte
        ("-1.28", 2, "gA=="),  # -128 does not
        ("-1.29", 2, "/38="),
        ("327.67", 2, "f/8="),
        ("32768", 0, "AIAA"),
        ("999999999999999999", 0, "DeC2s6dj//8="),  # 18 digits: the C path's longest
        ("-9999999999999999.99", 2, "8h9JTFicAAE="),
    ],
)
def test_plain_decimals_are_written_as_java_bytes(text: str, scale: int, expected: str) -> None:
    def not_called(value: Any) -> str:
        raise AssertionError(f"{value} should be written in C")

    value = decimal.Decimal(text)
    assert java_unscaled_base64(value, scale) == expected
    assert decimal_encoder(scale, not_called).encode([Box(SCHEMA, [value])]) == [
        b'{"d":"' + expected.encode() + b'"}'
    ]


@pytest.mark.parametrize(
    ("text", "scale"),
    [
        ("1234567890123456789", 0),  # 19 digits
        ("1E+3", 0),  # scientific notation
        ("1.5", 2),  # another scale
        ("150", 2),
        ("1.50", 0),
        ("5", -1),
        ("NaN", 0),
        ("-Infinity", 0),
    ],
)
def test_other_decimals_go_to_the_function(text: str, scale: int) -> None:
    seen: list[decimal.Decimal] = []

    def fallback(value: decimal.Decimal) -> str:
        seen.append(value)
        return "text of " + str(value)

    value = decimal.Decimal(text)
    out = decimal_encoder(scale, fallback).encode([Box(SCHEMA, [value])])
    assert out == [b'{"d":"text of ' + str(value).encode() + b'"}']
    assert seen == [value]


@settings(max_examples=2000, deadline=None)
@given(st.integers(-(10**20), 10**20), st.integers(0, 6))
def test_any_decimal_at_its_scale_is_written_as_java_bytes(unscaled: int, scale: int) -> None:
    value = decimal.Decimal(unscaled).scaleb(-scale)
    out = decimal_encoder(scale, lambda v: java_unscaled_base64(v, scale)).encode(
        [Box(SCHEMA, [value])]
    )
    assert out == [b'{"d":"' + java_unscaled_base64(value, scale).encode() + b'"}']


def test_decimal_kind_checks_its_extra() -> None:
    with pytest.raises(TypeError, match="class, scale, function"):
        _json.FlatEncoder(SCHEMA, (b'{"d":',), (10,), (True,), Box, None, ((decimal.Decimal,),))
    other = decimal_encoder(2, str)
    assert other.encode([Box(SCHEMA, [1.5])]) is None  # not a Decimal: the Python way
    assert _json.FIELD_KINDS == 11


# -- the schemaless parser -------------------------------------------------------------

HANDED_BACK = object()


def orjson_or_error(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return HANDED_BACK


def same_value(a: Any, b: Any) -> bool:
    """Equal, of the same classes all the way down, -0.0 told from 0.0, keys in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same_value, a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)


def assert_reads_as_orjson(data: bytes) -> bool:
    """parse() gives orjson's value, or hands the text back; True when it read it. A
    text orjson refuses must be handed back (orjson then raises its error)."""
    got = _json.parse(data, HANDED_BACK)
    if got is HANDED_BACK:
        return False
    want = orjson_or_error(data)
    assert want is not HANDED_BACK, data
    assert same_value(got, want), data
    return True


def test_parse_reads_a_record_itself() -> None:
    record = (
        b'{"id":1000001,"customer_id":42001,"status":"SHIPPED","amount":20.99,'
        b'"currency":"EUR","quantity":2,"express":false,"note":"leave at door, order 1",'
        b'"created_at":1700000000001,"region":"eu-north-1","tags":["a","\xc3\xa9"],'
        b'"nested":{"x":null,"y":true,"z":-1.5e-7,"w":[]},"big":123456789012345678}'
    )
    for _ in range(3):  # the second and third time from the string caches
        assert assert_reads_as_orjson(record)
        assert assert_reads_as_orjson(b" \n\t" + record + b"\r\n")


@pytest.mark.parametrize(
    "text",
    [
        b"-0",
        b"-0.0",
        b"0e999999999",
        b"1e22",
        b"1e23",
        b"9007199254740993",
        b"1234567890123456789",
        b"9999999999999999999",
        b"-9223372036854775808",
        b"9007199254740993.0",
        b"118.99000000000001",
        b"0.30000000000000004",
        b"2.2250738585072011e-308",
        b"4.9e-324",
        b"-1e-400",
        b"123456789012345678901234567890.5",
        b'{"a":1,"a":2,"b":3}',
        b'"\x7f"',
        b'"\xf0\x9f\x98\x80 \xe2\x98\x83"',
        b"[[[[[[]]]]]]",
        b'{"":{"":[{}]}}',
    ],
)
def test_parse_reads_edge_texts_as_orjson(text: bytes) -> None:
    assert assert_reads_as_orjson(text)


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"  ",
        b"01",
        b"-01",
        b"1.",
        b".5",
        b"-",
        b"1e",
        b"1e+",
        b"+1",
        b"1e400",
        b"-1e400",
        b"18446744073709551616",  # past 64 bits: orjson reads a double
        b"-9223372036854775809",
        b"18446744073709551615",  # 20 digits: orjson's, whatever it reads
        b"[1,]",
        b'{"a":1,}',
        b'{"a" 1}',
        b"{1:2}",
        b"nul",
        b"true false",
        b"NaN",
        b"Infinity",
        b"\xef\xbb\xbf1",
        b'"\\u00e9"',  # escapes are orjson's
        b'"a\tb"',
        b'"\xed\xa0\x80"',  # a UTF-8 encoded surrogate
        b'"\xc3"',
        b'"open',
        b"[" * 200 + b"]" * 200,  # deeper than the parser goes; orjson reads it
    ],
)
def test_parse_hands_back_what_it_does_not_read(text: bytes) -> None:
    assert _json.parse(text, HANDED_BACK) is HANDED_BACK


def test_parse_doubles_round_as_orjson() -> None:
    """Numbers of up to 19 digits (the x87 path and its halfway screen), random doubles'
    shortest texts, and decimals just around the midpoint between two doubles."""
    decimal.getcontext().prec = 60
    rnd = random.Random(29)
    for i in range(200_000):
        pick = i % 4
        if pick == 0:
            text = f"{rnd.randint(0, 10**19 - 1)}e{rnd.randint(-41, 22)}"
        elif pick == 1:
            digits = str(rnd.randint(1, 10**19 - 1))
            cut = rnd.randint(0, len(digits))
            text = f"{'-' * rnd.randint(0, 1)}{digits[:cut] or '0'}.{digits[cut:] or '0'}"
        elif pick == 2:
            low = rnd.uniform(1e-5, 1e15) * 10 ** rnd.randint(-10, 10)
            mid = (decimal.Decimal(low) + decimal.Decimal(math.nextafter(low, math.inf))) / 2
            text = f"{mid:.{rnd.randint(15, 19)}e}"
        else:
            value = struct.unpack("<d", rnd.randbytes(8))[0]
            if not math.isfinite(value):
                continue
            text = repr(value)
        assert assert_reads_as_orjson(text.encode()), text


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["SHIPPED", "EUR", "eu-north-1", "a" * 16, "b" * 17, "é"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=70), inner),
    max_leaves=20,
)


@settings(max_examples=1500, deadline=None)
@given(
    value=_json_values,
    indent=st.sampled_from([None, 0, 2, "\t", " \r\n"]),
    separators=st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")]),
)
def test_parse_random_documents_as_orjson(
    value: Any, indent: int | str | None, separators: tuple[str, str]
) -> None:
    """orjson's text of random documents, and the stdlib's with whitespace between the
    tokens (lone surrogates kept as bytes: orjson refuses them, so must the parser)."""
    assert_reads_as_orjson(orjson.dumps(value))
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)
    assert_reads_as_orjson(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=3000, deadline=None)
@given(
    text=st.binary(max_size=40)
    | st.text(alphabet='{}[]",: 0123456789.eE+-tfrulnasx\\\t\n\xe9', max_size=40).map(str.encode)
)
def test_parse_random_bytes_as_orjson(text: bytes) -> None:
    """Any bytes: never a value orjson would not give, never one it refuses."""
    assert_reads_as_orjson(text)


def test_parse_size_hints_and_caches_keep_values_apart() -> None:
    """A big object then small ones (dicts made at the last size at that depth), and the
    same short strings as keys and values in many documents."""
    big = {f"k{i}": i for i in range(300)}
    docs = [big, {"a": 1}, {f"k{i}": "k1" for i in range(10)}, {"k1": {"k1": "k1"}}, {}]
    for doc in docs * 3:
        assert same_value(_json.parse(orjson.dumps(doc), HANDED_BACK), doc)


def test_decode_schemaless_uses_orjson_for_what_the_parser_hands_back() -> None:
    items = [("t", b'"\\u00e9"'), ("t", b"[1]"), ("t", bytearray(b"[1]"))]
    out = _json.decode_schemaless(items, orjson.loads, SV, NULL, long_loads)
    assert out == [SV(None, "é"), SV(None, [1]), SV(None, ("long_loads", b"[1]"))]
    with pytest.raises(orjson.JSONDecodeError, match="infinity"):
        _json.decode_schemaless([("t", b"1e400")], orjson.loads, SV, NULL, long_loads)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"9223372036854775807", 2**63 - 1),
        (b"-9223372036854775808", -(2**63)),
        (b"9223372036854775808", -(2**63)),
        (b"-9223372036854775809", 2**63 - 1),
        (b"18446744073709551615", -1),
        (b"18446744073709551616", 0),
        (b"-18446744073709551617", -1),
        (b"123456789012345678901234567890", -4362896299872285998),
        (b"[1" + b"0" * 400 + b"]", [0]),
        (b'{"a":[99999999999999999999,1.5e19]}', {"a": [7766279631452241919, 1.5e19]}),
    ],
)
def test_decode_schemaless_keeps_the_low_64_bits_of_long_integers(text: bytes, value: Any) -> None:
    # Kafka reads them with BigInteger.longValue; the compiled parser reads them itself.
    assert _json.decode_schemaless([("t", text)], orjson.loads, SV, NULL, long_loads) == [
        SV(None, value)
    ]
    n = int(text.strip(b"[]")) if text[0] != 123 else None
    if n is not None:
        assert ((n + 2**63) % 2**64) - 2**63 == (value[0] if isinstance(value, list) else value)


def test_decode_schemaless_hands_texts_with_long_digit_runs_to_long_loads() -> None:
    # What the parser cannot read (an escape) goes to orjson.loads, or to long_loads when a
    # run of 19 digits may be an integer beyond int64 (orjson would read a double).
    items = [
        ("t", b'["\\n",18446744073709551616]'),
        ("t", b'["\\n","1234567890123456789"]'),
        ("t", b'["\\n",123456789012345678]'),
    ]
    assert _json.decode_schemaless(items, orjson.loads, SV, NULL, long_loads) == [
        SV(None, ("long_loads", items[0][1])),
        SV(None, ("long_loads", items[1][1])),
        SV(None, ["\n", 123456789012345678]),
    ]


def test_parse_and_read_payloads_do_not_wrap_long_integers() -> None:
    # With a schema an integer beyond int64 is the schema's decoder's to refuse.
    assert _json.parse(b"[18446744073709551616]", HANDED_BACK) is HANDED_BACK
    assert _json.parse(b"9223372036854775808", HANDED_BACK) == 2**63


@pytest.mark.parametrize(
    ("value", "found"),
    [
        (float("nan"), True),
        (-math.inf, True),
        ({"a": [1, {"b": (2.0, math.inf)}]}, True),
        ({"a": [1.5, None, "NaN", {"b": 1e308}]}, False),
        ([[[[[]]]]], False),
        ({"k": 1}, False),
    ],
)
def test_has_non_finite(value: Any, found: bool) -> None:
    assert _json.has_non_finite(value) is found


def test_encode_schemaless_hands_back_a_nan_orjson_would_write_as_null() -> None:
    def dumps(items: Any) -> Any:
        return _json.encode_schemaless(items, orjson.dumps, str, 0)

    assert dumps([("t", None, {"a": None, "b": 1.5})]) == ([b'{"a":null,"b":1.5}'], 0)
    assert dumps([("t", None, {"a": 1}), ("t", None, {"a": [math.nan]})]) is None
    assert dumps([("t", None, {"null": math.inf})]) is None
    assert _json.screen([b"[1]", b'{"a":null}']) == 4
    assert _json.screen([b'"nul"', b"nul"]) == 0


def stdlib_exact(data: bytes) -> Any:
    try:
        return json.loads(data, parse_float=decimal.Decimal)
    except ValueError:
        return HANDED_BACK


@settings(max_examples=1500, deadline=None)
@given(
    value=_json_values,
    numbers=st.lists(
        st.text(alphabet="0123456789.eE+-", min_size=1, max_size=24).map(str.encode),
        max_size=3,
    ),
)
def test_parse_with_parse_float_reads_as_the_stdlib(value: Any, numbers: list[bytes]) -> None:
    """With parse_float (decimal.Decimal, for schemas holding a Decimal), non-integral
    numbers come as parse_float of their text, as the stdlib's json.loads gives them."""
    texts = [orjson.dumps(value), b"[" + b", ".join(numbers) + b"]", *numbers]
    for text in texts:
        got = _json.parse(text, HANDED_BACK, decimal.Decimal)
        if got is HANDED_BACK:
            continue
        want = stdlib_exact(text)
        assert want is not HANDED_BACK, text
        assert same_value(got, want), text
        assert str(got) == str(want)  # Decimal('1.50') keeps its digits


def test_parse_with_parse_float_reads_numbers_itself() -> None:
    text = b'{"a":1.50,"b":[1E+3,-0.0,12345678901234567890.5],"c":7}'
    assert _json.parse(text, HANDED_BACK, decimal.Decimal) == {
        "a": decimal.Decimal("1.50"),
        "b": [
            decimal.Decimal("1E+3"),
            decimal.Decimal("-0.0"),
            decimal.Decimal("12345678901234567890.5"),
        ],
        "c": 7,
    }
    assert str(_json.parse(b"1.50", HANDED_BACK, decimal.Decimal)) == "1.50"

    def refuse(text: str) -> Any:
        raise ValueError(f"no {text}")

    with pytest.raises(ValueError, match=r"no 2\.5"):
        _json.parse(b"[1, 2.5]", HANDED_BACK, refuse)


def test_read_payloads() -> None:
    prefix = b'{"schema":{"type":"int32"},"payload":'
    datas = [prefix + b'{"a":[1,2.5]}}', prefix + b'"\\u00e9"}', prefix + b" 7 }"]
    assert _json.read_payloads(datas, prefix, orjson.loads) == [{"a": [1, 2.5]}, "é", 7]
    assert _json.read_payloads([], prefix, orjson.loads) == []


@pytest.mark.parametrize(
    "data",
    [
        None,
        bytearray(b'{"schema":{"type":"int32"},"payload":1}'),
        b'{"schema":{"type":"int64"},"payload":1}',  # another schema
        b'{"schema":{"type":"int32"},"payload":1 ',
        b'{"schema":{"type":"int32"},"payload":{bad}',
        b'{"schema":{"type":"int32"},"payload":}',
        b'{"schema":{"type":"int32"},"payload":',
    ],
)
def test_read_payloads_hands_back_what_is_not_a_whole_batch(data: Any) -> None:
    prefix = b'{"schema":{"type":"int32"},"payload":'
    good = prefix + b"1}"
    assert _json.read_payloads([good, data, good], prefix, orjson.loads) is None
    assert gc.isenabled()


def test_read_payloads_raises_other_errors_of_loads() -> None:
    def boom(data: bytes) -> Any:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        _json.read_payloads([b"P\\u00e9}"], b"P", boom)
    assert gc.isenabled()


def test_read_payloads_puts_the_tombstone_marker_for_none() -> None:
    prefix = b"P"
    marker = object()
    out = _json.read_payloads([b"P1}", None, b"Pnull}"], prefix, orjson.loads, None, marker)
    assert out is not None and out[0] == 1 and out[1] is marker and out[2] is None
    assert _json.read_payloads([b"P1}", None], prefix, orjson.loads) is None
