"""What a spark engine cycle costs on a standalone cluster against ``local[2]``, and what an
executor moves.

    .venv/bin/python bench/bench_spark_cluster.py [--jobs 30] [--lines 20000] [--set K=V]

Starts the testkit's standalone cluster (a master and two one-core workers from the pip
PySpark package) and packs an executors' environment with kconnect and the FileStream
connectors (``pack_environment``), as ``runtime/tests/test_spark_cluster.py`` does; starts
the embedded broker (Tansu). Then, for ``local[2]`` and for the cluster (each its own
SparkSession, built by ``SparkEngine`` from a worker config):

- the engine's start: building the session (and, on the cluster, the executors' check, the
  first Python job, which pays the executor's Python start and kconnect's imports);
- ``--jobs`` empty one-task jobs submitted as the engine submits every cycle
  (``SparkEngine.run_on_executor``: one RDD built once, the function and its argument a
  local property of the job), interleaved with as many submitted the way every cycle was
  before (a new RDD, closure and Python function per job), each split into submission → the Python worker starting the
  task, and the task's return → the driver holding the result (executor wall clocks: the
  same host here);
- records per second through the engine: one FileStream source of ``--lines`` lines into
  Kafka (one task, so one executor busy), then two at once (two executors busy), with the
  CPU seconds the executors' Python processes spent meanwhile.

Prints medians and best in ms, the ratios, records/s per busy executor and records per
executor CPU-second; asserts nothing about time. On a shared 2-core machine (the cluster's
two executors, the drivers' JVMs and the broker share those 2 cores) wall-clock rates move
with its load, printed at start and end: read the per-CPU-second figure for scaling.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _stamp(_: int) -> float:
    return time.time()


def _timed_job(submit: Callable[[], float]) -> tuple[float, float, float]:
    submitted = time.time()
    entered = submit()
    received = time.time()
    return (received - submitted) * 1000, (entered - submitted) * 1000, (received - entered) * 1000


def _jobs(engine: Any, count: int) -> dict[str, dict[str, list[float]]]:
    """Empty jobs, the engine's way and the per-job-RDD way in turn (the same load for both)."""
    sc = engine.session.sparkContext
    ways: dict[str, Callable[[], float]] = {
        "engine": lambda: float(engine.run_on_executor(_stamp, 0)),
        "parallelize": lambda: float(sc.parallelize([0], 1).map(_stamp).collect()[0]),
    }
    out: dict[str, dict[str, list[float]]] = {
        way: {"total": [], "to_executor": [], "back": []} for way in ways
    }
    for submit in ways.values():
        submit()  # each way's first job pays one-time costs (a Python worker, pickling paths)
    for index in range(count):
        order = list(ways) if index % 2 == 0 else list(reversed(ways))
        for way in order:
            total, there, back = _timed_job(ways[way])
            out[way]["total"].append(total)
            out[way]["to_executor"].append(there)
            out[way]["back"].append(back)
    return out


def _engine(props: dict[str, str]) -> tuple[Any, float]:
    from kconnect_runtime.engine import SparkEngine

    started = time.monotonic()
    engine = SparkEngine(props)
    return engine, time.monotonic() - started


