"""Apache Kafka's DateTest, TimeTest, TimestampTest, DecimalTest and FieldTest, method by method.

(Module names: one per Java class would be five tiny files; the cases are prefixed with
their Java class instead.) Java's ``java.util.Date`` is a Python ``date``/``time``/
``datetime`` in UTC; "invalid schema" is a schema whose name is not the logical type's.
"""

from __future__ import annotations

import datetime as dt
import decimal

import pytest
from kconnect_sdk import DataError, Date, Decimal, Field, Schema, Time, Timestamp, validate_value

UTC = dt.UTC
EPOCH_DAY = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)


# -- DateTest -------------------------------------------------------------------------------


def test_date_test_test_builder() -> None:
    assert Date.SCHEMA.name == Date.LOGICAL_NAME
    assert Date.SCHEMA.version == 1


def test_date_test_test_from_logical() -> None:
    assert Date.from_logical(Date.SCHEMA, EPOCH_DAY) == 0
    assert Date.from_logical(Date.SCHEMA, EPOCH_DAY + dt.timedelta(days=10000)) == 10000


def test_date_test_test_from_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Date.from_logical(Date.builder().name("invalid").build(), EPOCH_DAY)


def test_date_test_test_from_logical_invalid_has_time_components() -> None:
    with pytest.raises(DataError):
        Date.from_logical(Date.SCHEMA, EPOCH + dt.timedelta(seconds=1))


def test_date_test_test_to_logical() -> None:
    assert Date.to_logical(Date.SCHEMA, 0) == EPOCH_DAY
    assert Date.to_logical(Date.SCHEMA, 10000) == EPOCH_DAY + dt.timedelta(days=10000)


def test_date_test_test_to_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Date.to_logical(Date.builder().name("invalid").build(), 0)


# -- TimeTest -------------------------------------------------------------------------------


def test_time_test_test_builder() -> None:
    assert Time.SCHEMA.name == Time.LOGICAL_NAME
    assert Time.SCHEMA.version == 1


def test_time_test_test_from_logical() -> None:
    assert Time.from_logical(Time.SCHEMA, dt.time(0, tzinfo=UTC)) == 0
    assert Time.from_logical(Time.SCHEMA, dt.time(0, 0, 10, tzinfo=UTC)) == 10000


def test_time_test_test_from_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Time.from_logical(Time.builder().name("invalid").build(), dt.time(0, tzinfo=UTC))


def test_time_test_test_from_logical_invalid_has_date_components() -> None:
    # A Python time has no date part; a datetime (epoch plus 10000 days) is not a Time value,
    # so every checked path (Struct.put, Headers.add_time, converters) refuses it.
    with pytest.raises(DataError):
        validate_value(Time.SCHEMA, EPOCH + dt.timedelta(days=10000))
    # Time.from_logical refuses a value with a date part as Kafka does, with its message.
    message = "Kafka Connect Time type should not have any date fields set to non-zero values"
    with pytest.raises(DataError, match=message):
        Time.from_logical(Time.SCHEMA, EPOCH + dt.timedelta(days=10000))
    with pytest.raises(DataError, match=message):
        Time.from_logical(Time.SCHEMA, EPOCH_DAY + dt.timedelta(days=10000))


def test_time_test_test_to_logical() -> None:
    assert Time.to_logical(Time.SCHEMA, 0) == dt.time(0, tzinfo=UTC)
    assert Time.to_logical(Time.SCHEMA, 10000) == dt.time(0, 0, 10, tzinfo=UTC)


def test_time_test_test_to_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Time.to_logical(Time.builder().name("invalid").build(), 0)


# -- TimestampTest --------------------------------------------------------------------------

TOTAL_MILLIS = 2_000_000_000 * 2


def test_timestamp_test_test_builder() -> None:
    # (Kafka's case checks Date.SCHEMA here; Timestamp's own schema is checked too.)
    assert Date.SCHEMA.name == Date.LOGICAL_NAME and Date.SCHEMA.version == 1
    assert Timestamp.SCHEMA.name == Timestamp.LOGICAL_NAME and Timestamp.SCHEMA.version == 1


def test_timestamp_test_test_from_logical() -> None:
    assert Timestamp.from_logical(Timestamp.SCHEMA, EPOCH) == 0
    later = EPOCH + dt.timedelta(milliseconds=TOTAL_MILLIS)
    assert Timestamp.from_logical(Timestamp.SCHEMA, later) == TOTAL_MILLIS


def test_timestamp_test_test_from_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Timestamp.from_logical(Timestamp.builder().name("invalid").build(), EPOCH)


def test_timestamp_test_test_to_logical() -> None:
    assert Timestamp.to_logical(Timestamp.SCHEMA, 0) == EPOCH
    assert Timestamp.to_logical(Timestamp.SCHEMA, TOTAL_MILLIS) == EPOCH + dt.timedelta(
        milliseconds=TOTAL_MILLIS
    )


def test_timestamp_test_test_to_logical_invalid_schema() -> None:
    with pytest.raises(DataError):
        Date.to_logical(Date.builder().name("invalid").build(), 0)


# -- DecimalTest ----------------------------------------------------------------------------

TEST_DECIMAL = decimal.Decimal("1.56")
TEST_DECIMAL_NEGATIVE = decimal.Decimal("-1.56")
TEST_BYTES = bytes([0, 0x100 - 100])  # {0, -100}
TEST_BYTES_NEGATIVE = bytes([0x100 - 1, 100])  # {-1, 100}


def test_decimal_test_test_builder() -> None:
    plain = Decimal.builder(2).build()
    assert plain.name == Decimal.LOGICAL_NAME
    assert dict(plain.parameters) == {"scale": "2"}
    assert plain.version == 1


def test_decimal_test_test_from_logical() -> None:
    schema = Decimal.schema(2)
    assert Decimal.from_logical(schema, TEST_DECIMAL) == TEST_BYTES
    assert Decimal.from_logical(schema, TEST_DECIMAL_NEGATIVE) == TEST_BYTES_NEGATIVE


def test_decimal_test_test_to_logical() -> None:
    schema = Decimal.schema(2)
    assert Decimal.to_logical(schema, TEST_BYTES) == TEST_DECIMAL
    assert Decimal.to_logical(schema, TEST_BYTES_NEGATIVE) == TEST_DECIMAL_NEGATIVE


# -- FieldTest ------------------------------------------------------------------------------


def test_field_test_test_equality() -> None:
    field1 = Field("name", 0, Schema.INT8)
    assert field1 == Field("name", 0, Schema.INT8)
    assert field1 != Field("name2", 0, Schema.INT8)
    assert field1 != Field("name", 1, Schema.INT8)
    assert field1 != Field("name", 0, Schema.INT16)
