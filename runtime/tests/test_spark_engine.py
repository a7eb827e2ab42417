"""The spark engine: connector tasks run as Spark jobs (local[2,4]) against a real broker."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_runtime import PluginRegistry, StandaloneHerder, Worker
from kconnect_runtime.config import parse_worker_config, spark_session_conf
from kconnect_runtime.engine import SparkEngine
from kconnect_runtime.plugins import install_plugin
from kconnect_runtime.rest import render_prometheus
from kconnect_runtime.status import State
from kconnect_runtime.storage import FileOffsetStore, MemoryOffsetStore
from kconnect_sdk import ConfigError, ConnectError
from runtime_harness import file_sink, file_source, line_count, wait_for, worker_props
from test_errors_sink import (
    BAD_CAST_OFFSET,
    BAD_JSON_OFFSET,
    CAST,
    GOOD_LINES,
    VALUES,
    make_topic,
    produce,
    read_all,
    samples,
)

REPO = Path(__file__).resolve().parents[2]

# Two cores, four attempts per Spark task: a failed cycle is retried, as on a cluster.
MASTER = "local[2,4]"


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """One local SparkSession for the module (starting one takes seconds)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        # getOrCreate() would hand back a session another module started (the testkit's
        # kc_spark runs local[2]: one attempt per Spark task), and this module's retry tests
        # need Spark to retry. That session is stopped here; kc_spark starts it again.
        active = SparkContext._active_spark_context
        if active is not None and active.master != MASTER:
            active.stop()
        session = (
            SparkSession.builder.master(MASTER)
            .appName("kconnect-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate()
        )
    except Exception as exc:  # never a skip: a missing Spark must fail loudly, in CI too
        pytest.fail(
            f"cannot start a local SparkSession ({exc}); install Java 17 (JAVA_HOME) and the "
            "workspace with `uv sync --all-packages` (kconnect-runtime[spark] brings pyspark)"
            + (" [CI=true]" if os.environ.get("CI") == "true" else ""),
            pytrace=False,
        )
    assert session.sparkContext.master == MASTER, session.sparkContext.master
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def _spark_worker(
    tmp: Path,
    kafka: str,
    spark: Any,
    *,
    offset_store: MemoryOffsetStore | None = None,
    engine: list[SparkEngine] | None = None,
    **extra: str,
) -> StandaloneHerder:
    props = worker_props(tmp, kafka, engine="spark", **extra)
    spark_engine = SparkEngine(props, session=spark)
    if engine is not None:
        engine.append(spark_engine)
    return StandaloneHerder(
        Worker(
            props,
            registry=PluginRegistry.discover(plugin_path=props.get("plugin.path")),
            offset_store=offset_store or FileOffsetStore(tmp / "offsets.json"),
            bootstrap_servers=kafka,
            engine=spark_engine,
            commit_interval_ms=500,
            consumer_session_timeout_ms=6000,
            shutdown_timeout_ms=30000,
        )
    )


def _group_committed(kafka: str, group: str, topic: str) -> int:
    """The consumer group's committed offset of partition 0, as lag tooling reads it."""
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": group})
    try:
        return int(consumer.committed([KafkaTopicPartition(topic, 0)], timeout=10)[0].offset)
    finally:
        consumer.close()


def _topic_values(kafka: str, topic: str, *, keys: bool = False) -> list[str]:
    """Every value (or key) in the topic (all partitions), read with an assigned consumer."""
    consumer = Consumer(
        {"bootstrap.servers": kafka, "group.id": _name("reader"), "enable.auto.commit": False}
    )
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        ends = {}
        for p in metadata.partitions:
            low, high = consumer.get_watermark_offsets(KafkaTopicPartition(topic, p), timeout=10)
            if high > low:
                ends[p] = high
        consumer.assign([KafkaTopicPartition(topic, p, 0) for p in ends])
        values: list[str] = []
        deadline = time.monotonic() + 30
        while ends and time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.5):
                if m.error() is None:
                    values.append((m.key() if keys else m.value()).decode())
                    if m.offset() + 1 >= ends.get(m.partition(), 0):
                        ends.pop(m.partition(), None)
        assert not ends, f"could not read all of topic {topic} within 30 s"
        return values
    finally:
        consumer.close()


