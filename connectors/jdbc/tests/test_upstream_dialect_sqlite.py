"""Confluent's SqliteDatabaseDialectTest, ported: describing a table and the database's
current time. The rest of the class maps record schemas to SQL types for the sink.

``useCurrentTimestampValue`` runs on the three databases: each dialect's current time is what
the timestamp modes' upper bound comes from.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from kconnect_connector_jdbc._column import SqlType
from kconnect_connector_jdbc._dialect import TableId, dialect_for, to_sqlalchemy_url

UPSTREAM = [
    "shouldMapPrimitiveSchemaTypeToSqlTypes",
    "shouldMapDecimalSchemaTypeToDecimalSqlType",
    "shouldMapDataTypes",
    "shouldMapDateSchemaTypeToDateSqlType",
    "shouldMapTimeSchemaTypeToTimeSqlType",
    "shouldMapTimestampSchemaTypeToTimestampSqlType",
    "shouldBuildCreateQueryStatement",
    "shouldBuildAlterTableStatement",
    "shouldBuildUpsertStatement",
    "createOneColNoPk",
    "createOneColOnePk",
    "createThreeColTwoPk",
    "alterAddOneCol",
    "alterAddTwoCol",
    "upsert",
    "tableOnEmptyDb",
    "testDescribeTable",
    "useCurrentTimestampValue",
]
_SINK = "sink: {} (this package has no sink connector)"
NOT_APPLICABLE: dict[str, str] = {
    "shouldMapPrimitiveSchemaTypeToSqlTypes": _SINK.format("SQL type of a record field"),
    "shouldMapDecimalSchemaTypeToDecimalSqlType": _SINK.format("SQL type of a record field"),
    "shouldMapDataTypes": _SINK.format("SQL type of a record field"),
    "shouldMapDateSchemaTypeToDateSqlType": _SINK.format("SQL type of a record field"),
    "shouldMapTimeSchemaTypeToTimeSqlType": _SINK.format("SQL type of a record field"),
    "shouldMapTimestampSchemaTypeToTimestampSqlType": _SINK.format("SQL type of a record field"),
    "shouldBuildCreateQueryStatement": _SINK.format("CREATE TABLE"),
    "shouldBuildAlterTableStatement": _SINK.format("ALTER TABLE"),
    "shouldBuildUpsertStatement": _SINK.format("upsert"),
    "createOneColNoPk": _SINK.format("CREATE TABLE"),
    "createOneColOnePk": _SINK.format("CREATE TABLE"),
    "createThreeColTwoPk": _SINK.format("CREATE TABLE"),
    "alterAddOneCol": _SINK.format("ALTER TABLE"),
    "alterAddTwoCol": _SINK.format("ALTER TABLE"),
    "upsert": _SINK.format("upsert"),
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


@pytest.fixture(params=["sqlite"])
def db(request: pytest.FixtureRequest) -> Any:
    """SQLite, unless a test asks for the others."""
    return request.getfixturevalue(f"jdbc_{request.param}")


def test_table_on_empty_db(session: Any) -> None:
    # Confluent only checks that describing a missing table does not throw.
    table = session.table_id("x")
    assert session.dialect.table_columns(session.conn, table) == []
    assert session.dialect.primary_key(session.conn, table) == []


def test_describe_table(session: Any) -> None:
    session.ns.execute(
        "create table x (id int primary key, name text not null, optional_age int null)"
    )
    table = session.table_id("x")
    infos = {c.name: c for c in session.dialect.table_columns(session.conn, table)}
    columns = session.result_columns(table)
    assert session.dialect.primary_key(session.conn, table) == ["id"]
    # sqlite-jdbc reports the declared type: INT is INTEGER, TEXT is VARCHAR.
    assert {n: (c.sql_type, c.nullable) for n, c in columns.items()} == {
        "id": (SqlType.INTEGER, False),
        "name": (SqlType.VARCHAR, False),
        "optional_age": (SqlType.INTEGER, True),
    }
    assert {n: i.nullable for n, i in infos.items()} == {
        "id": False,
        "name": False,
        "optional_age": True,
    }


@pytest.mark.parametrize("db", ["sqlite", "postgres", "mariadb"], indirect=True)
def test_use_current_timestamp_value(session: Any) -> None:
    now = session.dialect.current_time(session.conn)
    assert now.tzinfo is not None
    assert abs((now - dt.datetime.now(dt.UTC)).total_seconds()) < 5
    # Sub-second digits, as Confluent's pattern requires a fraction.
    later = session.dialect.current_time(session.conn)
    assert later >= now
    assert any(t.microsecond for t in (now, later, session.dialect.current_time(session.conn)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("orders", TableId(None, None, "orders")),
        ('"orders"', TableId(None, None, "orders")),
        ('"my.orders"', TableId(None, None, "my.orders")),
        ('"or""ders"', TableId(None, None, 'or"ders')),
    ],
)
def test_table_identifiers_as_confluent_task_configs_write_them(
    text: str, expected: TableId
) -> None:
    url = to_sqlalchemy_url("jdbc:sqlite:/tmp/none.db", None, None)
    dialect = dialect_for(url, "", quote=True, zone=dt.UTC)
    assert dialect.parse_table_identifier(text) == expected
    assert dialect.parse_table_identifier(dialect.table_sql(expected)) == expected
