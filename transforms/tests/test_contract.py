"""Contracts every registered transform and predicate keeps (one parametrized suite).

The set of plugins comes from the entry points declared in transforms/pyproject.toml, so a
new entry point without a contract case fails here.
"""

from __future__ import annotations

import datetime as dt
import importlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Headers,
    Predicate,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Timestamp,
    Transformation,
)

_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
_ENTRY_POINTS = tomllib.loads(_PYPROJECT.read_text())["project"]["entry-points"]
TRANSFORMS: dict[str, str] = _ENTRY_POINTS["kconnect.transforms"]
PREDICATES: dict[str, str] = _ENTRY_POINTS["kconnect.predicates"]

A = "org.apache.kafka.connect.transforms."
C = "io.confluent.connect.transforms."
D = "io.debezium.transforms."


def load(target: str) -> type[Any]:
    module, _, name = target.partition(":")
    cls: type[Any] = getattr(importlib.import_module(module), name)
    return cls


# name -> (working config, (bad config, key it must name))
CASES: dict[str, tuple[dict[str, Any], tuple[dict[str, Any], str] | None]] = {}


def case(names: list[str], good: dict[str, Any], bad: dict[str, Any] | None, key: str = "") -> None:
    for name in names:
        CASES[name] = (good, (bad, key) if bad is not None else None)


def both(base: str) -> list[str]:
    return [base + "$Key", base + "$Value"]


case(both(A + "Cast"), {"spec": "id:string"}, {"spec": "id:bytes"}, "spec")
case([A + "DropHeaders"], {"headers": "h"}, {}, "headers")
case(
    both(A + "ExtractField"),
    {"field": "id"},
    {"field": "id", "field.syntax.version": "V3"},
    "field.syntax.version",
)
case([A + "Filter"], {}, None)
case(both(A + "Flatten"), {}, {"delimiter": None}, "delimiter")
case(
    both(A + "HeaderFrom"),
    {"fields": "id", "headers": "hid", "operation": "copy"},
    {"fields": "id", "headers": "hid", "operation": "cut"},
    "operation",
)
case(both(A + "HoistField"), {"field": "wrapped"}, {}, "field")
case(
    both(A + "InsertField"),
    {"topic.field": "topic"},
    {"replace.null.with.default": "nope"},
    "replace.null.with.default",
)
case(
    [A + "InsertHeader"], {"header": "h2", "value.literal": "x"}, {"header": "h2"}, "value.literal"
)
case(
    both(A + "MaskField"), {"fields": "name"}, {"fields": "name", "replacement": ""}, "replacement"
)
case(
    [A + "RegexRouter"],
    {"regex": "(.*)", "replacement": "$1-x"},
    {"regex": "(", "replacement": "x"},
    "regex",
)
case(both(A + "ReplaceField"), {"exclude": "name"}, {"renames": "id"}, "renames")
case(
    both(A + "SetSchemaMetadata"),
    {"schema.name": "renamed"},
    {"schema.version": "abc"},
    "schema.version",
)
case(
    both(A + "TimestampConverter"),
    {"field": "ts", "target.type": "unix"},
    {"target.type": "epoch"},
    "target.type",
)
case([A + "TimestampRouter"], {}, {"timestamp.format": "yyyy-qq"}, "timestamp.format")
case([A + "ValueToKey"], {"fields": "id"}, {"fields": ""}, "fields")
case(both(C + "Drop"), {}, {"schema.behavior": "keep"}, "schema.behavior")
case(
    [C + "ExtractTopic$Key", C + "ExtractTopic$Value"],
    {"field": "name"},
    {"field.format": "xpath"},
    "field.format",
)
case(
    [C + "ExtractTopic$Header"],
    {"field": "h"},
    {"field": "h", "skip.missing.or.null": "sometimes"},
    "skip.missing.or.null",
)
case([C + "TombstoneHandler"], {}, {"behavior": "explode"}, "behavior")
case([C + "MessageTimestampRouter"], {"message.timestamp.keys": "ts"}, {}, "message.timestamp.keys")
case(
    both(C + "Filter"),
    {"filter.condition": "$[?(@.id == 1)]", "filter.type": "include"},
    {"filter.condition": "$[?(@.id ==]", "filter.type": "include"},
    "filter.condition",
)
case(
    [D + "ExtractNewRecordState"],
    {},
    {"delete.tombstone.handling.mode": "explode"},
    "delete.tombstone.handling.mode",
)
case(
    [D + "ByLogicalTableRouter"],
    {"topic.regex": "(.*)", "topic.replacement": "all"},
    {"topic.regex": "(", "topic.replacement": "all"},
    "topic.regex",
)

