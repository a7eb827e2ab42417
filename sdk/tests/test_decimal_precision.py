"""Decimal is exact at any precision, as Kafka's Decimal (BigDecimal <-> BigInteger) is.

Python's default decimal context keeps 28 significant digits; a DECIMAL(38, x) column has
up to 38, so any Decimal arithmetic on the path would round silently. The expected bytes
below are what Java's ``BigDecimal.unscaledValue().toByteArray()`` returns for each value
(computed with OpenJDK 17 and kept here as data).
"""

from __future__ import annotations

import decimal

import pytest
from kconnect_sdk import DataError, Decimal

# (decimal text, scale, big-endian two's complement bytes from BigInteger.toByteArray)
JAVA_CASES = [
    ("12345678901234567890123456789012345678", 0, "0949b0f6f0023313c4499050de38f34e"),
    ("-12345678901234567890123456789012345678", 0, "f6b64f090ffdccec3bb66faf21c70cb2"),
    ("0.12345678901234567890123456789012345678", 38, "0949b0f6f0023313c4499050de38f34e"),
    ("-99999999.999999999999999999999999999999", 30, "b4c4b357a5793b85f675ddc000000001"),
    ("1.0000000000000000000000000000000000001", 37, "0785ee10d5da46d900f436a000000001"),
    ("99999999999999999999999999999999999999", 0, "4b3b4ca85a86c47a098a223fffffffff"),
    ("-0.00000000000000000000000000000000000001", 38, "ff"),
]


@pytest.mark.parametrize(("text", "scale", "java_hex"), JAVA_CASES)
def test_from_logical_gives_javas_bytes(text: str, scale: int, java_hex: str) -> None:
    encoded = Decimal.from_logical(Decimal.schema(scale), decimal.Decimal(text))
    assert encoded.hex() == java_hex


@pytest.mark.parametrize(("text", "scale", "java_hex"), JAVA_CASES)
def test_to_logical_reads_javas_bytes_exactly(text: str, scale: int, java_hex: str) -> None:
    value = Decimal.to_logical(Decimal.schema(scale), bytes.fromhex(java_hex))
    # Same sign, digits and scale (equality alone would ignore the scale).
    assert value.as_tuple() == decimal.Decimal(text).as_tuple()
    assert value.as_tuple().exponent == -scale


def test_exact_even_under_a_narrow_context() -> None:
    # A caller's tighter context must not leak into the encoding either.
    with decimal.localcontext(decimal.Context(prec=5)):
        value = decimal.Decimal("12345678.123456789012345678901234567890")
        schema = Decimal.schema(30)
        assert Decimal.to_logical(schema, Decimal.from_logical(schema, value)) == value


def test_round_trip_far_beyond_38_digits() -> None:
    text = "-" + "9" * 60 + "." + "1" * 40
    value = decimal.Decimal(text)
    schema = Decimal.schema(40)
    assert str(Decimal.to_logical(schema, Decimal.from_logical(schema, value))) == text


def test_scale_mismatch_is_a_data_error() -> None:
    with pytest.raises(DataError, match="scale 2, schema expects scale 3"):
        Decimal.from_logical(Decimal.schema(3), decimal.Decimal("1.00"))
