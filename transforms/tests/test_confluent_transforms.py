"""Confluent-style transforms: Drop, ExtractTopic, TombstoneHandler, MessageTimestampRouter, Filter."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Transformation,
)
from kconnect_transforms import (
    ConfluentFilterKey,
    ConfluentFilterValue,
    DropKey,
    DropValue,
    ExtractTopicHeader,
    ExtractTopicKey,
    ExtractTopicValue,
    MessageTimestampRouter,
    TombstoneHandler,
)


def build(cls: type[Transformation[Any]], config: dict[str, str]) -> Transformation[Any]:
    transform = cls()
    transform.configure(config)
    return transform


def record(value: Any = None, **kw: Any) -> SinkRecord:
    kw.setdefault("topic", "orders")
    return SinkRecord(value=value, **kw)


SCHEMA = SchemaBuilder.struct().field("id", Schema.INT32).build()


@pytest.mark.parametrize(
    ("behavior", "schema_out"),
    [
        ("nullify", None),
        ("retain", SCHEMA),
        ("force_optional", SchemaBuilder.struct().optional().field("id", Schema.INT32).build()),
    ],
)
def test_drop_value_makes_a_tombstone(behavior: str, schema_out: Schema | None) -> None:
    value = Struct(SCHEMA).put("id", 1)
    out = build(DropValue, {"schema.behavior": behavior}).apply(
        record(value, value_schema=SCHEMA, key="k")
    )
    assert out is not None
    assert (out.value, out.value_schema, out.key) == (None, schema_out, "k")


def test_drop_validate_refuses_a_required_schema() -> None:
    with pytest.raises(DataError, match="not optional"):
        build(DropValue, {"schema.behavior": "validate"}).apply(
            record(Struct(SCHEMA).put("id", 1), value_schema=SCHEMA)
        )


def test_drop_key() -> None:
    out = build(DropKey, {}).apply(record({"a": 1}, key={"id": 1}))
    assert out is not None and out.key is None and out.value == {"a": 1}


@pytest.mark.parametrize(
    ("cls", "config", "rec", "topic"),
    [
        (ExtractTopicValue, {"field": "dest"}, record({"dest": "routed", "x": 1}), "routed"),
        (ExtractTopicValue, {}, record("whole-value"), "whole-value"),
        (ExtractTopicKey, {"field": "tenant"}, record({"x": 1}, key={"tenant": "acme"}), "acme"),
        (
            ExtractTopicKey,
            {"field": "id"},
            record({"x": 1}, key_schema=SCHEMA, key=Struct(SCHEMA).put("id", 5)),
            "5",
        ),
        (
            ExtractTopicValue,
            {"field": "$.meta.target", "field.format": "JSON_PATH"},
            record({"meta": {"target": "deep"}}),
            "deep",
        ),
        (
            ExtractTopicHeader,
            {"field": "to"},
            record({"x": 1}, headers=Headers().add("to", "a").add("to", "b")),
            "b",
        ),
        (
            ExtractTopicValue,
            {"field": "dest", "skip.missing.or.null": "true"},
            record({"x": 1}),
            "orders",
        ),
    ],
)
def test_extract_topic(
    cls: type[Transformation[Any]], config: dict[str, str], rec: SinkRecord, topic: str
) -> None:
    out = build(cls, config).apply(rec)
    assert out is not None and out.topic == topic


def test_extract_topic_fails_on_a_missing_field_by_default() -> None:
    with pytest.raises(DataError, match=r"'dest'.*skip\.missing\.or\.null"):
        build(ExtractTopicValue, {"field": "dest"}).apply(record({"x": 1}))


@pytest.mark.parametrize(
    ("behavior", "level"), [("warn", logging.WARNING), ("ignore", logging.DEBUG)]
)
def test_tombstone_handler_drops_tombstones_and_logs(
    behavior: str, level: int, caplog: pytest.LogCaptureFixture
) -> None:
    handler = build(TombstoneHandler, {"behavior": behavior})
    caplog.set_level(logging.DEBUG)
    assert handler.apply(record(None)) is None
    assert [r.levelno for r in caplog.records if "tombstone" in r.getMessage()] == [level]
    kept = record({"a": 1})
    assert handler.apply(kept) is kept


def test_tombstone_handler_fail() -> None:
    with pytest.raises(DataError, match="orders"):
        build(TombstoneHandler, {"behavior": "fail"}).apply(record(None))


@pytest.mark.parametrize(
    ("config", "value", "topic"),
    [
        (
            {
                "message.timestamp.keys": "timestamp,time,ts",
                "message.timestamp.format": "yyyy-MM-dd'T'HH:mm:ss",
                "topic.timestamp.format": "yyyy.MM.dd",
            },
            {"time": "2020-05-06T07:08:09", "ts": "ignored"},
            "orders-2020.05.06",
        ),
        (
            {"message.timestamp.keys": "ts", "topic.format": "logs_${timestamp}"},
            {"ts": "2021-12-31"},
            "logs_2021.12.31",
        ),
        ({"message.timestamp.keys": "ts"}, {"ts": 0}, "orders-1970.01.01"),
    ],
)
def test_message_timestamp_router(
    config: dict[str, str], value: dict[str, Any], topic: str
) -> None:
    out = build(MessageTimestampRouter, config).apply(record(value))
    assert out is not None and out.topic == topic


FILTER_CASES = [
    ("$[?(@.status == 'active')]", {"status": "active"}, True),
    ("$[?(@.status == 'active')]", {"status": "closed"}, False),
    ('$[?(@.amount > 100 && @.currency == "EUR")]', {"amount": 150, "currency": "EUR"}, True),
    ('$[?(@.amount > 100 && @.currency == "EUR")]', {"amount": 50, "currency": "EUR"}, False),
    ("$[?(@.a == 1 || @.b == 2)]", {"a": 0, "b": 2}, True),
    ("$[?(!(@.a == 1))]", {"a": 1}, False),
    ("$[?(@.name =~ /^ab.*/i)]", {"name": "ABC"}, True),
    ("$[?(@.kind in ['x', 'y'])]", {"kind": "y"}, True),
    ("$[?(@.kind nin ['x', 'y'])]", {"kind": "y"}, False),
    ("$[?(@.user.age >= 18)]", {"user": {"age": 18}}, True),
    ("$[?(@['odd key'] != 3.5)]", {"odd key": 3.5}, False),
    ("$[?(@.flag)]", {"flag": True}, True),
    ("$.items[?(@.sku == 'A1')]", {"items": [{"sku": "B2"}, {"sku": "A1"}]}, True),
]


@pytest.mark.parametrize(("condition", "value", "matches"), FILTER_CASES)
def test_filter_include_and_exclude(condition: str, value: dict[str, Any], matches: bool) -> None:
    rec = record(value)
    include = build(ConfluentFilterValue, {"filter.condition": condition, "filter.type": "include"})
    exclude = build(ConfluentFilterValue, {"filter.condition": condition, "filter.type": "exclude"})
    assert (include.apply(rec) is rec) is matches
    assert (exclude.apply(rec) is rec) is (not matches)


def test_filter_works_on_structs_and_keys() -> None:
    rec = record({"x": 1}, key_schema=SCHEMA, key=Struct(SCHEMA).put("id", 5))
    keep = build(
        ConfluentFilterKey, {"filter.condition": "$[?(@.id == 5)]", "filter.type": "include"}
    )
    assert keep.apply(rec) is rec


@pytest.mark.parametrize(("behavior", "kept"), [("include", True), ("exclude", False)])
def test_filter_missing_or_null_behavior(behavior: str, kept: bool) -> None:
    config = {
        "filter.condition": "$[?(@.status == 'x')]",
        "filter.type": "include",
        "missing.or.null.behavior": behavior,
    }
    rec = record({"status": None})
    assert (build(ConfluentFilterValue, config).apply(rec) is rec) is kept


def test_filter_rejects_unsupported_conditions_at_configure() -> None:
    with pytest.raises(ConfigError, match=r"filter\.condition") as info:
        build(ConfluentFilterValue, {"filter.condition": "$..book[*]", "filter.type": "include"})
    assert info.value.name == "filter.condition"
