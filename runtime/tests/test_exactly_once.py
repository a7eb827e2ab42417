"""Exactly-once sources (KIP-618, issue 20): validation, transactions, zombie fencing.

Expected validation messages are Kafka's own (``DistributedHerder``), kept here as data.
The test broker (Tansu) supports transactions and fences a zombie producer, but its
``read_committed`` fetches do not filter aborted records, so these tests count what a
clean run and a fenced zombie leave in the topic rather than what a read_committed
consumer would skip.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_runtime import Distributed
from kconnect_runtime.modes import free_port
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.tasks import transactional_id
from kconnect_runtime.worker import validate_connector
from kconnect_sdk import ConfigError
from runtime_harness import distributed_props, file_source, wait_for

# Kafka's messages (connect/runtime DistributedHerder), as data.
NOT_ENABLED = "This worker does not have exactly-once source support enabled."
NO_PREFLIGHT = (
    "The connector does not implement the API required for preflight validation of "
    "exactly-once source support."
)
UNSUPPORTED = (
    "The connector does not support exactly-once semantics with the provided configuration."
)
NO_BOUNDARIES = (
    "The connector does not support connector-defined transaction boundaries with the given "
    "configuration. Please reconfigure it to use a different transaction boundary definition."
)


def _distributed_props(kafka: str, group: str, port: int = 0, **extra: str) -> dict[str, str]:
    return distributed_props(kafka, group, port, **extra)


def _errors(infos: dict[str, Any]) -> dict[str, list[str]]:
    return {
        c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]
    }


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def _source(tmp_path: Path, **extra: str) -> dict[str, str]:
    return file_source("eos", tmp_path / "in.txt", "eos-topic", **extra)


def test_required_on_a_worker_without_support_is_refused(
    registry: PluginRegistry, tmp_path: Path
) -> None:
    worker = _distributed_props("127.0.0.1:9", "g")
    props = _source(tmp_path, **{"exactly.once.support": "required"})
    found = validate_connector(registry, worker, props)
    assert found.infos is not None
    assert _errors(found.infos) == {"exactly.once.support": [NOT_ENABLED]}
    with pytest.raises(ConfigError, match=NOT_ENABLED) as refused:
        validate_connector(registry, worker, props, strict=True)
    assert refused.value.name == "exactly.once.support"
    # Enabled on the worker, the FileStream source (a named file) says SUPPORTED.
    enabled = {**worker, "exactly.once.source.support": "enabled"}
    found = validate_connector(registry, enabled, props)
    assert found.infos is not None and _errors(found.infos) == {}


def test_required_with_a_connector_that_cannot_is_refused(
    registry: PluginRegistry, tmp_path: Path
) -> None:
    enabled = _distributed_props("127.0.0.1:9", "g", **{"exactly.once.source.support": "enabled"})
    # stdin keeps no offsets: the FileStream source answers UNSUPPORTED without a file.
    props = {**_source(tmp_path, **{"exactly.once.support": "required"}), "file": ""}
    found = validate_connector(registry, enabled, props)
    assert found.infos is not None
    assert _errors(found.infos) == {"exactly.once.support": [UNSUPPORTED]}
    # A connector that does not answer (the SDK's default: None).
    silent = {
        "name": "silent",
        "connector.class": "runtime_harness:RecordingSourceConnector",
        "exactly.once.support": "required",
    }
    found = validate_connector(registry, enabled, silent)
    assert found.infos is not None
    [message] = _errors(found.infos)["exactly.once.support"]
    assert message.startswith(NO_PREFLIGHT)
    assert 'use the value "requested" for this property' in message
    # "requested" skips the preflight check.
    found = validate_connector(registry, enabled, {**silent, "exactly.once.support": "requested"})
    assert found.infos is not None and _errors(found.infos) == {}


def test_connector_boundaries_need_a_connector_that_defines_them(
    registry: PluginRegistry, tmp_path: Path
) -> None:
    worker = _distributed_props("127.0.0.1:9", "g", **{"exactly.once.source.support": "enabled"})
    found = validate_connector(
        registry, worker, _source(tmp_path, **{"transaction.boundary": "connector"})
    )
    assert found.infos is not None
    assert _errors(found.infos) == {"transaction.boundary": [NO_BOUNDARIES]}
    found = validate_connector(
        registry, worker, _source(tmp_path, **{"transaction.boundary": "sometimes"})
    )
    assert found.infos is not None
    assert list(_errors(found.infos)) == ["transaction.boundary"]


def test_standalone_workers_do_not_run_the_preflight(
    registry: PluginRegistry, tmp_path: Path
) -> None:
    # As Kafka: only the distributed herder checks exactly-once keys.
    worker = {
        "bootstrap.servers": "127.0.0.1:9",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    props = _source(tmp_path, **{"exactly.once.support": "required"})
    found = validate_connector(registry, worker, props)
    assert found.infos is not None and _errors(found.infos) == {}


def test_transactional_id_is_kafkas() -> None:
    # Kafka's Worker.taskTransactionalId: <group.id>-<connector>-<task>.
    assert transactional_id("connect-cluster", "my-source", 3) == "connect-cluster-my-source-3"


# -- end to end, distributed, on the test broker ----------------------------------------------
def _values(kafka: str, topic: str, idle_s: float = 2.0) -> list[bytes]:
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"check-{uuid.uuid4().hex[:8]}",
            "isolation.level": "read_committed",
        }
    )
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([KafkaTopicPartition(topic, p, 0) for p in partitions])
        values: list[bytes] = []
        last = time.monotonic()
        while time.monotonic() - last < idle_s:
            messages = [m for m in consumer.consume(5000, 0.25) if m.error() is None]
            if messages:
                values.extend(m.value() for m in messages)
                last = time.monotonic()
        return values
    finally:
        consumer.close()


@pytest.fixture
def eos_worker(kafka: str) -> Iterator[tuple[Distributed, httpx.Client, str]]:
    group = f"eos-{uuid.uuid4().hex[:8]}"
    port = free_port()
    app = Distributed(
        _distributed_props(kafka, group, port, **{"exactly.once.source.support": "enabled"})
    )
    app.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as api:
            yield app, api, group
    finally:
        app.stop()


@pytest.mark.integration
@pytest.mark.parametrize(
    ("kafka", "boundary"),
    [
        ("kafka", "poll"),
        ("kafka", "interval"),
        pytest.param("tansu", "poll", marks=pytest.mark.tansu),
    ],
    indirect=["kafka"],
)
def test_file_source_with_transactions_then_a_fenced_zombie(
    kafka: str,
    tmp_path: Path,
    eos_worker: tuple[Distributed, httpx.Client, str],
    boundary: str,
) -> None:
    _app, api, group = eos_worker
    lines = 5000
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(lines)), encoding="utf-8")
    topic = f"eos-{uuid.uuid4().hex[:8]}"
    config = {
        **file_source("eos", source, topic),
        "exactly.once.support": "required",
        "transaction.boundary": boundary,
        "transaction.boundary.interval.ms": "200",
    }
    config.pop("name")
    # The REST preflight accepts it on this worker.
    checked = api.put(
        "/connector-plugins/FileStreamSourceConnector/config/validate",
        json={**config, "name": "eos"},
    ).json()
    assert checked["error_count"] == 0, _errors(checked)
    created = api.put("/connectors/eos/config", json=config)
    assert created.status_code in (200, 201), created.text
    wait_for(lambda: len(_values(kafka, topic, 1.0)) >= lines, 90, f"{lines} records")
    values = _values(kafka, topic)
    assert len(values) == lines == len(set(values))
    # The offsets went through the same producer into the worker's offsets topic.
    offsets = _values(kafka, f"{group}-offsets", 1.0)
    assert any(b'"position"' in v for v in offsets), offsets

    # A successor with the task's transactional id fences the running task (a zombie now):
    # what it reads next, it cannot commit, and it writes nothing.
    successor = Producer(
        {"bootstrap.servers": kafka, "transactional.id": transactional_id(group, "eos", 0)}
    )
    successor.init_transactions(30)
    with source.open("a", encoding="utf-8") as f:
        f.writelines(f"late {i}\n" for i in range(100))

    def failed() -> bool:
        status = api.get("/connectors/eos/status").json()
        return bool(status["tasks"]) and status["tasks"][0]["state"] == "FAILED"

    wait_for(failed, 60, "the fenced task to fail")
    trace = api.get("/connectors/eos/status").json()["tasks"][0].get("trace", "")
    assert "fenced" in trace.lower(), trace
    assert len(_values(kafka, topic)) == lines, "the zombie wrote records"
    # The successor is the id's one owner now: its own transaction commits.
    successor.begin_transaction()
    successor.produce(topic, b"successor", partition=0)
    successor.commit_transaction(30)
    assert _values(kafka, topic).count(b"successor") == 1


BOUNDARY_PLUGIN = '''
from __future__ import annotations
import json
import time
from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask


class BoundaryTask(SourceTask):
    """Three batches of ten: commit after the 5th record, abort the rest, commit batch 3."""

    def start(self, props):
        self.topic = props["topic"]
        self.batch = 0

    def poll(self):
        if self.batch >= 3:
            time.sleep(0.05)
            return None
        first = self.batch * 10
        records = [
            SourceRecord(
                source_partition={"s": "b"},
                source_offset={"n": n},
                topic=self.topic,
                kafka_partition=0,
                value=f"r{n}",
            )
            for n in range(first, first + 10)
        ]
        context = self.context.transaction_context()
        if self.batch == 0:
            context.commit_transaction(records[4])
        elif self.batch == 1:
            context.abort_transaction()
        else:
            context.commit_transaction()
        self.batch += 1
        return records

    def stop(self):
        pass


class BoundaryConnector(SourceConnector):
    def config(self):
        return ConfigDef()

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return BoundaryTask

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass

    def can_define_transaction_boundaries(self, props):
        return True
'''


@pytest.mark.integration
def test_connector_defined_boundaries_commit_after_a_record_and_abort(
    kafka: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    eos_worker: tuple[Distributed, httpx.Client, str],
) -> None:
    (tmp_path / "boundary_plugin.py").write_text(BOUNDARY_PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    _app, api, group = eos_worker
    topic = f"eosb-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "boundary_plugin:BoundaryConnector",
        "topic": topic,
        "transaction.boundary": "connector",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    created = api.put("/connectors/bounded/config", json=config)
    assert created.status_code in (200, 201), created.text

    def committed_offsets() -> list[bytes]:
        return [v for v in _values(kafka, f"{group}-offsets", 1.0) if b'"n"' in v]

    wait_for(lambda: len(committed_offsets()) >= 2, 60, "two committed transactions")
    time.sleep(1.0)
    # Transaction 1 ended after record 4; records 5-19 were aborted (no offsets written);
    # transaction 3 ended after batch 3: only offsets 4 and 29 were ever committed.
    assert committed_offsets() == [b'{"n":4}', b'{"n":29}']
    # A read_committed reader (what a sink sees) gets the two committed transactions only.
    # Records of the aborted one may have reached the log before the abort or been purged
    # from the producer's queue by it, as with Kafka's own producer.
    committed = [v.decode() for v in _values(kafka, topic, 1.0)]
    assert committed == [f"r{n}" for n in (*range(5), *range(20, 30))]
    status = api.get("/connectors/bounded/status").json()
    assert status["tasks"][0]["state"] == "RUNNING", status


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("incrementing", "SUPPORTED"),
        ("timestamp+incrementing", "SUPPORTED"),
        ("timestamp", "UNSUPPORTED"),
        ("bulk", "UNSUPPORTED"),
    ],
)
def test_jdbc_source_declares_exactly_once_where_its_offsets_allow(
    mode: str, expected: str
) -> None:
    from kconnect_connector_jdbc import JdbcSourceConnector

    props = {"connection.url": "jdbc:sqlite::memory:", "mode": mode}
    assert JdbcSourceConnector().exactly_once_support(props) == expected


@pytest.mark.integration
def test_a_task_reads_its_offsets_after_fencing_a_predecessor_killed_before_its_commit(
    kafka: str, tmp_path: Path
) -> None:
    """A worker killed between a transaction's offset record and its commit marker leaves
    that transaction open in the offsets topic. As Kafka's ExactlyOnceWorkerSourceTask,
    the task that takes over fences the killed producer (which aborts the transaction)
    before it reads its offsets; read while the transaction is open, the offsets
    committed before it are hidden (Tansu answers a last stable offset of 0) and the task
    would read the file from the start again."""
    group = f"eos-{uuid.uuid4().hex[:8]}"
    port = free_port()
    props = _distributed_props(kafka, group, port, **{"exactly.once.source.support": "enabled"})
    lines, late = 2000, 100
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(lines)), encoding="utf-8")
    end = source.stat().st_size
    topic = f"eos-{uuid.uuid4().hex[:8]}"
    config = {**file_source("eos", source, topic), "exactly.once.support": "required"}
    config.pop("name")
    offsets_topic = f"{group}-offsets"
    app = Distributed(props)
    app.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as api:
            created = api.put("/connectors/eos/config", json=config)
            assert created.status_code in (200, 201), created.text
            committed_end = f'{{"position":{end}}}'.encode()
            wait_for(
                lambda: committed_end in _values(kafka, offsets_topic, 0.5),
                90,
                "the whole file committed",
            )
    finally:
        app.stop()
    assert len(_values(kafka, topic)) == lines

    # The killed worker's last transaction: its offset record written, no commit marker.
    killed = Producer(
        {
            "bootstrap.servers": kafka,
            "transactional.id": transactional_id(group, "eos", 0),
            "partitioner": "murmur2_random",  # as the worker's producer: same partition
        }
    )
    killed.init_transactions(30)
    killed.begin_transaction()
    key = json.dumps(["eos", {"filename": str(source)}], separators=(",", ":")).encode()
    killed.produce(offsets_topic, key=key, value=f'{{"position":{end}}}'.encode())
    assert killed.flush(30) == 0
    with source.open("a", encoding="utf-8") as f:
        f.writelines(f"late {i}\n" for i in range(late))

    app = Distributed(props)
    app.start()
    try:
        wait_for(lambda: len(_values(kafka, topic, 0.5)) >= lines + late, 90, "the late lines")
        values = _values(kafka, topic)
    finally:
        app.stop()
    # The task went on after the committed end of the file: the late lines, once each,
    # and none of the file's lines again.
    assert values[lines:] == [f"late {i}".encode() for i in range(late)], values[lines:][:5]
    assert len(values) == lines + late
