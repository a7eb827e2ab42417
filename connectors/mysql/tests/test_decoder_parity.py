"""The compiled row decoder (kconnect-speedups) against the generated Python one.

The same row images, hand-assembled in the binlog's row format and read from a real
MariaDB binlog, must give identical values on both paths: the same classes, equal values,
the same Decimal exponents and float bits. A truncated image is a ValueError naming the
table and the column on the compiled path, never a read past the end of the bytes. The
compiled loop building the records of inserted rows makes the same records as Python's.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import random
import struct
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from kconnect_connector_mysql import _decoder, _snapshot_rows, _task
from kconnect_connector_mysql import _decoder as d
from kconnect_connector_mysql._columns import Column, field_schema, value_converter
from kconnect_sdk import (
    Headers,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    optional_speedups,
    struct_maker,
    struct_values,
)
from kconnect_speedups import _mysql as compiled

from .conftest import Db, base_config, drain, payload, start_task, wait_streaming

# --- the binlog's row format, written out --------------------------------------------------


def le(value: int, size: int, *, signed: bool = False) -> bytes:
    return value.to_bytes(size, "little", signed=signed)


def decimal_bytes(text: str, precision: int, scale: int) -> bytes:
    """DECIMAL(precision, scale) as the server stores it: groups of nine digits big-endian,
    the sign bit inverted, every bit inverted for negative values."""
    negative = text.startswith("-")
    whole, _, frac = text.lstrip("-").partition(".")
    whole = whole.lstrip("0").rjust(precision - scale, "0")
    frac = frac.ljust(scale, "0")
    assert len(whole) == precision - scale and len(frac) == scale, text
    lead = len(whole) % 9
    groups = ([whole[:lead]] if lead else []) + [
        whole[i : i + 9] for i in range(lead, len(whole), 9)
    ]
    groups += [frac[i : i + 9] for i in range(0, len(frac), 9)]
    out = bytearray()
    for group in groups:
        out += int(group).to_bytes((0, 1, 1, 2, 2, 3, 3, 4, 4, 4)[len(group)], "big")
    out[0] ^= 0x80
    return bytes(~b & 0xFF for b in out) if negative else bytes(out)


def frac_bytes(micros: int, fsp: int) -> bytes:
    n = (fsp + 1) // 2
    return (micros // {1: 10000, 2: 100, 3: 1}[n]).to_bytes(n, "big") if n else b""


def date_bytes(y: int, m: int, day: int) -> bytes:
    return le(y << 9 | m << 5 | day, 3)


def datetime2_bytes(y: int, mo: int, day: int, h: int, mi: int, s: int, us: int, fsp: int) -> bytes:
    ymd = (y * 13 + mo) << 5 | day
    packed = (ymd << 17 | h << 12 | mi << 6 | s) + 0x8000000000
    return packed.to_bytes(5, "big") + frac_bytes(us, fsp)


def timestamp2_bytes(seconds: int, us: int, fsp: int) -> bytes:
    return seconds.to_bytes(4, "big") + frac_bytes(us, fsp)


def time2_bytes(negative: bool, h: int, mi: int, s: int, us: int, fsp: int) -> bytes:
    """TIME(fsp) as the server's my_time_packed_to_binary writes it."""
    us = us // 10 ** (6 - fsp) * 10 ** (6 - fsp)
    nr = ((h << 12 | mi << 6 | s) << 24) + us
    nr = -nr if negative else nr
    if fsp >= 5:
        return (nr + 0x800000000000).to_bytes(6, "big")
    int_part = nr >> 24  # C's arithmetic shift (floor)
    frac_part = -(-nr % (1 << 24)) if nr < 0 else nr % (1 << 24)  # C's remainder
    head = (int_part + 0x800000).to_bytes(3, "big")
    if fsp == 0:
        return head
    if fsp <= 2:
        return head + (int(frac_part / 10000) & 0xFF).to_bytes(1, "big")
    return head + (int(frac_part / 100) & 0xFFFF).to_bytes(2, "big")


def prefixed(raw: bytes, size: int) -> bytes:
    return le(len(raw), size) + raw


# --- a table of every type the decoders read ------------------------------------------------

W = SimpleNamespace


def col(name: str, data_type: str, type_name: str, **kw: Any) -> Column:
    return Column(name=name, position=0, data_type=data_type, type_name=type_name, **kw)


