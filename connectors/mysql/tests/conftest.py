"""Shared helpers: a fresh database per test on the session's private MariaDB, and task drivers."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_connector_mysql import MySqlSourceTask, _decoder, _resultset
from kconnect_sdk import SourceRecord
from kconnect_speedups import _mysql as compiled
from kconnect_testkit import InMemoryOffsetStore, ScriptedSourceContext

_counter = itertools.count(1)


@pytest.fixture(params=["compiled", "pure"])
def decoder_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The binlog row decoder, record loop and snapshot row reader under test:
    ``_decoder.SPEEDUPS`` and ``_resultset.SPEEDUPS`` set to the C module of
    kconnect-speedups (a dev dependency of the workspace, so its import must work here) or
    to None, the generated Python that runs when the package is absent or
    ``KCONNECT_SPEEDUPS=0``. A test runs on both with
    ``pytest.mark.usefixtures("decoder_path")``."""
    module = compiled if request.param == "compiled" else None
    monkeypatch.setattr(_decoder, "SPEEDUPS", module)
    monkeypatch.setattr(_resultset, "SPEEDUPS", module)
    return request.param


class Db:
    """One database of the test MariaDB, with a helper to run statements."""

    def __init__(self, server: Any, name: str) -> None:
        self.server = server
        self.name = name
        self.conn = server.connect(autocommit=True, database=name, charset="utf8mb4")

    def sql(self, *statements: str) -> None:
        with self.conn.cursor() as cur:
            for statement in statements:
                cur.execute(statement)

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        with self.conn.cursor() as cur:
            cur.execute(statement)
            return list(cur.fetchall())


@pytest.fixture
def mdb(kc_mariadb: Any) -> Iterator[Db]:
    name = f"kc_test_{next(_counter)}_{int(time.time() * 1000) % 100000}"
    admin = kc_mariadb.connect(autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
    admin.close()
    db = Db(kc_mariadb, name)
    try:
        yield db
    finally:
        db.conn.close()


def base_config(server: Any, db: str, kafka: str | None = None, **extra: str) -> dict[str, str]:
    props = {
        "name": f"test-{db}",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "tasks.max": "1",
        "database.hostname": server.host,
        "database.port": str(server.port),
        "database.user": server.user,
        "database.password": server.password,
        "database.server.id": "10000",
        "topic.prefix": "dbserver1",
        "database.include.list": db,
        "include.schema.changes": "false",
        "poll.interval.ms": "200",
        # The session's server holds every test's database: by default the schema history
        # would record all of them (compat/tests/test_cdc.py covers that default).
        "schema.history.internal.store.only.captured.databases.ddl": "true",
    }
    if kafka is not None:
        props["schema.history.internal.kafka.bootstrap.servers"] = kafka
        props["schema.history.internal.kafka.topic"] = f"dbhistory.{db}"
    props.update(extra)
    return props


def start_task(
    props: dict[str, str],
    store: InMemoryOffsetStore | None = None,
    task_class: type[MySqlSourceTask] = MySqlSourceTask,
) -> MySqlSourceTask:
    task = task_class()
    task.initialize(ScriptedSourceContext(dict(props), store or InMemoryOffsetStore()))
    task.start(props)
    return task


def wait_streaming(task: MySqlSourceTask, timeout: float = 20.0) -> list[SourceRecord]:
    """Poll until the snapshot is over and the task reads the binlog; the records seen meanwhile."""
    records: list[SourceRecord] = []
    deadline = time.monotonic() + timeout
    while not task.streaming.is_set() and time.monotonic() < deadline:
        records.extend(task.poll() or [])
    assert task.streaming.is_set(), "the task did not start streaming"
    return records


def drain(task: MySqlSourceTask, count: int, timeout: float = 20.0) -> list[SourceRecord]:
    """Poll until ``count`` records came; fail with what came if they do not within ``timeout``."""
    records: list[SourceRecord] = []
    deadline = time.monotonic() + timeout
    while len(records) < count and time.monotonic() < deadline:
        batch = task.poll()
        if batch:
            records.extend(batch)
    assert len(records) >= count, (
        f"expected {count} records, got {len(records)}: {[r.topic for r in records][:20]}"
    )
    return records


def quiet(task: MySqlSourceTask, seconds: float = 1.0) -> list[SourceRecord]:
    """Whatever the task still returns over ``seconds`` (to check nothing more comes)."""
    records: list[SourceRecord] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        batch = task.poll()
        if batch:
            records.extend(batch)
    return records


def payload(record: SourceRecord) -> Any:
    """The record's value as plain data (nested structs as dicts)."""
    value = record.value
    return None if value is None else value.to_dict()


def read_topic(
    kafka: str, topic: str, expected: int, timeout: float = 30.0
) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) of every message of ``topic`` from the start, until ``expected`` came."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"reader-{time.time_ns()}",
            "enable.auto.commit": False,
        }
    )
    out: list[tuple[bytes | None, bytes | None]] = []
    try:
        deadline = time.monotonic() + timeout
        assigned = False
        while time.monotonic() < deadline and len(out) < expected:
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
                    out.append((message.key(), message.value()))
        return out
    finally:
        consumer.close()


def make_user(server: Any, user: str, password: str, grants: str) -> None:
    admin = server.connect(autocommit=True)
    try:
        with admin.cursor() as cur:
            cur.execute(
                f"CREATE USER IF NOT EXISTS '{user}'@'127.0.0.1' IDENTIFIED BY '{password}'"
            )
            cur.execute(f"GRANT {grants} ON *.* TO '{user}'@'127.0.0.1'")
    finally:
        admin.close()
