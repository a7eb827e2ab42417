"""kconnect against Apache Kafka Connect's Java worker, side by side, one workload at a time.

    .venv/bin/python bench/bench_vs_java.py --workload filestream      [--lines 1000000]
    .venv/bin/python bench/bench_vs_java.py --workload filestream-json [--lines 1000000]
    .venv/bin/python bench/bench_vs_java.py --workload cdc             [--rows 200000]
        [--rounds 3] [--line-bytes 100] [--bootstrap-servers HOST:PORT] [--mariadb HOST:PORT]
        [--side both|java|kconnect] [--profile DIR] [--workdir DIR]

Workloads (the same configs, the same input and the same Apache Kafka broker for both):

* ``filestream``: the quickstart, FileStreamSource -> Kafka -> FileStreamSink, StringConverter
  for keys and values, ``--lines`` lines of about ``--line-bytes`` bytes.
* ``filestream-json``: the same with JsonConverter (``schemas.enable=true`` for keys and
  values) and four SMTs on the source: HoistField$Value, InsertField$Value (a static
  field), InsertHeader and RegexRouter; the sink reads the routed topic.
* ``cdc``: Debezium's MariaDB connector (Java, from Maven Central, as the testkit runs it)
  against kconnect's, JSON with schemas, Kafka Connect's default producer settings (no
  compression). Two phases: ``snapshot`` (a table of ``--rows`` rows of ten columns,
  ``snapshot.mode=initial``) and ``stream`` (the binlog of ``--rows`` inserted rows, read
  from an offset each connector recorded before the rows were inserted).

Each round runs the Java worker (``ConnectStandalone``, full JIT, ``-Xmx2g`` as
``connect-standalone.sh`` gives it) and ``kconnect standalone`` one after the other, each
in a process of its own started from nothing (which side goes first alternates by round),
on fresh topics. Apache Kafka is the testkit's (``KafkaCluster``, one KRaft node) unless
``--bootstrap-servers`` names one; MariaDB is a private ``mariadbd`` unless ``--mariadb``
names one (user root, no password). Both workers get ``plugin.discovery=service_load``,
as the Java worker's own start-up warning advises (its default scans every jar by reflection
first: 10-40 s here before it moves a record).

Per run it prints: wall seconds from the worker's launch to the last record delivered (the
sink file holds every line; for ``cdc`` the table's topic holds every row), CPU seconds of
the worker process and its descendants (every thread: the JVM's JIT and GC threads,
librdkafka's), records/s, records per CPU-second, peak RSS, and seconds to the first record
delivered; under it, the CPU per record of the worker's threads by name (the JVM's
compiler and GC threads, the Kafka clients', librdkafka's; Python's threads share one
name). Then each side's best round and the ratios Java/kconnect on wall and on CPU
(above 1.0: kconnect is faster or cheaper). The outputs are checked: the FileStream sink
files must equal the input (``filestream``) or each other (``filestream-json``). Asserts
nothing about time.

``--profile DIR`` runs the kconnect side under cProfile, one profile per thread (the tasks
run in threads) on each thread's CPU clock, written to DIR; the bench prints the top
functions by own CPU time. The profiler's own cost inflates every figure of that run.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.modes import free_port
from kconnect_testkit import JavaConnectWorker, KafkaCluster

JAVA, KCONNECT = "Java", "kconnect"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
TIMEOUT_S = 1800.0

# The four SMTs of the JSON workload, as a Java operator writes them.
SMT_CHAIN = {
    "transforms": "hoist,insert,header,route",
    "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
    "transforms.hoist.field": "line",
    "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insert.static.field": "origin",
    "transforms.insert.static.value": "bench",
    "transforms.header.type": "org.apache.kafka.connect.transforms.InsertHeader",
    "transforms.header.header": "pipeline",
    "transforms.header.value.literal": "bench",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "(.*)",
    "transforms.route.replacement": "$1-routed",
}

# Both workers: the Java worker finds its plugins by their ServiceLoader manifests, as its own
# start-up warning advises; its default (hybrid_warn) also scans every jar by reflection,
# 10-40 s of start-up on this machine that says nothing about moving records.
WORKER_COMMON = {"plugin.discovery": "service_load"}

CDC_DATABASE = "bench_vs_java"
CDC_COLUMNS = (
    "id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, qty INT NOT NULL, "
    "amount DECIMAL(12, 2) NOT NULL, price DOUBLE NOT NULL, flag TINYINT(1) NOT NULL, "
    "day DATE NOT NULL, created DATETIME(3) NOT NULL, code BIGINT NULL, note VARCHAR(60) NULL"
)


# -- what a worker process uses -----------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields start after the last ')'.
    return text.rsplit(")", 1)[1].split()


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def tree_usage(root: int) -> tuple[float, int, dict[str, float]]:
    """CPU seconds (user + system, every thread, reaped children included) and peak RSS in
    bytes of ``root`` and every process below it, read from ``/proc`` now; and the CPU
    seconds of their threads by name (digits dropped: ``C2 CompilerThread0`` and ``1``
    count as one), which says where each side's CPU went: the JVM names its compiler, GC
    and Kafka client threads, librdkafka names its own (``rdk:broker1``), and Python's
    threads all carry the process's name."""
    cpu_ticks, peak = 0, 0
    threads: dict[str, float] = {}
    for pid in _descendants(root):
        fields = _stat(pid)
        if fields is None:
            continue
        # utime, stime, cutime, cstime: fields 14-17 of proc(5), 11-14 after the name.
        cpu_ticks += sum(int(v) for v in fields[11:15])
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak += int(line.split()[1]) * 1024
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                with contextlib.suppress(OSError):
                    name = (task / "comm").read_text().strip()
                    text = (task / "stat").read_text()
                    used = sum(int(v) for v in text.rsplit(")", 1)[1].split()[11:13])
                    group = re.sub(r"[\d#:/-]+$", "", name).strip() or name
                    threads[group] = threads.get(group, 0.0) + used / CLOCK_TICKS
    return cpu_ticks / CLOCK_TICKS, peak, threads


