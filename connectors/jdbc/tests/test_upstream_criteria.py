"""Confluent's TimestampIncrementingCriteriaTest, ported: offsets read from a row, and the
WHERE clauses of the incremental modes.

Confluent's ``extractValues(schema, record, previous, granularity)`` is
``Criteria(..., granularity=...).extract_values(schema, values)``; its
TimestampIncrementingOffset reads a missing timestamp as ``new Timestamp(0)`` and a missing
incrementing value as -1, which ``offset()`` below does too. The WHERE clauses are checked
on Confluent's generic dialect (``"`` quotes, ``?`` parameters).

At the end, ``timestamp.granularity`` end to end on the three databases: what records carry,
and that their offsets resume where they should.
"""

from __future__ import annotations

import datetime as dt
import decimal
import zoneinfo
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceConnector
from kconnect_connector_jdbc._dialect import Dialect, TableId
from kconnect_connector_jdbc._granularity import Granularity, granularity
from kconnect_connector_jdbc._querier import Criteria
from kconnect_sdk import ConnectError, DataError, Decimal, Schema, SchemaBuilder, Struct, Timestamp
from sqlalchemy.engine import make_url

UPSTREAM = [
    "extractIntOffset",
    "extractLongOffset",
    "extractDecimalOffset",
    "extractTooLargeDecimalOffset",
    "extractFractionalDecimalOffset",
    "extractWithIncTsColumn",
    "extractWithIncColumnNotExisting",
    "extractWithTsColumn",
    "extractWithTsColumnConnectLogical",
    "extractWithTsColumnMicrosLong",
    "extractWithTsColumnNanosLong",
    "extractWithTsColumnMicrosString",
    "extractWithTsColumnNanosString",
    "extractWithTsColumnIsoDateMicrosTimeString",
    "extractWithTsColumnIsoDateTimeString",
    "extractWithTsColumnMicrosLongNull",
    "extractWithTsColumnNanosLongNull",
    "extractWithTsColumnMicrosStringNull",
    "extractWithTsColumnNanosStringNull",
    "extractWithTsColumnIsoDateMicrosTimeStringNull",
    "extractWithTsColumnIsoDateTimeStringNull",
    "extractWithTsColumnIsoDateTimeStringMicrosConfig",
    "extractWithTsColumnIsoDateTimeStringNanosConfig",
    "extractWithFallbackTsColumn",
    "extractWithCaseInsensitiveTsColumn",
    "extractWithCaseInsensitiveFallbackTsColumn",
    "extractWithTsColumnNotExisting",
    "extractWithConflictingCaseInsensitiveTsColumns",
    "extractWithCaseSensitiveTsColumnGivenPrecedence",
    "createIncrementingWhereClause",
    "createTimestampWhereClause",
    "createTimestampIncrementingWhereClause",
]
NOT_APPLICABLE: dict[str, str] = {}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


class GenericDialect(Dialect):
    """Confluent's GenericDatabaseDialect's SQL text: ``"`` quotes, ``?`` parameters."""

    paramstyle_percent = False


TABLE = TableId(None, None, "myTable")
INC = "id"
TS_COLUMNS = ["ts1", "ts2"]
EPOCH = dt.datetime(1970, 1, 1)
# Confluent's java.sql.Timestamp(0), (4761) and (176400): naive datetimes are UTC.
TS0 = EPOCH
TS1 = EPOCH + dt.timedelta(milliseconds=4761)
TS2 = EPOCH + dt.timedelta(milliseconds=176400)

CONNECT_LOGICAL = granularity("connect_logical")
MICROS_LONG = granularity("micros_long")
MICROS_STRING = granularity("micros_string")
MICROS_ISO = granularity("micros_iso_datetime_string")
NANOS_LONG = granularity("nanos_long")
NANOS_STRING = granularity("nanos_string")
NANOS_ISO = granularity("nanos_iso_datetime_string")


