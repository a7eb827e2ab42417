"""Column types to Connect schemas and values, as Confluent's dialects map them.

Expected schemas follow GenericDatabaseDialect.addFieldToSchema (and the PostgreSQL
dialect's BIT/OTHER overrides): INT UNSIGNED widens to INT64, NUMERIC follows
``numeric.mapping``, DECIMAL/NUMERIC is a Decimal with ``connect.decimal.precision``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

import pytest
from kconnect_converter_avro import AvroConverter
from kconnect_converter_json import JsonConverter
from kconnect_sdk import Decimal, Schema

pytestmark = pytest.mark.integration

BIG = decimal.Decimal("12345678.123456789012345678901234567890")  # 38 digits, scale 30
# Not -BIG: unary minus rounds to the context's 28 digits.
NEG_BIG = decimal.Decimal("-12345678.123456789012345678901234567890")


def _utc(value: dt.datetime) -> dt.datetime:
    """A Connect Timestamp value as an aware datetime (naive means UTC in the SDK)."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value


def _schema_of(record: Any, name: str) -> Schema:
    field = record.value_schema.field(name)
    assert field is not None, name
    schema: Schema = field.schema
    return schema


def _first(run_task: Any, config_for: Any, db: Any, table: str, **extra: str) -> Any:
    runner = run_task(
        config_for(db, **{"mode": "bulk", "table.whitelist": table, "topic.prefix": "x-", **extra})
    )
    records = runner.drain(1)
    assert records, "no record came"
    return records[0]


def test_postgres_types(jdbc_postgres: Any, run_task: Any, config_for: Any) -> None:
    db = jdbc_postgres
    table = db.table("pgtypes")
    db.execute(
        f"""CREATE TABLE {table} (
            i2 SMALLINT NOT NULL, i4 INTEGER, i8 BIGINT, f4 REAL, f8 DOUBLE PRECISION,
            big NUMERIC(38, 30), money NUMERIC(10, 2), whole NUMERIC(5, 0), free NUMERIC,
            flag BOOLEAN, one BIT(1), four BIT(4), txt TEXT, raw BYTEA, d DATE, t TIME,
            ts TIMESTAMP, tstz TIMESTAMPTZ, u UUID, j JSONB, arr INTEGER[])"""
    )
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    db.execute(
        f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, B'1', B'0101', ?, ?, ?, ?, "
        "?, ?, ?, ?, ARRAY[1])",
        (
            -7,
            42,
            2**40,
            1.5,
            2.25,
            BIG,
            decimal.Decimal("12.30"),
            12345,
            decimal.Decimal("1.5"),
            True,
            "héllo",
            b"\x00\xff",
            dt.date(2024, 2, 29),
            dt.time(13, 14, 15, 500000),
            dt.datetime(2024, 1, 1, 10, 0, 0, 123456),
            dt.datetime(2024, 1, 1, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            u,
            '{"a": 1}',
        ),
    )
    record = _first(run_task, config_for, db, table)
    s = record.value_schema
    assert [f.name for f in s.fields][-1] == "j"  # the array column is left out
    assert _schema_of(record, "i2") == Schema.INT16
    assert _schema_of(record, "i4") == Schema.OPTIONAL_INT32
    assert _schema_of(record, "i8") == Schema.OPTIONAL_INT64
    assert _schema_of(record, "f4") == Schema.OPTIONAL_FLOAT32
    assert _schema_of(record, "f8") == Schema.OPTIONAL_FLOAT64
    big = _schema_of(record, "big")
    assert big.name == Decimal.LOGICAL_NAME and big.optional
    assert dict(big.parameters) == {"scale": "30", "connect.decimal.precision": "38"}
    assert dict(_schema_of(record, "free").parameters) == {
        "scale": "127",
        "connect.decimal.precision": "0",
    }
    assert _schema_of(record, "flag") == Schema.OPTIONAL_BOOLEAN
    assert _schema_of(record, "one") == Schema.OPTIONAL_BOOLEAN
    assert _schema_of(record, "four") == Schema.OPTIONAL_INT8
    assert _schema_of(record, "u") == Schema.OPTIONAL_STRING
    assert _schema_of(record, "j") == Schema.OPTIONAL_STRING
    v = record.value
    assert v.get("big") == BIG and v.get("big").as_tuple() == BIG.as_tuple()
    assert v.get("money").as_tuple() == decimal.Decimal("12.30").as_tuple()
    assert v.get("free") == decimal.Decimal("1.5")
    assert (v.get("one"), v.get("four")) == (True, 5)
    assert v.get("raw") == b"\x00\xff"
    assert v.get("txt") == "héllo"
    assert v.get("d") == dt.date(2024, 2, 29)
    assert v.get("t") == dt.time(13, 14, 15, 500000)
    assert _utc(v.get("ts")) == dt.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=dt.UTC)
    assert _utc(v.get("tstz")) == dt.datetime(2024, 1, 1, 8, 0, tzinfo=dt.UTC)
    assert v.get("u") == str(u)
    assert v.get("j") == '{"a": 1}'


