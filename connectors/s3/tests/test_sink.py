"""The S3 sink task against a real S3 endpoint (moto over HTTP): names, bytes, rotation, offsets.

Expected object names and bytes are taken from Confluent's documentation and source
(TopicPartitionWriter, the partitioners, JsonRecordWriterProvider) and from the book's
chapter 5 listing, not from our own output.
"""

from __future__ import annotations

import gzip
import json
import logging
from typing import Any

import pytest
from kconnect_connector_s3 import S3SinkConnector, S3SinkTask
from kconnect_sdk import (
    ConfigError,
    ConnectError,
    DataError,
    Headers,
    Schema,
    SchemaBuilder,
    Struct,
    TopicPartition,
)
from kconnect_testkit import RecordingErrantReporter
from s3_testing import Bucket, rec

pytestmark = pytest.mark.integration

ORDER = (
    SchemaBuilder.struct()
    .name("order")
    .field("id", Schema.INT64)
    .field("title", Schema.STRING)
    .field("quantity", Schema.INT16)
    .build()
)
TP0 = TopicPartition("orders", 0)


def order(i: int, title: str, quantity: int) -> Struct:
    return Struct(ORDER).put("id", i).put("title", title).put("quantity", quantity)


def orec(i: int, title: str, q: int, offset: int, **kw: Any) -> Any:
    return rec(order(i, title, q), offset, value_schema=ORDER, **kw)


# --- the book's chapter 5 ---------------------------------------------------------------

BOOK_FIELD_CONFIG = {
    "name": "s3sink-field",
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "tasks.max": "5",
    "topics": "orders",
    "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    # The book's own spelling (a typo of 'partitioner'); Java would not load it.
    "partitioner.class": "io.confluent.connect.storage.partitionner.FieldPartitioner",
    "partition.field.name": "id",
    "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
    "flush.size": "3",
    "store.kafka.keys": "true",
    "keys.format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
}


def book_props(bucket: Bucket, config: dict[str, str]) -> dict[str, str]:
    s3 = bucket.service
    return {
        **config,
        "s3.bucket.name": bucket.name,
        "s3.region": s3.region,
        "aws.access.key.id": s3.access_key_id,
        "aws.secret.access.key": s3.secret_access_key,
        "store.url": s3.endpoint_url,
    }


def test_book_field_partitioner_gives_the_books_object_names(bucket: Bucket) -> None:
    tps = [TopicPartition("orders", p) for p in range(5)]
    task, _ = bucket.task(book_props(bucket, BOOK_FIELD_CONFIG), tps)
    # The book's four records: key 1 went to partition 4, keys 2 and 3 to partition 3.
    task.put(
        [
            orec(1, "Kafka The Definitive Guide", 2, 0, partition=4, key=b"1"),
            orec(2, "Mastering Kafka Streams and KSQLDB", 1, 0, partition=3, key=b"2"),
            orec(3, "Kafka Connect", 1, 1, partition=3, key=b"3"),
            orec(3, "Kafka Connect", 2, 2, partition=3, key=b"3"),
        ]
    )
    assert bucket.listing() == [
        "topics/orders/id=2/orders+3+0000000000.json",
        "topics/orders/id=2/orders+3+0000000000.keys.bin",
        "topics/orders/id=3/orders+3+0000000001.json",
        "topics/orders/id=3/orders+3+0000000001.keys.bin",
    ]
    assert bucket.read("topics/orders/id=3/orders+3+0000000001.json") == (
        b'{"id":3,"title":"Kafka Connect","quantity":1}\n'
        b'{"id":3,"title":"Kafka Connect","quantity":2}\n'
    )
    assert bucket.read("topics/orders/id=3/orders+3+0000000001.keys.bin") == b"3\n3\n"
    # Only partition 3's files are in S3, so only its offset may be committed.
    consumed = {tp: 0 for tp in tps} | {tps[3]: 3, tps[4]: 1}
    assert task.pre_commit(consumed) == {tps[3]: 3}
    # "If you send another two records with the key set to 1, the matching objects appear."
    task.put(
        [
            orec(1, "Kafka The Definitive Guide", 1, 1, partition=4, key=b"1"),
            orec(1, "Kafka The Definitive Guide", 3, 2, partition=4, key=b"1"),
        ]
    )
    assert "topics/orders/id=1/orders+4+0000000000.json" in bucket.listing()
    assert task.pre_commit(consumed | {tps[4]: 3}) == {tps[4]: 3}


# --- object names -----------------------------------------------------------------------