PREDICATE_CASES: dict[str, tuple[dict[str, str], tuple[dict[str, str], str] | None]] = {
    A + "predicates.HasHeaderKey": ({"name": "h"}, ({"name": ""}, "name")),
    A + "predicates.RecordIsTombstone": ({}, None),
    A + "predicates.TopicNameMatches": ({"pattern": "t.*"}, ({"pattern": "("}, "pattern")),
}

# Transforms whose purpose is to handle null values or keys.
DROPS_TOMBSTONES = {A + "Filter", C + "TombstoneHandler"}
DROPS_EVERYTHING = {A + "Filter"}
BUILDS_KEY = {A + "ValueToKey"}
# Kafka's SetSchemaMetadata requires a schema and rejects schemaless records.
SCHEMA_ONLY = set(both(A + "SetSchemaMetadata"))

SCHEMA = (
    SchemaBuilder.struct()
    .name("com.example.Row")
    .field("id", Schema.INT64)
    .field("name", Schema.OPTIONAL_STRING)
    .field("ts", Timestamp.builder().optional().build())
    .build()
)
TS = dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.UTC)


def struct_row() -> Struct:
    return Struct(SCHEMA).put("id", 1).put("name", "orders").put("ts", TS)


def records() -> list[SinkRecord]:
    headers = Headers().add("h", "routed")
    common: dict[str, Any] = {
        "topic": "t",
        "kafka_partition": 0,
        "kafka_offset": 7,
        "timestamp": 1_709_296_200_000,
        "headers": headers,
    }
    return [
        SinkRecord(
            key={"id": 1, "name": "k"},
            value={"id": 1, "name": "orders", "ts": 1_709_296_200_000},
            **common,
        ),
        SinkRecord(
            key_schema=SCHEMA, key=struct_row(), value_schema=SCHEMA, value=struct_row(), **common
        ),
    ]


def configured(name: str) -> Transformation[Any]:
    transform: Transformation[Any] = load(TRANSFORMS[name])()
    transform.configure({**CASES[name][0], "predicate": "somePredicate", "negate": "true"})
    return transform


def test_every_registered_plugin_has_a_contract_case() -> None:
    assert set(CASES) == set(TRANSFORMS)
    assert set(PREDICATE_CASES) == set(PREDICATES)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_is_a_transformation_with_a_config_definition(name: str) -> None:
    transform = load(TRANSFORMS[name])()
    assert isinstance(transform, Transformation)
    assert set(CASES[name][0]) <= transform.config().names()


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_input_record_is_never_mutated(name: str) -> None:
    transform = configured(name)
    for record in records():
        before = repr(record)
        key_values = list(record.key.to_dict().items()) if isinstance(record.key, Struct) else None
        if name in SCHEMA_ONLY and record.value_schema is None:
            with pytest.raises(DataError, match="Schema required"):
                transform.apply(record)
            continue
        transform.apply(record)
        transform.apply_batch([record, record])
        assert repr(record) == before
        if key_values is not None:
            assert list(record.key.to_dict().items()) == key_values


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_apply_batch_matches_apply_and_leaves_out_dropped_records(name: str) -> None:
    transform = configured(name)
    batch = records()[1:] if name in SCHEMA_ONLY else records()
    singles = [out for out in (transform.apply(r) for r in batch) if out is not None]
    assert [repr(r) for r in transform.apply_batch(batch)] == [repr(r) for r in singles]
    if name in DROPS_EVERYTHING:
        assert singles == []


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("with_schema", [False, True])
def test_tombstones_pass_through_unless_handled(name: str, with_schema: bool) -> None:
    transform = configured(name)
    base = records()[1 if with_schema or name in SCHEMA_ONLY else 0]
    tombstone = base.new_record(value=None, value_schema=SCHEMA if with_schema else None)
    out = transform.apply(tombstone)
    if name in DROPS_TOMBSTONES:
        assert out is None
    else:
        assert out is not None and out.value is None


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_null_keys_pass_through_unless_handled(name: str) -> None:
    transform = configured(name)
    record = records()[1 if name in SCHEMA_ONLY else 0].new_record(key=None, key_schema=None)
    out = transform.apply(record)
    if name in DROPS_EVERYTHING:
        assert out is None
    elif name not in BUILDS_KEY:
        assert out is not None and out.key is None


