"""Row-image decoders generated once per table map.

mysql-replication decodes a rows event field by field through generic code (a method call,
a type dispatch and a dict per value). Here, when a table map arrives, the layout of its
columns is known, so a decoder is generated for it: straight-line Python that reads every
column of a row with the cheapest operation for its type (``struct`` for fixed-width
numbers, slices for strings) and returns the row already converted to Debezium's values.
Whole rows events are decoded in one call.

With kconnect-speedups installed (and ``KCONNECT_SPEEDUPS`` not ``0``), a table map's
columns are instead described once, as a plan, to ``kconnect_speedups._mysql.RowDecoder``,
which reads the same rows in C into the same values. Either way a row image that runs past
the event's end is a ValueError.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import decimal
import encodings
import functools
import importlib
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from kconnect_sdk import ConnectError, optional_speedups
from kconnect_sdk.java import CIVIL_EPOCH_DAY, EPOCH_DATETIME

__all__ = ["RowDecoder", "build_decoder"]

RowDecoder = Callable[[bytes, int, int], list[list[Any]]]

# MySQL field type codes (include/mysql_com.h / binlog metadata).
TINY, SHORT, LONG, FLOAT, DOUBLE, TIMESTAMP, LONGLONG, INT24 = 1, 2, 3, 4, 5, 7, 8, 9
DATE, TIME, DATETIME, YEAR, VARCHAR, BIT = 10, 11, 12, 13, 15, 16
TIMESTAMP2, DATETIME2, TIME2 = 17, 18, 19
JSON, NEWDECIMAL, ENUM, SET = 245, 246, 247, 248
TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, BLOB, VAR_STRING, STRING, GEOMETRY = (
    249,
    250,
    251,
    252,
    253,
    254,
    255,
)

_DIG2BYTES: Final = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
# The binlog's DATETIME and TIMESTAMP values are naive wall clocks (UTC for TIMESTAMP).
_NAIVE_EPOCH: Final = EPOCH_DATETIME.replace(tzinfo=None)
_CODECS: Final = {
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "utf8mb4": "utf-8",
    "latin1": "cp1252",
    "ascii": "ascii",
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "utf32": "utf-32-be",
    "cp1250": "cp1250",
    "cp1251": "cp1251",
    "cp1256": "cp1256",
    "cp1257": "cp1257",
    "greek": "iso8859-7",
    "hebrew": "iso8859-8",
    "latin2": "iso8859-2",
    "latin5": "iso8859-9",
    "latin7": "iso8859-13",
    "koi8r": "koi8-r",
    "koi8u": "koi8-u",
    "sjis": "shift_jis",
    "ujis": "euc-jp",
    "gbk": "gbk",
    "gb2312": "gb2312",
    "big5": "big5",
    "euckr": "euc-kr",
    "cp932": "cp932",
    "eucjpms": "euc-jp",
    "gb18030": "gb18030",
    "tis620": "tis-620",
}


SPEEDUPS: Any = optional_speedups("kconnect_speedups._mysql")
"""``kconnect_speedups._mysql`` when decoders are compiled plans, else None (generated
Python; same values). Tests set it to run both paths."""


def codec_for(charset: str | None) -> str | None:
    """The Python codec of a MySQL character set; None for ``binary`` (keep bytes)."""
    if charset is None:
        return "utf-8"
    if charset == "binary":
        return None
    return _CODECS.get(charset.lower(), "utf-8")


_TEXT_BLOBS: Final = ("tinytext", "text", "mediumtext", "longtext", "json")


def _string_codec(sem: Any) -> str | None:
    """The codec of a CHAR/VARCHAR column's bytes; None for BINARY/VARBINARY (bytes)."""
    if sem is None or sem.data_type in ("binary", "varbinary"):
        return None
    return codec_for(getattr(sem, "charset", None))


def _blob_codec(sem: Any) -> str | None:
    """The codec of a TEXT column's bytes; None for BLOB and geometry columns (bytes)."""
    if sem is None or sem.data_type not in _TEXT_BLOBS:
        return None
    return codec_for(sem.charset)