def criteria(
    incrementing: str | None,
    timestamps: list[str],
    gran: Granularity = CONNECT_LOGICAL,
    *,
    quote: bool = True,
) -> Criteria:
    dialect = GenericDialect(make_url("sqlite://"), quote=quote, zone=dt.UTC)
    return Criteria(dialect, TABLE, incrementing, timestamps, granularity=gran, zone=dt.UTC)


def values(record: Struct) -> list[Any]:
    return [record.get(f.name) for f in record.schema.fields]


def instant(value: dt.datetime) -> tuple[int, int]:
    """What java.sql.Timestamp's equals compares: epoch millis and nanos of the second."""
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    micros = (aware - EPOCH.replace(tzinfo=dt.UTC)) // dt.timedelta(microseconds=1)
    return micros // 1000, micros % 1_000_000 * 1000


def offset(schema: Schema, record: Struct, gran: Granularity) -> tuple[tuple[int, int], int]:
    """Confluent's assertExtractedOffset: the criteria that fits the schema's fields."""
    names = {f.name for f in schema.fields}
    inc = INC if INC in names else None
    ts = TS_COLUMNS if "ts1" in names else []
    timestamp, incrementing = criteria(inc, ts, gran).extract_values(schema, values(record))
    return instant(timestamp or TS0), -1 if incrementing is None else incrementing


def struct(schema: Schema, **fields: Any) -> Struct:
    record = Struct(schema)
    for name, value in fields.items():
        record.put(name, value)
    return record


def test_extract_int_offset() -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT32).build()
    assert offset(schema, struct(schema, id=42), CONNECT_LOGICAL) == (instant(TS0), 42)


def test_extract_long_offset() -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT64).build()
    assert offset(schema, struct(schema, id=42), CONNECT_LOGICAL) == (instant(TS0), 42)


def test_extract_decimal_offset() -> None:
    schema = SchemaBuilder.struct().field("id", Decimal.schema(0)).build()
    record = struct(schema, id=decimal.Decimal(42))
    assert offset(schema, record, CONNECT_LOGICAL) == (instant(TS0), 42)


def test_extract_too_large_decimal_offset() -> None:
    schema = SchemaBuilder.struct().field("id", Decimal.schema(0)).build()
    record = struct(schema, id=decimal.Decimal(2**63 - 1) + 1)
    with pytest.raises(ConnectError, match=r"exceeded Long\.MAX_VALUE"):
        offset(schema, record, CONNECT_LOGICAL)


def test_extract_fractional_decimal_offset() -> None:
    schema = SchemaBuilder.struct().field("id", Decimal.schema(2)).build()
    record = struct(schema, id=decimal.Decimal("42.42"))
    with pytest.raises(ConnectError, match="Scale of Decimal value"):
        offset(schema, record, CONNECT_LOGICAL)


def _inc_ts_schema(inc_name: str = "id") -> Schema:
    return (
        SchemaBuilder.struct()
        .field(inc_name, Schema.INT32)
        .field("ts1", Timestamp.SCHEMA)
        .field("ts2", Timestamp.SCHEMA)
        .build()
    )


def test_extract_with_inc_ts_column() -> None:
    schema = _inc_ts_schema()
    # Confluent's struct leaves the required ts2 unset; the row's values say the same.
    timestamp, incrementing = criteria(INC, TS_COLUMNS).extract_values(schema, [42, TS1, None])
    assert timestamp is not None and (instant(timestamp), incrementing) == (instant(TS1), 42)


def test_extract_with_inc_column_not_existing() -> None:
    schema = _inc_ts_schema("real-id")
    with pytest.raises(DataError, match="Incrementing column id not found in real-id,ts1,ts2"):
        criteria(INC, TS_COLUMNS).extract_values(schema, [42, None, None])


def _ts_schema(field_schema: Schema) -> Schema:
    return SchemaBuilder.struct().field("ts1", field_schema).field("ts2", field_schema).build()


