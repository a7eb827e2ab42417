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