@functools.cache
def _charmap_table(codec: str) -> str | None:
    """The 256-character decoding table of a single-byte codec (what its decode passes to
    ``codecs.charmap_decode``), so C decodes without a Python call; None for others."""
    try:
        name = encodings.normalize_encoding(codecs.lookup(codec).name)
        module = importlib.import_module(f"encodings.{name}")
    except (LookupError, ImportError):
        return None
    table = getattr(module, "decoding_table", None)
    return table if isinstance(table, str) and len(table) == 256 else None


def _unsupported(t: int, i: int) -> ConnectError:
    return ConnectError(
        f"binlog column type {t} (column #{i}) uses a pre-5.6 temporal or unknown format "
        "this connector cannot decode; rebuild the table (ALTER TABLE ... FORCE) so the "
        "server writes the current format"
    )


def _decimal_reader(precision: int, scale: int) -> tuple[int, Callable[[bytes], decimal.Decimal]]:
    """The byte size of a DECIMAL(precision, scale) binlog value and a reader for it.

    The value is big-endian groups of up to nine decimal digits (the leading and trailing
    group shorter); the sign is the top bit inverted, and negative values are stored with
    every bit inverted. The reader takes the whole value as one integer and peels the
    groups off with shifts, then lets the C decimal module parse ``<digits>E-<scale>``.
    """
    integral = precision - scale
    int_full, int_rest = divmod(integral, 9)
    frac_full, frac_rest = divmod(scale, 9)
    int_rest_bytes = _DIG2BYTES[int_rest]
    frac_rest_bytes = _DIG2BYTES[frac_rest]
    size = int_full * 4 + int_rest_bytes + frac_full * 4 + frac_rest_bytes
    top = 1 << (8 * size - 1)
    mask = (1 << (8 * size)) - 1
    # (bits, decimal digits) per group, least significant first.
    groups = [(frac_rest_bytes * 8, frac_rest)] if frac_rest else []
    groups += [(32, 9)] * frac_full + [(32, 9)] * int_full
    if int_rest:
        groups.append((int_rest_bytes * 8, int_rest))
    make = decimal.Decimal
    suffix = f"E-{scale}" if scale else ""

    def read(raw: bytes) -> decimal.Decimal:
        n = int.from_bytes(raw, "big")
        negative = not n & top
        if negative:
            n = ~n & mask
        n ^= top
        value = 0
        weight = 1
        for bits, digits in groups:
            value += (n & ((1 << bits) - 1)) * weight
            n >>= bits
            weight *= 10**digits
        return make(("-" if negative else "") + str(value) + suffix)

    return size, read


def _decimal_layout(precision: int, scale: int) -> tuple[int, int, str, str]:
    """(byte size, sign bit, Python expression of the digits' value in ``x``, exponent suffix).

    The same layout :func:`_decimal_reader` walks in a loop, as one expression.
    """
    integral = precision - scale
    int_full, int_rest = divmod(integral, 9)
    frac_full, frac_rest = divmod(scale, 9)
    int_rest_bytes = _DIG2BYTES[int_rest]
    frac_rest_bytes = _DIG2BYTES[frac_rest]
    size = int_full * 4 + int_rest_bytes + frac_full * 4 + frac_rest_bytes
    groups = [(frac_rest_bytes * 8, frac_rest)] if frac_rest else []
    groups += [(32, 9)] * frac_full + [(32, 9)] * int_full
    if int_rest:
        groups.append((int_rest_bytes * 8, int_rest))
    terms: list[str] = []
    shift, weight = 0, 1
    for bits, digits in groups:
        part = f"(x >> {shift} & {(1 << bits) - 1})" if shift else f"(x & {(1 << bits) - 1})"
        terms.append(part if weight == 1 else f"{part} * {weight}")
        shift += bits
        weight *= 10**digits
    return size, 1 << (8 * size - 1), " + ".join(terms) or "0", f"E-{scale}" if scale else ""


