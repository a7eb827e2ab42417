"""The columnar read path: a task's ``poll_batch`` straight to Arrow gives the rows its records
give, in batch and streaming reads (with checkpoint restarts), under ``errors.*``.

Most tests drive the data source's partition readers in this process (the code an executor
or the stream reader runs), so a connector defined here can be read; the Spark tests read
the FileStream source, which Spark's Python workers can import.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from kconnect_sdk import (
    ConfigDef,
    PluginKind,
    Schema,
    SourceBatch,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

RUN = 5
"""Rows in a row share one source offset, as a CDC snapshot's rows share its position."""
T0 = 1_700_000_000_000


class RunsTask(SourceTask):
    """``rows`` rows in batches of ``batch``: row i has key ``k<i>``, value ``10 * i`` (INT64;
    the text ``oops`` for row ``bad``), timestamp ``T0 + i`` and offset ``{"pos": i // RUN}``.
    Restarted on a committed offset, it emits that offset's run again from its start."""

    def start(self, props: Mapping[str, str]) -> None:
        self.rows = int(props.get("rows", "60"))
        self.batch = int(props.get("batch", "7"))
        self.bad = int(props.get("bad", "-1"))
        self.form = props.get("offsets", "columns")
        self.partition = {"table": "t"}
        committed = self.context.offset_storage_reader.offset(self.partition)
        self.next = 0 if committed is None else int(committed["pos"]) * RUN

    def poll_batch(self) -> SourceBatch | None:
        if self.next >= self.rows:
            time.sleep(0.01)
            return None
        rows = range(self.next, min(self.next + self.batch, self.rows))
        self.next = rows.stop
        positions = [i // RUN for i in rows]
        return SourceBatch(
            topic="runs",
            source_partition=self.partition,
            key_schema=Schema.STRING,
            keys=[f"k{i}" for i in rows],
            value_schema=Schema.INT64,
            values=["oops" if i == self.bad else 10 * i for i in rows],
            source_offset_columns={"pos": positions} if self.form == "columns" else None,
            source_offsets=[{"pos": p} for p in positions] if self.form == "maps" else None,
            timestamps=[T0 + i for i in rows],
        )

    def poll(self) -> list[SourceRecord] | None:
        return SourceBatch.records_of(self.poll_batch())

    def finished(self) -> bool:
        return self.next >= self.rows

    def stop(self) -> None:
        pass


class RunsSource(SourceConnector):
    def config(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[RunsTask]:
        return RunsTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass


def runs_options(**extra: str) -> dict[str, str]:
    return {
        "connector.class": f"{__name__}:RunsSource",
        "kconnect.read.idle.ms": "200",
        "kconnect.batch.rows": "16",
        **extra,
    }


def plan_of(options: Mapping[str, str]) -> Any:
    from kconnect_runtime.dataframes import plan_connector

    return plan_connector(options, PluginKind.SOURCE)


def batch_read(options: Mapping[str, str]) -> pa.Table:
    """What one input partition of ``spark.read`` yields for task 0."""
    from kconnect_runtime.dataframes import source_schema
    from kconnect_runtime.dataframes._source import read_batch_partition

    plan = plan_of(options)
    target = source_schema(plan)
    return pa.Table.from_batches(list(read_batch_partition(plan, target, 0)), schema=target)


ROW_PATH = {"kconnect.read.columnar": "false"}


@pytest.mark.parametrize("offsets", ["columns", "maps"])
def test_a_batch_read_gives_the_same_rows_with_and_without_columns(offsets: str) -> None:
    columnar = batch_read(runs_options(offsets=offsets))
    rows = batch_read(runs_options(offsets=offsets, **ROW_PATH))
    assert columnar.equals(rows)
    assert columnar.num_rows == 60
    first = columnar.slice(7, 1).to_pylist()[0]
    assert first["topic"] == "runs"
    assert json.loads(first["partition"]) == {"table": "t"}
    assert first["offset"] == '{"pos":1}'
    assert (first["key"], first["value"]) == ("k7", 70)
    assert first["timestamp"].timestamp() * 1000 == T0 + 7
    # Polls of 7 rows are joined into record batches of kconnect.batch.rows=16 rows, as
    # records are: three polls (21 rows) make 16 + 5.
    assert [b.num_rows for b in columnar.to_batches()] == [16, 5, 16, 5, 16, 2]
    assert [b.num_rows for b in rows.to_batches()] == [16, 5, 16, 5, 16, 2]


def test_the_row_path_is_taken_with_transforms_and_gives_the_same_rows() -> None:
    from kconnect_runtime.dataframes._plan import SourceRun

    hoist = {
        "transforms": "hoist",
        "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Key",
        "transforms.hoist.field": "id",
    }
    plan = plan_of(runs_options(**hoist))
    run = SourceRun(plan, 0, [])
    try:
        assert not run.columnar
    finally:
        run.stop()
    hoisted = batch_read(runs_options(**hoist))
    assert hoisted.column("key").to_pylist()[:2] == [{"id": "k0"}, {"id": "k1"}]
    plain = batch_read(runs_options())
    assert hoisted.drop_columns(["key"]).equals(plain.drop_columns(["key"]))


@pytest.mark.parametrize(
    "shape",
    [
        {"source_offset_columns": {"file": ['a"quoted', "b"] * 10, "n": list(range(20))}},
        {"source_offset_columns": {"flag": [True, False] * 10}},
        {"source_offsets": [{"pos": i, "ts_ms": T0} for i in range(20)]},
        {"source_partition": None},
        {"keys": None, "timestamps": None},
        {"timestamps": [T0] * 20},  # one clock for the whole poll, as FileStream gives
        {"timestamps": [None] * 19 + [T0]},
        {"key_schema": None, "keys": None, "values": [None] * 20},
    ],
)
def test_every_batch_shape_makes_the_rows_its_records_make(shape: dict[str, Any]) -> None:
    from kconnect_runtime.dataframes import source_schema
    from kconnect_runtime.dataframes._rows import RowEncoder
    from kconnect_runtime.dataframes._source import _spark_type

    plan = plan_of(runs_options())
    target = source_schema(plan)
    fields: dict[str, Any] = {
        "topic": "runs",
        "source_partition": {"table": "t"},
        "key_schema": Schema.STRING,
        "keys": [f"k{i}" for i in range(20)],
        "value_schema": Schema.INT64,
        "values": list(range(20)),
        "source_offset_columns": {"pos": list(range(20))},
        "timestamps": [T0 + i for i in range(20)],
    }
    if "source_offsets" in shape or shape.get("source_partition", True) is None:
        fields.pop("source_offset_columns")
    batch = SourceBatch(**{**fields, **shape})
    encoder = RowEncoder(plan, target, _spark_type)
    try:
        assert encoder.encode_batch(batch).equals(encoder.encode(batch.records()))
    finally:
        encoder.close()


@pytest.mark.parametrize("offsets", ["columns", "maps"])
def test_a_read_with_converters_gives_the_same_bytes_with_and_without_columns(
    offsets: str,
) -> None:
    options = runs_options(offsets=offsets, **{"value.format": "json", "key.format": "avro"})
    options["key.converter.schema.registry.url"] = "mock://columnar"
    columnar = batch_read(options)
    assert columnar.equals(batch_read({**options, **ROW_PATH}))
    assert columnar.column("value").to_pylist()[3] == (
        b'{"schema":{"type":"int64","optional":false},"payload":30}'
    )


def test_a_value_that_does_not_fit_its_column_fails_the_read_naming_it() -> None:
    with pytest.raises(Exception, match="Tolerance exceeded") as info:
        batch_read(runs_options(bad="12"))
    text = str(info.value)
    assert 'at stage VALUE_CONVERTER (topic \'runs\' partition {"table":"t"} offset' in text
    assert 'offset {"pos":2}' in text  # the failing record's source offset
    assert "Could not convert 'oops'" in text


@pytest.mark.integration
def test_a_bad_value_goes_to_the_dead_letter_queue_under_tolerance_all(kc_kafka: str) -> None:
    topic = f"dlq-columnar-{uuid.uuid4().hex[:8]}"
    errors = {
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": topic,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
        "bootstrap.servers": kc_kafka,
    }
    table = batch_read(runs_options(bad="12", **errors))
    values = table.column("value").to_pylist()
    assert values == [10 * i for i in range(60) if i != 12]
    from runtime_harness import dlq_records  # not at the top: Spark's workers import this file

    (message,) = dlq_records(kc_kafka, topic, 1)
    record = json.loads(message.value())
    assert record["value"] == "oops"
    assert record["source_partition"] == {"table": "t"}
    assert record["source_offset"] == {"pos": 2}
    headers = {k: (v or b"").decode() for k, v in message.headers() or []}
    assert headers["__connect.errors.stage"] == "VALUE_CONVERTER"
    assert headers["__connect.errors.offset"] == '{"pos":2}'


def stream_read(options: Mapping[str, str], restarts_after: list[int]) -> tuple[list[Any], Any]:
    """Rows of micro-batches of at most 12 rows through the stream reader's driver side and
    its partitions, the reader stopped and started again from the last committed offset
    after each number of micro-batches in ``restarts_after``; and the last offset."""
    from kconnect_runtime.dataframes import source_schema
    from kconnect_runtime.dataframes._source import StreamCore, read_stream_partition

    plan = plan_of(options)
    target = source_schema(plan)
    rows: list[Any] = []
    core = StreamCore(plan, target)
    start = core.initial_offset()
    for batches in [*restarts_after, 100]:
        taken = 0
        deadline = time.monotonic() + 30
        while taken < batches and time.monotonic() < deadline:
            end = core.latest_offset(start, 12)
            if end == start:
                if len(rows) == 60:
                    break
                time.sleep(0.02)
                continue
            for part in core.partitions(start, end):
                for batch in read_stream_partition(plan, target, part):
                    rows.extend(batch.to_pylist())
            core.commit(end)
            start = end
            taken += 1
        core.stop()
        core = StreamCore(plan, target)  # a restart from the checkpoint's offset
    core.stop()
    return rows, start


@pytest.mark.parametrize("offsets", ["columns", "maps"])
def test_a_stream_restarted_inside_a_run_of_one_offset_loses_and_repeats_nothing(
    offsets: str,
) -> None:
    # Micro-batches of one poll (7 rows) end inside runs of 5 rows sharing an offset; after
    # a restart the task emits the run again from its start and the reader skips what the
    # checkpoint's run count says was read.
    columnar, end = stream_read(runs_options(offsets=offsets), [1, 2, 1])
    by_rows, end_rows = stream_read(runs_options(offsets=offsets, **ROW_PATH), [1, 2, 1])
    assert [r["value"] for r in columnar] == [10 * i for i in range(60)]
    assert columnar == by_rows
    assert end == end_rows
    assert end["tasks"]["0"] == [[{"table": "t"}, {"pos": 11}, 5]]


def test_a_bad_columnar_option_is_refused() -> None:
    from kconnect_sdk import ConfigError

    with pytest.raises(ConfigError, match=r"kconnect\.read\.columnar: expected true or false"):
        plan_of(runs_options(**{"kconnect.read.columnar": "maybe"}))


# -- on Spark, with the FileStream source --------------------------------------------------


@pytest.fixture
def spark(kc_spark: Any) -> Any:
    return kc_spark


@pytest.mark.integration
def test_on_spark_a_bad_value_of_a_batch_goes_to_the_dead_letter_queue(
    spark: Any, kc_kafka: str
) -> None:
    # Spark's Python workers import this module (with RunsSource) by its file name.
    spark.sparkContext.addPyFile(__file__)
    topic = f"dlq-columnar-spark-{uuid.uuid4().hex[:8]}"
    options = {
        **runs_options(bad="12"),
        "connector.class": f"{Path(__file__).stem}:RunsSource",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": topic,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "bootstrap.servers": kc_kafka,
    }
    columnar = spark.read.format("kconnect").options(**options).load().collect()
    from runtime_harness import dlq_records  # not at the top: Spark's workers import this file

    (message,) = dlq_records(kc_kafka, topic, 1)
    assert json.loads(message.value())["source_offset"] == {"pos": 2}
    by_rows = spark.read.format("kconnect").options(**options, **ROW_PATH).load().collect()
    assert sorted(columnar) == sorted(by_rows)
    assert sorted(r.value for r in columnar) == [10 * i for i in range(60) if i != 12]


def file_options(path: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": "lines",
        "batch.size": "300",
        "kconnect.read.idle.ms": "1000",
        **extra,
    }


def without_time(rows: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (r.topic, r.partition, r.offset, r.key, r.value, r.headers)
        for r in rows  # the timestamp is the time of each poll
    )


@pytest.mark.integration
def test_filestream_dataframes_are_equal_with_and_without_columns(
    spark: Any, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i} ✓\n" for i in range(2000)), encoding="utf-8")
    columnar = spark.read.format("kconnect").options(**file_options(source)).load().collect()
    rows = spark.read.format("kconnect").options(**file_options(source, **ROW_PATH)).load()
    assert without_time(columnar) == without_time(rows.collect())
    assert len(columnar) == 2000
    assert json.loads(columnar[-1].offset) == {"position": source.stat().st_size}


@pytest.mark.integration
def test_filestream_streams_restart_from_their_checkpoints_alike_with_and_without_columns(
    spark: Any, tmp_path: Path
) -> None:
    from pyspark.errors import AnalysisException

    source = tmp_path / "in.txt"
    source.write_text("".join(f"first {i}\n" for i in range(1000)), encoding="utf-8")

    def start(name: str, extra: Mapping[str, str]) -> Any:
        df = spark.readStream.format("kconnect").options(**file_options(source, **extra)).load()
        return (
            df.writeStream.format("parquet")
            .option("path", str(tmp_path / name))
            .option("checkpointLocation", str(tmp_path / f"{name}-checkpoint"))
            .trigger(processingTime="500 milliseconds")
            .start()
        )

    def committed(name: str) -> list[Any]:
        try:
            return list(spark.read.parquet(str(tmp_path / name)).collect())
        except AnalysisException:
            return []

    def run_until(count: int) -> None:
        queries = [start("columnar", {}), start("rows", ROW_PATH)]
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and not all(
                len(committed(n)) >= count for n in ("columnar", "rows")
            ):
                time.sleep(0.5)
            time.sleep(1.5)  # a repeated line would arrive now
        finally:
            for query in queries:
                query.stop()

    run_until(1000)
    with source.open("a", encoding="utf-8") as f:
        f.write("".join(f"second {i}\n" for i in range(500)))
    run_until(1500)
    columnar, rows = committed("columnar"), committed("rows")
    assert len(columnar) == 1500
    assert without_time(columnar) == without_time(rows)
    assert len({r.offset for r in columnar}) == 1500  # nothing repeated
