"""Bad input: unreachable databases, missing or nullable offset columns, bad values, secrets."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceConnector, JdbcSourceTask
from kconnect_sdk import ConfigError, ConnectError, DataError, Password
from kconnect_testkit import ScriptedSourceContext

SECRET = "n0t-in-any-l0g"


def test_unreachable_database_is_retried_then_fails_with_the_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    props = {
        "connection.url": "jdbc:postgresql://127.0.0.1:1/nowhere",
        "connection.user": "someone",
        "connection.password": SECRET,
        "connection.attempts": "3",
        "connection.backoff.ms": "100",
        "mode": "bulk",
        "topic.prefix": "x-",
    }
    started = time.monotonic()
    with pytest.raises(ConnectError) as info:
        JdbcSourceConnector().start(props)
    assert time.monotonic() - started >= 0.2  # two backoffs between three attempts
    message = str(info.value)
    assert "after 3 attempt(s)" in message and "127.0.0.1" in message
    assert "refused" in message.lower() or "connect" in message.lower()
    assert SECRET not in message
    assert caplog.text.count("attempt") >= 3
    assert SECRET not in caplog.text


def test_password_in_the_url_is_not_shown_either(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    props = {
        "connection.url": f"jdbc:mysql://127.0.0.1:1/db?user=u&password={SECRET}",
        "connection.attempts": "1",
        "mode": "bulk",
        "topic.prefix": "x-",
    }
    with pytest.raises(ConnectError) as info:
        JdbcSourceConnector().start(props)
    assert SECRET not in str(info.value)
    assert SECRET not in caplog.text


def test_validate_names_table_and_missing_column(db: Any, config_for: Any) -> None:
    table = db.table("val")
    db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20))")
    props = config_for(
        db,
        **{
            "mode": "timestamp+incrementing",
            "incrementing.column.name": "id",
            "timestamp.column.name": "updated_at",
            "table.whitelist": table,
            "topic.prefix": "v-",
        },
    )
    errors = {v.name: v.error_messages for v in JdbcSourceConnector().validate(props)}
    (message,) = errors["timestamp.column.name"]
    assert "updated_at" in message and table in message
    with pytest.raises(ConfigError, match=f"updated_at.*{table}"):
        JdbcSourceConnector().start(props)


def test_validate_refuses_a_nullable_incrementing_column(db: Any, config_for: Any) -> None:
    table = db.table("nul")
    db.execute(f"CREATE TABLE {table} (seq INT, name VARCHAR(20))")
    props = config_for(
        db,
        **{
            "mode": "incrementing",
            "incrementing.column.name": "seq",
            "table.whitelist": table,
            "topic.prefix": "v-",
        },
    )
    errors = {v.name: v.error_messages for v in JdbcSourceConnector().validate(props)}
    (message,) = errors["incrementing.column.name"]
    assert "seq" in message and table in message and "nullable" in message
    relaxed = {**props, "validate.non.null": "false"}
    assert not any(v.error_messages for v in JdbcSourceConnector().validate(relaxed))


def test_validate_result_hides_the_password(jdbc_postgres: Any, config_for: Any) -> None:
    props = config_for(
        jdbc_postgres, **{"mode": "bulk", "topic.prefix": "p-", "connection.password": SECRET}
    )
    values = JdbcSourceConnector().validate(props)
    password = next(v for v in values if v.name == "connection.password")
    assert isinstance(password.value, Password)
    assert SECRET not in repr(values)


def test_a_value_that_cannot_be_converted_is_a_data_error(
    jdbc_sqlite: Any, config_for: Any
) -> None:
    db = jdbc_sqlite
    table = db.table("bad")
    db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, n INT NOT NULL)")
    # SQLite stores what it is given: text in an INT column.
    db.execute(f"INSERT INTO {table} VALUES (1, 'not a number')")
    props = config_for(db, **{"mode": "bulk", "table.whitelist": table, "topic.prefix": "b-"})
    connector = JdbcSourceConnector()
    connector.start(props)
    task_props = {**props, **connector.task_configs(1)[0]}
    connector.stop()
    task = JdbcSourceTask()
    task.initialize(ScriptedSourceContext(task_props))
    task.start(task_props)
    try:
        with pytest.raises(DataError, match=f"{table}.*'n'.*not a number"):
            _poll_until_records(task)
    finally:
        task.stop()


def _poll_until_records(task: JdbcSourceTask) -> None:
    for _ in range(5):
        if task.poll():
            return


def test_with_errors_tolerance_all_a_bad_row_is_skipped(
    jdbc_sqlite: Any, config_for: Any, run_task: Any, caplog: pytest.LogCaptureFixture
) -> None:
    db = jdbc_sqlite
    table = db.table("tol")
    db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, n INT NOT NULL)")
    db.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(1, 10), (2, "oops"), (3, 30)])
    props = config_for(
        db,
        **{
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": table,
            "topic.prefix": "t-",
            "errors.tolerance": "all",
        },
    )
    records = run_task(props).drain(2)
    assert [(r.value.get("id"), r.value.get("n")) for r in records] == [(1, 10), (3, 30)]
    assert "oops" in caplog.text and table in caplog.text


def test_connecting_is_retried_connection_attempts_times_then_fails_naming_the_database(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    import datetime as dt

    from kconnect_connector_jdbc._dialect import dialect_for, to_sqlalchemy_url

    missing = tmp_path / "missing.db"
    url = to_sqlalchemy_url(f"jdbc:sqlite:{missing}", None, None)
    dialect = dialect_for(url, "", quote=True, zone=dt.UTC)
    caplog.set_level(logging.WARNING)
    started = time.monotonic()
    with pytest.raises(ConnectError, match=r"after 3 attempt\(s\).*does not exist"):
        dialect.connect(3, 0.2, lambda: False)
    assert time.monotonic() - started >= 0.4  # two pauses between three attempts
    assert [
        r.getMessage().split(": ")[0] for r in caplog.records if "Connecting to" in r.getMessage()
    ] == [f"Connecting to {dialect.display_url} failed (attempt {n} of 3)" for n in (1, 2, 3)]
    # Stopping: no more pauses, the attempts are still made.
    caplog.clear()
    started = time.monotonic()
    with pytest.raises(ConnectError, match=r"after 3 attempt\(s\)"):
        dialect.connect(3, 5.0, lambda: True)
    assert time.monotonic() - started < 2.0
    assert sum("Connecting to" in r.getMessage() for r in caplog.records) == 3