def test_default_partitioner_names_and_json_lines(bucket: Bucket) -> None:
    task, _ = bucket.task(bucket.props(flush_size="2"))
    task.put([rec({"a": 1}, 7), rec("text", 8), rec([1, 2], 9)])
    assert bucket.listing() == ["topics/orders/partition=0/orders+0+0000000007.json"]
    # JsonConverter with schemas.enable=false, one value per line, '\n' separated.
    assert bucket.read(bucket.listing()[0]) == b'{"a":1}\n"text"\n'


def test_schemaless_objects_are_written_in_java_hashmap_order(bucket: Bucket) -> None:
    # Kafka's JsonConverter reads schemaless objects into a java.util.HashMap; Jackson writes
    # them in its iteration order: by bucket (String.hashCode spread, 16 buckets), then
    # insertion order. "a".hashCode()=97 -> bucket 1, "b"=98 -> 2, "c"=99 -> 3;
    # "id".hashCode()=105*31+100=3355 -> bucket 11, "x"=120 -> bucket 8.
    task, _ = bucket.task(bucket.props(flush_size="3"))
    task.put(
        [
            rec({"b": 1, "a": 2, "c": 3}, 0),
            rec({"id": 1, "x": 2}, 1),
            rec([{"id": 3, "x": None}], 2),
        ]
    )
    assert bucket.read(bucket.listing()[0]) == (
        b'{"a":2,"b":1,"c":3}\n{"x":2,"id":1}\n[{"x":null,"id":3}]\n'
    )


def test_topics_dir_delimiters_and_padding_shape_the_name(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "flush.size": "1",
            "topics.dir": "",
            "directory.delim": "#",
            "file.delim": "-",
            "filename.offset.zero.pad.width": "4",
        }
    )
    task, _ = bucket.task(props)
    task.put([rec("x", 42)])
    # A blank topics.dir is left out; delimiters and width come from the config.
    assert bucket.listing() == ["orders#partition=0#orders-0-0042.json"]


def test_field_partitioner_with_several_and_nested_fields(bucket: Bucket) -> None:
    inner = SchemaBuilder.struct().name("where").field("country", Schema.STRING).build()
    schema = (
        SchemaBuilder.struct()
        .name("event")
        .field("kind", Schema.STRING)
        .field("ok", Schema.BOOLEAN)
        .field("where", inner)
        .field("n", Schema.OPTIONAL_INT32)
        .build()
    )
    value = (
        Struct(schema)
        .put("kind", "click")
        .put("ok", True)
        .put("where", Struct(inner).put("country", "FR"))
        .put("n", None)
    )
    props = bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "kind,ok,where.country,n",
            "flush.size": "1",
        }
    )
    task, _ = bucket.task(props)
    task.put([rec(value, 0, value_schema=schema)])
    assert bucket.listing() == [
        "topics/orders/kind=click/ok=true/where.country=FR/n=null/orders+0+0000000000.json"
    ]


@pytest.mark.parametrize(
    ("timestamp", "zone", "expected"),
    [
        # The book: hourly paths in UTC.
        (1686229200000 + 125_000, "UTC", "year=2023/month=06/day=08/hour=13"),
        # The bucket is computed in local time: 2023-06-08T01:30Z is still 7 June in New York.
        (1686187800000, "America/New_York", "year=2023/month=06/day=07/hour=21"),
        (1686187800000, "+05:30", "year=2023/month=06/day=08/hour=07"),
    ],
)
def test_time_based_partitioner_paths(
    bucket: Bucket, timestamp: int, zone: str, expected: str
) -> None:
    props = bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.TimeBasedPartitioner",
            "partition.duration.ms": "3600000",
            "path.format": "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
            "locale": "en-GB",
            "timezone": zone,
            "timestamp.extractor": "Record",
            "flush.size": "1",
        }
    )
    task, _ = bucket.task(props)
    task.put([rec("x", 5, timestamp=timestamp)])
    assert bucket.listing() == [f"topics/orders/{expected}/orders+0+0000000005.json"]


def test_daily_and_record_field_extractor(bucket: Bucket) -> None:
    schema = SchemaBuilder.struct().name("e").field("at", Schema.STRING).build()
    props = bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.DailyPartitioner",
            "locale": "en-US",
            "timezone": "UTC",
            "timestamp.extractor": "RecordField",
            "timestamp.field": "at",
            "flush.size": "1",
        }
    )
    task, _ = bucket.task(props)
    task.put([rec(Struct(schema).put("at", "2024-02-29T23:59:59Z"), 0, value_schema=schema)])
    task.put([rec({"at": 1709251200000}, 1)])  # a Map value, epoch millis: 1 March 2024
    assert bucket.listing() == [
        "topics/orders/year=2024/month=02/day=29/orders+0+0000000000.json",
        "topics/orders/year=2024/month=03/day=01/orders+0+0000000001.json",
    ]


