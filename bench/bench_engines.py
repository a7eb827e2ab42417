"""FileStream → Kafka → FileStream on the local engine and on the spark engine, in one run.

Run: .venv/bin/python bench/bench_engines.py [--lines N] [--master local[2]] [--set KEY=VALUE]

Starts the embedded broker (Tansu), writes a file of N lines (default 200,000), and for each
engine runs a FileStream source and a FileStream sink on a fresh topic, timing from connector
creation until the sink file holds every line. The Spark session is started (and its Python
workers warmed up) before the clock starts, as a long-running worker would have done.
Prints records/s per engine, their ratio, and the spark engine's per-cycle latency floor (a
Spark job of one empty task); asserts no times.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from kconnect_runtime import EmbeddedBroker, PluginRegistry, Worker
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


def _worker(props: dict[str, str], bootstrap: str, engine: Engine, offsets: Path) -> Worker:
    """A worker on ``engine`` with the benchmark's settings (both measures use the same)."""
    return Worker(
        props,
        registry=PluginRegistry.discover(),
        offset_store=FileOffsetStore(offsets),
        bootstrap_servers=bootstrap,
        engine=engine,
        commit_interval_ms=1000,
        consumer_session_timeout_ms=6000,
        shutdown_timeout_ms=30000,
    )


def _file_pipeline(
    worker: Worker, prefix: str, engine: Engine, *, source: Path, sink: Path, topic: str
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
) -> float:
    """Seconds from connector creation until the sink file holds every line."""
    sink_file = tmp / f"out-{engine.name}.txt"
    topic = f"bench-{engine.name}-{uuid.uuid4().hex[:6]}"
    worker = _worker(props, bootstrap, engine, tmp / f"offsets-{engine.name}.json")
    started = time.perf_counter()
    try:
        _file_pipeline(worker, "", engine, source=source_file, sink=sink_file, topic=topic)
        deadline = started + 600
        line_count = _LineCounter(sink_file)
        while line_count() < lines:
            if time.perf_counter() > deadline:
                raise SystemExit(f"{engine.name}: the sink file did not fill within 600 s")
            for name in (f"src-{engine.name}", f"sink-{engine.name}"):
                task = worker.connector_status(name)["tasks"][0]
                if task["state"] == "FAILED":
                    raise SystemExit(f"{engine.name}: {name} failed:\n{task.get('trace')}")
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    finally:
        worker.stop()
    if sink_file.read_bytes() != source_file.read_bytes():
        raise SystemExit(f"{engine.name}: the sink file differs from the source file")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
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
            local_s = run_pipeline(
                tmp,
                bootstrap,
                source_file,
                lines=args.lines,
                engine=LocalEngine(),
                props=local_props,
            )
            local_latency = (
                measure_latency(
                    tmp, bootstrap, count=args.latency, engine=LocalEngine(), props=local_props
                )
                if args.latency
                else []
            )

            spark_props = _worker_props(tmp, bootstrap, "spark", args.master)
            spark_props.update(kv.split("=", 1) for kv in args.set)
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
                spark_s = run_pipeline(
                    tmp, bootstrap, source_file, lines=args.lines, engine=spark, props=spark_props
                )
                stats: Any = spark.stats
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

    local_rps = args.lines / local_s
    spark_rps = args.lines / spark_s
    busy = stats.cycles - stats.empty_cycles
    print(f"FileStream -> Kafka (Tansu) -> FileStream, {args.lines:,} lines, master {args.master}")
    if args.set:
        print(f"  spark settings: {', '.join(args.set)}")
    print(f"  local engine : {local_rps:>12,.0f} records/s  ({local_s:.2f} s)")
    print(f"  spark engine : {spark_rps:>12,.0f} records/s  ({spark_s:.2f} s)")
    print(f"  spark / local: {spark_rps / local_rps:>12.2f}")
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
                f"    {t.kind:<6} {t.records:>7} gap={t.gap * 1000:.0f} plan={t.plan * 1000:.0f} "
                f"submit={t.to_executor * 1000:.0f} exec={t.executor * 1000:.0f} "
                f"({phases}) result={t.from_executor * 1000:.0f} commit={t.commit * 1000:.0f}"
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
