"""MySQL/MariaDB CDC: snapshot and binlog streaming rows/s, against mysql-replication's own decoder.

    .venv/bin/python bench/bench_cdc.py [--rows 1000000] [--bootstrap-servers HOST:PORT]
                                        [--set KEY=VALUE ...]   (worker properties)
                                        [--only MEASURE ...]    (stream-poll, stream-kafka,
                                                                 stream-kafka-lz4,
                                                                 snapshot-poll, snapshot-kafka,
                                                                 snapshot-kafka-lz4)

Starts a private MariaDB (``mariadbd --log-bin --binlog-format=ROW``) in a temporary
directory, fills a ten-column table with ``--rows`` rows in multi-row INSERTs (so the binlog
holds ``--rows`` row changes), and measures in the same run:

* ``mysql-replication``: the library alone reading those binlog events and decoding every
  row (``event.rows``) - the reference;
* ``stream, task poll``: kconnect's MySqlSourceTask streaming the same binlog range into
  Debezium change events (no Kafka);
* ``snapshot, task poll``: the task snapshotting the table (no Kafka);
* ``stream into Kafka`` and ``snapshot into Kafka``: the connector in a standalone worker,
  JsonConverter with schemas, to the embedded broker (or ``--bootstrap-servers``), until the
  worker reports every record acknowledged; each twice, with Kafka Connect's producer
  settings (no compression) and with ``producer.compression.type=lz4`` (``, lz4``). Each
  runs in a Python process of its own (as a worker is deployed: one run's heap does not
  slow the next) and gets a broker of its own (the embedded one is memory-only and slows down as it
  fills). Uncompressed, the embedded broker spends 10-20 us of CPU per ~4 KB record
  (mostly page faults on fresh memory) while the producer waits for its one request in
  flight, so that run measures the broker; lz4 cuts the broker's share about tenfold.

Prints rows/s (wall clock, and per CPU-second of the process that ran it) for each, the ratio of each
figure to mysql-replication's, and the CPU mariadbd and the embedded broker used per row
(goals: streaming and snapshot into Kafka >= 100,000 rows/s). Asserts nothing about time.
Use ``--rows 2000`` for a smoke run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

COLUMNS = (
    "id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, qty INT NOT NULL, "
    "amount DECIMAL(12, 2) NOT NULL, price DOUBLE NOT NULL, flag TINYINT(1) NOT NULL, "
    "day DATE NOT NULL, created DATETIME(3) NOT NULL, code BIGINT NULL, note VARCHAR(60) NULL"
)


SERVICE_PIDS: dict[str, int] = {}  # mariadbd's and the broker's: their CPU is shown per measure


def service_cpu() -> dict[str, float]:
    """CPU seconds used so far by mariadbd and by the embedded broker (Linux ``/proc``)."""
    used = {}
    for name, pid in SERVICE_PIDS.items():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def private_mariadb() -> Iterator[dict[str, Any]]:
    """A throw-away mariadbd with a ROW binlog; yields its connection settings."""
    import pymysql

    base = Path(tempfile.mkdtemp(prefix="kc-bench-cdc-"))
    datadir, sock = base / "data", base / "mysqld.sock"
    as_root = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        [
            "mariadb-install-db",
            "--no-defaults",
            f"--datadir={datadir}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *as_root,
        ],
        check=True,
        capture_output=True,
    )
    port = _free_port()
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    proc = subprocess.Popen(
        [
            mariadbd,
            "--no-defaults",
            f"--datadir={datadir}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
            f"--log-bin={datadir / 'binlog'}",
            "--binlog-format=ROW",
            "--binlog-row-image=FULL",
            "--server-id=1",
            "--max-binlog-size=1073741824",
            "--innodb-flush-log-at-trx-commit=0",
            "--sync-binlog=0",
            *as_root,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = pymysql.connect(unix_socket=str(sock), user="root", password="")
                break
            except pymysql.err.OperationalError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("mariadbd did not start") from None
                time.sleep(0.2)
        with conn.cursor() as cur:
            cur.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''")
            cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
        conn.close()
        SERVICE_PIDS["mariadbd"] = proc.pid
        yield {"host": "127.0.0.1", "port": port, "user": "root", "password": ""}
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(base, ignore_errors=True)


def fill(server: dict[str, Any], rows: int) -> tuple[str, int, str, int, float]:
    """Insert ``rows`` rows into bench.t; the binlog range the inserts occupy."""
    import pymysql

    conn = pymysql.connect(**server, autocommit=True)
    with conn.cursor() as cur:
        cur.execute("SHOW MASTER STATUS")
        start_file, start_pos = cur.fetchone()[:2]
        started = time.perf_counter()
        chunk = 1000
        for first in range(0, rows, chunk):
            values = ",".join(
                f"({i}, 'name-{i}', {i % 1000}, {i % 100000}.25, {i * 0.5}, {i % 2}, "
                f"'2024-01-{1 + i % 28:02d}', '2024-01-01 00:00:{i % 60:02d}.123', "
                f"{'NULL' if i % 3 == 0 else i * 7}, {'NULL' if i % 2 else repr('note ' + str(i))})"
                for i in range(first, min(rows, first + chunk))
            )
            cur.execute(f"INSERT INTO bench.t VALUES {values}")
        took = time.perf_counter() - started
        cur.execute("SHOW MASTER STATUS")
        end_file, end_pos = cur.fetchone()[:2]
    conn.close()
    return start_file, int(start_pos), end_file, int(end_pos), took


def raw_decode(
    server: dict[str, Any], start: tuple[str, int], end_pos: int, rows: int
) -> tuple[float, float]:
    """mysql-replication alone: read the range and decode every row."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import WriteRowsEvent

    stream = BinLogStreamReader(
        connection_settings={**server},
        server_id=9001,
        resume_stream=True,
        blocking=False,
        log_file=start[0],
        log_pos=start[1],
        only_events=[WriteRowsEvent],
        use_column_name_cache=True,
        enable_logging=False,
    )
    count = 0
    started, cpu = time.perf_counter(), time.process_time()
    try:
        for event in stream:
            for row in event.rows:
                count += len(row["values"])
            if count >= rows * 10:
                break
    finally:
        stream.close()
    return time.perf_counter() - started, time.process_time() - cpu


