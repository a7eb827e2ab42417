"""JDBC source: rows/s from a ten-column table into Kafka, against the driver's own fetch.

    .venv/bin/python bench/bench_jdbc.py [--db postgres|mariadb|sqlite|all] [--rows 1000000]

For each database it fills a table of ``--rows`` rows with ten mixed columns (integers,
text, DECIMAL, double, boolean, date, timestamp) and then measures, in the same run:

* ``driver fetch``: the fastest plain Python read of the same rows with the driver's cursor
  (client-side fetchall and streaming fetchmany; the faster counts) - the floor;
* ``arrow fetch``: the same rows as an Arrow table (ADBC for PostgreSQL and SQLite,
  connectorx for MySQL/MariaDB), to see whether an Arrow path would pay;
* ``task poll``: kconnect's JdbcSourceTask alone: rows turned into Connect records;
* ``into Kafka``: the connector in a standalone worker, JsonConverter without schemas, to
  the embedded broker (or ``--bootstrap-servers``), until every record is in the topic.

Prints rows/s for each and the ratios to the driver fetch (goal: into Kafka >= 0.7).
PostgreSQL is the machine's (``--pg-dsn``); MariaDB is the machine's on 127.0.0.1:3306
(``--mysql-url``); SQLite is a temporary file. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

COLUMNS = (
    "id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, qty INT NOT NULL, "
    "amount DECIMAL(12, 2) NOT NULL, price DOUBLE PRECISION NOT NULL, flag BOOLEAN NOT NULL, "
    "day DATE NOT NULL, created TIMESTAMP NOT NULL, code BIGINT, note VARCHAR(60)"
)


class Target:
    """One database: how to fill the table, fetch plainly, fetch as Arrow, and its URL."""

    def __init__(self, kind: str, args: argparse.Namespace, workdir: Path) -> None:
        self.kind = kind
        self.table = f"bench_{uuid.uuid4().hex[:8]}"
        self.props: dict[str, str] = {}
        if kind == "postgres":
            import psycopg

            self.dsn = args.pg_dsn
            self.connect: Callable[[], Any] = lambda: psycopg.connect(self.dsn)
            params = dict(p.split("=", 1) for p in self.dsn.split())
            self.url = (
                f"jdbc:postgresql://{params.get('host', '127.0.0.1')}:{params.get('port', 5432)}"
                f"/{params.get('dbname', 'postgres')}"
            )
            self.props = {"connection.user": params.get("user", "postgres")}
        elif kind == "mariadb":
            import pymysql
            from sqlalchemy.engine import make_url

            url = make_url(args.mysql_url)
            self.mysql = url
            self.connect = lambda: pymysql.connect(
                host=url.host,
                port=url.port or 3306,
                user=url.username,
                password=url.password or "",
                database=url.database,
            )
            self.url = f"jdbc:mysql://{url.host}:{url.port or 3306}/{url.database}"
            self.props = {"connection.user": url.username or "root"}
        else:
            self.path = workdir / "bench.sqlite"
            self.connect = lambda: sqlite3.connect(self.path)
            self.url = f"jdbc:sqlite:{self.path}"

    def execute(self, sql: str) -> None:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            conn.commit()
        finally:
            conn.close()

    def fill(self, rows: int) -> None:
        cols = COLUMNS if self.kind != "mariadb" else COLUMNS.replace("DOUBLE PRECISION", "DOUBLE")
        self.execute(f"CREATE TABLE {self.table} ({cols})")
        names = "id, name, qty, amount, price, flag, day, created, code, note"
        if self.kind == "postgres":
            self.execute(
                f"INSERT INTO {self.table} ({names}) SELECT g, 'name ' || g, g % 1000, "
                "g * 1.25, g / 3.0, g % 2 = 0, DATE '2024-01-01' + g % 365, "
                "TIMESTAMP '2024-01-01' + g * INTERVAL '1 second', g * 7, "
                f"CASE WHEN g % 10 = 0 THEN NULL ELSE 'note ' || g END FROM generate_series(1, {rows}) g"
            )
        elif self.kind == "mariadb":
            self.execute(
                f"INSERT INTO {self.table} ({names}) SELECT seq, CONCAT('name ', seq), seq % 1000, "
                "seq * 1.25, seq / 3.0, seq % 2 = 0, DATE '2024-01-01' + INTERVAL seq % 365 DAY, "
                "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND, seq * 7, "
                f"IF(seq % 10 = 0, NULL, CONCAT('note ', seq)) FROM seq_1_to_{rows}"
            )
        else:
            self.execute(
                f"WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {rows}) "
                f"INSERT INTO {self.table} ({names}) SELECT g, 'name ' || g, g % 1000, g * 1.25, "
                "g / 3.0, g % 2 = 0, date('2024-01-01', '+' || (g % 365) || ' days'), "
                "datetime('2024-01-01', '+' || g || ' seconds'), g * 7, "
                "CASE WHEN g % 10 = 0 THEN NULL ELSE 'note ' || g END FROM s"
            )

    def drop(self) -> None:
        self.execute(f"DROP TABLE {self.table}")

    def plain_fetch(self) -> tuple[int, float]:
        """The faster of a client-side fetchall and a streaming fetchmany loop."""
        best = float("inf")
        count = 0
        for streaming in (False, True):
            conn = self.connect()
            try:
                started = time.perf_counter()
                if self.kind == "postgres" and streaming:
                    cur = conn.cursor(name="bench")
                elif self.kind == "mariadb" and streaming:
                    import pymysql.cursors

                    cur = conn.cursor(pymysql.cursors.SSCursor)
                else:
                    cur = conn.cursor()
                cur.execute(f"SELECT * FROM {self.table}")
                count = 0
                if streaming:
                    while rows := cur.fetchmany(2000):
                        count += len(rows)
                else:
                    count = len(cur.fetchall())
                best = min(best, time.perf_counter() - started)
                cur.close()
            finally:
                conn.close()
        return count, best

    def arrow_fetch(self) -> tuple[int, float] | str:
        sql = f"SELECT * FROM {self.table}"
        try:
            started = time.perf_counter()
            if self.kind == "postgres":
                import adbc_driver_postgresql.dbapi as adbc_pg

                params = dict(p.split("=", 1) for p in self.dsn.split())
                uri = (
                    f"postgresql://{params.get('user', 'postgres')}@{params.get('host', '127.0.0.1')}"
                    f":{params.get('port', 5432)}/{params.get('dbname', 'postgres')}"
                )
                with adbc_pg.connect(uri) as conn, conn.cursor() as cur:
                    cur.execute(sql)
                    rows = cur.fetch_arrow_table().num_rows
            elif self.kind == "sqlite":
                import adbc_driver_sqlite.dbapi as adbc_sqlite

                with adbc_sqlite.connect(str(self.path)) as conn, conn.cursor() as cur:
                    cur.execute(sql)
                    rows = cur.fetch_arrow_table().num_rows
            else:
                import connectorx

                u = self.mysql
                uri = f"mysql://{u.username}:{u.password or ''}@{u.host}:{u.port or 3306}/{u.database}"
                rows = connectorx.read_sql(uri, sql, return_type="arrow").num_rows
            return rows, time.perf_counter() - started
        except Exception as exc:
            return f"unavailable ({type(exc).__name__}: {str(exc)[:120]})"

    def connector_props(self, batch: int) -> dict[str, str]:
        return {
            "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
            "connection.url": self.url,
            **self.props,
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "table.whitelist": self.table,
            "topic.prefix": f"bench-{uuid.uuid4().hex[:6]}-",
            "batch.max.rows": str(batch),
            "poll.interval.ms": "1000",
        }


def task_poll(target: Target, rows: int, batch: int) -> float:
    from kconnect_connector_jdbc import JdbcSourceConnector, JdbcSourceTask
    from kconnect_testkit import ScriptedSourceContext

    props = target.connector_props(batch)
    connector = JdbcSourceConnector()
    connector.start(props)
    task_props = {**props, **connector.task_configs(1)[0]}
    connector.stop()
    task = JdbcSourceTask()
    task.initialize(ScriptedSourceContext(task_props))
    started = time.perf_counter()
    task.start(task_props)
    count = 0
    while count < rows:
        count += len(task.poll() or ())
    elapsed = time.perf_counter() - started
    task.stop()
    return elapsed


def into_kafka(target: Target, rows: int, batch: int, bootstrap: str, workdir: Path) -> float:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
    from kconnect_runtime import Standalone

    props = target.connector_props(batch)
    topic = props["topic.prefix"] + target.table
    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "offset.storage.file.filename": str(workdir / f"offsets-{topic}.json"),
        "offset.flush.interval.ms": "10000",
        "listeners": "",
    }
    connector = {
        **props,
        "name": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    # Tansu's high watermark counts batches, not records: count the records themselves.
    watcher = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"watch-{topic}", "fetch.min.bytes": 1}
    )
    app = Standalone(worker, [connector])
    started = time.perf_counter()
    app.start()
    seen = 0
    try:
        while seen < rows:
            if not watcher.assignment():
                meta = watcher.list_topics(topic, timeout=5).topics.get(topic)
                if meta is None or meta.error is not None or not meta.partitions:
                    time.sleep(0.05)
                    continue
                watcher.assign(
                    [TopicPartition(topic, p, OFFSET_BEGINNING) for p in meta.partitions]
                )
            seen += sum(1 for m in watcher.consume(10000, 0.2) if m.error() is None)
        return time.perf_counter() - started
    finally:
        app.stop()
        watcher.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default="all", choices=["postgres", "mariadb", "sqlite", "all"])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument(
        "--batch", type=int, default=1000, help="batch.max.rows (Confluent's default)"
    )
    parser.add_argument(
        "--pg-dsn", default="host=127.0.0.1 port=5432 user=postgres dbname=postgres"
    )
    parser.add_argument("--mysql-url", default="mysql+pymysql://root@127.0.0.1:3306/test")
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args()
    kinds = ["postgres", "mariadb", "sqlite"] if args.db == "all" else [args.db]

    from kconnect_runtime import EmbeddedBroker

    broker = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    summary: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="kc-bench-jdbc-") as tmp:
            work = Path(tmp)
            for kind in kinds:
                target = Target(kind, args, work)
                if kind == "mariadb":
                    target.execute("CREATE DATABASE IF NOT EXISTS test")
                target.fill(args.rows)
                try:
                    count, fetch_s = target.plain_fetch()
                    assert count == args.rows, (count, args.rows)
                    arrow = target.arrow_fetch()
                    poll_s = task_poll(target, args.rows, args.batch)
                    kafka_s = into_kafka(target, args.rows, args.batch, bootstrap, work)
                finally:
                    target.drop()
                rate = args.rows / fetch_s
                print(f"\n{kind}: {args.rows:,} rows x 10 columns, batch.max.rows={args.batch}")
                print(f"  {'driver fetch':>14}: {rate:>10,.0f} rows/s  (1.00)")
                if isinstance(arrow, str):
                    print(f"  {'arrow fetch':>14}: {arrow}")
                else:
                    a = arrow[0] / arrow[1]
                    print(f"  {'arrow fetch':>14}: {a:>10,.0f} rows/s  ({a / rate:.2f})")
                for label, seconds in (("task poll", poll_s), ("into Kafka", kafka_s)):
                    r = args.rows / seconds
                    print(f"  {label:>14}: {r:>10,.0f} rows/s  ({r / rate:.2f})")
                ratio = (args.rows / kafka_s) / rate
                print(f"  ratio into Kafka / driver fetch: {ratio:.2f}  (goal >= 0.7)")
                summary[kind] = {
                    "driver_fetch_rows_s": round(rate),
                    "arrow_fetch_rows_s": None
                    if isinstance(arrow, str)
                    else round(arrow[0] / arrow[1]),
                    "task_poll_rows_s": round(args.rows / poll_s),
                    "into_kafka_rows_s": round(args.rows / kafka_s),
                    "ratio": round(ratio, 2),
                }
    finally:
        if broker is not None:
            broker.stop()
    print("\n" + json.dumps(summary))


if __name__ == "__main__":
    main()
