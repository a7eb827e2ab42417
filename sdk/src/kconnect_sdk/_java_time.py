"""Java's calendar and ``SimpleDateFormat``: the dates Kafka Connect's Java side writes.

``java.util.Date``, ``SimpleDateFormat`` and Joda's ``GregorianChronology`` agree on the
Gregorian calendar from 1582-10-15 on; before that day ``GregorianCalendar`` (and so
``Date.toString`` and ``SimpleDateFormat``) counts in the Julian calendar, so the day before
1582-10-15 is 1582-10-04. Days here are epoch days (days since 1970-01-01), any integer.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Final

from ._errors import ConfigError, DataError
from ._java import CIVIL_EPOCH_DAY, EPOCH_DATETIME, EPOCH_ORDINAL, MILLIS_PER_DAY

__all__ = [
    "DAY_NAMES",
    "GREGORIAN_CUTOVER_DAY",
    "MONTH_NAMES",
    "JavaDateFormat",
    "date_pattern_tokens",
    "date_to_string",
    "gregorian_date",
    "gregorian_epoch_day",
    "java_calendar_date",
    "julian_date",
    "julian_epoch_day",
]

#: English month names, January first, as Java's ROOT locale writes them.
MONTH_NAMES: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
#: English day names, Monday first (``datetime.weekday()`` order).
DAY_NAMES: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

#: 1582-10-15, the first Gregorian day of ``GregorianCalendar``'s default cutover, as an
#: epoch day; the day before it is the Julian calendar's 1582-10-04.
GREGORIAN_CUTOVER_DAY: Final = -141_427
# Julian day numbers count from 4713 BC (Julian); 1970-01-01 is JDN 2440588.
_EPOCH_JDN: Final = 2_440_588


def julian_epoch_day(year: int, month: int, day: int) -> int:
    """The epoch day of a date of the Julian calendar (year 0 is 1 BC)."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    return day + (153 * m + 2) // 5 + 365 * y + y // 4 - 32083 - _EPOCH_JDN


def gregorian_epoch_day(year: int, month: int, day: int) -> int:
    """The epoch day of a date of the proleptic Gregorian calendar, for any year (Python's
    ``date`` stops at 1 and 9999)."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
    return jdn - _EPOCH_JDN


def julian_date(epoch_day: int) -> tuple[int, int, int]:
    """The Julian calendar's (year, month, day) of an epoch day (year 0 is 1 BC)."""
    c = epoch_day + _EPOCH_JDN + 32082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1


