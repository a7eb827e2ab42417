"""kill -9 of a real worker at seeded random points: the bucket ends as a crash-free run's.

A standalone worker process (``python -m kconnect_runtime.cli standalone``) consumes a
topic of the session's broker into S3 with deterministic settings (FieldPartitioner,
``flush.size``). One run is left alone; another is killed with SIGKILL three times at
random moments and restarted. Exactly-once means the final listing and every object's
bytes are the same, and every record is there once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from s3_testing import Bucket, new_bucket

pytestmark = pytest.mark.integration

PARTITIONS = 4
PER_PARTITION = 200
SCHEMA = {
    "type": "struct",
    "name": "reading",
    "optional": False,
    "fields": [
        {"field": "k", "type": "int32", "optional": False},
        {"field": "i", "type": "int64", "optional": False},
        {"field": "s", "type": "string", "optional": False},
    ],
}


def produce(kafka: str, topic: str) -> set[str]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": kafka})
    # The records carry fixed timestamps from 2023 (deterministic objects); Kafka's default
    # 7-day retention would delete them at the broker's first retention check.
    keep = NewTopic(topic, PARTITIONS, 1, config={"retention.ms": "-1"})
    for future in admin.create_topics([keep]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": kafka, "enable.idempotence": True})
    lines: set[str] = set()
    for p in range(PARTITIONS):
        for n in range(PER_PARTITION):
            i = p * PER_PARTITION + n
            payload = {"k": i % 3, "i": i, "s": f"reading {i}"}
            lines.add(json.dumps(payload, separators=(",", ":")))
            value = json.dumps({"schema": SCHEMA, "payload": payload}).encode()
            producer.produce(topic, value=value, partition=p, timestamp=1_700_000_000_000 + i)
    assert producer.flush(30) == 0
    return lines


def write_props(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


def start(tmp: Path, kafka: str, bucket: Bucket, name: str, topic: str) -> subprocess.Popen[bytes]:
    worker = write_props(
        tmp / "worker.properties",
        {
            "bootstrap.servers": kafka,
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "offset.storage.file.filename": str(tmp / "offsets.json"),
            "offset.flush.interval.ms": "300",
            "consumer.session.timeout.ms": "6000",
            "listeners": "",
        },
    )
    connector = write_props(
        tmp / "s3.properties",
        bucket.props(
            name=name,
            topics=topic,
            **{
                "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
                "partition.field.name": "k",
                "flush.size": "20",
                "consumer.override.max.poll.records": "37",
            },
        ),
    )
    return subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", str(worker), str(connector)],
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def stop(proc: subprocess.Popen[bytes], sig: int) -> str:
    if proc.poll() is None:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    return out.decode(errors="replace")


def lines_in(snapshot: dict[str, bytes]) -> list[str]:
    return [line for body in snapshot.values() for line in body.decode().splitlines()]


def run_until_complete(
    tmp: Path,
    kafka: str,
    bucket: Bucket,
    name: str,
    topic: str,
    kills: list[int],
    at_kill: list[int] | None = None,
) -> dict[str, bytes]:
    """Run to completion; first, for each entry of ``kills``, start a worker and SIGKILL it
    as soon as the bucket holds that many objects (progress-based, so the kill lands while
    files are being written, whatever the machine's speed)."""
    total = PARTITIONS * PER_PARTITION
    for objects in kills:
        proc = start(tmp, kafka, bucket, name, topic)
        deadline = time.monotonic() + 60
        while len(bucket.listing()) < objects and time.monotonic() < deadline:
            time.sleep(0.02)
        stop(proc, signal.SIGKILL)
        if at_kill is not None:
            at_kill.append(len(lines_in(bucket.snapshot())))
    proc = start(tmp, kafka, bucket, name, topic)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len(lines_in(bucket.snapshot())) >= total or proc.poll() is not None:
                break
            time.sleep(0.5)
    finally:
        output = stop(proc, signal.SIGTERM)
    snapshot = bucket.snapshot()
    assert len(lines_in(snapshot)) == total, output[-3000:]
    return snapshot


def test_kill_9_at_random_points_rewrites_the_same_objects(
    tmp_path: Path, kc_kafka: Any, kc_s3: Any
) -> None:
    kafka = str(kc_kafka)
    topic = f"kc-s3-crash-{uuid.uuid4().hex[:8]}"
    sent = produce(kafka, topic)
    rng = random.Random(16)
    (tmp_path / "ref").mkdir()
    (tmp_path / "crash").mkdir()
    reference = run_until_complete(
        tmp_path / "ref", kafka, new_bucket(kc_s3), f"s3-ref-{uuid.uuid4().hex[:6]}", topic, []
    )
    # Kill points: after a random number of objects (of 40), growing so each run progresses.
    kills = sorted(rng.sample(range(2, 38), 3))
    at_kill: list[int] = []
    crashed = run_until_complete(
        tmp_path / "crash",
        kafka,
        new_bucket(kc_s3),
        f"s3-crash-{uuid.uuid4().hex[:6]}",
        topic,
        kills,
        at_kill,
    )
    # Each kill landed mid-run: some files were in S3, not all.
    assert all(0 < n < PARTITIONS * PER_PARTITION for n in at_kill), at_kill
    assert sorted(crashed) == sorted(reference)
    assert crashed == reference
    assert sorted(lines_in(crashed)) == sorted(sent)
