"""Volume and crashes: a snapshot then streaming under concurrent writes, and kill -9 of the worker.

CI sizes: 20,000 snapshot rows and 300 concurrent transactions (the benchmark runs
1,000,000 rows); the crash test kills the worker process twice while a writer runs.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import Db, base_config, payload, read_topic, start_task, wait_streaming

pytestmark = pytest.mark.integration

SNAPSHOT_ROWS = 20_000


class Writer(threading.Thread):
    """Random inserts, updates and deletes in small transactions; remembers the order per key."""

    def __init__(
        self, server: Any, db: str, transactions: int, first_id: int, seed: int = 7
    ) -> None:
        super().__init__(daemon=True)
        self.conn = server.connect(autocommit=True, database=db)
        self.transactions = transactions
        self.next_id = first_id
        self.live: list[int] = []
        self.expected: dict[int, list[tuple[str, int | None]]] = {}
        self.rng = random.Random(seed)
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.conn.cursor() as cur:
                for _ in range(self.transactions):
                    cur.execute("BEGIN")
                    for _ in range(self.rng.randint(1, 5)):
                        action = self.rng.random()
                        if action < 0.5 or not self.live:
                            key, self.next_id = self.next_id, self.next_id + 1
                            v = self.rng.randint(0, 10**6)
                            cur.execute("INSERT INTO t VALUES (%s, %s)", (key, v))
                            self.live.append(key)
                            self.expected.setdefault(key, []).append(("c", v))
                        elif action < 0.8:
                            key = self.rng.choice(self.live)
                            v = self.rng.randint(0, 10**6)
                            cur.execute("UPDATE t SET v = %s WHERE id = %s", (v, key))
                            self.expected.setdefault(key, []).append(("u", v))
                        else:
                            key = self.live.pop(self.rng.randrange(len(self.live)))
                            cur.execute("DELETE FROM t WHERE id = %s", (key,))
                            self.expected.setdefault(key, []).append(("d", None))
                    cur.execute("COMMIT")
                    time.sleep(0.002)
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()
            self.conn.close()


def _event(value: dict[str, Any] | None) -> tuple[str, int | None] | None:
    if value is None:
        return None  # tombstone
    row = value["after"] if value["op"] != "d" else value["before"]
    return value["op"], row["v"] if value["op"] != "d" else None


def test_snapshot_then_concurrent_writes_arrive_in_order(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for first in range(0, SNAPSHOT_ROWS, 1000):
        mdb.sql(
            "INSERT INTO t VALUES " + ",".join(f"({i}, {i})" for i in range(first, first + 1000))
        )
    during = Writer(kc_mariadb, mdb.name, 200, SNAPSHOT_ROWS)
    after = Writer(kc_mariadb, mdb.name, 200, 10 * SNAPSHOT_ROWS, seed=8)
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka, **{"max.batch.size": "4096"}))
    per_key: dict[int, list[Any]] = {}

    def take(records: list[Any]) -> None:
        for record in records:
            per_key.setdefault(record.key.to_dict()["id"], []).append(payload(record))

    try:
        during.start()  # writes while the snapshot is being taken
        take(wait_streaming(task, timeout=60))
        after.start()  # and once the task streams
        after.join(60)
        during.join(60)
        mdb.sql("INSERT INTO t VALUES (-1, -1)")  # a marker: once it is in, everything is
        deadline = time.monotonic() + 60
        while -1 not in per_key and time.monotonic() < deadline:
            take(task.poll() or [])
    finally:
        task.stop()
    assert during.error is None and after.error is None
    final = dict(mdb.query("SELECT id, v FROM t"))
    for key in range(SNAPSHOT_ROWS):
        assert per_key.get(key), f"snapshot row {key} missing"
    for writer in (during, after):
        for key, ops in writer.expected.items():
            events = [_event(p) for p in per_key.get(key, [])]
            changes = [e for e in events if e is not None and e[0] != "r"]
            # Changes the snapshot already saw are not streamed again; the rest come in order.
            assert changes == ops[len(ops) - len(changes) :], f"key {key}: {changes} vs {ops}"
            if writer is after:
                assert changes == ops, f"key {key}: {changes} vs {ops}"
            state = [e for e in events if e is not None]
            if key in final:
                assert state and state[-1][1] == final[key], (
                    f"key {key}: {events} vs final {final[key]}"
                )
            elif events:
                assert events[-1] is None, f"key {key}: deleted, but its last event is {events[-1]}"


def _props(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


def _start_worker(tmp_path: Path, kafka: str, connector: dict[str, str]) -> subprocess.Popen[bytes]:
    worker = _props(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": kafka,
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "offset.flush.interval.ms": "100",
            "listeners": "",
        },
    )
    conn = _props(tmp_path / "mysql.properties", connector)
    kconnect = Path(sys.executable).with_name("kconnect")
    with (tmp_path / "worker.log").open("ab") as log:  # the child keeps its own descriptor
        return subprocess.Popen(
            [str(kconnect), "standalone", str(worker), str(conn)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


def test_kill_9_loses_nothing(kc_mariadb: Any, kc_kafka: str, mdb: Db, tmp_path: Path) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    connector = {
        **base_config(kc_mariadb, mdb.name, kc_kafka),
        "name": f"crash-{mdb.name}",
        "topic.prefix": f"crash{mdb.name}",
    }
    topic = f"crash{mdb.name}.{mdb.name}.t"
    writer = Writer(kc_mariadb, mdb.name, 400, 1, seed=11)
    proc = _start_worker(tmp_path, kc_kafka, connector)
    try:
        deadline = time.monotonic() + 60
        log_file = tmp_path / "worker.log"
        while "streaming from binlog" not in log_file.read_text(errors="replace"):
            assert time.monotonic() < deadline, log_file.read_text(errors="replace")[-2000:]
            time.sleep(0.1)
        writer.start()
        for _ in range(2):
            time.sleep(random.uniform(1.0, 2.5))
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            proc = _start_worker(tmp_path, kc_kafka, connector)
        writer.join(120)
        assert writer.error is None
        expected = sum(
            len(ops) + sum(1 for op, _ in ops if op == "d") for ops in writer.expected.values()
        )
        messages = read_topic(kc_kafka, topic, expected, timeout=90)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    per_key: dict[int, list[Any]] = {}
    for key, value in messages:
        per_key.setdefault(json.loads(key)["payload"]["id"], []).append(
            _event(json.loads(value)["payload"]) if value else None
        )
    log = (tmp_path / "worker.log").read_text(errors="replace")[-3000:]
    for key, ops in writer.expected.items():
        events = [e for e in per_key.get(key, []) if e is not None]
        # Nothing lost: the expected changes appear in order (a replay after a crash may
        # repeat a stretch, never skip one).
        it = iter(events)
        assert all(op in it for op in ops), f"key {key}: {events} lacks {ops}\n{log}"
