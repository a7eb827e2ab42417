"""Confluent's BaseDialectTest (the methods every dialect test inherits), ported: a column of
each JDBC type has a field schema and a converter for the driver's value.

Confluent's test checks that ``columnConverterFor`` gives a converter; here each type's
column is mapped and a value of the kind a driver returns is converted, so the check is
on what lands in the record.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_connector_jdbc._column import Column, SqlType
from kconnect_connector_jdbc._dialect import Dialect, to_sqlalchemy_url
from kconnect_connector_jdbc._mapping import map_columns
from kconnect_sdk import Date, Decimal, Schema, Time, Timestamp

UPSTREAM = [
    "testGenericColumnConverters",
    "bindFieldPrimitiveValuesExceptByteAndStringAndBytes",
    "bindFieldByteValue",
    "bindFieldStringValue",
    "bindFieldBytesValue",
    "bindFieldNull",
    "bindFieldStructUnsupported",
    "bindFieldArrayUnsupported",
    "bindFieldMapUnsupported",
]
_SINK = "sink: binds record values to INSERT parameters; this package has no sink connector"
NOT_APPLICABLE: dict[str, str] = {
    "bindFieldPrimitiveValuesExceptByteAndStringAndBytes": _SINK,
    "bindFieldByteValue": _SINK,
    "bindFieldStringValue": _SINK,
    "bindFieldBytesValue": _SINK,
    "bindFieldNull": _SINK,
    "bindFieldStructUnsupported": _SINK,
    "bindFieldArrayUnsupported": _SINK,
    "bindFieldMapUnsupported": _SINK,
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


# (JDBC type, type name, precision, driver value, expected schema, expected value). Confluent's
# CHAR/LONGVARCHAR/NCHAR/CLOB/… are VARCHAR here and BLOB/VARBINARY/… BINARY: one SqlType
# each, as the drivers report them alike.
def _generic() -> Dialect:
    """Confluent's GenericDatabaseDialect: the type mapping no database overrides."""
    return Dialect(to_sqlalchemy_url("jdbc:sqlite::memory:", None, None), quote=True, zone=dt.UTC)


CASES = [
    (SqlType.BOOLEAN, "BOOLEAN", 0, 1, Schema.BOOLEAN, True),
    (SqlType.BIT, "BIT", 1, b"\x01", Schema.INT8, 1),
    (SqlType.TINYINT, "TINYINT", 0, 42, Schema.INT8, 42),
    (SqlType.SMALLINT, "SMALLINT", 0, 42, Schema.INT16, 42),
    (SqlType.INTEGER, "INTEGER", 0, 42, Schema.INT32, 42),
    (SqlType.BIGINT, "BIGINT", 0, 42, Schema.INT64, 42),
    (SqlType.REAL, "REAL", 0, 42.5, Schema.FLOAT32, 42.5),
    (SqlType.FLOAT, "FLOAT", 0, 42.5, Schema.FLOAT64, 42.5),
    (SqlType.DOUBLE, "DOUBLE", 0, 42.5, Schema.FLOAT64, 42.5),
    (SqlType.DECIMAL, "DECIMAL", 0, decimal.Decimal(42), Decimal.schema(0), decimal.Decimal(42)),
    (SqlType.VARCHAR, "VARCHAR", 0, "text", Schema.STRING, "text"),
    (SqlType.BINARY, "BLOB", 0, b"\x2a", Schema.BYTES, b"\x2a"),
    (SqlType.DATE, "DATE", 0, dt.date(2016, 9, 23), Date.SCHEMA, dt.date(2016, 9, 23)),
    (SqlType.TIME, "TIME", 0, dt.time(20, 10, 2, 123000), Time.SCHEMA, dt.time(20, 10, 2, 123000)),
    (
        SqlType.TIMESTAMP,
        "TIMESTAMP",
        0,
        dt.datetime(2016, 9, 23, 20, 10, 2, 123000),
        Timestamp.SCHEMA,
        dt.datetime(2016, 9, 23, 20, 10, 2, 123000),
    ),
]


@pytest.mark.parametrize(("sql_type", "type_name", "precision", "raw", "schema", "value"), CASES)
def test_generic_column_converters(
    sql_type: SqlType, type_name: str, precision: int, raw: Any, schema: Schema, value: Any
) -> None:
    column = Column("b", sql_type, type_name, precision=precision, nullable=False)
    mapping = map_columns(None, [column], "none", _generic())
    field = mapping.schema.field("b")
    assert field is not None, f"{sql_type} column left out"
    got_schema = field.schema
    assert (got_schema.type, got_schema.name, got_schema.optional) == (
        schema.type,
        schema.name,
        False,
    )
    converted = raw
    for _, convert in mapping.converters:
        converted = convert(converted)
    assert converted == value
    assert type(converted) is type(value)


def test_numeric_without_precision_maps_to_int8_under_precision_only() -> None:
    # Confluent's testGenericColumnConverters: NUMERIC, "assume 0 precision and 0 scale".
    column = Column("b", SqlType.NUMERIC, "NUMERIC", nullable=False)
    mapping = map_columns(None, [column], "precision_only", _generic())
    field = mapping.schema.field("b")
    assert field is not None and field.schema.type == Schema.INT8.type
    converted: Any = decimal.Decimal(42)
    for _, convert in mapping.converters:
        converted = convert(converted)
    assert converted == 42 and type(converted) is int
