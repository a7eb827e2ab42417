"""FileStream → Kafka → FileStream on the local engine and on the spark engine, in one run.

Run: .venv/bin/python bench/bench_engines.py [--lines N] [--rounds R] [--master local[2]]
[--set KEY=VALUE] [--trace] [--latency N]

Starts the embedded broker (Tansu), writes a file of N lines (default 200,000), starts the
Spark session (and warms one Python worker per core, as a long-running worker would have
them), then runs R rounds (default 1). Each round runs a FileStream source and a FileStream
sink on a fresh topic on each engine, timing from connector creation until the sink file
holds every line; rounds alternate which engine goes first, so that neither always meets
the same moment of a machine shared with other work. Prints per round records/s per engine,
their ratio, the load average, and the CPU seconds each process spent (the engine's
processes, the broker); then the ratios of all rounds, the spark engine's per-cycle latency
floor (a Spark job of one empty task) and where its cycles' wall time went. Asserts no times.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect_runtime import EmbeddedBroker, PluginRegistry, StandaloneHerder, Worker
from kconnect_runtime.engine import Engine, LocalEngine, SparkEngine
from kconnect_runtime.storage import FileOffsetStore


def _worker_props(tmp: Path, bootstrap: str, engine: str, master: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp / "offsets.json"),
        "offset.flush.interval.ms": "1000",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
        "engine": engine,
        "spark.master": master,
        "spark.ui.enabled": "false",
    }


def _import_executor(_: int) -> int:
    import kconnect_runtime.engine.spark._executor as executor

    return len(executor.__all__)


class _LineCounter:
    """Lines in a growing file, reading only what was appended since the last call (reading
    the whole file every 20 ms took a good part of a core from the engines being timed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.read = 0
        self.lines = 0

    def __call__(self) -> int:
        try:
            with self.path.open("rb") as f:
                f.seek(self.read)
                chunk = f.read()
        except FileNotFoundError:
            return 0
        self.read += len(chunk)
        self.lines += chunk.count(b"\n")
        return self.lines


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _process_cpu() -> dict[int, tuple[str, int, float]]:
    """(name, parent pid, CPU seconds) of this process and each of its descendants, by pid.

    Linux only (``/proc``); elsewhere empty, and the CPU lines are left out.
    """
    table: dict[int, tuple[str, int, float]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ")".
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (name, int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS)
    mine = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, (_, ppid, _) in table.items() if ppid in mine} - mine
        grew = bool(found)
        mine |= found
    return {pid: row for pid, row in table.items() if pid in mine}


def _cpu_by_role(
    before: dict[int, tuple[str, int, float]], after: dict[int, tuple[str, int, float]]
) -> dict[str, list[float]]:
    """CPU seconds spent between two ``_process_cpu`` snapshots, per role: this process (the
    local engine, or the Spark driver), the JVM, the Spark Python workers, the broker."""
    roles: dict[str, list[float]] = {}
    jvms = {pid for pid, (name, _, _) in after.items() if name == "java"}
    for pid, (name, ppid, seconds) in after.items():
        spent = seconds - before.get(pid, (name, ppid, 0.0))[2]
        if pid == os.getpid():
            role = "this process"
        elif name == "java":
            role = "JVM"
        elif name.startswith("tansu"):
            role = "broker"
        elif ppid in jvms:
            role = "pyspark daemon"
        elif name.startswith("python"):
            role = "Python workers"
        else:
            role = name
        roles.setdefault(role, []).append(spent)
    return roles


def _cpu_summary(roles: dict[str, list[float]]) -> str:
    if not roles:
        return "CPU: not measured (no /proc)"
    parts = []
    for role in ("this process", "Python workers", "JVM", "pyspark daemon", "broker"):
        spent = sorted(roles.pop(role, []), reverse=True)
        if not spent or sum(spent) < 0.005:
            continue
        each = " + ".join(f"{s:.2f}" for s in spent if s >= 0.005)
        parts.append(f"{role} {each}" if len(spent) < 2 else f"{role} {each} = {sum(spent):.2f}")
    parts += [f"{role} {sum(spent):.2f}" for role, spent in roles.items() if sum(spent) >= 0.005]
    return "CPU s: " + ", ".join(parts)


def _worker(
    props: dict[str, str], bootstrap: str, engine: Engine, offsets: Path
) -> StandaloneHerder:
    """A worker on ``engine`` with the benchmark's settings (both measures use the same)."""
    return StandaloneHerder(
        Worker(
            props,
            registry=PluginRegistry.discover(),
            offset_store=FileOffsetStore(offsets),
            bootstrap_servers=bootstrap,
            engine=engine,
            commit_interval_ms=1000,
            consumer_session_timeout_ms=6000,
            shutdown_timeout_ms=30000,
        )
    )


def _file_pipeline(
    worker: StandaloneHerder, prefix: str, engine: Engine, *, source: Path, sink: Path, topic: str
) -> None:
    """FileStreamSource ``<prefix>src-<engine>`` into a one-partition ``topic``, and
    FileStreamSink ``<prefix>sink-<engine>`` out of it."""
    worker.create_connector(
        {
            "name": f"{prefix}src-{engine.name}",
            "connector.class": "FileStreamSource",
            "file": str(source),
            "topic": topic,
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
        }
    )
    worker.create_connector(
        {
            "name": f"{prefix}sink-{engine.name}",
            "connector.class": "FileStreamSink",
            "file": str(sink),
            "topics": topic,
        }
    )


def run_pipeline(
    tmp: Path,
    bootstrap: str,
    source_file: Path,
    *,
    lines: int,
    engine: Engine,
    props: dict[str, str],
    prefix: str = "",
) -> float:
    """Seconds from connector creation until the sink file holds every line."""
    sink_file = tmp / f"{prefix}out-{engine.name}.txt"
    topic = f"bench-{engine.name}-{uuid.uuid4().hex[:6]}"
    worker = _worker(props, bootstrap, engine, tmp / f"{prefix}offsets-{engine.name}.json")
    started = time.perf_counter()
    try:
        _file_pipeline(worker, prefix, engine, source=source_file, sink=sink_file, topic=topic)
        deadline = started + 600
        line_count = _LineCounter(sink_file)
        next_check = 0.0
        while line_count() < lines:
            now = time.perf_counter()
            if now > deadline:
                raise SystemExit(f"{engine.name}: the sink file did not fill within 600 s")
            if now >= next_check:
                # Twice a second: a status reads each plugin's package metadata (0.2 ms a
                # version()), and this loop shares the local engine's process (and GIL).
                next_check = now + 0.5
                for name in (f"{prefix}src-{engine.name}", f"{prefix}sink-{engine.name}"):
                    task = worker.connector_status(name)["tasks"][0]
                    if task["state"] == "FAILED":
                        raise SystemExit(f"{engine.name}: {name} failed:\n{task.get('trace')}")
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    finally:
        worker.stop()
    if sink_file.read_bytes() != source_file.read_bytes():
        raise SystemExit(f"{engine.name}: the sink file differs from the source file")
    sink_file.unlink()
    return elapsed


def measure_latency(
    tmp: Path, bootstrap: str, *, count: int, engine: Engine, props: dict[str, str]
) -> list[float]:
    """Seconds from appending one line to an idle source file until the sink file has it."""
    source_file = tmp / f"latency-in-{engine.name}.txt"
    sink_file = tmp / f"latency-out-{engine.name}.txt"
    source_file.write_text("first\n", encoding="utf-8")
    topic = f"latency-{engine.name}-{uuid.uuid4().hex[:6]}"
    worker = _worker(props, bootstrap, engine, tmp / f"latency-offsets-{engine.name}.json")
    line_count = _LineCounter(sink_file)
    out: list[float] = []
    try:
        _file_pipeline(worker, "latency-", engine, source=source_file, sink=sink_file, topic=topic)
        for i in range(count + 1):
            if i:
                # Idle for a while (both tasks back in their idle loops), then one line.
                time.sleep(1.5 + (i % 4) * 0.37)
                with source_file.open("a", encoding="utf-8") as f:
                    f.write(f"line {i}\n")
            appended = time.perf_counter()
            deadline = appended + 60
            while line_count() < i + 1:
                if time.perf_counter() > deadline:
                    raise SystemExit(f"{engine.name}: line {i} did not arrive within 60 s")
                time.sleep(0.005)
            if i:
                out.append(time.perf_counter() - appended)
    finally:
        worker.stop()
    return out


def _latency_summary(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    median = ordered[len(ordered) // 2]
    return f"median {median * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms ({len(ordered)} lines)"


@dataclass
class _Round:
    first: str
    load: tuple[float, float]
    seconds: dict[str, float]
    cpu: dict[str, dict[str, list[float]]]


def _timed(
    tmp: Path, bootstrap: str, source_file: Path, *, lines: int, engine: Engine, **kw: Any
) -> tuple[float, dict[str, list[float]]]:
    """run_pipeline's seconds and the CPU seconds each process spent meanwhile."""
    before = _process_cpu()
    seconds = run_pipeline(tmp, bootstrap, source_file, lines=lines, engine=engine, **kw)
    return seconds, _cpu_by_role(before, _process_cpu())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run both engines this many times, alternating which goes first (default 1)",
    )
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--trace", action="store_true", help="print every spark cycle's breakdown (ms)"
    )
    parser.add_argument(
        "--latency",
        type=int,
        default=0,
        metavar="N",
        help="also time N single lines through idle connectors on each engine",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a worker setting for the spark run, e.g. spark.source.batch.max.ms=5000",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    rounds: list[_Round] = []
    broker = EmbeddedBroker()
    bootstrap = broker.start()
    try:
        with tempfile.TemporaryDirectory(prefix="kconnect-bench-") as tmpdir:
            tmp = Path(tmpdir)
            source_file = tmp / "in.txt"
            source_file.write_text(
                "".join(f"line {i} of the benchmark file\n" for i in range(args.lines)),
                encoding="utf-8",
            )
            local_props = _worker_props(tmp, bootstrap, "local", args.master)
            spark_props = _worker_props(tmp, bootstrap, "spark", args.master)
            spark_props.update(kv.split("=", 1) for kv in args.set)
            # The session first: every round's runs of both engines then share the machine
            # with the same idle JVM and Python workers (their CPU is printed).
            session_started = time.perf_counter()
            spark = SparkEngine(spark_props)
            session_s = time.perf_counter() - session_started
            try:
                spark.session.sparkContext.setLogLevel("ERROR")
                floor_s = spark.measure_empty_cycle(repeat=10)
                # A long-running worker's Python workers (one per core) have imported the
                # engine's executor side already.
                slots = spark.session.sparkContext.defaultParallelism
                spark.session.sparkContext.parallelize(range(slots), slots).map(
                    _import_executor
                ).collect()
                for index in range(args.rounds):
                    order = ("local", "spark") if index % 2 == 0 else ("spark", "local")
                    load_before = os.getloadavg()[0]
                    seconds: dict[str, float] = {}
                    cpu: dict[str, dict[str, list[float]]] = {}
                    for name in order:
                        local = name == "local"
                        seconds[name], cpu[name] = _timed(
                            tmp,
                            bootstrap,
                            source_file,
                            lines=args.lines,
                            engine=LocalEngine() if local else spark,
                            props=local_props if local else spark_props,
                            prefix=f"r{index}-",
                        )
                    done = _Round(order[0], (load_before, os.getloadavg()[0]), seconds, cpu)
                    rounds.append(done)
                    _print_round(index, done, args.lines)
                stats: Any = spark.stats
                local_latency = (
                    measure_latency(
                        tmp, bootstrap, count=args.latency, engine=LocalEngine(), props=local_props
                    )
                    if args.latency
                    else []
                )
                spark_latency = (
                    measure_latency(
                        tmp, bootstrap, count=args.latency, engine=spark, props=spark_props
                    )
                    if args.latency
                    else []
                )
            finally:
                spark.close()
    finally:
        broker.stop()

    ratios = [r.seconds["local"] / r.seconds["spark"] for r in rounds]
    busy = stats.cycles - stats.empty_cycles
    print(f"FileStream -> Kafka (Tansu) -> FileStream, {args.lines:,} lines, master {args.master}")
    if args.set:
        print(f"  spark settings: {', '.join(args.set)}")
    local_rps = [args.lines / r.seconds["local"] for r in rounds]
    spark_rps = [args.lines / r.seconds["spark"] for r in rounds]
    print(f"  local engine : {statistics.median(local_rps):>12,.0f} records/s  (median)")
    print(f"  spark engine : {statistics.median(spark_rps):>12,.0f} records/s  (median)")
    print(
        f"  spark / local: {' '.join(f'{r:.2f}' for r in ratios)}  (median "
        f"{statistics.median(ratios):.2f}, >= 1 in {sum(r >= 1 for r in ratios)} of {len(ratios)})"
    )
    print(f"  spark empty cycle (one-task job, floor of any cycle): {floor_s * 1000:.0f} ms")
    print(
        f"  spark cycles : {stats.cycles} ({busy} moved records, {stats.empty_cycles} empty), "
        f"{stats.seconds:.2f} s in cycles"
    )
    print(f"  SparkSession start (not in the figures above): {session_s:.1f} s")
    if args.latency:
        print("  one line through idle connectors (append -> in the sink file):")
        print(f"    local engine: {_latency_summary(local_latency)}")
        print(f"    spark engine: {_latency_summary(spark_latency)}")
    print_breakdown([t for t in stats.traces if not t.task.startswith("latency-")])
    if args.trace:
        for t in stats.traces:
            phases = " ".join(f"{name}={seconds * 1000:.0f}" for name, seconds in t.phases)
            print(
                f"    {t.task:<16} {t.records:>7} gap={t.gap * 1000:.0f} "
                f"plan={t.plan * 1000:.0f} submit={t.to_executor * 1000:.0f} "
                f"exec={t.executor * 1000:.0f} ({phases}) "
                f"result={t.from_executor * 1000:.0f} commit={t.commit * 1000:.0f}"
            )


def _print_round(index: int, done: _Round, lines: int) -> None:
    ratio = done.seconds["local"] / done.seconds["spark"]
    print(
        f"round {index + 1} ({done.first} first), load {done.load[0]:.2f} -> {done.load[1]:.2f}: "
        f"spark / local {ratio:.2f}",
        flush=True,
    )
    for name in ("local", "spark"):
        took = done.seconds[name]
        print(
            f"  {name:<5} {lines / took:>9,.0f} records/s ({took:6.2f} s)  "
            f"{_cpu_summary(done.cpu[name])}",
            flush=True,
        )


def print_breakdown(traces: list[Any]) -> None:
    """Per task kind: where the spark run's wall time went (driver clock, seconds summed)."""
    for kind in ("source", "sink"):
        mine = [t for t in traces if t.kind == kind]
        if not mine:
            continue
        busy = [t for t in mine if t.records]
        phases: dict[str, float] = {}
        for t in mine:
            for name, seconds in t.phases:
                phases[name] = phases.get(name, 0.0) + seconds
        total = sum(
            t.gap + t.plan + t.to_executor + t.executor + t.from_executor + t.commit for t in mine
        )
        sizes = sorted(t.records for t in busy)
        print(
            f"  {kind} cycles: {len(mine)} ({len(busy)} moved records; records per busy cycle "
            f"min {sizes[0] if sizes else 0:,} max {sizes[-1] if sizes else 0:,}), "
            f"{total:.2f} s from the first cycle's start to the last one's end"
        )
        parts = {
            "between cycles (idle pauses)": sum(t.gap for t in mine),
            "driver planning": sum(t.plan for t in mine),
            "job submission -> executor": sum(t.to_executor for t in mine),
            "on the executor": sum(t.executor for t in mine),
            "executor -> driver result": sum(t.from_executor for t in mine),
            "offset commit": sum(t.commit for t in mine),
        }
        for name, seconds in parts.items():
            share = seconds / total if total else 0.0
            print(f"    {name:<30} {seconds:6.2f} s  {share:6.1%}")
        executor = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in phases.items())
        print(f"    executor phases: {executor}")


if __name__ == "__main__":
    main()