# -- watching for the last record ---------------------------------------------------------


@dataclasses.dataclass
class Result:
    workload: str
    side: str
    round_no: int
    records: int
    wall: float
    cpu: float
    first: float
    rss: int
    load: tuple[float, float]
    threads: dict[str, float] = dataclasses.field(default_factory=dict)


class Watch:
    """Follows delivery from the launch on: the times of the first and the last record, and
    the worker's CPU and peak RSS read the moment the last one is seen."""

    def __init__(self, records: int, count: Callable[[], int], pid: Callable[[], int | None]):
        self.records = records
        self._count = count
        self._pid = pid
        self.started = time.perf_counter()
        self.first: float | None = None
        self.last: float | None = None
        self.usage: tuple[float, int, dict[str, float]] = (0.0, 0, {})
        self.seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.seen = self._count()
            now = time.perf_counter()
            if self.seen and self.first is None:
                self.first = now - self.started
            if self.seen >= self.records:
                self.last = now - self.started
                pid = self._pid()
                if pid is not None:
                    self.usage = tree_usage(pid)
                return
            time.sleep(0.01)

    def wait(self, alive: Callable[[], str | None], what: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while self._thread.is_alive():
            problem = alive()
            if problem is not None:
                self._stop.set()
                raise SystemExit(f"{what}: {problem} ({self.seen:,} of {self.records:,} came)")
            if time.monotonic() > deadline:
                self._stop.set()
                raise SystemExit(f"{what}: only {self.seen:,} of {self.records:,} in time")
            self._thread.join(0.2)


class LineCount:
    """Lines in a file, reading only what was appended since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.position = 0
        self.lines = 0

    def __call__(self) -> int:
        try:
            with self.path.open("rb") as f:
                f.seek(self.position)
                chunk = f.read(64 << 20)
        except FileNotFoundError:
            return 0
        self.position += len(chunk)
        self.lines += chunk.count(b"\n")
        return self.lines


class TopicCount:
    """Records in a one-partition topic: its high watermark (Apache Kafka numbers every
    record, and no transactions run here), asked of the broker without reading a record."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-vs-java"})
        self._partition = TopicPartition(topic, 0)

    def __call__(self) -> int:
        try:
            _, high = self._consumer.get_watermark_offsets(self._partition, timeout=5)
        except Exception:  # the topic's leader is not known yet
            return 0
        return int(high)

    def close(self) -> None:
        self._consumer.close()


