"""The crash suite (issue 20): kill the worker at random moments, count lost and repeated records.

``pytest -m chaos``. Seeded, so a failure replays. One ``kconnect standalone`` process
runs four connectors at once, each fed steadily while the rounds go on:

- the FileStream source tails a file the test appends lines to;
- the JDBC source (``incrementing`` mode) reads a MariaDB table a writer fills in
  multi-statement transactions;
- the MySQL CDC source streams the binlog of another table filled the same way;
- the S3 sink (moto's server) writes a 4-partition topic the test produces to.

Each round starts the worker, waits until every connector moved data (two kill -9 rounds
end earlier, during startup), waits a random moment more and ends it: kill -9 on even
rounds, SIGTERM on odd ones. Before a kill -9 the test commits one large transaction in
the JDBC table or the CDC table (in turn) and waits until that connector delivered part
of it to Kafka; then it freezes the worker (SIGSTOP), lets the topic readers catch up and
kills it. The "mid-txn kills" column counts the kills that met a database transaction
half delivered (checked on the frozen worker); for the S3 sink it counts the kills while
it was writing objects (it had written some in that round). One round restarts the
database under the running worker (a real restart of the test's own MariaDB: its
connections drop, the JDBC source reconnects, the CDC source resumes its binlog stream).
A last run finishes the work. The promise measured: zero records lost; repeats are
counted and printed in one table in the terminal summary.

The S3 sink names objects after their first Kafka offset and rotates on ``flush.size``
only, so a replay rewrites the same objects: duplicated records across objects are
expected to be (and are asserted) 0.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from runtime_harness import (
    CrashRow,
    TopicTail,
    TransactionWriter,
    end_process,
    private_mariadb,
    report_crash,
    start_kconnect,
    wait_for,
    write_props,
)

# Twenty worker starts with four connectors each (the kill counts the suite promises):
# about 570 s with the other test sessions running beside it on two cores, more at their
# busiest.
pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(1200)]

SEED = 20
ROUNDS = 20  # 10 kill -9 (even rounds) and 10 SIGTERM (odd rounds)
DB_RESTART_ROUND = 7
EARLY_ROUNDS = (6, 16)  # kill -9 during startup
# Rows of the transaction a kill -9 round splits (the JDBC source reads faster).
BIG_TXN = {"jdbc": 20000, "cdc": 12000}
S3_PARTITIONS = 4
FLUSH_SIZE = 20
JSON = "org.apache.kafka.connect.json.JsonConverter"


class Ids:
    """The ids a tail's records carry, parsed as they come (keeps a count per id)."""

    def __init__(self, tail: TopicTail, extract: Callable[[bytes], int | None]) -> None:
        self.tail = tail
        self.extract = extract
        self.counts: Counter[int] = Counter()
        self._done = 0

    def update(self) -> Counter[int]:
        records = self.tail.snapshot()
        for _key, value in records[self._done :]:
            if value is not None:
                found = self.extract(value)
                if found is not None:
                    self.counts[found] += 1
        self._done = len(records)
        return self.counts


def _jdbc_id(value: bytes) -> int | None:
    return int(json.loads(value)["id"])


def _cdc_id(value: bytes) -> int | None:
    event = json.loads(value)
    return int(event["after"]["id"]) if event.get("op") in ("c", "r") else None


def _line_id(value: bytes) -> int | None:
    return int(value.split(b" ")[1])


class Appender(threading.Thread):
    """Appends ``line N`` to a file, a chunk every 50 ms."""

    def __init__(self, path: Path, chunk: int = 20) -> None:
        super().__init__(daemon=True, name="appender")
        self.path = path
        self.chunk = chunk
        self.lines = 0
        self._halt = threading.Event()

    def run(self) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            while not self._halt.wait(0.05):
                f.write("".join(f"line {i}\n" for i in range(self.lines, self.lines + self.chunk)))
                f.flush()
                self.lines += self.chunk

    def finish(self) -> int:
        self._halt.set()
        self.join(30)
        return self.lines


