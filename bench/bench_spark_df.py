"""kconnect connectors as Spark DataFrames: rows/s through the Python data path, on local[2].

    .venv/bin/python bench/bench_spark_df.py [--rows 1000000] [--jdbc-rows 1000000]
                                             [--no-jdbc] [--rounds 3]  (e.g. --rows 2000 in CI)

In one Spark session (``local[2]``, Python workers on this interpreter):

0. simple rows, both cores: ``LinesSource`` below (a source connector whose two tasks each
   poll batches of one-string-column records with ``{"position": n}`` offsets, the shape a
   FileStream task makes) read through ``spark.read.format("kconnect")`` into an action that
   scans every value (``sum(length(value))``) and into ``count()``; beside it Spark's own
   Parquet and JSON readers of the same rows, same actions. This is the goal's measure:
   the Python data path (task poll → Arrow batches → Spark) for simple rows on 2 cores.
   The task implements the columnar ``poll_batch`` (lists straight to Arrow); each figure
   is printed beside the same read on the row path (``kconnect.read.columnar=false``: a
   ``SourceRecord`` per row, as before ``poll_batch``) with the ratio, in the same run.
1. source → DataFrame: a FileStream file of N simple lines read through
   ``spark.read.format("kconnect")`` into ``count()`` and into a Parquet write; beside it
   Spark's own text reader of the same file (``spark.read.text``), the same actions; the
   FileStream task's columnar poll beside its row path, as in 0.
2. JDBC → DataFrame (unless ``--no-jdbc``): a MariaDB table of M six-column rows (the JDBC
   source in bulk mode, ``127.0.0.1:3306`` as root, or ``--mariadb host:port``) into
   ``count()``; beside it Spark's own Parquet reader of the same rows.
3. DataFrame → sink: N rows written through the FileStream sink
   (``df.write.format("kconnect")``); beside it Spark's own ``df.write.text``.

Prints rows/s for each and the ratio kconnect/Spark; the goal is 1,000,000 rows/s per 2 cores
through the Python data path for simple rows. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    Schema,
    SourceBatch,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

GOAL = 1_000_000


class LinesSourceTask(SourceTask):
    """Task ``i`` of ``k``: ``rows / k`` lines in polls of ``batch`` records, then finished."""

    def start(self, props: Mapping[str, str]) -> None:
        self.task = int(props["task"])
        self.left = int(props["rows"]) // int(props["tasks"])
        self.batch = int(props.get("batch", "10000"))
        self.partition = {"task": self.task}
        self.position = 0

    def _next_rows(self) -> range | None:
        if self.left <= 0:
            time.sleep(0.05)
            return None
        n = min(self.batch, self.left)
        self.left -= n
        start = self.position
        self.position += n
        return range(start, start + n)

    def poll_batch(self) -> SourceBatch | None:
        """The columnar poll: the same rows as ``poll``, as lists (no record per row)."""
        rows = self._next_rows()
        if rows is None:
            return None
        return SourceBatch(
            topic="lines",
            source_partition=self.partition,
            value_schema=Schema.STRING,
            values=[f"line {i:09d} some text of a simple row" for i in rows],
            source_offset_columns={"position": list(rows)},
        )

    def poll(self) -> list[SourceRecord] | None:
        # A record per row, built as a plain connector builds them (what the row path cost
        # before poll_batch; kept so that the row-path lines measure the same work).
        rows = self._next_rows()
        if rows is None:
            return None
        partition = self.partition
        string = Schema.STRING
        return [
            SourceRecord(
                topic="lines",
                source_partition=partition,
                source_offset={"position": i},
                value_schema=string,
                value=f"line {i:09d} some text of a simple row",
            )
            for i in rows
        ]

    def finished(self) -> bool:
        return self.left <= 0

    def stop(self) -> None:
        pass


class LinesSource(SourceConnector):
    """The benchmark's simple-rows source: ``rows`` lines split over ``tasks.max`` tasks."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[LinesSourceTask]:
        return LinesSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.props, "task": str(i), "tasks": str(max_tasks)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass


def timed(action: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def line(label: str, rows: int, seconds: float, ours: float | None = None) -> float:
    rate = rows / seconds if seconds else float("inf")
    extra = ""
    if ours is not None:
        extra = f"   kconnect/Spark = {ours / rate:.3f}"
    goal = f"  (goal {GOAL:,}/s: {'met' if rate >= GOAL else 'not met'})" if ours is None else ""
    print(f"  {label:<48} {rows:>10,} rows {seconds:8.2f} s {rate:>12,.0f} rows/s{goal}{extra}")
    return rate


def session() -> Any:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # The executors' Python workers import LinesSource from this file by module name.
    here = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in [here, os.environ.get("PYTHONPATH", "")] if p
    )
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("bench-spark-df")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )


