"""Distributed mode, the herder's side of exactly-once sources (KIP-618, issue 20).

One in-process ``Distributed`` worker per test on the test broker: the leader's task count
records (``tasks-fencing-<connector>``) and zombie fencing, ``exactly.once.source.support=
preparing``, and a connector's own ``offsets.storage.topic`` read back when its task starts.
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
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from kconnect_runtime import Distributed
from kconnect_runtime.modes import free_port
from kconnect_runtime.tasks import transactional_id
from runtime_harness import SESSION_TIMEOUT, distributed_props, file_source, wait_for

pytestmark = pytest.mark.integration

COUNTED_PLUGIN = '''
from __future__ import annotations
import time
from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask


class CountedTask(SourceTask):
    """One record every 200 ms, numbered per task."""

    def start(self, props):
        self.topic = props["topic"]
        self.task = props["task.index"]
        self.n = 0

    def poll(self):
        time.sleep(0.2)
        self.n += 1
        return [
            SourceRecord(
                source_partition={"task": self.task},
                source_offset={"n": self.n},
                topic=self.topic,
                kafka_partition=0,
                value=f"{self.task}:{self.n}",
            )
        ]

    def stop(self):
        pass


class CountedConnector(SourceConnector):
    def config(self):
        return ConfigDef()

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return CountedTask

    def task_configs(self, max_tasks):
        return [{**self.props, "task.index": str(i)} for i in range(max_tasks)]

    def stop(self):
        pass
'''


def _props(kafka: str, group: str, port: int, support: str) -> dict[str, str]:
    return distributed_props(
        kafka,
        group,
        port,
        **{
            "session.timeout.ms": SESSION_TIMEOUT,
            "heartbeat.interval.ms": "1000",
            "offset.flush.interval.ms": "500",
            "exactly.once.source.support": support,
        },
    )


class Worker:
    """An in-process distributed worker that can be stopped and started again."""

    def __init__(self, kafka: str, support: str) -> None:
        self.kafka = kafka
        self.group = f"eosh-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.support = support
        self.app: Distributed | None = None

    def start(self) -> httpx.Client:
        self.app = Distributed(_props(self.kafka, self.group, self.port, self.support))
        self.app.start()
        return httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=60)

    def stop(self) -> None:
        if self.app is not None:
            self.app.stop()
            self.app = None


@pytest.fixture
def worker_factory(kafka: str) -> Iterator[Any]:
    made: list[Worker] = []

    def make(support: str) -> Worker:
        worker = Worker(kafka, support)
        made.append(worker)
        return worker

    try:
        yield make
    finally:
        for worker in made:
            worker.stop()


def _records(
    kafka: str, topic: str, *, committed: bool = True, idle_s: float = 1.5, every: bool = False
) -> list[tuple[int, bytes | None, bytes | None]]:
    """(offset, key, value) of every record of partition 0 (of every partition: ``every``)."""
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"peek-{uuid.uuid4().hex[:8]}",
            "isolation.level": "read_committed" if committed else "read_uncommitted",
        }
    )
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in (partitions if every else [0])])
        found: list[tuple[int, bytes | None, bytes | None]] = []
        last = started = time.monotonic()
        # Until nothing came for idle_s (a source that never stops: at most 15 s).
        while time.monotonic() - last < idle_s and time.monotonic() - started < 15:
            messages = [m for m in consumer.consume(5000, 0.25) if m.error() is None]
            if messages:
                found += [(m.offset(), m.key(), m.value()) for m in messages]
                last = time.monotonic()
        return found
    finally:
        consumer.close()


def _gaps(records: list[tuple[int, bytes | None, bytes | None]]) -> int:
    """Offsets a reader never saw between the first and the last record: transaction
    markers (and aborted records), for a topic nobody compacted yet."""
    offsets = [o for o, _, _ in records]
    return max(offsets) + 1 - min(offsets) - len(offsets)


def _running(api: httpx.Client, name: str, count: int) -> bool:
    response = api.get(f"/connectors/{name}/status")
    if response.status_code != 200:
        return False
    tasks = response.json()["tasks"]
    return len(tasks) == count and all(t["state"] == "RUNNING" for t in tasks)


def test_leader_writes_task_counts_and_fences_the_previous_generation(
    kafka: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    worker_factory: Any,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    (tmp_path / "counted_plugin.py").write_text(COUNTED_PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    caplog.set_level("INFO", logger="kconnect.distributed")
    worker = worker_factory("enabled")
    api = worker.start()
    request.addfinalizer(api.close)
    topic = f"counted-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "counted_plugin:CountedConnector",
        "topic": topic,
        "tasks.max": "2",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    assert api.put("/connectors/multi/config", json=config).status_code == 201
    wait_for(lambda: _running(api, "multi", 2), 60, "two transactional tasks RUNNING")
    configs = f"{worker.group}-configs"

    def keys() -> list[bytes | None]:
        return [k for _, k, _ in _records(kafka, configs, idle_s=0.5)]

    # The first generation: no one to fence, but the task count is recorded after the
    # task configs (Kafka's "tasks-fencing-<connector>" record, {"task-count": n}).
    first = keys()
    assert b"tasks-fencing-multi" in first
    assert first.index(b"tasks-fencing-multi") > first.index(b"commit-multi")
    first_counts = [
        json.loads(v or b"{}")
        for _, k, v in _records(kafka, configs, idle_s=0.5)
        if k == b"tasks-fencing-multi"
    ]
    assert first_counts == [{"task-count": 2}]

    # A zombie of task 1 (an instance frozen somewhere, the newest holder of its id: taking
    # the id fenced the running task 1, which fails).
    zombie = Producer(
        {"bootstrap.servers": kafka, "transactional.id": transactional_id(worker.group, "multi", 1)}
    )
    zombie.init_transactions(30)
    # New task configs (one task): before starting them the leader fences every task of the
    # previous generation (two), then records the new count. No new task uses the id of
    # task 1: only the leader's fencing can fence the zombie.
    config["tasks.max"] = "1"
    assert api.put("/connectors/multi/config", json=config).status_code == 200

    def counts() -> list[Any]:
        return [
            json.loads(v or b"{}")
            for _, k, v in _records(kafka, configs, idle_s=0.5)
            if k == b"tasks-fencing-multi"
        ]

    def changes() -> list[Any]:
        # The leader may write a generation's count again when a round of its work is
        # retried (a broker answered "coordinator loading" on Kafka); the topic is
        # compacted and read as the newest value per key, so a repeat changes nothing.
        found = counts()
        return [c for i, c in enumerate(found) if i == 0 or found[i - 1] != c]

    wait_for(lambda: len(changes()) == 2, 60, "the new generation's task count record")
    assert changes() == [{"task-count": 2}, {"task-count": 1}]
    # Only then does the new generation start (the old one was stopped first).
    wait_for(lambda: _running(api, "multi", 1), 60, "the new generation's task RUNNING")

    # The zombie resumes: it can commit nothing.
    def zombie_commits() -> None:
        zombie.begin_transaction()
        zombie.produce(topic, b"zombie", partition=0)
        zombie.flush(10)
        zombie.commit_transaction(30)

    with pytest.raises(KafkaException):  # "fenced by a newer instance"
        zombie_commits()
    values = [v for _, _, v in _records(kafka, topic)]
    assert b"zombie" not in values  # a read_committed consumer never sees the zombie's write
    assert any(v and v.startswith(b"0:") for v in values)
    assert "fencing the producers of its previous tasks" in caplog.text


def test_preparing_makes_the_leader_transactional_and_leaves_tasks_as_they_were(
    kafka: str,
    tmp_path: Path,
    worker_factory: Any,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    caplog.set_level("INFO", logger="kconnect.distributed")
    worker = worker_factory("preparing")
    api = worker.start()
    request.addfinalizer(api.close)
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(50)), encoding="utf-8")
    topic = f"prep-{uuid.uuid4().hex[:8]}"
    config = file_source("prep", source, topic)
    config.pop("name")
    assert api.put("/connectors/prep/config", json=config).status_code == 201
    wait_for(lambda: len(_records(kafka, topic, idle_s=0.5)) >= 50, 60, "50 records")
    # Tasks are not transactional yet: no transaction markers between their records.
    assert _gaps(_records(kafka, topic)) == 0
    configs = f"{worker.group}-configs"
    records = _records(kafka, configs, idle_s=0.5)
    # The leader is: its writes (the assignments) are transactions, whose commit markers
    # take offsets a reader never sees.
    assert any(k == b"kconnect-assignment" for _, k, _ in records)
    assert _gaps(records) > 0
    # Nothing is fenced while preparing: no task count records.
    assert not any((k or b"").startswith(b"tasks-fencing-") for _, k, _ in records)
    # A second leader with the same transactional id fences this one: its next write fails
    # (a zombie leader writes nothing) and it takes the id back for the write after.
    intruder = Producer(
        {"bootstrap.servers": kafka, "transactional.id": f"connect-cluster-{worker.group}"}
    )
    intruder.init_transactions(30)
    config = file_source("prep2", source, f"{topic}-2")
    config.pop("name")
    assert api.put("/connectors/prep2/config", json=config).status_code == 201
    wait_for(lambda: _running(api, "prep2", 1), 60, "a connector assigned by the leader again")
    assert "cannot write to config.storage.topic as the leader" in caplog.text


def test_a_connectors_own_offsets_topic_is_read_back_when_its_task_starts(
    kafka: str, tmp_path: Path, worker_factory: Any, request: pytest.FixtureRequest
) -> None:
    worker = worker_factory("enabled")
    api = worker.start()
    request.addfinalizer(api.close)
    source = tmp_path / "in.txt"
    source.write_text("".join(f"first {i}\n" for i in range(100)), encoding="utf-8")
    topic = f"own-{uuid.uuid4().hex[:8]}"
    own_offsets = f"{topic}-offsets"
    config = file_source("own", source, topic, **{"offsets.storage.topic": own_offsets})
    config.pop("name")
    assert api.put("/connectors/own/config", json=config).status_code == 201
    wait_for(lambda: len(_records(kafka, topic, idle_s=0.5)) >= 100, 60, "100 records")
    wait_for(
        lambda: any(
            b'"position"' in (v or b"") for _, _, v in _records(kafka, own_offsets, every=True)
        ),
        30,
        "offsets in the connector's own topic",
    )
    # Only there: the worker's offsets topic has none of this connector's.
    worker_offsets = _records(kafka, f"{worker.group}-offsets", idle_s=0.5, every=True)
    assert not any(b'"own"' in (k or b"") for _, k, _ in worker_offsets)
    worker.stop()

    # A restarted worker runs the task again; it resumes from the connector's own topic.
    with source.open("a", encoding="utf-8") as f:
        f.writelines(f"second {i}\n" for i in range(50))
    api = worker.start()
    request.addfinalizer(api.close)
    wait_for(lambda: len(_records(kafka, topic, idle_s=0.5)) >= 150, 60, "150 records")
    time.sleep(2)
    values = [v for _, _, v in _records(kafka, topic)]
    assert len(values) == len(set(values)) == 150, len(values)