@pytest.mark.integration
def test_file_to_kafka_to_file_on_spark_loses_nothing_and_restarts_without_duplicates(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    first = "".join(f"line {i} ünïcode ✓\n" for i in range(100_000))
    source_file.write_text(first, encoding="utf-8")
    topic, src, sink = _name("spark-e2e"), _name("src"), _name("sink")
    # Cycles smaller than the file, so the 100,000 lines take several cycles on each side.
    limits = {"spark.source.batch.max.records": "40000", "spark.sink.batch.max.records": "30000"}

    engines: list[SparkEngine] = []
    worker = _spark_worker(tmp_path, kafka, spark, engine=engines, **limits)
    try:
        worker.create_connector(file_source(src, source_file, topic))
        worker.create_connector(file_sink(sink, sink_file, topic))
        assert worker.connector_status(src)["tasks"][0]["state"] == "RUNNING"
        wait_for(lambda: line_count(sink_file) >= 100_000, 60, "100,000 lines in the sink file")
        wait_for(
            lambda: _group_committed(kafka, f"connect-{sink}", topic) == 100_000,
            20,
            "the sink's group to commit offset 100000",
        )
        # The sink may have every record before the source's last cycle ends (records reach
        # Kafka as they are polled; FileStreamSource's empty poll then waits a second) and
        # the driver counts a cycle once it committed it.
        wait_for(
            lambda: worker.progress()[src] == ("source", 100_000, 100_000),
            20,
            "the source's last cycle to be committed",
        )
        metrics = samples(render_prometheus(worker))
    finally:
        worker.stop()
    assert sink_file.read_text(encoding="utf-8") == first
    # The task metrics count what the cycles moved, as the local engine's loops do.
    source_metric, sink_metric = (
        "kafka_connect_source_task_metrics_",
        "kafka_connect_sink_task_metrics_",
    )
    assert metrics[(source_metric + "source_record_poll_total", src)] == 100_000
    assert metrics[(source_metric + "source_record_write_total", src)] == 100_000
    assert metrics[(sink_metric + "sink_record_read_total", sink)] == 100_000
    assert metrics[(sink_metric + "sink_record_send_total", sink)] == 100_000
    assert metrics[(sink_metric + "offset_commit_completion_total", sink)] >= 1
    assert worker.progress()[src] == ("source", 100_000, 100_000)
    assert worker.progress()[sink] == ("sink", 100_000, 100_000)
    # A full cycle is followed by a bigger one (spark.cycle.growth.max, 8 by default), and
    # no cycle ever moves more than 8 x spark.*.batch.max.records.
    cycles = [t for t in engines[0].stats.traces if t.records]
    source_sizes = [t.records for t in cycles if t.kind == "source"]
    assert sum(source_sizes) == 100_000
    assert max(source_sizes) > 40_000, source_sizes
    assert all(t.records <= 8 * 30_000 for t in cycles if t.kind == "sink")

    # A clean stop committed everything: a restart moves only the new lines, once.
    more = "".join(f"more {i}\n" for i in range(500))
    with source_file.open("a", encoding="utf-8") as f:
        f.write(more)
    worker = _spark_worker(tmp_path, kafka, spark, **limits)
    try:
        worker.create_connector(file_source(src, source_file, topic))
        worker.create_connector(file_sink(sink, sink_file, topic))
        wait_for(lambda: line_count(sink_file) >= 100_500, 60, "the appended lines")
        wait_for(
            lambda: _group_committed(kafka, f"connect-{sink}", topic) == 100_500,
            20,
            "the sink's group to commit offset 100500",
        )
        time.sleep(1.5)  # a few more (empty) cycles: nothing may arrive twice
    finally:
        worker.stop()
    assert sink_file.read_text(encoding="utf-8") == first + more
    assert worker.progress()[src] == ("source", 500, 500)


# A source connector of the test, shipped to the executors with SparkContext.addPyFile.
FLAKY_MODULE = textwrap.dedent(
    '''
    from pathlib import Path
    from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask, Schema

    PER_POLL = 10

    class FlakySourceTask(SourceTask):
        """Emits records 0..count-1; fails once when it reaches fail.at, unless the marker exists."""

        def start(self, props):
            self.props = dict(props)
            offset = self.context.offset_storage_reader.offset({"src": "flaky"})
            self.next = 0 if offset is None else offset["n"] + 1

        def poll(self):
            count, fail_at = int(self.props["count"]), int(self.props["fail.at"])
            marker = Path(self.props["marker"])
            if self.next >= fail_at and (self.props.get("always") or not marker.exists()):
                marker.touch()
                raise RuntimeError(f"injected failure at record {self.next}")
            if self.next >= count:
                return None
            batch = [
                SourceRecord(topic=self.props["topic"], value_schema=Schema.STRING,
                             value=f"rec-{n}", source_partition={"src": "flaky"},
                             source_offset={"n": n})
                for n in range(self.next, min(self.next + PER_POLL, count))
            ]
            self.next += len(batch)
            return batch

        def stop(self):
            pass

    class FlakySourceConnector(SourceConnector):
        def config(self):
            return ConfigDef()

        def start(self, props):
            self.props = dict(props)

        def task_class(self):
            return FlakySourceTask

        def task_configs(self, max_tasks):
            return [dict(self.props)]

        def stop(self):
            pass
    '''
)


class _RecordingStore(MemoryOffsetStore):
    """An offset store that remembers every commit."""

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[dict[str, Any]] = []

    def put(
        self,
        connector: str,
        offsets: Mapping[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]],
    ) -> None:
        self.commits.extend(dict(o) for _, o in offsets.values() if o is not None)
        super().put(connector, offsets)