# --- rotation ---------------------------------------------------------------------------


def test_flush_size_counts_every_open_file_of_the_partition(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "id",
            "flush.size": "3",
        }
    )
    task, _ = bucket.task(props)
    task.put([orec(1, "a", 1, 0), orec(2, "b", 1, 1)])
    assert bucket.listing() == []
    assert task.pre_commit({TP0: 2}) == {}
    task.put([orec(1, "c", 1, 2), orec(2, "d", 1, 3)])
    # The third record of the partition commits both open files; the fourth starts anew.
    assert bucket.listing() == [
        "topics/orders/id=1/orders+0+0000000000.json",
        "topics/orders/id=2/orders+0+0000000001.json",
    ]
    assert task.pre_commit({TP0: 4}) == {TP0: 3}


def _hourly(bucket: Bucket, **extra: str) -> dict[str, str]:
    return bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.HourlyPartitioner",
            "locale": "en-US",
            "timezone": "UTC",
            "timestamp.extractor": "Record",
            "flush.size": "100",
            **extra,
        }
    )


def test_rotate_interval_uses_the_first_records_time(bucket: Bucket) -> None:
    t0 = 1_700_000_000_000  # 22:13:20 UTC: all records below stay in one hour
    task, _ = bucket.task(_hourly(bucket, **{"rotate.interval.ms": "1000"}))
    task.put([rec("a", 0, timestamp=t0), rec("b", 1, timestamp=t0 + 999)])
    assert bucket.listing() == []
    # 1000 ms after the file's first record: that record opens the next file.
    task.put([rec("c", 2, timestamp=t0 + 1000), rec("d", 3, timestamp=t0 + 1500)])
    d = "topics/orders/year=2023/month=11/day=14/hour=22"
    assert bucket.listing() == [f"{d}/orders+0+0000000000.json"]
    assert bucket.read(f"{d}/orders+0+0000000000.json") == b'"a"\n"b"\n'
    assert task.pre_commit({TP0: 4}) == {TP0: 2}
    task.put([rec("e", 4, timestamp=t0 + 2000)])
    assert bucket.listing()[-1] == f"{d}/orders+0+0000000002.json"


def test_rotate_interval_rotates_on_encoded_partition_change(bucket: Bucket) -> None:
    hour = 3_600_000
    t0 = 1_700_000_000_000
    task, _ = bucket.task(_hourly(bucket, **{"rotate.interval.ms": "600000000"}))
    task.put([rec("a", 0, timestamp=t0), rec("b", 1, timestamp=t0 + hour)])
    assert bucket.listing() == [
        "topics/orders/year=2023/month=11/day=14/hour=22/orders+0+0000000000.json"
    ]


def test_scheduled_rotation_fires_without_new_records(bucket: Bucket) -> None:
    now = [1_700_000_000_000]
    task = S3SinkTask()
    task.clock = lambda: now[0]
    from kconnect_testkit import RecordingSinkContext

    props = bucket.props(
        **{"flush.size": "100", "rotate.schedule.interval.ms": "60000", "timezone": "UTC"}
    )
    task.initialize(RecordingSinkContext(props, assignment=[TP0]))
    task.start(props)
    bucket.tasks.append(task)
    task.put([rec("a", 0)])
    assert task.pre_commit({TP0: 1}) == {}
    # 22:13:20 -> the next minute boundary of the day in UTC is 22:14:00.
    now[0] = 1_700_000_040_000
    assert task.pre_commit({TP0: 1}) == {TP0: 1}
    assert bucket.listing() == ["topics/orders/partition=0/orders+0+0000000000.json"]


def test_schema_change_rotates_with_compatibility_none(bucket: Bucket) -> None:
    v2 = SchemaBuilder.struct().name("order").field("id", Schema.INT64).build()
    task, _ = bucket.task(bucket.props(flush_size="10"))
    task.put([orec(1, "a", 1, 0), rec(Struct(v2).put("id", 2), 1, value_schema=v2)])
    assert bucket.listing() == ["topics/orders/partition=0/orders+0+0000000000.json"]