def test_extract_with_ts_column() -> None:
    schema = _ts_schema(Timestamp.SCHEMA)
    record = struct(schema, ts1=TS1, ts2=TS2)
    assert offset(schema, record, CONNECT_LOGICAL) == (instant(TS1), -1)


def test_extract_with_ts_column_connect_logical() -> None:
    schema = _ts_schema(Timestamp.SCHEMA)
    record = struct(schema, ts1=TS1, ts2=TS2)
    assert offset(schema, record, CONNECT_LOGICAL) == (instant(TS1), -1)


def _micros(value: dt.datetime) -> int:
    return (value - EPOCH) // dt.timedelta(microseconds=1)


def test_extract_with_ts_column_micros_long() -> None:
    schema = _ts_schema(Schema.INT64)
    record = struct(schema, ts1=_micros(TS1), ts2=_micros(TS2))
    assert offset(schema, record, MICROS_LONG) == (instant(TS1), -1)


def test_extract_with_ts_column_nanos_long() -> None:
    schema = _ts_schema(Schema.INT64)
    record = struct(schema, ts1=_micros(TS1) * 1000, ts2=_micros(TS2) * 1000)
    assert offset(schema, record, NANOS_LONG) == (instant(TS1), -1)


def test_extract_with_ts_column_micros_string() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=str(_micros(TS1)), ts2=str(_micros(TS2)))
    assert offset(schema, record, MICROS_STRING) == (instant(TS1), -1)


def test_extract_with_ts_column_nanos_string() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=str(_micros(TS1) * 1000), ts2=str(_micros(TS2) * 1000))
    assert offset(schema, record, NANOS_STRING) == (instant(TS1), -1)


# DateTimeUtils.toIsoDateMicrosTimeString / toIsoDateTimeString in UTC.
ISO_MICROS_TS1 = "1970-01-01T00:00:04.761000"
ISO_MICROS_TS2 = "1970-01-01T00:02:56.400000"
ISO_NANOS_TS1 = "1970-01-01T00:00:04.761000000"
ISO_NANOS_TS2 = "1970-01-01T00:02:56.400000000"


def test_extract_with_ts_column_iso_date_micros_time_string() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=ISO_MICROS_TS1, ts2=ISO_MICROS_TS2)
    assert offset(schema, record, MICROS_ISO) == (instant(TS1), -1)


def test_extract_with_ts_column_iso_date_time_string() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=ISO_NANOS_TS1, ts2=ISO_NANOS_TS2)
    assert offset(schema, record, NANOS_ISO) == (instant(TS1), -1)


def _null_offset(field_schema: Schema, gran: Granularity) -> tuple[tuple[int, int], int]:
    schema = _ts_schema(field_schema)
    return offset(schema, struct(schema, ts1=None, ts2=None), gran)


def test_extract_with_ts_column_micros_long_null() -> None:
    assert _null_offset(Schema.OPTIONAL_INT64, MICROS_LONG) == (instant(TS0), -1)


def test_extract_with_ts_column_nanos_long_null() -> None:
    assert _null_offset(Schema.OPTIONAL_INT64, NANOS_LONG) == (instant(TS0), -1)


def test_extract_with_ts_column_micros_string_null() -> None:
    assert _null_offset(Schema.OPTIONAL_STRING, MICROS_STRING) == (instant(TS0), -1)


def test_extract_with_ts_column_nanos_string_null() -> None:
    assert _null_offset(Schema.OPTIONAL_STRING, NANOS_STRING) == (instant(TS0), -1)


def test_extract_with_ts_column_iso_date_micros_time_string_null() -> None:
    assert _null_offset(Schema.OPTIONAL_STRING, MICROS_ISO) == (instant(TS0), -1)


def test_extract_with_ts_column_iso_date_time_string_null() -> None:
    assert _null_offset(Schema.OPTIONAL_STRING, NANOS_ISO) == (instant(TS0), -1)


def test_extract_with_ts_column_iso_date_time_string_micros_config() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=ISO_MICROS_TS1, ts2=ISO_MICROS_TS2)
    with pytest.raises(ConnectError, match="micros-string granularity"):
        offset(schema, record, MICROS_STRING)


