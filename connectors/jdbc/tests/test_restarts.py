"""A real `kconnect standalone` process: clean restarts lose and repeat nothing, kill -9 loses
nothing (a crashed worker re-sends what it had not committed: at least once)."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

pytestmark = pytest.mark.integration


def _write_props(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


def _start(tmp_path: Path, worker: Path, connector: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", str(worker), str(connector)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _stop(proc: subprocess.Popen[bytes], sig: int) -> str:
    if proc.poll() is None:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    return out.decode(errors="replace")


class Topic:
    """Every record of a topic so far (one partition)."""

    def __init__(self, kafka: str, topic: str) -> None:
        self.consumer = Consumer(
            {"bootstrap.servers": kafka, "group.id": f"restart-{uuid.uuid4().hex[:6]}"}
        )
        self.consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        self.ids: list[int] = []

    def read_until(self, done: Any, timeout: float = 60.0) -> list[int]:
        deadline = time.monotonic() + timeout
        while not done(self.ids) and time.monotonic() < deadline:
            for m in self.consumer.consume(500, 0.2):
                value = m.value()
                if not m.error() and value is not None:
                    self.ids.append(json.loads(value)["id"])
        return self.ids

    def close(self) -> None:
        self.consumer.close()


def _insert(db: Any, table: str, start: int, count: int) -> None:
    db.execute(
        f"INSERT INTO {table} (id, name) SELECT g, 'row ' || g FROM generate_series(?::int, ?::int) g",
        (start, start + count - 1),
    )


def test_clean_restart_and_kill_9(jdbc_postgres: Any, kc_kafka: str, tmp_path: Path) -> None:
    db = jdbc_postgres
    table = db.table("restart")
    db.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, name TEXT NOT NULL)")
    _insert(db, table, 1, 3000)
    topic = f"r-{table}"
    worker = _write_props(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": kc_kafka,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "offset.flush.interval.ms": "200",
            "listeners": "",
        },
    )
    connector = _write_props(
        tmp_path / "jdbc.properties",
        {
            "name": f"jdbc-restart-{uuid.uuid4().hex[:6]}",
            "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
            "connection.url": db.url,
            "connection.user": db.extra["connection.user"],
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": table,
            "topic.prefix": "r-",
            "batch.max.rows": "50",
            "poll.interval.ms": "100",
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
        },
    )
    reader = Topic(kc_kafka, topic)
    try:
        # 1. A clean stop part-way through, then a restart: every row exactly once.
        proc = _start(tmp_path, worker, connector)
        reader.read_until(lambda ids: len(ids) >= 500)
        log = _stop(proc, signal.SIGTERM)
        assert proc.returncode == 0, log[-2000:]
        _insert(db, table, 3001, 500)
        proc = _start(tmp_path, worker, connector)
        ids = reader.read_until(lambda ids: len(set(ids)) >= 3500)
        time.sleep(1.0)
        ids = reader.read_until(lambda ids: False, timeout=0.5)
        assert sorted(ids) == list(range(1, 3501)), "clean restart lost or repeated rows"
        # 2. kill -9 in the middle of new rows: nothing is lost.
        _insert(db, table, 3501, 3000)
        reader.read_until(lambda ids: len(ids) >= 4000)
        _stop(proc, signal.SIGKILL)
        _insert(db, table, 6501, 500)
        proc = _start(tmp_path, worker, connector)
        ids = reader.read_until(lambda ids: len(set(ids)) >= 7000)
        _stop(proc, signal.SIGTERM)
    finally:
        if proc.poll() is None:
            _stop(proc, signal.SIGKILL)
        reader.close()
    assert set(ids) == set(range(1, 7001)), "rows were lost after kill -9"
    repeated = [i for i, n in collections.Counter(ids).items() if n > 1]
    # At least once: only rows after the last committed offset may come twice.
    assert all(i > 3500 for i in repeated)