class S3Feed(threading.Thread):
    """Produces ``{"p": partition, "n": n}`` records to every partition, steadily.

    40 records/s (two objects of ``flush.size``): slow enough that the sink, which spends
    each kill -9 round waiting out its dead member's session (6 s on Kafka), catches up
    before the final check; a backlog of thousands of objects took minutes to write.
    """

    def __init__(self, kafka: str, topic: str, per_tick: int = 1) -> None:
        super().__init__(daemon=True, name="s3-feed")
        self.producer = Producer({"bootstrap.servers": kafka, "enable.idempotence": True})
        self.topic = topic
        self.per_tick = per_tick
        self.sent = [0] * S3_PARTITIONS
        self._halt = threading.Event()

    def _send(self, partition: int, count: int) -> None:
        for _ in range(count):
            value = json.dumps({"p": partition, "n": self.sent[partition]})
            self.producer.produce(self.topic, value=value.encode(), partition=partition)
            self.sent[partition] += 1
        self.producer.poll(0)

    def run(self) -> None:
        while not self._halt.wait(0.1):
            for p in range(S3_PARTITIONS):
                self._send(p, self.per_tick)

    def finish(self) -> set[tuple[int, int]]:
        """Stop, top every partition up to a whole object (``flush.size``), and flush."""
        self._halt.set()
        self.join(30)
        for p in range(S3_PARTITIONS):
            self._send(p, -self.sent[p] % FLUSH_SIZE)
        assert self.producer.flush(30) == 0
        return {(p, n) for p in range(S3_PARTITIONS) for n in range(self.sent[p])}


