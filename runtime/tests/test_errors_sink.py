"""Sink error handling: tolerance, the dead letter queue, retries and the metrics they move."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.rest import render_prometheus
from kconnect_sdk import (
    ConfigDef,
    ConnectError,
    DataError,
    RetriableError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    Task,
)
from prometheus_client.parser import text_string_to_metric_families
from runtime_harness import (
    SESSION_TIMEOUT,
    file_sink,
    line_count,
    standalone,
    wait_for,
    worker_props,
)

pytestmark = pytest.mark.integration

# offset -> raw value: good JSON numbers, one invalid JSON text, one string Cast cannot make int32
BAD_JSON_OFFSET, BAD_CAST_OFFSET = 3, 6
VALUES: list[bytes] = [
    b"{not json" if i == BAD_JSON_OFFSET else b'"abc"' if i == BAD_CAST_OFFSET else b"%d" % (10 + i)
    for i in range(10)
]
GOOD_LINES = [str(10 + i) for i in range(10) if i not in (BAD_JSON_OFFSET, BAD_CAST_OFFSET)]


def make_topic(kafka: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=10).values():
        future.result()


def produce(kafka: str, topic: str, values: Sequence[bytes]) -> None:
    producer = Producer({"bootstrap.servers": kafka})
    for i, value in enumerate(values):
        producer.produce(topic, key=b"k%d" % i, value=value, headers=[("origin", b"test")])
    assert producer.flush(10) == 0


def read_all(kafka: str, topic: str, expected: int, timeout: float = 20) -> list[Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"reader-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest",
            "session.timeout.ms": int(SESSION_TIMEOUT),
        }
    )
    consumer.subscribe([topic])
    out: list[Any] = []
    try:
        wait_for(
            lambda: (
                bool(out.extend(m for m in consumer.consume(100, 0.2) if not m.error()))
                or len(out) >= expected
            ),
            timeout,
            f"{expected} records in {topic}",
        )
    finally:
        consumer.close()
    return out


def committed(kafka: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": group})
    try:
        offset: int = consumer.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
        return offset
    finally:
        consumer.close()


def samples(text: str) -> dict[tuple[str, str], float]:
    """(sample name, connector label) -> value, parsed the way Prometheus parses /metrics."""
    return {
        (s.name, s.labels.get("connector", "")): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def json_worker(tmp: Path, kafka: str) -> dict[str, str]:
    return worker_props(
        tmp,
        kafka,
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
        },
    )


CAST = {
    "transforms": "cast",
    "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
    "transforms.cast.spec": "int32",
}


@pytest.fixture
def topic(kafka: str) -> str:
    name = f"errs-{uuid.uuid4().hex[:8]}"
    make_topic(kafka, name)
    produce(kafka, name, VALUES)
    return name


def test_tolerated_bad_records_go_to_the_dlq_with_kafka_headers(
    tmp_path: Path, kafka: str, topic: str
) -> None:
    out, dlq, name = tmp_path / "out.txt", f"{topic}-dlq", f"sink-{topic}"
    sink = file_sink(
        name,
        out,
        topic,
        **CAST,
        **{
            "errors.tolerance": "all",
            "errors.log.enable": "true",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    with standalone(json_worker(tmp_path, kafka), sink) as app:
        wait_for(lambda: line_count(out) >= len(GOOD_LINES), 30, "every good record in the file")
        wait_for(
            lambda: committed(kafka, f"connect-{name}", topic) == len(VALUES),
            15,
            "offsets committed past every record",
        )
        assert app.herder is not None
        metrics = samples(render_prometheus(app.herder))
    assert out.read_text().splitlines() == GOOD_LINES

    dead = sorted(read_all(kafka, dlq, 2), key=lambda m: m.offset())
    assert [m.value() for m in dead] == [VALUES[BAD_JSON_OFFSET], VALUES[BAD_CAST_OFFSET]]
    assert [m.key() for m in dead] == [b"k3", b"k6"]
    json_headers, cast_headers = (dict(m.headers()) for m in dead)
    assert json_headers["origin"] == b"test"  # the consumed headers travel unchanged
    assert json_headers["__connect.errors.topic"] == topic.encode()
    assert json_headers["__connect.errors.partition"] == b"0"
    assert json_headers["__connect.errors.offset"] == b"3"
    assert json_headers["__connect.errors.connector.name"] == name.encode()
    assert json_headers["__connect.errors.task.id"] == b"0"
    assert json_headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert b"JsonConverter" in json_headers["__connect.errors.class.name"]
    assert json_headers["__connect.errors.exception.class.name"].endswith(b"DataError")
    assert json_headers["__connect.errors.exception.message"]
    trace = json_headers["__connect.errors.exception.stacktrace"].decode()
    # The record's own cause, first (as a Java trace starts), and nothing of the batch's
    # failed conversion chained before it.
    assert trace.splitlines()[0].endswith(
        json_headers["__connect.errors.exception.message"].decode()
    )
    assert "Traceback (most recent call last):" in trace
    assert "During handling of the above exception" not in trace
    assert cast_headers["__connect.errors.offset"] == b"6"
    assert cast_headers["__connect.errors.stage"] == b"TRANSFORMATION"
    assert b"Cast" in cast_headers["__connect.errors.class.name"]
    assert b"cannot cast 'abc' to int32" in cast_headers["__connect.errors.exception.message"]

    prefix = "kafka_connect_"
    assert metrics[(prefix + "sink_task_metrics_sink_record_read_total", name)] == 10
    assert metrics[(prefix + "sink_task_metrics_sink_record_send_total", name)] == 8
    assert metrics[(prefix + "task_error_metrics_total_records_skipped_total", name)] == 2
    assert metrics[(prefix + "task_error_metrics_total_record_errors_total", name)] == 2
    assert metrics[(prefix + "task_error_metrics_total_errors_logged_total", name)] == 2
    assert (
        metrics[(prefix + "task_error_metrics_deadletterqueue_produce_requests_total", name)] == 2
    )
    assert metrics[(prefix + "sink_task_metrics_partition_count", name)] == 1
    assert metrics[(prefix + "connect_worker_metrics_connector_count", "")] == 1


def test_without_tolerance_the_task_fails_at_the_first_bad_record(
    tmp_path: Path, kafka: str, topic: str
) -> None:
    out, name = tmp_path / "out.txt", f"sink-{topic}"
    with standalone(json_worker(tmp_path, kafka), file_sink(name, out, topic, **CAST)) as app:
        assert app.herder is not None
        worker = app.herder
        wait_for(
            lambda: worker.connector_status(name)["tasks"][0]["state"] == "FAILED",
            30,
            "the task to fail",
        )
        trace = worker.connector_status(name)["tasks"][0]["trace"]
    assert "VALUE_CONVERTER" in trace
    assert f"topic '{topic}' partition 0 offset {BAD_JSON_OFFSET}" in trace
    assert "errors.tolerance=all" in trace  # says what to do
    assert committed(kafka, f"connect-{name}", topic) <= BAD_JSON_OFFSET


class FlakySinkTask(SinkTask):
    """Fails twice with RetriableError, then writes values to the file of its config."""

    failures_left: ClassVar[dict[str, int]] = {}

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.path = Path(props["file"])
        self.context.timeout(100)

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        left = self.failures_left.get(str(self.path), 2)
        if left:
            self.failures_left[str(self.path)] = left - 1
            raise RetriableError("the external system is busy")
        with self.path.open("a") as f:
            f.writelines(f"{r.value}\n" for r in records)

    def stop(self) -> None:
        pass


class FlakySink(SinkConnector):
    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return FlakySinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def config(self) -> ConfigDef:
        return ConfigDef()

    def stop(self) -> None:
        pass


def test_retriable_put_is_redelivered_and_counted(tmp_path: Path, kafka: str) -> None:
    topic = f"flaky-{uuid.uuid4().hex[:8]}"
    make_topic(kafka, topic)
    produce(kafka, topic, [b"%d" % i for i in range(5)])
    out, name = tmp_path / "out.txt", f"flaky-{topic}"
    sink = {
        "name": name,
        "connector.class": f"{__name__}:FlakySink",
        "topics": topic,
        "file": str(out),
    }
    with standalone(worker_props(tmp_path, kafka), sink) as app:
        wait_for(lambda: line_count(out) >= 5, 30, "every record after the retries")
        assert app.herder is not None
        metrics = samples(render_prometheus(app.herder))
    assert out.read_text().splitlines() == [str(i) for i in range(5)]
    assert metrics[("kafka_connect_task_error_metrics_total_retries_total", name)] == 2
    assert metrics[("kafka_connect_sink_task_metrics_sink_record_send_total", name)] == 5


class RecordsError(ConnectError):
    """What a sink may raise to name the records it could not write (see runtime/README)."""

    def __init__(self, message: str, records: Sequence[SinkRecord]) -> None:
        super().__init__(message)
        self.records = list(records)


class ReportingSinkTask(SinkTask):
    """Reports value 'bad' through the errant record reporter; raises on value 'worse'."""

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.path = Path(props["file"])

    def put(self, records: Sequence[SinkRecord]) -> None:
        reporter = self.context.errant_record_reporter
        if reporter is None:
            raise ConnectError("expected an errant record reporter")
        good = []
        for r in records:
            if r.value == "bad":
                reporter.report(r, DataError(f"cannot store {r.value!r}"))
            elif r.value != "worse":
                good.append(r)
        with self.path.open("a") as f:
            f.writelines(f"{r.value}\n" for r in good)
        worse = [r for r in records if r.value == "worse"]
        if worse:
            raise RecordsError("the external system rejected them", worse)

    def stop(self) -> None:
        pass


class ReportingSink(FlakySink):
    def task_class(self) -> type[Task]:
        return ReportingSinkTask


def test_errant_records_reported_by_the_task_reach_the_dlq(tmp_path: Path, kafka: str) -> None:
    topic = f"errant-{uuid.uuid4().hex[:8]}"
    make_topic(kafka, topic)
    produce(kafka, topic, [b"a", b"bad", b"b", b"worse", b"c"])
    out, name, dlq = tmp_path / "out.txt", f"errant-{topic}", f"{topic}-dlq"
    sink = {
        "name": name,
        "connector.class": f"{__name__}:ReportingSink",
        "topics": topic,
        "file": str(out),
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true",
    }
    with standalone(worker_props(tmp_path, kafka), sink) as app:
        wait_for(
            lambda: committed(kafka, f"connect-{name}", topic) == 5, 20, "offsets past all five"
        )
        assert app.herder is not None
        assert app.herder.connector_status(name)["tasks"][0]["state"] == "RUNNING"
    assert out.read_text().splitlines() == ["a", "b", "c"]
    dead = sorted(read_all(kafka, dlq, 2), key=lambda m: m.offset())
    assert [m.value() for m in dead] == [b"bad", b"worse"]
    first, second = (dict(m.headers()) for m in dead)
    assert first["__connect.errors.stage"] == b"TASK_PUT"
    assert first["__connect.errors.offset"] == b"1"
    assert first["__connect.errors.class.name"].endswith(b"ReportingSinkTask")
    assert first["__connect.errors.exception.message"] == b"cannot store 'bad'"
    assert second["__connect.errors.offset"] == b"3"
    assert second["__connect.errors.exception.class.name"].endswith(b"RecordsError")