# -- the two sides --------------------------------------------------------------------------


class Side:
    """One worker process: Java's ConnectStandalone or ``kconnect standalone``."""

    def __init__(self, name: str, workdir: Path) -> None:
        self.name = name
        self.workdir = workdir

    def launch(self, worker: dict[str, str], connectors: list[dict[str, str]]) -> None:
        raise NotImplementedError

    def pid(self) -> int | None:
        raise NotImplementedError

    def problem(self) -> str | None:
        """Why the worker cannot deliver any more (it exited), or None."""
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError


class JavaSide(Side):
    def __init__(self, workdir: Path, bootstrap: str, *, debezium: bool) -> None:
        super().__init__(JAVA, workdir)
        self._bootstrap = bootstrap
        self._debezium = debezium
        self._worker: JavaConnectWorker | None = None

    def launch(self, worker: dict[str, str], connectors: list[dict[str, str]]) -> None:
        self._worker = JavaConnectWorker(
            self._bootstrap,
            mode="standalone",
            config=worker,
            connectors=connectors,
            debezium=self._debezium,
            workdir=self.workdir,
            heap="2g",
            quick_start=False,
        )
        self._worker.start(timeout_s=300)

    def pid(self) -> int | None:
        proc = self._worker.proc if self._worker is not None else None
        return None if proc is None else proc.pid

    def problem(self) -> str | None:
        proc = self._worker.proc if self._worker is not None else None
        if proc is not None and proc.poll() is not None:
            return f"the Java worker exited with {proc.returncode}; log: {self._worker.log}"  # type: ignore[union-attr]
        return None

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.stop()


