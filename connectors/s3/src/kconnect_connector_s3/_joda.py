"""Joda-Time ``DateTimeFormat`` patterns, the syntax of ``path.format``.

Only formatting is needed (partition directories are written, never parsed). Text fields
(month and weekday names, AM/PM, eras) are English, whatever ``locale`` says: the common
``path.format`` values use numbers only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from kconnect_sdk import ConfigError
from kconnect_sdk.java import DAY_NAMES, MONTH_NAMES, date_pattern_tokens

__all__ = ["compile_pattern"]

Piece = Callable[[dt.datetime], str]


def _num(get: Callable[[dt.datetime], int], width: int) -> Piece:
    def piece(d: dt.datetime) -> str:
        value = get(d)
        sign = "-" if value < 0 else ""
        return sign + str(abs(value)).zfill(width)

    return piece


def _text(names: tuple[str, ...], get: Callable[[dt.datetime], int], count: int) -> Piece:
    return lambda d: names[get(d)] if count >= 4 else names[get(d)][:3]


def _offset(d: dt.datetime, count: int) -> str:
    if count >= 3:
        return str(getattr(d.tzinfo, "key", None) or d.tzname() or "")
    delta = d.utcoffset() or dt.timedelta(0)
    minutes = int(delta.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(minutes), 60)
    colon = ":" if count == 2 else ""
    return f"{sign}{hours:02d}{colon}{mins:02d}"


def _year(count: int, get: Callable[[dt.datetime], int]) -> Piece:
    # Joda prints a two-letter year as its last two digits, any other count as the full year.
    if count == 2:
        return lambda d: f"{get(d) % 100:02d}"
    return _num(get, count)


def _field(letter: str, count: int) -> Piece:
    match letter:
        case "y" | "Y" | "u":
            return _year(count, lambda d: d.year)
        case "x":
            return _year(count, lambda d: d.isocalendar()[0])
        case "C":
            return _num(lambda d: d.year // 100, count)
        case "G":
            return lambda d: "AD"
        case "M":
            if count >= 3:
                return _text(MONTH_NAMES, lambda d: d.month - 1, count)
            return _num(lambda d: d.month, count)
        case "d":
            return _num(lambda d: d.day, count)
        case "D":
            return _num(lambda d: d.timetuple().tm_yday, count)
        case "w":
            return _num(lambda d: d.isocalendar()[1], count)
        case "e":
            return _num(lambda d: d.isoweekday(), count)
        case "E":
            return _text(DAY_NAMES, lambda d: d.weekday(), count)
        case "a":
            return lambda d: "AM" if d.hour < 12 else "PM"
        case "H":
            return _num(lambda d: d.hour, count)
        case "k":
            return _num(lambda d: d.hour or 24, count)
        case "K":
            return _num(lambda d: d.hour % 12, count)
        case "h":
            return _num(lambda d: (d.hour % 12) or 12, count)
        case "m":
            return _num(lambda d: d.minute, count)
        case "s":
            return _num(lambda d: d.second, count)
        case "S":
            # Fraction of second: the first ``count`` digits of the milliseconds.
            return lambda d: f"{d.microsecond // 1000:03d}"[:count].ljust(count, "0")
        case "Z":
            return lambda d: _offset(d, count)
        case "z":
            return lambda d: d.tzname() or ""
    raise ValueError(f"Illegal pattern component: {letter * count}")


def _literal(text: str) -> Piece:
    return lambda d: text


def compile_pattern(pattern: str) -> Callable[[dt.datetime], str]:
    """A function formatting an aware datetime as Joda's ``DateTimeFormat.forPattern``.

    Raises:
        ConfigError: the pattern has an unknown letter or an unterminated quote.
    """
    try:
        pieces = [
            _literal(token) if isinstance(token, str) else _field(*token)
            for token in date_pattern_tokens(pattern)
        ]
    except ValueError as exc:
        raise ConfigError(
            f"Invalid value {pattern} for configuration path.format: {exc}",
            name="path.format",
            value=pattern,
        ) from exc
    return lambda d: "".join(p(d) for p in pieces)
