"""Confluent's MySqlDatabaseDialectTest, ported (the dialect serves MySQL and MariaDB): how a
URL is shown with its passwords masked. The rest of the class builds the sink's SQL.

Beyond the class: MySQL's backquoted table names as Confluent's task configs write them, and
the URL a connector shows (in logs and errors) for a ``jdbc:mysql:`` URL carrying a password.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from kconnect_connector_jdbc._dialect import (
    TableId,
    dialect_for,
    sanitized_url,
    to_sqlalchemy_url,
)
from kconnect_sdk import ConfigError

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
    "upsertOnlyKeyCols",
    "insert",
    "update",
    "shouldSanitizeUrlWithCredentialsInHosts",
    "shouldSanitizeUrlWithCredentialsInProperties",
    "shouldSanitizeUrlWithCredentialsInUrlProperties",
]
_SINK = "sink: {} (this package has no sink connector)"
_TYPE = _SINK.format("SQL type of a record field")
NOT_APPLICABLE: dict[str, str] = {
    "shouldMapPrimitiveSchemaTypeToSqlTypes": _TYPE,
    "shouldMapDecimalSchemaTypeToDecimalSqlType": _TYPE,
    "shouldMapDataTypes": _TYPE,
    "shouldMapDateSchemaTypeToDateSqlType": _TYPE,
    "shouldMapTimeSchemaTypeToTimeSqlType": _TYPE,
    "shouldMapTimestampSchemaTypeToTimestampSqlType": _TYPE,
    "shouldBuildCreateQueryStatement": _SINK.format("CREATE TABLE"),
    "shouldBuildAlterTableStatement": _SINK.format("ALTER TABLE"),
    "shouldBuildUpsertStatement": _SINK.format("upsert"),
    "createOneColNoPk": _SINK.format("CREATE TABLE"),
    "createOneColOnePk": _SINK.format("CREATE TABLE"),
    "createThreeColTwoPk": _SINK.format("CREATE TABLE"),
    "alterAddOneCol": _SINK.format("ALTER TABLE"),
    "alterAddTwoCol": _SINK.format("ALTER TABLE"),
    "upsert": _SINK.format("upsert"),
    "upsertOnlyKeyCols": _SINK.format("upsert"),
    "insert": _SINK.format("INSERT"),
    "update": _SINK.format("UPDATE"),
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


def test_should_sanitize_url_with_credentials_in_hosts() -> None:
    assert (
        sanitized_url("mysqlx://sandy:secret@(host=myhost1,port=1111)/db?key1=value1")
        == "mysqlx://sandy:****@(host=myhost1,port=1111)/db?key1=value1"
    )


def test_should_sanitize_url_with_credentials_in_properties() -> None:
    assert sanitized_url(
        "jdbc:mysql://[(host=myhost1,port=1111,user=sandy,password=secret),"
        "(password=secret,host=myhost2,port=2222,user=finn,password=secret)]/db"
    ) == (
        "jdbc:mysql://[(host=myhost1,port=1111,user=sandy,password=****),"
        "(password=****,host=myhost2,port=2222,user=finn,password=****)]/db"
    )


def test_should_sanitize_url_with_credentials_in_url_properties() -> None:
    assert sanitized_url(
        "jdbc:mysql://(host=myhost1,port=1111),(host=myhost2,port=2222)/"
        "db?password=secret&key1=value1&key2=value2&key3=value3&"
        "user=smith&password=secret&other=value"
    ) == (
        "jdbc:mysql://(host=myhost1,port=1111),(host=myhost2,port=2222)/"
        "db?password=****&key1=value1&key2=value2&key3=value3&"
        "user=smith&password=****&other=value"
    )


def _mysql(quote: bool = True) -> Any:
    url = to_sqlalchemy_url("jdbc:mysql://db:3306/inventory", None, None)
    return dialect_for(url, "", quote=quote, zone=dt.UTC)


def test_connection_url_is_shown_without_its_password() -> None:
    for url in (
        "jdbc:mysql://sandy:secret@db:3306/inventory",
        "jdbc:mysql://db:3306/inventory?user=sandy&password=secret",
        "mysql+pymysql://sandy:secret@db:3306/inventory",
    ):
        dialect = dialect_for(to_sqlalchemy_url(url, None, None), "", quote=True, zone=dt.UTC)
        assert "secret" not in dialect.display_url
        assert "sandy" in dialect.display_url
    with pytest.raises(ConfigError) as info:
        to_sqlalchemy_url("jdbc:mysql:sandy:secret@db/inventory?password=secret", None, None)
    assert "secret" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("orders", TableId(None, None, "orders")),
        ("inventory.orders", TableId("inventory", None, "orders")),
        ("`inventory`.`orders`", TableId("inventory", None, "orders")),
        ("`my.db`.`or``ders`", TableId("my.db", None, "or`ders")),
    ],
)
def test_table_identifiers_name_the_database_as_catalog(text: str, expected: TableId) -> None:
    dialect = _mysql()
    assert dialect.parse_table_identifier(text) == expected
    # And back: the SQL names the same table.
    assert dialect.parse_table_identifier(dialect.table_sql(expected)) == expected
