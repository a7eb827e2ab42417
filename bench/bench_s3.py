"""S3 sink throughput: a topic of JSON records into S3, against raw boto3 in the same run.

    .venv/bin/python bench/bench_s3.py [--records 1000000] [--record-bytes 200]
                                       [--parquet-rows 200000]   (e.g. --records 2000 in CI)

An S3 endpoint (moto's server, in a process of its own) and the embedded Kafka broker
(Tansu, unless --bootstrap-servers is given) are started; N schemaless JSON records of about
``--record-bytes`` bytes are produced to a one-partition topic. Then:

1. kconnect: a standalone worker (in this process, through the runtime's public API) runs
   the S3 sink with JsonFormat, ``flush.size`` N/10 and the default 25 MiB parts, until
   every record is in a committed object. Time includes the consumer group's first join.
2. raw boto3: the same objects' bytes, uploaded with the same multipart part size from
   memory (no Kafka, no conversion): the floor of what any S3 writer in Python can do here.
3. Parquet: the S3 sink task's ``put`` of M Struct records with ParquetFormat (snappy),
   rows/s including the upload.

Prints records/s, MB/s, peak RSS and the ratio kconnect/raw. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_connector_s3 import S3SinkTask
from kconnect_runtime import EmbeddedBroker, Standalone
from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct, TopicPartition

PART_SIZE = 25 * 1024 * 1024
CREDS = {"aws_access_key_id": "bench", "aws_secret_access_key": "bench"}
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    exe = Path(sys.executable).with_name("moto_server")
    proc = subprocess.Popen(
        [str(exe), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("moto_server did not start; pip install 'moto[server]'")


def client(url: str) -> Any:
    return boto3.client("s3", endpoint_url=url, region_name=REGION, **CREDS)


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def produce(bootstrap: str, topic: str, records: int, record_bytes: int) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result(30)
    producer = Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000}
    )
    pad = "x" * max(1, record_bytes - 90)
    total = 0
    for i in range(records):
        value = json.dumps(
            {
                "id": i,
                "customer": 42_000 + i % 977,
                "status": "SHIPPED" if i % 3 else "PENDING",
                "amount": round(19.99 + i % 100, 2),
                "currency": "EUR",
                "note": pad,
            },
            separators=(",", ":"),
        ).encode()
        total += len(value) + 1
        while True:
            try:
                producer.produce(topic, value=value, partition=0)
                break
            except BufferError:
                producer.poll(0.1)
    assert producer.flush(60) == 0
    return total


def objects(url: str, bucket: str) -> dict[str, int]:
    s3 = client(url)
    out: dict[str, int] = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        out.update({o["Key"]: o["Size"] for o in page.get("Contents", [])})
    return out


def run_kconnect(
    bootstrap: str, url: str, topic: str, records: int, work: Path
) -> tuple[float, float]:
    """(seconds to the last object, seconds from the first object to the last)."""
    bucket = f"kc-bench-{uuid.uuid4().hex[:8]}"
    client(url).create_bucket(Bucket=bucket)
    flush = max(1, records // 10)
    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "offset.storage.file.filename": str(work / "offsets.json"),
        "offset.flush.interval.ms": "10000",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
    }
    connector = {
        "name": f"{topic}-s3",
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "topics": topic,
        "s3.bucket.name": bucket,
        "s3.region": REGION,
        "store.url": url,
        "aws.access.key.id": CREDS["aws_access_key_id"],
        "aws.secret.access.key": CREDS["aws_secret_access_key"],
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        "flush.size": str(flush),
    }
    expected = records // flush
    app = Standalone(worker, [connector])
    started = time.perf_counter()
    app.start()
    first: float | None = None
    try:
        deadline = time.monotonic() + 1800
        while (count := len(objects(url, bucket))) < expected and time.monotonic() < deadline:
            if count and first is None:
                first = time.perf_counter()
            time.sleep(0.05)
        seconds = time.perf_counter() - started
    finally:
        app.stop()
    found = objects(url, bucket)
    if len(found) != expected:
        raise SystemExit(f"kconnect wrote {len(found)} objects, expected {expected}")
    run_kconnect.bucket = bucket  # type: ignore[attr-defined]
    return seconds, time.perf_counter() - (first or started)


def run_raw(url: str, bodies: list[tuple[str, bytes]]) -> float:
    s3 = client(url)
    bucket = f"kc-raw-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    started = time.perf_counter()
    for key, body in bodies:
        upload = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
        parts = []
        view = memoryview(body)
        for number, start in enumerate(range(0, max(len(body), 1), PART_SIZE), 1):
            etag = s3.upload_part(
                Bucket=bucket,
                Key=key,
                UploadId=upload,
                PartNumber=number,
                Body=bytes(view[start : start + PART_SIZE]),
            )["ETag"]
            parts.append({"ETag": etag, "PartNumber": number})
        s3.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts}
        )
    return time.perf_counter() - started


def run_raw_consume(bootstrap: str, topic: str, records: int) -> float:
    """Plain confluent-kafka reading the topic (assigned, no group): the Kafka-side floor."""
    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"kc-bench-raw-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
        }
    )
    consumer.assign([KafkaTopicPartition(topic, 0, 0)])
    started = time.perf_counter()
    seen = 0
    kept: list[Any] = []
    while seen < records:
        batch = consumer.consume(min(5000, records - seen), 1.0)
        kept.extend(m.value() for m in batch)
        seen += len(batch)
    seconds = time.perf_counter() - started
    consumer.close()
    return seconds


def run_parquet(url: str, rows: int) -> float:
    bucket = f"kc-pq-{uuid.uuid4().hex[:8]}"
    client(url).create_bucket(Bucket=bucket)
    schema = (
        SchemaBuilder.struct()
        .name("bench.Order")
        .field("id", Schema.INT64)
        .field("customer", Schema.INT64)
        .field("status", Schema.STRING)
        .field("amount", Schema.FLOAT64)
        .field("currency", Schema.STRING)
        .field("note", Schema.OPTIONAL_STRING)
        .build()
    )
    batch = [
        SinkRecord(
            topic="orders",
            kafka_partition=0,
            value_schema=schema,
            value=Struct(schema)
            .put("id", i)
            .put("customer", 42_000 + i % 977)
            .put("status", "SHIPPED" if i % 3 else "PENDING")
            .put("amount", 19.99 + i % 100)
            .put("currency", "EUR")
            .put("note", "x" * 80),
            kafka_offset=i,
        )
        for i in range(rows)
    ]
    task = S3SinkTask()
    task.start(
        {
            "name": "bench-parquet",
            "topics": "orders",
            "s3.bucket.name": bucket,
            "s3.region": REGION,
            "store.url": url,
            "aws.access.key.id": CREDS["aws_access_key_id"],
            "aws.secret.access.key": CREDS["aws_secret_access_key"],
            "storage.class": "io.confluent.connect.s3.storage.S3Storage",
            "format.class": "io.confluent.connect.s3.format.parquet.ParquetFormat",
            "flush.size": str(max(1, rows // 4)),
        }
    )
    task.open([TopicPartition("orders", 0)])
    started = time.perf_counter()
    for start in range(0, rows, 10_000):
        task.put(batch[start : start + 10_000])
    seconds = time.perf_counter() - started
    task.stop()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--record-bytes", type=int, default=200)
    parser.add_argument("--parquet-rows", type=int, default=None)
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args()
    parquet_rows = args.parquet_rows if args.parquet_rows is not None else args.records // 5
    moto, url = start_moto()
    broker = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    try:
        with tempfile.TemporaryDirectory(prefix="kc-bench-s3-") as tmp:
            topic = f"kc-bench-s3-{uuid.uuid4().hex[:8]}"
            size = produce(bootstrap, topic, args.records, args.record_bytes)
            print(
                f"input: {args.records:,} JSON records, {size / 1e6:.1f} MB, broker {bootstrap}, "
                f"S3 {url} (moto)"
            )
            rss_before = rss_mb()
            k_seconds, steady = run_kconnect(bootstrap, url, topic, args.records, Path(tmp))
            rss_after = rss_mb()
            s3 = client(url)
            bucket = run_kconnect.bucket  # type: ignore[attr-defined]
            bodies = [
                (key, s3.get_object(Bucket=bucket, Key=key)["Body"].read())
                for key in sorted(objects(url, bucket))
            ]
            written = sum(len(b) for _, b in bodies)
            assert written == size, f"objects hold {written} bytes, the topic {size}"
            r_seconds = run_raw(url, bodies)
            del bodies
            c_seconds = run_raw_consume(bootstrap, topic, args.records)
            print(
                f"{'kconnect S3 sink (JSON)':>26}: {k_seconds:6.2f} s  "
                f"{args.records / k_seconds:>10,.0f} records/s  {size / k_seconds / 1e6:6.1f} MB/s  "
                f"peak RSS {rss_after:,.0f} MB (before the sink: {rss_before:,.0f} MB)"
            )
            print(
                f"{'raw boto3 multipart':>26}: {r_seconds:6.2f} s  "
                f"{args.records / r_seconds:>10,.0f} records/s  {size / r_seconds / 1e6:6.1f} MB/s"
            )
            print(
                f"{'raw confluent-kafka read':>26}: {c_seconds:6.2f} s  "
                f"{args.records / c_seconds:>10,.0f} records/s  {size / c_seconds / 1e6:6.1f} MB/s"
            )
            # After the first of the ten objects, 9/10 of the records remain: the rate of the
            # running pipeline, without the consumer group's first join.
            steady_rps = args.records * 0.9 / steady
            print(
                f"{'kconnect, steady state':>26}: {steady_rps:>19,.0f} records/s  "
                f"{size * 0.9 / steady / 1e6:6.1f} MB/s  (after the first object)"
            )
            print(f"ratio kconnect/raw (records/s): {r_seconds / k_seconds:.2f}  (goal >= 0.7)")
            print(
                f"ratio kconnect steady state/raw (records/s): "
                f"{steady_rps / (args.records / r_seconds):.2f}  (goal >= 0.7)"
            )
            floor = args.records / (r_seconds + c_seconds)
            print(
                f"ratio kconnect steady state/(raw Kafka read + raw upload): "
                f"{steady_rps / floor:.2f}  (the floor of any Kafka-to-S3 pipeline here: "
                f"{floor:,.0f} records/s)"
            )
            if parquet_rows:
                p_seconds = run_parquet(url, parquet_rows)
                print(
                    f"{'S3 sink task, Parquet':>26}: {p_seconds:6.2f} s  "
                    f"{parquet_rows / p_seconds:>10,.0f} rows/s  ({parquet_rows:,} rows, snappy)"
                )
            print("the kconnect time includes the consumer group's first join (about 3 s)")
    finally:
        if broker is not None:
            broker.stop()
        moto.terminate()
        moto.wait(10)


if __name__ == "__main__":
    os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
    main()