def test_max_open_files_forces_rotation_and_memory_follows_data(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "partitioner.class": "io.confluent.connect.storage.partitioner.FieldPartitioner",
            "partition.field.name": "id",
            "flush.size": "1000",
            "partitioner.max.open.files": "50",
        }
    )
    task, _ = bucket.task(props)
    task.put([orec(i, "t", 1, i) for i in range(49)])
    writer = task.writers[TP0]
    # 49 open files of one small record each: buffers hold bytes of data, not 49 x 25 MiB.
    assert len(writer.files) == 49
    assert writer.buffered_bytes() < 49 * 100
    task.put([orec(49, "t", 1, 49), orec(50, "t", 1, 50)])
    # The 51st encoded partition finds 50 open files: they are committed first.
    assert len(bucket.listing()) == 50
    assert task.pre_commit({TP0: 51}) == {TP0: 50}


# --- formats ----------------------------------------------------------------------------


def test_gzip_json_is_what_java_gzipoutputstream_writes(bucket: Bucket) -> None:
    task, _ = bucket.task(bucket.props(**{"flush.size": "2", "s3.compression.type": "gzip"}))
    task.put([rec({"k": "v"}, 0), rec([1.5, None], 1)])
    (key,) = bucket.listing()
    assert key == "topics/orders/partition=0/orders+0+0000000000.json.gz"
    body = bucket.read(key)
    # Java's GZIPOutputStream header: mtime 0, no extra flags, OS 255.
    assert body[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    assert gzip.decompress(body) == b'{"k":"v"}\n[1.5,null]\n'


def test_bytearray_format_extension_and_separator(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
            "format.bytearray.extension": ".raw",
            "format.bytearray.separator": "|",
            "flush.size": "2",
        }
    )
    reporter = RecordingErrantReporter()
    task, _ = bucket.task(props, reporter=reporter)
    task.put([rec(b"\x00\x01", 0), rec("not bytes", 1), rec(b"z", 2)])
    assert bucket.listing() == ["topics/orders/partition=0/orders+0+0000000000.raw"]
    assert bucket.read(bucket.listing()[0]) == b"\x00\x01|z|"
    assert [r.kafka_offset for r, _ in reporter.reported] == [1]
    assert isinstance(reporter.reported[0][1], DataError)


def test_headers_sidecar_in_json(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "store.kafka.headers": "true",
            "headers.format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            "flush.size": "1",
        }
    )
    task, _ = bucket.task(props)
    task.put([rec("v", 0, headers=Headers().add_string("h", "x").add_int("n", 5))])
    assert bucket.listing() == [
        "topics/orders/partition=0/orders+0+0000000000.headers.json",
        "topics/orders/partition=0/orders+0+0000000000.json",
    ]
    headers = json.loads(bucket.read(bucket.listing()[0]))
    assert headers == {"headers": [{"key": "h", "value": "x"}, {"key": "n", "value": "5"}]}


# --- null values ------------------------------------------------------------------------


