"""Moving a running Apache Kafka Connect cluster to kconnect, and back.

A Java distributed worker runs a FileStream source, a FileStream sink and Debezium's MariaDB
connector while a file grows and rows are inserted. It is stopped as an operator stops it
(SIGTERM); a kconnect worker starts with the same worker properties (the same ``group.id``
and internal topics) and carries on; it is stopped in turn and a Java worker takes over
again. Across both hand-overs: every line and every row arrives, nothing is repeated (a
clean stop commits every offset, in Kafka Connect as here), and the MariaDB connector does
not take its snapshot again. The runbook this proves is docs/migration.md.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from runtime_harness import LineAppender, end_process, rest_ready, start_kconnect, wait_for

pytestmark = pytest.mark.integration

SEED_ROWS = 50


class RowWriter(threading.Thread):
    """Inserts rows ``(id, name)`` into ``table``, a few per transaction, until stopped."""

    def __init__(self, server: Any, database: str, table: str) -> None:
        super().__init__(daemon=True, name="row-writer")
        self.server, self.database, self.table = server, database, table
        self.next_id = SEED_ROWS + 1
        self.error: BaseException | None = None
        self._halt = threading.Event()

    def run(self) -> None:
        try:
            conn = self.server.connect(database=self.database, autocommit=True)
            with conn.cursor() as cur:
                while not self._halt.wait(0.05):
                    first = self.next_id
                    rows = ",".join(f"({i},'row {i}')" for i in range(first, first + 5))
                    cur.execute("BEGIN")
                    cur.execute(f"INSERT INTO {self.table} (id, name) VALUES {rows}")
                    cur.execute("COMMIT")
                    self.next_id = first + 5
            conn.close()
        except BaseException as exc:
            self.error = exc

    def finish(self) -> int:
        """Stop inserting; the last id inserted."""
        self._halt.set()
        self.join(30)
        assert self.error is None, f"the row writer failed: {self.error!r}"
        return self.next_id - 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _records(bootstrap: str, topic: str) -> list[tuple[Any, Any]]:
    """Every record of ``topic``'s partition 0 as (key, value) JSON, up to its end now."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4()}"})
    try:
        partition = TopicPartition(topic, 0, 0)
        try:
            _, end = consumer.get_watermark_offsets(partition, timeout=10)
        except KafkaException:
            return []  # not created yet
        consumer.assign([partition])
        out: list[tuple[Any, Any]] = []
        deadline = time.monotonic() + 60
        while len(out) < end and time.monotonic() < deadline:
            for m in consumer.consume(5000, 0.5):
                if m.error() is None and m.offset() < end:
                    key = json.loads(m.key()) if m.key() else None
                    value = json.loads(m.value()) if m.value() else None
                    out.append((key, value))
        assert len(out) >= end, f"{topic}: read {len(out)} of {end} records"
        return out
    finally:
        consumer.close()


def _state(request: Callable[..., tuple[int, Any]], connector: str) -> str | None:
    """A connector's state as a worker's REST API shows it (None before it has one)."""
    status, body = request("GET", f"/connectors/{connector}/status")
    return body["connector"]["state"] if status == 200 else None


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


