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


def _line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


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
    worker = Worker(
        props,
        registry=PluginRegistry.discover(),
        offset_store=FileOffsetStore(tmp / f"offsets-{engine.name}.json"),
        bootstrap_servers=bootstrap,
        engine=engine,
        commit_interval_ms=1000,
        consumer_session_timeout_ms=6000,
        shutdown_timeout_ms=30000,
    )
    started = time.perf_counter()
    try:
        worker.create_connector(
            {
                "name": f"src-{engine.name}",
                "connector.class": "FileStreamSource",
                "file": str(source_file),
                "topic": topic,
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
        )
        worker.create_connector(
            {
                "name": f"sink-{engine.name}",
                "connector.class": "FileStreamSink",
                "file": str(sink_file),
                "topics": topic,
            }
        )
        deadline = started + 600
        while _line_count(sink_file) < lines:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--master", default="local[2]")
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

            spark_props = _worker_props(tmp, bootstrap, "spark", args.master)
            spark_props.update(kv.split("=", 1) for kv in args.set)
            session_started = time.perf_counter()
            spark = SparkEngine(spark_props)
            session_s = time.perf_counter() - session_started
            try:
                spark.session.sparkContext.setLogLevel("ERROR")
                floor_s = spark.measure_empty_cycle(repeat=10)  # also warms the Python workers
                spark_s = run_pipeline(
                    tmp, bootstrap, source_file, lines=args.lines, engine=spark, props=spark_props
                )
                stats: Any = spark.stats
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


if __name__ == "__main__":
    main()