def scan(df: Any) -> Any:
    """An action that reads every value (Parquet's count() alone would read only metadata)."""
    return df.selectExpr("sum(length(value))").collect()


ROW_PATH = {"kconnect.read.columnar": "false"}
"""The data source's option that reads a record per row even from a task with poll_batch."""


ROUNDS = [3]
"""Timings per figure (``--rounds``; one at small sizes, where the run is a smoke test)."""


def best(action: Any) -> float:
    """The shortest of ``ROUNDS`` timings (this machine is shared: the best run is the least
    disturbed one)."""
    return min(timed(action)[0] for _ in range(ROUNDS[0]))


def best_pair(columnar: Any, rows: Any) -> tuple[float, float]:
    """The shortest timings of two actions run in turn (columnar, row path, columnar, ...),
    so that neither gets the quieter minutes or the JVM's warmer code to itself."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(ROUNDS[0]):
        times[0].append(timed(columnar)[0])
        times[1].append(timed(rows)[0])
    return min(times[0]), min(times[1])


def speedup(label: str, columnar: float, rows: float) -> None:
    print(f"  {label:<48} columnar / row path = {columnar / rows:.2f}x")


def bench_simple_rows(spark: Any, tmp: Path, rows: int) -> None:
    options = {
        "connector.class": f"{__name__ if __name__ != '__main__' else 'bench_spark_df'}:LinesSource",
        "rows": str(rows),
        "tasks.max": "2",
        "batch": "10000",
        "kconnect.read.idle.ms": "200",
        "kconnect.batch.rows": "10000",
    }
    print(f"Simple rows, 2 source tasks -> DataFrame ({rows:,} rows, one string column):")
    warm = {**options, "rows": "2000"}
    scan(spark.read.format("kconnect").options(**warm).load())
    scan(spark.read.format("kconnect").options(**warm, **ROW_PATH).load())
    df = spark.read.format("kconnect").options(**options).load()
    by_rows = spark.read.format("kconnect").options(**options, **ROW_PATH).load()
    fast, slow = best_pair(lambda: scan(df), lambda: scan(by_rows))
    ours = line("kconnect scan (sum(length(value)))", rows, fast)
    before = line("kconnect scan, row path (columnar=false)", rows, slow)
    speedup("scan", ours, before)
    count = df.count()
    assert count == rows, count
    fast, slow = best_pair(df.count, by_rows.count)
    ours_count = line("kconnect count()", rows, fast)
    before = line("kconnect count(), row path (columnar=false)", rows, slow)
    speedup("count()", ours_count, before)
    same = spark.range(rows, numPartitions=2).selectExpr(
        "format_string('line %09d some text of a simple row', id) AS value"
    )
    same.write.mode("overwrite").parquet(str(tmp / "simple.parquet"))
    same.write.mode("overwrite").json(str(tmp / "simple.json"))
    parquet = spark.read.parquet(str(tmp / "simple.parquet"))
    scan(parquet)
    line("Spark Parquet reader scan", rows, best(lambda: scan(parquet)), ours)
    line("Spark Parquet reader count() (metadata only)", rows, best(parquet.count), ours_count)
    js = spark.read.schema("value string").json(str(tmp / "simple.json"))
    line("Spark JSON reader scan", rows, best(lambda: scan(js)), ours)


def bench_data_path(tmp: Path, rows: int) -> None:
    """The Python data path without Spark, in CPU seconds (this machine is shared, so wall
    time says little): what one core does, doubled for the goal's 2 cores."""
    import pyarrow as pa
    from kconnect_runtime.dataframes import plan_connector, source_schema
    from kconnect_runtime.dataframes._rows import RowEncoder
    from kconnect_runtime.dataframes._sink import write_partition
    from kconnect_runtime.dataframes._source import _spark_type, read_batch_partition
    from kconnect_runtime.tasks import apply_gc_policy
    from kconnect_sdk import PluginKind

    # As in a Spark Python worker, where the data source's first read tunes the collector
    # for record batches (without it, a million live records make every step here slower).
    apply_gc_policy()

    def cpu_line(label: str, n: int, cpu: float) -> None:
        rate = n / cpu if cpu else float("inf")
        met = "met" if 2 * rate >= GOAL else "not met"
        print(
            f"  {label:<48} {n:>10,} rows {cpu:8.2f} s CPU {rate:>12,.0f} rows/CPU-s"
            f"  x2 cores {2 * rate:>12,.0f}/s (goal {GOAL:,}/s: {met})"
        )

    print(f"Python data path in this process, CPU time ({rows:,} simple rows):")
    source = plan_connector(
        {"connector.class": "bench_spark_df:LinesSource", "rows": str(rows), "tasks.max": "1"},
        PluginKind.SOURCE,
    )
    target = source_schema(source)
    task = LinesSourceTask()
    task.start({"task": "0", "tasks": "1", "rows": str(rows)})
    started = time.process_time()
    records: list[SourceRecord] = []
    while len(records) < rows:
        records.extend(task.poll() or [])
    cpu_line("task.poll (the connector's own cost)", rows, time.process_time() - started)
    encoder = RowEncoder(source, target, _spark_type)
    encoder.encode(records[:100])  # warm-up: imports and per-schema preparation, paid once
    started = time.process_time()
    batches = list(encoder.encode_chunks(records, 10000))
    cpu_line("records -> Arrow record batches", rows, time.process_time() - started)
    del records
    task = LinesSourceTask()
    task.start({"task": "0", "tasks": "1", "rows": str(rows)})
    started = time.process_time()
    polled: list[SourceBatch] = []
    while sum(map(len, polled)) < rows:
        batch = task.poll_batch()
        if batch is not None:
            polled.append(batch)
    cpu_line("task.poll_batch (columnar: no record per row)", rows, time.process_time() - started)
    encoder.encode_batch(polled[0])  # warm-up, as above
    started = time.process_time()
    columnar = [encoder.encode_batch(b) for b in polled]
    cpu_line("columnar batches -> Arrow record batches", rows, time.process_time() - started)
    assert [b.num_rows for b in columnar] == [b.num_rows for b in batches]
    del polled, columnar
    source = dataclasses.replace(source, own={**source.own, "kconnect.read.idle.ms": "1"})
    for label, own in (
        ("poll + Arrow (an input partition's read, rows)", ROW_PATH),
        ("poll_batch + Arrow (the same, columnar)", {}),
    ):
        plan = dataclasses.replace(source, own={**source.own, **own})
        warm = dataclasses.replace(plan, task_configs=({**plan.task_configs[0], "rows": "100"},))
        sum(b.num_rows for b in read_batch_partition(warm, target, 0))
        started = time.process_time()
        read = sum(b.num_rows for b in read_batch_partition(plan, target, 0))
        assert read == rows, read
        cpu_line(label, rows, time.process_time() - started)
    sink = plan_connector(
        {
            "connector.class": "FileStreamSink",
            "file": str(tmp / "data-path.txt"),
            "topics": "lines",
        },
        PluginKind.SINK,
    )
    inputs = [pa.RecordBatch.from_arrays([b.column("value")], ["value"]) for b in batches]
    started = time.process_time()
    result = write_partition(sink, 0, inputs)
    assert result.rows == rows, result.rows
    cpu_line("Arrow -> SinkRecords -> FileStream put/flush", rows, time.process_time() - started)


