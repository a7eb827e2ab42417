"""Every benchmark in ``bench/`` runs at a tiny size and prints its figures.

A smoke run only, so the benchmarks never rot: each script runs as its own process, as a
user runs it, with its small-size flags; the test asserts that it exits cleanly and prints
a rate. It asserts nothing about time (figures from a shared CI machine mean nothing). A
new ``bench/*.py`` must be added to ``BENCHES`` (a test checks that none is missing).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
BOOTSTRAP = "{bootstrap}"  # replaced by the session broker's address

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
    "bench_spark_df.py": ["--rows", "2000", "--jdbc-rows", "2000"],
    "bench_distributed.py": [
        "--rows",
        "600",
        "--connectors",
        "2",
        "--bootstrap-servers",
        BOOTSTRAP,
    ],
}

# A printed rate, as every benchmark reports: "123,456 records/s", "12.5 MB/s", ...
_RATE = re.compile(r"\d[\d,.]*\s*(?:records|rows|lines|rec|MB)/s")


def test_every_benchmark_has_a_smoke_run() -> None:
    scripts = {p.name for p in BENCH.glob("bench_*.py")}
    missing = sorted(scripts - set(BENCHES))
    assert not missing, f"add the small-size flags of {missing} to BENCHES in {__file__}"
    gone = sorted(set(BENCHES) - scripts)
    assert not gone, f"BENCHES names scripts that no longer exist: {gone}"


@pytest.mark.integration
@pytest.mark.timeout(900)  # start-up of Spark, plugin installs, broker joins: slow when loaded
@pytest.mark.parametrize("script", sorted(BENCHES))
def test_benchmark_runs_at_small_size(script: str, kafka: str) -> None:
    args = [a.replace(BOOTSTRAP, kafka) for a in BENCHES[script]]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        capture_output=True,
        text=True,
        timeout=840,
        env=env,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{script} {' '.join(args)} failed:\n{output[-4000:]}"
    assert _RATE.search(result.stdout), f"{script} printed no rate:\n{result.stdout[-4000:]}"
