"""FileStreamSink prints values as Kafka's Java sink does: ``String.valueOf(record.value())``.

The expected strings were printed by Java 17 (``TZ=UTC java T.java`` with ``HashMap``,
``ArrayList``, ``java.util.Date``, ``BigDecimal`` and ``Double``/``Float`` values built as the
converters build them); Struct's text follows Kafka's ``Struct.toString`` (null fields left
out, ``,`` between fields).
"""

from __future__ import annotations

import datetime as dt
import decimal
from pathlib import Path
from typing import Any

import pytest
from kconnect_connector_file import FileStreamSinkTask
from kconnect_connector_file._java_text import java_text
from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct

INT32_MAP = SchemaBuilder.map(Schema.INT32, Schema.STRING).build()


@pytest.mark.parametrize(
    ("value", "schema", "java"),
    [
        (
            {"name": "alice", "age": 30, "city": "Paris", "zip": None},
            None,
            "{zip=null, city=Paris, name=alice, age=30}",
        ),
        (
            {f"key{i}": i for i in range(20)},  # 20 entries: the map grew to 32 buckets
            None,
            "{key1=1, key2=2, key0=0, key5=5, key6=6, key3=3, key4=4, key9=9, key7=7, key8=8, "
            "key11=11, key10=10, key15=15, key14=14, key13=13, key12=12, key19=19, key18=18, "
            "key17=17, key16=16}",
        ),
        ({-1: "a", 5: "b", 1 << 40: "c", 17: "d"}, None, "{-1=a, 1099511627776=c, 17=d, 5=b}"),
        ({-1: "a", 5: "b", 33: "c", 17: "d"}, INT32_MAP, "{-1=a, 33=c, 17=d, 5=b}"),
        (
            {"é": 1.5, "😀": 1e10, "b": [1, 2.0, "x"], "a": {"z": True}},
            None,
            "{a={z=true}, b=[1, 2.0, x], 😀=1.0E10, é=1.5}",
        ),
        (dt.datetime(1970, 1, 1, tzinfo=dt.UTC), None, "Thu Jan 01 00:00:00 UTC 1970"),
        (
            dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC),
            None,
            "Tue Nov 14 22:13:20 UTC 2023",
        ),
        # java.util.Date counts days before 1582-10-15 in the Julian calendar.
        (dt.date(1582, 10, 14), None, "Thu Oct 04 00:00:00 UTC 1582"),
        (1e-4, None, "1.0E-4"),
        (1234567.0, None, "1234567.0"),
        (12345678.0, None, "1.2345678E7"),
        (0.1, Schema.FLOAT32, "0.1"),
        (decimal.Decimal("1.23E+5"), None, "1.23E+5"),
        (decimal.Decimal("0.00000012"), None, "1.2E-7"),
        (None, None, "null"),
        (False, None, "false"),
    ],
)
def test_values_print_as_java_prints_them(value: Any, schema: Schema | None, java: str) -> None:
    assert java_text(value, schema) == java


def test_a_struct_prints_as_kafkas_struct_to_string() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("id", Schema.INT32)
        .field("note", Schema.OPTIONAL_STRING)
        .field("score", Schema.FLOAT32)
        .field("tags", SchemaBuilder.array(Schema.STRING).build())
        .build()
    )
    value = Struct(schema).put("id", 7).put("score", 2.5).put("tags", ["a", "b"])
    assert java_text(value, schema) == "Struct{id=7,score=2.5,tags=[a, b]}"


def test_the_sink_writes_maps_and_structs_as_the_java_sink(tmp_path: Path) -> None:
    out = tmp_path / "sink.txt"
    task = FileStreamSinkTask()
    task.start({"file": str(out)})
    try:
        _put(task)
    finally:
        task.stop()
    assert out.read_text(encoding="utf-8").splitlines() == [
        "{name=alice, age=30}",
        "Struct{id=1}",
        "plain line",
    ]


def _put(task: FileStreamSinkTask) -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT32).build()
    task.put(
        [
            SinkRecord(
                topic="t", kafka_partition=0, value={"name": "alice", "age": 30}, kafka_offset=0
            ),
            SinkRecord(
                topic="t",
                kafka_partition=0,
                value_schema=schema,
                value=Struct(schema).put("id", 1),
                kafka_offset=1,
            ),
            SinkRecord(topic="t", kafka_partition=0, value="plain line", kafka_offset=2),
        ]
    )
    task.flush({})
