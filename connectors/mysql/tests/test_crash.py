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

from .conftest import Db, base_config, payload, start_task, wait_streaming

pytestmark = pytest.mark.integration

SNAPSHOT_ROWS = 20_000


class Writer(threading.Thread):
    """Random inserts, updates and deletes in small transactions; remembers the order per key."""

    def __init__(
        self,
        server: Any,
        db: str,
        transactions: int,
        first_id: int,
        seed: int = 7,
        pause: float = 0.002,
    ) -> None:
        super().__init__(daemon=True)
        self.pause = pause
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
                    time.sleep(self.pause)
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


def _read_until(kafka: str, topic: str, done: Any, timeout: float) -> list[tuple[Any, Any]]:
    """(key, value) of every message of ``topic`` from the start, until ``done(messages)``."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"crash-{time.time_ns()}",
            "enable.auto.commit": False,
        }
    )
    out: list[tuple[Any, Any]] = []
    try:
        deadline = time.monotonic() + timeout
        assigned = False
        while time.monotonic() < deadline and not done(out):
            if not assigned:
                meta = consumer.list_topics(timeout=5).topics.get(topic)
                if meta is None or meta.error is not None:
                    time.sleep(0.2)
                    continue
                consumer.assign(
                    [TopicPartition(topic, p, OFFSET_BEGINNING) for p in meta.partitions]
                )
                assigned = True
            for message in consumer.consume(1000, 0.3):
                if message.error() is None:
                    key, value = message.key(), message.value()
                    out.append(
                        (
                            json.loads(key)["payload"] if key else None,
                            json.loads(value)["payload"] if value else None,
                        )
                    )
        return out
    finally:
        consumer.close()


def _seq(gtid: str | None, domain: str = "0") -> int:
    """The sequence number of a MariaDB GTID (or of ``domain`` in a GTID list); 0 if absent."""
    for part in (gtid or "").split(","):
        d, _, rest = part.strip().partition("-")
        if d == domain and rest:
            return int(rest.rsplit("-", 1)[1])
    return 0


def test_kill_9_loses_nothing_and_repeats_only_the_transactions_in_flight(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, tmp_path: Path
) -> None:
    """kill -9 of the worker at seeded random points while multi-row transactions stream.

    Nothing is lost, and what is delivered twice is only what followed the offset the worker
    had committed: the transaction in flight then (from where its committed offset points),
    and the transactions after it that were emitted before the kill. Bounded: about 30-45 s.
    """
    seed = int(os.environ.get("KC_CRASH_SEED", "11"))
    rng = random.Random(seed)
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    connector = {
        **base_config(kc_mariadb, mdb.name, kc_kafka),
        "name": f"crash-{mdb.name}",
        "topic.prefix": f"crash{mdb.name}",
        # One partition: what a kill -9 drops from the producer is then a tail of what was
        # sent, so the repeats within a transaction are one stretch. With several partitions
        # one partition's batch can be lost while a later event on another arrived.
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    topic = f"crash{mdb.name}.{mdb.name}.t"
    offsets = tmp_path / "offsets.json"
    # 20 ms between transactions: the writer runs over 20 s, so the second kill also lands
    # while transactions stream (at 2 ms the writer was often done by then).
    writer = Writer(kc_mariadb, mdb.name, 1000, 1, seed=seed, pause=0.02)
    proc = _start_worker(tmp_path, kc_kafka, connector)
    log_file = tmp_path / "worker.log"

    def wait_streams(times: int) -> None:
        deadline = time.monotonic() + 60
        while log_file.read_text(errors="replace").count("streaming from binlog") < times:
            assert time.monotonic() < deadline, log_file.read_text(errors="replace")[-2000:]
            time.sleep(0.1)

    # Per kill: (GTID sequence completed at the committed offset, last sequence written).
    windows: list[tuple[int, int]] = []
    writing_at_kills: list[bool] = []
    try:
        wait_streams(1)
        writer.start()
        for kill in range(2):
            wait_streams(kill + 1)  # each kill hits a worker that streams
            time.sleep(rng.uniform(0.5, 2.0))
            writing_at_kills.append(writer.is_alive())
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            ((written,),) = mdb.query("SELECT @@GLOBAL.gtid_binlog_pos")
            committed = json.loads(offsets.read_text()) if offsets.exists() else {"offsets": []}
            gtids = [
                e["value"].get("gtids")
                for e in committed["offsets"]
                if e["key"][1] == {"server": connector["topic.prefix"]}
            ]
            windows.append((_seq(gtids[0]) if gtids else 0, _seq(str(written))))
            proc = _start_worker(tmp_path, kc_kafka, connector)
        writer.join(120)
        assert writer.error is None
        mdb.sql("INSERT INTO t VALUES (-1, -1)")  # the end marker
        messages = _read_until(
            kc_kafka,
            topic,
            lambda got: any(k == {"id": -1} and v is not None for k, v in got),
            timeout=90,
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    log = (tmp_path / "worker.log").read_text(errors="replace")[-3000:]
    per_key: dict[int, list[Any]] = {}
    for key, value in messages:
        per_key.setdefault(key["id"], []).append(_event(value) if value else None)
    for key, ops in writer.expected.items():
        events = [e for e in per_key.get(key, []) if e is not None]
        # Nothing lost: the expected changes appear in order (a replay after a crash may
        # repeat a stretch, never skip one).
        it = iter(events)
        assert all(op in it for op in ops), f"key {key}: {events} lacks {ops}\n{log}"

    # Every change event once more: which transaction (GTID) and where in it.
    seen: dict[tuple[Any, ...], int] = {}
    # Per transaction, its events in binlog order.
    order: dict[int, list[tuple[Any, ...]]] = {}
    for _key, value in messages:
        if value is None:
            continue  # tombstones share their delete's position
        src = value["source"]
        ident = (src["gtid"], src["file"], src["pos"], src["row"])
        if ident not in seen:
            order.setdefault(_seq(src["gtid"]), []).append(ident)
        seen[ident] = seen.get(ident, 0) + 1
    for idents in order.values():
        idents.sort(key=lambda i: (i[1], i[2], i[3]))
    duplicated = {ident for ident, n in seen.items() if n > 1}
    in_windows = [
        seq
        for seq in {_seq(i[0]) for i in duplicated}
        if not any(low < seq <= high for low, high in windows)
    ]
    # Nothing the committed offset covered is delivered again.
    assert in_windows == [], f"duplicates outside the in-flight windows {windows}: {in_windows}"
    for seq, idents in order.items():
        marks = [i in duplicated for i in idents]
        if any(marks):
            first, last = marks.index(True), len(marks) - 1 - marks[::-1].index(True)
            # Within a transaction the repeated events are one stretch (replay from the
            # committed event/row, up to where the kill stopped the first delivery).
            assert all(marks[first : last + 1]), f"transaction {seq}: repeated {marks}"
    # Both kills hit a worker while the writer was writing (else the test shows nothing).
    assert writing_at_kills == [True, True], windows
    repeated_txns = sorted({_seq(i[0]) for i in duplicated})
    print(
        f"seed {seed}: {len(seen)} change events, {sum(seen.values()) - len(seen)} delivered "
        f"twice, in {len(repeated_txns)} transactions; kill windows "
        f"(committed, written) {windows}"
    )
