"""What a spark engine cycle costs on a standalone cluster against ``local[2]``, and what an
executor moves.

    .venv/bin/python bench/bench_spark_cluster.py [--jobs 30] [--lines 20000] [--set K=V]
                                                  [--df-lines N]  (default: --lines; 0 skips)

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

- the DataFrame path, each master in a SparkSession of its own started for it after the
  engine's (so that its first read pays what a user's first read pays: Spark's planner
  processes on the driver and the executors' Python workers; the lookup of Python data
  sources, once per driver JVM, falls on local[2]'s): a FileStream file of ``--df-lines`` lines read through
  ``spark.read.format("kconnect")`` into ``count()`` three times (the session's first read,
  then warm), two such files at once (two input partitions: two executors busy), and
  DataFrames of ``--df-lines`` rows per partition written through the FileStream sink (the
  session's first write, then one partition, then two at once), with the CPU seconds of the
  executors' Python workers (``pyspark.worker``'s processes, not the driver's planners).

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


def _python_cpu(roots: set[int], module: str = "") -> float:
    """CPU seconds of the Python processes descending from ``roots`` (Linux ``/proc``; 0
    elsewhere), dead ones not counted: the executors' Python workers and daemons. With
    ``module``, only the processes of Spark's Python daemon for that worker module
    (``pyspark.worker``: the executors', not the driver's planners of a Python data source)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            command = (stat.parent / "cmdline").read_bytes().split(b"\0") if module else []
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        if module and module.encode() not in command:
            continue
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


# -- the DataFrame path -----------------------------------------------------------------------


def _lines_file(path: Path, lines: int, tag: str) -> Path:
    if not path.exists():
        with path.open("w", encoding="utf-8") as f:
            for i in range(lines):
                f.write(f"line {i:09d} of {tag}, some text of a simple row\n")
    return path


DF_SESSION = {
    "spark.app.name": "bench-spark-cluster-dataframes",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def _df_session(conf: dict[str, str]) -> tuple[Any, float]:
    from pyspark.sql import SparkSession

    started = time.monotonic()
    builder: Any = SparkSession.builder
    for key, value in conf.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session, time.monotonic() - started


def _dataframes(
    spark: Any, *, tmp: Path, lines: int, cpu_roots: set[int]
) -> list[tuple[str, int, int, float, float]]:
    """The DataFrame path in a fresh session: (label, rows, busy executors, seconds, executor
    Python CPU-s) for each step, the first read of the session first."""
    from pyspark.sql import functions as F

    files = [_lines_file(tmp / f"df-in-{i}.txt", lines, f"file {i}") for i in range(2)]
    out_dir = Path(tempfile.mkdtemp(prefix="df-out-", dir=tmp))  # each session's own sink files

    def read(path: Path) -> Any:
        return (
            spark.read.format("kconnect")
            .option("connector.class", "FileStreamSource")
            .option("file", str(path))
            .option("topic", "lines")
            .option("batch.size", "10000")
            .option("kconnect.read.idle.ms", "300")
            .load()
        )

    def timed(label: str, rows: int, busy: int, action: Callable[[], int]) -> None:
        cpu = _python_cpu(cpu_roots, "pyspark.worker")
        started = time.perf_counter()
        got = action()
        seconds = time.perf_counter() - started
        if got != rows:
            raise SystemExit(f"{label}: {got:,} rows, expected {rows:,}")
        out.append((label, rows, busy, seconds, _python_cpu(cpu_roots, "pyspark.worker") - cpu))

    out: list[tuple[str, int, int, float, float]] = []
    # One FileStream task per file: one input partition, one executor busy. On the cluster
    # the second read may land on the other executor, whose Python workers are still cold.
    timed("read -> count(), first of the session", lines, 1, read(files[0]).count)
    timed("read -> count(), second", lines, 1, read(files[0]).count)
    both = read(files[0]).unionByName(read(files[1]))
    both.count()  # both executors' Python workers started, before the warm figures
    timed("read -> count(), warm", lines, 1, read(files[0]).count)
    timed("two files at once -> count()", 2 * lines, 2, both.count)

    def write(partitions: int, name: str) -> Callable[[], int]:
        frame = spark.range(lines * partitions, numPartitions=partitions).select(
            F.format_string("line %09d some text of a simple row", "id").alias("value")
        )
        target = out_dir / name

        def run() -> int:
            frame.write.format("kconnect").mode("append").option(
                "connector.class", "FileStreamSink"
            ).option("file", str(target)).option("topics", "lines").save()
            with target.open("rb") as f:
                return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))

        return run

    timed("write -> FileStream sink, first of the session", lines, 1, write(1, "df-out-1.txt"))
    write(2, "df-out-warm.txt")()  # both executors' writers started, as for the reads
    timed("write -> FileStream sink, warm", lines, 1, write(1, "df-out-2.txt"))
    timed("two partitions at once -> sink", 2 * lines, 2, write(2, "df-out-3.txt"))
    return out


