"""The ``kconnect`` data source through Spark Connect: a local Spark Connect server started
from the installed PySpark (``SparkSession.builder.remote("local[2]")``), in a subprocess so
that its server does not meet the test run's classic session in one JVM."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = """
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
from pyspark.sql import SparkSession

tmp = sys.argv[1]
spark = SparkSession.builder.remote("local[2]").getOrCreate()
try:
    assert type(spark).__module__ == "pyspark.sql.connect.session", type(spark)
    source = {"connector.class": "FileStreamSource", "file": f"{tmp}/in.txt",
              "topic": "lines", "kconnect.read.idle.ms": "500"}
    df = spark.read.format("kconnect").options(**source).load()
    print("READ", [r.value for r in df.collect()])
    sink = {"connector.class": "FileStreamSink", "file": f"{tmp}/out.txt", "topics": "lines"}
    df.coalesce(1).write.format("kconnect").mode("append").options(**sink).save()
    print("WROTE")
finally:
    spark.stop()
"""


def test_read_and_write_through_spark_connect(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(20)]
    (tmp_path / "in.txt").write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    script = tmp_path / "connect_client.py"
    script.write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    # SPARK_TESTING: PySpark then binds the local server to an ephemeral port and its client
    # asks the server which one (SPARK-42272), instead of both using 15002, which another
    # Spark Connect server on this machine (a parallel test run) may hold.
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        env={**os.environ, "SPARK_TESTING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"READ {lines!r}" in done.stdout
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == lines
