"""Every benchmark in ``bench/`` runs at a tiny size and prints its figures.

A smoke run only, so the benchmarks never rot: each script runs as its own process, as a
user runs it, with its small-size flags; the test asserts that it exits cleanly and prints
a rate. It asserts nothing about time (figures from a shared CI machine mean nothing). A
new ``bench/*.py`` must be added to ``BENCHES`` (a test checks that none is missing).

The scripts spend most of their time waiting (a consumer group's first join, a
SparkSession's start, a plugin host's handshake), not computing, so all the selected ones
start together when the first of these tests runs, and each test waits for its own
script's process: the whole smoke run takes about as long as its slowest script, not the
sum of them all (about 60-90 s on the loaded 2-core development machine, against
several minutes one after the other).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
BOOTSTRAP = "{bootstrap}"  # replaced by the session broker's address
MARIADB = "{mariadb}"  # replaced by the session's private MariaDB, host:port
TIMEOUT_S = 840  # per script; generous, for a loaded machine (nothing asserts a time)

# Script -> its small-size arguments. Scripts that take --bootstrap-servers share the
# session's broker instead of starting one each.
BENCHES: dict[str, list[str]] = {
    "bench_converters.py": ["--records", "2000", "--rounds", "1"],
    "bench_transforms.py": ["--records", "2000", "--batch", "500"],
    "bench_pipeline.py": ["--lines", "2000", "--bootstrap-servers", BOOTSTRAP],
    "bench_isolation.py": ["--records", "2000", "--batch", "500"],
    "bench_engines.py": ["--lines", "2000"],
    "bench_s3.py": [
        "--records",
        "2000",
        "--parquet-rows",
        "500",
        "--bootstrap-servers",
        BOOTSTRAP,
    ],
    "bench_jdbc.py": ["--db", "sqlite", "--rows", "2000", "--bootstrap-servers", BOOTSTRAP],
    "bench_cdc.py": ["--rows", "2000", "--bootstrap-servers", BOOTSTRAP],
    "bench_exactly_once.py": ["--rows", "2000", "--bootstrap-servers", BOOTSTRAP],
    "bench_spark_df.py": ["--rows", "2000", "--jdbc-rows", "2000", "--mariadb", MARIADB],
    "bench_mirror.py": [
        "--mb",
        "0.5",
        "--partitions",
        "2",
        "--tasks",
        "1",
        "--source",  # one cluster as both sides: each flow's alias keeps its topics apart
        BOOTSTRAP,
        "--target",
        BOOTSTRAP,
    ],
    "bench_mirror_maker.py": [
        "--mb",
        "0.5",
        "--partitions",
        "2",
        "--tasks",
        "1",
        "--source",  # one cluster as both sides: each run's aliases keep its topics apart
        BOOTSTRAP,
        "--target",
        BOOTSTRAP,
    ],
    "bench_mirror_wan.py": [  # starts its own two clusters (in network namespaces as root)
        "--seconds",
        "5",
        "--mb-per-s",
        "1",
        "--rtt-ms",
        "50",
        "--drain-s",
        "20",
        "--warm-up-s",
        "0",
        "--partitions",
        "2",
        "--tasks",
        "1",
    ],
    # its own standalone cluster and packed environment
    "bench_spark_cluster.py": ["--jobs", "2", "--lines", "2000"],
    "bench_vs_java.py": [  # both sides once: the Java worker and kconnect, 2,000 lines
        "--workload",
        "filestream",
        "--lines",
        "2000",
        "--rounds",
        "1",
        "--bootstrap-servers",
        BOOTSTRAP,
    ],
    "bench_distributed.py": [
        "--rows",
        "600",
        "--connectors",
        "2",
        "--workers",
        "2",  # the multi-worker path; 1 and 3 workers run the same code, each ~15 s more
        "--bootstrap-servers",
        BOOTSTRAP,
    ],
}

# A printed rate, as every benchmark reports: "123,456 records/s", "12.5 MB/s", ...
_RATE = re.compile(r"\d[\d,.]*\s*(?:records|rows|lines|rec|MB)/s")
# Benchmarks of a cost rather than a rate, and the figure each prints.
_FIGURE = {"bench_spark_cluster.py": re.compile(r"empty job median\s+\d[\d,.]* ms")}

_TEST_NAME = "test_benchmark_runs_at_small_size"


class _Run:
    """One benchmark script running in its own process, its output collected in files."""

    def __init__(self, script: str, args: list[str], workdir: Path) -> None:
        self.script = script
        self.args = args
        self.out_path = workdir / f"{script}.out"
        self.err_path = workdir / f"{script}.err"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with self.out_path.open("wb") as out, self.err_path.open("wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, str(BENCH / script), *args], stdout=out, stderr=err, env=env
            )
        self.started = time.monotonic()

    def wait(self) -> tuple[int, str, str]:
        """(exit code, stdout, stderr); a script past ``TIMEOUT_S`` is killed and fails."""
        remaining = self.started + TIMEOUT_S - time.monotonic()
        try:
            code = self.process.wait(timeout=max(remaining, 1))
        except subprocess.TimeoutExpired:
            self.kill()
            code = -9
        stdout = self.out_path.read_text(errors="replace")
        stderr = self.err_path.read_text(errors="replace")
        if code == -9 and remaining <= 1:
            stderr += f"\n[killed after {TIMEOUT_S} s]"
        return code, stdout, stderr

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _selected_scripts(session: pytest.Session) -> list[str]:
    """The scripts whose smoke test this session runs (all of them, or those of ``-k``)."""
    scripts = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "originalname", None) == _TEST_NAME and callspec is not None:
            scripts.append(callspec.params["script"])
    return scripts


@pytest.fixture(scope="module")
def bench_runs(
    request: pytest.FixtureRequest,
    kafka: str,
    kc_mariadb: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, _Run]]:
    """Every selected script started at once, on the session's broker (and MariaDB); killed
    at the end."""
    workdir = tmp_path_factory.mktemp("bench-smoke")
    runs: dict[str, _Run] = {}
    try:
        for script in _selected_scripts(request.session):
            mariadb = f"{kc_mariadb.host}:{kc_mariadb.port}"
            args = [a.replace(BOOTSTRAP, kafka).replace(MARIADB, mariadb) for a in BENCHES[script]]
            runs[script] = _Run(script, args, workdir)
        yield runs
    finally:
        for run in runs.values():
            run.kill()


def test_every_benchmark_has_a_smoke_run() -> None:
    scripts = {p.name for p in BENCH.glob("bench_*.py")}
    missing = sorted(scripts - set(BENCHES))
    assert not missing, f"add the small-size flags of {missing} to BENCHES in {__file__}"
    gone = sorted(set(BENCHES) - scripts)
    assert not gone, f"BENCHES names scripts that no longer exist: {gone}"


@pytest.mark.integration
@pytest.mark.timeout(900)  # start-up of Spark, plugin installs, broker joins: slow when loaded
@pytest.mark.parametrize("script", sorted(BENCHES))
def test_benchmark_runs_at_small_size(script: str, bench_runs: dict[str, _Run]) -> None:
    run = bench_runs[script]
    code, stdout, stderr = run.wait()
    output = stdout + stderr
    assert code == 0, f"{script} {' '.join(run.args)} failed:\n{output[-4000:]}"
    figure = _FIGURE.get(script, _RATE)
    assert figure.search(stdout), f"{script} printed no figure:\n{stdout[-4000:]}"
