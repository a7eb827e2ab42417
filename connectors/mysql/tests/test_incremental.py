"""Incremental snapshots started by an ``execute-snapshot`` row of the signaling table."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from typing import Any

import pytest
from kconnect_testkit import InMemoryOffsetStore

from .conftest import Db, base_config, payload, start_task, wait_streaming

pytestmark = pytest.mark.integration

SIGNAL = "CREATE TABLE debezium_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL)"


def _props(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> dict[str, str]:
    return base_config(
        kc_mariadb,
        mdb.name,
        kc_kafka,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": f"{mdb.name}.debezium_signal",
            "incremental.snapshot.chunk.size": "20",
        },
    )


def _execute(mdb: Db, *tables: str) -> None:
    data = json.dumps(
        {"data-collections": [f"{mdb.name}.{t}" for t in tables], "type": "incremental"}
    )
    mdb.sql(f"INSERT INTO debezium_signal VALUES ('ad-hoc-1', 'execute-snapshot', '{data}')")


def _poll_until(task: Any, done: Any, timeout: float = 60.0) -> list[Any]:
    records: list[Any] = []
    deadline = time.monotonic() + timeout
    while not done(records) and time.monotonic() < deadline:
        records.extend(task.poll() or [])
    return records


def test_execute_snapshot_reads_every_row_in_chunks(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql(
        SIGNAL,
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
        "CREATE TABLE other (id INT PRIMARY KEY)",
        "INSERT INTO other VALUES (1)",
    )
    mdb.sql("INSERT INTO t VALUES " + ",".join(f"({i}, 'v{i}')" for i in range(1, 46)))
    task = start_task(_props(kc_mariadb, kc_kafka, mdb))
    topic = f"dbserver1.{mdb.name}.t"
    try:
        assert wait_streaming(task) == []  # no_data: nothing read yet
        _execute(mdb, "t")
        records = _poll_until(task, lambda got: sum(1 for r in got if r.topic == topic) >= 45)
        mdb.sql("UPDATE t SET v = 'after' WHERE id = 7")
        records += _poll_until(task, lambda got: any(r.topic == topic for r in got), 20)
    finally:
        task.stop()
    rows = [r for r in records if r.topic == topic]
    reads = [payload(r) for r in rows[:45]]
    assert [p["op"] for p in reads] == ["r"] * 45
    assert [p["after"] for p in reads] == [{"id": i, "v": f"v{i}"} for i in range(1, 46)]
    assert {p["source"]["snapshot"] for p in reads} == {"incremental"}
    assert [r.key.to_dict() for r in rows[:3]] == [{"id": 1}, {"id": 2}, {"id": 3}]
    # Only the asked table; the signaling rows (the request, then an open and a close row
    # per chunk: 3 chunks and the empty one that ends the table) are ordinary changes.
    assert not any(r.topic.endswith(".other") for r in records)
    signals = [payload(r)["after"]["type"] for r in records if r.topic.endswith("debezium_signal")]
    assert signals[0] == "execute-snapshot"
    assert signals[1:] == ["snapshot-window-open", "snapshot-window-close"] * 4
    last = payload(rows[-1])
    assert last["op"] == "u" and last["after"] == {"id": 7, "v": "after"}


def test_concurrent_changes_win_over_the_chunks(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, caplog: pytest.LogCaptureFixture
) -> None:
    """Updates and deletes while the snapshot runs: no chunk row overrides a newer change."""
    caplog.set_level(logging.INFO, logger="kconnect_connector_mysql")
    mdb.sql(SIGNAL, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    mdb.sql("INSERT INTO t VALUES " + ",".join(f"({i}, 0)" for i in range(1, 401)))
    task = start_task(_props(kc_mariadb, kc_kafka, mdb))
    stop = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        conn = kc_mariadb.connect(autocommit=True, database=mdb.name)
        rng = random.Random(5)
        try:
            with conn.cursor() as cur:
                n = 1
                while not stop.is_set():
                    key = rng.randint(1, 400)
                    if rng.random() < 0.1:
                        cur.execute("DELETE FROM t WHERE id = %s", (key,))
                    else:
                        cur.execute("UPDATE t SET v = %s WHERE id = %s", (n, key))
                    n += 1
                    time.sleep(0.001)
        except BaseException as exc:
            errors.append(exc)
        finally:
            conn.close()

    topic = f"dbserver1.{mdb.name}.t"
    writer = threading.Thread(target=write, daemon=True)
    try:
        wait_streaming(task)
        writer.start()
        _execute(mdb, "t")
        records = _poll_until(task, lambda got: "incremental snapshot completed" in caplog.text, 90)
        stop.set()
        writer.join(10)
        mdb.sql("INSERT INTO t VALUES (100000, -1)")  # the end marker
        records += _poll_until(
            task,
            lambda got: any(r.topic == topic and r.key.to_dict() == {"id": 100000} for r in got),
        )
    finally:
        stop.set()
        task.stop()
    assert errors == []
    final = dict(mdb.query("SELECT id, v FROM t"))
    state: dict[int, Any] = {}
    reads = 0
    for record in records:
        if record.topic != topic or record.value is None:
            continue
        p = payload(record)
        key = record.key.to_dict()["id"]
        reads += p["op"] == "r"
        state[key] = None if p["op"] == "d" else p["after"]["v"]
    assert reads > 0
    # The last event of every key gives the table's final content.
    assert {k: v for k, v in state.items() if v is not None} == final


def test_a_restart_resumes_the_incremental_snapshot_after_the_last_emitted_chunk(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql(SIGNAL, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    mdb.sql("INSERT INTO t VALUES " + ",".join(f"({i}, 'v{i}')" for i in range(1, 101)))
    props = _props(kc_mariadb, kc_kafka, mdb)
    topic = f"dbserver1.{mdb.name}.t"
    store = InMemoryOffsetStore()
    task = start_task(props, store)
    try:
        wait_streaming(task)
        _execute(mdb, "t")
        first = _poll_until(task, lambda got: sum(1 for r in got if r.topic == topic) >= 40)
    finally:
        task.stop()
    # Committed: the first two chunks (keys 1-40) and whatever came with them.
    reads = [r for r in first if r.topic == topic]
    upto = first.index(reads[39]) + 1
    store.commit_records(first[:upto])
    state = json.loads(first[upto - 1].source_offset["kc_incremental_snapshot"])
    assert state["table"] == [mdb.name, "t"] and state["last_key"] == [40]
    again = start_task(props, store)
    try:
        rest = _poll_until(again, lambda got: sum(1 for r in got if r.topic == topic) >= 60)
        rest += _poll_until(again, lambda got: False, 1.0)
    finally:
        again.stop()
    ids = [r.key.to_dict()["id"] for r in rest if r.topic == topic]
    # The third chunk on: nothing of the committed chunks again, nothing skipped.
    assert ids == list(range(41, 101))
    assert {payload(r)["source"]["snapshot"] for r in rest if r.topic == topic} == {"incremental"}
    # Once done, offsets no longer carry the snapshot's state.
    assert "kc_incremental_snapshot" not in (rest[-1].source_offset or {})
