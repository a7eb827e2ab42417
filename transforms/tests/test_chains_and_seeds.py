"""Chains of transforms gated by predicates, and configs copied from the seed documents.

The runtime wires chains from config; here a small chain is wired by hand the same way:
a transform runs when its predicate's result differs from ``negate``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest
from kconnect_sdk import ConfigError, ConnectRecord, Headers, Predicate, SinkRecord, Transformation
from kconnect_transforms import (
    ExtractFieldKey,
    Filter,
    HasHeaderKey,
    InsertFieldKey,
    InsertFieldValue,
    RecordIsTombstone,
    RegexRouter,
    ReplaceFieldValue,
    TimestampConverterValue,
    TopicNameMatches,
    ValueToKey,
)

Step = tuple[Transformation[Any], Predicate[Any] | None, bool]


def chain(config: Mapping[str, str]) -> list[Step]:
    """Build a chain from connector-style ``transforms.*``/``predicates.*`` properties."""
    classes: dict[str, type[Any]] = {
        "org.apache.kafka.connect.transforms.RegexRouter": RegexRouter,
        "org.apache.kafka.connect.transforms.Filter": Filter,
        "Filter": Filter,
        "org.apache.kafka.connect.transforms.ReplaceField$Value": ReplaceFieldValue,
        "org.apache.kafka.connect.transforms.InsertField$Value": InsertFieldValue,
        "org.apache.kafka.connect.transforms.InsertField$Key": InsertFieldKey,
        "org.apache.kafka.connect.transforms.ValueToKey": ValueToKey,
        "org.apache.kafka.connect.transforms.ExtractField$Key": ExtractFieldKey,
        "org.apache.kafka.connect.transforms.TimestampConverter$Value": TimestampConverterValue,
        "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone": RecordIsTombstone,
        "org.apache.kafka.connect.transforms.predicates.TopicNameMatches": TopicNameMatches,
        "org.apache.kafka.connect.transforms.predicates.HasHeaderKey": HasHeaderKey,
    }

    def sub(prefix: str) -> dict[str, str]:
        return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}

    predicates: dict[str, Predicate[Any]] = {}
    for alias in filter(None, config.get("predicates", "").split(",")):
        props = sub(f"predicates.{alias.strip()}.")
        predicate = classes[props.pop("type")]()
        predicate.configure(props)
        predicates[alias.strip()] = predicate
    steps: list[Step] = []
    for alias in config["transforms"].split(","):
        props = sub(f"transforms.{alias.strip()}.")
        transform = classes[props.pop("type")]()
        transform.configure(props)
        predicate_alias = props.get("predicate")
        negate = props.get("negate", "false").lower() == "true"
        steps.append((transform, predicates[predicate_alias] if predicate_alias else None, negate))
    return steps


def run(steps: list[Step], record: ConnectRecord | None) -> Any:
    for transform, predicate, negate in steps:
        if record is None:
            return None
        if predicate is None or predicate.test(record) != negate:
            record = transform.apply(record)
    return record


def sink(topic: str, value: Any, **kw: Any) -> SinkRecord:
    return SinkRecord(
        topic=topic, kafka_partition=0, value=value, timestamp=1_600_000_000_000, **kw
    )


# The O'Reilly book (seed 004), chapter 4: drop tombstones, rename a field, stamp the rest.
BOOK_PIPELINE = {
    "transforms": "filterTombstones,replaceSource,addTimestamp",
    "transforms.filterTombstones.type": "org.apache.kafka.connect.transforms.Filter",
    "transforms.filterTombstones.predicate": "isTombstone",
    "transforms.replaceSource.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.replaceSource.renames": "source:origin",
    "transforms.addTimestamp.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.addTimestamp.timestamp.field": "ts",
    "transforms.addTimestamp.predicate": "isTombstone",
    "transforms.addTimestamp.negate": "true",
    "predicates": "isTombstone",
    "predicates.isTombstone.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
}


def test_book_pipeline_drops_tombstones_and_rewrites_the_rest() -> None:
    steps = chain(BOOK_PIPELINE)
    assert run(steps, sink("t", None)) is None
    out = run(steps, sink("t", {"source": "web", "n": 1}))
    assert out.value == {"origin": "web", "n": 1, "ts": 1_600_000_000_000}


def test_keep_one_topic_drop_another_with_a_shared_negated_predicate() -> None:
    config = {
        "transforms": "dropMyTopic",
        "transforms.dropMyTopic.type": "Filter",
        "transforms.dropMyTopic.predicate": "topicMatch",
        "predicates": "topicMatch",
        "predicates.topicMatch.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.topicMatch.pattern": "my-prefix-.*",
    }
    drop = chain(config)
    keep = chain({**config, "transforms.dropMyTopic.negate": "true"})
    assert run(drop, sink("my-prefix-orders", {"a": 1})) is None
    # The pattern must match the whole topic name, as Java's Matcher.matches().
    assert run(drop, sink("x-my-prefix-orders", {"a": 1})).topic == "x-my-prefix-orders"
    assert run(drop, sink("other", {"a": 1})).topic == "other"
    assert run(keep, sink("my-prefix-orders", {"a": 1})).topic == "my-prefix-orders"
    assert run(keep, sink("other", {"a": 1})) is None


def test_book_value_to_key_then_extract_field_gives_a_plain_key() -> None:
    steps = chain(
        {
            "transforms": "valueToKey,extractField",
            "transforms.valueToKey.type": "org.apache.kafka.connect.transforms.ValueToKey",
            "transforms.valueToKey.fields": "id",
            "transforms.extractField.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
            "transforms.extractField.field": "id",
        }
    )
    out = run(steps, sink("t", {"id": 42, "name": "x"}))
    assert (out.key, out.value) == (42, {"id": 42, "name": "x"})


def test_book_timestamp_converter_formats_a_date_field() -> None:
    steps = chain(
        {
            "transforms": "timestampConverter",
            "transforms.timestampConverter.type": "org.apache.kafka.connect.transforms.TimestampConverter$Value",
            "transforms.timestampConverter.field": "published",
            "transforms.timestampConverter.format": "yyyy-MM-dd",
            "transforms.timestampConverter.target.type": "string",
        }
    )
    # 1_600_000_000_000 ms is 2020-09-13T12:26:40Z.
    out = run(steps, sink("t", {"published": 1_600_000_000_000, "title": "x"}))
    assert out.value == {"published": "2020-09-13", "title": "x"}


def test_router_chain_only_renames_records_with_a_header() -> None:
    steps = chain(
        {
            "transforms": "renameTopic",
            "transforms.renameTopic.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.renameTopic.regex": "(.*)",
            "transforms.renameTopic.replacement": "$1-router",
            "transforms.renameTopic.predicate": "tagged",
            "predicates": "tagged",
            "predicates.tagged.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
            "predicates.tagged.name": "route",
        }
    )
    assert (
        run(steps, sink("orders", {"a": 1}, headers=Headers().add("route", "y"))).topic
        == "orders-router"
    )
    assert run(steps, sink("orders", {"a": 1})).topic == "orders"


# Seed 003 ("File 6"): its keys carry a "value." prefix that Kafka does not know, so
# Kafka's InsertField ignores them and inserts nothing. We behave as Kafka does and log
# a warning that names the key the author most likely meant.
SEED_CHAIN = {
    "transforms": "insertKey,insertValue",
    "transforms.insertKey.type": "org.apache.kafka.connect.transforms.InsertField$Key",
    "transforms.insertKey.value.static.field": "my-field",
    "transforms.insertKey.value.static.value": "my-value",
    "transforms.insertValue.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insertValue.value.static.field": "my-field",
    "transforms.insertValue.value.static.value": "my-value",
}


def test_seed_insert_field_chain_as_written_warns_and_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # With its keys misspelt the InsertField inserts nothing, which Kafka 4.1's
    # InsertField refuses at configure ("No field insertion configured"), as kconnect's.
    caplog.set_level(logging.WARNING)
    with pytest.raises(ConfigError, match="No field insertion configured"):
        chain(SEED_CHAIN)
    assert any(
        "value.static.field" in r.getMessage() and "'static.field'" in r.getMessage()
        for r in caplog.records
    )


def test_seed_insert_field_chain_with_kafkas_keys_adds_the_field_to_key_and_value() -> None:
    fixed = {k.replace(".value.static.", ".static."): v for k, v in SEED_CHAIN.items()}
    out = run(chain(fixed), sink("t", {"v": 1}, key={"k": 1}))
    assert out.key == {"k": 1, "my-field": "my-value"}
    assert out.value == {"v": 1, "my-field": "my-value"}