# (wire column, semantic column, encoder of a value)
SPEC: list[tuple[Any, Column, Callable[[Any], bytes]]] = [
    (W(type=d.LONGLONG), col("id", "bigint", "BIGINT"), lambda v: le(v, 8, signed=True)),
    (W(type=d.TINY), col("u8", "tinyint", "TINYINT UNSIGNED"), lambda v: le(v, 1)),
    (W(type=d.TINY), col("i8", "tinyint", "TINYINT"), lambda v: le(v, 1, signed=True)),
    (W(type=d.SHORT), col("i16", "smallint", "SMALLINT"), lambda v: le(v, 2, signed=True)),
    (W(type=d.SHORT), col("u16", "smallint", "SMALLINT UNSIGNED"), lambda v: le(v, 2)),
    (W(type=d.INT24), col("i24", "mediumint", "MEDIUMINT"), lambda v: le(v, 3, signed=True)),
    (W(type=d.INT24), col("u24", "mediumint", "MEDIUMINT UNSIGNED"), lambda v: le(v, 3)),
    (W(type=d.LONG), col("i32", "int", "INT"), lambda v: le(v, 4, signed=True)),
    (W(type=d.LONG), col("u32", "int", "INT UNSIGNED"), lambda v: le(v, 4)),
    (W(type=d.LONGLONG), col("u64", "bigint", "BIGINT UNSIGNED"), lambda v: le(v, 8)),
    (W(type=d.FLOAT), col("f32", "float", "FLOAT"), lambda v: struct.pack("<f", v)),
    (W(type=d.DOUBLE), col("f64", "double", "DOUBLE"), lambda v: struct.pack("<d", v)),
    (
        W(type=d.NEWDECIMAL, precision=12, decimals=2),
        col("dec", "decimal", "DECIMAL", length=12, scale=2),
        lambda v: decimal_bytes(v, 12, 2),
    ),
    (
        W(type=d.NEWDECIMAL, precision=20, decimals=0),
        col("dec0", "decimal", "DECIMAL", length=20, scale=0),
        lambda v: decimal_bytes(v, 20, 0),
    ),
    (
        W(type=d.NEWDECIMAL, precision=65, decimals=30),
        col("dec65", "decimal", "DECIMAL", length=65, scale=30),
        lambda v: decimal_bytes(v, 65, 30),
    ),
    (
        W(type=d.NEWDECIMAL, precision=10, decimals=10),
        col("decf", "decimal", "DECIMAL", length=10, scale=10),
        lambda v: decimal_bytes(v, 10, 10),
    ),
    (
        W(type=d.VARCHAR, max_length=40),
        col("latin", "varchar", "VARCHAR", length=40, charset="latin1"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.VARCHAR, max_length=400),
        col("utf", "varchar", "VARCHAR", length=100, charset="utf8mb4"),
        lambda v: prefixed(v, 2),
    ),
    (
        W(type=d.VARCHAR, max_length=8),
        col("vbin", "varbinary", "VARBINARY", length=8, charset="binary"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.STRING, max_length=3),
        col("cyr", "char", "CHAR", length=3, charset="cp1251"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.VARCHAR, max_length=20),
        col("ucs", "varchar", "VARCHAR", length=10, charset="ucs2"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.VARCHAR, max_length=20),
        col("sjis", "varchar", "VARCHAR", length=10, charset="sjis"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.BLOB, length_size=2),
        col("txt", "text", "TEXT", charset="utf8mb4"),
        lambda v: prefixed(v, 2),
    ),
    (
        W(type=d.BLOB, length_size=1),
        col("ltxt", "tinytext", "TINYTEXT", charset="latin1"),
        lambda v: prefixed(v, 1),
    ),
    (
        W(type=d.BLOB, length_size=3),
        col("blob", "mediumblob", "MEDIUMBLOB"),
        lambda v: prefixed(v, 3),
    ),
    (
        W(type=d.ENUM, size=1),
        col("e", "enum", "ENUM", enum_values=["a", "b", "c"]),
        lambda v: le(v, 1),
    ),
    (
        W(type=d.ENUM, size=2),
        col("e2", "enum", "ENUM", enum_values=[f"v{i}" for i in range(300)]),
        lambda v: le(v, 2),
    ),
    (
        W(type=d.SET, size=1),
        col("s", "set", "SET", enum_values=["x", "y", "z"]),
        lambda v: le(v, 1),
    ),
    (W(type=d.BIT, bytes=2), col("bits", "bit", "BIT", length=10), lambda v: v.to_bytes(2, "big")),
    (W(type=d.BIT, bytes=1), col("bit1", "bit", "BIT", length=1), lambda v: v.to_bytes(1, "big")),
    (W(type=d.DATE), col("day", "date", "DATE"), lambda v: date_bytes(*v)),
    (
        W(type=d.DATETIME2, fsp=3),
        col("dt3", "datetime", "DATETIME", length=3),
        lambda v: datetime2_bytes(*v, 3),
    ),
    (
        W(type=d.DATETIME2, fsp=6),
        col("dt6", "datetime", "DATETIME", length=6),
        lambda v: datetime2_bytes(*v, 6),
    ),
    (
        W(type=d.DATETIME2, fsp=0),
        col("dt0", "datetime", "DATETIME"),
        lambda v: datetime2_bytes(*v, 0),
    ),
    (
        W(type=d.TIMESTAMP2, fsp=2),
        col("ts2", "timestamp", "TIMESTAMP", length=2),
        lambda v: timestamp2_bytes(*v, 2),
    ),
    (W(type=d.TIME2, fsp=0), col("t0", "time", "TIME"), lambda v: time2_bytes(*v, 0)),
    (W(type=d.TIME2, fsp=1), col("t1", "time", "TIME", length=1), lambda v: time2_bytes(*v, 1)),
    (W(type=d.TIME2, fsp=3), col("t3", "time", "TIME", length=3), lambda v: time2_bytes(*v, 3)),
    (W(type=d.TIME2, fsp=6), col("t6", "time", "TIME", length=6), lambda v: time2_bytes(*v, 6)),
    (W(type=d.YEAR), col("y", "year", "YEAR"), lambda v: le(v, 1)),
    (W(type=d.JSON, length_size=4), col("j", "json", "JSON"), lambda v: prefixed(v, 4)),
    (W(type=d.GEOMETRY, length_size=4), col("g", "geometry", "GEOMETRY"), lambda v: prefixed(v, 4)),
]
NAMES = [c.name for _, c, _ in SPEC]

