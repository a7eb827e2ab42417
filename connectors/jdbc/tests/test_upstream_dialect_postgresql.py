"""Confluent's PostgreSqlDatabaseDialectTest, ported: json/jsonb/uuid columns, URL masking,
table ids without the database (catalog) part, and the scale of a NUMERIC without one. The
rest of the class builds the sink's SQL.

Confluent mocks pgjdbc's metadata (which reports the database as TABLE_CAT from 42.7.5 on);
here the tables are real, in a schema of their own, and the ids are what the catalog query
gives. Those ids become source partitions (``schema.table``), so a catalog part would move
every offset.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from typing import Any

import pytest
from kconnect_connector_jdbc._column import SCALE_UNSET, Column, SqlType
from kconnect_connector_jdbc._dialect import (
    TableId,
    dialect_for,
    sanitized_url,
    to_sqlalchemy_url,
)
from kconnect_connector_jdbc._mapping import map_columns
from kconnect_sdk import Decimal, Schema

UPSTREAM = [
    "shouldMapPrimitiveSchemaTypeToSqlTypes",
    "shouldMapDecimalSchemaTypeToDecimalSqlType",
    "testCustomColumnConverters",
    "shouldMapDataTypesForAddingColumnToTable",
    "shouldMapDateSchemaTypeToDateSqlType",
    "shouldMapTimeSchemaTypeToTimeSqlType",
    "shouldMapTimestampSchemaTypeToTimestampSqlType",
    "shouldBuildCreateQueryStatement",
    "shouldBuildAlterTableStatement",
    "shouldBuildInsertStatement",
    "shouldBuildUpsertStatement",
    "shouldComputeValueTypeCast",
    "createOneColNoPk",
    "createOneColOnePk",
    "createThreeColTwoPk",
    "alterAddOneCol",
    "alterAddTwoCol",
    "upsert",
    "shouldSanitizeUrlWithoutCredentialsInProperties",
    "shouldSanitizeUrlWithCredentialsInUrlProperties",
    "bindFieldArrayUnsupported",
    "bindFieldPrimitiveValues",
    "shouldComputeMaxTableNameLength",
    "shouldGracefullyHandleErrorWhenComputingMaxTableNameLength",
    "shouldGracefullyHandleEmptyResultSetWhenComputingMaxTableNameLength",
    "shouldGracefullyHandleInvalidValueWhenComputingMaxTableNameLength",
    "shouldStripCatalogFromDiscoveredTableIds",
    "shouldKeepTwoPartTableIdsOnOlderDrivers",
    "shouldPreserveCatalogFromParsedTableIdentifiers",
    "shouldStripCatalogFromMetadataColumnIds",
    "shouldTruncateTableNames",
    "shouldFallBackOnUnknownDecimalScale",
    "shouldFallBackOnUnfixedDecimalScale",
    "shouldNotFallBackOnKnownDecimalScale",
    "testArrayDefaultsFormatting",
]
_SINK = "sink: {} (this package has no sink connector)"
_TYPE = _SINK.format("SQL type of a record field")
_MAX_LENGTH = (
    "sink: the identifier length limit truncates the names of tables the sink creates; a "
    "source reads its table names from the catalog, where PostgreSQL already cut them to it"
)
NOT_APPLICABLE: dict[str, str] = {
    "shouldMapPrimitiveSchemaTypeToSqlTypes": _TYPE,
    "shouldMapDecimalSchemaTypeToDecimalSqlType": _TYPE,
    "shouldMapDataTypesForAddingColumnToTable": _TYPE,
    "shouldMapDateSchemaTypeToDateSqlType": _TYPE,
    "shouldMapTimeSchemaTypeToTimeSqlType": _TYPE,
    "shouldMapTimestampSchemaTypeToTimestampSqlType": _TYPE,
    "shouldBuildCreateQueryStatement": _SINK.format("CREATE TABLE"),
    "shouldBuildAlterTableStatement": _SINK.format("ALTER TABLE"),
    "shouldBuildInsertStatement": _SINK.format("INSERT"),
    "shouldBuildUpsertStatement": _SINK.format("upsert"),
    "shouldComputeValueTypeCast": _SINK.format("casts of INSERT parameters"),
    "createOneColNoPk": _SINK.format("CREATE TABLE"),
    "createOneColOnePk": _SINK.format("CREATE TABLE"),
    "createThreeColTwoPk": _SINK.format("CREATE TABLE"),
    "alterAddOneCol": _SINK.format("ALTER TABLE"),
    "alterAddTwoCol": _SINK.format("ALTER TABLE"),
    "upsert": _SINK.format("upsert"),
    "bindFieldArrayUnsupported": _SINK.format("INSERT parameters"),
    "bindFieldPrimitiveValues": _SINK.format("INSERT parameters"),
    "shouldComputeMaxTableNameLength": _MAX_LENGTH,
    "shouldGracefullyHandleErrorWhenComputingMaxTableNameLength": _MAX_LENGTH,
    "shouldGracefullyHandleEmptyResultSetWhenComputingMaxTableNameLength": _MAX_LENGTH,
    "shouldGracefullyHandleInvalidValueWhenComputingMaxTableNameLength": _MAX_LENGTH,
    "shouldTruncateTableNames": _MAX_LENGTH,
    "testArrayDefaultsFormatting": _SINK.format("array column defaults"),
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


@pytest.fixture(params=["postgres"])
def db(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"jdbc_{request.param}")


def _postgres() -> Any:
    url = to_sqlalchemy_url("jdbc:postgresql://db:5432/shop", None, None)
    return dialect_for(url, "", quote=True, zone=dt.UTC)


def test_custom_column_converters(session: Any) -> None:
    ident = uuid.UUID("a3bb189e-8bf9-3888-9912-ace4e6543002")
    cursor = session.dialect.open_cursor(
        session.conn,
        "SELECT '{\"a\": [1, 2]}'::json AS j, '{\"a\": [1, 2]}'::jsonb AS jb, %s::uuid AS u",
        (str(ident),),
    )
    try:
        columns = session.dialect.describe(session.conn, cursor, None)
        mapping = map_columns(None, columns, "none", session.dialect)
        row = list(cursor.fetchmany(1)[0])
    finally:
        session.dialect.end_query(session.conn, cursor)
    assert [(f.name, f.schema.type) for f in mapping.schema.fields] == [
        ("j", Schema.STRING.type),
        ("jb", Schema.STRING.type),
        ("u", Schema.STRING.type),
    ]
    for index, convert in mapping.converters:
        row[index] = convert(row[index])
    # json as written, jsonb as PostgreSQL normalises it, uuid in its canonical text.
    assert row == ['{"a": [1, 2]}', '{"a": [1, 2]}', str(ident)]


def test_should_sanitize_url_without_credentials_in_properties() -> None:
    url = "jdbc:postgresql://localhost/test?user=fred&ssl=true"
    assert sanitized_url(url) == url


def test_should_sanitize_url_with_credentials_in_url_properties() -> None:
    assert (
        sanitized_url("jdbc:postgresql://localhost/test?user=fred&password=secret&ssl=true")
        == "jdbc:postgresql://localhost/test?user=fred&password=****&ssl=true"
    )
    # The URL the connector shows: the password never, other secrets (sslpassword) neither.
    url = to_sqlalchemy_url(
        "postgresql+psycopg://fred:secret@localhost/test?sslpassword=secret2", None, None
    )
    shown = dialect_for(url, "", quote=True, zone=dt.UTC).display_url
    assert "secret" not in shown
    assert "fred" in shown


def _two_schemas(session: Any) -> tuple[str, str]:
    ns = session.ns
    app = f"{ns.name}_app"
    ns.execute(
        f"CREATE SCHEMA {app}",
        "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))",
        f"CREATE TABLE {app}.orders (id INT)",
    )
    return ns.name, app


def test_should_strip_catalog_from_discovered_table_ids(session: Any) -> None:
    schema, app = _two_schemas(session)
    try:
        tables = session.tables(["TABLE"], f"{schema}%")
        assert sorted(tables, key=lambda t: t.table) == [
            TableId(None, schema, "customers"),
            TableId(None, app, "orders"),
        ]
        # The source partition of each: schema.table, whatever the database is called.
        assert sorted(t.fqn for t in tables) == [f"{schema}.customers", f"{app}.orders"]
    finally:
        session.ns.execute(f"DROP SCHEMA {app} CASCADE")


def test_should_keep_two_part_table_ids_on_older_drivers(session: Any) -> None:
    # Older pgjdbc gave no catalog at all; the ids were two-part then as now.
    schema, app = _two_schemas(session)
    try:
        assert all(
            t.catalog is None and t.schema in (schema, app)
            for t in session.tables(["TABLE"], f"{schema}%")
        )
    finally:
        session.ns.execute(f"DROP SCHEMA {app} CASCADE")


def test_should_preserve_catalog_from_parsed_table_identifiers() -> None:
    dialect = _postgres()
    assert dialect.parse_table_identifier("mydb.public.customers") == TableId(
        "mydb", "public", "customers"
    )
    assert dialect.parse_table_identifier("public.customers") == TableId(
        None, "public", "customers"
    )
    assert dialect.parse_table_identifier('"public"."Cust.omers"') == TableId(
        None, "public", "Cust.omers"
    )


def test_should_strip_catalog_from_metadata_column_ids(session: Any) -> None:
    schema, app = _two_schemas(session)
    try:
        table = TableId(None, schema, "customers")
        columns = session.dialect.table_columns(session.conn, table)
        assert [c.name for c in columns] == ["id", "name"]
        assert session.dialect.primary_key(session.conn, table) == ["id"]
        # The same names through a parsed (quoted, qualified) id.
        parsed = session.dialect.parse_table_identifier(f'"{schema}"."customers"')
        assert session.dialect.primary_key(session.conn, parsed) == ["id"]
    finally:
        session.ns.execute(f"DROP SCHEMA {app} CASCADE")


def _decimal_scale(precision: int, scale: int) -> int:
    column = Column("c", SqlType.NUMERIC, "numeric", precision=precision, scale=scale)
    field = map_columns(None, [column], "none", _postgres()).schema.field("c")
    assert field is not None and field.schema.name == Decimal.LOGICAL_NAME
    return Decimal.scale_of(field.schema)


def test_should_fall_back_on_unknown_decimal_scale() -> None:
    assert _decimal_scale(4, SCALE_UNSET) == 127


def test_should_fall_back_on_unfixed_decimal_scale(session: Any) -> None:
    assert _decimal_scale(0, 0) == 127
    # A NUMERIC declared without precision: every digit it holds arrives.
    session.ns.execute("CREATE TABLE n (v NUMERIC)", "INSERT INTO n VALUES (12.12)")
    cursor = session.dialect.open_cursor(session.conn, "SELECT v FROM n", None)
    try:
        columns = session.dialect.describe(session.conn, cursor, None)
        value = cursor.fetchmany(1)[0][0]
    finally:
        session.dialect.end_query(session.conn, cursor)
    assert (columns[0].precision, columns[0].scale) == (0, 0)
    mapping = map_columns(None, columns, "none", session.dialect)
    assert Decimal.scale_of(mapping.schema.fields[0].schema) == 127
    for _, convert in mapping.converters:
        value = convert(value)
    assert value == decimal.Decimal("12.12") and value.as_tuple().exponent == -127


def test_should_not_fall_back_on_known_decimal_scale() -> None:
    assert _decimal_scale(0, 5) == 5
    assert _decimal_scale(10, 2) == 2