@pytest.mark.parametrize(
    ("mapping", "money", "whole", "big"),
    [
        ("none", "decimal", "decimal", "decimal"),
        ("precision_only", "decimal", Schema.OPTIONAL_INT32, "decimal"),
        ("best_fit", Schema.OPTIONAL_FLOAT64, Schema.OPTIONAL_INT32, "decimal"),
        (
            "best_fit_eager_double",
            Schema.OPTIONAL_FLOAT64,
            Schema.OPTIONAL_INT32,
            Schema.OPTIONAL_FLOAT64,
        ),
    ],
)
def test_postgres_numeric_mapping(
    jdbc_postgres: Any,
    run_task: Any,
    config_for: Any,
    mapping: str,
    money: Any,
    whole: Any,
    big: Any,
) -> None:
    db = jdbc_postgres
    table = db.table("num")
    db.execute(
        f"CREATE TABLE {table} (money NUMERIC(10, 2), whole NUMERIC(5, 0), big NUMERIC(38, 30))"
    )
    db.execute(f"INSERT INTO {table} VALUES (12.30, 12345, ?)", (BIG,))
    record = _first(run_task, config_for, db, table, **{"numeric.mapping": mapping})
    for name, expected in (("money", money), ("whole", whole), ("big", big)):
        schema = _schema_of(record, name)
        if expected == "decimal":
            assert schema.name == Decimal.LOGICAL_NAME, name
        else:
            assert schema == expected, name
    if whole != "decimal":
        assert record.value.get("whole") == 12345
    if money != "decimal":
        assert record.value.get("money") == 12.3


def test_mysql_types_and_unsigned_widening(
    jdbc_mariadb: Any, run_task: Any, config_for: Any
) -> None:
    db = jdbc_mariadb
    table = db.table("mytypes")
    db.execute(
        f"""CREATE TABLE {table} (
            ti TINYINT NOT NULL, tiu TINYINT UNSIGNED, flag TINYINT(1), si SMALLINT,
            siu SMALLINT UNSIGNED, mi MEDIUMINT, i INT, iu INT UNSIGNED NOT NULL, bi BIGINT,
            f FLOAT, d DOUBLE, dec38 DECIMAL(38, 30), dec2 DECIMAL(10, 2), vc VARCHAR(10),
            tx TEXT, bl BLOB, vb VARBINARY(4), dt DATETIME(6), ts TIMESTAMP(3) NULL, da DATE,
            tm TIME, yr YEAR, bits BIT(3), js JSON, en ENUM('x', 'y'))"""
    )
    db.execute(
        f"INSERT INTO {table} VALUES (-5, 250, 1, -300, 65000, -8000000, -2000000000, "
        "4000000000, -9000000000, 1.5, 2.25, ?, 12.30, 'v', 't', X'00FF', X'01', "
        "'2024-01-01 10:00:00.123456', '2024-01-01 10:00:00.5', '2024-02-29', '13:14:15', "
        "2024, b'101', '{\"a\": 1}', 'y')",
        (BIG,),
    )
    record = _first(run_task, config_for, db, table, **{"numeric.mapping": "best_fit"})
    expected = {
        "ti": Schema.INT8,
        "tiu": Schema.OPTIONAL_INT16,
        "flag": Schema.OPTIONAL_INT8,
        "si": Schema.OPTIONAL_INT16,
        "siu": Schema.OPTIONAL_INT32,
        "mi": Schema.OPTIONAL_INT32,
        "i": Schema.OPTIONAL_INT32,
        "iu": Schema.INT64,
        "bi": Schema.OPTIONAL_INT64,
        "f": Schema.OPTIONAL_FLOAT32,
        "d": Schema.OPTIONAL_FLOAT64,
        "vc": Schema.OPTIONAL_STRING,
        "tx": Schema.OPTIONAL_STRING,
        "bl": Schema.OPTIONAL_BYTES,
        "vb": Schema.OPTIONAL_BYTES,
        "bits": Schema.OPTIONAL_INT8,
        "js": Schema.OPTIONAL_STRING,
        "en": Schema.OPTIONAL_STRING,
    }
    for name, schema in expected.items():
        assert _schema_of(record, name) == schema, name
    # MySQL's DECIMAL is JDBC DECIMAL, which numeric.mapping leaves alone.
    dec = _schema_of(record, "dec38")
    assert dict(dec.parameters) == {"scale": "30", "connect.decimal.precision": "38"}
    v = record.value
    assert (v.get("tiu"), v.get("flag"), v.get("siu"), v.get("iu")) == (250, 1, 65000, 4000000000)
    assert v.get("dec38").as_tuple() == BIG.as_tuple()
    assert v.get("dec2").as_tuple() == decimal.Decimal("12.30").as_tuple()
    assert v.get("bl") == b"\x00\xff"
    assert _utc(v.get("dt")) == dt.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=dt.UTC)
    assert _utc(v.get("ts")) == dt.datetime(2024, 1, 1, 10, 0, 0, 500000, tzinfo=dt.UTC)
    assert v.get("da") == dt.date(2024, 2, 29)
    assert v.get("tm") == dt.time(13, 14, 15)
    assert v.get("yr") == dt.date(2024, 1, 1)
    assert v.get("bits") == 5
    assert v.get("en") == "y"


