"""Exactly-once sources: FileStream → Kafka records/s with exactly-once off and on.

    .venv/bin/python bench/bench_exactly_once.py [--rows 300000] [--interval-ms 1000]

One in-process distributed worker per run (embedded Tansu broker unless
``--bootstrap-servers``), one FileStream source connector reading ``--rows`` lines into a
one-partition topic, timed from the connector's creation to the last record in the
topic. Runs: exactly-once off; on with ``transaction.boundary=poll``; on with
``interval`` at ``--interval-ms``. The raw side: a plain confluent-kafka producer
sending the same lines (idempotent, then transactional in one transaction per 2,000
lines). Prints records/s and the ratios on/off; the goal is on >= 0.8x off with
``interval`` at 1 s. Asserts nothing about time. ``--rows 2000`` smoke-runs it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

import httpx
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_runtime import Distributed, EmbeddedBroker
from kconnect_runtime.modes import free_port


def count(bootstrap: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"b-{uuid.uuid4().hex}"})
    try:
        consumer.assign([KafkaTopicPartition(topic, 0, 0)])
        total, last = 0, time.monotonic()
        while time.monotonic() - last < 0.5:
            got = [m for m in consumer.consume(10000, 0.1) if m.error() is None]
            if got:
                total += len(got)
                last = time.monotonic()
        return total
    finally:
        consumer.close()


def run_connector(bootstrap: str, lines: Path, rows: int, eos: dict[str, str] | None) -> float:
    group = f"bench-eos-{uuid.uuid4().hex[:8]}"
    port = free_port()
    worker = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "listeners": f"http://127.0.0.1:{port}",
    }
    if eos is not None:
        worker["exactly.once.source.support"] = "enabled"
    topic = f"bench-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "FileStreamSource",
        "file": str(lines),
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **(eos or {}),
    }
    app = Distributed(worker)
    app.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as api:
            started = time.monotonic()
            api.put("/connectors/bench/config", json=config).raise_for_status()
            consumer = Consumer(
                {"bootstrap.servers": bootstrap, "group.id": f"b-{uuid.uuid4().hex}"}
            )
            seen = 0
            try:
                consumer.assign([KafkaTopicPartition(topic, 0, 0)])
                while seen < rows:
                    seen += sum(1 for m in consumer.consume(10000, 0.1) if m.error() is None)
                    if time.monotonic() - started > 600:
                        raise SystemExit(f"only {seen} of {rows} records within 600 s")
            finally:
                consumer.close()
            return rows / (time.monotonic() - started)
    finally:
        app.stop()


def run_raw(bootstrap: str, rows: int, transactional: bool) -> float:
    settings = {"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5}
    if transactional:
        settings["transactional.id"] = f"bench-raw-{uuid.uuid4().hex[:8]}"
    producer = Producer(settings)
    topic = f"raw-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    if transactional:
        producer.init_transactions(30)
    for first in range(0, rows, 2000):
        if transactional:
            producer.begin_transaction()
        for i in range(first, min(first + 2000, rows)):
            while True:
                try:
                    producer.produce(topic, f"line {i}".encode(), partition=0)
                    break
                except BufferError:
                    producer.poll(0.05)
        if transactional:
            producer.commit_transaction(30)
        producer.poll(0)
    producer.flush(60)
    return rows / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--interval-ms", type=int, default=1000)
    parser.add_argument("--bootstrap-servers", default="")
    args = parser.parse_args()
    broker = None
    bootstrap = args.bootstrap_servers
    if not bootstrap:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            lines = Path(tmp) / "in.txt"
            lines.write_text("".join(f"line {i}\n" for i in range(args.rows)), encoding="utf-8")
            raw_idem = run_raw(bootstrap, args.rows, transactional=False)
            raw_txn = run_raw(bootstrap, args.rows, transactional=True)
            off = run_connector(bootstrap, lines, args.rows, None)
            poll = run_connector(bootstrap, lines, args.rows, {"transaction.boundary": "poll"})
            interval = run_connector(
                bootstrap,
                lines,
                args.rows,
                {
                    "transaction.boundary": "interval",
                    "transaction.boundary.interval.ms": str(args.interval_ms),
                },
            )
    finally:
        if broker is not None:
            broker.stop()
    print(f"FileStream → Kafka, {args.rows} lines, one distributed worker")
    print(f"  raw producer, idempotent:        {raw_idem:>10,.0f} records/s")
    print(f"  raw producer, transactional:     {raw_txn:>10,.0f} records/s")
    print(f"  exactly-once off:                {off:>10,.0f} records/s ({off / raw_idem:.2f}x raw)")
    print(f"  on, transaction.boundary=poll:   {poll:>10,.0f} records/s ({poll / off:.2f}x off)")
    print(
        f"  on, interval {args.interval_ms} ms:          {interval:>10,.0f} records/s "
        f"({interval / off:.2f}x off; goal >= 0.8x)"
    )


if __name__ == "__main__":
    main()
