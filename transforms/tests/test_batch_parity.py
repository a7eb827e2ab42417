"""apply_batch gives what apply gives record by record, on the whole-batch paths too.

InsertField, ReplaceField, RegexRouter and TimestampRouter run a batch whose records are
alike (one record class, all schemaless dicts or all Structs of one schema) through
generated or all-C loops, HoistField a batch of strings of one STRING schema and
InsertHeader a batch of records with the same headers; these batches hold records on both
sides of each condition.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import (
    DataError,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
)
from kconnect_transforms import (
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    InsertHeader,
    RecordIsTombstone,
    RegexRouter,
    ReplaceFieldValue,
    TimestampRouter,
    TopicNameMatches,
)

SCHEMA = (
    SchemaBuilder.struct()
    .name("t.Order")
    .field("id", Schema.INT64)
    .field("internal", Schema.OPTIONAL_STRING)
    .field("note", Schema.OPTIONAL_STRING)
    .build()
)
WITH_DEFAULT = (
    SchemaBuilder.struct()
    .field("id", Schema.INT64)
    .field("level", SchemaBuilder.int32().optional().default_value(7).build())
    .build()
)


def struct(schema: Schema = SCHEMA, **values: Any) -> Struct:
    s = Struct(schema)
    for name, value in values.items():
        s.put(name, value)
    return s


def sink(i: int, value: Any, schema: Schema | None = None, **extra: Any) -> SinkRecord:
    return SinkRecord(
        topic=extra.pop("topic", f"orders-{i % 3}"),
        kafka_partition=extra.pop("kafka_partition", i % 2),
        kafka_offset=i,
        timestamp=extra.pop("timestamp", 1_700_000_000_000 + i * 3_600_000),
        value_schema=schema,
        value=value,
        **extra,
    )


def schemaless(n: int = 5) -> list[SinkRecord]:
    return [sink(i, {"id": i, "internal": "x", "note": None}) for i in range(n)]


def structured(n: int = 5) -> list[SinkRecord]:
    return [sink(i, struct(id=i, internal="x"), SCHEMA) for i in range(n)]


BATCHES: dict[str, list[Any]] = {
    "schemaless": schemaless(),
    "structs": structured(),
    "mixed": [*schemaless(2), *structured(2), sink(9, None), *schemaless(2)],
    "tombstone first": [sink(0, None), *schemaless(3)],
    "null partition": [sink(0, {"id": 1}, kafka_partition=None), *schemaless(2)],
    "defaults": [
        sink(i, struct(WITH_DEFAULT, id=i, level=None if i % 2 else 3), WITH_DEFAULT)
        for i in range(4)
    ],
    "two schemas": [*structured(2), sink(5, struct(WITH_DEFAULT, id=5), WITH_DEFAULT)],
    "source records": [
        SourceRecord(topic="orders-1", value={"id": i}, timestamp=1_700_000_000_000 + i)
        for i in range(3)
    ],
    "classes mixed": [
        *schemaless(2),
        SourceRecord(topic="orders-1", value={"id": 1}, timestamp=1_700_000_000_000),
    ],
    # FileStreamSource's lines: strings of one STRING schema, the usual HoistField batch.
    "lines": [
        SourceRecord(topic="lines", value_schema=Schema.STRING, value=f"line {i}") for i in range(4)
    ],
    "lines with a null": [
        sink(i, None if i == 1 else f"line {i}", Schema.OPTIONAL_STRING) for i in range(3)
    ],
    "lines of two schemas": [
        sink(0, "a", Schema.STRING),
        sink(1, "b", Schema.OPTIONAL_STRING),
    ],
    "a line that is not a string": [sink(0, "a", Schema.STRING), sink(1, 7, Schema.STRING)],
    "string keys": [
        sink(i, "v", Schema.STRING, key_schema=Schema.STRING, key=f"k{i}") for i in range(3)
    ],
    "same headers": [
        sink(i, "v", Schema.STRING, headers=Headers().add_string("trace", "t1")) for i in range(3)
    ],
    "other headers": [
        sink(i, "v", Schema.STRING, headers=Headers().add_string("trace", f"t{i}"))
        for i in range(3)
    ],
}

CONFIGS: list[tuple[type, dict[str, str]]] = [
    (InsertFieldValue, {"topic.field": "_topic", "partition.field": "_partition"}),
    (
        InsertFieldValue,
        {
            "topic.field": "_t",
            "offset.field": "_o",
            "timestamp.field": "_ts",
            "static.field": "s",
            "static.value": "v",
        },
    ),
    (
        InsertFieldValue,
        {"static.field": "s", "static.value": "v", "replace.null.with.default": "false"},
    ),
    (InsertFieldKey, {"topic.field": "_topic"}),
    (ReplaceFieldValue, {"exclude": "internal", "renames": "id:order_id"}),
    (ReplaceFieldValue, {"include": "id,note"}),
    (ReplaceFieldValue, {"include": "id", "replace.null.with.default": "false"}),
    (ReplaceFieldValue, {"renames": "id:note,note:id"}),
    (RegexRouter, {"regex": "orders-(.*)", "replacement": "$1-orders"}),
    (RegexRouter, {"regex": "nomatch", "replacement": "x"}),
    (TimestampRouter, {"timestamp.format": "yyyyMMdd-HH"}),
    (HoistFieldValue, {"field": "line"}),
    (HoistFieldKey, {"field": "id"}),
    (InsertHeader, {"header": "origin", "value.literal": "bench"}),
    (InsertHeader, {"header": "ids", "value.literal": "[1,2]"}),
]


def one_by_one(transform: Any, records: list[Any]) -> list[Any] | type[Exception]:
    out = []
    for record in records:
        try:
            result = transform.apply(record)
        except DataError:
            return DataError
        if result is not None:
            out.append(result)
    return out


@pytest.mark.parametrize("batch", list(BATCHES), ids=list(BATCHES))
@pytest.mark.parametrize(
    ("cls", "config"), CONFIGS, ids=[f"{c.__name__}-{i}" for i, (c, _) in enumerate(CONFIGS)]
)
def test_apply_batch_matches_apply(cls: type, config: dict[str, str], batch: str) -> None:
    records = BATCHES[batch]
    expected_transform = cls()
    expected_transform.configure(config)
    expected = one_by_one(expected_transform, records)
    transform = cls()
    transform.configure(config)
    for _ in range(2):  # the second time, every memo and generated loop is warm
        if expected is DataError:
            with pytest.raises(DataError):
                transform.apply_batch(records)
            continue
        got = transform.apply_batch(records)
        assert got == expected
        assert [type(r) for r in got] == [type(r) for r in expected]  # type: ignore[union-attr]
        assert [r.value_schema for r in got] == [r.value_schema for r in expected]  # type: ignore[union-attr]


def test_reconfigured_transform_uses_its_new_config() -> None:
    transform: InsertFieldValue[SinkRecord] = InsertFieldValue()
    transform.configure({"topic.field": "a"})
    assert transform.apply_batch(schemaless(2))[0].value["a"] == "orders-0"
    transform.configure({"topic.field": "b"})
    value = transform.apply_batch(schemaless(2))[0].value
    assert "b" in value and "a" not in value


def test_timestamp_router_batch_without_timestamp_names_the_problem() -> None:
    router: TimestampRouter[SinkRecord] = TimestampRouter()
    router.configure({})
    router.apply_batch(schemaless(2))
    with pytest.raises(DataError, match="Timestamp missing"):
        router.apply_batch([*schemaless(2), sink(3, {"id": 3}, timestamp=None)])


@pytest.mark.parametrize(
    ("cls", "config"),
    [(TopicNameMatches, {"pattern": "orders-[01]"}), (RecordIsTombstone, {})],
    ids=["TopicNameMatches", "RecordIsTombstone"],
)
@pytest.mark.parametrize("batch", list(BATCHES), ids=list(BATCHES))
def test_test_batch_matches_test(cls: type, config: dict[str, str], batch: str) -> None:
    predicate = cls()
    predicate.configure(config)
    records = BATCHES[batch]
    expected = [predicate.test(r) for r in records]
    assert predicate.test_batch(records) == expected
    fresh = cls()
    fresh.configure(config)
    assert fresh.test_batch(records) == expected  # memo cold


def test_topic_name_matches_batch_with_a_record_without_topic() -> None:
    predicate: TopicNameMatches[SinkRecord] = TopicNameMatches()
    predicate.configure({"pattern": "orders-.*"})
    records = [*schemaless(2), sink(5, {"id": 5}, topic=None)]
    assert predicate.test_batch(records) == [True, True, False]