def test_extract_with_ts_column_iso_date_time_string_nanos_config() -> None:
    schema = _ts_schema(Schema.STRING)
    record = struct(schema, ts1=ISO_NANOS_TS1, ts2=ISO_NANOS_TS2)
    with pytest.raises(ConnectError, match="nanos-string granularity"):
        offset(schema, record, NANOS_STRING)


def test_extract_with_fallback_ts_column() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("ts1", Timestamp.builder().optional().build())
        .field("ts2", Timestamp.SCHEMA)
        .build()
    )
    record = struct(schema, ts1=None, ts2=TS2)
    assert offset(schema, record, CONNECT_LOGICAL) == (instant(TS2), -1)


def test_extract_with_case_insensitive_ts_column() -> None:
    schema = SchemaBuilder.struct().field("TS1", Timestamp.SCHEMA).field("ts2", Timestamp.SCHEMA)
    built = schema.build()
    record = struct(built, TS1=TS1, ts2=TS2)
    timestamp, _ = criteria(None, TS_COLUMNS).extract_values(built, values(record))
    assert timestamp is not None and instant(timestamp) == instant(TS1)


def test_extract_with_case_insensitive_fallback_ts_column() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("ts1", Timestamp.builder().optional().build())
        .field("TS2", Timestamp.SCHEMA)
        .build()
    )
    record = struct(schema, ts1=None, TS2=TS2)
    assert offset(schema, record, CONNECT_LOGICAL) == (instant(TS2), -1)


def test_extract_with_ts_column_not_existing() -> None:
    schema = SchemaBuilder.struct().field("ts1", Timestamp.SCHEMA).build()
    record = struct(schema, ts1=TS1)
    with pytest.raises(DataError, match="Timestamp column ts2 not found in ts1"):
        offset(schema, record, CONNECT_LOGICAL)


def test_extract_with_conflicting_case_insensitive_ts_columns() -> None:
    schema = SchemaBuilder.struct().field("ts1", Timestamp.SCHEMA).field("TS1", Timestamp.SCHEMA)
    built = schema.build()
    record = struct(built, ts1=TS1, TS1=TS2)
    with pytest.raises(DataError, match=r"tS1.*ts1,TS1.*exact case"):
        criteria(None, ["tS1"]).extract_values(built, values(record))


def test_extract_with_case_sensitive_ts_column_given_precedence() -> None:
    schema = SchemaBuilder.struct().field("ts1", Timestamp.SCHEMA).field("TS1", Timestamp.SCHEMA)
    built = schema.build()
    record = struct(built, ts1=TS1, TS1=TS2)
    timestamp, _ = criteria(None, ["ts1"]).extract_values(built, values(record))
    assert timestamp is not None and instant(timestamp) == instant(TS1)


def test_create_incrementing_where_clause() -> None:
    assert (
        criteria(INC, []).incrementing_where_clause()
        == ' WHERE "myTable"."id" > ? ORDER BY "myTable"."id" ASC'
    )
    assert (
        criteria(INC, [], quote=False).incrementing_where_clause()
        == " WHERE myTable.id > ? ORDER BY myTable.id ASC"
    )


def test_create_timestamp_where_clause() -> None:
    coalesce = 'COALESCE("myTable"."ts1","myTable"."ts2")'
    assert criteria(None, TS_COLUMNS).timestamp_where_clause() == (
        f" WHERE {coalesce} > ? AND {coalesce} < ? ORDER BY {coalesce} ASC"
    )
    coalesce = "COALESCE(myTable.ts1,myTable.ts2)"
    assert criteria(None, TS_COLUMNS, quote=False).timestamp_where_clause() == (
        f" WHERE {coalesce} > ? AND {coalesce} < ? ORDER BY {coalesce} ASC"
    )


