"""What a spark engine cycle costs on a standalone cluster against ``local[2]``, and where.

    .venv/bin/python bench/bench_spark_cluster.py [--jobs 30]

Starts the testkit's standalone cluster (a master and two one-core workers from the pip
PySpark package) and packs an executors' environment with kconnect (``pack_environment``),
as ``runtime/tests/test_spark_cluster.py`` does. Then, for ``local[2]`` and for the cluster
(each its own SparkSession, built by ``SparkEngine`` from a worker config):

- the engine's start: building the session (and, on the cluster, the executors' check, the
  first Python job, which pays the executor's Python start and kconnect's imports);
- ``--jobs`` empty one-task jobs (the floor of every cycle, ``measure_empty_cycle``'s job),
  split into submission → the Python worker starting the task, and the task's return →
  the driver holding the result (executor wall clocks: the same host here).

Prints medians and best in ms and the cluster/local ratios; asserts nothing about time. On a
shared 2-core machine the figures move with its load: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _stamp(_: int) -> float:
    return time.time()


def _jobs(engine: Any, count: int) -> dict[str, list[float]]:
    sc = engine.session.sparkContext
    out: dict[str, list[float]] = {"total": [], "to_executor": [], "back": []}
    for _ in range(count):
        submitted = time.time()
        entered = sc.parallelize([0], 1).map(_stamp).collect()[0]
        received = time.time()
        out["total"].append((received - submitted) * 1000)
        out["to_executor"].append((entered - submitted) * 1000)
        out["back"].append((received - entered) * 1000)
    return out


def _engine(props: dict[str, str]) -> tuple[Any, float]:
    from kconnect_runtime.engine import SparkEngine

    started = time.monotonic()
    engine = SparkEngine(props)
    return engine, time.monotonic() - started


def _row(label: str, figures: dict[str, list[float]]) -> dict[str, float]:
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(
        f"{label:<10} empty job median {med['total']:7.1f} ms (best {min(figures['total']):6.1f}); "
        f"to the Python worker {med['to_executor']:6.1f} ms, back {med['back']:6.1f} ms"
    )
    return med


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=30)
    args = parser.parse_args()
    from kconnect_testkit import pack_environment
    from kconnect_testkit._spark_cluster import start_spark_cluster

    base = {
        "bootstrap.servers": "127.0.0.1:9",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "engine": "spark",
        "spark.ui.enabled": "false",
    }
    print(f"load average at start: {os.getloadavg()}")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    local, local_start = _engine({**base, "spark.master": "local[2]"})
    local_jobs = _jobs(local, args.jobs)
    local.close()
    del os.environ["PYSPARK_PYTHON"]

    with tempfile.TemporaryDirectory(prefix="kc-bench-cluster-") as tmp:
        started = time.monotonic()
        cluster = start_spark_cluster(Path(tmp) / "cluster")
        cluster_up = time.monotonic() - started
        started = time.monotonic()
        archive = pack_environment(
            Path(tmp) / "kc-env.tar.gz",
            [str(REPO / p) for p in ("sdk", "runtime", "converters/string")]
            + [f"pyarrow=={version('pyarrow')}"],
        )
        packed = time.monotonic() - started
        try:
            remote, remote_start = _engine(
                {
                    **base,
                    "spark.master": cluster.master_url,
                    "spark.archives": f"{archive}#environment",
                    "spark.pyspark.python": "./environment/bin/python",
                    "spark.executor.memory": "512m",
                }
            )
            remote_jobs = _jobs(remote, args.jobs)
            remote.close()
        finally:
            cluster.stop()
    print(f"cluster up in {cluster_up:.1f} s, environment packed in {packed:.1f} s")
    print(
        f"engine start: local[2] {local_start:.1f} s; cluster {remote_start:.1f} s "
        "(session, archive to two executors, the executors' check: their first Python job)"
    )
    a = _row("local[2]", local_jobs)
    b = _row("cluster", remote_jobs)
    print(f"cluster/local: empty job x{b['total'] / a['total']:.2f}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
