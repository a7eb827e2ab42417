"""A chain runs a run of predicate-less transforms as one fused loop when the first offers
it (``fused_batch``): same records as the transforms in turn, and a failing record's error
names the transform that fails, as without the loop."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.tasks._chain import TransformChain
from kconnect_sdk import ConnectError, SinkRecord

CONFIG = {
    "transforms": "add,drop,route,day",
    "transforms.add.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.add.topic.field": "_topic",
    "transforms.drop.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.drop.exclude": "internal",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "orders-(.*)",
    "transforms.route.replacement": "$1",
    "transforms.day.type": "org.apache.kafka.connect.transforms.TimestampRouter",
}


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


def chains(registry: PluginRegistry, config: dict[str, str]) -> tuple[Any, Any]:
    fused: TransformChain[Any] = TransformChain.from_config(registry, config)
    in_turn: TransformChain[Any] = TransformChain.from_config(registry, config)
    return fused, TransformChain(in_turn._stages, fuse=False)


def batch(n: int = 50) -> list[SinkRecord]:
    return [
        SinkRecord(
            topic=f"orders-{i % 3}",
            kafka_partition=0,
            kafka_offset=i,
            timestamp=1_700_000_000_000 + i * 3_600_000,
            value=None if i % 7 == 3 else {"id": i, "internal": "x"},
        )
        for i in range(n)
    ]


def test_same_records_with_and_without_the_fused_loop(registry: PluginRegistry) -> None:
    fused, in_turn = chains(registry, CONFIG)
    records = batch()
    got = fused.apply_batch(records)
    assert got == in_turn.apply_batch(records)
    assert got[0].topic == "0-20231114" and got[0].value == {"id": 0, "_topic": "orders-0"}


def test_a_predicate_ends_the_fused_run(registry: PluginRegistry) -> None:
    config = {
        **CONFIG,
        "predicates": "audit",
        "predicates.audit.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.audit.pattern": ".*-1",
        "transforms.route.predicate": "audit",
    }
    fused, in_turn = chains(registry, config)
    records = batch()
    got = fused.apply_batch(records)
    assert got == in_turn.apply_batch(records)
    assert {r.topic.split("-")[0] for r in got} == {"orders", "1"}


def test_a_failing_record_names_its_transform(registry: PluginRegistry) -> None:
    fused, in_turn = chains(registry, CONFIG)
    records = batch()
    records[5] = records[5].new_record(timestamp=None)
    with pytest.raises(ConnectError) as without:
        in_turn.apply_batch(records)
    with pytest.raises(ConnectError) as with_loop:
        fused.apply_batch(records)
    assert str(with_loop.value) == str(without.value)
    assert "transform 'day'" in str(with_loop.value) and "Timestamp missing" in str(with_loop.value)