def _print_dataframes(
    label: str, start_s: float, runs: list[tuple[str, int, int, float, float]]
) -> None:
    print(f"{label:<10} DataFrame session start {start_s:.1f} s")
    for what, rows, busy, seconds, cpu in runs:
        per_cpu = f"{rows / cpu:10,.0f}" if cpu > 0 else "   unknown"
        print(
            f"{label:<10} {what:<46} {rows / seconds:10,.0f} records/s, {rows / seconds / busy:10,.0f} "
            f"per executor; {per_cpu} records per executor Python CPU-s ({cpu:.2f} CPU-s, "
            f"{seconds:.2f} s)"
        )
    by = {what: (rows, busy, seconds, cpu) for what, rows, busy, seconds, cpu in runs}
    first, second = by["read -> count(), first of the session"], by["read -> count(), warm"]
    print(
        f"{label:<10} first read / warm read: x{first[2] / second[2]:.2f} wall, "
        f"x{first[3] / second[3] if second[3] > 0 else float('nan'):.2f} executor CPU"
    )
    for one_label, two_label in (
        ("read -> count(), warm", "two files at once -> count()"),
        ("write -> FileStream sink, warm", "two partitions at once -> sink"),
    ):
        one, two = by[one_label], by[two_label]
        print(
            f"{label:<10} {two_label}: two executors / one: records/s x{(two[0] / two[2]) / (one[0] / one[2]):.2f}, "
            f"records per CPU-s x{(two[0] / two[3]) / (one[0] / one[3]) if one[3] > 0 and two[3] > 0 else float('nan'):.2f}"
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
    parser.add_argument(
        "--df-lines",
        type=int,
        default=None,
        help="lines per FileStream file on the DataFrame path (default: --lines; 0: skip)",
    )
    args = parser.parse_args()
    df_lines = args.lines if args.df_lines is None else args.df_lines
    spark_set = {k: v for k, v in (kv.split("=", 1) for kv in args.set) if k.startswith("spark.")}
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
            local_df: list[tuple[str, int, int, float, float]] = []
            local_df_start = 0.0
            if df_lines:
                # Spark looks Python data sources up once per driver JVM (a Python process
                # that imports every pyspark_* module): this first read pays it, the
                # cluster's below does not.
                spark, local_df_start = _df_session(
                    {**DF_SESSION, "spark.master": "local[2]", **spark_set}
                )
                try:
                    local_df = _dataframes(spark, tmp=tmp, lines=df_lines, cpu_roots={os.getpid()})
                finally:
                    spark.stop()
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
            workers = {w.process.pid for w in cluster.workers}
            remote_df: list[tuple[str, int, int, float, float]] = []
            remote_df_start = 0.0
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
                    remote_rates = (
                        _throughput(
                            remote, remote_props, tmp=tmp, lines=args.lines, cpu_roots=workers
                        )
                        if args.lines
                        else []
                    )
                finally:
                    remote.close()
                if df_lines:
                    # As a user's application on the cluster: the executors run the shipped
                    # environment; Spark plans the data source on the driver, with this one.
                    os.environ["PYSPARK_PYTHON"] = "./environment/bin/python"
                    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
                    spark, remote_df_start = _df_session(
                        {
                            **DF_SESSION,
                            "spark.master": cluster.master_url,
                            "spark.archives": f"{archive}#environment",
                            "spark.pyspark.python": "./environment/bin/python",
                            "spark.sql.execution.pyspark.python": "./environment/bin/python",
                            "spark.executor.memory": "512m",
                            "spark.executor.cores": "1",
                            **spark_set,
                        }
                    )
                    try:
                        remote_df = _dataframes(spark, tmp=tmp, lines=df_lines, cpu_roots=workers)
                    finally:
                        spark.stop()
                        del os.environ["PYSPARK_PYTHON"], os.environ["PYSPARK_DRIVER_PYTHON"]
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
    if df_lines:
        print(
            f"DataFrame path: FileStream files of {df_lines:,} lines -> count(); "
            f"DataFrames of {df_lines:,} rows per partition -> FileStream sink:"
        )
        _print_dataframes("local[2]", local_df_start, local_df)
        _print_dataframes("cluster", remote_df_start, remote_df)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
