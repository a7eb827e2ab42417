"""Confluent's GenericDatabaseDialectTest, ported: the source side of a dialect, that is which
tables it lists, how it describes their columns, and how it shows a connection URL.

Confluent runs these on an embedded Derby (schema ``APP``); here each runs on SQLite,
PostgreSQL and MariaDB in an empty namespace of its own (a file, a schema, a database).
Confluent's ``describeTable``/``describeColumns`` are ``table_columns`` (nullability,
auto-increment), ``primary_key`` and the result columns of ``SELECT *`` (JDBC types) here.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceConnector
from kconnect_connector_jdbc._column import SqlType
from kconnect_connector_jdbc._dialect import sanitized_url, to_sqlalchemy_url

UPSTREAM = [
    "testDialectForSinkConnectorWithTablesOnly",
    "testDialectForSinkConnectorWithViewsOnly",
    "testDialectForSinkConnectorWithTablesAndViews",
    "testGetTablesEmpty",
    "testGetTablesSingle",
    "testFindTablesWithKnownTableType",
    "testNotFindTablesWithUnknownTableType",
    "testGetTablesMany",
    "testGetTablesNarrowedToSchemas",
    "testBuildCreateTableStatement",
    "testBuildDeleteStatement",
    "testApplyDdlStatementsCommits",
    "testApplyDdlStatementsRollbackOnCommitFail",
    "testApplyDdlStatementsCommitAndRollbackBothFail",
    "testDescribeTableOnEmptyDb",
    "testDescribeTable",
    "testDescribeColumns",
    "shouldBuildCreateQueryStatement",
    "shouldBuildAlterTableStatement",
    "shouldBuildUpsertStatement",
    "formatColumnValue",
    "writeColumnSpec",
    "setTransactionIsolationModes",
    "shouldSanitizeUrlWithoutCredentialsInProperties",
    "shouldSanitizeUrlWithCredentialsInUrlProperties",
    "shouldSanitizeUrlWithManyPasswordVariationsInUrlProperties",
    "shouldAddExtraProperties",
    "shouldCreateDialectWithValidCredentialsProviderClass",
    "testConfigurableCredentialsProviderClass",
    "testRefreshFunctionalityOfCredentialsProviderClass",
    "testDefaultBehaviorWhenConnectionConfigsArePresent",
    "validateQuery_shouldDelegateToGetMetaData",
    "validateQuery_shouldApplyQueryTimeoutBeforeMetaDataCall",
    "validateQuery_shouldPropagateSqlExceptionFromGetMetaData",
    "validateQuery_shouldPropagateSqlExceptionFromPrepareStatement",
    "validateQuery_shouldPassQueryThroughUnmodified",
    "validateJdbcUrlParamsIsNoOpWhenAdminHasNotOptedIn",
    "validateJdbcUrlParamsBlocksConfiguredParams",
    "validateConnectionPropertiesBlocksPassthroughConfigParams",
]
_SINK = "sink: this package has no sink connector"
_BLOCKED_PARAMS = (
    "a JVM system property an administrator sets to block URL parameters: no equivalent in a "
    "Python worker"
)
_PROVIDER = (
    "jdbc.credentials.provider.class names a Java class; only the default (connection.user "
    "and connection.password) is implemented, any other value is a config error"
)
NOT_APPLICABLE: dict[str, str] = {
    "testDialectForSinkConnectorWithTablesOnly": _SINK,
    "testDialectForSinkConnectorWithViewsOnly": _SINK,
    "testDialectForSinkConnectorWithTablesAndViews": _SINK,
    "testBuildCreateTableStatement": _SINK + " (INSERT statement)",
    "testBuildDeleteStatement": _SINK + " (DELETE statement)",
    "testApplyDdlStatementsCommits": _SINK + " (DDL)",
    "testApplyDdlStatementsRollbackOnCommitFail": _SINK + " (DDL)",
    "testApplyDdlStatementsCommitAndRollbackBothFail": _SINK + " (DDL)",
    "shouldBuildCreateQueryStatement": _SINK + " (CREATE TABLE)",
    "shouldBuildAlterTableStatement": _SINK + " (ALTER TABLE)",
    "shouldBuildUpsertStatement": _SINK + " (upsert)",
    "formatColumnValue": _SINK + " (SQL literals of record values)",
    "writeColumnSpec": _SINK + " (column DDL)",
    "setTransactionIsolationModes": "transaction.isolation.mode is not implemented: any value "
    "but DEFAULT is a config error (test_bad_input)",
    "shouldAddExtraProperties": "connection.<x> keys become JDBC driver Properties; there is "
    "no JDBC driver here to take them (README, differences)",
    "testConfigurableCredentialsProviderClass": _PROVIDER,
    "testRefreshFunctionalityOfCredentialsProviderClass": _PROVIDER,
    "validateJdbcUrlParamsIsNoOpWhenAdminHasNotOptedIn": _BLOCKED_PARAMS,
    "validateJdbcUrlParamsBlocksConfiguredParams": _BLOCKED_PARAMS,
    "validateConnectionPropertiesBlocksPassthroughConfigParams": _BLOCKED_PARAMS,
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


TABLE_TYPES = ("TABLE",)
VIEW_TYPES = ("VIEW",)
ALL_TABLE_TYPES = ("TABLE", "VIEW")


def test_get_tables_empty(session: Any) -> None:
    assert session.tables(TABLE_TYPES) == []


def test_get_tables_single(session: Any) -> None:
    session.ns.execute("CREATE TABLE test (id INT)")
    assert session.tables(TABLE_TYPES) == [session.table_id("test")]


def test_find_tables_with_known_table_type(session: Any) -> None:
    session.ns.execute("CREATE TABLE test (id INT)")
    assert session.tables(["TABLE"]) == [session.table_id("test")]


def test_not_find_tables_with_unknown_table_type(session: Any) -> None:
    session.ns.execute("CREATE TABLE test (id INT)")
    assert session.tables(["view"]) == []


def test_get_tables_many(session: Any) -> None:
    session.ns.execute(
        "CREATE TABLE test (id INT)",
        "CREATE TABLE foo (id INT, bar VARCHAR(20))",
        "CREATE TABLE zab (id INT)",
        "CREATE VIEW fooview AS SELECT id, bar FROM foo",
    )
    test, foo, zab, vfoo = (session.table_id(t) for t in ("test", "foo", "zab", "fooview"))
    # No views unless asked for.
    assert set(session.tables(TABLE_TYPES)) == {test, foo, zab}
    assert set(session.tables(ALL_TABLE_TYPES)) == {test, foo, zab, vfoo}
    assert session.tables(VIEW_TYPES) == [vfoo]


def test_get_tables_narrowed_to_schemas(session: Any) -> None:
    ns = session.ns
    if ns.kind == "sqlite":
        pytest.skip("SQLite has no schemas: schema.pattern has nothing to narrow")
    public, private = f"{ns.name}_pub", f"{ns.name}_priv"
    create = "CREATE SCHEMA" if ns.kind == "postgres" else "CREATE DATABASE"
    drop = "DROP SCHEMA {} CASCADE" if ns.kind == "postgres" else "DROP DATABASE {}"
    ns.execute(f"{create} {public}", f"{create} {private}")
    try:
        ns.execute(
            "CREATE TABLE some_table (id INTEGER)",
            f"CREATE TABLE {public}.public_table (id INTEGER)",
            f"CREATE VIEW {public}.public_view AS SELECT id FROM {public}.public_table",
            f"CREATE TABLE {private}.private_table (id INTEGER)",
            f"CREATE TABLE {private}.another_private_table (id INTEGER)",
        )
        some_table = session.table_id("some_table")
        public_table = session.table_id("public_table", public)
        private_table = session.table_id("private_table", private)
        another_private_table = session.table_id("another_private_table", private)
        public_view = session.table_id("public_view", public)

        # Confluent's null pattern is every schema of its fresh database: ours, here.
        everything = f"{ns.name}%"
        for types in (TABLE_TYPES, ["TABLE"]):
            assert session.tables(types, public) == [public_table]
            assert set(session.tables(types, private)) == {private_table, another_private_table}
            assert set(session.tables(types, everything)) == {
                some_table,
                public_table,
                private_table,
                another_private_table,
            }
        for table in (some_table, public_table, private_table, another_private_table):
            assert [c.name for c in session.dialect.table_columns(session.conn, table)] == ["id"]
            assert session.result_columns(table)["id"].sql_type is SqlType.INTEGER
        assert session.tables(VIEW_TYPES, public) == [public_view]
        assert session.result_columns(public_view)["id"].sql_type is SqlType.INTEGER
    finally:
        ns.execute(drop.format(public), drop.format(private))


def test_describe_table_on_empty_db(session: Any) -> None:
    # Confluent's describeTable returns null: no columns, no primary key here.
    missing = session.table_id("some_table")
    assert session.dialect.table_columns(session.conn, missing) == []
    assert session.dialect.primary_key(session.conn, missing) == []


def test_describe_table(session: Any) -> None:
    session.ns.execute(
        "CREATE TABLE x (id INTEGER PRIMARY KEY, name VARCHAR(255) not null, optional_age INTEGER)"
    )
    table = session.table_id("x")
    infos = {c.name: c for c in session.dialect.table_columns(session.conn, table)}
    columns = session.result_columns(table)
    assert session.dialect.primary_key(session.conn, table) == ["id"]
    assert (columns["id"].sql_type, infos["id"].nullable) == (SqlType.INTEGER, False)
    assert (columns["name"].sql_type, infos["name"].nullable) == (SqlType.VARCHAR, False)
    assert (columns["optional_age"].sql_type, infos["optional_age"].nullable) == (
        SqlType.INTEGER,
        True,
    )
    # The result columns say the same about nullability, which the record schema shows.
    assert [columns[n].nullable for n in ("id", "name", "optional_age")] == [False, False, True]


def test_describe_columns(session: Any) -> None:
    ns = session.ns

    def describe(table: str) -> dict[str, Any]:
        infos = session.dialect.table_columns(session.conn, session.table_id(table))
        return {c.name: (c.auto_increment, c.nullable) for c in infos}

    ns.execute(f"CREATE TABLE test (id {ns.identity}, bar INTEGER)")
    assert describe("test") == {"id": (True, False), "bar": (False, True)}

    ns.execute("CREATE TABLE none (id INTEGER, bar INTEGER)")
    assert describe("none") == {"id": (False, True), "bar": (False, True)}

    ns.execute(f"CREATE TABLE mixed (foo INTEGER, id {ns.identity}, bar INTEGER)")
    assert {k: v[0] for k, v in describe("mixed").items()} == {
        "foo": False,
        "id": True,
        "bar": False,
    }

    ns.execute(
        f"CREATE TABLE tstest (ts {ns.ts} NOT NULL, tsdefault {ns.ts}, tsnull {ns.ts} DEFAULT NULL)"
    )
    assert {k: v[1] for k, v in describe("tstest").items()} == {
        "ts": False,
        "tsdefault": True,
        "tsnull": True,
    }


def test_should_sanitize_url_without_credentials_in_properties() -> None:
    url = "jdbc:acme:db/foo:100?key1=value1&key2=value2&key3=value3&&other=value"
    assert sanitized_url(url) == url


def test_should_sanitize_url_with_credentials_in_url_properties() -> None:
    assert sanitized_url(
        "jdbc:acme:db/foo:100?password=secret&key1=value1&key2=value2&key3=value3&"
        "user=smith&password=secret&other=value"
    ) == (
        "jdbc:acme:db/foo:100?password=****&key1=value1&key2=value2&key3=value3&"
        "user=smith&password=****&other=value"
    )


def test_should_sanitize_url_with_many_password_variations_in_url_properties() -> None:
    assert sanitized_url(
        "jdbc:acme:db/foo:100?"
        "javax.net.ssl.keyStorePassword=secret2&"
        "password=secret&"
        "password&"  # a parameter without a value, before one that is no secret
        "key1=value1&"
        "key2=value2&"
        "key3=value3&"
        "passworNotSanitized=not-secret&"
        "passwordShouldBeSanitized=value3&"
        "javax.net.ssl.trustStorePassword=superSecret&"
        "user=smith&"
        "Password=secret&"
        "other=value"
    ) == (
        "jdbc:acme:db/foo:100?"
        "javax.net.ssl.keyStorePassword=****&"
        "password=****&"
        "password&"
        "key1=value1&"
        "key2=value2&"
        "key3=value3&"
        "passworNotSanitized=not-secret&"
        "passwordShouldBeSanitized=****&"
        "javax.net.ssl.trustStorePassword=****&"
        "user=smith&"
        "Password=****&"
        "other=value"
    )


def test_should_create_dialect_with_valid_credentials_provider_class() -> None:
    props = {
        "connection.url": "jdbc:sqlite:/nonexistent.db",
        "mode": "bulk",
        "topic.prefix": "test-",
        "jdbc.credentials.provider.class": (
            "io.confluent.connect.jdbc.util.DefaultJdbcCredentialsProvider"
        ),
    }
    assert [
        (v.name, v.error_messages)
        for v in JdbcSourceConnector().validate(props)
        if v.error_messages
    ] == []


def test_default_behavior_when_connection_configs_are_present() -> None:
    url = to_sqlalchemy_url("jdbc:postgresql://db:5432/shop", "test_user", "test_password")
    assert (url.username, url.password) == ("test_user", "test_password")
    # The keys win over credentials in the URL, as JDBC's DriverManager has them.
    url = to_sqlalchemy_url(
        "jdbc:mysql://db:3306/shop?user=other&password=other", "test_user", "test_password"
    )
    assert (url.username, url.password) == ("test_user", "test_password")


# Confluent's validateQuery: the connector's validate has the database prepare a custom query
# (without running it) and reports a refused one on the query key. Confluent's mocks check the
# JDBC calls; here the databases answer.


def _query_errors(ns: Any, query: str) -> list[str]:
    props = {**ns.props, "mode": "bulk", "query": query, "topic.prefix": "test-"}
    values = JdbcSourceConnector().validate(props)
    assert [v.name for v in values if v.error_messages and v.name != "query"] == []
    return next(v.error_messages for v in values if v.name == "query")


def _users_and_orders(ns: Any) -> None:
    ns.execute(
        "CREATE TABLE users (id INT, name VARCHAR(20))",
        "CREATE TABLE orders (id INT, user_id INT)",
    )


def test_validate_query_should_delegate_to_get_meta_data(ns: Any) -> None:
    _users_and_orders(ns)
    assert _query_errors(ns, "SELECT * FROM users") == []


def test_validate_query_should_apply_query_timeout_before_meta_data_call(ns: Any) -> None:
    # Validation is bounded: the query is prepared, never run, however long it would take.
    slow = {
        "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
        "WHERE i < 1000000000) SELECT count(*) FROM n",
        "postgres": "SELECT pg_sleep(30)",
        "mariadb": "SELECT SLEEP(30)",
    }[ns.kind]
    started = time.monotonic()
    assert _query_errors(ns, slow) == []
    assert time.monotonic() - started < 10


def test_validate_query_should_propagate_sql_exception_from_get_meta_data(ns: Any) -> None:
    (error,) = _query_errors(ns, "SELECT * FROM nonexistent")
    assert error.startswith("query 'SELECT * FROM nonexistent' is not valid on ")
    assert "nonexistent" in error.split(": ", 1)[1]


def test_validate_query_should_propagate_sql_exception_from_prepare_statement(ns: Any) -> None:
    (error,) = _query_errors(ns, "SELECT * FROM")
    assert "check its syntax" in error


def test_validate_query_should_pass_query_through_unmodified(ns: Any) -> None:
    _users_and_orders(ns)
    query = (
        "SELECT a.id, b.id AS order_id FROM users a INNER JOIN orders b ON a.id = b.user_id "
        "WHERE a.name LIKE 'a%' ORDER BY a.id"
    )
    assert _query_errors(ns, query) == []