def test_null_values_fail_ignore_and_write(bucket: Bucket) -> None:
    reporter = RecordingErrantReporter()
    task, _ = bucket.task(bucket.props(flush_size="1"), reporter=reporter)
    task.put([rec(None, 0), rec("a", 1)])
    assert [r.kafka_offset for r, _ in reporter.reported] == [0]
    # Without errors.tolerance the task fails on the record, as Java's does.
    strict, _ = bucket.task(bucket.props(flush_size="1"))
    with pytest.raises(DataError, match=r"behavior\.on\.null\.values"):
        strict.put([rec(None, 5)])

    ignoring, _ = bucket.task(
        bucket.props(**{"flush.size": "1", "behavior.on.null.values": "ignore"}),
        [TopicPartition("orders", 1)],
    )
    ignoring.put([rec(None, 0, partition=1)])
    writing, _ = bucket.task(
        bucket.props(
            **{
                "flush.size": "1",
                "behavior.on.null.values": "write",
                "store.kafka.keys": "true",
                "keys.format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            }
        ),
        [TopicPartition("orders", 2)],
    )
    writing.put([rec(None, 3, partition=2, key="k1", key_schema=Schema.STRING)])
    assert [k for k in bucket.listing() if "+1+" in k or "+2+" in k] == [
        "topics/orders/tombstone/orders+2+0000000003.keys.json"
    ]


# --- config and failures ----------------------------------------------------------------


def test_config_errors_name_the_key() -> None:
    connector = S3SinkConnector()
    base = {
        "s3.bucket.name": "b",
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        "flush.size": "3",
        "topics": "t",
    }
    connector.start(base)
    with pytest.raises(ConfigError, match=r"flush\.size"):
        connector.start({**base, "flush.size": "0"})
    with pytest.raises(ConfigError, match=r"format\.class"):
        connector.start({**base, "format.class": "com.example.XmlFormat"})
    with pytest.raises(ConfigError, match="timezone"):
        connector.start(
            {
                **base,
                "partitioner.class": "io.confluent.connect.storage.partitioner.HourlyPartitioner",
                "locale": "en",
            }
        )
    with pytest.raises(ConfigError, match=r"path\.format"):
        connector.start(
            {
                **base,
                "partitioner.class": "TimeBasedPartitioner",
                "locale": "en",
                "timezone": "UTC",
                "partition.duration.ms": "1000",
            }
        )
    errors = {v.name: v.error_messages for v in connector.validate({**base, "flush.size": "x"})}
    assert errors["flush.size"]


def test_missing_bucket_fails_the_task_naming_it(bucket: Bucket, caplog: Any) -> None:
    props = bucket.props(
        **{"s3.bucket.name": "kc-no-such-bucket", "aws.secret.access.key": "s3cr3t-XYZ"}
    )
    task = S3SinkTask()
    with caplog.at_level(logging.DEBUG), pytest.raises(ConnectError, match="kc-no-such-bucket"):
        task.start(props)
    assert "s3cr3t-XYZ" not in caplog.text


def test_pre_commit_only_reports_partitions_it_is_given(bucket: Bucket) -> None:
    tp1 = TopicPartition("orders", 1)
    task, _ = bucket.task(bucket.props(flush_size="1"), [TP0, tp1])
    task.put([rec("a", 0), rec("b", 0, partition=1)])
    assert task.pre_commit({TP0: 1}) == {TP0: 1}
    assert task.pre_commit({TP0: 1, tp1: 1}) == {tp1: 1}


def test_large_file_is_a_multipart_upload_of_part_size_parts(bucket: Bucket) -> None:
    props = bucket.props(
        **{
            "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
            "format.bytearray.separator": "",
            "s3.part.size": str(5 * 1024 * 1024),
            "flush.size": "12",
        }
    )
    task, _ = bucket.task(props)
    chunk = bytes(range(256)) * 4096  # 1 MiB
    task.put([rec(chunk, i) for i in range(12)])
    (key,) = bucket.listing()
    head = bucket.service.client().head_object(Bucket=bucket.name, Key=key)
    # 12 MiB in 5 MiB parts: three parts, the ETag says so.
    assert head["ETag"].strip('"').endswith("-3")
    assert bucket.read(key) == chunk * 12
    assert bucket.uploads_in_progress() == []


def test_schema_compatibility_backward_projects_older_records(bucket: Bucket) -> None:
    v1 = SchemaBuilder.struct().name("order").version(1).field("id", Schema.INT64).build()
    v2 = (
        SchemaBuilder.struct()
        .name("order")
        .version(2)
        .field("id", Schema.INT64)
        .field("note", Schema.OPTIONAL_STRING)
        .build()
    )
    task, _ = bucket.task(bucket.props(**{"flush.size": "10", "schema.compatibility": "BACKWARD"}))
    task.put(
        [
            rec(Struct(v1).put("id", 1), 0, value_schema=v1),
            rec(Struct(v2).put("id", 2).put("note", "n"), 1, value_schema=v2),
            rec(Struct(v1).put("id", 3), 2, value_schema=v1),
        ]
    )
    # A newer version rotates; an older one after it is projected into the newer file.
    assert task.pre_commit({TP0: 3}) == {TP0: 1}
    task.put([rec(Struct(v2).put("id", 4), i, value_schema=v2) for i in range(3, 11)])
    names = bucket.listing()
    assert names == [
        "topics/orders/partition=0/orders+0+0000000000.json",
        "topics/orders/partition=0/orders+0+0000000001.json",
    ]
    lines = bucket.read(names[1]).splitlines()
    assert lines[:2] == [b'{"id":2,"note":"n"}', b'{"id":3,"note":null}']


def test_server_side_encryption_and_canned_acl_reach_s3(bucket: Bucket) -> None:
    props = bucket.props(
        **{"flush.size": "1", "s3.ssea.name": "AES256", "s3.acl.canned": "public-read"}
    )
    task, _ = bucket.task(props)
    task.put([rec("x", 0)])
    (key,) = bucket.listing()
    client = bucket.service.client()
    assert client.head_object(Bucket=bucket.name, Key=key)["ServerSideEncryption"] == "AES256"
    grants = client.get_object_acl(Bucket=bucket.name, Key=key)["Grants"]
    assert any(
        g["Grantee"].get("URI", "").endswith("/global/AllUsers") and g["Permission"] == "READ"
        for g in grants
    )
