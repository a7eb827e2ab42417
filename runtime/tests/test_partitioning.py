"""Keyed source records land on the partition Java's Kafka Connect writes them to.

Kafka's producer places a record with a key on ``toPositive(murmur2(key bytes)) % partitions``;
librdkafka's own default (CRC32) places most keys elsewhere. A consumer that relies on a key's
records being in one partition, or a pipeline moved from the JVM to kconnect mid-stream, sees
the same placement only with Java's partitioner. The reference hash below is checked against
the vectors of Kafka's ``UtilsTest.testMurmur2`` first.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition
from kconnect_sdk import ConfigDef, Schema, SourceConnector, SourceRecord, SourceTask, Task
from runtime_harness import standalone, wait_for, worker_props

pytestmark = pytest.mark.integration

PARTITIONS = 6
KEYS = 300


def java_murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``: 32-bit MurmurHash2, seed 0x9747b28c, as a signed int."""
    mask = 0xFFFFFFFF
    m, r = 0x5BD1E995, 24
    length = len(data)
    h = (0x9747B28C ^ length) & mask
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * m) & mask
        k ^= k >> r
        k = (k * m) & mask
        h = (h * m) & mask
        h ^= k
    rest = data[whole:]
    if len(rest) >= 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if rest:
        h ^= rest[0]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def java_partition(key: bytes, partitions: int) -> int:
    return (java_murmur2(key) & 0x7FFFFFFF) % partitions


def test_the_reference_hash_is_kafkas() -> None:
    # Kafka's UtilsTest.testMurmur2.
    vectors = {
        b"21": -973932308,
        b"foobar": -790332482,
        b"a-little-bit-long-string": -985981536,
        b"a-little-bit-longer-string": -1486304829,
        b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
        b"abc": 479470107,
    }
    assert {k: java_murmur2(k) for k in vectors} == vectors


class KeyedTask(SourceTask):
    """``KEYS`` records keyed ``key-0`` … once, then nothing."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.done = False

    def poll(self) -> list[SourceRecord] | None:
        if self.done:
            time.sleep(0.05)
            return None
        self.done = True
        return [
            SourceRecord(
                topic=self.topic,
                source_partition={"p": 0},
                source_offset={"i": i},
                key_schema=Schema.STRING,
                key=f"key-{i}",
                value_schema=Schema.STRING,
                value=f"value-{i}",
            )
            for i in range(KEYS)
        ]

    def stop(self) -> None:
        pass


class KeyedSource(SourceConnector):
    def config(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return KeyedTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass


def test_keyed_records_land_where_javas_partitioner_puts_them(kafka: str, tmp_path: Path) -> None:
    topic = f"keyed-{uuid.uuid4().hex[:8]}"
    connector = {
        "name": "keyed",
        "connector.class": "test_partitioning:KeyedSource",
        "topic": topic,
        "topic.creation.default.partitions": str(PARTITIONS),
        "topic.creation.default.replication.factor": "1",
    }
    placed: dict[bytes, int] = {}
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"check-{topic}",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 20,
        }
    )
    try:
        with standalone(worker_props(tmp_path, kafka), connector):

            def created() -> bool:
                found = consumer.list_topics(topic, timeout=5).topics.get(topic)
                return found is not None and found.error is None and bool(found.partitions)

            wait_for(created, 60, f"topic {topic}")
            # Every partition from its start, without a group join.
            consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])

            def all_read() -> bool:
                for msg in consumer.consume(500, 0.2):
                    if msg.error() is None and msg.key() is not None:
                        placed[msg.key()] = msg.partition()
                return len(placed) >= KEYS

            wait_for(all_read, 60, f"{KEYS} keyed records on {topic}")
    finally:
        consumer.close()
    wrong = {
        k: (p, java_partition(k, PARTITIONS))
        for k, p in placed.items()
        if p != java_partition(k, PARTITIONS)
    }
    assert not wrong, (
        f"{len(wrong)} keys on another partition than Java's: {dict(list(wrong.items())[:5])}"
    )
    assert len(set(placed.values())) == PARTITIONS  # the keys spread over every partition