@pytest.mark.parametrize("name", sorted(n for n in TRANSFORMS if CASES[n][1] is not None))
def test_invalid_config_is_rejected_at_configure_naming_the_key(name: str) -> None:
    bad = CASES[name][1]
    assert bad is not None
    config, key = bad
    transform = load(TRANSFORMS[name])()
    with pytest.raises(ConfigError) as info:
        transform.configure(config)
    assert info.value.name == key
    assert key in str(info.value)


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates_configure_test_and_reject_bad_config(name: str) -> None:
    good, bad = PREDICATE_CASES[name]
    predicate: Predicate[Any] = load(PREDICATES[name])()
    assert isinstance(predicate, Predicate)
    predicate.configure({**good, "negate": "true"})
    record = records()[0]
    matching = {
        A + "predicates.HasHeaderKey": record,
        A + "predicates.RecordIsTombstone": record.new_record(value=None),
        A + "predicates.TopicNameMatches": record,
    }[name]
    other = {
        A + "predicates.HasHeaderKey": record.new_record(headers=Headers().add("x", 1)),
        A + "predicates.RecordIsTombstone": record,
        A + "predicates.TopicNameMatches": record.new_record(topic="other"),
    }[name]
    assert predicate.test(matching) is True
    assert predicate.test(other) is False
    if bad is not None:
        with pytest.raises(ConfigError) as info:
            load(PREDICATES[name])().configure(bad[0])
        assert info.value.name == bad[1]


# A record each transform cannot handle, and the field the error must name.
UNHANDLED: list[tuple[str, dict[str, str], SinkRecord | SourceRecord, str]] = [
    (A + "Cast$Value", {"spec": "id:int32"}, SinkRecord(topic="t", value={"id": {"x": 1}}), "id"),
    (A + "ExtractField$Value", {"field": "missing"}, records()[1], "missing"),
    (A + "ValueToKey", {"fields": "id,missing"}, records()[1], "missing"),
    (
        A + "MaskField$Value",
        {"fields": "flag", "replacement": "x"},
        SinkRecord(topic="t", value={"flag": True}),
        "flag",
    ),
    (
        A + "TimestampConverter$Value",
        {"field": "ts", "target.type": "unix"},
        SinkRecord(topic="t", value={"ts": [1]}),
        "ts",
    ),
    (
        A + "HeaderFrom$Value",
        {"fields": "missing", "headers": "h", "operation": "move"},
        records()[1],
        "missing",
    ),
    (A + "Flatten$Value", {}, SinkRecord(topic="t", value={"a": {"b": object()}}), "a.b"),
    (
        A + "InsertField$Value",
        {"offset.field": "off"},
        SourceRecord(topic="t", value={"id": 1}),
        "off",
    ),
    (A + "Cast$Value", {"spec": "id:int8"}, SinkRecord(topic="t", value={"id": "300"}), "id"),
    (C + "ExtractTopic$Value", {"field": "missing"}, records()[0], "missing"),
    (
        C + "Filter$Value",
        {"filter.condition": "$[?(@.status == 'x')]", "filter.type": "include"},
        records()[0],
        "status",
    ),
    (C + "MessageTimestampRouter", {"message.timestamp.keys": "when"}, records()[0], "when"),
]


@pytest.mark.parametrize(
    ("name", "config", "record", "field"),
    UNHANDLED,
    ids=[f"{u[0].rsplit('.', 1)[1]}-{u[3]}" for u in UNHANDLED],
)
def test_unhandled_record_raises_data_error_naming_transform_and_field(
    name: str, config: dict[str, str], record: SinkRecord, field: str
) -> None:
    transform: Transformation[Any] = load(TRANSFORMS[name])()
    transform.configure(config)
    with pytest.raises(DataError) as info:
        transform.apply(record)
    message = str(info.value)
    assert field in message
    assert name.rsplit(".", 1)[1].split("$", maxsplit=1)[0] in message