def bench_filestream(spark: Any, tmp: Path, rows: int) -> None:
    source = tmp / "lines.txt"
    with source.open("w", encoding="utf-8") as f:
        for i in range(rows):
            f.write(f"line {i:09d} some text of a simple row\n")
    options = {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": "lines",
        "batch.size": "10000",
        "kconnect.read.idle.ms": "300",
        "kconnect.batch.rows": "10000",
        "value.format": "connect",
    }
    print(f"FileStream source -> DataFrame ({rows:,} lines):")
    # Warm up on a small file: Python workers and plugin discovery are paid once.
    warm = tmp / "warm.txt"
    warm.write_text("warm\n", encoding="utf-8")
    spark.read.format("kconnect").options(**{**options, "file": str(warm)}).load().collect()
    spark.read.format("kconnect").options(
        **{**options, "file": str(warm)}, **ROW_PATH
    ).load().collect()
    df = spark.read.format("kconnect").options(**options).load()
    by_rows = spark.read.format("kconnect").options(**options, **ROW_PATH).load()
    count = df.count()
    assert count == rows, count
    fast, slow = best_pair(df.count, by_rows.count)
    ours = line("kconnect count()", rows, fast)
    before = line("kconnect count(), row path (columnar=false)", rows, slow)
    speedup("count()", ours, before)

    def parquet(frame: Any, name: str) -> Any:
        return lambda: frame.select("value").write.mode("overwrite").parquet(str(tmp / name))

    fast, slow = best_pair(parquet(df, "pq1"), parquet(by_rows, "pq1"))
    ours_pq = line("kconnect -> Parquet write", rows, fast)
    before = line("kconnect -> Parquet write, row path", rows, slow)
    speedup("Parquet write", ours_pq, before)
    text = spark.read.text(str(source))
    line("Spark text reader count()", rows, best(text.count), ours)
    line("Spark text reader -> Parquet write", rows, best(parquet(text, "pq2")), ours_pq)


