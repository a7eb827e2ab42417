"""Distributed mode against standalone: records/s of one, two and three workers, and failover.

    .venv/bin/python bench/bench_distributed.py [--rows 600000] [--connectors 6]
        [--workers 1,2,3] [--rounds 1] [--bootstrap-servers HOST:PORT]
        [--before DIR] [--profile DIR] [--no-failover]

One pipeline of ``--connectors`` FileStream sink connectors (one task each) drains
``--rows`` lines, spread evenly over that many topics filled beforehand, into files. The
same connectors (same topics, same sink configs, same converters) run in:

* ``raw``: plain confluent-kafka consumers, one thread per topic, writing the same files in
  this process: the floor for any Python framework on this machine;
* ``standalone``: one ``kconnect standalone`` process;
* ``distributed-N``: N ``kconnect distributed`` worker processes of one group (connectors
  and tasks are assigned to workers separately), for each N of ``--workers``.

Each kconnect case starts its worker processes, waits until their REST APIs answer, then
creates the connectors through REST, one after the other on a thread of its own while the
lines are counted, and times from the first create to the last line in the files: wall
seconds, seconds to the last create's answer, seconds to the first line (the fixed start-up
latency: group rebalance, task start, the consumer's first fetch), the rate after the first
line, and the
CPU seconds of the worker processes and their descendants over the same span (from
``/proc``; every thread, librdkafka's included). Ratios are to raw and to standalone.
Apache Kafka is the testkit's (``KafkaCluster``, one KRaft node) unless
``--bootstrap-servers`` names a running broker.

``--before DIR`` runs every kconnect case a second time, interleaved, with the
``kconnect_runtime`` package found in DIR (e.g. an older checkout's ``runtime/src``)
ahead of this one: before/after in one run on the same broker. ``--rounds`` repeats the
cases, interleaved; the summary gives each case's median. ``--profile DIR`` runs the
standalone and one-worker cases under cProfile (one profile per thread on its CPU clock;
the profiler's own cost inflates their figures) and prints the top functions of each.

Then the failover figure: with data flowing into 2 workers, the time from ``kill -9`` of
one to the first line its connectors write on the other. Asserts nothing about time; on a
2-core machine expect no scaling from more workers (they share the cores with the broker).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from bench_vs_java import (  # the same /proc reading, line counting and profiling
    LineCount,
    profiled_cli,
    tree_usage,
)
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.modes import free_port
from kconnect_testkit import KafkaCluster

SESSION_MS = 6000
TIMEOUT_S = float(os.environ.get("BENCH_DISTRIBUTED_TIMEOUT_S", "900"))
STANDALONE = "standalone"


def fill(bootstrap: str, topics: list[str], rows: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        future.result()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    per_topic = rows // len(topics)
    for topic in topics:
        for i in range(per_topic):
            producer.produce(topic, value=f"{topic}:{i:09d}".encode())
            if i % 10000 == 0:
                producer.poll(0)
        producer.flush()


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@dataclasses.dataclass
class Result:
    case: str
    rows: int
    wall: float  # first create (raw: start) to the last line
    first: float  # first create to the first line
    cpu: float  # the worker processes' CPU seconds over ``wall``
    load: float
    threads: dict[str, float] = dataclasses.field(default_factory=dict)  # CPU s by name
    created: float = 0.0  # first create to the last create's answer (raw: 0)

    @property
    def rate(self) -> float:
        return self.rows / self.wall

    @property
    def steady(self) -> float:
        """Records/s from the first line to the last (start-up latency left out)."""
        return self.rows / max(self.wall - self.first, 1e-9)


def raw(bootstrap: str, topics: list[str], out: Path, rows: int) -> Result:
    """Plain consumers, one thread per topic, writing lines to files."""
    load = os.getloadavg()[0]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    firsts: list[float] = []

    def drain(topic: str) -> None:
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"raw-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])  # no group join to wait for
        want = rows // len(topics)
        got = 0
        with (out / f"raw-{topic}.txt").open("wb") as f:
            while got < want:
                messages = consumer.consume(10000, timeout=0.5)
                f.write(b"".join(m.value() + b"\n" for m in messages if m.error() is None))
                got += sum(1 for m in messages if m.error() is None)
                if got and not firsts:
                    firsts.append(time.perf_counter() - start)
        consumer.close()

    threads = [threading.Thread(target=drain, args=(t,)) for t in topics]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_before
    return Result("raw", rows, wall, min(firsts, default=wall), cpu, load)


# -- worker processes ---------------------------------------------------------------------


class Workers:
    """kconnect worker processes: one ``standalone`` or N ``distributed`` of one group."""

    def __init__(
        self,
        bootstrap: str,
        tmp: Path,
        *,
        mode: str = "distributed",
        delay_ms: int = 0,
        pythonpath: Path | None = None,
        profile: Path | None = None,
    ) -> None:
        self.bootstrap = bootstrap
        self.tmp = tmp
        self.mode = mode
        self.group = f"bench-{uuid.uuid4().hex[:6]}"
        self.delay_ms = delay_ms
        self.pythonpath = pythonpath
        self.profile = profile
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def _props(self, port: int) -> dict[str, str]:
        # Settings both modes share; the connectors' own configs are the same too.
        props = {
            "bootstrap.servers": self.bootstrap,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "consumer.session.timeout.ms": str(SESSION_MS),
            "offset.flush.interval.ms": "1000",
            "listeners": f"http://127.0.0.1:{port}",
        }
        if self.mode == STANDALONE:
            props["offset.storage.file.filename"] = str(self.tmp / f"offsets-{port}")
            return props
        return {
            **props,
            "group.id": self.group,
            "config.storage.topic": f"{self.group}-configs",
            "offset.storage.topic": f"{self.group}-offsets",
            "status.storage.topic": f"{self.group}-status",
            "config.storage.replication.factor": "1",
            "offset.storage.replication.factor": "1",
            "status.storage.replication.factor": "1",
            "offset.storage.partitions": "3",
            "status.storage.partitions": "3",
            "session.timeout.ms": str(SESSION_MS),
            "heartbeat.interval.ms": "1000",
            "scheduled.rebalance.max.delay.ms": str(self.delay_ms),
        }

    def start(self, count: int) -> list[int]:
        ports = []
        for _ in range(count):
            port = free_port()
            path = self.tmp / f"worker-{port}.properties"
            path.write_text("".join(f"{k}={v}\n" for k, v in self._props(port).items()))
            env = {**os.environ, "PYTHONUNBUFFERED": "1"}
            if self.pythonpath is not None:
                env["PYTHONPATH"] = os.pathsep.join(
                    [str(self.pythonpath), *filter(None, [os.environ.get("PYTHONPATH")])]
                )
            if self.profile is None:
                command = [sys.executable, "-m", "kconnect_runtime.cli", self.mode, str(path)]
            else:
                command = [
                    sys.executable,
                    __file__,
                    "--profiled-worker",
                    str(self.profile),
                    self.mode,
                    str(path),
                ]
            with (self.tmp / f"worker-{port}.log").open("ab") as log:
                self.procs[port] = subprocess.Popen(
                    command, cwd=self.tmp, stdout=log, stderr=subprocess.STDOUT, env=env
                )
            ports.append(port)
        for port in ports:
            deadline = time.monotonic() + 90
            while not self._up(port):
                if self.procs[port].poll() is not None or time.monotonic() > deadline:
                    log_text = (self.tmp / f"worker-{port}.log").read_text(errors="replace")
                    raise SystemExit(f"worker on port {port} did not start: {log_text[-1500:]}")
                time.sleep(0.1)
        return ports

    @staticmethod
    def _up(port: int) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    def create(self, port: int, name: str, topic: str, file: Path) -> None:
        config = {
            "name": name,
            "connector.class": "FileStreamSink",
            "file": str(file),
            "topics": topic,
            "tasks.max": "1",
        }
        response = httpx.post(
            f"http://127.0.0.1:{port}/connectors",
            json={"name": name, "config": config},
            timeout=60,
        )
        response.raise_for_status()

    def owners(self, port: int) -> dict[str, str]:
        body: dict[str, Any] = httpx.get(
            f"http://127.0.0.1:{port}/connectors", params={"expand": "status"}, timeout=30
        ).json()
        return {
            n: e["status"]["tasks"][0]["worker_id"]
            for n, e in body.items()
            if e["status"]["tasks"] and e["status"]["tasks"][0]["state"] == "RUNNING"
        }

    def cpu(self) -> tuple[float, dict[str, float]]:
        """CPU seconds of every worker process and its descendants so far, and of their
        threads by name (librdkafka names its own: ``rdk:broker``; Python's threads share
        the process's name)."""
        total, threads = 0.0, {}
        for proc in self.procs.values():
            cpu, _, by_name = tree_usage(proc.pid)
            total += cpu
            for name, used in by_name.items():
                threads[name] = threads.get(name, 0.0) + used
        return total, threads

    def kill(self, port: int) -> None:
        proc = self.procs.pop(port)
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()


def throughput(
    bootstrap: str,
    tmp: Path,
    topics: list[str],
    rows: int,
    case: str,
    *,
    pythonpath: Path | None = None,
    profile: Path | None = None,
    keep: bool = False,
) -> Result:
    """One kconnect case: its workers started, then timed from the first create on."""
    workers = 1 if case.startswith(STANDALONE) else int(case.split("-")[1])
    mode = STANDALONE if case.startswith(STANDALONE) else "distributed"
    run_id = uuid.uuid4().hex[:6]
    run_dir = tmp / f"{case}-{run_id}"
    run_dir.mkdir()
    cluster = Workers(bootstrap, run_dir, mode=mode, pythonpath=pythonpath, profile=profile)
    try:
        ports = cluster.start(workers)
        files = {t: run_dir / f"sink-{t}.txt" for t in topics}
        counters = [LineCount(f) for f in files.values()]
        want = rows // len(topics) * len(topics)
        load = os.getloadavg()[0]
        cpu_before, threads_before = cluster.cpu()
        start = time.perf_counter()
        created: list[float] = []
        failed: list[BaseException] = []

        def create_all() -> None:
            # One after the other, as an operator's script does; lines are counted meanwhile.
            try:
                for i, topic in enumerate(topics):
                    # A name of its own per run: a sink's consumer group (connect-<name>)
                    # starts from the offsets it committed, and every run reads the same
                    # topics from the start.
                    name = f"sink-{run_id}-{i}"
                    cluster.create(ports[i % len(ports)], name, topic, files[topic])
                created.append(time.perf_counter() - start)
            except BaseException as exc:
                failed.append(exc)

        creator = threading.Thread(target=create_all, name="create", daemon=True)
        creator.start()
        first: float | None = None
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            seen = sum(c() for c in counters)
            now = time.perf_counter()
            if seen and first is None:
                first = now - start
            if seen >= want:
                break
            problem = f"creating the connectors failed: {failed[0]}" if failed else None
            if time.monotonic() > deadline:
                problem = f"only {seen:,} of {want:,} lines in time"
            for port, proc in cluster.procs.items():
                if proc.poll() is not None:
                    problem = f"the worker on port {port} exited with {proc.returncode}"
            if problem is not None:
                logs = "".join(
                    f"\n--- {p.name}:\n{p.read_text(errors='replace')[-3000:]}"
                    for p in run_dir.glob("worker-*.log")
                )
                raise SystemExit(f"{case}: {problem}{logs}")
            time.sleep(0.01)
        wall = now - start
        cpu, threads = cluster.cpu()
        threads = {n: used - threads_before.get(n, 0.0) for n, used in threads.items()}
        creator.join(60)
        assert first is not None
        result = Result(case, want, wall, first, cpu - cpu_before, load, threads)
        result.created = created[0] if created else wall
        return result
    finally:
        cluster.stop()
        if not keep:
            shutil.rmtree(run_dir, ignore_errors=True)


def failover(bootstrap: str, tmp: Path, delay_ms: int) -> float:
    cluster = Workers(bootstrap, tmp, delay_ms=delay_ms)
    topics = [f"fo-{uuid.uuid4().hex[:6]}-{i}" for i in range(4)]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        future.result()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    stop = threading.Event()

    def feed() -> None:
        i = 0
        while not stop.wait(0.02):
            for topic in topics:
                producer.produce(topic, value=f"{topic}:{i}".encode())
            i += 1
            producer.poll(0)
        producer.flush()

    feeder = threading.Thread(target=feed, daemon=True)
    try:
        a, b = cluster.start(2)
        files = {t: tmp / f"fo-{t}.txt" for t in topics}
        for i, topic in enumerate(topics):
            cluster.create(a, f"fo-{i}", topic, files[topic])
        feeder.start()
        deadline = time.monotonic() + 120
        while len(cluster.owners(a)) < len(topics):
            if time.monotonic() > deadline:
                raise SystemExit("connectors did not start")
            time.sleep(0.1)
        victim = f"127.0.0.1:{b}"
        moved = [n for n, w in cluster.owners(a).items() if w == victim]
        moved_files = [files[topics[int(n.rsplit("-", 1)[1])]] for n in moved]
        time.sleep(1)
        sizes = [count_lines(f) for f in moved_files]
        killed = time.perf_counter()
        cluster.kill(b)
        deadline = time.monotonic() + 120
        while not all(count_lines(f) > s for f, s in zip(moved_files, sizes, strict=True)):
            # Lines still in flight when the worker died do not count: wait for new ones.
            if time.monotonic() > deadline:
                raise SystemExit("the killed worker's connectors never moved")
            time.sleep(0.02)
            if time.perf_counter() - killed < 1.0:
                sizes = [count_lines(f) for f in moved_files]
        return time.perf_counter() - killed
    finally:
        stop.set()
        cluster.stop()


# -- profiling a worker -------------------------------------------------------------------


def profiled_worker(out: Path, mode: str, properties: str) -> None:
    """A kconnect worker with one cProfile per thread (its CPU clock), dumped at exit."""
    profiled_cli(out, mode, [mode, properties])


def print_profile(out: Path, case: str, mode: str) -> None:
    import pstats

    files = sorted(str(p) for p in out.glob(f"{mode}-*/*.prof"))
    if not files:
        print(f"no profiles of {case} in {out}")
        return
    stats = pstats.Stats(files[0])
    for extra in files[1:]:
        stats.add(extra)
    print(f"\n{case} under cProfile, every thread ({len(files)} profiles in {out}):")
    stats.sort_stats("tottime").print_stats(20)


# -- the table ----------------------------------------------------------------------------

HEADER = (
    f"{'case':<24}{'records/s':>11}{'wall s':>8}{'created s':>10}{'first s':>9}"
    f"{'steady r/s':>12}"
    f"{'CPU s':>8}{'rec/CPU-s':>11}{'/raw':>7}{'/standalone':>12}{'load':>6}"
)


def row(r: Result, raw_result: Result | None, standalone: Result | None) -> str:
    to_raw = f"{r.rate / raw_result.rate:>7.2f}" if raw_result else f"{'':>7}"
    to_sa = f"{r.rate / standalone.rate:>12.2f}" if standalone else f"{'':>12}"
    return (
        f"{r.case:<24}{r.rate:>11,.0f}{r.wall:>8.2f}{r.created:>10.2f}{r.first:>9.2f}"
        f"{r.steady:>12,.0f}"
        f"{r.cpu:>8.2f}{r.rows / max(r.cpu, 1e-9):>11,.0f}{to_raw}{to_sa}{r.load:>6.1f}"
    )


def median_result(results: list[Result]) -> Result:
    return Result(
        results[0].case,
        results[0].rows,
        statistics.median(r.wall for r in results),
        statistics.median(r.first for r in results),
        statistics.median(r.cpu for r in results),
        statistics.median(r.load for r in results),
        created=statistics.median(r.created for r in results),
    )


@contextlib.contextmanager
def broker(bootstrap: str | None) -> Iterator[str]:
    if bootstrap is not None:
        yield bootstrap
        return
    cluster = KafkaCluster(quick_start=False, heap="1g")
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def main() -> None:
    if len(sys.argv) > 4 and sys.argv[1] == "--profiled-worker":
        profiled_worker(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=600000)
    parser.add_argument("--connectors", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--bootstrap-servers", "--bootstrap", default=None)
    parser.add_argument("--delay-ms", type=int, default=0, help="scheduled.rebalance.max.delay.ms")
    parser.add_argument(
        "--workers",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        default=(1, 2, 3),
        help="distributed worker counts to measure, comma-separated (default 1,2,3)",
    )
    parser.add_argument(
        "--before", type=Path, default=None, help="kconnect_runtime sources to compare with"
    )
    parser.add_argument("--profile", type=Path, default=None, help="cProfile into DIR")
    parser.add_argument("--no-failover", action="store_true", help="skip the failover figure")
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep the workers' configs and logs here"
    )
    args = parser.parse_args()
    if args.rounds < 1 or args.rows < args.connectors or args.connectors < 1:
        parser.error("--rounds and --connectors must be >= 1, --rows >= --connectors")
    if args.before is not None and not (args.before / "kconnect_runtime").is_dir():
        parser.error(f"--before {args.before}: no kconnect_runtime package in it")
    cases = [STANDALONE, *(f"distributed-{n}" for n in args.workers)]
    variants: list[tuple[str, Path | None]] = [("", None)]
    if args.before is not None:
        variants.append((" (before)", args.before))
    print(
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {args.rounds} round(s), "
        "cases interleaved",
        flush=True,
    )
    with broker(args.bootstrap_servers) as bootstrap, tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir) if args.workdir is None else args.workdir
        tmp.mkdir(parents=True, exist_ok=True)
        topics = [f"bd-{uuid.uuid4().hex[:6]}-{i}" for i in range(args.connectors)]
        rows = args.rows // len(topics) * len(topics)
        fill(bootstrap, topics, rows)
        print(f"rows: {rows:,} over {len(topics)} topics / connectors; broker {bootstrap}")
        print(HEADER, flush=True)
        results: dict[str, list[Result]] = {}
        for round_no in range(args.rounds):
            raw_result = raw(bootstrap, topics, tmp, rows)
            results.setdefault("raw", []).append(raw_result)
            print(row(raw_result, None, None), flush=True)
            order = [(c, v) for c in cases for v in variants]
            if round_no % 2:
                order.reverse()
            for case, (suffix, pythonpath) in order:
                profile = None
                if args.profile is not None and case in (STANDALONE, "distributed-1"):
                    profile = args.profile / f"{case}{suffix.strip(' ()')}".replace(" ", "-")
                result = throughput(
                    bootstrap,
                    tmp,
                    topics,
                    rows,
                    case,
                    pythonpath=pythonpath,
                    profile=profile,
                    keep=args.workdir is not None,
                )
                result.case += suffix
                results.setdefault(result.case, []).append(result)
                standalone = results.get(STANDALONE + suffix, [None])[-1]
                print(row(result, raw_result, standalone), flush=True)
                top = sorted(result.threads.items(), key=lambda item: -item[1])[:6]
                print(
                    "    CPU s by thread: " + ", ".join(f"{n} {used:.2f}" for n, used in top),
                    flush=True,
                )
        if args.rounds > 1 or args.before is not None:
            print(f"\nmedians of {args.rounds} round(s):")
            print(HEADER)
            medians = {name: median_result(rs) for name, rs in results.items()}
            for name, r in medians.items():
                suffix = " (before)" if name.endswith(" (before)") else ""
                standalone = None if name == "raw" else medians.get(STANDALONE + suffix)
                print(row(r, medians["raw"], standalone))
        print(
            "records/s and wall: the first connector create to the last line written (raw: its "
            "start); created s: to the last create's answer; first s: to the first line; "
            "steady: records/s after the first line; CPU: "
            "the worker processes and their descendants over the same span (raw: this process)."
        )
        if not args.no_failover:
            seconds = failover(bootstrap, tmp, args.delay_ms)
            print(
                f"failover: kill -9 -> first record moved elsewhere: {seconds:.1f}s "
                f"(session.timeout.ms={SESSION_MS}, scheduled.rebalance.max.delay.ms="
                f"{args.delay_ms}; bound {SESSION_MS / 1000 + args.delay_ms / 1000:.0f}s + "
                "rebalance)"
            )
    if args.profile is not None:
        for case, mode in ((STANDALONE, STANDALONE), ("distributed-1", "distributed")):
            for path in sorted(args.profile.glob(f"{case}*")):
                print_profile(path, path.name, mode)


if __name__ == "__main__":
    main()