def connector_props(
    server: dict[str, Any], bootstrap: str, prefix: str, **extra: str
) -> dict[str, str]:
    return {
        "name": prefix,
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": server["host"],
        "database.port": str(server["port"]),
        "database.user": server["user"],
        "database.password": server["password"],
        "database.server.id": "7001",
        "topic.prefix": prefix,
        "database.include.list": "bench",
        "schema.history.internal.kafka.bootstrap.servers": bootstrap,
        "schema.history.internal.kafka.topic": f"history.{prefix}",
        "max.batch.size": "4096",
        "max.queue.size": "16384",
        **extra,
    }


def task_rate(props: dict[str, str], store: Any, rows: int) -> tuple[float, float]:
    """Start a task and poll until ``rows`` change events of bench.t came; wall and CPU seconds.

    With ``rows`` 0, poll until the snapshot is over and commit what came (the offsets).
    """
    from kconnect_connector_mysql import MySqlSourceTask
    from kconnect_testkit import ScriptedSourceContext

    task = MySqlSourceTask()
    task.initialize(ScriptedSourceContext(dict(props), store))
    started, cpu = time.perf_counter(), time.process_time()
    task.start(props)
    got = 0
    try:
        if rows == 0:
            while not task.streaming.is_set():
                store.commit_records(task.poll() or [])
            return 0.0, 0.0
        while got < rows:
            batch = task.poll() or []
            got += sum(1 for r in batch if r.topic.endswith(".bench.t"))
        return time.perf_counter() - started, time.process_time() - cpu
    finally:
        task.stop()


MEASURES = (
    "stream-poll",
    "stream-kafka",
    "stream-kafka-lz4",
    "snapshot-poll",
    "snapshot-kafka",
    "snapshot-kafka-lz4",
)
# The runs into Kafka, each twice: with Kafka Connect's producer (no compression) and with
# producer.compression.type=lz4, the worker setting that takes the embedded broker off the
# critical path (it spends 10-20 us of CPU per uncompressed 4 KB record: page faults).
LZ4 = {"producer.compression.type": "lz4"}
WORKER_EXTRA: dict[str, str] = {}  # --set KEY=VALUE: worker properties for the Kafka runs


