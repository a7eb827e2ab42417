"""Every mode on every database: records, offsets and restarts as Confluent's connector."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_testkit import InMemoryOffsetStore


def _ids(records: list[Any]) -> list[int]:
    return [r.value.get("id") for r in records]


def test_bulk_copies_the_whole_table_every_poll(db: Any, run_task: Any, config_for: Any) -> None:
    table = db.table("bulk")
    db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL)")
    db.executemany(f"INSERT INTO {table} (name) VALUES (?)", [("a",), ("b",), ("c",)])
    runner = run_task(
        config_for(db, **{"mode": "bulk", "table.whitelist": table, "topic.prefix": "bulk-"})
    )
    first = runner.drain(3)
    assert sorted(_ids(first)) == [1, 2, 3]
    record = first[0]
    assert record.topic == f"bulk-{table}"
    assert record.key is None and record.key_schema is None
    assert record.value_schema.name == table
    # Confluent's BulkTableQuerier: the unqualified table name, and no offset.
    assert record.source_partition == {"table": table}
    assert record.source_offset is None
    second = runner.drain(3)
    assert sorted(_ids(second)) == [1, 2, 3]


def test_finished_once_every_table_was_read_through(
    db: Any, run_task: Any, config_for: Any
) -> None:
    """``finished()`` (what a DataFrame batch read stops on) turns True only when each table
    has been read to its end once: here two tables, the larger over several polls."""
    big, small = db.table("fin_big"), db.table("fin_small")
    for table in (big, small):
        db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL)")
    db.executemany(f"INSERT INTO {big} (name) VALUES (?)", [(f"r{i}",) for i in range(7)])
    db.executemany(f"INSERT INTO {small} (name) VALUES (?)", [("s",)])
    runner = run_task(
        config_for(
            db,
            **{
                "mode": "bulk",
                "table.whitelist": f"{big},{small}",
                "topic.prefix": "fin-",
                "batch.max.rows": "3",
                "poll.interval.ms": "3600000",
            },
        )
    )
    assert not runner.task.finished()
    records: list[Any] = []
    deadline = time.monotonic() + 10
    while not runner.task.finished():
        assert time.monotonic() < deadline, f"not finished after {len(records)} records"
        assert len(records) < 8, "every row was returned but the task is not finished"
        records.extend(runner.task.poll() or [])
    assert len(records) == 8
    assert [r.topic for r in records].count(f"fin-{small}") == 1


def test_incrementing_emits_new_rows_once_and_resumes(
    db: Any, run_task: Any, config_for: Any
) -> None:
    table = db.table("inc")
    db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL)")
    db.executemany(f"INSERT INTO {table} (name) VALUES (?)", [("a",), ("b",)])
    props = config_for(
        db,
        **{
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": table,
            "topic.prefix": "inc-",
        },
    )
    runner = run_task(props)
    got = runner.drain(2)
    assert _ids(got) == [1, 2]
    assert got[0].source_partition == {"protocol": "1", "table": db.fqn(table)}
    assert [r.source_offset for r in got] == [{"incrementing": 1}, {"incrementing": 2}]
    db.execute(f"INSERT INTO {table} (name) VALUES (?)", ("c",))
    more = runner.drain(1)
    assert _ids(more) == [3]
    assert runner.drain() == []
    runner.commit(got + more)
    runner.stop()
    db.executemany(f"INSERT INTO {table} (name) VALUES (?)", [("d",), ("e",)])
    resumed = run_task(props, runner.store)
    assert _ids(resumed.drain(2)) == [4, 5]
    assert resumed.drain() == []


def test_incrementing_autodetects_the_auto_increment_column(
    db: Any, run_task: Any, config_for: Any
) -> None:
    table = db.table("auto")
    db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL)")
    db.execute(f"INSERT INTO {table} (name) VALUES (?)", ("a",))
    runner = run_task(
        config_for(db, **{"mode": "incrementing", "table.whitelist": table, "topic.prefix": "a-"})
    )
    assert [r.source_offset for r in runner.drain(1)] == [{"incrementing": 1}]


def _ts_table(db: Any, name: str) -> str:
    table: str = db.table(name)
    db.execute(
        f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL, modified {db.ts} NOT NULL)"
    )
    return table


def test_timestamp_incrementing_sees_inserts_and_updates(
    db: Any, run_task: Any, config_for: Any
) -> None:
    table = _ts_table(db, "tsi")
    db.executemany(
        f"INSERT INTO {table} (name, modified) VALUES (?, ?)",
        [("a", "2024-01-01 10:00:00"), ("b", "2024-01-01 10:00:00")],
    )
    props = config_for(
        db,
        **{
            "mode": "timestamp+incrementing",
            "incrementing.column.name": "id",
            "timestamp.column.name": "modified",
            "table.whitelist": table,
            "topic.prefix": "t-",
        },
    )
    runner = run_task(props)
    got = runner.drain(2)
    assert _ids(got) == [1, 2]
    # 2024-01-01T10:00:00Z
    assert got[1].source_offset == {
        "incrementing": 2,
        "timestamp": 1704103200000,
        "timestamp_nanos": 0,
    }
    db.execute(
        f"UPDATE {table} SET name = ?, modified = ? WHERE id = 1",
        ("a2", "2024-01-02 00:00:00.123456"),
    )
    updated = runner.drain(1)
    assert [(r.value.get("id"), r.value.get("name")) for r in updated] == [(1, "a2")]
    assert updated[0].source_offset == {
        "incrementing": 1,
        "timestamp": 1704153600123,
        "timestamp_nanos": 123456000,
    }
    runner.commit(got + updated)
    runner.stop()
    # Same timestamp as the committed one, higher id: must be picked up after a restart.
    db.execute(
        f"INSERT INTO {table} (name, modified) VALUES (?, ?)", ("c", "2024-01-02 00:00:00.123456")
    )
    resumed = run_task(props, runner.store)
    assert _ids(resumed.drain(1)) == [3]
    assert resumed.drain() == []


def test_timestamp_mode_holds_back_equal_timestamps(
    db: Any, run_task: Any, config_for: Any
) -> None:
    """Confluent's CCDB-4141 rule: a record's offset reaches T only at the last row with T."""
    table = _ts_table(db, "ts")
    db.executemany(
        f"INSERT INTO {table} (name, modified) VALUES (?, ?)",
        [("a", "2024-01-01 10:00:00"), ("b", "2024-01-01 10:00:00"), ("c", "2024-01-01 11:00:00")],
    )
    props = config_for(
        db,
        **{
            "mode": "timestamp",
            "timestamp.column.name": "modified",
            "table.whitelist": table,
            "topic.prefix": "t-",
            "batch.max.rows": "2",
        },
    )
    runner = run_task(props)
    got = runner.drain(3)
    assert _ids(got) == [1, 2, 3]
    ten, eleven = 1704103200000, 1704106800000
    assert [r.source_offset for r in got] == [
        {"timestamp": 0, "timestamp_nanos": 0},
        {"timestamp": ten, "timestamp_nanos": 0},
        {"timestamp": eleven, "timestamp_nanos": 0},
    ]
    # Restart after only the first row was committed: the second row (same timestamp)
    # must come again, not be lost.
    store = InMemoryOffsetStore()
    store.commit_records(got[:1])
    runner.stop()
    again = run_task(props, store)
    assert _ids(again.drain(3)) == [1, 2, 3]


def test_query_mode_uses_the_query_partition_and_prefix_topic(
    db: Any, run_task: Any, config_for: Any
) -> None:
    table = db.table("q")
    db.execute(f"CREATE TABLE {table} ({db.pk}, name VARCHAR(20) NOT NULL)")
    db.executemany(f"INSERT INTO {table} (name) VALUES (?)", [("a%",), ("b",)])
    props = config_for(
        db,
        **{
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "topic.prefix": "query-topic",
            "query": f"SELECT * FROM (SELECT id, name FROM {table} WHERE name LIKE 'a%') AS sub",
        },
    )
    runner = run_task(props)
    got = runner.drain(1)
    assert [(r.value.get("id"), r.value.get("name")) for r in got] == [(1, "a%")]
    assert got[0].topic == "query-topic"
    assert got[0].source_partition == {"query": "query"}
    assert got[0].value_schema.name is None


def test_a_table_created_while_running_is_picked_up(db: Any, config_for: Any) -> None:
    from kconnect_connector_jdbc import JdbcSourceConnector

    prefix = db.table("new")
    requests: list[int] = []

    class Context:
        def request_task_reconfiguration(self) -> None:
            requests.append(1)

        def raise_error(self, error: BaseException) -> None:
            raise error

        offset_storage_reader = None

    connector = JdbcSourceConnector()
    connector.initialize(Context())
    props = config_for(
        db,
        **{
            "mode": "bulk",
            "table.include.list": f"(.*\\.)?{prefix}_.*",
            "topic.prefix": "n-",
            "table.poll.interval.ms": "200",
        },
    )
    connector.start(props)
    try:
        assert connector.task_configs(2)[0]["tables"] == "[]"
        db.execute(f"CREATE TABLE {prefix}_one (id INT NOT NULL)")
        deadline = time.monotonic() + 10
        while not requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert requests, "the connector did not ask for task reconfiguration"
        configs = connector.task_configs(2)
        assert len(configs) == 1 and f"{prefix}_one" in configs[0]["tables"]
    finally:
        connector.stop()


def test_record_key_from_the_primary_key_when_asked(
    db: Any, run_task: Any, config_for: Any
) -> None:
    from kconnect_sdk import Schema

    table = db.table("pk")
    db.execute(
        f"CREATE TABLE {table} (region VARCHAR(10) NOT NULL, num INT NOT NULL, "
        "name VARCHAR(20), PRIMARY KEY (region, num))"
    )
    db.execute(f"INSERT INTO {table} VALUES (?, ?, ?)", ("eu", 7, "x"))
    base = {"mode": "bulk", "table.whitelist": table, "topic.prefix": "pk-"}
    (plain,) = run_task(config_for(db, **base)).drain(1)
    assert plain.key is None and plain.key_schema is None  # Confluent's default
    (keyed,) = run_task(config_for(db, **base, **{"record.key.mode": "primary_key"})).drain(1)
    # What ValueToKey(fields=region,num) would give: an unnamed struct of those fields.
    assert [(f.name, f.schema) for f in keyed.key_schema.fields] == [
        ("region", Schema.STRING),
        ("num", Schema.INT32),
    ]
    assert keyed.key_schema.name is None
    assert keyed.key.to_dict() == {"region": "eu", "num": 7}


@pytest.fixture
def host_in_new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The worker's host clock set to a zone behind UTC (naive datetimes mean UTC to the SDK,
    never the host's local time)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("mode", ["timestamp", "timestamp+incrementing"])
def test_timestamp_bounds_do_not_depend_on_the_host_time_zone(
    mode: str, db: Any, run_task: Any, config_for: Any, host_in_new_york: None
) -> None:
    table = _ts_table(db, "tz")
    db.execute(f"INSERT INTO {table} (name, modified) VALUES (?, ?)", ("a", "2024-01-01 10:00:00"))
    props = config_for(
        db,
        **{
            "mode": mode,
            "incrementing.column.name": "id",
            "timestamp.column.name": "modified",
            "table.whitelist": table,
            "topic.prefix": "t-",
        },
    )
    runner = run_task(props)
    assert _ids(runner.drain(1)) == [1]
    # An hour later in UTC, but before 10:00 New York time: must still come.
    db.execute(f"INSERT INTO {table} (name, modified) VALUES (?, ?)", ("b", "2024-01-01 11:00:00"))
    assert _ids(runner.drain(1)) == [2]


@pytest.mark.parametrize("db", ["postgres", "mariadb"], indirect=True)
def test_timestamp_mode_coalesces_an_instant_and_a_wall_clock_column(
    db: Any, run_task: Any, config_for: Any
) -> None:
    """COALESCE(instant, wall clock) in timestamp mode, read a row at a time: each row's
    timestamp is compared with the next one's, whichever column it comes from."""
    table = db.table("mixed")
    instant = "TIMESTAMPTZ" if db.kind == "postgres" else "TIMESTAMP(6)"
    db.execute(f"CREATE TABLE {table} ({db.pk}, changed {instant} NULL, created {db.ts} NOT NULL)")
    db.executemany(
        f"INSERT INTO {table} (changed, created) VALUES (?, ?)",
        [
            (None, "2024-01-01 10:00:00"),
            (
                "2024-01-01 11:00:00+00:00" if db.kind == "postgres" else "2024-01-01 11:00:00",
                "2024-01-01 09:00:00",
            ),
            (None, "2024-01-01 12:00:00"),
        ],
    )
    props = config_for(
        db,
        **{
            "mode": "timestamp",
            "timestamp.column.name": "changed,created",
            "table.whitelist": table,
            "topic.prefix": "t-",
            "batch.max.rows": "1",
            "validate.non.null": "false",
        },
    )
    runner = run_task(props)
    got = runner.drain(3)
    assert _ids(got) == [1, 2, 3]
    assert [r.source_offset["timestamp"] for r in got] == [
        1704103200000,
        1704106800000,
        1704110400000,
    ]
