"""The spark engine and the DataFrame source and sink on a standalone Spark cluster.

The cluster (the testkit's ``kc_spark_cluster``: a master and two workers started with
``spark-class`` from the pip PySpark package) runs executors whose Python has nothing of
kconnect: every cycle runs in a virtual environment packed from the workspace and shipped
with ``spark.archives``, as docs/spark.md tells users to do. One application (one
SparkSession, started by the engine from a worker config) serves the whole module.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from kconnect_runtime import PluginRegistry, StandaloneHerder, Worker
from kconnect_runtime.engine import SparkEngine
from kconnect_runtime.plugins import install_plugin
from kconnect_runtime.storage import FileOffsetStore
from kconnect_sdk import ConnectError
from kconnect_testkit import SparkCluster, pack_environment
from runtime_harness import file_sink, file_source, line_count, wait_for, worker_props

REPO = Path(__file__).resolve().parents[2]

# The first test pays the cluster's start, the environment's packing and the application's
# start (the archive unpacked by each executor): minutes on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(900)

# What docs/spark.md's recipe installs in the executors' environment: the runtime, the
# converters the worker config names (StringConverter is also the default header
# converter's package), the FileStream connectors, and pyarrow for the DataFrame path.
# kconnect-converter-json is left out on purpose (see the header converter test).
_EXECUTOR_PACKAGES = ("sdk", "runtime", "converters/string", "connectors/file")


def _pinned(name: str) -> str:
    from importlib.metadata import version

    return f"{name}=={version(name)}"


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def packed_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Future[Path]]:
    """The executors' environment, packed while the cluster starts (both take long)."""
    dest = tmp_path_factory.mktemp("packed") / "kc-env.tar.gz"
    requirements = [str(REPO / p) for p in _EXECUTOR_PACKAGES] + [_pinned("pyarrow")]
    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(pack_environment, dest, requirements)


@pytest.fixture(scope="module")
def cluster_props(packed_env: Future[Path], kc_spark_cluster: SparkCluster) -> dict[str, str]:
    return {
        "spark.master": kc_spark_cluster.master_url,
        "spark.app.name": "kconnect-cluster-tests",
        "spark.archives": f"{packed_env.result()}#environment",
        "spark.pyspark.python": "./environment/bin/python",
        # The DataFrame path: Spark plans Python data sources on the driver with the driver's
        # interpreter (PYSPARK_DRIVER_PYTHON) and, without this, runs their reads and writes
        # on the executors with that same path too.
        "spark.sql.execution.pyspark.python": "./environment/bin/python",
        "spark.executor.memory": "512m",
        "spark.executor.cores": "1",
        "spark.ui.enabled": "false",
        "spark.task.maxFailures": "4",
        "spark.cycle.idle.ms": "200",
    }