def worker_rate(
    props: dict[str, str],
    bootstrap: str,
    offsets_file: Path,
    rows: int,
    already: int,
    *,
    settings: dict[str, str] | None = None,
) -> tuple[float, float]:
    from kconnect_runtime import Standalone

    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
        "offset.storage.file.filename": str(offsets_file),
        "offset.flush.interval.ms": "1000",
        "listeners": "",
        **WORKER_EXTRA,
        **(settings or {}),
    }
    app = Standalone(worker, [props])
    started, cpu = time.perf_counter(), time.process_time()
    app.start()
    try:
        while True:
            assert app.herder is not None
            _, _, acked = app.herder.progress().get(props["name"], ("", 0, 0))
            if acked - already >= max(rows, 1):
                return time.perf_counter() - started, time.process_time() - cpu
            time.sleep(0.02)
    finally:
        app.stop()


def worker_rate_in_child(
    props: dict[str, str],
    bootstrap: str,
    offsets_file: Path,
    rows: int,
    already: int,
    *,
    settings: dict[str, str] | None = None,
) -> tuple[float, float]:
    """``worker_rate`` in a Python process of its own, as a worker is deployed.

    Measured in one process one after the other, a run into Kafka left its heap to the
    next (an uncompressed run grows librdkafka's queue to ~1.4 GB RSS), and the lz4 run after
    it came out 10-15 % slower than alone. Wall and CPU seconds are the child's own, from
    the worker's creation on (interpreter start-up excluded).
    """
    job = {
        "props": props,
        "bootstrap": bootstrap,
        "offsets_file": str(offsets_file),
        "rows": rows,
        "already": already,
        "settings": {**WORKER_EXTRA, **(settings or {})},
    }
    done = subprocess.run(
        [sys.executable, __file__, "--child-worker", json.dumps(job)],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return float(result["seconds"]), float(result["cpu"])


def _child_worker(job_text: str) -> None:
    job = json.loads(job_text)
    seconds, cpu = worker_rate(
        job["props"],
        job["bootstrap"],
        Path(job["offsets_file"]),
        job["rows"],
        job["already"],
        settings=job["settings"],
    )
    print(json.dumps({"seconds": seconds, "cpu": cpu}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a worker property for the runs into Kafka, e.g. producer.linger.ms=20",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        choices=MEASURES,
        help="run only these measures (and mysql-replication's, the reference); e.g. to profile",
    )
    parser.add_argument("--child-worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_worker is not None:
        _child_worker(args.child_worker)
        return
    only = set(args.only or MEASURES)
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--set wants KEY=VALUE, got {item!r}")
        WORKER_EXTRA[key.strip()] = value.strip()
    from kconnect_runtime import EmbeddedBroker
    from kconnect_testkit import InMemoryOffsetStore

    # One embedded broker per run into Kafka (unless --bootstrap-servers): it is memory-only
    # and its cost per record grows with what it holds (1M streamed records before made it
    # spend ~45 % more CPU per snapshot record, 13 -> 19 us, on the cores the worker needs).
    brokers: dict[str, tuple[Any, str]] = {}

    def broker_for(measure: str) -> str:
        """The bootstrap address for ``measure``; an embedded broker of its own by default."""
        if args.bootstrap_servers is not None:
            return str(args.bootstrap_servers)
        if measure not in brokers:
            broker = EmbeddedBroker()
            brokers[measure] = (broker, broker.start())
        return str(brokers[measure][1])

    def watch_broker(measure: str) -> None:
        proc = getattr(brokers.get(measure, (None,))[0], "_proc", None)
        SERVICE_PIDS.pop("broker", None)
        if proc is not None:
            SERVICE_PIDS["broker"] = proc.pid

    def drop_broker(measure: str) -> None:
        broker, _ = brokers.pop(measure, (None, ""))
        if broker is not None:
            broker.stop()

    # The streaming runs into Kafka: connector name, worker settings.
    streams = {
        "stream-kafka": ("benchs", {}),
        "stream-kafka-lz4": ("benchz", LZ4),
    }
    snapshots = {
        "snapshot-kafka": ("benchw", {}),
        "snapshot-kafka-lz4": ("benchx", LZ4),
    }
    rows = args.rows
    work = Path(tempfile.mkdtemp(prefix="kc-bench-cdc-work-"))
    try:
        with private_mariadb() as server:
            import pymysql

            conn = pymysql.connect(**server, autocommit=True)
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE bench")
                cur.execute(f"CREATE TABLE bench.t ({COLUMNS})")
            conn.close()
            # Schema-only runs record the table's schema, and an offset, before the fill.
            store = InMemoryOffsetStore()
            stream_props: dict[str, dict[str, str]] = {}
            for measure, (name, settings) in streams.items():
                if measure not in only:
                    continue
                bootstrap = broker_for(measure)
                stream_props[measure] = connector_props(
                    server, bootstrap, name, **{"snapshot.mode": "no_data"}
                )
                offsets = work / f"offsets-{name}.json"
                worker_rate(stream_props[measure], bootstrap, offsets, 0, 0, settings=settings)
            # The task runs (no Kafka for their records) keep their schema history here.
            task_props = connector_props(
                server, broker_for("task"), "bencht", **{"snapshot.mode": "no_data"}
            )
            task_rate(task_props, store, 0)
            start_file, start_pos, _end_file, end_pos, fill_s = fill(server, rows)
            print(f"filled {rows:,} rows in {fill_s:.1f} s ({rows / fill_s:,.0f} rows/s inserted)")
            results: list[tuple[str, float, float, dict[str, float]]] = []

            def measure(name: str, run: Any, *args: Any) -> None:
                services = service_cpu()
                seconds, cpu = run(*args)
                after = service_cpu()
                used = {k: v - services.get(k, 0.0) for k, v in after.items()}
                results.append((name, seconds, cpu, used))

            measure(
                "mysql-replication decode",
                raw_decode,
                server,
                (start_file, start_pos),
                end_pos,
                rows,
            )
            if "stream-poll" in only:
                measure("stream, task poll", task_rate, task_props, store, rows)
            for key, (name, settings) in streams.items():
                if key not in stream_props:
                    continue
                watch_broker(key)
                props = stream_props[key]
                label = "stream into Kafka" + (", lz4" if settings else "")
                offsets = work / f"offsets-{name}.json"
                bootstrap = props["schema.history.internal.kafka.bootstrap.servers"]
                run = functools.partial(worker_rate_in_child, settings=settings)
                measure(label, run, props, bootstrap, offsets, rows, 0)
                drop_broker(key)
            if "snapshot-poll" in only:
                snap_props = connector_props(server, broker_for("task"), "benchq")
                measure("snapshot, task poll", task_rate, snap_props, InMemoryOffsetStore(), rows)
            for key, (name, settings) in snapshots.items():
                if key not in only:
                    continue
                # The snapshot writes its own schema history: a fresh broker serves it.
                bootstrap = broker_for(key)
                watch_broker(key)
                label = "snapshot into Kafka" + (", lz4" if settings else "")
                props = connector_props(server, bootstrap, name)
                offsets = work / f"offsets-{name}.json"
                run = functools.partial(worker_rate_in_child, settings=settings)
                measure(label, run, props, bootstrap, offsets, rows, 0)
                drop_broker(key)
    finally:
        for key in list(brokers):
            drop_broker(key)
        shutil.rmtree(work, ignore_errors=True)
    settings = ", ".join(f"{k}={v}" for k, v in WORKER_EXTRA.items()) or "defaults"
    print(f"\n{rows:,} row changes, 10 columns, JSON with schemas into Kafka (worker: {settings})")
    # The CPU column counts CPU seconds of the process that ran the measure (the decoding,
    # the task, the worker; not the database or the broker): on a shared machine it is the
    # steadier figure. The last columns are the CPU mariadbd and the embedded broker used meanwhile, per row: what
    # they take of the machine's cores.
    print(
        f"{'measure':<28}{'seconds':>10}{'rows/s':>14}{'vs mysql-replication':>24}"
        f"{'rows/CPU-s':>14}{'vs (CPU)':>10}{'db us/row':>11}{'broker us/row':>15}"
    )
    _, raw_s, raw_cpu, _ = results[0]
    for name, seconds, cpu, services in results:
        print(
            f"{name:<28}{seconds:>10.2f}{rows / seconds:>14,.0f}{raw_s / seconds:>23.2f}x"
            f"{rows / max(cpu, 1e-9):>14,.0f}{raw_cpu / max(cpu, 1e-9):>9.2f}x"
            f"{services.get('mariadbd', 0.0) / rows * 1e6:>11.2f}"
            f"{services.get('broker', 0.0) / rows * 1e6:>15.2f}"
        )
    print("goals: streaming into Kafka >= 100,000 rows/s, snapshot into Kafka >= 100,000 rows/s")
    print(
        "', lz4': the worker with producer.compression.type=lz4; without it (Kafka Connect's"
        " producer default) the\nembedded broker spends its 'broker us/row' on one request at"
        " a time, and that bounds rows/s at 1e6 / that figure."
    )


if __name__ == "__main__":
    main()
