"""Confluent's JdbcSourceTaskLifecycleTest, ported: start, stop, and how polls walk tables.

Confluent runs these on an embedded Derby with mocked connection providers; here each runs on
SQLite, PostgreSQL and MariaDB in an empty namespace, and the connection checks look at the
task's behaviour instead of a mock's call counts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceTask
from kconnect_sdk import ConfigError, ConnectError
from kconnect_testkit import InMemoryOffsetStore, ScriptedSourceContext

TABLE, SECOND_TABLE = "test", "test2"
PARTITION_V0, SECOND_PARTITION = {"table": TABLE}, {"table": SECOND_TABLE}

UPSTREAM = [
    "testMissingParentConfig",
    "testMissingTables",
    "testStartStopDifferentThreads",
    "testStartStopSameThread",
    "testSingleUpdateMultiplePoll",
    "testMultipleTables",
    "testMultipleTablesMultiplePolls",
    "testMultipleTablesNothingToDoReturns",
    "testNonTransientSQLExceptionThrows",
    "testTransientSQLExceptionRetries",
]
NOT_APPLICABLE = {
    "testTransientSQLExceptionRetries": "drives a mocked querier that throws a transient "
    "SQLException on every attempt; a real database cannot be made to fail transiently on "
    "each try here",
}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


def single_table_config(ns: Any) -> dict[str, str]:
    return {
        **ns.props,
        "tables": TABLE,
        "tables.fetched": "true",
        "mode": "bulk",
        "topic.prefix": "test-",
        "numeric.precision.mapping": "true",
        "poll.interval.ms": "20",
    }


def two_table_config(ns: Any) -> dict[str, str]:
    return {**single_table_config(ns), "tables": f"{TABLE},{SECOND_TABLE}"}


@pytest.fixture
def task() -> Iterator[JdbcSourceTask]:
    t = JdbcSourceTask()
    t.initialize(ScriptedSourceContext({}, InMemoryOffsetStore()))
    yield t
    t.stop()


def test_missing_parent_config(task: JdbcSourceTask, ns: Any) -> None:
    props = single_table_config(ns)
    del props["connection.url"]
    with pytest.raises(ConnectError):
        task.start(props)


def test_missing_tables(task: JdbcSourceTask, ns: Any) -> None:
    props = single_table_config(ns)
    del props["tables"]
    with pytest.raises(ConfigError):
        task.start(props)


def test_start_stop_different_threads(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    polled = threading.Event()
    running = True
    errors: list[BaseException] = []

    def work() -> None:
        try:
            task.start(single_table_config(ns))
            while running:
                task.poll()
                polled.set()
        except BaseException as exc:  # reported below, on the test's thread
            errors.append(exc)
            polled.set()

    worker = threading.Thread(target=work)
    worker.start()
    assert polled.wait(10)
    task.stop()
    polled.clear()
    # A poll after stop() returns, so the polling thread sees its flag and ends.
    assert polled.wait(5)
    running = False
    worker.join(5)
    assert not worker.is_alive() and not errors


def test_start_stop_same_thread(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    task.start(single_table_config(ns))
    task.stop()
    started = time.monotonic()
    assert task.poll() is None
    assert time.monotonic() - started < 2


def test_single_update_multiple_poll(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    ns.insert(TABLE, id=1)
    ns.insert(TABLE, id=2)
    task.start({**single_table_config(ns), "batch.max.rows": "1"})
    records = task.poll()
    assert records is not None and len(records) == 1 and records[0].value.get("id") == 1
    records = task.poll()
    assert records is not None and len(records) == 1 and records[0].value.get("id") == 2


def test_multiple_tables(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    ns.execute(f"CREATE TABLE {SECOND_TABLE} (id INT)")
    ns.insert(TABLE, id=1)
    ns.insert(SECOND_TABLE, id=2)
    task.start({**two_table_config(ns), "batch.max.rows": "1"})
    # Both tables are polled, in order: a table whose rows are all sent hands over at once.
    records = task.poll()
    assert records is not None and len(records) == 1
    assert records[0].source_partition == PARTITION_V0
    records = task.poll()
    assert records is not None and len(records) == 1
    assert records[0].source_partition == SECOND_PARTITION
    assert records[0].value.get("id") == 2


def _validate(records: Any, expected: int, table: str) -> None:
    assert records is not None and len(records) == expected
    assert {r.source_partition["table"] for r in records} == {table}


def test_multiple_tables_multiple_polls(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    ns.execute(f"CREATE TABLE {SECOND_TABLE} (id INT)")
    for table, ids in ((TABLE, (1, 2)), (SECOND_TABLE, (3, 4))):
        for i in ids:
            ns.insert(table, id=i)
    task.start({**two_table_config(ns), "batch.max.rows": "1"})
    for _ in range(2):
        for table in (TABLE, SECOND_TABLE):
            for _ in range(2):
                records = task.poll()
                while not records:  # the next pass waits for poll.interval.ms
                    records = task.poll()
                _validate(records, 1, table)


def test_multiple_tables_nothing_to_do_returns(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    ns.execute(f"CREATE TABLE {SECOND_TABLE} (id INT)")
    task.start(two_table_config(ns))
    # Confluent's poll returns an empty list; this SDK's "nothing" is None or empty.
    assert not task.poll()


def test_non_transient_sql_exception_throws(task: JdbcSourceTask, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    task.start({**single_table_config(ns), "tables": "not_existing_table"})
    # The default query.retry.attempts (-1) retries forever, but a missing table is not
    # worth retrying: the task fails on the first poll, naming the table.
    with pytest.raises(ConnectError) as e:
        task.poll()
    assert "not_existing_table" in str(e.value)
    assert e.value.__cause__ is not None
    assert not isinstance(e.value.__cause__, ConnectError)
    assert "not_existing_table" in str(e.value.__cause__)