def test_sqlite_types(jdbc_sqlite: Any, run_task: Any, config_for: Any) -> None:
    db = jdbc_sqlite
    table = db.table("sqtypes")
    db.execute(
        f"""CREATE TABLE {table} (id INTEGER PRIMARY KEY, n INT NOT NULL, b BIGINT, r REAL,
        flag BOOLEAN, dec DECIMAL(10, 2), txt TEXT, bl BLOB, d DATE, ts DATETIME)"""
    )
    db.execute(
        f"INSERT INTO {table} VALUES (1, 2, 3, 1.5, 1, '12.3', 'x', X'00FF', '2024-02-29', "
        "'2024-01-01 10:00:00')"
    )
    record = _first(run_task, config_for, db, table)
    assert _schema_of(record, "id") == Schema.INT32
    assert _schema_of(record, "n") == Schema.INT32
    assert _schema_of(record, "b") == Schema.OPTIONAL_INT64
    assert _schema_of(record, "r") == Schema.OPTIONAL_FLOAT32
    assert _schema_of(record, "flag") == Schema.OPTIONAL_BOOLEAN
    v = record.value
    assert v.get("flag") is True
    assert v.get("dec").as_tuple() == decimal.Decimal("12.30").as_tuple()
    assert v.get("bl") == b"\x00\xff"
    assert v.get("d") == dt.date(2024, 2, 29)
    assert _utc(v.get("ts")) == dt.datetime(2024, 1, 1, 10, tzinfo=dt.UTC)


def test_db_timezone_reads_wall_clock_timestamps_in_that_zone(
    jdbc_postgres: Any, run_task: Any, config_for: Any
) -> None:
    db = jdbc_postgres
    table = db.table("tz")
    db.execute(f"CREATE TABLE {table} ({db.pk}, modified TIMESTAMP NOT NULL)")
    db.execute(f"INSERT INTO {table} (modified) VALUES ('2024-07-01 12:00:00')")
    runner = run_task(
        config_for(
            db,
            **{
                "mode": "timestamp",
                "timestamp.column.name": "modified",
                "table.whitelist": table,
                "topic.prefix": "tz-",
                "db.timezone": "Europe/Paris",
            },
        )
    )
    (record,) = runner.drain(1)
    # 12:00 in Paris in summer is 10:00 UTC.
    assert _utc(record.value.get("modified")) == dt.datetime(2024, 7, 1, 10, tzinfo=dt.UTC)
    assert record.source_offset == {"timestamp": 1719828000000, "timestamp_nanos": 0}


@pytest.mark.parametrize("converter", ["json", "avro"])
def test_38_digit_decimals_survive_every_converter(
    jdbc_postgres: Any, run_task: Any, config_for: Any, converter: str
) -> None:
    db = jdbc_postgres
    table = db.table("dec")
    db.execute(f"CREATE TABLE {table} (amount NUMERIC(38, 30) NOT NULL)")
    db.execute(f"INSERT INTO {table} VALUES (?)", (NEG_BIG,))
    record = _first(run_task, config_for, db, table)
    if converter == "json":
        conv: Any = JsonConverter()
        conv.configure({"schemas.enable": "true"}, False)
    else:
        conv = AvroConverter()
        conv.configure({"schema.registry.url": f"mock://jdbc-{uuid.uuid4().hex[:6]}"}, False)
    data = conv.from_connect_data("dec", record.value_schema, record.value)
    back = conv.to_connect_data("dec", data)
    assert back.value.get("amount").as_tuple() == NEG_BIG.as_tuple()


def test_mysql_timestamp_is_an_instant_and_datetime_wall_clock(
    jdbc_mariadb: Any, run_task: Any, config_for: Any
) -> None:
    db = jdbc_mariadb
    table = db.table("mytz")
    db.execute(
        f"CREATE TABLE {table} (id INT NOT NULL PRIMARY KEY, wall DATETIME, inst TIMESTAMP NULL)"
    )
    conn = db.connect_fn()
    with conn.cursor() as cur:
        cur.execute("SET time_zone = '+00:00'")
        cur.execute(f"INSERT INTO {table} VALUES (1, '2024-07-01 12:00:00', '2024-07-01 12:00:00')")
    conn.commit()
    conn.close()
    record = _first(run_task, config_for, db, table, **{"db.timezone": "Europe/Paris"})
    v = record.value
    assert _utc(v.get("wall")) == dt.datetime(2024, 7, 1, 10, tzinfo=dt.UTC)
    assert _utc(v.get("inst")) == dt.datetime(2024, 7, 1, 12, tzinfo=dt.UTC)
