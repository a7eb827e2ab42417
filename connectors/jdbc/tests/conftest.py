"""The three databases behind one small interface, and a task runner over the real SDK types."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceConnector, JdbcSourceTask
from kconnect_sdk import SourceRecord
from kconnect_testkit import InMemoryOffsetStore, ScriptedSourceContext


@dataclass
class Database:
    """A database the tests create tables in, with the DDL words that differ per kind."""

    kind: str
    url: str
    connect_fn: Any
    placeholder: str
    pk: str
    """An auto-increment integer primary key column definition."""
    ts: str
    """A timestamp (wall-clock) column type."""
    qualifier: str
    """What the connector prefixes a table name with in its source partition."""
    extra: dict[str, str] = field(default_factory=dict)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        conn = self.connect_fn()
        try:
            cur = conn.cursor()
            cur.execute(sql.replace("?", self.placeholder), tuple(params))
            rows = list(cur.fetchall()) if cur.description else []
            conn.commit()
            return rows
        finally:
            conn.close()

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        conn = self.connect_fn()
        try:
            cur = conn.cursor()
            cur.executemany(sql.replace("?", self.placeholder), [tuple(r) for r in rows])
            conn.commit()
        finally:
            conn.close()

    def table(self, prefix: str = "t") -> str:
        return f"{prefix}_{uuid.uuid4().hex[:8]}"

    def fqn(self, table: str) -> str:
        return f"{self.qualifier}{table}"


@pytest.fixture(scope="session")
def jdbc_mariadb(kc_mariadb: Any) -> Database:
    conn = kc_mariadb.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS inventory")
    conn.close()

    def connect() -> Any:
        return kc_mariadb.connect(database="inventory")

    return Database(
        kind="mariadb",
        url=f"jdbc:mysql://{kc_mariadb.host}:{kc_mariadb.port}/inventory",
        connect_fn=connect,
        placeholder="%s",
        pk="id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY",
        ts="DATETIME(6)",
        qualifier="inventory.",
        extra={"connection.user": kc_mariadb.user},
    )


@pytest.fixture(scope="session")
def jdbc_postgres(kc_postgres: Any) -> Database:
    return Database(
        kind="postgres",
        url=f"jdbc:postgresql://{kc_postgres.host}:{kc_postgres.port}/{kc_postgres.dbname}",
        connect_fn=kc_postgres.connect,
        placeholder="%s",
        pk="id SERIAL PRIMARY KEY",
        ts="TIMESTAMP(6)",
        qualifier="public.",
        extra={"connection.user": kc_postgres.user},
    )


@pytest.fixture(scope="session")
def jdbc_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Database:
    path = tmp_path_factory.mktemp("sqlite") / "jdbc.sqlite"
    sqlite3.connect(path).close()

    def connect() -> Any:
        return sqlite3.connect(path, timeout=30)

    return Database(
        kind="sqlite",
        url=f"jdbc:sqlite:{path}",
        connect_fn=connect,
        placeholder="?",
        pk="id INTEGER PRIMARY KEY AUTOINCREMENT",
        ts="DATETIME",
        qualifier="",
    )


@pytest.fixture(params=["sqlite", "postgres", "mariadb"])
def db(request: pytest.FixtureRequest) -> Database:
    """Each test runs on each of the three databases."""
    database: Database = request.getfixturevalue(f"jdbc_{request.param}")
    return database


def _connector_config(db: Database, **props: str) -> dict[str, str]:
    return {
        "name": "jdbc-test",
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": db.url,
        "poll.interval.ms": "50",
        **db.extra,
        **props,
    }


class TaskRunner:
    """Starts the connector, then its first task, with offsets in memory."""

    def __init__(self, props: Mapping[str, str], store: InMemoryOffsetStore | None = None):
        self.props = dict(props)
        self.store = store or InMemoryOffsetStore()
        connector = JdbcSourceConnector()
        connector.start(self.props)
        try:
            self.task_props = {**self.props, **connector.task_configs(1)[0]}
        finally:
            connector.stop()
        self.task = JdbcSourceTask()
        self.task.initialize(ScriptedSourceContext(self.task_props, self.store))
        self.task.start(self.task_props)

    def drain(self, expected: int | None = None, timeout: float = 10.0) -> list[SourceRecord]:
        """Poll until ``expected`` records came, or (None) until a quiet spell."""
        records: list[SourceRecord] = []
        deadline = time.monotonic() + timeout
        quiet = 0
        while time.monotonic() < deadline:
            batch = self.task.poll()
            if batch:
                records.extend(batch)
                quiet = 0
            else:
                quiet += 1
            if expected is not None and len(records) >= expected:
                break
            if expected is None and quiet >= 4:
                break
        return records

    def commit(self, records: Sequence[SourceRecord]) -> None:
        self.store.commit_records(records)

    def stop(self) -> None:
        self.task.stop()


@pytest.fixture
def run_task() -> Iterator[Any]:
    runners: list[TaskRunner] = []

    def start(props: Mapping[str, str], store: InMemoryOffsetStore | None = None) -> TaskRunner:
        runner = TaskRunner(props, store)
        runners.append(runner)
        return runner

    yield start
    for runner in runners:
        runner.stop()


@pytest.fixture
def config_for() -> Any:
    """``config_for(db, **props)``: a connector config for ``db`` (keys with dots as **{})."""
    return _connector_config


# --------------------------------------------------------------------------------------------
# Ports of Confluent's own tests: each runs in an empty namespace of its own (a SQLite file, a
# PostgreSQL schema, a MariaDB database), so it can use Confluent's table names ("test",
# "test2", "users") and see only its own tables, as with Confluent's fresh embedded Derby.


@dataclass
class Namespace:
    """An empty namespace on one of the three databases, with the DDL words that differ."""

    kind: str
    props: dict[str, str]
    """connection.url (and user) of this namespace."""
    connect_fn: Any
    placeholder: str
    name: str | None
    """The schema (PostgreSQL) or database (MariaDB) name; None on SQLite."""
    ts: str
    """Confluent's TIMESTAMP column: a wall-clock timestamp."""
    identity: str
    """Confluent's ``INT NOT NULL GENERATED ALWAYS AS IDENTITY``."""
    big_identity: str
    """Confluent's ``BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY``."""

    _conn: Any = None

    def execute(self, *statements: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run the statements in one transaction; the last one's rows."""
        if self._conn is None:
            # One connection for the test's own statements: connecting is the slow part.
            self._conn = self.connect_fn()
        cur = self._conn.cursor()
        rows: list[Any] = []
        for sql in statements:
            cur.execute(sql.replace("?", self.placeholder), tuple(params))
            rows = list(cur.fetchall()) if cur.description else []
        self._conn.commit()
        cur.close()
        return rows

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def insert_sql(self, table: str, **values: Any) -> str:
        """Confluent's insertStatementBuilder: literal values, for execute()."""

        def literal(v: Any) -> str:
            if isinstance(v, str):
                return "'" + v.replace("'", "''") + "'"
            return repr(v)

        cols = ",".join(values)
        return (
            f"INSERT INTO {table} ({cols}) VALUES ({','.join(literal(v) for v in values.values())})"
        )

    def insert(self, table: str, **values: Any) -> None:
        self.execute(self.insert_sql(table, **values))


@pytest.fixture
def ns(db: Database, kc_request_id: str) -> Iterator[Namespace]:
    """An empty namespace on ``db``'s database (parametrized over the three)."""
    suffix = kc_request_id
    if db.kind == "sqlite":
        import pathlib
        import tempfile

        folder = pathlib.Path(tempfile.mkdtemp(prefix="kc-jdbc-"))
        path = folder / "test.sqlite"
        sqlite3.connect(path).close()
        space = Namespace(
            kind="sqlite",
            props={"connection.url": f"jdbc:sqlite:{path}"},
            connect_fn=lambda: sqlite3.connect(path, timeout=30),
            placeholder="?",
            name=None,
            ts="TIMESTAMP",
            identity="INTEGER PRIMARY KEY AUTOINCREMENT",
            big_identity="INTEGER PRIMARY KEY AUTOINCREMENT",
        )
        yield space
        space.close()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        return
    if db.kind == "postgres":
        schema = f"s_{suffix}"
        db.execute(f"CREATE SCHEMA {schema}")
        base = db.url.removeprefix("jdbc:postgresql://")
        user = db.extra["connection.user"]
        url = f"postgresql+psycopg://{user}@{base}?options=-csearch_path%3D{schema}"

        def pg_connect() -> Any:
            conn = db.connect_fn()
            conn.execute(f"SET search_path TO {schema}")
            conn.commit()
            return conn

        space = Namespace(
            kind="postgres",
            props={"connection.url": url},
            connect_fn=pg_connect,
            placeholder="%s",
            name=schema,
            ts="TIMESTAMP(6)",
            identity="INT NOT NULL GENERATED ALWAYS AS IDENTITY",
            big_identity="BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY",
        )
        yield space
        space.close()
        db.execute(f"DROP SCHEMA {schema} CASCADE")
        return
    database = f"d_{suffix}"
    db.execute(f"CREATE DATABASE {database}")
    host_port = db.url.removeprefix("jdbc:mysql://").rsplit("/", 1)[0]
    base_connect = db.connect_fn

    def my_connect() -> Any:
        conn = base_connect()
        conn.select_db(database)
        return conn

    space = Namespace(
        kind="mariadb",
        props={"connection.url": f"jdbc:mysql://{host_port}/{database}", **db.extra},
        connect_fn=my_connect,
        placeholder="%s",
        name=database,
        ts="DATETIME(6)",
        identity="INT NOT NULL AUTO_INCREMENT PRIMARY KEY",
        big_identity="BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
    )
    yield space
    space.close()
    db.execute(f"DROP DATABASE {database}")


@pytest.fixture
def kc_request_id() -> str:
    return uuid.uuid4().hex[:10]


def upstream_test_name(method: str) -> str:
    """The pytest name of a ported Confluent test method: ``testFooBar`` → ``test_foo_bar``."""
    import re

    stem = method.removeprefix("test")
    snake = (
        re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", stem)
        .replace("__", "_")
        .lower()
        .strip("_")
    )
    return "test_" + snake


@pytest.fixture
def assert_ported() -> Any:
    """``assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)``: every upstream method is a test
    here or has a one-line reason it does not apply."""
    return _assert_ported


def _assert_ported(
    module_globals: Mapping[str, Any], upstream: Sequence[str], not_applicable: Mapping[str, str]
) -> None:
    """Every upstream method is either a test here or has a one-line reason it does not apply."""
    missing = [
        m
        for m in upstream
        if m not in not_applicable and upstream_test_name(m) not in module_globals
    ]
    assert not missing, f"upstream methods neither ported nor waived: {missing}"
    unknown = [m for m in not_applicable if m not in upstream]
    assert not unknown, f"waivers for methods upstream does not have: {unknown}"
    assert all(reason.strip() for reason in not_applicable.values())


@dataclass
class DialectSession:
    """A connected dialect on a namespace: what Confluent's dialect tests call into."""

    ns: Namespace
    dialect: Any
    conn: Any

    def table_id(self, table: str, space: str | None = None) -> Any:
        """The TableId the dialect gives ``table`` in ``space`` (default: the namespace)."""
        from kconnect_connector_jdbc._dialect import TableId

        space = space or self.ns.name
        if self.ns.kind == "postgres":
            return TableId(None, space, table)
        if self.ns.kind == "mariadb":
            return TableId(space, None, table)
        return TableId(None, None, table)

    def tables(self, types: Sequence[str] = ("TABLE",), pattern: str | None = None) -> list[Any]:
        """Confluent's ``dialect.tableIds(conn)`` with ``table.types`` and a schema pattern
        (the catalog pattern on MariaDB, whose databases JDBC calls catalogs); without one,
        the namespace alone, as Confluent's fresh Derby has nothing else."""
        if self.ns.kind == "postgres":
            return list(self.dialect.list_tables(self.conn, types, pattern or self.ns.name, None))
        return list(self.dialect.list_tables(self.conn, types, None, pattern))

    def result_columns(self, table: Any) -> dict[str, Any]:
        """The result columns of ``SELECT * FROM table``, by name."""
        cursor = self.dialect.open_cursor(
            self.conn, f"SELECT * FROM {self.dialect.table_sql(table)}", None
        )
        try:
            return {c.name: c for c in self.dialect.describe(self.conn, cursor, table)}
        finally:
            self.dialect.end_query(self.conn, cursor)


@pytest.fixture
def session(ns: Namespace) -> Iterator[DialectSession]:
    """A connected dialect on ``ns``, chosen from its URL as the connector chooses it."""
    import datetime as dt

    from kconnect_connector_jdbc._dialect import dialect_for, to_sqlalchemy_url

    url = to_sqlalchemy_url(ns.props["connection.url"], ns.props.get("connection.user"), None)
    dialect = dialect_for(url, "", quote=True, zone=dt.UTC)
    conn = dialect.connect(1, 0.0, lambda: False)
    yield DialectSession(ns, dialect, conn)
    dialect.close(conn)
