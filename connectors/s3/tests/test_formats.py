"""Every format x partitioner: objects read back with independent readers equal what was sent.

Readers: ``json`` for JsonFormat, ``fastavro.reader`` for AvroFormat, ``pyarrow.parquet``
for ParquetFormat, raw bytes for ByteArrayFormat.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
from typing import Any

import fastavro
import pyarrow.parquet as pq
import pytest
from kconnect_sdk import Date, Decimal, Schema, SchemaBuilder, Struct, Timestamp, TopicPartition
from kconnect_testkit import RecordingErrantReporter, RecordingSinkContext
from s3_testing import Bucket, rec

pytestmark = pytest.mark.integration

T0 = 1_686_229_200_000  # 2023-06-08T13:00:00Z
ITEM = (
    SchemaBuilder.struct()
    .name("shop.Item")
    .field("id", Schema.INT64)
    .field("name", Schema.STRING)
    .field("note", Schema.OPTIONAL_STRING)
    .field("price", Decimal.schema(2))
    .field("day", Date.builder().build())
    .field("at", Timestamp.builder().build())
    .field("tags", SchemaBuilder.array(Schema.STRING).build())
    .build()
)

FORMATS = {
    "json": "io.confluent.connect.s3.format.json.JsonFormat",
    "avro": "io.confluent.connect.s3.format.avro.AvroFormat",
    "parquet": "io.confluent.connect.s3.format.parquet.ParquetFormat",
    "bytearray": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
}
PARTITIONERS: dict[str, dict[str, str]] = {
    "default": {},
    "field": {
        "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
        "partition.field.name": "id",
    },
    "time": {
        "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner",
        "partition.duration.ms": "60000",
        "path.format": "'date'=YYYY-MM-dd/'minute'=HH-mm",
        "locale": "en-US",
        "timezone": "UTC",
        "timestamp.extractor": "Record",
    },
}


def item(i: int) -> Struct:
    return (
        Struct(ITEM)
        .put("id", i % 3)
        .put("name", f"item-{i}")
        .put("note", None if i % 2 else f"note {i}")
        .put("price", decimal.Decimal(f"{i}.{i % 100:02d}"))
        .put("day", dt.date(2023, 6, 1 + i % 28))
        .put("at", dt.datetime.fromtimestamp((T0 + i * 7000) / 1000, dt.UTC))
        .put("tags", [f"t{j}" for j in range(i % 3)])
    )


def records(fmt: str, n: int = 20) -> list[Any]:
    out = []
    for i in range(n):
        if fmt == "bytearray":
            out.append(
                rec(f"raw-{i}".encode(), i, value_schema=Schema.BYTES, timestamp=T0 + i * 7000)
            )
        else:
            out.append(rec(item(i), i, value_schema=ITEM, timestamp=T0 + i * 7000))
    return out


def expected(fmt: str, value: Any) -> Any:
    """What an independent reader of that format gives back for one value."""
    if fmt == "bytearray":
        return value
    plain = {
        "id": value.get("id"),
        "name": value.get("name"),
        "note": value.get("note"),
        "price": value.get("price"),
        "day": value.get("day"),
        "at": value.get("at"),
        "tags": value.get("tags"),
    }
    if fmt == "json":
        # JsonConverter: Decimal as base64 of the unscaled big-endian bytes, Date as days,
        # Timestamp as epoch millis.
        unscaled = int(plain["price"].scaleb(2))
        raw = unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)
        import base64

        plain["price"] = base64.b64encode(raw).decode()
        plain["day"] = (plain["day"] - dt.date(1970, 1, 1)).days
        plain["at"] = int(plain["at"].timestamp() * 1000)
    return plain


def read_back(fmt: str, body: bytes) -> list[Any]:
    if fmt == "json":
        return [json.loads(line) for line in body.decode().splitlines()]
    if fmt == "avro":
        return list(fastavro.reader(io.BytesIO(body)))
    if fmt == "parquet":
        return pq.read_table(io.BytesIO(body)).to_pylist()
    return [line.encode() for line in body.decode().splitlines()]


# FieldPartitioner needs Struct values, which ByteArrayFormat cannot write: no such pair.
COMBINATIONS = [(f, p) for f in FORMATS for p in PARTITIONERS if (f, p) != ("bytearray", "field")]


@pytest.mark.parametrize(("fmt", "partitioner"), COMBINATIONS)
def test_objects_read_back_equal_the_records(bucket: Bucket, fmt: str, partitioner: str) -> None:
    props = bucket.props(
        **{"format.class": FORMATS[fmt], "flush.size": "4", **PARTITIONERS[partitioner]}
    )
    task, _ = bucket.task(props)
    sent = records(fmt)
    task.put(sent[:7])
    task.put(sent[7:])
    assert task.pre_commit({TopicPartition("orders", 0): 20}) == {TopicPartition("orders", 0): 20}
    got: dict[str, list[Any]] = {}
    for key in bucket.listing():
        got[key] = read_back(fmt, bucket.read(key))
    # Every record once, in offset order within its file, each file named after its first.
    seen = [
        v
        for key in sorted(got, key=lambda k: int(k.rsplit("+", 1)[1].split(".")[0]))
        for v in got[key]
    ]

    def by_name(v: Any) -> Any:
        return v if isinstance(v, bytes) else v["name"]

    assert sorted(seen, key=by_name) == sorted((expected(fmt, r.value) for r in sent), key=by_name)
    for key, values in got.items():
        start = int(key.rsplit("+", 1)[1].split(".")[0])
        first = next(r for r in sent if r.kafka_offset == start)
        assert values[0] == expected(fmt, first.value)
        offsets = [
            next(r.kafka_offset for r in sent if expected(fmt, r.value) == v) for v in values
        ]
        assert offsets == sorted(offsets)


def test_avro_codec_and_schema(bucket: Bucket) -> None:
    props = bucket.props(
        **{"format.class": FORMATS["avro"], "flush.size": "3", "avro.codec": "deflate"}
    )
    task, _ = bucket.task(props)
    task.put(records("avro", 3))
    (key,) = bucket.listing()
    assert key.endswith("orders+0+0000000000.avro")
    reader = fastavro.reader(io.BytesIO(bucket.read(key)))
    assert reader.codec == "deflate"
    assert reader.writer_schema["name"] == "shop.Item"  # type: ignore[index]
    assert [r["name"] for r in reader] == ["item-0", "item-1", "item-2"]


@pytest.mark.parametrize(
    ("codec", "ext"), [("snappy", ".snappy.parquet"), ("gzip", ".gz.parquet"), ("none", ".parquet")]
)
def test_parquet_codec_names_the_object(bucket: Bucket, codec: str, ext: str) -> None:
    props = bucket.props(
        **{"format.class": FORMATS["parquet"], "flush.size": "2", "parquet.codec": codec}
    )
    task, _ = bucket.task(props)
    task.put(records("parquet", 2))
    (key,) = bucket.listing()
    assert key == f"topics/orders/partition=0/orders+0+0000000000{ext}"
    meta = pq.ParquetFile(io.BytesIO(bucket.read(key))).metadata
    assert meta.row_group(0).column(0).compression == (
        codec.upper() if codec != "none" else "UNCOMPRESSED"
    )
    schema = pq.read_schema(io.BytesIO(bucket.read(key)))
    assert str(schema.field("at").type) == "timestamp[ms, tz=UTC]"
    assert str(schema.field("day").type) == "date32[day]"
    assert schema.field("note").nullable and not schema.field("name").nullable


@pytest.mark.parametrize("fmt", ["avro", "parquet"])
def test_schemaless_values_are_errant_for_avro_and_parquet(bucket: Bucket, fmt: str) -> None:
    reporter = RecordingErrantReporter()
    task, _ = bucket.task(
        bucket.props(**{"format.class": FORMATS[fmt], "flush.size": "2"}), reporter=reporter
    )
    good = records(fmt, 2)
    task.put([good[0], rec({"schemaless": True}, 2), good[1].new_record(kafka_offset=3)])
    assert [r.kafka_offset for r, _ in reporter.reported] == [2]
    # As in Java, the switch to a schemaless record rotates first; the record is errant.
    assert task.pre_commit({TopicPartition("orders", 0): 4}) == {TopicPartition("orders", 0): 1}
    task.put([good[0].new_record(kafka_offset=4)])
    keys = bucket.listing()
    assert [k.rsplit("+", 1)[1].split(".")[0] for k in keys] == ["0000000000", "0000000003"]
    assert [len(read_back(fmt, bucket.read(k))) for k in keys] == [1, 2]


def test_book_time_based_avro_config(bucket: Bucket) -> None:
    """The book's s3sink-time config: hourly paths, Record time, minute schedule, Avro."""
    config = {
        "name": "s3sink-time",
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "tasks.max": "5",
        "topics": "orders",
        "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
        "s3.bucket.name": bucket.name,
        "s3.region": bucket.service.region,
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "aws.access.key.id": bucket.service.access_key_id,
        "aws.secret.access.key": bucket.service.secret_access_key,
        "store.url": bucket.service.endpoint_url,
        # The book's package name (Java's is ...storage.partitioner.TimeBasedPartitioner).
        "partitioner.class": "io.confluent.connect.storage.partition.TimeBasedPartitioner",
        "partition.duration.ms": "60000",
        "timestamp.extractor": "Record",
        "flush.size": "10",
        "rotate.schedule.interval.ms": "60000",
        "timezone": "UTC",
        "locale": "en-GB",
        "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
        "format.class": "io.confluent.connect.s3.format.avro.AvroFormat",
    }
    order = (
        SchemaBuilder.struct()
        .name("order")
        .field("id", Schema.INT64)
        .field("title", Schema.STRING)
        .field("quantity", Schema.INT16)
        .build()
    )

    def o(i: int, title: str, q: int) -> Struct:
        return Struct(order).put("id", i).put("title", title).put("quantity", q)

    from kconnect_connector_s3 import S3SinkTask

    now = [T0 + 5 * 60_000]  # 13:05 on 8 June 2023
    tps = [TopicPartition("orders", p) for p in range(5)]
    task = S3SinkTask()
    task.clock = lambda: now[0]
    task.initialize(RecordingSinkContext(config, assignment=tps))
    task.start(config)
    bucket.tasks.append(task)
    task.put(
        [
            rec(
                o(1, "Kafka The Definitive Guide", 2),
                0,
                partition=4,
                value_schema=order,
                timestamp=T0 + 290_000,
            ),
            rec(
                o(2, "Mastering Kafka Streams and KSQLDB", 1),
                0,
                partition=3,
                value_schema=order,
                timestamp=T0 + 291_000,
            ),
            rec(
                o(3, "Kafka Connect", 1), 1, partition=3, value_schema=order, timestamp=T0 + 292_000
            ),
            rec(
                o(3, "Kafka Connect", 2), 2, partition=3, value_schema=order, timestamp=T0 + 293_000
            ),
        ]
    )
    assert bucket.listing() == []
    now[0] += 60_000  # the minute passes with no new record
    assert task.pre_commit({tp: 0 for tp in tps} | {tps[3]: 3, tps[4]: 1}) == {tps[3]: 3, tps[4]: 1}
    assert bucket.listing() == [
        "topics/orders/year=2023/month=06/day=08/hour=13/orders+3+0000000000.avro",
        "topics/orders/year=2023/month=06/day=08/hour=13/orders+4+0000000000.avro",
    ]
    body = bucket.read(bucket.listing()[0])
    assert [r["title"] for r in fastavro.reader(io.BytesIO(body))] == [
        "Mastering Kafka Streams and KSQLDB",
        "Kafka Connect",
        "Kafka Connect",
    ]


@pytest.mark.parametrize("fmt", ["avro", "parquet"])
def test_rewriting_the_same_records_gives_the_same_bytes(kc_s3: Any, fmt: str) -> None:
    """What a restart after a crash does: the same records again, into the same objects."""
    from s3_testing import new_bucket

    snapshots = []
    for _ in range(2):
        bucket = new_bucket(kc_s3)
        task, _ = bucket.task(
            bucket.props(
                **{"format.class": FORMATS[fmt], "flush.size": "5", "avro.codec": "snappy"}
            )
        )
        task.put(records(fmt, 10))
        task.stop()
        snapshots.append(bucket.snapshot())
    assert len(snapshots[0]) == 2
    assert snapshots[0] == snapshots[1]