TYPICAL: dict[str, Any] = {
    "id": 1,
    "u8": 200,
    "i8": -5,
    "i16": -300,
    "u16": 65000,
    "i24": -8000,
    "u24": 16_000_000,
    "i32": -2_000_000,
    "u32": 4_000_000_000,
    "u64": 10**19,
    "f32": 1.1,
    "f64": 2.25,
    "dec": "5.00",
    "dec0": "12345678901234567890",
    "dec65": "-12345678901234567890123456789012345.123456789012345678901234567890",
    "decf": "0.0123456789",
    "latin": "caf\xe9 \x80\x85\x9f".encode("latin1"),
    "utf": "Zoë 🚀 ∑".encode(),
    "vbin": b"\x00\xff\x80",
    "cyr": "Жук".encode("cp1251"),
    "ucs": "ab€".encode("utf-16-be"),
    "sjis": "日本".encode("shift_jis"),
    "txt": "a longer text ✓".encode(),
    "ltxt": b"\x80\x81\x8d\x8f\x90\x9d\x9e\xff",
    "blob": bytes(range(256)),
    "e": 2,
    "e2": 299,
    "s": 0b101,
    "bits": 513,
    "bit1": 1,
    "day": (2018, 6, 20),
    "dt3": (2018, 6, 20, 13, 37, 3, 120_000),
    "dt6": (2018, 6, 20, 13, 37, 3, 123_456),
    "dt0": (2018, 6, 20, 13, 37, 3, 0),
    "ts2": (1_529_501_823, 120_000),
    "t0": (True, 1, 0, 0, 0),
    "t1": (True, 0, 0, 0, 500_000),
    "t3": (True, 1, 0, 0, 250_000),
    "t6": (False, 13, 37, 3, 123_456),
    "y": 118,
    "j": b"\x0c\x03abc",  # MySQL's binary JSON: a string
    "g": bytes.fromhex("000000000101000000000000000000f03f0000000000000040"),
}

