"""How fast a distributed worker sees what was just written to its internal topics.

Every step of a connector's start in distributed mode (its config written, the group's
assignment, its task configs, the assignment of its tasks) waits for this worker to read
the config topic to its end. A read that waits out a timeout for records that will never
come would add that timeout to every step, on every worker.
"""

from __future__ import annotations

import time
import uuid

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from kconnect_runtime.storage import KafkaLog, LogTail
from kconnect_runtime.storage._kafka import fetched


def _log(kafka: str) -> KafkaLog:
    kafka_log = KafkaLog(
        {"bootstrap.servers": kafka},
        f"reads-{uuid.uuid4().hex[:8]}",
        partitions=1,
        replication_factor=1,
        key_name="config.storage.topic",
    )
    kafka_log.ensure_topic()
    return kafka_log


def test_fetched_returns_the_records_that_came_without_waiting_out_its_timeout(
    kafka: str,
) -> None:
    kafka_log = _log(kafka)
    for i in range(3):
        kafka_log.send(f"connector-c{i}".encode(), b'{"properties":{}}')
    kafka_log.flush()
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"reads-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(kafka_log.topic, 0, OFFSET_BEGINNING)])
        started = time.monotonic()
        keys: list[bytes] = []
        while len(keys) < 3 and time.monotonic() - started < 60:
            keys += [m.key() for m in fetched(consumer, 30.0) if m.error() is None]
        took = time.monotonic() - started
        # A batch read that waited for a full batch would hold the three records for the
        # whole 30 s timeout.
        assert keys == [b"connector-c0", b"connector-c1", b"connector-c2"]
        assert took < 20, f"three records took {took:.1f} s to read"
        started = time.monotonic()
        assert fetched(consumer, 0.3) == []  # nothing more: the wait ends at its timeout
        assert time.monotonic() - started >= 0.25
    finally:
        consumer.close()
        kafka_log.close()


def test_a_log_tail_reads_each_new_record_once_up_to_the_end(kafka: str) -> None:
    kafka_log = _log(kafka)
    tail = LogTail(kafka_log)
    try:
        assert tail.read() == []
        for i in range(5):
            kafka_log.send(f"target-state-c{i}".encode(), b'{"state":"STARTED"}')
            kafka_log.flush()
            records = tail.read(timeout_s=30)
            assert [key for _, _, key, _ in records] == [f"target-state-c{i}".encode()]
            assert tail.positions() == {0: i + 1}
        assert tail.read() == []
    finally:
        tail.close()
        kafka_log.close()
