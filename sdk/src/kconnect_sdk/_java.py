"""Java-parity primitives: what Kafka Connect's Java runtime writes, computed once for all.

Plugins that must write the bytes Kafka's Java plugins write (a converter's text, a sink's
file, an object store's keys) need the same few pieces of the JDK: ``Double.toString``,
``String.hashCode`` and ``HashMap``'s iteration order, the epoch arithmetic of
``java.time``, and a retry loop with the schedule the Java connectors use. They live here
so each plugin does not carry its own copy.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math
import struct as _struct
import time
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

__all__ = [
    "CIVIL_EPOCH_DAY",
    "EPOCH_DATE",
    "EPOCH_DATETIME",
    "EPOCH_ORDINAL",
    "MICROS_PER_DAY",
    "MILLIS_PER_DAY",
    "double_to_string",
    "float_to_string",
    "hashmap_order",
    "retry_with_backoff",
    "string_hash",
]

T = TypeVar("T")

# -- the epoch ------------------------------------------------------------------------------

#: 1970-01-01, day 0 of Connect's ``Date`` (days since the epoch).
EPOCH_DATE: Final = _dt.date(1970, 1, 1)
#: 1970-01-01T00:00Z, instant 0 of Connect's ``Timestamp`` (milliseconds since the epoch).
EPOCH_DATETIME: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
#: Milliseconds in a day: a ``Date`` is a ``Timestamp`` of a multiple of it.
MILLIS_PER_DAY: Final = 86_400_000
#: Microseconds in a day (database drivers and Debezium's ``MicroTimestamp``).
MICROS_PER_DAY: Final = 86_400_000_000
#: ``EPOCH_DATE.toordinal()``: a proleptic Gregorian ordinal minus it is an epoch day.
EPOCH_ORDINAL: Final = 719_163
#: Days from 0000-03-01 to the epoch: the shift of the civil-from-days algorithm (years
#: counted from March, so the leap day ends a year) that ``LocalDate.ofEpochDay`` uses.
CIVIL_EPOCH_DAY: Final = 719_468

# -- Double.toString and Float.toString -----------------------------------------------------

_pack_f32 = _struct.Struct("<f").pack


def _float32_same(a: float, b: float) -> bool:
    try:
        return _pack_f32(a) == _pack_f32(b)
    except OverflowError:  # rounded past the largest float: not the same float
        return False


def _java_text(value: float, float32: bool) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    digits = repr(value)
    precision = 17
    if float32:
        for precision in range(1, 10):
            candidate = f"{value:.{precision}g}"
            if _float32_same(float(candidate), value):
                digits = candidate
                break
    elif len(_decimal.Decimal(digits).normalize().as_tuple().digits) == 1:
        precision = 1
    if precision == 1:
        # Java writes at least two digits and then takes the two-digit decimal closest to
        # the value that still reads back as it: 4.9E-324 and 1.4E-45, not 5.0 and 1.0.
        two = f"{_decimal.Decimal(value):.1e}"
        if float(two) == value if not float32 else _float32_same(float(two), value):
            digits = two
    number = _decimal.Decimal(digits).normalize()
    if 1e-3 <= abs(value) < 1e7:
        text = f"{number:f}"
        return text if "." in text else text + ".0"
    sign, mantissa_digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    shown = "".join(map(str, mantissa_digits))
    power = len(shown) - 1 + exponent
    mantissa = shown[0] + "." + (shown[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{power}"


def double_to_string(value: float) -> str:
    """Java's ``Double.toString(value)`` (JDK 19 and later: the shortest digits that read back).

    Plain notation for 1e-3 <= |value| < 1e7 (``0.001``, ``1234567.0``), otherwise
    ``d.dddE±n`` (``1.0E7``, ``1.5E-5``); at least two digits, so a value one digit would
    name takes the closest two-digit decimal that reads back (``4.9E-324``); ``NaN``,
    ``Infinity``, ``-Infinity``, ``-0.0``.
    """
    return _java_text(float(value), False)


def float_to_string(value: float) -> str:
    """Java's ``Float.toString((float) value)``: the shortest digits that read back as the
    same 32-bit float (``12.34`` for the double nearest the float 12.34), in
    :func:`double_to_string`'s notation (``1.4E-45``, ``3.4028235E38``).

    Raises:
        OverflowError: ``value`` is finite and past the float range.
    """
    single: float = _struct.unpack("<f", _pack_f32(value))[0]
    return _java_text(single, True)


# -- String.hashCode and HashMap ------------------------------------------------------------


def string_hash(text: str) -> int:
    """Java's ``text.hashCode()``, over UTF-16 code units (lone surrogates included), as an
    unsigned 32-bit int (``h & 0xFFFFFFFF`` of Java's signed result)."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def hashmap_order(hashes: Sequence[int]) -> list[int]:
    """The positions of keys, given their ``hashCode()`` in insertion order, in the order a
    ``new HashMap<>()`` filled by ``put`` iterates them.

    The table starts at 16 buckets and doubles whenever the size passes three quarters of
    them; a key's bucket is its spread hash (``h ^ h >>> 16``) masked to the table, and a
    bucket keeps insertion order (a resize splits buckets without reordering them). The
    sort is stable, so equal buckets stay in insertion order.
    """
    capacity = 16
    while len(hashes) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    buckets = [((h & 0xFFFFFFFF) ^ ((h & 0xFFFFFFFF) >> 16)) & mask for h in hashes]
    return sorted(range(len(hashes)), key=buckets.__getitem__)


# -- retries --------------------------------------------------------------------------------


def retry_with_backoff(
    call: Callable[[], T],
    *,
    attempts: int | None,
    backoff_s: float,
    max_backoff_s: float | None = None,
    multiplier: float = 1.0,
    increment_s: float = 0.0,
    retry_on: type[BaseException] | tuple[type[BaseException], ...] = Exception,
    retry_if: Callable[[BaseException], bool] | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """``call()``'s result, calling it again after a pause each time it raises ``retry_on``.

    Args:
        call: what to do; called at least once.
        attempts: calls in all before the last error is raised, or None to retry for ever.
        backoff_s: the pause after the first failure.
        max_backoff_s: the longest pause, or None for no cap.
        multiplier: each pause is the previous one times this (1.0: a fixed pause; 2.0:
            exponential backoff, as the Java connectors' ``retry.backoff.ms``).
        increment_s: added to each pause after the multiplier (``backoff_s`` and
            ``increment_s`` equal with ``multiplier=1.0``: a pause growing by a step).
        retry_on: the errors worth another attempt; any other propagates at once.
        retry_if: when given, a ``retry_on`` error for which it returns False propagates
            at once too (an error class that holds both transient and permanent failures).
        on_retry: called before each pause with the failed attempt's number (from 1), its
            error and the pause, to log the retry.
        sleep: how to pause (a test passes a recorder; a task its stop-aware wait).

    Raises:
        The last ``retry_on`` error once ``attempts`` calls have failed.
    """
    if attempts is not None and attempts < 1:
        raise ValueError(f"retry_with_backoff: attempts must be >= 1 or None, got {attempts}")
    pause = backoff_s
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except retry_on as exc:
            if attempts is not None and attempt >= attempts:
                raise
            if retry_if is not None and not retry_if(exc):
                raise
            wait = pause if max_backoff_s is None else min(pause, max_backoff_s)
            if on_retry is not None:
                on_retry(attempt, exc, wait)
            sleep(wait)
            pause = pause * multiplier + increment_s