def test_create_timestamp_incrementing_where_clause() -> None:
    coalesce, inc = 'COALESCE("myTable"."ts1","myTable"."ts2")', '"myTable"."id"'
    assert criteria(INC, TS_COLUMNS).timestamp_incrementing_where_clause() == (
        f" WHERE {coalesce} < ? AND (({coalesce} = ? AND {inc} > ?) OR {coalesce} > ?)"
        f" ORDER BY {coalesce},{inc} ASC"
    )
    coalesce, inc = "COALESCE(myTable.ts1,myTable.ts2)", "myTable.id"
    assert criteria(INC, TS_COLUMNS, quote=False).timestamp_incrementing_where_clause() == (
        f" WHERE {coalesce} < ? AND (({coalesce} = ? AND {inc} > ?) OR {coalesce} > ?)"
        f" ORDER BY {coalesce},{inc} ASC"
    )


# --------------------------------------------------------------------------------------------
# timestamp.granularity end to end.

# The row's modified value, 2024-01-02 03:04:05.123456 (wall clock), in each form.
MODIFIED = "2024-01-02 03:04:05.123456"
MODIFIED_MICROS = 1704164645123456
FORMS = {
    "micros_long": MODIFIED_MICROS,
    "micros_string": str(MODIFIED_MICROS),
    "micros_iso_datetime_string": "2024-01-02T03:04:05.123456",
    "nanos_long": MODIFIED_MICROS * 1000,
    "nanos_string": str(MODIFIED_MICROS * 1000),
    "nanos_iso_datetime_string": "2024-01-02T03:04:05.123456000",
}


@pytest.mark.parametrize("name", ["nanos_long", "micros_iso_datetime_string"])
def test_granularity_writes_its_form_and_resumes(
    name: str, db: Any, run_task: Any, config_for: Any
) -> None:
    table = db.table("gran")
    db.execute(f"CREATE TABLE {table} ({db.pk}, modified {db.ts} NOT NULL, seen {db.ts} NULL)")
    db.execute(f"INSERT INTO {table} (modified) VALUES (?)", (MODIFIED,))
    props = config_for(
        db,
        **{
            "mode": "timestamp",
            "timestamp.column.name": "modified",
            "timestamp.granularity": name,
            "table.whitelist": table,
            "topic.prefix": "g-",
        },
    )
    runner = run_task(props)
    got = runner.drain(1)
    assert len(got) == 1
    value = got[0].value
    assert value.get("modified") == FORMS[name]
    assert value.get("seen") is None
    field_type = value.schema.field("modified").schema.type.value
    assert field_type == ("int64" if name.endswith("long") else "string")
    assert value.schema.field("seen").schema.optional
    assert got[0].source_offset == {
        "timestamp": MODIFIED_MICROS // 1000,
        "timestamp_nanos": MODIFIED_MICROS % 1_000_000 * 1000,
    }
    runner.commit(got)
    runner.stop()
    db.execute(f"INSERT INTO {table} (modified) VALUES (?)", ("2024-01-02 03:04:05.123457",))
    resumed = run_task(props, runner.store)
    again = resumed.drain(1)
    assert [r.value.get("id") for r in again] == [2]
    assert resumed.drain() == []


def test_granularity_in_db_timezone() -> None:
    gran = granularity("nanos_iso_datetime_string")
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    moment = dt.datetime(2024, 7, 1, 10, 0, tzinfo=dt.UTC)
    text = gran.from_timestamp(moment, paris)
    assert text == "2024-07-01T12:00:00.000000000"
    assert gran.to_timestamp(text, paris) == moment


def test_unknown_granularity_is_a_config_error() -> None:
    props = {
        "connection.url": "jdbc:sqlite:/nonexistent.db",
        "mode": "bulk",
        "topic.prefix": "g-",
        "timestamp.granularity": "millis_long",
    }
    errors = {v.name: v.error_messages for v in JdbcSourceConnector().validate(props)}
    assert any("must be one of connect_logical" in e for e in errors["timestamp.granularity"])
