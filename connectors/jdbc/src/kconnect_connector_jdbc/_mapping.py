"""Result columns to Connect schemas and values, as Confluent's GenericDatabaseDialect maps them."""

from __future__ import annotations

import datetime as dt
import decimal
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from kconnect_sdk import DataError, Date, Decimal, Schema, SchemaBuilder, Time, Timestamp
from kconnect_sdk.java import EPOCH_DATE, MILLIS_PER_DAY

from ._column import SCALE_UNSET, Column, SqlType
from ._granularity import CONNECT_LOGICAL, Granularity

__all__ = [
    "ColumnTyping",
    "Converter",
    "RowMapping",
    "decimal_schema",
    "field_schema",
    "map_columns",
    "timestamp_converter",
    "value_converter",
    "wrap_int8",
]

log = logging.getLogger(__name__)

# Confluent's limits: NUMERICs up to 18 digits fit a long; scale 127 stands in for "unset".
_MAX_INTEGER_TYPE_PRECISION: Final = 18
_NUMERIC_TYPE_SCALE_LOW: Final = -84
NUMERIC_TYPE_SCALE_HIGH: Final = 127
PRECISION_FIELD: Final = "connect.decimal.precision"

# Quantizing to a column's scale must never round away digits: a context wide enough for
# any DECIMAL/NUMERIC a database holds (PostgreSQL allows 131072 digits before the point).
_EXACT: Final = decimal.Context(
    prec=decimal.MAX_PREC,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    rounding=decimal.ROUND_HALF_UP,
)

Converter = Callable[[Any], Any]


class ColumnTyping(Protocol):
    """What a dialect decides about a result column: its Connect schema and how its driver
    value becomes the Connect value (Confluent's ``addFieldToSchema`` and
    ``columnConverterFor``, which each dialect may override)."""

    zone: dt.tzinfo

    def field_schema(self, column: Column, numeric_mapping: str) -> Schema | None: ...

    def value_converter(self, column: Column, schema: Schema) -> Converter | None: ...


@dataclass(frozen=True, slots=True)
class RowMapping:
    """The value schema of a result and how to turn each row into its struct values."""

    schema: Schema
    indexes: tuple[int, ...]
    """Result column of each field (columns of unsupported types are left out)."""
    converters: tuple[tuple[int, Converter], ...]
    """(field index, converter) for the fields whose driver value needs converting."""
    columns: tuple[Column, ...]


def _integer_schema(precision: int) -> Schema:
    if precision > 9:
        return Schema.INT64
    if precision > 4:
        return Schema.INT32
    if precision > 2:
        return Schema.INT16
    return Schema.INT8


def decimal_schema(column: Column, scale: int) -> Schema:
    """A Decimal of ``scale`` that also records the column's precision."""
    return Decimal.builder(scale).parameter(PRECISION_FIELD, str(column.precision)).build()


def field_schema(column: Column, numeric_mapping: str) -> Schema | None:
    """The field schema Confluent's GenericDatabaseDialect gives ``column`` (required;
    optional applied later)."""
    t, precision, scale = column.sql_type, column.precision, column.scale
    if t is SqlType.BOOLEAN:
        return Schema.BOOLEAN
    if t is SqlType.BIT:
        return Schema.INT8
    if t is SqlType.TINYINT:
        return Schema.INT8 if column.signed else Schema.INT16
    if t is SqlType.SMALLINT:
        return Schema.INT16 if column.signed else Schema.INT32
    if t is SqlType.INTEGER:
        return Schema.INT32 if column.signed else Schema.INT64
    if t is SqlType.BIGINT:
        return Schema.INT64
    if t is SqlType.REAL:
        return Schema.FLOAT32
    if t in (SqlType.FLOAT, SqlType.DOUBLE):
        return Schema.FLOAT64
    if t is SqlType.NUMERIC:
        if numeric_mapping == "precision_only":
            if scale == 0 and precision <= _MAX_INTEGER_TYPE_PRECISION:
                return _integer_schema(precision)
        elif numeric_mapping == "best_fit":
            if precision <= _MAX_INTEGER_TYPE_PRECISION:
                if _NUMERIC_TYPE_SCALE_LOW <= scale < 1:
                    return _integer_schema(precision)
                if scale > 0:
                    return Schema.FLOAT64
        elif numeric_mapping == "best_fit_eager_double":
            if _NUMERIC_TYPE_SCALE_LOW <= scale < 1:
                if precision <= _MAX_INTEGER_TYPE_PRECISION:
                    return _integer_schema(precision)
            elif scale > 0:
                return Schema.FLOAT64
    if t in (SqlType.NUMERIC, SqlType.DECIMAL):
        return decimal_schema(column, NUMERIC_TYPE_SCALE_HIGH if scale == SCALE_UNSET else scale)
    if t is SqlType.VARCHAR or (t is SqlType.OTHER and column.as_text):
        return Schema.STRING
    if t is SqlType.BINARY:
        return Schema.BYTES
    if t is SqlType.DATE:
        return Date.SCHEMA
    if t is SqlType.TIME:
        return Time.SCHEMA
    if t is SqlType.TIMESTAMP:
        return Timestamp.SCHEMA
    return None