EDGES: list[dict[str, Any]] = [
    # Largest values and the other end of each range.
    {
        **TYPICAL,
        "id": -(2**63),
        "u8": 255,
        "i8": -128,
        "i16": -(2**15),
        "u16": 2**16 - 1,
        "i24": -(2**23),
        "u24": 2**24 - 1,
        "i32": -(2**31),
        "u32": 2**32 - 1,
        "u64": 2**64 - 1,
        "f32": -3.4028234663852886e38,
        "f64": float("inf"),
        "dec": "-9999999999.99",
        "dec0": "-99999999999999999999",
        "dec65": "99999999999999999999999999999999999.999999999999999999999999999999",
        "decf": "-0.9999999999",
        "latin": b"",
        "utf": "\U0010ffff".encode() * 100,
        "e": 0,  # the empty value of an invalid ENUM insert
        "e2": 0,
        "s": 0,
        "bits": 1023,
        "bit1": 0,
        "day": (9999, 12, 31),
        "dt3": (9999, 12, 31, 23, 59, 59, 999_000),
        "dt6": (1000, 1, 1, 0, 0, 0, 1),
        "dt0": (1, 1, 1, 0, 0, 0, 0),
        "ts2": (2**31 - 1, 990_000),
        "t0": (True, 838, 59, 59, 0),
        "t1": (False, 838, 59, 59, 900_000),
        "t3": (True, 838, 59, 59, 999_000),
        "t6": (True, 0, 0, 0, 1),
        "y": 255,
        "j": b"\x04\x01",  # the literal true
    },
    # Zeros: zero dates and timestamps, negative zero, the smallest values.
    {
        **TYPICAL,
        "id": 0,
        "f32": -0.0,
        "f64": float("nan"),
        "dec": "-0.00",
        "dec0": "0",
        "dec65": "0.000000000000000000000000000001",
        "decf": "0",
        "day": (0, 0, 0),
        "dt3": (0, 0, 0, 0, 0, 0, 0),
        "dt6": (2024, 0, 0, 0, 0, 0, 0),
        "dt0": (2024, 2, 0, 0, 0, 0, 0),
        "ts2": (0, 0),
        "t0": (False, 0, 0, 0, 0),
        "t1": (True, 0, 0, 1, 100_000),
        "t3": (True, 0, 0, 0, 1000),
        "t6": (False, 0, 0, 0, 0),
        "y": 0,
        "j": b"",
        "txt": b"",
        "blob": b"",
    },
    # Dates the server may store but Python cannot make: Feb 30, year 0, month 13.
    {
        **TYPICAL,
        "day": (2023, 2, 30),
        "dt3": (0, 5, 5, 1, 2, 3, 0),
        "dt6": (2023, 13, 1, 0, 0, 0, 0),
        "dt0": (2024, 2, 29, 23, 59, 59, 0),
        "ts2": (1, 10_000),
        "utf": b"bad \xff\xfe utf-8 \xed\xa0\x80",
        "txt": b"\xc3",
        "sjis": b"\x81",
        "ucs": b"\x00a\xd8\x00",
    },
    # Every column NULL, and every other column NULL.
    dict.fromkeys(TYPICAL),
    {name: (None if i % 2 else value) for i, (name, value) in enumerate(TYPICAL.items())},
    {name: (None if i % 2 == 0 else value) for i, (name, value) in enumerate(TYPICAL.items())},
]

MODES: list[dict[str, str]] = [
    {
        "decimal_mode": "precise",
        "time_mode": "adaptive_time_microseconds",
        "bigint_mode": "long",
        "binary_mode": "bytes",
    },
    {
        "decimal_mode": "string",
        "time_mode": "adaptive_time_microseconds",
        "bigint_mode": "precise",
        "binary_mode": "hex",
    },
    {
        "decimal_mode": "double",
        "time_mode": "isostring",
        "bigint_mode": "long",
        "binary_mode": "base64",
    },
]