class Bucket:
    def __init__(self, service: Any) -> None:
        self.client = service.client()
        self.name = f"kc-crash-{uuid.uuid4().hex[:10]}"
        self.client.create_bucket(Bucket=self.name)

    def keys(self) -> list[str]:
        out: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name):
            out += [o["Key"] for o in page.get("Contents", [])]
        return out

    def records(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for key in self.keys():
            body = self.client.get_object(Bucket=self.name, Key=key)["Body"].read()
            for line in body.decode().splitlines():
                record = json.loads(line)
                out.append((record["p"], record["n"]))
        return out


@pytest.fixture
def s3_topic(kafka: str) -> str:
    topic = f"crash-s3-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, S3_PARTITIONS, 1)]).values():
        future.result(30)
    return topic


def test_four_connectors_survive_random_kills(
    kafka: str, kc_s3: Any, s3_topic: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(SEED)
    run = uuid.uuid4().hex[:6]
    with private_mariadb() as db:
        admin = db.connect(autocommit=True)
        with admin.cursor() as cur:
            for schema in ("jdbcdb", "cdcdb"):
                cur.execute(f"CREATE DATABASE {schema}")
                cur.execute(f"CREATE TABLE {schema}.t (id INT PRIMARY KEY, v INT NOT NULL)")
        admin.close()
        bucket = Bucket(kc_s3)
        source_file = tmp_path / "in.txt"
        source_file.touch()
        file_topic, jdbc_topic = f"crash-file-{run}", f"crash-jdbc-{run}t"
        cdc_prefix = f"crashcdc{run}"
        cdc_topic = f"{cdc_prefix}.cdcdb.t"
        one_partition = {
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
        }
        files = [
            write_props(
                tmp_path / "worker.properties",
                {
                    "bootstrap.servers": kafka,
                    "key.converter": JSON,
                    "value.converter": JSON,
                    "key.converter.schemas.enable": "false",
                    "value.converter.schemas.enable": "false",
                    "offset.storage.file.filename": str(tmp_path / "offsets.json"),
                    "offset.flush.interval.ms": "100",
                    # The shortest session Kafka allows (group.min.session.timeout.ms):
                    # the sink's group forgets a killed member quickly.
                    "consumer.session.timeout.ms": "6000",
                    "consumer.heartbeat.interval.ms": "500",
                    "listeners": "",
                },
            ),
            write_props(
                tmp_path / "file.properties",
                {
                    "name": "crash-file",
                    "connector.class": "FileStreamSource",
                    "file": str(source_file),
                    "topic": file_topic,
                    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
                    **one_partition,
                },
            ),
            write_props(
                tmp_path / "jdbc.properties",
                {
                    "name": "crash-jdbc",
                    "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
                    "connection.url": f"jdbc:mysql://127.0.0.1:{db.port}/jdbcdb",
                    "connection.user": "root",
                    "connection.attempts": "30",
                    "connection.backoff.ms": "500",
                    "mode": "incrementing",
                    "incrementing.column.name": "id",
                    "table.whitelist": "t",
                    "topic.prefix": f"crash-jdbc-{run}",
                    "batch.max.rows": "10",
                    # Small produce requests: acknowledgements (and so committed offsets)
                    # advance through a large transaction, not past it in one step.
                    "producer.override.batch.num.messages": "50",
                    "poll.interval.ms": "100",
                    **one_partition,
                },
            ),
            write_props(
                tmp_path / "cdc.properties",
                {
                    "name": "crash-cdc",
                    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
                    "database.hostname": "127.0.0.1",
                    "database.port": str(db.port),
                    "database.user": "root",
                    "database.password": "",
                    "database.server.id": "10001",
                    "topic.prefix": cdc_prefix,
                    "database.include.list": "cdcdb",
                    "include.schema.changes": "false",
                    "max.batch.size": "8",
                    "producer.override.batch.num.messages": "50",
                    "poll.interval.ms": "100",
                    "schema.history.internal.kafka.bootstrap.servers": kafka,
                    "schema.history.internal.kafka.topic": f"crash-history-{run}",
                    **one_partition,
                },
            ),
            write_props(
                tmp_path / "s3.properties",
                {
                    "name": f"crash-s3-{run}",
                    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
                    "topics": s3_topic,
                    "s3.bucket.name": bucket.name,
                    "s3.region": kc_s3.region,
                    "store.url": kc_s3.endpoint_url,
                    "s3.path.style.access.enabled": "true",
                    "aws.access.key.id": kc_s3.access_key_id,
                    "aws.secret.access.key": kc_s3.secret_access_key,
                    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
                    "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
                    "flush.size": str(FLUSH_SIZE),
                },
            ),
        ]
        args = ["standalone", *map(str, files)]
        tails = {
            "file": TopicTail(kafka, file_topic),
            "jdbc": TopicTail(kafka, jdbc_topic),
            "cdc": TopicTail(kafka, cdc_topic),
        }
        ids = {
            "file": Ids(tails["file"], _line_id),
            "jdbc": Ids(tails["jdbc"], _jdbc_id),
            "cdc": Ids(tails["cdc"], _cdc_id),
        }
        writers = {
            "jdbc": TransactionWriter(db, "jdbcdb", "t", statements=4, rows=10, pause_s=0.1),
            "cdc": TransactionWriter(db, "cdcdb", "t", statements=4, rows=10, pause_s=0.1),
        }
        appender = Appender(source_file)
        feed = S3Feed(kafka, s3_topic)
        for thread in (*writers.values(), appender, feed):
            thread.start()

        def moved(before: dict[str, int]) -> bool:
            now = progress()
            return all(now[k] > before[k] for k in before)

        def progress() -> dict[str, int]:
            return {**{k: t.count() for k, t in tails.items()}, "s3": len(bucket.keys())}

        def split(big: dict[str, range]) -> dict[str, bool]:
            """Whether each large transaction is partly (not wholly) in its topic."""
            return {k: TransactionWriter.split(txn, set(ids[k].update())) for k, txn in big.items()}

        kills = terms = db_restarts = 0
        mid_txn: Counter[str] = Counter()
        s3_in_flight = 0
        started = time.monotonic()
        try:
            for round_ in range(ROUNDS):
                log = tmp_path / f"round-{round_}.log"
                proc = start_kconnect(args, tmp_path, log)
                kill = round_ % 2 == 0
                s3_at_start = len(bucket.keys())
                round_start = time.monotonic()
                big: dict[str, range] = {}
                inside: dict[str, bool] = {}
                moved_s = 0.0
                try:
                    # Some kill -9s land during startup. SIGTERMs wait for the sink to be
                    # assigned: the test broker never assigns a group again whose member
                    # left while it was joining (see docs/exactly-once.md).
                    if round_ in EARLY_ROUNDS:
                        time.sleep(rng.uniform(0.3, 2.0))
                    else:
                        before = progress()
                        deadline = time.monotonic() + 30
                        while not moved(before) and time.monotonic() < deadline:
                            time.sleep(0.1)
                        if round_ == DB_RESTART_ROUND:
                            for w in writers.values():
                                w.pause()
                            db.restart()
                            db_restarts += 1
                            for w in writers.values():
                                w.resume()
                            before = progress()
                            wait_for(
                                partial(moved, before),
                                90,
                                f"every connector to move data after the database restart "
                                f"(log: {log})",
                            )
                        moved_s = time.monotonic() - round_start
                        time.sleep(rng.uniform(0.0, 0.5))
                        if kill:
                            # A large transaction in one table (JDBC and CDC in turn,
                            # up to three tries); once it is partly in its topic, the
                            # worker is frozen (SIGSTOP), the tails catch up, and what they
                            # hold is the state the kill -9 meets. A transaction that got
                            # through whole before the freeze (the tails lag the worker)
                            # is followed by another one, the worker running again.
                            target = ("jdbc", "cdc")[kills % 2]
                            for attempt in range(3):
                                txn = writers[target].big_transaction(BIG_TXN[target])
                                big = {target: txn}
                                deadline = time.monotonic() + 2
                                while not split(big)[target] and time.monotonic() < deadline:
                                    time.sleep(0.002)
                                proc.send_signal(signal.SIGSTOP)
                                time.sleep(0.5)
                                inside = split(big)
                                if inside[target] or attempt == 2:
                                    break
                                proc.send_signal(signal.SIGCONT)
                    s3_before = len(bucket.keys())
                    code = end_process(proc, signal.SIGKILL if kill else signal.SIGTERM)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                print(
                    f"round {round_}: {'kill -9' if kill else 'SIGTERM'} after "
                    f"{time.monotonic() - round_start:.1f}s, progress {progress()}, "
                    f"inside {inside if big else '-'}, moved after {moved_s:.1f}s"
                )
                if kill:
                    kills += 1
                    for k, was_inside in (inside if big else {}).items():
                        mid_txn[k] += was_inside
                    s3_in_flight += s3_before > s3_at_start
                else:
                    terms += 1
                    # A SIGTERM while Python still imports (nothing logged) ends the
                    # process by the default action; once the worker logs, it must stop
                    # cleanly.
                    if log.read_bytes():
                        assert code == 0, f"round {round_}: SIGTERM ended the worker with {code}"
            lines = appender.finish()
            rows = {k: w.finish() for k, w in writers.items()}
            sent = feed.finish()
            rounds_s = time.monotonic() - started
            proc = start_kconnect(args, tmp_path, tmp_path / "final.log")
            try:

                def complete() -> bool:
                    return (
                        len(ids["file"].update()) >= lines
                        and all(len(ids[k].update()) >= len(rows[k]) for k in rows)
                        and len(bucket.keys()) * FLUSH_SIZE >= len(sent)
                    )

                try:
                    # The writers feed all through the rounds, so the backlog grows with their
                    # length: 45k file lines alone (2.5 min), 170k beside a loaded CI's other
                    # sessions (8 min of rounds, more than 240 s to catch up).
                    wait_for(complete, 420, "every record delivered")
                except AssertionError as exc:
                    # Which connector fell short, and by how much: a loss or a slow catch-up.
                    have = {k: len(ids[k].update()) for k in ("file", *rows)}
                    want = {"file": lines, **{k: len(v) for k, v in rows.items()}}
                    s3 = f"s3 objects {len(bucket.keys())} x {FLUSH_SIZE} of {len(sent)} records"
                    raise AssertionError(
                        f"{exc}: delivered {have} of {want}, {s3} (log: {tmp_path / 'final.log'})"
                    ) from None
                time.sleep(1.5)  # a little longer: anything still repeated arrives
            finally:
                assert end_process(proc, signal.SIGTERM) == 0
            for tail in tails.values():
                tail.settle()
            s3_records = bucket.records()
        finally:
            for tail in tails.values():
                tail.close()
            for writer in writers.values():
                if writer.is_alive():
                    writer.finish()
            if appender.is_alive():
                appender.finish()
            if feed.is_alive():
                feed.finish()

    expected = {"file": set(range(lines)), **{k: set(v) for k, v in rows.items()}}
    results: dict[str, tuple[int, int]] = {}
    for k, want in expected.items():
        counts = ids[k].update()
        results[k] = (len(want - set(counts)), sum(counts.values()) - len(counts))
    s3_counts = Counter(s3_records)
    results["s3"] = (len(sent - set(s3_counts)), len(s3_records) - len(s3_counts))
    names = {
        "file": ("FileStreamSource", "n/a"),
        "jdbc": ("JdbcSource (incrementing)", f"{mid_txn['jdbc']}"),
        "cdc": ("MySqlCdc", f"{mid_txn['cdc']}"),
        "s3": ("S3Sink", f"{s3_in_flight} (writing)"),
    }
    notes = {
        "file": f"{lines} lines",
        "jdbc": f"{len(rows['jdbc'])} rows in {len(writers['jdbc'].transactions)} txns; "
        f"{db_restarts} database restart",
        "cdc": f"{len(rows['cdc'])} rows in {len(writers['cdc'].transactions)} txns; "
        f"{db_restarts} database restart",
        "s3": f"{len(sent)} records, {len(bucket.keys())} objects",
    }
    for k, (lost, duplicated) in results.items():
        report_crash(
            request.config,
            CrashRow(
                names[k][0],
                "at-least-once",
                kills,
                terms,
                names[k][1],
                lost,
                duplicated,
                notes[k] + (f"; rounds took {rounds_s:.0f}s" if k == "file" else ""),
            ),
        )
    assert {k: lost for k, (lost, _) in results.items()} == dict.fromkeys(results, 0)
    assert results["s3"][1] == 0, "the S3 sink wrote a record into two objects"
    assert mid_txn["jdbc"] >= 3 and mid_txn["cdc"] >= 3, mid_txn