def _civil_days(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (no objects made)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - CIVIL_EPOCH_DAY


# Days since the epoch of the dates seen, by their binlog packing (DATE's ``y << 9 | m << 5 | d``
# and DATETIME2's ``(y * 13 + m) << 5 | d``): a table's dates repeat, and a dict lookup costs a
# fraction of the arithmetic. Bounded; shared by every decoder (dict operations hold the GIL).
_DATE_DAYS: Final[dict[int, int]] = {}
_YMD_DAYS: Final[dict[int, int]] = {}
_DAYS_CACHED: Final = 1 << 16


def _date_days(x: int) -> int | None:
    """Days since the epoch of a packed DATE (None for zero dates), remembered."""
    mo = (x >> 5) & 15
    dd = x & 31
    if not (mo and dd):
        return None
    days = _civil_days(x >> 9, mo, dd)
    if len(_DATE_DAYS) >= _DAYS_CACHED:
        _DATE_DAYS.clear()
    _DATE_DAYS[x] = days
    return days


def _ymd_days(ymd: int) -> int | None:
    """Days since the epoch of DATETIME2's packed date part (None for zero parts), remembered."""
    ym = ymd >> 5
    mo = ym % 13
    dd = ymd & 31
    if not (mo and dd):
        return None
    days = _civil_days(ym // 13, mo, dd)
    if len(_YMD_DAYS) >= _DAYS_CACHED:
        _YMD_DAYS.clear()
    _YMD_DAYS[ymd] = days
    return days


def _date(x: int) -> _dt.date | None:
    try:
        return _dt.date(x >> 9, (x >> 5) & 15, x & 31)
    except ValueError:
        return None  # zero date or zero parts


def _datetime2(x: int, micros: int) -> _dt.datetime | None:
    x -= 0x8000000000
    ymd = x >> 17
    ym = ymd >> 5
    hms = x & 0x1FFFF
    try:
        return _dt.datetime(
            ym // 13, ym % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63, micros
        )
    except ValueError:
        return None


def _time2(packed: int) -> _dt.timedelta:
    negative = packed < 0
    if negative:
        packed = -packed
    hms = packed >> 24
    micros = packed & 0xFFFFFF
    total = (
        (((hms >> 12) & 0x3FF) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63)
    ) * 1_000_000 + micros
    return _dt.timedelta(microseconds=-total if negative else total)


def _timestamp2(seconds: int, micros: int) -> _dt.datetime:
    # The zero TIMESTAMP is 0 seconds, so the epoch: Debezium's binlog reader writes it as
    # the epoch (TIMESTAMP values start at 1970-01-01 00:00:01).
    return _NAIVE_EPOCH + _dt.timedelta(seconds=seconds, microseconds=micros)


# TIMESTAMP2's fraction: bytes stored -> microseconds per unit.
_TS2_FRACTION: Final = {0: 0, 1: 10000, 2: 100, 3: 1}


def _timestamp2_bytes(raw: bytes) -> _dt.datetime:
    """A TIMESTAMP2 value from its bytes (big-endian seconds, then the fraction)."""
    return _timestamp2(
        int.from_bytes(raw[:4], "big"), int.from_bytes(raw[4:], "big") * _TS2_FRACTION[len(raw) - 4]
    )


def _then_timestamp2(convert: Callable[[Any], Any] | None, raw: bytes | None) -> Any:
    value = None if raw is None else _timestamp2_bytes(raw)
    return value if convert is None else convert(value)


def _json_binary(raw: bytes) -> Any:
    from pymysqlreplication.json_binary import parse_json

    if not raw:
        return None
    return parse_json(raw[0], raw[1:])


class _Gen:
    def __init__(self) -> None:
        self.env: dict[str, Any] = {
            "_from": int.from_bytes,
            "_date": _date,
            "_dt2": _datetime2,
            "_t2": _time2,
            "_ts2": _timestamp2,
            "_json": _json_binary,
            "_days": _civil_days,
            "_dd": _DATE_DAYS.get,
            "_date_days": _date_days,
            "_yd": _YMD_DAYS.get,
            "_ymd_days": _ymd_days,
            "_D": decimal.Decimal,
        }
        self.lines: list[str] = []

    def bind(self, name: str, value: Any) -> str:
        self.env[name] = value
        return name

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)


def _frac(gen: _Gen, ind: int, fsp: int, target: str) -> None:
    n = (fsp + 1) // 2
    if n == 0:
        gen.emit(ind, f"{target} = 0")
        return
    scale = {1: 10000, 2: 100, 3: 1}[n]
    gen.emit(ind, f"{target} = _from(data[p:p + {n}], 'big') * {scale}; p += {n}")


def _read_column(
    gen: _Gen, ind: int, i: int, wire: Any, sem: Any, *, out: str, fast: str | None = None
) -> None:
    """Emit code reading column ``i`` at ``p`` into ``out`` (natural Python value)."""
    t = wire.type
    unsigned = bool(getattr(sem, "unsigned", False))
    emit = gen.emit
    if t == TINY:
        emit(ind, f"{out} = data[p]; p += 1")
        if not unsigned:
            emit(ind, f"if {out} > 127: {out} -= 256")
    elif t in (SHORT, LONG, LONGLONG, FLOAT, DOUBLE):
        code, size = {
            SHORT: ("h", 2),
            LONG: ("i", 4),
            LONGLONG: ("q", 8),
            FLOAT: ("f", 4),
            DOUBLE: ("d", 8),
        }[t]
        if unsigned and t in (SHORT, LONG, LONGLONG):
            code = code.upper()
        fn = gen.bind(f"_u{i}", struct.Struct("<" + code).unpack_from)
        emit(ind, f"{out} = {fn}(data, p)[0]; p += {size}")
    elif t == INT24:
        emit(ind, f"{out} = _from(data[p:p + 3], 'little', signed={not unsigned}); p += 3")
    elif t == YEAR:
        emit(ind, f"{out} = data[p]; p += 1")
        emit(ind, f"if {out}: {out} += 1900")
    elif t == NEWDECIMAL:
        # The reader's arithmetic, unrolled into the decoder for this precision and scale.
        size, top, terms, suffix = _decimal_layout(wire.precision, wire.decimals)
        emit(ind, f"x = _from(data[p:p + {size}], 'big'); p += {size}")
        emit(ind, f"if x & {top}:")
        emit(ind + 1, f"x ^= {top}; sg = ''")
        emit(ind, "else:")
        emit(ind + 1, f"x = ~x & {(1 << (8 * size)) - 1} ^ {top}; sg = '-'")
        emit(ind, f"{out} = _D(f'{{sg}}{{{terms}}}{suffix}')")
    elif t in (VARCHAR, VAR_STRING, STRING):
        prefix = 1 if wire.max_length < 256 else 2
        if prefix == 1:
            emit(ind, "n = data[p]; p += 1")
        else:
            emit(ind, "n = data[p] | data[p + 1] << 8; p += 2")
        codec = _string_codec(sem)
        if codec is None:
            emit(ind, f"{out} = data[p:p + n]; p += n")
        else:
            emit(ind, f"{out} = data[p:p + n].decode({codec!r}, 'replace'); p += n")
    elif t == ENUM:
        labels = gen.bind(f"_lab{i}", ["", *list(getattr(sem, "enum_values", None) or [])])
        if wire.size == 1:
            emit(ind, f"{out} = {labels}[data[p]]; p += 1")
        else:
            emit(ind, f"{out} = {labels}[data[p] | data[p + 1] << 8]; p += 2")
    elif t == SET:
        labels = gen.bind(f"_lab{i}", list(getattr(sem, "enum_values", None) or []))
        emit(ind, f"m = _from(data[p:p + {wire.size}], 'little'); p += {wire.size}")
        emit(ind, f"{out} = ','.join([s for k, s in enumerate({labels}) if m >> k & 1])")
    elif t in (BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY, JSON):
        ls = wire.length_size
        emit(ind, f"n = _from(data[p:p + {ls}], 'little'); p += {ls}")
        codec = _blob_codec(sem)
        if t == JSON:
            emit(ind, f"{out} = _json(data[p:p + n]); p += n")
        elif codec is not None:
            emit(ind, f"{out} = data[p:p + n].decode({codec!r}, 'replace'); p += n")
        else:
            emit(ind, f"{out} = data[p:p + n]; p += n")
    elif t == BIT:
        emit(ind, f"{out} = data[p:p + {wire.bytes}]; p += {wire.bytes}")
    elif t == DATE and fast == "date_days":
        # Straight to Debezium's days since the epoch (remembered); zero dates have none.
        emit(ind, "x = data[p] | data[p + 1] << 8 | data[p + 2] << 16; p += 3")
        emit(ind, f"{out} = _dd(x)")
        emit(ind, f"if {out} is None: {out} = _date_days(x)")
    elif t == DATE:
        emit(ind, f"{out} = _date(data[p] | data[p + 1] << 8 | data[p + 2] << 16); p += 3")
    elif t == DATETIME2 and fast in ("datetime_ms", "datetime_us"):
        # Straight to Debezium's Timestamp (ms) or MicroTimestamp (us), no datetime made.
        emit(ind, "x = _from(data[p:p + 5], 'big') - 0x8000000000; p += 5")
        _frac(gen, ind, wire.fsp, "f")
        emit(ind, "ymd = x >> 17; hms = x & 0x1FFFF; d = _yd(ymd)")
        emit(ind, "if d is None: d = _ymd_days(ymd)")
        emit(ind, "if d is not None:")
        emit(ind + 1, "s = ((d * 24 + (hms >> 12)) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63)")
        if fast == "datetime_ms":
            emit(ind + 1, f"{out} = s * 1000 + f // 1000")
        else:
            emit(ind + 1, f"{out} = s * 1000000 + f")
        emit(ind, "else:")
        emit(ind + 1, f"{out} = None")
    elif t == DATETIME2:
        emit(ind, "x = _from(data[p:p + 5], 'big'); p += 5")
        _frac(gen, ind, wire.fsp, "f")
        emit(ind, f"{out} = _dt2(x, f)")
    elif t == TIMESTAMP2:
        emit(ind, "x = _from(data[p:p + 4], 'big'); p += 4")
        _frac(gen, ind, wire.fsp, "f")
        emit(ind, f"{out} = _ts2(x, f)")
    elif t == TIME2:
        fsp = wire.fsp
        if fsp >= 5:
            emit(ind, f"{out} = _t2(_from(data[p:p + 6], 'big') - 0x800000000000); p += 6")
        else:
            emit(ind, "x = _from(data[p:p + 3], 'big') - 0x800000; p += 3")
            if fsp == 0:
                emit(ind, "f = 0")
            elif fsp <= 2:
                # Unsigned: a negative time's fraction is stored as its complement (the
                # server's my_time_packed_from_binary), taken back here.
                emit(ind, "f = data[p]; p += 1")
                emit(ind, "if x < 0 and f: x += 1; f -= 0x100")
                emit(ind, "f *= 10000")
            else:
                emit(ind, "f = _from(data[p:p + 2], 'big'); p += 2")
                emit(ind, "if x < 0 and f: x += 1; f -= 0x10000")
                emit(ind, "f *= 100")
            emit(ind, f"{out} = _t2((x << 24) + f)")
    else:
        raise _unsupported(t, i)


def build_decoder(
    wire_columns: Sequence[Any],
    semantic: Sequence[Any],
    include: Sequence[int],
    converters: Sequence[Callable[[Any], Any] | None],
    *,
    table: str | None = None,
) -> RowDecoder:
    """The decoder of one table map: a compiled plan, or generated Python.

    Args:
        wire_columns: mysql-replication's columns of the table map (type and metadata).
        semantic: our Column per position (charset, enum labels, signedness), same length.
        include: positions of the columns that go into the event, in order.
        converters: per included column, the converter to Debezium's value, or None.
        table: the table's name, for errors.

    Returns:
        ``decode(data, p, end)`` giving, for every row image from ``p`` to ``end``, the
        list of included values. A row image running past ``end`` raises ValueError (the
        generated code may also raise IndexError or struct.error).
    """
    conv_of = dict(zip(include, converters, strict=True))
    # The converters the decoder replaces by a direct path (kc_fast), by column position.
    fast = {
        i: kind
        for i, c in conv_of.items()
        if (kind := getattr(c, "kc_fast", None)) is not None
        and (
            (kind == "date_days" and wire_columns[i].type == DATE)
            or (kind in ("datetime_ms", "datetime_us") and wire_columns[i].type == DATETIME2)
        )
    }
    where = f"table {table}" if table else "a table"
    compiled = SPEEDUPS
    # A column included twice (the connector never asks for one) takes the generated code.
    if compiled is not None and len(set(include)) == len(include):
        columns = tuple(
            _column_plan(compiled, i, wire, semantic[i] if i < len(semantic) else None, fast.get(i))
            for i, wire in enumerate(wire_columns)
        )
        slots = {i: pos for pos, i in enumerate(include)}
        plan = tuple(
            (
                *column,
                slots.get(i, -1),
                _plan_converter(wire_columns[i], conv_of, i, fast),
                _name(semantic, i),
            )
            for i, column in enumerate(columns)
        )
        decoder: RowDecoder = compiled.RowDecoder(plan, len(include), decimal.Decimal, where)
        return decoder
    return _generate(wire_columns, semantic, include, converters, fast=fast, where=where)


def _plan_converter(
    wire: Any, conv_of: dict[int, Callable[[Any], Any] | None], i: int, fast: dict[int, str]
) -> Callable[[Any], Any] | None:
    """The callable of column ``i`` in the compiled plan (see ``_column_plan``)."""
    conv = _after(conv_of.get(i), i in fast)
    if wire.type == TIMESTAMP2 and i in conv_of:
        return functools.partial(_then_timestamp2, conv)
    return conv


def _after(conv: Callable[[Any], Any] | None, fast: bool) -> Callable[[Any], Any] | None:
    """What a column's decoded value goes through: its converter, or for a direct path what
    finishes the path's result (``kc_after_fast``)."""
    if not fast:
        return conv
    after: Callable[[Any], Any] | None = getattr(conv, "kc_after_fast", None)
    return after


def _name(semantic: Sequence[Any], i: int) -> str:
    name = getattr(semantic[i], "name", None) if i < len(semantic) else None
    return name if isinstance(name, str) else f"#{i}"


_INT_SIZES: Final = {TINY: 1, SHORT: 2, INT24: 3, LONG: 4, LONGLONG: 8}


def _column_plan(
    compiled: Any, i: int, wire: Any, sem: Any, fast: str | None
) -> tuple[int, int, int, int, str | None, str | None, Any]:
    """How ``RowDecoder`` reads column ``i``: (kind, size, param, mode, codec, charmap
    table, extra), the same reading as :func:`_read_column` generates."""
    k = compiled
    t = wire.type
    if t in _INT_SIZES:
        signed = not getattr(sem, "unsigned", False)
        return k.INT, _INT_SIZES[t], int(signed), 0, None, None, None
    if t == FLOAT:
        return k.FLOAT, 4, 0, 0, None, None, None
    if t == DOUBLE:
        return k.DOUBLE, 8, 0, 0, None, None, None
    if t == YEAR:
        return k.YEAR, 1, 0, 0, None, None, None
    if t == NEWDECIMAL:
        size, read = _decimal_reader(wire.precision, wire.decimals)
        return k.DECIMAL, size, wire.precision, wire.decimals, None, None, read
    if t in (VARCHAR, VAR_STRING, STRING):
        codec = _string_codec(sem)
        prefix = 1 if wire.max_length < 256 else 2
        return k.STRING, prefix, 0, 0, codec, codec and _charmap_table(codec), None
    if t == JSON:
        return k.CALL, wire.length_size, 0, 0, None, None, _json_binary
    if t in (BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY):
        codec = _blob_codec(sem)
        return k.STRING, wire.length_size, 0, 0, codec, codec and _charmap_table(codec), None
    if t == ENUM:
        labels = ("", *(getattr(sem, "enum_values", None) or []))
        return k.ENUM, 1 if wire.size == 1 else 2, 0, 0, None, None, labels
    if t == SET:
        labels = tuple(getattr(sem, "enum_values", None) or [])
        return k.SET, wire.size, 0, 0, None, None, labels
    if t == BIT:
        return k.BIT, wire.bytes, 0, 0, None, None, None
    if t == DATE:
        return k.DATE, 3, 0, int(fast == "date_days"), None, None, None
    if t == DATETIME2:
        mode = {"datetime_ms": 1, "datetime_us": 2}.get(fast or "", 0)
        return k.DATETIME2, 5, wire.fsp, mode, None, None, None
    if t == TIMESTAMP2:
        # Read as its bytes: the compiled reader has no value for the zero TIMESTAMP, which
        # Debezium writes as the epoch; _then_timestamp2 makes the value.
        return k.BIT, 4 + (wire.fsp + 1) // 2, 0, 0, None, None, None
    if t == TIME2:
        return k.TIME2, 3, wire.fsp, 0, None, None, None
    raise _unsupported(t, i)


def _generate(
    wire_columns: Sequence[Any],
    semantic: Sequence[Any],
    include: Sequence[int],
    converters: Sequence[Callable[[Any], Any] | None],
    *,
    fast: dict[int, str],
    where: str,
) -> RowDecoder:
    """Generate the Python decoder of one table map."""
    n = len(wire_columns)
    gen = _Gen()
    nb = (n + 7) // 8
    wanted = set(include)
    gen.bind("_where", where)
    gen.emit(0, "def decode(data, p, end):")
    # Slices past the end of the bytes are short, not errors: rows cut short show as a range
    # beyond the bytes, or as the last row ending beyond the range.
    gen.emit(1, "if p < end and end > len(data):")
    gen.emit(
        2,
        "raise ValueError(f'row image of {_where} is truncated: "
        "the rows end at byte {end}, the data at byte {len(data)}')",
    )
    gen.emit(1, "rows = []")
    gen.emit(1, "append = rows.append")
    gen.emit(1, "while p < end:")
    if nb == 1:
        gen.emit(2, "nulls = data[p]; p += 1")
    elif nb == 2:
        gen.emit(2, "nulls = data[p] | data[p + 1] << 8; p += 2")
    else:
        gen.emit(2, f"nulls = _from(data[p:p + {nb}], 'little'); p += {nb}")
    for i, wire in enumerate(wire_columns):
        sem = semantic[i] if i < len(semantic) else None
        out = f"v{i}" if i in wanted else "_"
        gen.emit(2, f"if nulls & {1 << i}:")
        gen.emit(3, f"{out} = None")
        gen.emit(2, "else:")
        _read_column(gen, 3, i, wire, sem, out=out, fast=fast.get(i))
    values = []
    for pos, i in enumerate(include):
        conv = _after(converters[pos], i in fast)
        if conv is None:
            values.append(f"v{i}")
        else:
            name = gen.bind(f"_c{i}", conv)
            values.append(f"{name}(v{i})")
    gen.emit(2, f"append([{', '.join(values)}])")
    gen.emit(1, "if p > end:")
    gen.emit(
        2,
        "raise ValueError(f'row image of {_where} is truncated: "
        "row {len(rows) - 1} ends at byte {p}, the rows end at byte {end}')",
    )
    gen.emit(1, "return rows")
    source = "\n".join(gen.lines)
    namespace = dict(gen.env)
    exec(compile(source, "<kconnect-mysql row decoder>", "exec"), namespace)
    decoder: RowDecoder = namespace["decode"]
    return decoder