class KconnectSide(Side):
    def __init__(self, workdir: Path, profile: Path | None) -> None:
        super().__init__(KCONNECT, workdir)
        self._proc: subprocess.Popen[bytes] | None = None
        self._profile = profile
        self.log = workdir / "kconnect.log"

    def launch(self, worker: dict[str, str], connectors: list[dict[str, str]]) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        props = {**worker, "listeners": f"http://127.0.0.1:{free_port()}"}
        paths = [_properties(self.workdir / "worker.properties", props)]
        for index, connector in enumerate(connectors):
            paths.append(_properties(self.workdir / f"connector-{index}.properties", connector))
        if self._profile is None:
            command = [sys.executable, "-m", "kconnect_runtime.cli", "standalone", *paths]
        else:
            command = [sys.executable, __file__, "--profiled-kconnect", str(self._profile), *paths]
        with self.log.open("ab") as log:
            self._proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)

    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def problem(self) -> str | None:
        if self._proc is not None and self._proc.poll() is not None:
            tail = self.log.read_text(errors="replace")[-1500:]
            return f"kconnect exited with {self._proc.returncode}: {tail}"
        return None

    def stop(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        self._proc.send_signal(signal.SIGTERM)
        try:
            self._proc.wait(120)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def _properties(path: Path, values: dict[str, str]) -> str:
    # Java's Properties format: a backslash escapes, so a literal one is doubled.
    lines = [f"{k}={str(v).replace(chr(92), chr(92) * 2)}" for k, v in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def measure(
    side: Side,
    *,
    workload: str,
    round_no: int,
    worker: dict[str, str],
    connectors: list[dict[str, str]],
    records: int,
    count: Callable[[], int],
) -> Result:
    load_before = os.getloadavg()[0]
    watch = Watch(records, count, side.pid)
    try:
        side.launch(worker, connectors)
        watch.wait(side.problem, f"{workload}, {side.name}, round {round_no + 1}")
    finally:
        side.stop()
    assert watch.last is not None and watch.first is not None
    cpu, rss, threads = watch.usage
    result = Result(
        workload,
        side.name,
        round_no,
        records,
        watch.last,
        cpu,
        watch.first,
        rss,
        (load_before, os.getloadavg()[0]),
        threads,
    )
    print_row(result)
    top = sorted(threads.items(), key=lambda item: -item[1])[:8]
    print(
        "      CPU by thread (us/record): "
        + ", ".join(f"{name} {used / records * 1e6:,.1f}" for name, used in top),
        flush=True,
    )
    return result


# -- the table ----------------------------------------------------------------------------

HEADER = (
    f"{'workload':<22}{'side':<10}{'round':>6}{'wall s':>9}{'CPU s':>8}{'records/s':>12}"
    f"{'rec/CPU-s':>12}{'peak RSS MB':>13}{'first rec s':>13}{'load':>12}"
)


def print_row(r: Result) -> None:
    print(
        f"{r.workload:<22}{r.side:<10}{r.round_no + 1:>6}{r.wall:>9.2f}{r.cpu:>8.2f}"
        f"{r.records / r.wall:>12,.0f}{r.records / max(r.cpu, 1e-9):>12,.0f}"
        f"{r.rss / 1e6:>13,.0f}{r.first:>13.2f}{r.load[0]:>6.1f}>{r.load[1]:<5.1f}",
        flush=True,
    )


def print_summary(results: list[Result]) -> None:
    print("\nbest round of each side (least wall, least CPU, least RSS, soonest first record):")
    print(HEADER.rsplit("load", 1)[0].rstrip() + f"{'Java/kc wall':>14}{'Java/kc CPU':>13}")
    for workload in dict.fromkeys(r.workload for r in results):
        best: dict[str, Result] = {}
        for side in (JAVA, KCONNECT):
            mine = [r for r in results if r.workload == workload and r.side == side]
            if not mine:
                continue
            best[side] = Result(
                workload,
                side,
                -1,
                mine[0].records,
                min(r.wall for r in mine),
                min(r.cpu for r in mine),
                min(r.first for r in mine),
                min(r.rss for r in mine),
                (0.0, 0.0),
            )
        for side, r in best.items():
            ratios = ""
            if side == KCONNECT and JAVA in best:
                java = best[JAVA]
                ratios = f"{java.wall / r.wall:>14.2f}{java.cpu / max(r.cpu, 1e-9):>13.2f}"
            print(
                f"{r.workload:<22}{r.side:<10}{'best':>6}{r.wall:>9.2f}{r.cpu:>8.2f}"
                f"{r.records / r.wall:>12,.0f}{r.records / max(r.cpu, 1e-9):>12,.0f}"
                f"{r.rss / 1e6:>13,.0f}{r.first:>13.2f}{ratios}"
            )
        rates = ", ".join(f"{side} {r.records / r.wall:,.0f} records/s" for side, r in best.items())
        print(f"  {workload}, best rounds: {rates}")


# -- FileStream workloads -------------------------------------------------------------------


def make_input(path: Path, lines: int, line_bytes: int) -> int:
    body = "x" * max(1, line_bytes - 12)
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, lines, 10000):
            f.write("".join(f"{i:010d} {body}\n" for i in range(start, min(start + 10000, lines))))
    return path.stat().st_size


def _admin(bootstrap: str) -> AdminClient:
    # librdkafka's informational lines go to logging (and stay below its default level).
    return AdminClient({"bootstrap.servers": bootstrap, "logger": logging.getLogger("bench.kafka")})


def create_topics(bootstrap: str, *topics: str) -> None:
    admin = _admin(bootstrap)
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        future.result()


def delete_topics(bootstrap: str, *topics: str) -> None:
    """Drop a run's topics (a CDC run writes gigabytes)."""
    admin = _admin(bootstrap)
    for future in admin.delete_topics(list(topics)).values():
        with contextlib.suppress(Exception):
            future.result()


def filestream_rounds(
    args: argparse.Namespace, bootstrap: str, work: Path, sides: dict[str, Callable[[Path], Side]]
) -> tuple[list[Result], list[str]]:
    workload = args.workload
    json_chain = workload == "filestream-json"
    source = work / "input.txt"
    size = make_input(source, args.lines, args.line_bytes)
    print(f"input: {args.lines:,} lines, {size / 1e6:.1f} MB; broker {bootstrap}")
    print(HEADER, flush=True)
    converter = (
        "org.apache.kafka.connect.json.JsonConverter"
        if json_chain
        else "org.apache.kafka.connect.storage.StringConverter"
    )
    results: list[Result] = []
    problems: list[str] = []
    expected = source.read_bytes()
    for round_no in range(args.rounds):
        order = [n for n in ((JAVA, KCONNECT)[:: 1 if round_no % 2 == 0 else -1]) if n in sides]
        outputs: dict[str, Path] = {}
        for side_name in order:
            tag = f"{side_name.lower()}-{round_no}-{uuid.uuid4().hex[:6]}"
            run_dir = work / tag
            run_dir.mkdir()
            topic = f"bench-{tag}"
            sink_topic = f"{topic}-routed" if json_chain else topic
            create_topics(bootstrap, *dict.fromkeys([topic, sink_topic]))
            sink = run_dir / "sink.txt"
            worker = {
                "bootstrap.servers": bootstrap,
                "key.converter": converter,
                "value.converter": converter,
                "key.converter.schemas.enable": "true",
                "value.converter.schemas.enable": "true",
                "offset.storage.file.filename": str(run_dir / "connect.offsets"),
                # connect-standalone.properties' value.
                "offset.flush.interval.ms": "10000",
                **WORKER_COMMON,
            }
            connectors = [
                {
                    "name": f"{tag}-source",
                    "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                    "tasks.max": "1",
                    "file": str(source),
                    "topic": topic,
                    **(SMT_CHAIN if json_chain else {}),
                },
                {
                    "name": f"{tag}-sink",
                    "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                    "tasks.max": "1",
                    "file": str(sink),
                    "topics": sink_topic,
                },
            ]
            side = sides[side_name](run_dir)
            results.append(
                measure(
                    side,
                    workload=workload,
                    round_no=round_no,
                    worker=worker,
                    connectors=connectors,
                    records=args.lines,
                    count=LineCount(sink),
                )
            )
            outputs[side_name] = sink
            delete_topics(bootstrap, *dict.fromkeys([topic, sink_topic]))
        problems.extend(check_outputs(workload, round_no, outputs, expected, json_chain))
        for sink in outputs.values():
            sink.unlink()
    return results, problems


def check_outputs(
    workload: str, round_no: int, outputs: dict[str, Path], expected: bytes, json_chain: bool
) -> list[str]:
    """What differs: each sink file against the input (StringConverter), or kconnect's
    against Java's (the chain's Structs, as each side's FileStreamSink writes them)."""
    problems = []
    got = {name: path.read_bytes() for name, path in outputs.items()}
    if json_chain:
        pairs = []
        if len(got) == 2:
            pairs = [(KCONNECT, got[KCONNECT], got[JAVA], "Java's sink file")]
    else:
        pairs = [(name, data, expected, "the input") for name, data in got.items()]
    for name, got, want, against in pairs:
        if got != want:
            pairs_of_lines = zip(got.split(b"\n"), want.split(b"\n"), strict=False)
            line = next((i for i, (a, b) in enumerate(pairs_of_lines) if a != b), None)
            problems.append(
                f"{workload}, round {round_no + 1}: {name}'s sink file differs from {against}"
                f" (first different line: {line})"
            )
    return problems


# -- CDC workload ---------------------------------------------------------------------------


@contextlib.contextmanager
def mariadb(address: str | None) -> Iterator[dict[str, Any]]:
    if address is not None:
        host, _, port = address.rpartition(":")
        yield {"host": host or "127.0.0.1", "port": int(port), "user": "root", "password": ""}
        return
    from bench_cdc import private_mariadb  # the same private server bench_cdc.py starts

    with private_mariadb() as server:
        yield server


def fill(server: dict[str, Any], rows: int) -> float:
    import pymysql

    conn = pymysql.connect(**server, autocommit=True)
    started = time.perf_counter()
    with conn.cursor() as cur:
        for first in range(0, rows, 1000):
            values = ",".join(
                f"({i}, 'name-{i}', {i % 1000}, {i % 100000}.25, {i * 0.5}, {i % 2}, "
                f"'2024-01-{1 + i % 28:02d}', '2024-01-01 00:00:{i % 60:02d}.123', "
                f"{'NULL' if i % 3 == 0 else i * 7}, {'NULL' if i % 2 else repr('note ' + str(i))})"
                for i in range(first, min(rows, first + 1000))
            )
            cur.execute(f"INSERT INTO {CDC_DATABASE}.t VALUES {values}")
    conn.close()
    return time.perf_counter() - started


def cdc_rounds(
    args: argparse.Namespace, bootstrap: str, work: Path, sides: dict[str, Callable[[Path], Side]]
) -> tuple[list[Result], list[str]]:
    import pymysql

    rows = args.rows
    results: list[Result] = []
    with mariadb(args.mariadb) as server:
        conn = pymysql.connect(**server, autocommit=True)
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {CDC_DATABASE}")
            cur.execute(f"CREATE DATABASE {CDC_DATABASE}")
            cur.execute(f"CREATE TABLE {CDC_DATABASE}.t ({CDC_COLUMNS})")
        conn.close()
        server_ids = iter(range(7101, 7999))
        worker = {
            "bootstrap.servers": bootstrap,
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "true",
            "value.converter.schemas.enable": "true",
            "offset.flush.interval.ms": "1000",
            **WORKER_COMMON,
        }

        def connector(prefix: str, mode: str) -> dict[str, str]:
            return {
                "name": prefix,
                "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
                "tasks.max": "1",
                "database.hostname": server["host"],
                "database.port": str(server["port"]),
                "database.user": server["user"],
                "database.password": server["password"],
                "database.server.id": str(next(server_ids)),
                "topic.prefix": prefix,
                "database.include.list": CDC_DATABASE,
                "snapshot.mode": mode,
                "schema.history.internal.kafka.bootstrap.servers": bootstrap,
                "schema.history.internal.kafka.topic": f"history.{prefix}",
            }

        # Streaming: each run's connector records its schema and binlog position now, on
        # the empty table (its schema change events carry the offset), and is stopped; the
        # rows go in after, and the measured run resumes from there.
        streams: dict[tuple[int, str], tuple[dict[str, str], dict[str, str], Path]] = {}
        for round_no in range(args.rounds):
            for side_name, make_side in sides.items():
                prefix = f"s{side_name[0].lower()}{round_no}{uuid.uuid4().hex[:5]}"
                run_dir = work / prefix
                run_dir.mkdir()
                config = connector(prefix, "no_data")
                settings = {**worker, "offset.storage.file.filename": str(run_dir / "offsets")}
                create_topics(bootstrap, f"{prefix}.{CDC_DATABASE}.t")
                schema_topic = TopicCount(bootstrap, prefix)
                side = make_side(run_dir / "prepare")
                try:
                    side.launch(settings, [config])
                    deadline = time.monotonic() + 300
                    while schema_topic() < 1:
                        problem = side.problem()
                        if problem is not None or time.monotonic() > deadline:
                            raise SystemExit(f"cdc, {side_name}: no schema change event: {problem}")
                        time.sleep(0.2)
                finally:
                    side.stop()
                    schema_topic.close()
                offsets = run_dir / "offsets"
                if not offsets.exists() or not offsets.stat().st_size:
                    raise SystemExit(
                        f"cdc, {side_name}: the connector stopped without writing offsets to "
                        f"{offsets}; its log is in {run_dir / 'prepare'}"
                    )
                streams[(round_no, side_name)] = (settings, config, run_dir)
        took = fill(server, rows)
        print(f"filled {rows:,} rows of 10 columns in {took:.1f} s; broker {bootstrap}")
        print(HEADER, flush=True)
        for round_no in range(args.rounds):
            order = [n for n in (JAVA, KCONNECT)[:: 1 if round_no % 2 == 0 else -1] if n in sides]
            for phase in ("snapshot", "stream"):
                for side_name in order:
                    if phase == "stream":
                        settings, config, run_dir = streams[(round_no, side_name)]
                        prefix = config["topic.prefix"]
                    else:
                        prefix = f"n{side_name[0].lower()}{round_no}{uuid.uuid4().hex[:5]}"
                        run_dir = work / prefix
                        run_dir.mkdir()
                        config = connector(prefix, "initial")
                        settings = {**worker, "offset.storage.file.filename": str(run_dir / "o")}
                        create_topics(bootstrap, f"{prefix}.{CDC_DATABASE}.t")
                    table_topic = f"{prefix}.{CDC_DATABASE}.t"
                    counter = TopicCount(bootstrap, table_topic)
                    side = sides[side_name](run_dir / phase)
                    try:
                        results.append(
                            measure(
                                side,
                                workload=f"cdc {phase}",
                                round_no=round_no,
                                worker=settings,
                                connectors=[config],
                                records=rows,
                                count=counter,
                            )
                        )
                    finally:
                        counter.close()
                    delete_topics(bootstrap, table_topic, prefix, f"history.{prefix}")
    return results, []


# -- profiling the kconnect side ------------------------------------------------------------


def profiled_kconnect(out: Path, paths: list[str]) -> None:
    """``kconnect standalone`` with one cProfile per thread (its CPU time), all dumped at
    exit."""
    profiled_cli(out, "run", ["standalone", *paths])


def profiled_cli(out: Path, label: str, argv: list[str]) -> None:
    """The ``kconnect`` command ``argv`` with one cProfile per thread (its CPU time), dumped
    at exit into ``out/<label>-<pid>/``, one file per thread."""
    import atexit
    import cProfile

    from kconnect_runtime.cli import main as cli_main

    out = out / f"{label}-{os.getpid()}"
    out.mkdir(parents=True, exist_ok=True)
    profiles: list[tuple[str, cProfile.Profile]] = []
    run = threading.Thread.run

    def profiled_run(self: threading.Thread) -> None:
        # Each thread's CPU clock, not the wall clock: on a loaded machine a thread's wall
        # time is mostly waiting for a core.
        profile = cProfile.Profile(time.thread_time)
        profiles.append((self.name, profile))
        profile.enable()
        try:
            run(self)
        finally:
            profile.disable()

    def dump() -> None:
        for index, (name, profile) in enumerate(profiles):
            safe = "".join(c if c.isalnum() else "_" for c in name)[:60]
            profile.dump_stats(str(out / f"{index:03d}-{safe}.prof"))

    threading.Thread.run = profiled_run  # type: ignore[method-assign]
    atexit.register(dump)
    with contextlib.suppress(SystemExit):
        cli_main(argv)


def print_profile(out: Path) -> None:
    import pstats

    files = sorted(str(p) for p in out.glob("*/*.prof"))
    if not files:
        print(f"no profiles in {out}")
        return
    stats = pstats.Stats(files[0])
    for extra in files[1:]:
        stats.add(extra)
    print(f"\nkconnect under cProfile, every thread ({len(files)} profiles in {out}):")
    stats.sort_stats("tottime").print_stats(25)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--profiled-kconnect":
        profiled_kconnect(Path(sys.argv[2]), sys.argv[3:])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--workload", choices=("filestream", "filestream-json", "cdc"), required=True
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--line-bytes", type=int, default=100)
    parser.add_argument("--rows", type=int, default=200_000, help="cdc: rows (default 200,000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--mariadb", default=None, help="cdc: HOST:PORT of a running MariaDB")
    parser.add_argument(
        "--side", choices=("both", "java", "kconnect"), default="both", help="run only one side"
    )
    parser.add_argument("--profile", type=Path, default=None, help="cProfile kconnect into DIR")
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep the workers' logs and configs here"
    )
    args = parser.parse_args()
    if args.rounds < 1 or args.lines < 1 or args.rows < 1:
        parser.error("--rounds, --lines and --rows must be >= 1")
    cluster = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        cluster = KafkaCluster(quick_start=False, heap="1g")
        bootstrap = cluster.start()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kc-vs-java-"))
    work.mkdir(parents=True, exist_ok=True)
    debezium = args.workload == "cdc"
    sides: dict[str, Callable[[Path], Side]] = {
        JAVA: lambda d: JavaSide(d, bootstrap, debezium=debezium),
        KCONNECT: lambda d: KconnectSide(d, args.profile),
    }
    if args.side != "both":
        sides = {name: make for name, make in sides.items() if name.lower() == args.side}
    print(
        f"{args.workload}: {args.rounds} round(s), Java Kafka Connect and kconnect alternately, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    try:
        if args.workload == "cdc":
            results, problems = cdc_rounds(args, bootstrap, work, sides)
        else:
            results, problems = filestream_rounds(args, bootstrap, work, sides)
    finally:
        if cluster is not None:
            cluster.stop()
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    print_summary(results)
    print(
        "wall: the worker's launch to the last record delivered; CPU: the worker process and "
        "its descendants, every thread (JIT and GC included), over the same span; ratios "
        "above 1.0 favour kconnect. The broker and the database are other processes."
    )
    if args.profile is not None:
        print_profile(args.profile)
    if problems:
        print(json.dumps(problems, indent=1))
        raise SystemExit("the two sides' outputs differ: the figures above compare unlike work")


if __name__ == "__main__":
    main()