@pytest.fixture(scope="module")
def flaky_module(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    module = f"kc_flaky_{uuid.uuid4().hex[:8]}"
    path = tmp_path_factory.mktemp("plugins") / f"{module}.py"
    path.write_text(FLAKY_MODULE, encoding="utf-8")
    spark.sparkContext.addPyFile(str(path))  # the executors' copy
    sys.path.insert(0, str(path.parent))  # the driver's (the worker validates the connector)
    try:
        yield module
    finally:
        sys.path.remove(str(path.parent))
        sys.modules.pop(module, None)


@pytest.mark.integration
def test_a_source_cycle_retried_by_spark_loses_nothing_and_commits_once(
    tmp_path: Path, kafka: str, spark: Any, flaky_module: str
) -> None:
    topic, name, marker = _name("flaky"), _name("flaky-src"), tmp_path / "failed-once"
    store = _RecordingStore()
    worker = _spark_worker(
        tmp_path, kafka, spark, offset_store=store, **{"spark.source.batch.max.records": "1000"}
    )
    try:
        runtime = worker.create_connector(
            {
                "name": name,
                "connector.class": f"{flaky_module}:FlakySourceConnector",
                "topic": topic,
                "count": "300",
                "fail.at": "100",
                "marker": str(marker),
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
        )
        wait_for(lambda: store.commits, 60, "the first offset commit")
        assert marker.exists(), "the first attempt did not fail as the test intends"
        assert runtime.tasks[0].status.state is State.RUNNING
    finally:
        worker.stop()
    values = _topic_values(kafka, topic)
    assert set(values) == {f"rec-{n}" for n in range(300)}
    # The failed attempt may have delivered what it polled before failing, never more.
    assert len(values) - 300 <= 100
    # Only the successful attempt committed, once, at the last record.
    assert store.commits == [{"n": 299}]


@pytest.mark.integration
def test_a_task_that_keeps_failing_is_failed_with_the_executor_trace(
    tmp_path: Path, kafka: str, spark: Any, flaky_module: str
) -> None:
    name = _name("broken")
    worker = _spark_worker(tmp_path, kafka, spark, offset_store=MemoryOffsetStore())
    try:
        worker.create_connector(
            {
                "name": name,
                "connector.class": f"{flaky_module}:FlakySourceConnector",
                "topic": _name("broken"),
                "count": "50",
                "fail.at": "0",
                "always": "yes",
                "marker": str(tmp_path / "marker"),
            }
        )
        status = worker.connector_status
        wait_for(lambda: status(name)["tasks"][0]["state"] == "FAILED", 60, "the task to fail")
        trace = status(name)["tasks"][0]["trace"]
    finally:
        worker.stop()
    assert f"connector {name!r} task 0" in trace
    assert "RuntimeError: injected failure at record 0" in trace
    assert worker.offset_store.connector_offsets(name) == []


@pytest.mark.integration
def test_pause_stops_cycles_and_resume_restarts_them(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("a\nb\n", encoding="utf-8")
    topic, src, sink = _name("pause"), _name("src"), _name("sink")
    worker = _spark_worker(tmp_path, kafka, spark)
    try:
        worker.create_connector(file_source(src, source_file, topic))
        worker.create_connector(file_sink(sink, sink_file, topic))
        wait_for(lambda: line_count(sink_file) == 2, 60, "the first lines")
        sink_runner = worker.get(sink).tasks[0]
        sink_runner.pause()
        assert worker.connector_status(sink)["tasks"][0]["state"] == "PAUSED"
        time.sleep(1.5)  # let a cycle that was already running finish
        with source_file.open("a", encoding="utf-8") as f:
            f.write("c\nd\n")
        wait_for(lambda: worker.progress()[src][2] == 4, 30, "the source to send c and d")
        time.sleep(2)
        assert line_count(sink_file) == 2, "a paused sink task went on writing"
        sink_runner.resume()
        wait_for(lambda: line_count(sink_file) == 4, 30, "the lines after resume")
    finally:
        worker.stop()
    assert sink_file.read_text(encoding="utf-8") == "a\nb\nc\nd\n"


JSON_VALUES = {
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}
TOLERATE_ALL = {
    "errors.tolerance": "all",
    "errors.log.enable": "true",
    "errors.deadletterqueue.topic.replication.factor": "1",
    "errors.deadletterqueue.context.headers.enable": "true",
}


@pytest.mark.integration
def test_bad_records_go_to_the_dead_letter_queues_from_executors_and_offsets_move_past_them(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    # Source side: a line Cast cannot make an int32. Sink side: raw values, one of them not
    # JSON, one JSON string Cast cannot make an int32 (as the local engine's error tests).
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("1\n2\nabc\n4\n", encoding="utf-8")
    topic, src, src_dlq = _name("spark-src-err"), _name("src"), _name("src-dlq")
    raw_topic, sink, sink_dlq = _name("spark-sink-err"), _name("sink"), _name("sink-dlq")
    make_topic(kafka, raw_topic)
    produce(kafka, raw_topic, VALUES)
    worker = _spark_worker(tmp_path, kafka, spark)
    try:
        worker.create_connector(
            file_source(
                src,
                source_file,
                topic,
                **CAST,
                **TOLERATE_ALL,
                **{"errors.deadletterqueue.topic.name": src_dlq},
            )
        )
        worker.create_connector(
            file_sink(
                sink,
                sink_file,
                raw_topic,
                **CAST,
                **TOLERATE_ALL,
                **JSON_VALUES,
                **{"errors.deadletterqueue.topic.name": sink_dlq},
            )
        )
        wait_for(lambda: line_count(sink_file) >= len(GOOD_LINES), 60, "the good records")
        wait_for(
            lambda: _group_committed(kafka, f"connect-{sink}", raw_topic) == len(VALUES),
            20,
            "the sink's group to commit past every record",
        )
        end = {"position": source_file.stat().st_size}
        wait_for(
            lambda: worker.offset_store.get(src, {"filename": str(source_file)}) == end,
            20,
            "the source offset at the end of the file",
        )
        sink_errors = worker.get(sink).tasks[0].metrics.errors
        src_errors = worker.get(src).tasks[0].metrics.errors
        states = {n: worker.connector_status(n)["tasks"][0]["state"] for n in (src, sink)}
    finally:
        worker.stop()
    assert states == {src: "RUNNING", sink: "RUNNING"}
    assert sorted(_topic_values(kafka, topic)) == ["1", "2", "4"]
    assert sink_file.read_text(encoding="utf-8").splitlines() == GOOD_LINES

    dead = sorted(read_all(kafka, sink_dlq, 2), key=lambda m: m.offset())
    assert [m.value() for m in dead] == [VALUES[BAD_JSON_OFFSET], VALUES[BAD_CAST_OFFSET]]
    json_headers, cast_headers = (dict(m.headers()) for m in dead)
    assert json_headers["origin"] == b"test"
    assert json_headers["__connect.errors.topic"] == raw_topic.encode()
    assert json_headers["__connect.errors.offset"] == str(BAD_JSON_OFFSET).encode()
    assert json_headers["__connect.errors.connector.name"] == sink.encode()
    assert json_headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert b"Traceback" in json_headers["__connect.errors.exception.stacktrace"]
    assert cast_headers["__connect.errors.stage"] == b"TRANSFORMATION"

    (bad_line,) = read_all(kafka, src_dlq, 1)
    headers = dict(bad_line.headers())
    assert headers["__connect.errors.stage"] == b"TRANSFORMATION"
    assert headers["__connect.errors.connector.name"] == src.encode()
    assert b"cannot cast 'abc' to int32" in headers["__connect.errors.exception.message"]
    assert b'"value": "abc"' in bad_line.value()

    # The executors' error counters reach the driver's task metrics.
    assert (sink_errors.records_skipped, sink_errors.dlq_produce_requests) == (2, 2)
    assert sink_errors.errors_logged == 2
    assert (src_errors.records_skipped, src_errors.dlq_produce_requests) == (1, 1)


@pytest.mark.integration
def test_without_tolerance_a_bad_record_fails_the_task_with_the_executors_trace(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    raw_topic, sink = _name("spark-sink-fail"), _name("sink")
    make_topic(kafka, raw_topic)
    produce(kafka, raw_topic, VALUES)
    sink_file = tmp_path / "out.txt"
    worker = _spark_worker(tmp_path, kafka, spark)
    try:
        worker.create_connector(file_sink(sink, sink_file, raw_topic, **CAST, **JSON_VALUES))
        status = worker.connector_status
        wait_for(lambda: status(sink)["tasks"][0]["state"] == "FAILED", 60, "the task to fail")
        trace = status(sink)["tasks"][0]["trace"]
    finally:
        worker.stop()
    assert "Tolerance exceeded in error handler at stage VALUE_CONVERTER" in trace
    assert f"topic '{raw_topic}' partition 0 offset {BAD_JSON_OFFSET}" in trace
    assert "errors.tolerance=all" in trace  # says what to do
    assert _group_committed(kafka, f"connect-{sink}", raw_topic) < 0  # nothing committed
    assert line_count(sink_file) == 0


def _sent(worker: StandaloneHerder, name: str) -> int:
    """Records the source sent so far; fails at once when its task failed."""
    task = worker.connector_status(name)["tasks"][0]
    assert task["state"] != "FAILED", task.get("trace")
    return worker.progress()[name][2]


@pytest.mark.integration
def test_a_plugin_path_connector_runs_on_executors_from_the_shipped_archive(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    location = tmp_path / "plugins" / "sequence"
    install_plugin([str(REPO / "examples" / "sequence")], location)
    topic, name = _name("spark-seq"), _name("seq")
    engines: list[SparkEngine] = []
    worker = _spark_worker(
        tmp_path,
        kafka,
        spark,
        engine=engines,
        **{
            "plugin.path": str(location.parent),
            "spark.plugin.path.ship": "true",
            "spark.source.batch.max.records": "200",
        },
    )
    (engine,) = engines
    (shipped,) = engine.plugin_locations
    assert shipped.path == str(location) and shipped.archive.endswith(".tar.gz")
    try:
        runtime = worker.create_connector(
            {
                "name": name,
                "connector.class": "SequenceSource",
                "topic": topic,
                "count": "600",
                "batch.size": "50",
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
        )
        assert runtime.plugin.location == str(location)  # the driver's connector: the original
        wait_for(lambda: worker.progress()[name][2] >= 200, 60, "the first cycle")
        # From here on only the shipped copy exists: a cycle spawning its plugin host from
        # the original location would fail (no bin/python) and so fail the task.
        shutil.rmtree(location)
        wait_for(lambda: _sent(worker, name) >= 600, 60, "every number")
        assert worker.connector_status(name)["tasks"][0]["state"] == "RUNNING"
    finally:
        worker.stop()
        engine.close()
    assert sorted(map(int, _topic_values(kafka, topic, keys=True))) == list(range(600))


BASE = {"key.converter": "StringConverter", "value.converter": "StringConverter"}


def test_the_worker_config_accepts_engine_spark_and_its_cycle_settings() -> None:
    parsed = parse_worker_config(
        {**BASE, "engine": "spark", "spark.source.batch.max.records": "5000"}
    )
    assert parsed["engine"] == "spark"
    assert parsed["spark.source.batch.max.records"] == 5000
    assert parsed["spark.master"] == "local[*]"
    with pytest.raises(ConfigError, match="engine"):
        parse_worker_config({**BASE, "engine": "flink"})


@pytest.mark.integration
def test_an_idle_sink_wakes_when_records_arrive_not_after_the_idle_pause(
    tmp_path: Path, kafka: str, spark: Any
) -> None:
    topic, sink = _name("spark-wake"), _name("sink")
    sink_file = tmp_path / "out.txt"
    make_topic(kafka, topic)
    engines: list[SparkEngine] = []
    # An idle pause far longer than the wait below: only the watermark check can wake it.
    worker = _spark_worker(
        tmp_path, kafka, spark, engine=engines, **{"spark.cycle.idle.ms": "60000"}
    )
    try:
        worker.create_connector(file_sink(sink, sink_file, topic))
        wait_for(lambda: engines[0].stats.empty_cycles >= 1, 30, "the sink to find nothing to read")
        produce(kafka, topic, [b"late"])
        wait_for(lambda: line_count(sink_file) >= 1, 20, "the record, well before the 60 s pause")
    finally:
        worker.stop()
    assert sink_file.read_text(encoding="utf-8") == "late\n"


def test_cycle_growth_is_a_worker_setting() -> None:
    parsed = parse_worker_config({**BASE, "engine": "spark"})
    assert parsed["spark.cycle.growth.max"] == 8
    with pytest.raises(ConfigError, match=r"spark\.cycle\.growth\.max"):
        parse_worker_config({**BASE, "engine": "spark", "spark.cycle.growth.max": "0"})


def test_a_bad_cycle_setting_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"spark\.sink\.batch\.max\.records") as info:
        SparkEngine({**BASE, "engine": "spark", "spark.sink.batch.max.records": "0"})
    assert info.value.name == "spark.sink.batch.max.records"


def test_only_sparks_own_settings_reach_the_session_builder() -> None:
    conf = spark_session_conf(
        {
            **BASE,
            "spark.master": "local[3,2]",
            "spark.executor.memory": "2g",
            "spark.source.batch.max.ms": "200",
            "producer.linger.ms": "10",
        }
    )
    assert conf == {
        "spark.master": "local[3,2]",
        "spark.app.name": "kconnect",
        "spark.executor.memory": "2g",
    }


def test_spark_connect_is_refused_with_advice() -> None:
    with pytest.raises(ConnectError, match="classic SparkSession"):
        SparkEngine({**BASE, "spark.remote": "sc://spark.example:15002"})


def test_a_session_the_engine_builds_gets_its_defaults_unless_the_worker_config_sets_them() -> None:
    from kconnect_runtime.engine.spark._driver import _session_defaults

    local = _session_defaults(spark_session_conf({**BASE, "spark.master": "local[2]"}))
    assert local["spark.driver.extraJavaOptions"] == "-XX:TieredStopAtLevel=1"
    assert local["spark.ui.showConsoleProgress"] == "false"
    # A cluster's driver JVM keeps its JIT; the worker config's own values always win.
    cluster = _session_defaults(spark_session_conf({**BASE, "spark.master": "spark://m:7077"}))
    assert "spark.driver.extraJavaOptions" not in cluster
    own = _session_defaults(
        spark_session_conf(
            {
                **BASE,
                "spark.master": "local[2]",
                "spark.driver.extraJavaOptions": "-Xss4m",
            }
        )
    )
    assert own["spark.driver.extraJavaOptions"] == "-Xss4m"