def bench_jdbc(spark: Any, tmp: Path, rows: int, host: str, port: int) -> None:
    import pymysql

    conn = pymysql.connect(host=host, port=port, user="root", autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS kc_bench_df")
        cur.execute("DROP TABLE IF EXISTS kc_bench_df.rows_table")
        cur.execute(
            "CREATE TABLE kc_bench_df.rows_table (id INT NOT NULL PRIMARY KEY, name VARCHAR(40) "
            "NOT NULL, amount DECIMAL(12, 2) NOT NULL, flag TINYINT(1) NOT NULL, created "
            "DATETIME(6) NOT NULL, note VARCHAR(60) NULL)"
        )
        cur.execute(
            "INSERT INTO kc_bench_df.rows_table SELECT seq, CONCAT('name ', seq), seq * 1.25, "
            "mod(seq, 2) = 0, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND, "
            f"REPEAT('x', mod(seq, 40)) FROM kc_bench_df.seq_1_to_{rows}"
        )
    conn.close()
    options = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": f"jdbc:mysql://{host}:{port}/kc_bench_df",
        "connection.user": "root",
        "mode": "bulk",
        "table.whitelist": "rows_table",
        "topic.prefix": "bench-",
        "batch.max.rows": "10000",
        "poll.interval.ms": "3600000",
        "kconnect.read.idle.ms": "300",
    }
    print(f"JDBC source (bulk, MariaDB) -> DataFrame ({rows:,} rows of 6 columns):")
    # Warm up on the table's first rows: the executors' Python workers import the JDBC
    # plugin and its driver once (measured apart in the cold-start lines).
    warm = {k: v for k, v in options.items() if k != "table.whitelist"}
    warm["query"] = "SELECT * FROM rows_table WHERE id <= 1000"
    seconds, _ = timed(spark.read.format("kconnect").options(**warm).load().count)
    print(f"  (cold start: first JDBC read of 1,000 rows {seconds:.2f} s)")
    df = spark.read.format("kconnect").options(**options).load()
    seconds, count = timed(df.count)
    assert count == rows, count
    ours = line("kconnect count()", rows, seconds)
    # The same rows as Parquet, read by Spark's own reader.
    df.select("value.*").write.mode("overwrite").parquet(str(tmp / "jdbc.parquet"))
    parquet = spark.read.parquet(str(tmp / "jdbc.parquet"))
    seconds, _ = timed(parquet.count)
    line("Spark Parquet reader count()", rows, seconds, ours)
    seconds, _ = timed(lambda: parquet.selectExpr("sum(length(name))").collect())
    line("Spark Parquet reader, one column scanned", rows, seconds, ours)


def write_lines(df: Any, path: Path) -> None:
    """``df`` (one ``value`` column) appended to ``path`` through the FileStream sink."""
    options = {"connector.class": "FileStreamSink", "file": str(path), "topics": "lines"}
    df.write.format("kconnect").mode("append").options(**options).save()


def bench_sink(spark: Any, tmp: Path, rows: int) -> None:
    from pyspark.sql import functions as F

    df = (
        spark.range(rows, numPartitions=2)
        .select(F.format_string("line %09d some text of a simple row", "id").alias("value"))
        .cache()
    )
    df.count()
    print(f"DataFrame -> FileStream sink ({rows:,} rows, 2 partitions):")
    out = tmp / "sink"
    out.mkdir()
    # Warm up on two partitions, so that both Python workers have started their writers
    # (imports, plugin discovery): measured apart. A one-partition warm-up left the second
    # worker cold for the measured write (2.6 s against 0.5-0.8 s warm for 1M rows).
    small = spark.range(1000, numPartitions=2).select(
        F.format_string("line %09d some text of a simple row", "id").alias("value")
    )
    seconds, _ = timed(lambda: write_lines(small, out / "warm.txt"))
    print(f"  (cold start: first write of 1,000 rows {seconds:.2f} s)")
    seconds, _ = timed(lambda: write_lines(df, out / "out.txt"))
    ours = line("kconnect FileStream sink", rows, seconds)
    seconds, _ = timed(lambda: df.write.mode("overwrite").text(str(tmp / "text")))
    line("Spark text writer", rows, seconds, ours)
    df.unpersist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--jdbc-rows", type=int, default=None)
    parser.add_argument("--no-jdbc", action="store_true")
    parser.add_argument("--mariadb", default="127.0.0.1:3306")
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="columnar and row-path reads in turn, best of N each (default 3; 1 below 100,000 rows)",
    )
    args = parser.parse_args()
    ROUNDS[0] = args.rounds or (3 if args.rows >= 100_000 else 1)
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    tmp = Path(tempfile.mkdtemp(prefix="bench-spark-df-"))
    try:
        bench_data_path(tmp, args.rows)
        bench_simple_rows(spark, tmp, args.rows)
        bench_filestream(spark, tmp, args.rows)
        if not args.no_jdbc:
            host, port = args.mariadb.rsplit(":", 1)
            bench_jdbc(spark, tmp, args.jdbc_rows or args.rows, host, int(port))
        bench_sink(spark, tmp, args.rows)
    finally:
        spark.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
