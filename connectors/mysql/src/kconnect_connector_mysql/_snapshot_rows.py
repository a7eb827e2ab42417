"""A snapshot row's values as Debezium writes them: DATE and DATETIME read as text and turned
into Debezium's numbers directly, the other columns by their converters.

Both the initial snapshot and an incremental snapshot's chunks read rows this way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

from . import _decoder
from ._decoder import _civil_days

__all__ = ["column_converters", "row_converter", "text_days", "text_micros", "text_millis"]


def _text_temporal(name: str, python: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """kconnect-speedups' parse of DATE/DATETIME text (the same answers, in C; text it does
    not expect goes to ``python``), or ``python`` itself without it."""
    compiled = getattr(_decoder.SPEEDUPS, name, None)
    return python if compiled is None else functools.partial(compiled, python)


def column_converters(
    converters: list[Callable[[Any], Any] | None], data_types: list[str]
) -> list[Callable[[Any], Any] | None]:
    """Per column of a snapshot row (DATE/DATETIME as text), what turns it into Debezium's."""
    out: list[Callable[[Any], Any] | None] = []
    for given, data_type in zip(converters, data_types, strict=True):
        kind = getattr(given, "kc_fast", None)
        # Debezium's snapshot reads some values as its binlog reader does not: a TIMESTAMP
        # (kc_snapshot), a DATE/DATETIME of year 0000 (kc_year_zero).
        snapshot = getattr(given, "kc_snapshot", None)
        year_zero = getattr(given, "kc_year_zero", None)
        conv = given
        direct: Callable[[Any], Any] | None = None
        if data_type == "date" and kind == "date_days":
            direct = _text_temporal("text_days", text_days)
        elif data_type == "datetime" and kind in ("datetime_ms", "datetime_us"):
            if kind == "datetime_ms":
                direct = _text_temporal("text_millis", text_millis)
            else:
                direct = _text_temporal("text_micros", text_micros)
        if direct is not None:
            # The direct path's number, finished as the converter says (zero dates, years
            # 0-99).
            after = getattr(given, "kc_after_fast", None) or _same
            conv = functools.partial(_snapshot_number, direct, after, year_zero or _same)
        elif snapshot is not None:
            conv = snapshot
        elif data_type in ("date", "datetime") and given is not None:
            conv = _via_pymysql(given, data_type, year_zero)
        out.append(conv)
    return out


def _same(v: Any) -> Any:
    return v


def _snapshot_number(
    direct: Callable[[Any], Any],
    after: Callable[[Any], Any],
    year_zero: Callable[[Any], Any],
    v: Any,
) -> Any:
    """A DATE/DATETIME text to Debezium's number: the direct path, finished by ``after``;
    text it has no number for (a zero date, year 0000) to ``year_zero``."""
    out = direct(v)
    if out is None and v is not None:
        return year_zero(v)
    return after(out)


def row_converter(
    converters: list[Callable[[Any], Any] | None], data_types: list[str]
) -> Callable[[tuple[Any, ...]], list[Any]]:
    """One generated function converting a snapshot row (DATE/DATETIME as text) to Debezium's."""
    parts = []
    env: dict[str, Any] = {}
    for i, conv in enumerate(column_converters(converters, data_types)):
        if conv is None:
            parts.append(f"r[{i}]")
        else:
            env[f"c{i}"] = conv
            parts.append(f"c{i}(r[{i}])")
    source = f"def convert(r):\n    return [{', '.join(parts)}]\n"
    exec(compile(source, "<kconnect-mysql snapshot row>", "exec"), env)
    fn: Callable[[tuple[Any, ...]], list[Any]] = env["convert"]
    return fn


def _via_pymysql(
    conv: Callable[[Any], Any], data_type: str, year_zero: Callable[[Any], Any] | None
) -> Callable[[Any], Any]:
    """``conv`` over pymysql's own parsing of the text (the modes without a direct path);
    text pymysql cannot parse (a zero date, year 0000) to ``year_zero`` when given."""
    from pymysql.converters import convert_date, convert_datetime

    parse = convert_date if data_type == "date" else convert_datetime
    if year_zero is None:
        return lambda v: conv(None if v is None else parse(v))

    def convert(v: Any) -> Any:
        if v is None:
            return conv(None)
        parsed = parse(v)
        return year_zero(v) if isinstance(parsed, str) else conv(parsed)

    return convert


# Days since the epoch of the ``YYYY-MM-DD`` texts seen: a table's dates repeat, and a dict
# lookup costs a fraction of parsing them. Bounded; dict operations hold the GIL.
_TEXT_DAYS: Final[dict[str, int]] = {}


def _date_text_days(v: str) -> int | None:
    """``YYYY-MM-DD`` (the first ten characters of ``v``) as days since 1970-01-01, remembered."""
    y, m, d = int(v[0:4]), int(v[5:7]), int(v[8:10])
    if not (y and m and d):
        return None
    days = _civil_days(y, m, d)
    if len(_TEXT_DAYS) >= 1 << 16:
        _TEXT_DAYS.clear()
    _TEXT_DAYS[v[0:10]] = days
    return days


def text_days(v: str | None) -> int | None:
    """``YYYY-MM-DD`` as days since 1970-01-01; None for zero dates, as the binlog decoder."""
    if v is None:
        return None
    days = _TEXT_DAYS.get(v)
    return _date_text_days(v) if days is None else days


def text_micros(v: str | None) -> int | None:
    """``YYYY-MM-DD HH:MM:SS[.ffffff]`` as microseconds since the epoch (None for zero dates)."""
    if v is None:
        return None
    days = _TEXT_DAYS.get(v[0:10])
    if days is None:
        days = _date_text_days(v)
        if days is None:
            return None
    seconds = ((days * 24 + int(v[11:13])) * 60 + int(v[14:16])) * 60 + int(v[17:19])
    frac = v[20:26]
    return seconds * 1_000_000 + (int(frac) * 10 ** (6 - len(frac)) if frac else 0)


def text_millis(v: str | None) -> int | None:
    micros = text_micros(v)
    return None if micros is None else micros // 1000
