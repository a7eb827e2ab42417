"""Confluent's TopicPartitionWriterTest (kafka-connect-storage-cloud), ported in part.

Upstream drives a TopicPartitionWriter against a mock S3; here an S3SinkTask (which owns
the writers) runs in-process against the session's real S3 endpoint. Expected object names
and file sizes are upstream's. Upstream writes AvroFormat; these tests write JsonFormat,
because several of them mix in schemaless values, which kconnect's AvroFormat refuses
(README: schemaless values are errant records for Avro and Parquet). Which file a record
lands in does not depend on the format.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct
from s3_testing import Bucket

pytestmark = pytest.mark.integration

TOPIC = "test-topic"
PARTITION = 12
PARTITIONERS = "io.confluent.connect.storage.partitioner."


def tpw_props(bucket: Bucket, **extra: str) -> dict[str, str]:
    props: dict[str, str] = bucket.props(topics=TOPIC, **extra)
    return props


def start(bucket: Bucket, props: dict[str, str]) -> Any:
    from kconnect_sdk import TopicPartition

    task, _ = bucket.task(props, [TopicPartition(TOPIC, PARTITION)])
    return task


# StorageSinkTestBase.createSchema and TopicPartitionWriterTest.createRecordBatch
SCHEMA = (
    SchemaBuilder.struct()
    .name("record")
    .version(1)
    .field("boolean", Schema.BOOLEAN)
    .field("int", Schema.INT32)
    .field("long", Schema.INT64)
    .field("float", Schema.FLOAT32)
    .field("double", Schema.FLOAT64)
    .build()
)


def record_batches(size: int, batches: int) -> list[Struct]:
    out = []
    for _ in range(batches):
        for i in range(size):
            out.append(
                Struct(SCHEMA)
                .put("boolean", True)
                .put("int", 16 + i)
                .put("long", 16 + i)
                .put("float", 12.2 + i)
                .put("double", 12.2 + i)
            )
    return out


def sink_records(values: list[Struct], schema: Schema = SCHEMA, start: int = 0) -> list[SinkRecord]:
    return [
        SinkRecord(
            topic=TOPIC,
            kafka_partition=PARTITION,
            key_schema=Schema.STRING,
            key="key",
            value_schema=schema,
            value=value,
            kafka_offset=start + i,
            timestamp=0,
        )
        for i, value in enumerate(values)
    ]


def schemaless(value: str, offset: int) -> SinkRecord:
    # Upstream's "tombstone" here is a record without a value schema (a string value).
    return SinkRecord(
        topic=TOPIC,
        kafka_partition=PARTITION,
        key_schema=Schema.STRING,
        key="key",
        value_schema=None,
        value=value,
        kafka_offset=offset,
        timestamp=0,
    )


def name(enc: str, offset: int, pad: int = 10, topics_dir: str = "topics") -> str:
    base = f"{TOPIC}/{enc}/{TOPIC}+{PARTITION}+{offset:0{pad}d}.json"
    return f"{topics_dir}/{base}" if topics_dir else base


def sizes(bucket: Bucket) -> dict[str, int]:
    return {key: bucket.read(key).count(b"\n") for key in bucket.listing()}


def test_write_record_default_with_padding(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket, filename_offset_zero_pad_width="2"))
    task.put(sink_records(record_batches(3, 3)))
    enc = f"partition={PARTITION}"
    assert sizes(bucket) == {name(enc, o, pad=2): 3 for o in (0, 3, 6)}


def test_write_record_default_with_empty_topics_dir(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket, topics_dir=""))
    task.put(sink_records(record_batches(3, 3)))
    enc = f"partition={PARTITION}"
    assert sizes(bucket) == {name(enc, o, topics_dir=""): 3 for o in (0, 3, 6)}


def test_no_files_written_without_commit(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket, flush_size="10"))
    task.put(sink_records(record_batches(3, 3)))
    assert bucket.listing() == []


def test_rotate_interval_is_ignored_when_used_with_no_time_based_partitioner(
    bucket: Bucket,
) -> None:
    task = start(bucket, tpw_props(bucket, flush_size="10", rotate_interval_ms="60000"))
    task.put(sink_records(record_batches(3, 3)))
    assert bucket.listing() == []


def test_write_record_with_tombstone_followed_by_non_tombstone(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket))
    task.put([schemaless("1", 0), *sink_records(record_batches(3, 3), start=1)])
    enc = f"partition={PARTITION}"
    # The value schema appearing after a schemaless record rotates the file.
    assert sizes(bucket) == {name(enc, 0): 1, name(enc, 1): 3, name(enc, 4): 3, name(enc, 7): 3}


def test_write_record_with_tombstone_followed_by_tombstone(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket))
    task.put([schemaless(f"1{i}", i) for i in range(3)])
    assert sizes(bucket) == {name(f"partition={PARTITION}", 0): 3}


def test_write_record_with_non_tombstone_followed_by_tombstone(bucket: Bucket) -> None:
    task = start(bucket, tpw_props(bucket))
    records = sink_records(record_batches(3, 3))
    records.append(schemaless("1", 9))
    records += sink_records(record_batches(1, 1), start=10)
    task.put(records)
    enc = f"partition={PARTITION}"
    # The schema change at offset 10 commits file 9 (the schemaless record); offset 10's
    # own file stays open below flush.size.
    assert sizes(bucket) == {
        name(enc, 0): 3,
        name(enc, 3): 3,
        name(enc, 6): 3,
        name(enc, 9): 1,
    }


def test_nested_field_partitioner(bucket: Bucket) -> None:
    inner = SchemaBuilder.struct().field("inner", Schema.INT32).build()
    schema = SchemaBuilder.struct().field("outer", inner).build()
    values = [
        Struct(schema).put("outer", Struct(inner).put("inner", v))
        for _ in range(6)
        for v in (16, 17, 18)
    ]
    task = start(
        bucket,
        tpw_props(
            bucket,
            flush_size="9",
            partitioner_class=PARTITIONERS + "FieldPartitioner",
            partition_field_name="outer.inner",
        ),
    )
    task.put(sink_records(values, schema))
    expected = {}
    for i in (0, 9):
        for j, v in enumerate((16, 17, 18)):
            expected[name(f"outer.inner={v}", i + j)] = 3
    assert sizes(bucket) == expected


def test_write_record_field_partitioner_with_null_struct_on_the_path(bucket: Bucket) -> None:
    # Not upstream's writer test: FieldPartitionerTest.testNestedMissingPartition end to
    # end, a null struct on the path lands in the '=null' partition instead of failing.
    inner = SchemaBuilder.struct().field("inner", Schema.INT32).optional().build()
    schema = SchemaBuilder.struct().field("outer", inner).build()
    values = [Struct(schema).put("outer", None) for _ in range(3)]
    task = start(
        bucket,
        tpw_props(
            bucket,
            partitioner_class=PARTITIONERS + "FieldPartitioner",
            partition_field_name="outer.inner",
        ),
    )
    task.put(sink_records(values, schema))
    assert sizes(bucket) == {name("outer.inner=null", 0): 3}
