"""The same connector config on ``engine=spark`` writes the same objects as on the local engine."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime import Standalone
from s3_testing import Bucket, new_bucket

pytestmark = pytest.mark.integration

SCHEMA = {
    "type": "struct",
    "name": "reading",
    "optional": False,
    "fields": [
        {"field": "k", "type": "string", "optional": False},
        {"field": "i", "type": "int64", "optional": False},
    ],
}


def produce(kafka: str, topic: str, count: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": kafka})
    for i in range(count):
        payload = {"k": "abc"[i % 3], "i": i}
        value = json.dumps({"schema": SCHEMA, "payload": payload}).encode()
        producer.produce(topic, key=f"key-{i}".encode(), value=value, partition=i % 2)
    assert producer.flush(30) == 0


def run(tmp: Path, kafka: str, bucket: Bucket, topic: str, engine: str, objects: int) -> None:
    worker = {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
        "offset.storage.file.filename": str(tmp / f"offsets-{engine}.json"),
        "offset.flush.interval.ms": "300",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
    }
    if engine == "spark":
        worker.update(
            {
                "engine": "spark",
                "spark.master": "local[2,2]",
                "spark.sink.batch.max.ms": "1000",
                "spark.cycle.idle.ms": "100",
            }
        )
    connector = bucket.props(
        name=f"s3-{engine}-{uuid.uuid4().hex[:6]}",
        topics=topic,
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "k",
            "flush.size": "4",
            "store.kafka.keys": "true",
            "keys.format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        },
    )
    app = Standalone(worker, [connector])
    app.start()
    try:
        deadline = time.monotonic() + 120
        while len(bucket.listing()) < objects and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        app.stop()


def test_spark_engine_writes_the_same_objects(
    tmp_path: Path, kc_kafka: Any, kc_s3: Any, kc_spark: Any
) -> None:
    kafka = str(kc_kafka)
    topic = f"kc-s3-spark-{uuid.uuid4().hex[:8]}"
    produce(kafka, topic, 26)
    # Each partition gets 13 records whose k cycles through three values, so each of its
    # three flush.size=4 rotations commits three files (k=a, b, c), each with a keys
    # sidecar: 3 x 3 x 2 = 18 objects per partition; the 13th record stays open.
    objects = 36
    local, spark = new_bucket(kc_s3), new_bucket(kc_s3)
    run(tmp_path, kafka, local, topic, "local", objects)
    run(tmp_path, kafka, spark, topic, "spark", objects)
    expected = local.snapshot()
    assert len(expected) == objects
    assert spark.snapshot() == expected
