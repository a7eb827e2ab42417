"""Java SimpleDateFormat patterns, rendered and parsed in UTC."""

from __future__ import annotations

import pytest
from kconnect_sdk import ConfigError, DataError
from kconnect_transforms import JavaDateFormat

# 1_483_232_523_004 ms is Sunday 2017-01-01T01:02:03.004Z; worked out by hand.
MILLIS = 1_483_232_523_004


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyyMMdd", "20170101"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "2017-01-01T01:02:03.004Z"),
        ("yy/M/d H:m:s.S", "17/1/1 1:2:3.4"),
        ("EEE, d MMM yyyy hh:mm a", "Sun, 1 Jan 2017 01:02 AM"),
        ("EEEE MMMM", "Sunday January"),
        ("D 'day' ''", "1 day '"),
        ("h 'o''clock'", "1 o'clock"),
        ("yyyy MM dd HH mm ss SSS z Z X", "2017 01 01 01 02 03 004 UTC +0000 Z"),
        ("kk KK", "01 01"),
    ],
)
def test_format(pattern: str, text: str) -> None:
    assert JavaDateFormat(pattern).format_millis(MILLIS) == text


@pytest.mark.parametrize(
    ("pattern", "text", "millis"),
    [
        ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "2017-01-01T01:02:03.004Z", MILLIS),
        ("yyyy MM dd HH mm ss SSS z", "2017 01 01 01 02 03 004 UTC", MILLIS),
        ("yyyy-MM-dd", "2017-01-01", 1_483_228_800_000),
        (
            "dd MMM yyyy hh:mm a",
            "01 Jan 2017 01:02 PM",
            1_483_228_800_000 + 13 * 3_600_000 + 2 * 60_000,
        ),
        ("yyyy-MM-dd HH:mm Z", "2017-01-01 03:02 +0200", 1_483_228_800_000 + 62 * 60_000),
        ("yyyy-MM-dd z Z", "2017-01-01 UTC +0000", 1_483_228_800_000),
    ],
)
def test_parse(pattern: str, text: str, millis: int) -> None:
    assert JavaDateFormat(pattern).parse_millis(text) == millis


def test_unsupported_letters_and_quotes_name_the_config_key() -> None:
    with pytest.raises(ConfigError, match="'q'") as info:
        JavaDateFormat("yyyy-qq", name="timestamp.format")
    assert info.value.name == "timestamp.format"
    with pytest.raises(ConfigError, match="quote"):
        JavaDateFormat("yyyy 'open")


def test_parse_failure_names_the_text_and_pattern() -> None:
    with pytest.raises(DataError, match=r"'2017/01/01'.*'yyyy-MM-dd'"):
        JavaDateFormat("yyyy-MM-dd").parse_millis("2017/01/01")