def row_image(values: dict[str, Any], spec: list[tuple[Any, Column, Any]] = SPEC) -> bytes:
    nulls = 0
    body = b""
    for i, (_, column, encode) in enumerate(spec):
        value = values[column.name]
        if value is None:
            nulls |= 1 << i
        else:
            body += encode(value)
    return le(nulls, (len(spec) + 7) // 8) + body


def identity(value: Any) -> Any:
    """What must match between the paths: the class and the repr (Decimal exponents, float
    bits through repr, -0.0, nan), recursively through lists, tuples and Structs."""
    if isinstance(value, list | tuple):
        return (type(value), [identity(v) for v in value])
    if isinstance(value, Struct):
        return (type(value), value.schema, identity(struct_values(value)))
    if isinstance(value, decimal.Decimal):
        return (decimal.Decimal, value.as_tuple())
    if isinstance(value, float):
        return (float, struct.pack("<d", value))
    return (type(value), repr(value))


def build(path: Any, *args: Any, **kw: Any) -> Any:
    saved = _decoder.SPEEDUPS
    _decoder.SPEEDUPS = path
    try:
        return _decoder.build_decoder(*args, **kw)
    finally:
        _decoder.SPEEDUPS = saved


def both(
    spec: list[tuple[Any, Column, Any]],
    include: list[int],
    modes: dict[str, str] | None,
    table: str = "db.t",
) -> tuple[Any, Any]:
    wire = [w for w, _, _ in spec]
    semantic = [c for _, c, _ in spec]
    converters = [
        None if modes is None else value_converter(c, field_schema(c, **modes), **modes)
        for c in (semantic[i] for i in include)
    ]
    python = build(None, wire, semantic, include, converters, table=table)
    native = build(compiled, wire, semantic, include, converters, table=table)
    assert type(native) is compiled.RowDecoder
    return python, native


def outcome(decode: Any, data: bytes, p: int, end: int) -> Any:
    try:
        return ("rows", identity(decode(data, p, end)))
    except Exception as exc:  # any failure: only which side succeeds is compared
        return ("error", exc)


INCLUDES: list[list[int]] = [
    list(range(len(SPEC))),
    # The key last, a few columns skipped (the connector puts value columns first).
    [i for i in range(1, len(SPEC)) if i % 5 != 3] + [0],
    [],
]


@pytest.mark.parametrize("modes", [None, *MODES], ids=["natural", "debezium", "strings", "iso"])
@pytest.mark.parametrize("include", INCLUDES, ids=["all", "some", "none"])
def test_every_type_decodes_the_same(modes: dict[str, str] | None, include: list[int]) -> None:
    python, native = both(SPEC, include, modes)
    rows = [TYPICAL, *EDGES]
    data = b"".join(row_image(r) for r in rows)
    expected = python(data, 0, len(data))
    assert len(expected) == len(rows)
    assert identity(native(data, 0, len(data))) == identity(expected)
    # One row at a time, from inside a larger buffer.
    offset = 0
    framed = b"junk" + data + b"more junk"
    for r in rows:
        size = len(row_image(r))
        got = native(framed, 4 + offset, 4 + offset + size)
        assert identity(got) == identity(python(framed, 4 + offset, 4 + offset + size))
        offset += size


def test_natural_values_are_the_columns_own() -> None:
    """A few values by hand, so parity is not parity with a mistake."""
    python, native = both(SPEC, list(range(len(SPEC))), None)
    data = row_image(TYPICAL) + row_image(EDGES[0]) + row_image(EDGES[1])
    typical, edge, zero = native(data, 0, len(data))
    v = dict(zip(NAMES, typical, strict=True))
    assert v["dec"].as_tuple() == decimal.Decimal("5.00").as_tuple()
    assert v["dec65"] == decimal.Decimal(TYPICAL["dec65"])
    assert v["latin"] == "café €…Ÿ"  # latin1 is cp1252: 0x80-0x9f are printable
    assert v["utf"] == "Zoë 🚀 ∑" and v["cyr"] == "Жук" and v["sjis"] == "日本"
    assert v["ltxt"] == "€" + "\ufffd" * 5 + "žÿ"  # cp1252 leaves five bytes undefined
    assert v["vbin"] == b"\x00\xff\x80" and v["blob"] == bytes(range(256))
    assert (v["e"], v["e2"], v["s"]) == ("b", "v298", "x,z")
    assert v["day"] == _dt.date(2018, 6, 20)
    assert v["dt6"] == _dt.datetime(2018, 6, 20, 13, 37, 3, 123456)
    assert v["ts2"] == _dt.datetime(2018, 6, 20, 13, 37, 3, 120000)
    assert v["t0"] == -_dt.timedelta(hours=1)
    assert v["t1"] == -_dt.timedelta(microseconds=500_000)
    assert v["t3"] == -_dt.timedelta(hours=1, microseconds=250_000)
    assert (v["y"], v["j"], v["u64"]) == (2018, b"abc", 10**19)  # JSON strings: bytes
    e = dict(zip(NAMES, edge, strict=True))
    assert (e["u64"], e["i24"], e["e"], e["s"]) == (2**64 - 1, -(2**23), "", "")
    assert e["t1"] == _dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=900_000)
    assert e["t3"] == -_dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=999_000)
    z = dict(zip(NAMES, zero, strict=True))
    assert (z["day"], z["dt3"], z["dt6"], z["dt0"], z["j"]) == (None,) * 5
    # The zero TIMESTAMP is the epoch, as Debezium's binlog reader reads it.
    assert z["ts2"] == _dt.datetime(1970, 1, 1)
    assert z["y"] == 0
    assert z["dec"].as_tuple() == decimal.Decimal("-0.00").as_tuple()
    assert z["t1"] == -_dt.timedelta(seconds=1, microseconds=100_000)
    assert z["t3"] == -_dt.timedelta(microseconds=1000)
    assert identity(python(data, 0, len(data))) == identity([typical, edge, zero])


def test_debezium_values_come_straight_from_the_bytes() -> None:
    """DATE and DATETIME's fast kinds: days and epoch ms/us, None for zero dates."""
    python, native = both(SPEC, list(range(len(SPEC))), MODES[0])
    data = row_image(TYPICAL) + row_image(EDGES[1]) + row_image(EDGES[2])
    typical, zero, odd = (dict(zip(NAMES, row, strict=True)) for row in native(data, 0, len(data)))
    assert (typical["day"], typical["dt3"], typical["dt6"]) == (
        17702,
        1_529_501_823_120,
        1_529_501_823_123_456,
    )
    assert (zero["day"], zero["dt3"], zero["dt6"], zero["dt0"]) == (None, None, None, None)
    # The server's invalid dates still count days, as the generated code's arithmetic does.
    assert odd["day"] == (_dt.date(2023, 3, 2) - _dt.date(1970, 1, 1)).days
    assert identity(python(data, 0, len(data))) == identity(
        [list(r.values()) for r in (typical, zero, odd)]
    )