def _optional(schema: Schema) -> Schema:
    builder = SchemaBuilder(schema.type)
    if schema.name:
        builder.name(schema.name)
    if schema.version is not None:
        builder.version(schema.version)
    if schema.parameters:
        builder.parameters(schema.parameters)
    return builder.optional().build()


def wrap_int8(value: int) -> int:
    """An unsigned byte read as Java's signed byte."""
    return value - 256 if value > 127 else value


def value_converter(column: Column, schema: Schema, zone: dt.tzinfo) -> Converter | None:
    """How to turn the driver's value into the Connect value, for drivers that give dates and
    times as datetime objects; None when the value already is the Connect value."""
    t = column.sql_type
    st = schema.type.value
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        if column.precision > 0 and column.scale >= 0 and column.type_name == "DECIMAL":
            # MySQL gives a DECIMAL(p, s) value with exactly s decimals.
            return None
        scale = Decimal.scale_of(schema)
        quantum = decimal.Decimal(f"1E{-scale}")

        def to_decimal(v: Any) -> decimal.Decimal:
            d: decimal.Decimal = (
                v
                if type(v) is decimal.Decimal
                else decimal.Decimal(repr(v) if isinstance(v, float) else str(v))
            )
            if not d.is_finite():
                raise DataError(f"column {column.name!r}: {d} has no Connect Decimal form")
            if d.as_tuple().exponent != -scale:
                d = d.quantize(quantum, context=_EXACT)
            return d

        return to_decimal
    if name == Timestamp.LOGICAL_NAME:
        # An instant column (timestamptz; MySQL TIMESTAMP read in a UTC session) is read
        # as UTC; a wall-clock column (timestamp, DATETIME) in db.timezone.
        moment_zone = dt.UTC if column.instant else zone
        if moment_zone is dt.UTC:
            # The driver gives datetimes; naive ones already mean UTC to the SDK.
            return None
        return timestamp_converter(moment_zone)
    if name == Date.LOGICAL_NAME:
        return _date_converter(column)
    if name == Time.LOGICAL_NAME:
        return _time_converter(zone)
    if st == "boolean":
        return bool
    if st == "int8" and t is SqlType.BIT:
        return lambda v: wrap_int8(int.from_bytes(v, "big")) if isinstance(v, bytes) else v
    if st in ("int8", "int16", "int32", "int64"):
        if t in (SqlType.NUMERIC, SqlType.DECIMAL):
            return _numeric_to_int(column)
        if st == "int64" and t is SqlType.BIGINT and not column.signed:
            return _check_long(column)
        return _as_int(column)
    if st in ("float32", "float64"):
        return float
    if st == "string":
        return _as_text
    if st == "bytes":
        return bytes
    return None


def _numeric_to_int(column: Column) -> Converter:
    def convert(v: Any) -> int:
        return int(v)

    return convert


def _check_long(column: Column) -> Converter:
    def convert(v: Any) -> int:
        if v > 0x7FFFFFFFFFFFFFFF:
            raise DataError(
                f"column {column.name!r}: BIGINT UNSIGNED value {v} does not fit a Connect "
                "INT64; cast the column to DECIMAL(20) in a query"
            )
        return int(v)

    return convert


def _as_int(column: Column) -> Converter:
    def convert(v: Any) -> int:
        if type(v) is int:
            return v
        if isinstance(v, bool):
            return int(v)
        try:
            return int(v)
        except (TypeError, ValueError) as exc:
            raise DataError(f"column {column.name!r}: cannot read {v!r} as an integer") from exc

    return convert


