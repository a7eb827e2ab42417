"""Source error handling: tolerance with the source dead letter queue, and task liveness."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_runtime.rest import render_prometheus
from kconnect_sdk import (
    ConfigDef,
    Header,
    Headers,
    RecordMetadata,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Task,
)
from runtime_harness import standalone, wait_for, worker_props
from test_errors_sink import read_all, samples

pytestmark = pytest.mark.integration

PARTITION = {"source": "memory"}
BAD_CONVERT, BAD_CAST = 3, 6


def value_of(i: int) -> Any:
    if i == BAD_CONVERT:
        return {1, 2}  # a set: JsonConverter cannot write it without a schema
    if i == BAD_CAST:
        return "abc"  # Cast int32 cannot parse it
    return 100 + i


class ListSourceTask(SourceTask):
    """Emits ten records once (a few of them bad), then nothing; remembers commit_record calls."""

    acked: ClassVar[dict[str, list[tuple[int, bool]]]] = {}

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.block = props.get("block") == "true"
        self.done = False
        self.acked[self.topic] = []
        self.stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.block:
            self.stopped.wait()  # a poll that blocks until the task is stopped
            return None
        if self.done:
            self.stopped.wait(0.1)
            return None
        self.done = True
        return [
            SourceRecord(
                source_partition=PARTITION,
                source_offset={"pos": i},
                topic=self.topic,
                kafka_partition=0,
                key_schema=None,
                key=None,
                value_schema=None,
                value=value_of(i),
                headers=Headers([Header("skip-cast", None, "yes")])
                if i == BAD_CONVERT
                else Headers.EMPTY,
            )
            for i in range(10)
        ]

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        assert record.source_offset is not None
        self.acked[self.topic].append((record.source_offset["pos"], metadata is not None))

    def stop(self) -> None:
        self.stopped.set()


class ListSource(SourceConnector):
    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return ListSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def source(name: str, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": f"{__name__}:ListSource",
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        "transforms": "cast",
        "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
        "transforms.cast.spec": "int32",
        # The record the converter must reject skips the cast, so it reaches the converter.
        "transforms.cast.predicate": "skip",
        "transforms.cast.negate": "true",
        "predicates": "skip",
        "predicates.skip.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        "predicates.skip.name": "skip-cast",
        **extra,
    }


def json_worker(tmp: Path, kafka: str, **extra: str) -> dict[str, str]:
    return worker_props(
        tmp,
        kafka,
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            **extra,
        },
    )


def test_tolerated_source_records_go_to_the_source_dlq(tmp_path: Path, kafka: str) -> None:
    topic = f"srcerr-{uuid.uuid4().hex[:8]}"
    name, dlq = f"src-{topic}", f"{topic}-dlq"
    config = source(
        name,
        topic,
        **{
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    with standalone(json_worker(tmp_path, kafka), config) as app:
        worker = app.herder
        assert worker is not None
        wait_for(
            lambda: (worker.offset_store.get(name, PARTITION) or {}).get("pos") == 9,
            20,
            "source offsets committed past every record",
        )
        metrics = samples(render_prometheus(worker))
    written = read_all(kafka, topic, 8)
    assert sorted(int(m.value()) for m in written) == [
        100 + i for i in range(10) if i not in (BAD_CONVERT, BAD_CAST)
    ]
    dead = {dict(m.headers())["__connect.errors.offset"]: m for m in read_all(kafka, dlq, 2)}
    assert set(dead) == {b'{"pos":3}', b'{"pos":6}'}
    convert = dict(dead[b'{"pos":3}'].headers())
    assert convert["__connect.errors.topic"] == topic.encode()
    assert convert["__connect.errors.partition"] == b'{"source":"memory"}'
    assert convert["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert convert["__connect.errors.connector.name"] == name.encode()
    cast = dict(dead[b'{"pos":6}'].headers())
    assert cast["__connect.errors.stage"] == b"TRANSFORMATION"
    assert b"cannot cast 'abc' to int32" in cast["__connect.errors.exception.message"]
    assert b'"value": "abc"' in dead[b'{"pos":6}'].value()  # the record, as JSON
    # Skipped records are acknowledged with no metadata, as Kafka does for filtered ones.
    assert sorted(ListSourceTask.acked[topic]) == [(i, i not in (3, 6)) for i in range(10)]
    assert metrics[("kafka_connect_source_task_metrics_source_record_poll_total", name)] == 10
    assert metrics[("kafka_connect_source_task_metrics_source_record_write_total", name)] == 8
    assert metrics[("kafka_connect_source_task_metrics_source_record_active_count", name)] == 0
    assert metrics[("kafka_connect_task_error_metrics_total_records_skipped_total", name)] == 2
    assert (
        metrics[("kafka_connect_task_error_metrics_deadletterqueue_produce_requests_total", name)]
        == 2
    )


def test_without_tolerance_a_bad_source_record_fails_the_task(tmp_path: Path, kafka: str) -> None:
    topic = f"srcfail-{uuid.uuid4().hex[:8]}"
    name = f"src-{topic}"
    with standalone(json_worker(tmp_path, kafka), source(name, topic)) as app:
        worker = app.herder
        assert worker is not None
        wait_for(
            lambda: worker.connector_status(name)["tasks"][0]["state"] == "FAILED",
            20,
            "the task to fail",
        )
        trace = worker.connector_status(name)["tasks"][0]["trace"]
        assert worker.offset_store.get(name, PARTITION) is None  # nothing committed
    assert "Tolerance exceeded in error handler at stage TRANSFORMATION" in trace
    assert '{"pos":' in trace  # names the source offset of the bad record


def test_a_task_stuck_in_poll_becomes_failed_within_the_liveness_bound(
    tmp_path: Path, kafka: str
) -> None:
    topic = f"stuck-{uuid.uuid4().hex[:8]}"
    name = f"src-{topic}"
    worker = json_worker(tmp_path, kafka, **{"task.liveness.timeout.ms": "1000"})
    with standalone(worker, source(name, topic, block="true")) as app:
        assert app.herder is not None
        status = app.herder.connector_status
        wait_for(lambda: status(name)["tasks"][0]["state"] == "FAILED", 5, "the stuck task to fail")
        trace = status(name)["tasks"][0]["trace"]
    assert "no progress for more than task.liveness.timeout.ms=1000" in trace
    assert "in poll" in trace  # the stack shows where it is stuck