def _tables() -> Iterator[tuple[str, list[tuple[Any, Column, Any]], dict[str, Any]]]:
    # Null bitmaps of one, two and five bytes.
    yield "narrow", SPEC[:7], TYPICAL
    bench = ("id", "latin", "i32", "dec", "f64", "i8", "day", "dt3", "i24", "utf")
    yield "bench", [SPEC[NAMES.index(name)] for name in bench], TYPICAL
    yield "wide", SPEC, TYPICAL


@pytest.mark.parametrize(
    ("name", "spec", "values"), list(_tables()), ids=["narrow", "bench", "wide"]
)
def test_truncated_rows_are_a_clear_error(
    name: str, spec: list[tuple[Any, Column, Any]], values: dict[str, Any]
) -> None:
    python, native = both(spec, list(range(len(spec))), MODES[0], table=f"db.{name}")
    rows = [values, dict.fromkeys(values), values]
    data = b"".join(row_image(r, spec) for r in rows)
    bounds = {0}
    for r in rows:
        bounds.add(max(bounds) + len(row_image(r, spec)))
    for cut in range(len(data)):
        if cut in bounds:
            continue  # whole rows
        # Cut the bytes, or only the range the decoder may read: neither may be overrun.
        for buffer, end in ((data[:cut], cut), (data, cut), (data[:cut], len(data))):
            with pytest.raises(ValueError, match=rf"row image of table db\.{name} is truncated"):
                native(buffer, 0, end)
            assert outcome(python, buffer, 0, end)[0] == "error", cut
    assert identity(native(data, 0, len(data))) == identity(python(data, 0, len(data)))
    with pytest.raises(ValueError, match=r"column '\w+' \(#\d+\) needs \d+ bytes at byte"):
        native(data[:-1], 0, len(data) - 1)


