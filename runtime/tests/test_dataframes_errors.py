"""``errors.*`` on the DataFrame path: bad records fail the query, or are skipped, logged and
sent to a dead letter queue on a real broker, on both the read and the write side."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from runtime_harness import dlq_records

pytestmark = pytest.mark.integration

CAST = {
    "transforms": "ToInt",
    "transforms.ToInt.type": "org.apache.kafka.connect.transforms.Cast$Value",
    "transforms.ToInt.spec": "int32",
}


@pytest.fixture
def spark(kc_spark: Any) -> Any:
    return kc_spark


def numbers_file(tmp_path: Path) -> Path:
    source = tmp_path / "numbers.txt"
    source.write_text("1\n2\noops\n4\n", encoding="utf-8")
    return source


def source_options(path: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": "numbers",
        "kconnect.read.idle.ms": "1000",
        **CAST,
        **extra,
    }


def headers(message: Any) -> dict[str, str]:
    return {k: (v or b"").decode() for k, v in message.headers() or []}


def test_read_fails_on_a_bad_record_by_default_naming_it(spark: Any, tmp_path: Path) -> None:
    source = numbers_file(tmp_path)
    with pytest.raises(Exception, match="Tolerance exceeded") as info:
        # The schema comes from the first poll, which has the bad record: load() fails.
        spark.read.format("kconnect").options(**source_options(source)).load().collect()
    text = str(info.value)
    assert "Tolerance exceeded in error handler at stage TRANSFORMATION" in text
    assert "cannot cast 'oops' to int32" in text
    assert '"position":' in text  # the failing record's source offset


def test_read_skips_bad_records_into_a_dead_letter_queue(
    spark: Any, tmp_path: Path, kc_kafka: str
) -> None:
    source = numbers_file(tmp_path)
    topic = f"dlq-read-{uuid.uuid4().hex[:8]}"
    options = source_options(
        source,
        **{
            "errors.tolerance": "all",
            "errors.log.enable": "true",
            "errors.deadletterqueue.topic.name": topic,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
            "bootstrap.servers": kc_kafka,
        },
    )
    rows = spark.read.format("kconnect").options(**options).load().collect()
    assert [r.value for r in rows] == [1, 2, 4]
    (message,) = dlq_records(kc_kafka, topic, 1)
    record = json.loads(message.value())
    assert record["value"] == "oops"
    assert record["source_partition"] == {"filename": str(source)}
    assert record["source_offset"] == {"position": len("1\n2\noops\n")}
    h = headers(message)
    assert h["__connect.errors.stage"] == "TRANSFORMATION"
    assert h["__connect.errors.connector.name"] == "spark-kconnect"
    assert h["__connect.errors.offset"] == json.dumps({"position": 9}, separators=(",", ":"))


def test_stream_read_skips_bad_records_and_moves_on(spark: Any, tmp_path: Path) -> None:
    source = numbers_file(tmp_path)
    out = tmp_path / "parquet"
    df = (
        spark.readStream.format("kconnect")
        .options(**source_options(source, **{"errors.tolerance": "all"}))
        .load()
    )
    query = (
        df.select("value", "offset")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )
    try:
        deadline = time.monotonic() + 90
        values: list[int] = []
        while time.monotonic() < deadline:
            try:
                values = sorted(r.value for r in spark.read.parquet(str(out)).collect())
            except Exception:
                values = []
            if len(values) >= 3:
                break
            time.sleep(0.5)
    finally:
        query.stop()
    assert values == [1, 2, 4]


def test_write_skips_rows_a_converter_refuses_into_a_dead_letter_queue(
    spark: Any, tmp_path: Path, kc_kafka: str
) -> None:
    sink = tmp_path / "out.txt"
    topic = f"dlq-write-{uuid.uuid4().hex[:8]}"
    df = spark.createDataFrame(
        [("events", '{"n": 1}'), ("events", "not json"), ("events", '{"n": 3}')],
        ["topic", "value"],
    ).coalesce(1)
    options = {
        "connector.class": "FileStreamSink",
        "file": str(sink),
        "topics": "events",
        "value.format": "json",
        "value.converter.schemas.enable": "false",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": topic,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
        "bootstrap.servers": kc_kafka,
    }
    df.write.format("kconnect").mode("append").options(**options).save()
    written = sink.read_text(encoding="utf-8").splitlines()
    assert len(written) == 2
    assert ["1" in written[0], "3" in written[1]] == [True, True]
    (message,) = dlq_records(kc_kafka, topic, 1)
    assert message.value() == b"not json"  # the row's own bytes, as Kafka keeps the consumed ones
    h = headers(message)
    assert h["__connect.errors.stage"] == "VALUE_CONVERTER"
    assert h["__connect.errors.topic"] == "events"
    assert h["__connect.errors.offset"] == "1"
    assert h["__connect.errors.class.name"].endswith("JsonConverter")


def test_write_fails_on_a_bad_row_by_default(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([("events", "not json")], ["topic", "value"]).coalesce(1)
    writer = (
        df.write.format("kconnect")
        .mode("append")
        .options(
            **{
                "connector.class": "FileStreamSink",
                "file": str(tmp_path / "out.txt"),
                "topics": "events",
                "value.format": "json",
            }
        )
    )
    with pytest.raises(Exception, match="Tolerance exceeded") as info:
        writer.save()
    text = str(info.value)
    assert "Tolerance exceeded in error handler at stage VALUE_CONVERTER" in text
    assert "topic 'events' partition 0 offset 0" in text


def test_a_dead_letter_queue_needs_bootstrap_servers(spark: Any, tmp_path: Path) -> None:
    options = source_options(
        numbers_file(tmp_path),
        **{"errors.tolerance": "all", "errors.deadletterqueue.topic.name": "dlq"},
    )
    with pytest.raises(Exception, match="needs a Kafka cluster") as info:
        spark.read.format("kconnect").options(**options).load()
    assert "errors.deadletterqueue.topic.name=dlq needs a Kafka cluster" in str(info.value)
    assert "add option bootstrap.servers" in str(info.value)


def test_an_unknown_tolerance_is_refused(spark: Any, tmp_path: Path) -> None:
    options = source_options(numbers_file(tmp_path), **{"errors.tolerance": "some"})
    with pytest.raises(Exception, match=r"errors\.tolerance: String must be one of: none, all"):
        spark.read.format("kconnect").options(**options).load()