@pytest.fixture(scope="module")
def engine(
    kafka: str, cluster_props: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SparkEngine]:
    """The module's application: a SparkSession the engine builds from a worker config."""
    from pyspark import SparkContext

    active = SparkContext._active_spark_context
    if active is not None:  # another module's local session: one SparkContext per process
        active.stop()
    saved = {k: os.environ.get(k) for k in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    # The driver's own Python workers (the DataFrame source's planning) run this interpreter.
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    props = worker_props(tmp_path_factory.mktemp("engine"), kafka, engine="spark", **cluster_props)
    started = SparkEngine(props)
    try:
        yield started
    finally:
        started.close()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _worker(tmp: Path, kafka: str, engine: SparkEngine, props: dict[str, str]) -> StandaloneHerder:
    return _worker_and_engine(tmp, kafka, engine, props)[0]


def _worker_and_engine(
    tmp: Path, kafka: str, engine: SparkEngine, props: dict[str, str]
) -> tuple[StandaloneHerder, SparkEngine]:
    """A worker on the module's application, and its own engine (its plugin.path shipped)."""
    worker_config = worker_props(tmp, kafka, engine="spark", **props)
    own = SparkEngine(worker_config, session=engine.session)
    herder = StandaloneHerder(
        Worker(
            worker_config,
            registry=PluginRegistry.discover(plugin_path=worker_config.get("plugin.path")),
            offset_store=FileOffsetStore(tmp / "offsets.json"),
            bootstrap_servers=kafka,
            engine=own,
            commit_interval_ms=500,
            shutdown_timeout_ms=30000,
        )
    )
    return herder, own


def test_executors_run_the_shipped_environment_not_the_drivers(
    engine: SparkEngine, kc_spark_cluster: SparkCluster
) -> None:
    check = engine.executor_check
    assert check is not None
    # spark.pyspark.python from the worker config reached the executors: their Python is the
    # unpacked archive in a worker's work directory, and kconnect comes from there too.
    assert check.python.endswith("environment/bin/python"), check.python
    assert check.python.startswith(str(kc_spark_cluster.root)), check.python
    assert check.runtime.startswith(str(kc_spark_cluster.root)), check.runtime
    assert not check.runtime.startswith(str(REPO)), check.runtime
    assert os.environ["PYSPARK_PYTHON"] == "./environment/bin/python"


def test_file_source_and_sink_on_the_cluster_with_a_relative_source_path(
    tmp_path: Path,
    kafka: str,
    engine: SparkEngine,
    cluster_props: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    lines = "".join(f"line {i} ✓\n" for i in range(20_000))
    (tmp_path / "in.txt").write_text(lines, encoding="utf-8")
    sink_file = tmp_path / "out.txt"
    monkeypatch.chdir(tmp_path)
    topic, src, sink = _name("cluster-e2e"), _name("src"), _name("sink")
    props = {**cluster_props, "spark.source.batch.max.records": "5000"}
    worker = _worker(tmp_path, kafka, engine, props)
    with caplog.at_level(logging.WARNING, logger="kconnect.engine.spark"):
        try:
            # The quickstart's relative `file`: executors would look in their work directory.
            worker.create_connector({**file_source(src, Path("x"), topic), "file": "in.txt"})
            worker.create_connector(file_sink(sink, sink_file, topic))
            wait_for(lambda: line_count(sink_file) >= 20_000, 90, "20,000 lines in the sink")
            time.sleep(1)  # more cycles: nothing may arrive twice
            status = worker.connector_status(src)["tasks"][0]
        finally:
            worker.stop()
    assert sink_file.read_text(encoding="utf-8") == lines
    assert status["state"] == "RUNNING"
    assert "trace" not in status, status
    warned = [r.getMessage() for r in caplog.records if "relative path" in r.getMessage()]
    assert warned and str(tmp_path / "in.txt") in warned[0], warned
    assert worker.progress()[src] == ("source", 20_000, 20_000)


def test_a_source_that_cannot_read_its_file_shows_the_executors_warning(
    tmp_path: Path, kafka: str, engine: SparkEngine, cluster_props: dict[str, str]
) -> None:
    missing = tmp_path / "not-there.txt"
    src = _name("src")
    worker = _worker(tmp_path, kafka, engine, cluster_props)
    try:
        worker.create_connector(file_source(src, missing, _name("t")))

        def warned() -> bool:
            return "Cannot read source file" in str(
                worker.connector_status(src)["tasks"][0].get("trace", "")
            )

        wait_for(warned, 60, "the executor's warning in the task status")
        status = worker.connector_status(src)["tasks"][0]
    finally:
        worker.stop()
    assert status["state"] == "RUNNING"
    assert str(missing) in status["trace"]
    assert "Spark executor" in status["trace"]


def test_a_header_converter_the_executors_lack_fails_the_start_naming_it(
    tmp_path: Path, kafka: str, engine: SparkEngine, cluster_props: dict[str, str]
) -> None:
    props = worker_props(
        tmp_path,
        kafka,
        engine="spark",
        **cluster_props,
        **{"header.converter": "org.apache.kafka.connect.json.JsonConverter"},
    )
    with pytest.raises(ConnectError) as failed:
        SparkEngine(props, session=engine.session)
    text = str(failed.value)
    assert "header.converter" in text
    assert "org.apache.kafka.connect.json.JsonConverter" in text
    assert "executors' environment" in text


def test_dataframe_source_and_sink_on_the_cluster(
    tmp_path: Path, engine: SparkEngine, kc_spark_cluster: SparkCluster
) -> None:
    spark = engine.session
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    lines = [f"row {i}" for i in range(5_000)]
    source_file.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    df = (
        spark.read.format("kconnect")
        .option("connector.class", "FileStreamSource")
        .option("file", str(source_file))
        .option("topic", "lines")
        .load()
    )
    rows = df.select("value").collect()
    assert sorted(r.value for r in rows) == sorted(lines)
    (
        df.select("value")
        .repartition(1)
        .write.format("kconnect")
        .mode("append")
        .option("connector.class", "FileStreamSink")
        .option("file", str(sink_file))
        .option("topics", "lines")
        .save()
    )
    assert sorted(sink_file.read_text(encoding="utf-8").splitlines()) == sorted(lines)
    # The reads and writes ran in the shipped environment, not in the driver's.
    assert kc_spark_cluster.executor_pythons() == {"./environment/bin/python"}


def test_a_plugin_path_connector_the_executors_lack_runs_from_the_shipped_location(
    tmp_path: Path,
    kafka: str,
    engine: SparkEngine,
    cluster_props: dict[str, str],
    kc_spark_cluster: SparkCluster,
) -> None:
    # The executors' environment has no SequenceSource: only the plugin.path location the
    # engine packs and ships (spark.plugin.path.ship=auto on a cluster master) provides it.
    location = tmp_path / "plugins" / "sequence"
    install_plugin([str(REPO / "examples" / "sequence")], location)
    topic, src, sink = _name("cluster-seq"), _name("seq"), _name("sink")
    sink_file = tmp_path / "out.txt"
    props = {**cluster_props, "plugin.path": str(location.parent)}
    herder, shipping = _worker_and_engine(tmp_path, kafka, engine, props)
    (shipped,) = shipping.plugin_locations
    assert shipped.path == str(location) and shipped.archive.endswith(".tar.gz")
    try:
        herder.create_connector(
            {
                "name": src,
                "connector.class": "SequenceSource",
                "topic": topic,
                "count": "500",
                "batch.size": "50",
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
        )
        herder.create_connector(file_sink(sink, sink_file, topic))
        wait_for(lambda: line_count(sink_file) >= 500, 180, "every number in the sink")
        states = [herder.connector_status(n)["tasks"][0]["state"] for n in (src, sink)]
        # The source's plugin host runs the interpreter of the copy an executor unpacked
        # (the archive's name is in its path), not the driver's location.
        pythons = kc_spark_cluster.executor_pythons()
        hosts = {p for p in pythons if shipped.archive in p}
    finally:
        herder.stop()
        shipping.close()  # removes the packed archive; the module's session stays up
    assert states == ["RUNNING", "RUNNING"]
    assert _lines(sink_file) == [f"Struct{{n={n},square={n * n}}}" for n in range(500)]
    assert hosts, pythons
    assert not any(p.startswith(str(location)) for p in pythons), pythons


def test_a_worker_killed_mid_cycle_loses_nothing_and_repeats_at_most_one_cycle_per_side(
    tmp_path: Path,
    kafka: str,
    engine: SparkEngine,
    cluster_props: dict[str, str],
    kc_spark_cluster: SparkCluster,
) -> None:
    total, bound = 30_000, 2_000
    lines = [f"line {i}" for i in range(total)]
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    topic, src, sink = _name("cluster-kill"), _name("src"), _name("sink")
    # Cycles of at most `bound` records on each side, never grown: a failed attempt repeats
    # at most that many (docs/spark.md, "Delivery guarantee and duplicate bound").
    props = {
        **cluster_props,
        "spark.source.batch.max.records": str(bound),
        "spark.sink.batch.max.records": str(bound),
        "spark.cycle.growth.max": "1",
    }
    worker = _worker(tmp_path, kafka, engine, props)
    try:
        worker.create_connector(file_source(src, source_file, topic))
        worker.create_connector(file_sink(sink, sink_file, topic))
        wait_for(lambda: line_count(sink_file) >= bound, 120, "the first sink cycles")
        kc_spark_cluster.kill_worker(0)  # its executor dies with it, mid-cycle
        wait_for(lambda: len(set(_lines(sink_file))) >= total, 240, "every line after the kill")
        time.sleep(1)  # more cycles: nothing more may arrive
        states = [worker.connector_status(n)["tasks"][0]["state"] for n in (src, sink)]
    finally:
        worker.stop()
        kc_spark_cluster.start_worker()  # the session's cluster has two workers again
    written = _lines(sink_file)
    assert set(written) == set(lines)
    assert len(written) - total <= 2 * bound, len(written) - total
    assert states == ["RUNNING", "RUNNING"]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