def test_random_bytes_decode_the_same_or_fail_on_both() -> None:
    """Corrupt images: where Python decodes them, C gives the same; where it fails, C fails."""
    rng = random.Random(20240611)
    for modes in (None, MODES[0]):
        python, native = both(SPEC, list(range(len(SPEC))), modes)
        good = row_image(TYPICAL)
        for _ in range(3000):
            data = bytearray(good)
            for _ in range(rng.randint(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            if rng.random() < 0.3:
                data = data[: rng.randrange(len(data))]
            raw = bytes(data)
            want, got = outcome(python, raw, 0, len(raw)), outcome(native, raw, 0, len(raw))
            if want[0] == "rows" or got[0] == "rows":
                assert got == want, raw.hex()


def test_column_name_and_enum_range_in_errors() -> None:
    spec = [SPEC[NAMES.index("id")], SPEC[NAMES.index("e")]]  # ENUM('a','b','c')
    _python, native = both(spec, [0, 1], None, table="shop.orders")
    data = row_image({"id": 1, "e": 4}, spec)
    with pytest.raises(ValueError, match=r"shop\.orders: ENUM column 'e' has 3 labels"):
        native(data, 0, len(data))
    with pytest.raises(TypeError, match="bytes"):
        native(bytearray(data), 0, len(data))


# --- rows of a real binlog ---------------------------------------------------------------------

REAL_COLUMNS = """
    id INT NOT NULL PRIMARY KEY,
    c_tinyint TINYINT, c_utinyint TINYINT UNSIGNED, c_smallint SMALLINT,
    c_usmallint SMALLINT UNSIGNED, c_mediumint MEDIUMINT, c_umediumint MEDIUMINT UNSIGNED,
    c_int INT, c_uint INT UNSIGNED, c_bigint BIGINT, c_ubigint BIGINT UNSIGNED,
    c_float FLOAT, c_double DOUBLE,
    c_decimal DECIMAL(12,2), c_decimal0 DECIMAL(20,0), c_decimal65 DECIMAL(65,30),
    c_bit1 BIT(1), c_bit10 BIT(10), c_bit64 BIT(64),
    c_char CHAR(3), c_latin VARCHAR(40) CHARACTER SET latin1, c_varchar VARCHAR(300),
    c_text TEXT, c_tinytext TINYTEXT CHARACTER SET latin1,
    c_binary BINARY(4), c_varbinary VARBINARY(8), c_blob BLOB, c_longblob LONGBLOB,
    c_date DATE, c_time TIME, c_time1 TIME(1), c_time2 TIME(2), c_time3 TIME(3),
    c_time4 TIME(4), c_time6 TIME(6),
    c_datetime DATETIME, c_datetime3 DATETIME(3), c_datetime6 DATETIME(6),
    c_timestamp TIMESTAMP NULL, c_timestamp3 TIMESTAMP(3) NULL,
    c_year YEAR, c_enum ENUM('a','b','c'), c_set SET('x','y','z'), c_json JSON,
    c_point POINT, c_geometry GEOMETRY
"""

REAL_ROWS = [
    "1, -5, 255, -300, 65535, -8388608, 16777215, -2147483648, 4294967295,"
    " -9223372036854775808, 18446744073709551615, 1.5, 2.25,"
    " -1234567.89, 12345678901234567890, -12345678901234567890123456789012345.123456789012345678901234567890,"
    " b'1', b'1000000001', b'1111111111111111111111111111111111111111111111111111111111111111',"
    " 'abc', 'caf\u00e9 \u20ac\u2026\u0178', 'Zo\u00eb \U0001f680 \u2211', 'a longer text', '\u20ac\u017d\u00ff',"
    " x'01020304', x'0A0B', x'FF00FF', REPEAT(x'AB', 70000),"
    " '2018-06-20', '-01:00:00', '-00:00:00.5', '-01:00:00.25', '-00:00:01.123',"
    " '-838:59:59.9999', '13:37:03.123456',"
    " '2018-06-20 13:37:03', '2018-06-20 13:37:03.120', '9999-12-31 23:59:59.999999',"
    " '2018-06-20 13:37:03', '2038-01-19 03:14:07.999',"
    " 2018, 'b', 'z,x', '{\"k\": [1, \"\u00e9\"]}',"
    " ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('LINESTRING(0 0, 1 1)')",
    # Zero and invalid dates (sql_mode ''), ENUM's empty value, empty SET, negative zero.
    "2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.0, 0, -0.00, 0, 0, b'0', b'0', b'0',"
    " '', '', '', '', '', x'', x'', x'', x'',"
    " '0000-00-00', '00:00:00', '00:00:00.1', '-00:00:00.01', '00:00:00', '838:59:59.9999',"
    " '-838:59:59.999999',"
    " '0000-00-00 00:00:00', '2024-02-00 10:00:00', '2024-00-10 00:00:00.000001',"
    " '0000-00-00 00:00:00', '1970-01-01 00:00:01.001',"
    " 0, 'nope', '', '[]', NULL, NULL",
    "3" + ", NULL" * 45,
]


@pytest.mark.integration
def test_real_binlog_rows_decode_the_same(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str | None, bytes, Any, Any]] = []

    def recording(*args: Any, table: str | None = None) -> Any:
        python = build(None, *args, table=table)
        native = build(compiled, *args, table=table)

        def decode(data: bytes, p: int, end: int) -> Any:
            rows = python(data, p, end)
            seen.append((table, data[p:end], identity(rows), identity(native(data, p, end))))
            return rows

        return decode

    monkeypatch.setattr(_task, "build_decoder", recording)
    mdb.sql(f"CREATE TABLE t ({REAL_COLUMNS})", "SET SESSION sql_mode = ''")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        wait_streaming(task)
        for values in REAL_ROWS:
            mdb.sql(f"INSERT INTO t VALUES ({values})")
        mdb.sql("UPDATE t SET c_int = c_int + 1, c_varchar = 'x' WHERE id < 3", "DELETE FROM t")
        records = drain(task, 3 + 2 + 3 * 2)  # deletes with their tombstones
    finally:
        task.stop()
    assert len(seen) >= 3
    for table, raw, python_rows, native_rows in seen:
        assert native_rows == python_rows, (table, raw.hex())
    after = [payload(r)["after"] for r in records[:2]]
    # The server's own encoding of negative TIME fractions (my_time_packed_to_binary).
    assert [after[0][f"c_time{n}"] for n in (1, 2, 3, 4)] == [
        -500_000,
        -3_600_250_000,
        -1_123_000,
        -(838 * 3600 + 59 * 60 + 59) * 1_000_000 - 999_900,
    ]
    assert (after[1]["c_time1"], after[1]["c_time2"]) == (100_000, -10_000)
    assert after[0]["c_latin"] == "caf\u00e9 \u20ac\u2026\u0178"
    assert after[0]["c_decimal65"] == decimal.Decimal(
        "-12345678901234567890123456789012345.123456789012345678901234567890"
    )
    assert (after[1]["c_date"], after[1]["c_datetime"], after[1]["c_enum"]) == (None, None, "")


# --- the records of inserted rows ---------------------------------------------------------------


SCHEMAS = (
    SchemaBuilder.struct().name("source").build(),
    SchemaBuilder.struct().field("id", Schema.INT64).field("v", Schema.STRING).build(),
    SchemaBuilder.struct().name("envelope").build(),
    SchemaBuilder.struct().field("id", Schema.INT64).build(),
)
MAKERS = (
    struct_maker(SCHEMAS[0]),
    struct_maker(SCHEMAS[1]),
    struct_maker(SCHEMAS[2]),
    struct_maker(SCHEMAS[3]),
)


def _creates(path: Any, rows: list[list[Any]], start: int) -> list[Any]:
    """``_task._plain_creates`` on the compiled (path: the module) or Python path (None)."""
    out: list[Any] = ["earlier record"]
    saved = _decoder.SPEEDUPS
    _decoder.SPEEDUPS = path
    try:
        _task._plain_creates(
            out,
            rows=rows,
            start=start,
            n=len(rows),
            base_off={"file": "binlog.000001", "pos": 4, "row": 0, "event": 2},
            base_source=[f"s{i}" for i in range(16)],
            schemas=SCHEMAS,
            makers=MAKERS,
            key_index=1,
            topic="srv.db.t",
            partition={"server": "srv"},
            now=(1, 1000, 1000000),
        )
    finally:
        _decoder.SPEEDUPS = saved
    return out


def test_compiled_record_loop_makes_the_same_records() -> None:
    rows = [[i, f"row {i}", decimal.Decimal(i)] for i in range(5)]
    python, native = _creates(None, rows, 2), _creates(compiled, rows, 2)
    assert native[0] == python[0] == "earlier record" and len(native) == len(python) == 4
    for got, want, row in zip(native[1:], python[1:], rows[2:], strict=True):
        assert type(got) is SourceRecord and got == want
        assert got._asdict().keys() == want._asdict().keys()
        assert got.headers is Headers.EMPTY and got.source_partition == {"server": "srv"}
        envelope, key = got.value, got.key
        assert type(envelope) is Struct and type(key) is Struct
        assert envelope.schema is want.value.schema and key.schema is want.key.schema
        assert struct_values(key) == [row[1]]
        after, source = struct_values(envelope)[1], struct_values(envelope)[2]
        # The decoded row itself, as the Python loop shares it.
        assert struct_values(after) is row
        assert struct_values(source) == struct_values(struct_values(want.value)[2])
        assert struct_values(envelope)[3:] == [None, "c", 1, 1000, 1000000]
        assert got.source_offset == want.source_offset and got.source_offset["row"] >= 3
    # Each record owns its offset and source block; the partition is the event's.
    assert native[1].source_partition is native[2].source_partition
    assert native[1].source_offset is not native[2].source_offset
    sources = [struct_values(struct_values(record.value)[2]) for record in native[1:3]]
    assert sources[0] is not sources[1]
    with pytest.raises(TypeError, match="row 2 is not a list"):
        _creates(compiled, [[1, 1], [2, 2], (3, 3)], 0)


def test_speedups_turned_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCONNECT_SPEEDUPS", "0")
    assert optional_speedups("kconnect_speedups._mysql") is None
    monkeypatch.setenv("KCONNECT_SPEEDUPS", "1")
    assert optional_speedups("kconnect_speedups._mysql") is compiled
    assert optional_speedups("kconnect_speedups._no_such_module") is None


def test_snapshot_date_and_datetime_text_read_the_same() -> None:
    """The text protocol's DATE/DATETIME values (a snapshot's) as Debezium's numbers: the
    compiled parse and the connector's Python functions agree, odd text included (the
    compiled one hands that to the Python function)."""
    rnd = random.Random(18)
    texts: list[str | None] = [
        None,
        "0000-00-00",
        "0000-00-00 00:00:00",
        "2024-00-10 10:00:00",
        "1969-12-31 23:59:59.999",
        "1969-12-31 23:59:59.9995",
        "0001-01-01 00:00:00",
        "9999-12-31 23:59:59.999999",
        "2024-02-29 12:00:00.5",
        "2024-02-29",
        "2024-01-01 00:00:00.",
        " 2024-01-01",
        "2024-01-01 00:00:00.1234567",
    ]
    for _ in range(20_000):
        text = f"{rnd.randint(0, 9999):04d}-{rnd.randint(0, 12):02d}-{rnd.randint(0, 31):02d}"
        if rnd.random() < 0.7:
            text += f" {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}"
            if rnd.random() < 0.6:
                text += "." + str(rnd.randint(0, 999_999)).zfill(rnd.randint(1, 6))[:6]
        texts.append(text)
    pairs = [
        (compiled.text_days, _snapshot_rows.text_days),
        (compiled.text_millis, _snapshot_rows.text_millis),
        (compiled.text_micros, _snapshot_rows.text_micros),
    ]

    def outcome(call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except ValueError as exc:
            return type(exc)

    for fast, python in pairs:
        for text in texts:
            assert outcome(fast, python, text) == outcome(python, text), text
    assert compiled.text_millis(_snapshot_rows.text_millis, "1970-01-01 00:00:01.5") == 1500
    assert compiled.text_days(_snapshot_rows.text_days, "1970-01-02") == 1