class KconnectWorker:
    """``kconnect distributed`` on the Java worker's own properties (its listener moved)."""

    def __init__(self, properties: dict[str, object], workdir: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        workdir.mkdir(parents=True, exist_ok=True)
        self.props = workdir / "worker.properties"
        settings = {**properties, "listeners": f"HTTP://127.0.0.1:{self.port}"}
        self.props.write_text("".join(f"{k}={v}\n" for k, v in settings.items()), encoding="utf-8")
        self.log = workdir / "kconnect.log"
        self.proc = start_kconnect(["distributed", str(self.props)], workdir, self.log)

    def request(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        resp = httpx.request(method, self.url + path, json=body, timeout=30)
        return resp.status_code, (resp.json() if resp.content else None)

    def wait_running(self, connector: str, others: Sequence[KconnectWorker] = ()) -> None:
        seen: list[Any] = [None]

        def running() -> bool:
            try:
                status, body = self.request("GET", f"/connectors/{connector}/status")
            except httpx.HTTPError as exc:
                seen[0] = repr(exc)
                return False
            seen[0] = body
            if status != 200:
                return False
            states = [body["connector"]["state"]] + [t["state"] for t in body["tasks"]]
            assert "FAILED" not in states, f"{connector} failed on kconnect: {body}"
            return bool(body["tasks"]) and set(states) == {"RUNNING"}

        deadline = time.monotonic() + 90
        while not running():
            if time.monotonic() > deadline:
                logs = "\n".join(
                    f"--- {w.log}:\n{w.log.read_text(errors='replace')[-4000:]}"
                    for w in (self, *others)
                )
                raise AssertionError(f"{connector} not RUNNING on kconnect: {seen[0]}\n{logs}")
            time.sleep(0.2)

    def stop(self) -> None:
        code = end_process(self.proc, signal.SIGTERM)  # as an operator stops a worker
        assert code == 0, f"kconnect exited {code}: {self.log.read_text()[-3000:]}"


def test_a_java_cluster_moves_to_kconnect_and_back(
    kc_kafka: str, kc_mariadb: Any, kc_java_connect: Callable[..., Any], tmp_path: Path
) -> None:
    db = f"mig_{uuid.uuid4().hex[:6]}"
    admin = kc_mariadb.connect(autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"CREATE TABLE {db}.items (id INT PRIMARY KEY, name VARCHAR(40))")
        seed = ",".join(f"({i},'row {i}')" for i in range(1, SEED_ROWS + 1))
        cur.execute(f"INSERT INTO {db}.items VALUES {seed}")
    admin.close()

    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    lines_topic, prefix = f"{db}-lines", f"{db}_cdc"
    cdc_topic = f"{prefix}.{db}.items"
    connectors = {
        "lines-in": {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "file": str(source_file),
            "topic": lines_topic,
        },
        "lines-out": {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "file": str(sink_file),
            "topics": lines_topic,
        },
        "cdc": {
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
            "database.hostname": kc_mariadb.host,
            "database.port": str(kc_mariadb.port),
            "database.user": kc_mariadb.user,
            "database.password": kc_mariadb.password,
            "database.server.id": "7401",
            "topic.prefix": prefix,
            "database.include.list": db,
            "schema.history.internal.kafka.bootstrap.servers": kc_kafka,
            "schema.history.internal.kafka.topic": f"{db}-history",
        },
    }
    name = f"migrate-{uuid.uuid4().hex[:6]}"
    appender = LineAppender(source_file, block=20, pace_s=0.05)
    writer = RowWriter(kc_mariadb, db, "items")

    def progress(reach: Callable[[], int], what: str) -> None:
        """Wait until ``reach()`` grows by a margin: the new owner moves data."""
        start = reach()
        wait_for(lambda: reach() >= start + 100, 90, what)

    def cdc_count() -> int:
        return len(_records(kc_kafka, cdc_topic))

    # Java first: the connectors are created there and run a while.
    java = kc_java_connect(mode="distributed", debezium=True, name=name)
    for connector, config in connectors.items():
        status, body = java.request("PUT", f"/connectors/{connector}/config", config)
        assert status == 201, body
    for connector in connectors:
        java.wait_running(connector, timeout_s=120)
    # A connector an operator paused stays paused across both moves.
    parked = {**connectors["lines-in"], "topic": f"{lines_topic}-parked"}
    body = {"name": "parked", "config": parked, "initial_state": "PAUSED"}
    assert java.request("POST", "/connectors", body)[0] == 201
    appender.begin()
    writer.start()
    wait_for(lambda: len(_lines(sink_file)) >= 200, 90, "the Java sink to write")
    wait_for(lambda: cdc_count() >= SEED_ROWS + 20, 90, "Debezium's snapshot and changes")
    properties = java.worker_config()
    java.stop()

    # Two kconnect workers on the same properties: they find the connectors and their
    # offsets, and share the connectors between them.
    moved = [KconnectWorker(properties, tmp_path / f"kconnect-{n}") for n in range(2)]
    try:
        for url in (worker.url + "/connectors" for worker in moved):
            wait_for(lambda url=url: rest_ready(url), 60, "kconnect's REST API")
        first = moved[0]
        status, listed = first.request("GET", "/connectors")
        assert sorted(listed) == sorted([*connectors, "parked"])
        for connector, config in connectors.items():
            status, body = first.request("GET", f"/connectors/{connector}/config")
            # kconnect never shows a PASSWORD-typed value in a REST body (Java does).
            shown = {k: "[hidden]" if k.endswith("password") else v for k, v in config.items()}
            assert status == 200 and body == {**shown, "name": connector}
            first.wait_running(connector, moved[1:])
        wait_for(lambda: _state(first.request, "parked") == "PAUSED", 60, "parked PAUSED")
        progress(lambda: len(_lines(sink_file)), "kconnect's sink to carry on")
        progress(cdc_count, "kconnect's CDC task to carry on")
        owners = {
            first.request("GET", f"/connectors/{c}/status")[1]["tasks"][0]["worker_id"]
            for c in connectors
        }
        print(f"kconnect workers running the tasks: {sorted(owners)}")
    finally:
        for worker in reversed(moved):
            worker.stop()

    # And back to Java, on the same properties once more.
    back = kc_java_connect(mode="distributed", debezium=True, name=name)
    for connector in connectors:
        back.wait_running(connector, timeout_s=120)
    wait_for(lambda: _state(back.request, "parked") == "PAUSED", 60, "parked PAUSED in Java")
    progress(lambda: len(_lines(sink_file)), "Java's sink to carry on after kconnect")
    progress(cdc_count, "Debezium to carry on after kconnect")
    written, last_id = appender.stop(), writer.finish()
    wait_for(lambda: len(set(_lines(sink_file))) >= written, 90, "every line in the sink file")
    wait_for(lambda: cdc_count() >= last_id, 90, "every row's change event")
    time.sleep(2.0)  # a repeat still in flight lands by now
    back.stop()

    topic_lines = Counter(v["payload"] for _, v in _records(kc_kafka, lines_topic))
    sink_lines = Counter(_lines(sink_file))
    events = _records(kc_kafka, cdc_topic)
    ops = Counter(v["payload"]["op"] for _, v in events if v is not None)
    ids = Counter(v["payload"]["after"]["id"] for _, v in events if v is not None)
    expected_lines = {f"line {i}" for i in range(written)}
    print(
        f"migration Java -> kconnect -> Java: {written} lines, {last_id} rows; "
        f"topic {sum(topic_lines.values())} records, sink {sum(sink_lines.values())} lines, "
        f"CDC {len(events)} events {dict(ops)}"
    )
    assert set(topic_lines) == expected_lines, "a line is missing from the topic"
    assert set(sink_lines) == expected_lines, "a line is missing from the sink file"
    assert set(ids) == set(range(1, last_id + 1)), "a row's change event is missing"
    repeated = {
        "topic": [k for k, n in topic_lines.items() if n > 1][:5],
        "sink": [k for k, n in sink_lines.items() if n > 1][:5],
        "cdc": [k for k, n in ids.items() if n > 1][:5],
    }
    assert not any(repeated.values()), f"records repeated across clean hand-overs: {repeated}"
    # One snapshot, first: its read events (the seeded rows, and any the writer committed
    # before the snapshot began) come before every streamed change. A second snapshot
    # would read rows again after them.
    kinds = [v["payload"]["op"] for _, v in events if v is not None]
    first_change = kinds.index("c") if "c" in kinds else len(kinds)
    assert ops["r"] >= SEED_ROWS and "r" not in kinds[first_change:], (
        "the MariaDB connector took its snapshot again"
    )