def _as_text(v: Any) -> str:
    if type(v) is str:
        return v
    if isinstance(v, bytes | bytearray):
        return bytes(v).decode("utf-8", "replace")
    return str(v)


def timestamp_converter(zone: dt.tzinfo) -> Converter:
    """A timestamp (a datetime, ISO text or a date) as a datetime; naive ones in ``zone``."""

    def convert(v: Any) -> dt.datetime:
        if type(v) is dt.datetime:
            moment: dt.datetime = v
        elif type(v) is str:
            moment = dt.datetime.fromisoformat(v)
        elif type(v) is dt.date:
            moment = dt.datetime(v.year, v.month, v.day)
        else:
            raise DataError(f"cannot read {v!r} as a timestamp")
        if moment.tzinfo is None and zone is not dt.UTC:
            return moment.replace(tzinfo=zone)
        return moment

    return convert


def _date_converter(column: Column) -> Converter:
    def convert(v: Any) -> dt.date:
        if type(v) is dt.date:
            return v
        if type(v) is int and column.type_name == "YEAR":
            return dt.date(v, 1, 1)
        if isinstance(v, dt.datetime):
            return v.date()
        if isinstance(v, str):
            return dt.date.fromisoformat(v[:10])
        raise DataError(f"column {column.name!r}: cannot read {v!r} as a date")

    return convert


def _time_converter(zone: dt.tzinfo) -> Converter:
    utc = zone is dt.UTC

    def convert(v: Any) -> dt.time:
        if isinstance(v, dt.timedelta):
            # MySQL TIME is a duration; only a time of day fits Connect's Time.
            seconds = v.total_seconds()
            if not 0 <= seconds < MILLIS_PER_DAY / 1000:
                raise DataError(f"TIME value {v} is not a time of day")
            v = (dt.datetime.min + v).time()
        elif isinstance(v, str):
            v = dt.time.fromisoformat(v)
        if v.tzinfo is not None:
            offset = v.utcoffset() or dt.timedelta()
            moment = dt.datetime.combine(EPOCH_DATE, v.replace(tzinfo=None)) - offset
            return moment.time()
        if utc:
            return v  # type: ignore[no-any-return]
        moment = dt.datetime.combine(EPOCH_DATE, v, tzinfo=zone).astimezone(dt.UTC)
        return moment.time().replace(tzinfo=None)

    return convert


def map_columns(
    name: str | None,
    columns: Sequence[Column],
    numeric_mapping: str,
    dialect: ColumnTyping,
    *,
    granularity: Granularity = CONNECT_LOGICAL,
) -> RowMapping:
    """The struct schema (named ``name``) of a result and the per-row conversion plan, each
    column typed as ``dialect`` types it.

    TIMESTAMP columns take ``granularity``'s form, as Confluent's dialect gives every column
    of JDBC type TIMESTAMP (not only the configured timestamp columns).
    """
    builder = SchemaBuilder.struct()
    if name:
        builder.name(name)
    indexes: list[int] = []
    converters: list[tuple[int, Converter]] = []
    kept: list[Column] = []
    for i, column in enumerate(columns):
        schema = dialect.field_schema(column, numeric_mapping)
        if schema is None:
            log.warning(
                "JDBC type %s (%s) of column %r is not supported; the column is left out",
                column.sql_type.value,
                column.type_name,
                column.name,
            )
            continue
        if column.nullable:
            schema = _optional(schema)
        convert = dialect.value_converter(column, schema)
        if granularity.schema is not None and schema.name == Timestamp.LOGICAL_NAME:
            convert = _with_granularity(convert, granularity, dialect.zone)
            schema = _optional(granularity.schema) if column.nullable else granularity.schema
        if convert is not None:
            converters.append((len(indexes), convert))
        indexes.append(i)
        kept.append(column)
        builder.field(column.name, schema)
    return RowMapping(builder.build(), tuple(indexes), tuple(converters), tuple(kept))


def _with_granularity(
    convert: Converter | None, granularity: Granularity, zone: dt.tzinfo
) -> Converter:
    to_record = granularity.from_timestamp
    if convert is None:
        return lambda v: to_record(v, zone)
    return lambda v: to_record(convert(v), zone)
