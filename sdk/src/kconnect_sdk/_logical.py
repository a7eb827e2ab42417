"""Kafka Connect's logical types: Decimal, Date, Time and Timestamp.

Each is a named schema over a primitive, with Kafka Connect's logical names and encodings,
and ``from_logical``/``to_logical`` that convert between the Python value and the encoding.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import Final

from ._errors import DataError
from ._java import EPOCH_DATE, EPOCH_DATETIME, MILLIS_PER_DAY
from ._schema import Schema, SchemaBuilder

__all__ = ["Date", "Decimal", "Time", "Timestamp"]


class Decimal:
    """Arbitrary-precision decimals: BYTES holding the big-endian two's-complement unscaled value."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
    SCALE_FIELD: Final = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        return (
            SchemaBuilder.bytes()
            .name(Decimal.LOGICAL_NAME)
            .parameter(Decimal.SCALE_FIELD, str(scale))
            .version(1)
        )

    @staticmethod
    def schema(scale: int) -> Schema:
        return Decimal.builder(scale).build()

    @staticmethod
    def scale_of(schema: Schema) -> int:
        try:
            return int(schema.parameters[Decimal.SCALE_FIELD])
        except (KeyError, ValueError) as exc:
            raise DataError(
                f"invalid Decimal schema: missing or bad {Decimal.SCALE_FIELD!r} parameter"
            ) from exc

    @staticmethod
    def from_logical(schema: Schema, value: _decimal.Decimal) -> bytes:
        scale = Decimal.scale_of(schema)
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise DataError(f"cannot encode non-finite decimal {value}")
        if -exponent != scale:
            # Kafka refuses a BigDecimal whose scale differs from the schema's.
            raise DataError(f"decimal {value} has scale {-exponent}, schema expects scale {scale}")
        # The unscaled value straight from the digits: Decimal arithmetic (scaleb, quantize)
        # would round to the context's precision, 28 digits by default, and a DECIMAL(38,x)
        # column has more. Python ints are exact at any size, like Java's BigInteger.
        unscaled = int("".join(map(str, digits))) if digits else 0
        if sign:
            unscaled = -unscaled
        # Minimal two's complement, as BigInteger.toByteArray gives it.
        length = (unscaled + (unscaled < 0)).bit_length() // 8 + 1
        return unscaled.to_bytes(length, "big", signed=True)

    @staticmethod
    def to_logical(schema: Schema, value: bytes) -> _decimal.Decimal:
        scale = Decimal.scale_of(schema)
        if not value:
            # Kafka's BigInteger needs at least one byte: no bytes is not zero.
            raise DataError("Invalid Decimal bytes: the unscaled value needs at least one byte")
        unscaled = int.from_bytes(value, "big", signed=True)
        # Parsing text is exact at any precision; scaleb would round to the context's.
        return _decimal.Decimal(f"{unscaled}E{-scale}")


class Date:
    """A calendar date: INT32 days since the Unix epoch."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Date"

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(Date.LOGICAL_NAME).version(1)

    SCHEMA: Schema  # assigned below

    @staticmethod
    def from_logical(schema: Schema, value: _dt.date) -> int:
        if isinstance(value, _dt.datetime):
            raise DataError(
                "Kafka Connect Date type should not have any time fields set to non-zero values"
            )
        return (value - EPOCH_DATE).days

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.date:
        return EPOCH_DATE + _dt.timedelta(days=value)


class Time:
    """A time of day: INT32 milliseconds since midnight UTC."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Time"

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int32().name(Time.LOGICAL_NAME).version(1)

    SCHEMA: Schema

    @staticmethod
    def from_logical(schema: Schema, value: _dt.time) -> int:
        # Java's Time is a java.util.Date on 1970-01-01: a value with a date part (a
        # Python date or datetime) is refused, as Kafka refuses non-zero date fields.
        if not isinstance(value, _dt.time):
            raise DataError(
                "Kafka Connect Time type should not have any date fields set to non-zero "
                f"values; expected a datetime.time but was {type(value).__name__}"
            )
        if value.utcoffset():
            raise DataError("Kafka Connect Time values must be in UTC")
        return (
            (value.hour * 60 + value.minute) * 60 + value.second
        ) * 1000 + value.microsecond // 1000

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.time:
        if not 0 <= value < MILLIS_PER_DAY:
            raise DataError(
                "Time values must use number of milliseconds greater than 0 and less than 86400000"
            )
        seconds, ms = divmod(value, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return _dt.time(hour, minute, second, ms * 1000, tzinfo=_dt.UTC)


class Timestamp:
    """An instant: INT64 milliseconds since the Unix epoch (UTC)."""

    LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Timestamp"

    @staticmethod
    def builder() -> SchemaBuilder:
        return SchemaBuilder.int64().name(Timestamp.LOGICAL_NAME).version(1)

    SCHEMA: Schema

    @staticmethod
    def from_logical(schema: Schema, value: _dt.datetime) -> int:
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.UTC)
        delta = value - EPOCH_DATETIME
        return delta.days * MILLIS_PER_DAY + delta.seconds * 1000 + delta.microseconds // 1000

    @staticmethod
    def to_logical(schema: Schema, value: int) -> _dt.datetime:
        return EPOCH_DATETIME + _dt.timedelta(milliseconds=value)


Date.SCHEMA = Date.builder().build()
Time.SCHEMA = Time.builder().build()
Timestamp.SCHEMA = Timestamp.builder().build()
