"""GTIDs: the sets kept in offsets, and resuming from them instead of a binlog file and position.

The machine has MariaDB only: resuming by MariaDB GTID runs against the real server; the MySQL
GTID-set code (parsing, adding, merging with the server's sets) is checked here without one.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest
from kconnect_connector_mysql._gtid import (
    MariaDbGtidSet,
    MySqlGtidSet,
    is_mariadb_gtid_text,
    mariadb_purged_before,
    restart_set,
)
from kconnect_sdk import ConnectError
from kconnect_testkit import InMemoryOffsetStore

from .conftest import Db, base_config, drain, payload, quiet, start_task, wait_streaming

U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
U2 = "8f3c2b8a-0000-11e1-9e33-c80aa9429562"


# --- MySQL GTID sets (no MySQL server here: pure code) ---------------------------------------


def test_mysql_gtid_set_parses_merges_and_prints_as_mysql() -> None:
    text = f"{U2}:1-3,\n{U1.upper()}:1-5:7:6:10-12"
    gtids = MySqlGtidSet.parse(text)
    # Adjacent and overlapping intervals merge; uuids are lower-case and sorted.
    assert str(gtids) == f"{U1}:1-7:10-12,{U2}:1-3"
    gtids.add(f"{U1}:8")
    gtids.add(f"{U1}:9")
    gtids.add(f"{U2}:5")
    assert str(gtids) == f"{U1}:1-12,{U2}:1-3:5"
    assert gtids.contains(f"{U2}:5") and not gtids.contains(f"{U2}:4")
    assert MySqlGtidSet.parse(f"{U1}:2-4").is_contained_within(gtids)
    assert not MySqlGtidSet.parse(f"{U2}:3-4").is_contained_within(gtids)
    assert not is_mariadb_gtid_text(str(gtids)) and is_mariadb_gtid_text("0-1-5,1-2-3")


@pytest.mark.parametrize("bad", ["nouuid", f"{U1}:x-3", f"{U1}:5-2", f"{U1}:0"])
def test_mysql_gtid_set_rejects_bad_text(bad: str) -> None:
    with pytest.raises(ValueError, match=r"GTID|interval"):
        MySqlGtidSet.parse(bad)


def test_mysql_restart_set_is_debeziums_filter_gtid_set() -> None:
    u3 = "11111111-2222-3333-4444-555555555555"
    # The offset knows U1 and U2; the server also has u3 (a new source) and purged part of u3.
    offset = f"{U1}:1-10,{U2}:1-3"
    available = f"{U1}:1-20,{U2}:1-9,{u3}:1-50"
    purged = f"{u3}:1-7"
    merged = restart_set(offset, available, purged, None)
    # Known sources keep the offset's intervals; the new one starts after what was purged.
    assert str(merged) == f"{u3}:1-7,{U1}:1-10,{U2}:1-3"
    # An include filter keeps only the matching sources of the offset and the server.
    only_u1 = restart_set(offset, available, "", lambda uuid: uuid == U1)
    assert str(only_u1) == f"{U1}:1-10"


# --- MariaDB GTID lists -----------------------------------------------------------------------


def test_mariadb_gtid_set_keeps_the_last_gtid_of_each_stream() -> None:
    gtids = MariaDbGtidSet.parse("0-1-5,1-2-9,0-2-3")
    gtids.add("0-1-6")
    gtids.add("2-1-1")
    assert str(gtids) == "0-1-6,0-2-3,1-2-9,2-1-1"
    # The server takes one position per domain: the highest sequence of the domain.
    assert gtids.connect_state() == "0-1-6,1-2-9,2-1-1"
    with pytest.raises(ValueError, match="domain-server-sequence"):
        MariaDbGtidSet.parse("0-1")


def test_mariadb_restart_set_and_purged_check() -> None:
    merged = restart_set("0-1-10", "0-1-40,3-1-8", "3-1-2", None)
    # Domain 3 is new to the offset: it starts after what the oldest binlog says was purged.
    assert str(merged) == "0-1-10,3-1-2"
    assert isinstance(merged, MariaDbGtidSet)
    assert mariadb_purged_before(merged, "0-1-9,3-1-2") == []
    (lost,) = mariadb_purged_before(merged, "0-1-12")
    assert lost.startswith("domain 0 ")


# --- resuming by GTID on the real MariaDB ----------------------------------------------------


def _ident(record: Any) -> tuple[Any, ...]:
    value = payload(record)
    key = None if record.key is None else tuple(sorted(record.key.to_dict().items()))
    if value is None:
        return ("tombstone", key)
    return (value["op"], key, repr(value["after"]))


def _changes(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> tuple[dict[str, str], list[Any]]:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    props = base_config(kc_mariadb, mdb.name, kc_kafka)
    task = start_task(props)
    try:
        wait_streaming(task)
        mdb.sql(
            "BEGIN",
            "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "UPDATE t SET v = 'bb' WHERE id = 2",
            "COMMIT",
            "INSERT INTO t VALUES (4, 'd')",
            "BEGIN",
            "INSERT INTO t VALUES (5, 'e')",
            "INSERT INTO t VALUES (6, 'f')",
            "COMMIT",
        )
        everything = drain(task, 7)
        assert quiet(task, 0.3) == []
    finally:
        task.stop()
    return props, everything


@pytest.mark.integration
def test_resumes_by_gtid_without_file_and_position(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    props, everything = _changes(kc_mariadb, kc_kafka, mdb)
    assert all(
        r.source_offset and re.fullmatch(r"\d+-\d+-\d+(,\d+-\d+-\d+)*", r.source_offset["gtids"])
        for r in everything
    )
    # A rotation between the stop and the restart: the file in the offset is not the newest.
    mdb.sql("FLUSH BINARY LOGS")
    for done in (1, 2, 4, 5, 6):
        offset = dict(everything[done - 1].source_offset or {})
        # Only the GTID set (and the place inside its transaction) says where to resume.
        offset.pop("file")
        offset.pop("pos")
        store = InMemoryOffsetStore()
        store.commit_records([everything[done - 1].new_record(source_offset=offset)])
        again = start_task(props, store)
        try:
            rest = drain(again, len(everything) - done) + quiet(again, 0.3)
        finally:
            again.stop()
        assert [_ident(r) for r in rest] == [_ident(r) for r in everything[done:]], (
            f"after {done} committed"
        )
        # The resumed stream reports real binlog coordinates again.
        assert rest[-1].source_offset["file"] and rest[-1].source_offset["pos"] > 4


@pytest.mark.integration
def test_resumes_by_gtid_when_the_binlog_file_was_renamed(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    props, everything = _changes(kc_mariadb, kc_kafka, mdb)
    done = 3  # inside the first transaction: events and rows of it are skipped
    offset = dict(everything[done - 1].source_offset or {})
    assert offset["row"] == 3
    offset["file"] = "renamed-bin.000042"  # a name the server does not have
    store = InMemoryOffsetStore()
    store.commit_records([everything[done - 1].new_record(source_offset=offset)])
    again = start_task(props, store)
    try:
        rest = drain(again, len(everything) - done) + quiet(again, 0.3)
    finally:
        again.stop()
    assert [_ident(r) for r in rest] == [_ident(r) for r in everything[done:]]


@pytest.mark.integration
def test_gtid_source_filter_skips_rows_of_other_domains(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"gtid.source.includes": r"0-\d+"})
    task = start_task(props)
    try:
        wait_streaming(task)
        mdb.sql(
            "INSERT INTO t VALUES (1)",
            "SET SESSION gtid_domain_id = 7",
            "INSERT INTO t VALUES (2)",
            "SET SESSION gtid_domain_id = 0",
            "INSERT INTO t VALUES (3)",
        )
        records = drain(task, 2) + quiet(task, 0.5)
    finally:
        task.stop()
    assert [payload(r)["after"]["id"] for r in records] == [1, 3]


@pytest.mark.integration
def test_bad_gtid_set_in_offset_is_a_clear_error(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    props, everything = _changes(kc_mariadb, kc_kafka, mdb)
    offset = dict(everything[-1].source_offset or {})
    offset["gtids"] = "0-1-x"
    store = InMemoryOffsetStore()
    store.commit_records([everything[-1].new_record(source_offset=offset)])
    with pytest.raises(ConnectError, match=r"GTID set '0-1-x' cannot be read.*reset"):
        start_task(props, store)


@pytest.mark.integration
def test_snapshot_without_locks_resumes_by_gtid_with_no_gap_and_no_overlap(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    """snapshot.locking.mode=none under concurrent inserts, then a restart right after it.

    The snapshot's offset carries the GTID state of MariaDB's consistent-snapshot binlog
    position, so resuming by GTID streams exactly the rows the snapshot did not see.
    """
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    mdb.sql("INSERT INTO t VALUES " + ",".join(f"({i})" for i in range(1, 5001)))
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"snapshot.locking.mode": "none"})
    stop = threading.Event()

    def write() -> None:
        conn = kc_mariadb.connect(autocommit=True, database=mdb.name)
        try:
            with conn.cursor() as cur:
                n = 10_000
                while not stop.is_set():
                    cur.execute("INSERT INTO t VALUES (%s)", (n,))
                    n += 1
        finally:
            conn.close()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    task = start_task(props)
    snapshot: list[Any] = []
    try:
        deadline = time.monotonic() + 60
        while not any(payload(r)["source"]["snapshot"] == "last" for r in snapshot):
            assert time.monotonic() < deadline, "the snapshot did not end"
            snapshot += [r for r in task.poll() or [] if payload(r)["op"] == "r"]
    finally:
        task.stop()
    stop.set()
    writer.join(10)
    offset = snapshot[-1].source_offset or {}
    ((state,),) = mdb.query(f"SELECT BINLOG_GTID_POS('{offset['file']}', {offset['pos']})")
    assert offset["gtids"] == state
    mdb.sql("INSERT INTO t VALUES (-1)")  # the end marker
    store = InMemoryOffsetStore()
    store.commit_records(snapshot)
    again = start_task(props, store)
    streamed: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while -1 not in streamed:
            assert time.monotonic() < deadline, f"the marker did not come ({len(streamed)} rows)"
            streamed += [r.key.to_dict()["id"] for r in again.poll() or []]
    finally:
        again.stop()
    seen = [r.key.to_dict()["id"] for r in snapshot]
    everything = {row[0] for row in mdb.query("SELECT id FROM t")}
    assert not set(seen) & set(streamed), "rows both in the snapshot and streamed after it"
    assert set(seen) | set(streamed) == everything