def _row(label: str, figures: dict[str, list[float]]) -> dict[str, float]:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(
        f"{label:<30} empty job median {med['total']:7.1f} ms (best {min(figures['total']):6.1f}); "
        f"to the Python worker {med['to_executor']:6.1f} ms, back {med['back']:6.1f} ms"
    )
    return med


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _python_cpu(roots: set[int]) -> float:
    """CPU seconds of the Python processes descending from ``roots`` (Linux ``/proc``; 0
    elsewhere), dead ones not counted: the executors' Python workers and daemons."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        if name.startswith("python") and pid != os.getpid():
            cpu[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
    total = 0.0
    for pid, seconds in cpu.items():
        ancestor = parents.get(pid, 0)
        while ancestor > 1 and ancestor not in roots:
            ancestor = parents.get(ancestor, 0)
        if ancestor in roots:
            total += seconds
    return total


def _sources(
    engine: Any,
    *,
    props: dict[str, str],
    tmp: Path,
    source_files: list[Path],
    lines: int,
    cpu_roots: set[int],
) -> tuple[float, float]:
    """Seconds until every file's lines are in Kafka, one FileStream source per file, all at
    once; and the executors' Python CPU seconds meanwhile.

    Done is when the engine's cycles, whose records Kafka acknowledged and whose offsets are
    committed, polled every line (the embedded broker's listed high watermark lags).
    """
    from kconnect_runtime import PluginRegistry, StandaloneHerder, Worker
    from kconnect_runtime.engine import SparkEngine
    from kconnect_runtime.storage import FileOffsetStore

    run = uuid.uuid4().hex[:6]
    cycles = SparkEngine(props, session=engine.session)
    worker = StandaloneHerder(
        Worker(
            props,
            registry=PluginRegistry.discover(),
            offset_store=FileOffsetStore(tmp / f"offsets-{run}.json"),
            bootstrap_servers=props["bootstrap.servers"],
            engine=cycles,
            commit_interval_ms=1000,
            shutdown_timeout_ms=30000,
        )
    )
    topics = [f"bench-{run}-{i}" for i in range(len(source_files))]
    cpu_before = _python_cpu(cpu_roots)
    started = time.perf_counter()
    try:
        for index, (path, topic) in enumerate(zip(source_files, topics, strict=True)):
            worker.create_connector(
                {
                    "name": f"src-{run}-{index}",
                    "connector.class": "FileStreamSource",
                    "file": str(path),
                    "topic": topic,
                    "topic.creation.default.partitions": "1",
                    "topic.creation.default.replication.factor": "1",
                }
            )
        deadline = started + 600
        while sum(t.records for t in list(cycles.stats.traces)) < lines * len(topics):
            if time.perf_counter() > deadline:
                raise SystemExit("the sources did not write every line within 600 s")
            for index in range(len(topics)):
                task = worker.connector_status(f"src-{run}-{index}")["tasks"][0]
                if task["state"] == "FAILED":
                    raise SystemExit(f"src-{run}-{index} failed:\n{task.get('trace')}")
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        cpu = _python_cpu(cpu_roots) - cpu_before
    finally:
        worker.stop()
    return elapsed, cpu


def _throughput(
    engine: Any, props: dict[str, str], *, tmp: Path, lines: int, cpu_roots: set[int]
) -> list[tuple[int, float, float]]:
    files = []
    for index in range(2):
        path = tmp / f"in-{index}.txt"
        if not path.exists():
            path.write_text(
                "".join(
                    f"line {i} of source file {index} of the benchmark\n" for i in range(lines)
                ),
                encoding="utf-8",
            )
        files.append(path)
    warm = tmp / "warm-up.txt"
    warm.write_text("".join(f"warm-up line {i}\n" for i in range(1000)), encoding="utf-8")
    # Both executors' first cycles (a Python worker's imports, plugin discovery, the first
    # pipeline and producer) before the measured runs, as a worker that has run for a while.
    seconds, cpu = _sources(
        engine, props=props, tmp=tmp, source_files=[warm, warm], lines=1000, cpu_roots=cpu_roots
    )
    out = [(0, seconds, cpu)]
    for busy in (1, 2):
        seconds, cpu = _sources(
            engine,
            props=props,
            tmp=tmp,
            source_files=files[:busy],
            lines=lines,
            cpu_roots=cpu_roots,
        )
        out.append((busy, seconds, cpu))
    return out


def _print_throughput(label: str, lines: int, runs: list[tuple[int, float, float]]) -> None:
    _, warm_s, warm_cpu = runs.pop(0)
    print(
        f"{label:<10} two sources of 1,000 lines, their first cycles: {warm_s:.1f} s, "
        f"{warm_cpu:.2f} executor Python CPU-s"
    )
    for busy, seconds, cpu in runs:
        records = lines * busy
        per_cpu = f"{records / cpu:10,.0f}" if cpu > 0 else "  unknown"
        print(
            f"{label:<10} {busy} source task(s), {busy} executor(s) busy: {records / seconds:9,.0f} "
            f"records/s, {records / seconds / busy:9,.0f} per executor; {per_cpu} records per "
            f"executor Python CPU-s ({cpu:.2f} CPU-s, {seconds:.1f} s)"
        )
    one, two = runs[0], runs[1]
    print(
        f"{label:<10} two executors / one: records/s x{(2 * one[1]) / two[1]:.2f}, records per "
        f"CPU-s x{(2 * one[2]) / two[2] if one[2] > 0 and two[2] > 0 else float('nan'):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=30)
    parser.add_argument(
        "--lines", type=int, default=20_000, help="lines per FileStream source (0: skip)"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a worker setting for both sessions, e.g. spark.python.unix.domain.socket.enabled=true",
    )
    args = parser.parse_args()
    from kconnect_runtime import EmbeddedBroker
    from kconnect_testkit import pack_environment
    from kconnect_testkit._spark_cluster import start_spark_cluster

    broker = EmbeddedBroker()
    bootstrap = broker.start()
    base = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        # The embedded broker's CPU per uncompressed record would crowd the executors out.
        "producer.compression.type": "lz4",
        "engine": "spark",
        "spark.ui.enabled": "false",
        **dict(kv.split("=", 1) for kv in args.set),
    }
    print(f"load average at start: {os.getloadavg()}")
    try:
        with tempfile.TemporaryDirectory(prefix="kc-bench-cluster-") as tmpdir:
            tmp = Path(tmpdir)
            os.environ["PYSPARK_PYTHON"] = sys.executable
            local, local_start = _engine({**base, "spark.master": "local[2]"})
            try:
                local_jobs = _jobs(local, args.jobs)
                local_rates = (
                    _throughput(
                        local,
                        {**base, "spark.master": "local[2]"},
                        tmp=tmp,
                        lines=args.lines,
                        cpu_roots={os.getpid()},
                    )
                    if args.lines
                    else []
                )
            finally:
                local.close()
            del os.environ["PYSPARK_PYTHON"]

            started = time.monotonic()
            cluster = start_spark_cluster(tmp / "cluster")
            cluster_up = time.monotonic() - started
            started = time.monotonic()
            archive = pack_environment(
                tmp / "kc-env.tar.gz",
                [str(REPO / p) for p in ("sdk", "runtime", "converters/string", "connectors/file")]
                + [f"pyarrow=={version('pyarrow')}"],
            )
            packed = time.monotonic() - started
            try:
                remote_props = {
                    **base,
                    "spark.master": cluster.master_url,
                    "spark.archives": f"{archive}#environment",
                    "spark.pyspark.python": "./environment/bin/python",
                    "spark.executor.memory": "512m",
                }
                remote, remote_start = _engine(remote_props)
                try:
                    remote_jobs = _jobs(remote, args.jobs)
                    workers = {w.process.pid for w in cluster.workers}
                    remote_rates = (
                        _throughput(
                            remote, remote_props, tmp=tmp, lines=args.lines, cpu_roots=workers
                        )
                        if args.lines
                        else []
                    )
                finally:
                    remote.close()
            finally:
                cluster.stop()
    finally:
        broker.stop()
    print(f"cluster up in {cluster_up:.1f} s, environment packed in {packed:.1f} s")
    if args.set:
        print(f"settings: {', '.join(args.set)}")
    print(
        f"engine start: local[2] {local_start:.1f} s; cluster {remote_start:.1f} s "
        "(session, archive to two executors, the executors' check: their first Python job)"
    )
    a = _row("local[2]", local_jobs["engine"])
    a0 = _row("local[2], RDD per job (before)", local_jobs["parallelize"])
    b = _row("cluster", remote_jobs["engine"])
    b0 = _row("cluster, RDD per job (before)", remote_jobs["parallelize"])
    print(
        f"cluster/local: empty job x{b['total'] / a['total']:.2f}; engine's way / RDD per job: "
        f"local[2] x{a['total'] / a0['total']:.2f}, cluster x{b['total'] / b0['total']:.2f}"
    )
    if args.lines:
        print(f"FileStream -> Kafka (embedded broker, lz4), {args.lines:,} lines per source:")
        _print_throughput("local[2]", args.lines, local_rates)
        _print_throughput("cluster", args.lines, remote_rates)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
