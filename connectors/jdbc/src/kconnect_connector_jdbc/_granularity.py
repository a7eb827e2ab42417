"""``timestamp.granularity``: how TIMESTAMP columns are written, and read back for offsets.

Confluent's TimestampGranularity: ``connect_logical`` keeps Connect's Timestamp (milliseconds
on the wire); the others keep the database's sub-millisecond digits as an epoch count
(INT64, or its decimal text) or as ISO local date-time text in ``db.timezone``. Whatever a
record carries, the offset is read back from it, so the timestamp modes work with each.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from kconnect_sdk import ConnectError, Schema
from kconnect_sdk.java import EPOCH_DATETIME

__all__ = ["CONNECT_LOGICAL", "GRANULARITIES", "Granularity", "granularity"]

_ONE_US: Final = dt.timedelta(microseconds=1)
_LONG_TEXT: Final = re.compile(r"[+-]?[0-9]+")
_ISO: Final = {
    digits: re.compile(
        rf"(\d{{4}})-(\d{{2}})-(\d{{2}})T(\d{{2}}):(\d{{2}}):(\d{{2}})\.(\d{{{digits}}})"
    )
    for digits in (6, 9)
}


@dataclass(frozen=True, slots=True)
class Granularity:
    """One ``timestamp.granularity`` value."""

    name: str
    schema: Schema | None
    """The field schema of a TIMESTAMP column (before optional); None keeps Timestamp."""
    from_timestamp: Callable[[dt.datetime, dt.tzinfo], Any]
    """A column's datetime (naive means UTC) as the record carries it."""
    to_timestamp: Callable[[Any, dt.tzinfo], dt.datetime | None]
    """A record's value back to the instant (an aware datetime) its offset holds."""

    @property
    def logical(self) -> bool:
        return self.schema is None


def _micros(value: dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return (value - EPOCH_DATETIME) // _ONE_US


def _from_micros(micros: int) -> dt.datetime:
    return EPOCH_DATETIME + dt.timedelta(microseconds=micros)


def _iso(value: dt.datetime, zone: dt.tzinfo) -> str:
    """``yyyy-MM-dd'T'HH:mm:ss.SSSSSS`` of the instant in ``zone``."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    v = value.astimezone(zone)
    return (
        f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f".{v.microsecond:06d}"
    )


def _long_text(value: Any, what: str) -> int:
    text = str(value)
    if not _LONG_TEXT.fullmatch(text):
        raise ConnectError(
            f"Invalid value for timestamp column with {what} granularity: {text!r} is not an "
            "integer"
        )
    return int(text)


def _parse_iso(value: Any, zone: dt.tzinfo, digits: int, what: str) -> dt.datetime:
    match = _ISO[digits].fullmatch(str(value))
    if match is None:
        raise ConnectError(
            f"Invalid value for timestamp column with {what} granularity: {value!r} is not "
            f"yyyy-MM-ddTHH:mm:ss.{'S' * digits}"
        )
    y, mo, d, h, mi, s, fraction = match.groups()
    try:
        local = dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), int(fraction[:6]))
    except ValueError as exc:
        raise ConnectError(
            f"Invalid value for timestamp column with {what} granularity: {value!r}: {exc}"
        ) from exc
    return local.replace(tzinfo=zone).astimezone(dt.UTC)


def _logical_to(value: Any, zone: dt.tzinfo) -> dt.datetime | None:
    if value is None:
        return None
    moment: dt.datetime = value
    return moment


def _optional(
    convert: Callable[[Any, dt.tzinfo], dt.datetime],
) -> Callable[[Any, dt.tzinfo], dt.datetime | None]:
    def to_timestamp(value: Any, zone: dt.tzinfo) -> dt.datetime | None:
        return None if value is None else convert(value, zone)

    return to_timestamp


CONNECT_LOGICAL: Final = Granularity("connect_logical", None, lambda v, z: v, _logical_to)

_ALL: Final[tuple[Granularity, ...]] = (
    CONNECT_LOGICAL,
    Granularity(
        "micros_long",
        Schema.INT64,
        lambda v, z: _micros(v),
        _optional(lambda v, z: _from_micros(int(v))),
    ),
    Granularity(
        "micros_string",
        Schema.STRING,
        lambda v, z: str(_micros(v)),
        _optional(lambda v, z: _from_micros(_long_text(v, "micros-string"))),
    ),
    Granularity(
        "micros_iso_datetime_string",
        Schema.STRING,
        _iso,
        _optional(lambda v, z: _parse_iso(v, z, 6, "micros-iso-datetime-string")),
    ),
    Granularity(
        "nanos_long",
        Schema.INT64,
        lambda v, z: _micros(v) * 1000,
        _optional(lambda v, z: _from_micros(int(v) // 1000)),
    ),
    Granularity(
        "nanos_string",
        Schema.STRING,
        lambda v, z: str(_micros(v) * 1000),
        _optional(lambda v, z: _from_micros(_long_text(v, "nanos-string") // 1000)),
    ),
    Granularity(
        "nanos_iso_datetime_string",
        Schema.STRING,
        lambda v, z: _iso(v, z) + "000",
        _optional(lambda v, z: _parse_iso(v, z, 9, "nanos-iso-datetime-string")),
    ),
)

GRANULARITIES: Final = tuple(g.name for g in _ALL)
_BY_NAME: Final = {g.name: g for g in _ALL}


def granularity(name: str | None) -> Granularity:
    """The granularity named ``name`` (any case; empty is ``connect_logical``)."""
    key = (name or "").strip().lower() or CONNECT_LOGICAL.name
    found = _BY_NAME.get(key)
    if found is None:
        raise ConnectError(
            f"timestamp.granularity {name!r} is not one of {', '.join(GRANULARITIES)}"
        )
    return found
