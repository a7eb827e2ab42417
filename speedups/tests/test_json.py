"""kconnect_speedups._json on its own: doubles as Java writes them, the flat encoder's
hand-backs, and the schemaless decode loop. (The JSON converter's tests run on this module
and on the pure-Python code, and compare the two on random batches.)"""

from __future__ import annotations

import decimal
import gc
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
        (5e-324, b"5.0E-324"),  # as the pure-Python path; Java writes 4.9E-324
        (1.7976931348623157e308, b"1.7976931348623157E308"),
        (0.1 + 0.2, b"0.30000000000000004"),
    ],
)
def test_doubles_as_java_writes_them(value: float, text: bytes) -> None:
    assert _json.format_double(value) == text


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_double_as_java_writes_it(value: float) -> None:
    assert _json.format_double(value) == java_double(value)


def test_short_decimal_path_is_repr() -> None:
    """The exact path that skips dtoa, against repr on 300,000 doubles of the shapes
    records hold (a few decimals) and their neighbours."""
    rnd = random.Random(23)
    taken = 0
    for _ in range(300_000):
        pick = rnd.random()
        if pick < 0.3:
            value = rnd.uniform(1e-3, 1e7)
        elif pick < 0.6:
            value = rnd.randint(-(10**12), 10**12) / 10 ** rnd.randint(0, 15)
        elif pick < 0.8:
            value = math.nextafter(rnd.randint(1, 10**6) / 10 ** rnd.randint(0, 9), math.inf)
        else:
            value = struct.unpack("<d", rnd.randbytes(8))[0]
        fast = _json.short_double(value)
        if fast is not None:
            taken += 1
            assert fast == repr(value).encode(), value
    assert taken > 50_000  # the path is taken, not only deferred


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


def test_decode_schemaless() -> None:
    items = [("t", b'{"a":[1,2.5,null]}'), ("t", None), ("t", b'"x"')]
    out = _json.decode_schemaless(items, orjson.loads, SV, NULL)
    assert out == [SV(None, {"a": [1, 2.5, None]}), NULL, SV(None, "x")]
    assert all(type(sv) is SV for sv in out)
    assert out[1] is NULL


def test_decode_schemaless_raises_what_loads_raises_and_restores_the_collector() -> None:
    assert gc.isenabled()
    with pytest.raises(orjson.JSONDecodeError):
        _json.decode_schemaless([("t", b"{}"), ("t", b"{bad")], orjson.loads, SV, NULL)
    assert gc.isenabled()
    gc.disable()
    try:
        _json.decode_schemaless([("t", b"1")], orjson.loads, SV, NULL)
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