def gregorian_date(epoch_day: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) of an epoch day, for any day (as
    ``LocalDate.ofEpochDay``; Python's ``date`` stops at years 1 and 9999)."""
    # Years counted from March, so the leap day ends a year.
    z = epoch_day + CIVIL_EPOCH_DAY
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def java_calendar_date(epoch_day: int) -> tuple[int, int, int]:
    """``GregorianCalendar``'s (year, month, day) of an epoch day: Julian before
    1582-10-15, Gregorian from it. Year 0 is 1 BC (Java shows it as year 1 of era BC)."""
    if epoch_day < GREGORIAN_CUTOVER_DAY:
        return julian_date(epoch_day)
    return gregorian_date(epoch_day)


def date_to_string(value: int | dt.date | dt.time) -> str:
    """Java's ``java.util.Date.toString()`` in a JVM whose time zone is UTC, as Kafka's
    StringConverter and FileStream sink write a Date, Time or Timestamp value:
    ``Thu Jan 01 00:00:00 UTC 1970``, Julian calendar dates before 1582-10-15, 1 BC as
    year 1 (Java's era year).

    Args:
        value: epoch milliseconds, or a Connect Date (``date``, midnight UTC), Time
            (``time`` of day, UTC unless it has an offset) or Timestamp (``datetime``, UTC
            when naive).
    """
    millis = value if isinstance(value, int) else _epoch_millis(value)
    days, rest = divmod(millis, MILLIS_PER_DAY)
    seconds = rest // 1000
    year, month, day = java_calendar_date(days)
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    weekday = DAY_NAMES[(days + 3) % 7][:3]  # 1970-01-01 was a Thursday
    era_year = year if year > 0 else 1 - year
    return f"{weekday} {MONTH_NAMES[month - 1][:3]} {day:02d} {clock} UTC {era_year}"


def _epoch_millis(value: dt.date | dt.time) -> int:
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return (aware - EPOCH_DATETIME) // dt.timedelta(milliseconds=1)
    if isinstance(value, dt.date):
        return (value.toordinal() - EPOCH_ORDINAL) * MILLIS_PER_DAY
    offset = value.utcoffset() or dt.timedelta(0)
    since_midnight = dt.timedelta(
        hours=value.hour, minutes=value.minute, seconds=value.second, microseconds=value.microsecond
    )
    return (since_midnight - offset) // dt.timedelta(milliseconds=1)


Token = tuple[str, int] | str
"""A pattern letter and how many times it repeats, or literal text."""


def date_pattern_tokens(pattern: str) -> list[Token]:
    """The pieces of a ``SimpleDateFormat`` or Joda ``DateTimeFormat`` pattern (both quote
    alike): each run of one ASCII letter as ``(letter, count)``, quoted text and every other
    character as literal text, ``''`` as one quote.

    Raises:
        ValueError: a quote is not closed.
    """
    tokens: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "'":
            end = i + 1
            text = []
            while True:
                if end >= n:
                    raise ValueError(f"Unterminated quote in {pattern!r}")
                if pattern[end] == "'":
                    if end + 1 < n and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            # '' outside quoted text is one quote.
            tokens.append("".join(text) if end > i + 1 else "'")
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < n and pattern[j] == ch:
                j += 1
            tokens.append((ch, j - i))
            i = j
        else:
            tokens.append(ch)
            i += 1
    return tokens


# -- SimpleDateFormat -----------------------------------------------------------------------

_LETTERS: Final = set("GyYMLwDdEuaHkKhmsSzZX")
# The finest unit a letter shows, so equal timestamps within that unit format alike.
_GRANULARITY_MS: Final = {
    "S": 1,
    "s": 1000,
    "m": 60_000,
    "H": 3_600_000,
    "k": 3_600_000,
    "K": 3_600_000,
    "h": 3_600_000,
    "a": 3_600_000,
}
_CUTOVER: Final = dt.datetime(1582, 10, 15, tzinfo=dt.UTC)


def _year_start(year: int) -> int:
    """The epoch day of January 1 of ``year`` as GregorianCalendar counts it (1582 began
    Julian)."""
    if year <= 1582:
        return julian_epoch_day(year, 1, 1)
    return gregorian_epoch_day(year, 1, 1)


def _days_in_julian_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31


class _JulianMoment:
    """A moment before 1582-10-15 in the Julian calendar's year, month and day, with the
    attributes and methods of a ``datetime`` the formatters use."""

    __slots__ = ("day", "epoch_day", "hour", "microsecond", "minute", "month", "second", "year")

    def __init__(self, moment: dt.datetime) -> None:
        self.epoch_day = moment.toordinal() - EPOCH_ORDINAL
        self.year, self.month, self.day = julian_date(self.epoch_day)
        self.hour, self.minute, self.second = moment.hour, moment.minute, moment.second
        self.microsecond = moment.microsecond

    def toordinal(self) -> int:
        return self.epoch_day + EPOCH_ORDINAL

    def weekday(self) -> int:
        return self.toordinal() % 7 - 1 if self.toordinal() % 7 else 6

    def isoweekday(self) -> int:
        return self.weekday() + 1


_Moment = dt.datetime | _JulianMoment


def _num(value: int, count: int) -> str:
    return str(value).zfill(count)


def _epoch_day(d: _Moment) -> int:
    return d.toordinal() - EPOCH_ORDINAL


def _day_of_year(d: _Moment) -> int:
    return _epoch_day(d) - _year_start(d.year) + 1


def _sunday_on_or_before(day: int) -> int:
    return day - (day + 4) % 7  # 1970-01-01 was a Thursday


def _week_of_year(d: _Moment) -> int:
    """Java's week of year in the US/ROOT locales (Kafka's SimpleDateFormat uses the JVM's
    default): weeks start on Sunday and week 1 is the one holding January 1, so the last
    days of December may fall in week 1 of the next year. ISO weeks differ."""
    sunday = _sunday_on_or_before(_epoch_day(d))
    if d.year < dt.MAXYEAR and sunday + 6 >= _year_start(d.year + 1):
        return 1
    return (sunday - _sunday_on_or_before(_year_start(d.year))) // 7 + 1


def _week_year(d: _Moment) -> int:
    return d.year + 1 if d.month == 12 and _week_of_year(d) == 1 else d.year


def _formatter(letter: str, count: int) -> Callable[[_Moment], str]:
    if letter in "yY":
        year: Callable[[_Moment], int] = (lambda d: d.year) if letter == "y" else _week_year
        if count == 2:
            return lambda d: _num(year(d) % 100, 2)
        return lambda d: _num(year(d), count)
    if letter in "ML":
        if count >= 4:
            return lambda d: MONTH_NAMES[d.month - 1]
        if count == 3:
            return lambda d: MONTH_NAMES[d.month - 1][:3]
        return lambda d: _num(d.month, count)
    simple: dict[str, Callable[[_Moment], int]] = {
        "d": lambda d: d.day,
        "D": _day_of_year,
        "w": _week_of_year,
        "u": lambda d: d.isoweekday(),
        "H": lambda d: d.hour,
        "k": lambda d: d.hour or 24,
        "K": lambda d: d.hour % 12,
        "h": lambda d: d.hour % 12 or 12,
        "m": lambda d: d.minute,
        "s": lambda d: d.second,
        "S": lambda d: d.microsecond // 1000,
    }
    if letter in simple:
        get = simple[letter]
        return lambda d: _num(get(d), count)
    if letter == "E":
        if count >= 4:
            return lambda d: DAY_NAMES[d.weekday()]
        return lambda d: DAY_NAMES[d.weekday()][:3]
    if letter == "a":
        return lambda d: "AM" if d.hour < 12 else "PM"
    if letter == "G":
        return lambda d: "AD"
    if letter == "z":
        return lambda d: "UTC" if count < 4 else "Coordinated Universal Time"
    if letter == "Z":
        return lambda d: "+0000"
    return lambda d: "Z"  # X


def _literal(text: str) -> Callable[[_Moment], str]:
    return lambda d: text


def _is_numeric(token: Token | None) -> bool:
    if token is None or isinstance(token, str):
        return False
    letter, count = token
    return letter in "yYdHkKhmsSDFwWu" or (letter in "ML" and count < 3)


def _parser(letter: str, count: int, used: set[str], abutting: bool) -> str:
    """A regex for one pattern letter when parsing; only its first occurrence captures."""
    pattern = _capturing(letter, count, abutting)
    name = re.match(r"\(\?P<(\w+)>", pattern)
    if name is not None:
        if name.group(1) in used:
            return "(?:" + pattern[name.end() :]
        used.add(name.group(1))
    return pattern


def _capturing(letter: str, count: int, abutting: bool) -> str:
    if letter in "ML" and count >= 3:
        return r"(?P<M>[A-Za-z]+)"
    if letter == "E":
        return r"[A-Za-z]+"
    if letter == "a":
        return r"(?P<a>AM|PM|am|pm)"
    if letter == "G":
        return r"(?:AD|BC)"
    if letter in "zZX":
        return r"(?P<zone>Z|UTC|GMT|[+-]\d{2}:?\d{2}|[+-]\d{2})"
    group = {"L": "M", "Y": "y", "k": "H"}.get(letter, letter)
    # As SimpleDateFormat: a number takes every digit there is ("2023" for "yy"), unless a
    # numeric field follows with nothing between them; then it takes its count of digits.
    digits = rf"\d{{{count}}}" if abutting else r"\d+"
    if letter in "wu":
        return digits
    return rf"(?P<{group}>{digits})"


def _tokenize(pattern: str, name: str) -> list[Token]:
    try:
        tokens = date_pattern_tokens(pattern)
    except ValueError:
        raise ConfigError(
            f"Invalid value {pattern} for configuration {name}: unterminated quote "
            "in the SimpleDateFormat pattern",
            name=name,
            value=pattern,
        ) from None
    for token in tokens:
        if not isinstance(token, str) and token[0] not in _LETTERS:
            raise ConfigError(
                f"Invalid value {pattern} for configuration {name}: SimpleDateFormat "
                f"pattern letter {token[0]!r} is not supported; supported letters: "
                f"{''.join(sorted(_LETTERS))}",
                name=name,
                value=pattern,
            )
    return tokens


class JavaDateFormat:
    """A ``SimpleDateFormat`` pattern bound to UTC, formatted and parsed as Java does.

    Supported letters: ``G y Y M L w D d E u a H k K h m s S z Z X`` and quoted text
    (``'T'``, ``''`` for a quote). ``y``/``yyy``/``yyyy`` give the full year and ``yy`` two
    digits; ``S`` counts milliseconds (as Java does, not a fraction); ``M``/``L`` with three
    or more letters give month names, ``E`` day names. Zones always render UTC (``z`` →
    ``UTC``, ``Z`` → ``+0000``, ``X`` → ``Z``). As ``SimpleDateFormat``'s
    ``GregorianCalendar``, days before 1582-10-15 are Julian, both ways.

    Args:
        pattern: the ``SimpleDateFormat`` pattern.
        name: the config key the pattern came from, named in errors.

    Raises:
        ConfigError: a letter this class does not support, or an unterminated quote.

    Example:
        >>> JavaDateFormat("yyyy-MM-dd").format_millis(1_700_000_000_000)
        '2023-11-14'
    """

    def __init__(self, pattern: str, *, name: str = "format") -> None:
        self.pattern = pattern
        tokens = _tokenize(pattern, name)
        parts: list[Callable[[_Moment], str]] = []
        regex: list[str] = []
        granularity = MILLIS_PER_DAY
        used: set[str] = set()
        for index, token in enumerate(tokens):
            if isinstance(token, str):
                parts.append(_literal(token))
                regex.append(re.escape(token))
            else:
                letter, count = token
                parts.append(_formatter(letter, count))
                following = tokens[index + 1] if index + 1 < len(tokens) else None
                abutting = _is_numeric(token) and _is_numeric(following)
                regex.append(_parser(letter, count, used, abutting))
                granularity = min(granularity, _GRANULARITY_MS.get(letter, MILLIS_PER_DAY))
        self._parts = parts
        self._regex = re.compile("".join(regex))
        self._short_year = any(t[0] == "y" and t[1] <= 2 for t in tokens if not isinstance(t, str))
        self.granularity_ms = granularity
        self._cache: dict[int, str] = {}

    def format(self, moment: dt.datetime) -> str:
        """Render an aware (or UTC-naive) datetime."""
        if moment.tzinfo is not None:
            moment = moment.astimezone(dt.UTC)
            if moment < _CUTOVER:
                return "".join(part(_JulianMoment(moment)) for part in self._parts)
        elif moment < _CUTOVER.replace(tzinfo=None):
            return "".join(part(_JulianMoment(moment)) for part in self._parts)
        return "".join(part(moment) for part in self._parts)

    def format_millis(self, millis: int) -> str:
        """Render milliseconds since the epoch; results are cached per pattern unit."""
        bucket = millis // self.granularity_ms
        hit = self._cache.get(bucket)
        if hit is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            hit = self.format(EPOCH_DATETIME + dt.timedelta(milliseconds=millis))
            self._cache[bucket] = hit
        return hit

    def parse_millis(self, text: str) -> int:
        """Milliseconds since the epoch for ``text``; unset fields default as in Java
        (1970-01-01).

        As Java's ``DateFormat.parse(String)``, the pattern must match from the start of
        the text and whatever follows the match is ignored ("12:26 PM" with "yy" is 2012).

        Raises:
            DataError: the text does not match the pattern or is not a valid date.
        """
        m = self._regex.match(text.strip())
        if m is None:
            raise DataError(
                f"could not parse timestamp {text!r} with format {self.pattern!r}; "
                "check the format option matches the data"
            )
        g = m.groupdict()
        month_text = g.get("M")
        if month_text is None:
            month = 1
        elif month_text.isdigit():
            month = int(month_text)
        else:
            lowered = month_text.lower()
            matches = [
                i
                for i, mn in enumerate(MONTH_NAMES)
                if mn.lower() == lowered or mn[:3].lower() == lowered
            ]
            if not matches:
                raise DataError(f"could not parse month {month_text!r} in timestamp {text!r}")
            month = matches[0] + 1
        year = int(g.get("y") or 1970)
        if g.get("y") is not None and len(g["y"]) == 2 and self._short_year:
            # Exactly two digits for "y" or "yy": the century that puts the year within 80
            # years before and 20 after now, as SimpleDateFormat's default century start;
            # any other count of digits is the year as written.
            start = dt.datetime.now(dt.UTC).year - 80
            year += (start // 100) * 100 + (100 if year < start % 100 else 0)
        hour = int(g.get("H") or g.get("h") or g.get("K") or 0)
        if g.get("h") is not None and hour == 12:
            hour = 0
        if (g.get("a") or "").upper() == "PM" and hour < 12:
            hour += 12
        if g.get("H") is not None and hour == 24:
            hour = 0
        day = int(g.get("d") or 1)
        minute, second = int(g.get("m") or 0), int(g.get("s") or 0)
        if (year, month, day) < (1582, 10, 15):
            # GregorianCalendar reads a date before the cutover as a Julian one (and the
            # ten days the cutover skipped, as SimpleDateFormat is lenient, too).
            if not (
                1 <= month <= 12
                and 1 <= day <= _days_in_julian_month(year, month)
                and 0 <= hour < 24
                and 0 <= minute < 60
                and 0 <= second < 60
            ):
                raise DataError(f"could not parse timestamp {text!r}: not a valid date and time")
            days = julian_epoch_day(year, month, day)
            seconds = hour * 3600 + minute * 60 + second
            moment = EPOCH_DATETIME + dt.timedelta(days=days, seconds=seconds)
        else:
            try:
                moment = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.UTC)
            except ValueError as exc:
                raise DataError(f"could not parse timestamp {text!r}: {exc}") from None
        if g.get("D") is not None and g.get("M") is None and g.get("d") is None:
            # Day of the year, leniently: day 400 is in the next year.
            try:
                moment += dt.timedelta(days=int(g["D"]) - 1)
            except OverflowError as exc:
                raise DataError(
                    f"could not parse timestamp {text!r}: day {g['D']} of the year is beyond "
                    f"the years Python's datetime holds (1 to 9999): {exc}"
                ) from None
        millis = int(g.get("S") or 0)
        zone = g.get("zone")
        offset_ms = 0
        if zone and zone not in ("Z", "UTC", "GMT"):
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            offset_ms = sign * (int(digits[:2]) * 60 + int(digits[2:4] or 0)) * 60_000
        delta = moment - EPOCH_DATETIME
        return delta.days * MILLIS_PER_DAY + delta.seconds * 1000 + millis - offset_ms
