"""kconnect connectors as Spark DataFrames: rows/s through the Python data path, on local[2].

    .venv/bin/python bench/bench_spark_df.py [--rows 1000000] [--jdbc-rows 1000000]
                                             [--no-jdbc]        (e.g. --rows 2000 in CI)

In one Spark session (``local[2]``, Python workers on this interpreter):

1. source → DataFrame: a FileStream file of N simple lines read through
   ``spark.read.format("kconnect")`` into ``count()`` and into a Parquet write; beside it
   Spark's own text reader of the same file (``spark.read.text``), the same actions.
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
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL = 1_000_000


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
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("bench-spark-df")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )


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
    df = spark.read.format("kconnect").options(**options).load()
    seconds, count = timed(df.count)
    assert count == rows, count
    ours = line("kconnect count()", rows, seconds)
    seconds, _ = timed(lambda: df.select("value").write.mode("overwrite").parquet(str(tmp / "pq1")))
    ours_pq = line("kconnect -> Parquet write", rows, seconds)
    text = spark.read.text(str(source))
    seconds, _ = timed(text.count)
    line("Spark text reader count()", rows, seconds, ours)
    seconds, _ = timed(lambda: text.write.mode("overwrite").parquet(str(tmp / "pq2")))
    line("Spark text reader -> Parquet write", rows, seconds, ours_pq)


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
    seconds, _ = timed(
        lambda: (
            df.write.format("kconnect")
            .mode("append")
            .options(
                **{
                    "connector.class": "FileStreamSink",
                    "file": str(out / "out.txt"),
                    "topics": "lines",
                }
            )
            .save()
        )
    )
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
    args = parser.parse_args()
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    tmp = Path(tempfile.mkdtemp(prefix="bench-spark-df-"))
    try:
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
