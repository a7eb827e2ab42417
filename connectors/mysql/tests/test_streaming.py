"""Streaming from the binlog: offsets and restarts, key changes, truncate, DDL, transactions, GTIDs."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from kconnect_testkit import InMemoryOffsetStore

from .conftest import Db, base_config, drain, payload, quiet, start_task, wait_streaming

# Every test on both binlog decoders (compiled and generated Python): see conftest.
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("decoder_path")]


def _ident(record: Any) -> tuple[Any, ...]:
    value = payload(record)
    key = None if record.key is None else tuple(sorted(record.key.to_dict().items()))
    if value is None:
        return ("tombstone", key)
    return (value["op"], key, repr(value["before"]), repr(value["after"]))


def test_offsets_are_debeziums_and_restart_skips_what_was_emitted(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    props = base_config(kc_mariadb, mdb.name, kc_kafka)
    task = start_task(props)
    try:
        assert wait_streaming(task) == []  # an empty table: nothing to snapshot
        mdb.sql(
            "BEGIN",
            "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "UPDATE t SET v = 'bb' WHERE id = 2",
            "DELETE FROM t WHERE id = 3",
            "INSERT INTO t VALUES (4, 'd')",
            "COMMIT",
            "INSERT INTO t VALUES (5, 'e')",
        )
        everything = drain(task, 8)  # 3 c, u, d + tombstone, c, then c
        assert quiet(task, 0.5) == []
    finally:
        task.stop()
    assert [payload(r)["op"] if r.value else None for r in everything] == [
        "c",
        "c",
        "c",
        "u",
        "d",
        None,
        "c",
        "c",
    ]
    first = everything[0].source_offset
    assert first is not None and everything[0].source_partition == {"server": "dbserver1"}
    # Inside the transaction: its start position, events already done, rows already done.
    assert set(first) >= {"file", "pos", "row", "event", "ts_sec", "server_id"}
    assert first["row"] == 1 and first["server_id"] == kc_mariadb.server_id
    assert everything[2].source_offset["row"] == 3
    assert everything[3].source_offset["event"] > first["event"]
    last = everything[-1].source_offset
    assert last["pos"] > first["pos"]
    source = payload(everything[0])["source"]
    assert source["connector"] == "mysql" and source["name"] == "dbserver1"
    assert source["db"] == mdb.name and source["table"] == "t" and source["row"] == 0
    assert source["server_id"] == kc_mariadb.server_id and source["file"] == first["file"]
    assert source["gtid"] and source["gtid"].count("-") == 2  # MariaDB GTID domain-server-seq
    assert [payload(r)["source"]["row"] for r in everything[:3]] == [0, 1, 2]

    # Not 5: a tombstone shares its delete's offset (as in Debezium), so a commit between the
    # two cannot be expressed; the runtime commits after the batch anyway.
    for done in (1, 2, 3, 4, 6, 7):
        store = InMemoryOffsetStore()
        store.commit_records(everything[:done])
        again = start_task(props, store)
        try:
            rest = drain(again, len(everything) - done) if done < len(everything) else []
            rest += quiet(again, 0.3)
        finally:
            again.stop()
        assert [_ident(r) for r in rest] == [_ident(r) for r in everything[done:]], (
            f"after {done} committed"
        )


def test_no_advice_to_set_binlog_row_metadata(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, caplog: pytest.LogCaptureFixture
) -> None:
    """mysql-replication warns at every binlog connection that binlog_row_metadata should
    be FULL; the connector names columns from its schema history, as Debezium does, so an
    operator is not told to change a server setting the connector does not need."""
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    caplog.set_level(logging.INFO)
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        wait_streaming(task)
        mdb.sql("INSERT INTO t VALUES (1)")
        (created,) = drain(task, 1)
    finally:
        task.stop()
    assert payload(created)["after"] == {"id": 1}
    assert not [r for r in caplog.records if "BINLOG_ROW_METADATA" in r.getMessage()]


def test_primary_key_change_is_delete_and_create_with_headers(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO t VALUES (1, 'a')")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        drain(task, 1)
        wait_streaming(task)
        mdb.sql("UPDATE t SET id = 7 WHERE id = 1")
        delete, tombstone, create = drain(task, 3)
    finally:
        task.stop()
    assert payload(delete)["op"] == "d" and delete.key.to_dict() == {"id": 1}
    assert tombstone.value is None and tombstone.key.to_dict() == {"id": 1}
    assert payload(create)["op"] == "c" and create.key.to_dict() == {"id": 7}
    (newkey,) = delete.headers.all_with_name("__debezium.newkey")
    assert newkey.value.to_dict() == {"id": 7}
    (oldkey,) = create.headers.all_with_name("__debezium.oldkey")
    assert oldkey.value.to_dict() == {"id": 1}


def test_truncate_only_when_not_skipped(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka, **{"skipped.operations": "none"}))
    try:
        wait_streaming(task)
        mdb.sql("INSERT INTO t VALUES (1)", "TRUNCATE TABLE t", "INSERT INTO t VALUES (2)")
        records = drain(task, 3)
    finally:
        task.stop()
    ops = [payload(r)["op"] for r in records]
    assert ops == ["c", "t", "c"]
    assert records[1].key is None and payload(records[1])["before"] is None


def test_ddl_changes_later_events_and_replays_from_history(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(5))", "INSERT INTO t VALUES (1, 'x')")
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"include.schema.changes": "true"})
    task = start_task(props)
    try:
        # The snapshot's schema change events (as Debezium's: SET, DROP TABLE IF EXISTS,
        # DROP DATABASE IF EXISTS, CREATE DATABASE, USE, CREATE TABLE), then the row.
        first = drain(task, 7)
        wait_streaming(task)
        collation = mdb.query(
            "SELECT default_collation_name FROM information_schema.schemata"
            f" WHERE schema_name = '{mdb.name}'"
        )[0][0]
        ddl = [payload(r)["ddl"].split("(")[0].strip() for r in first[:6]]
        assert [r.topic for r in first] == ["dbserver1"] * 6 + [f"dbserver1.{mdb.name}.t"]
        assert ddl[1:5] == [
            f"DROP TABLE IF EXISTS `{mdb.name}`.`t`",
            f"DROP DATABASE IF EXISTS `{mdb.name}`",
            f"CREATE DATABASE `{mdb.name}` CHARSET utf8mb4 COLLATE {collation}",
            f"USE `{mdb.name}`",
        ]
        assert ddl[0].startswith("SET character_set_server=") and ddl[5] == "CREATE TABLE `t`"
        assert payload(first[5])["tableChanges"][0]["type"] == "CREATE"
        # New DDL is described from the live database when the connector meets it (see the
        # README), so each step waits for its events before the next DDL runs.
        steps = [
            (
                [
                    "INSERT INTO t VALUES (2, 'y')",
                    "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 7",
                ],
                2,
            ),
            (["INSERT INTO t VALUES (3, 'z', 8)", "ALTER TABLE t DROP COLUMN a"], 2),
            (["ALTER TABLE t MODIFY b BIGINT NOT NULL DEFAULT 7"], 1),
            (["INSERT INTO t VALUES (4, 9)", "RENAME TABLE t TO t2"], 2),
            (["INSERT INTO t2 VALUES (5, 10)", "CREATE TABLE t3 (k VARCHAR(3) PRIMARY KEY)"], 2),
            (["INSERT INTO t3 VALUES ('k')", "DROP TABLE t3"], 2),
        ]
        records = []
        for statements, count in steps:
            mdb.sql(*statements)
            records += drain(task, count)
    finally:
        task.stop()
    data = [r for r in records if r.topic != "dbserver1"]
    changes = [r for r in records if r.topic == "dbserver1"]
    assert [payload(r)["ddl"] for r in changes] == [
        "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 7",
        "ALTER TABLE t DROP COLUMN a",
        "ALTER TABLE t MODIFY b BIGINT NOT NULL DEFAULT 7",
        "RENAME TABLE t TO t2",
        "CREATE TABLE t3 (k VARCHAR(3) PRIMARY KEY)",
        "DROP TABLE `t3` /* generated by server */",  # the server rewrites DROP TABLE in the binlog
    ]
    # Debezium reports a renamed table as an ALTER of its new id (previousId is in the history).
    assert [c["type"] for c in payload(changes[3])["tableChanges"]] == ["ALTER"]
    assert payload(changes[3])["tableChanges"][0]["id"] == f'"{mdb.name}"."t2"'
    afters = [(r.topic.rsplit(".", 1)[1], payload(r)["after"]) for r in data]
    assert afters == [
        ("t", {"id": 2, "a": "y"}),
        ("t", {"id": 3, "a": "z", "b": 8}),
        ("t", {"id": 4, "b": 9}),
        ("t2", {"id": 5, "b": 10}),
        ("t3", {"k": "k"}),
    ]
    b_schema = data[2].value_schema.field("after").schema.field("b").schema
    assert b_schema.type.value == "int64" and b_schema.default == 7

    # Restart from the offset of the first row after the snapshot: the schemas come from the
    # history topic, not from today's database (where t is gone and t2 has no column a).
    store = InMemoryOffsetStore()
    store.commit_records(first)
    again = start_task(props, store)
    try:
        replayed = drain(again, 11)
    finally:
        again.stop()
    assert [
        (r.topic.rsplit(".", 1)[1], payload(r)["after"]) for r in replayed if r.topic != "dbserver1"
    ] == afters


def test_transaction_metadata(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)", "CREATE TABLE u (id INT PRIMARY KEY)")
    task = start_task(
        base_config(kc_mariadb, mdb.name, kc_kafka, **{"provide.transaction.metadata": "true"})
    )
    try:
        wait_streaming(task)
        mdb.sql("BEGIN", "INSERT INTO t VALUES (1), (2)", "INSERT INTO u VALUES (1)", "COMMIT")
        begin, c1, c2, c3, end = drain(task, 5)
    finally:
        task.stop()
    assert begin.topic == end.topic == "dbserver1.transaction"
    b, e = begin.value.to_dict(), end.value.to_dict()
    assert b["status"] == "BEGIN" and b["event_count"] is None
    assert e["status"] == "END" and e["event_count"] == 3 and e["id"] == b["id"]
    assert e["data_collections"] == [
        {"data_collection": f"{mdb.name}.t", "event_count": 2},
        {"data_collection": f"{mdb.name}.u", "event_count": 1},
    ]
    blocks = [payload(r)["transaction"] for r in (c1, c2, c3)]
    assert [(x["total_order"], x["data_collection_order"]) for x in blocks] == [
        (1, 1),
        (2, 2),
        (3, 1),
    ]
    assert {x["id"] for x in blocks} == {b["id"]}
    assert b["id"] == payload(c1)["source"]["gtid"]


def test_heartbeats(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    task = start_task(
        base_config(kc_mariadb, mdb.name, kc_kafka, **{"heartbeat.interval.ms": "100"})
    )
    records: list[Any] = []
    try:
        # The snapshot comes first (its schema statements too); the heartbeats follow it.
        # On an idle server a beat rides on the server's own binlog heartbeat (once a
        # second), so two beats take a second or more; the deadline is for a loaded machine.
        deadline = time.monotonic() + 20
        while (
            time.monotonic() < deadline
            and sum(r.topic == "__debezium-heartbeat.dbserver1" for r in records) < 2
        ):
            records.extend(task.poll() or [])
    finally:
        task.stop()
    beats = [r for r in records if r.topic == "__debezium-heartbeat.dbserver1"]
    assert len(beats) >= 2, "no heartbeats after the snapshot at heartbeat.interval.ms=100"
    assert beats[0].key.to_dict() == {"serverName": "dbserver1"}
    assert beats[0].value_schema.name == "io.debezium.connector.common.Heartbeat"
