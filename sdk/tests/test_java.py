"""kconnect_sdk.java: the JDK's text, hashes and HashMap order, against values Java gives."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from kconnect_sdk.java import (
    CIVIL_EPOCH_DAY,
    EPOCH_DATE,
    EPOCH_DATETIME,
    EPOCH_ORDINAL,
    GREGORIAN_CUTOVER_DAY,
    MICROS_PER_DAY,
    MILLIS_PER_DAY,
    JavaDateFormat,
    date_pattern_tokens,
    date_to_string,
    double_to_string,
    float_to_string,
    gregorian_epoch_day,
    hashmap_order,
    java_calendar_date,
    julian_epoch_day,
    retry_with_backoff,
    string_hash,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (100.0, "100.0"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1.5e-5, "1.5E-5"),
        (1234567.0, "1234567.0"),
        (1e7, "1.0E7"),
        (-12345678.9, "-1.23456789E7"),
        (0.1 + 0.2, "0.30000000000000004"),
        (5e-324, "4.9E-324"),  # Double.MIN_VALUE: two digits, the closest that reads back
        (1.7976931348623157e308, "1.7976931348623157E308"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
    ],
)
def test_double_to_string_is_javas(value: float, text: str) -> None:
    assert double_to_string(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (12.34, "12.34"),  # the float nearest 12.34, not the double's 17 digits
        (0.1, "0.1"),
        (1e10, "1.0E10"),
        (1.401298464324817e-45, "1.4E-45"),  # Float.MIN_VALUE
        (3.4028234663852886e38, "3.4028235E38"),  # Float.MAX_VALUE
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
    ],
)
def test_float_to_string_is_javas(value: float, text: str) -> None:
    assert float_to_string(value) == text


def test_float_to_string_refuses_a_value_past_the_float_range() -> None:
    with pytest.raises(OverflowError):
        float_to_string(1e39)


@pytest.mark.parametrize(
    ("text", "java"),
    [
        ("", 0),
        ("hello", 99162322),
        ("Aa", 2112),
        ("BB", 2112),
        ("polygenelubricants", -(2**31)),  # Integer.MIN_VALUE
        ("\U0001f600", 1772899),  # two UTF-16 units, as Java counts them
        ("\ud800", 55296),  # a lone surrogate is one unit
    ],
)
def test_string_hash_is_string_hashcode(text: str, java: int) -> None:
    assert string_hash(text) == java & 0xFFFFFFFF


def test_hashmap_order_is_bucket_then_insertion_order() -> None:
    # new HashMap<>() of these puts iterates {a, b, c, z} ("a" = 97 in bucket 1 ...).
    keys = ["z", "c", "b", "a"]
    order = hashmap_order([string_hash(k) for k in keys])
    assert [keys[i] for i in order] == ["a", "b", "c", "z"]
    # "Aa" and "BB" share a bucket: insertion order within it.
    assert hashmap_order([string_hash("BB"), string_hash("Aa")]) == [0, 1]


def test_hashmap_order_grows_the_table_past_three_quarters() -> None:
    # 13 keys make a 32-bucket table: 16 (hash 16) then lands after 1..15, before 17.
    hashes = [17, 16, *range(1, 12)]
    assert hashmap_order(hashes) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 0]
    # 12 keys stay in 16 buckets: 16 is bucket 0, 17 bucket 1 (with 1, inserted later).
    assert hashmap_order([17, 16, *range(1, 11)]) == [1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]


def test_epoch_constants() -> None:
    assert dt.date(1970, 1, 1) == EPOCH_DATE
    assert dt.datetime(1970, 1, 1, tzinfo=dt.UTC) == EPOCH_DATETIME
    assert EPOCH_DATE.toordinal() == EPOCH_ORDINAL
    # 0000-03-01 to 0001-01-01 (ordinal 1) is 306 days.
    assert CIVIL_EPOCH_DAY == 306 + EPOCH_ORDINAL - 1
    assert MILLIS_PER_DAY == 24 * 3600 * 1000
    assert MICROS_PER_DAY == MILLIS_PER_DAY * 1000


class _Flaky:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(f"attempt {self.calls}")
        return "ok"


def test_retry_with_backoff_pauses_on_its_schedule() -> None:
    pauses: list[float] = []
    call = _Flaky(4)
    result = retry_with_backoff(
        call, attempts=5, backoff_s=1.0, multiplier=2.0, max_backoff_s=5.0, sleep=pauses.append
    )
    assert result == "ok"
    assert pauses == [1.0, 2.0, 4.0, 5.0]


def test_retry_with_backoff_raises_the_last_error_after_its_attempts() -> None:
    pauses: list[float] = []
    retried: list[int] = []
    call = _Flaky(10)
    with pytest.raises(ConnectionError, match="attempt 3"):
        retry_with_backoff(
            call,
            attempts=3,
            backoff_s=0.5,
            retry_on=ConnectionError,
            on_retry=lambda n, exc, wait: retried.append(n),
            sleep=pauses.append,
        )
    assert (call.calls, pauses, retried) == (3, [0.5, 0.5], [1, 2])


def test_retry_with_backoff_lets_other_errors_through_at_once() -> None:
    def broken() -> None:
        raise ValueError("bad config")

    with pytest.raises(ValueError, match="bad config"):
        retry_with_backoff(broken, attempts=None, backoff_s=1.0, retry_on=OSError, sleep=print)


def test_retry_with_backoff_grows_by_a_step() -> None:
    pauses: list[float] = []
    retry_with_backoff(
        _Flaky(4),
        attempts=None,
        backoff_s=0.2,
        increment_s=0.2,
        max_backoff_s=0.5,
        sleep=pauses.append,
    )
    assert pauses == pytest.approx([0.2, 0.4, 0.5, 0.5])


def test_retry_with_backoff_gives_up_at_once_on_an_error_not_worth_retrying() -> None:
    call = _Flaky(3)
    with pytest.raises(ConnectionError, match="attempt 2"):
        retry_with_backoff(
            call,
            attempts=None,
            backoff_s=1.0,
            retry_if=lambda exc: str(exc) != "attempt 2",
            sleep=lambda _: None,
        )
    assert call.calls == 2


# -- GregorianCalendar's days ----------------------------------------------------------------


def test_calendar_dates_are_gregorian_from_the_cutover_on() -> None:
    for day in (GREGORIAN_CUTOVER_DAY, -1, 0, 59, 10_957, 2_932_896):
        date = EPOCH_DATE + dt.timedelta(days=day)
        assert java_calendar_date(day) == (date.year, date.month, date.day)
        assert gregorian_epoch_day(date.year, date.month, date.day) == day
    assert gregorian_epoch_day(10_000, 1, 1) == 2_932_897  # past Python's dates


def test_calendar_dates_before_the_cutover_are_julian() -> None:
    # Java 17: new Date(-12219292800001L) is 1582-10-04 in UTC; 1 AD Jan 1 (Julian) is
    # Gregorian 0000-12-30.
    assert java_calendar_date(GREGORIAN_CUTOVER_DAY - 1) == (1582, 10, 4)
    assert julian_epoch_day(1582, 10, 4) == GREGORIAN_CUTOVER_DAY - 1
    assert java_calendar_date(julian_epoch_day(1, 1, 1)) == (1, 1, 1)
    assert julian_epoch_day(1, 1, 1) == gregorian_epoch_day(0, 12, 30)
    assert java_calendar_date(julian_epoch_day(-43, 3, 15)) == (-43, 3, 15)  # 44 BC


def test_date_pattern_tokens() -> None:
    assert date_pattern_tokens("yyyy-MM-dd'T'HH''x") == [
        ("y", 4),
        "-",
        ("M", 2),
        "-",
        ("d", 2),
        "T",
        ("H", 2),
        "'",
        ("x", 1),
    ]
    with pytest.raises(ValueError, match="Unterminated quote"):
        date_pattern_tokens("yyyy 'open")


def test_java_date_format_formats_julian_days() -> None:
    assert JavaDateFormat("yyyy-MM-dd EEE").format_millis(-12_219_292_800_001) == "1582-10-04 Thu"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # What Java 17's new Date(millis).toString() prints with TZ=UTC.
        (0, "Thu Jan 01 00:00:00 UTC 1970"),
        (-12_219_379_200_000, "Thu Oct 04 00:00:00 UTC 1582"),
        (-62_135_769_600_000, "Sat Jan 01 00:00:00 UTC 1"),
        (253_433_923_200_000, "Mon Jan 01 00:00:00 UTC 10001"),
        (dt.date(1582, 10, 14), "Thu Oct 04 00:00:00 UTC 1582"),  # Gregorian in, Julian out
        (dt.datetime(2024, 2, 29, 23, 59, 59, 999_000), "Thu Feb 29 23:59:59 UTC 2024"),
        (dt.time(1, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))), "Thu Jan 01 00:30:00 UTC 1970"),
    ],
)
def test_date_to_string_is_javas(value: int | dt.date | dt.time, text: str) -> None:
    assert date_to_string(value) == text
