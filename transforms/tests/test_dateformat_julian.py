"""SimpleDateFormat counts days before 1582-10-15 in the Julian calendar; so does
JavaDateFormat. The expected texts and milliseconds are what Java 17's SimpleDateFormat
(UTC, en_US) gives for the same input."""

from __future__ import annotations

import pytest
from kconnect_transforms import JavaDateFormat


@pytest.mark.parametrize(
    ("millis", "text"),
    [
        (-12219247503211, "1582-10-15 12:34:56.789 Fri 278 40"),  # the first Gregorian day
        (-12219333903211, "1582-10-04 12:34:56.789 Thu 277 40"),  # the day before it
        (-12220197903211, "1582-09-24 12:34:56.789 Mon 267 39"),
        (-14826626703211, "1500-02-20 12:34:56.789 Thu 51 8"),
        (-62135551503211, "0001-01-03 12:34:56.789 Mon 3 2"),  # proleptic 0001-01-01
        (-30595922703211, "1000-06-09 12:34:56.789 Sun 161 24"),
        (-12212594703211, "1582-12-31 12:34:56.789 Fri 355 1"),  # 1582 began Julian
        (-12212508303211, "1583-01-01 12:34:56.789 Sat 1 1"),
    ],
)
def test_dates_before_the_cutover_are_julian(millis: int, text: str) -> None:
    assert JavaDateFormat("yyyy-MM-dd HH:mm:ss.SSS EEE D w").format_millis(millis) == text
    assert JavaDateFormat("yyyy-MM-dd HH:mm:ss.SSS").parse_millis(text[:23]) == millis


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("1582-10-15", -12219292800000),
        ("1582-10-04", -12219379200000),
        ("1582-10-10", -12218860800000),  # skipped by the cutover: read leniently, as Java
        ("1500-02-29", -14825894400000),  # a Julian leap day
    ],
)
def test_parsing_reads_julian_dates(text: str, millis: int) -> None:
    assert JavaDateFormat("yyyy-MM-dd").parse_millis(text) == millis
