"""fused_batch: a run of transforms as one loop gives what their apply_batch calls in turn give.

The runtime's chain offers each run of predicate-less transforms to the first one's
``fused_batch``; these tests hold the loop to the transforms applied one after the other,
on batches with records on both sides of every condition the loop checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from kconnect_sdk import DataError, Schema, SchemaBuilder, SinkRecord, SourceRecord, Struct
from kconnect_transforms import (
    CastValue,
    InsertFieldValue,
    RegexRouter,
    ReplaceFieldValue,
    TimestampRouter,
)

SCHEMA = (
    SchemaBuilder.struct()
    .field("id", Schema.INT64)
    .field("internal", Schema.OPTIONAL_STRING)
    .build()
)


def make(cls: Any, config: dict[str, str]) -> Any:
    t = cls()
    t.configure(config)
    return t


def insert(**extra: str) -> Any:
    return make(
        InsertFieldValue,
        {"topic.field": "_topic", "partition.field": "_partition", **extra},
    )


def replace() -> Any:
    return make(ReplaceFieldValue, {"exclude": "internal", "renames": "id:order_id"})


def regex(pattern: str = "orders-(.*)", to: str = "$1-orders") -> Any:
    return make(RegexRouter, {"regex": pattern, "replacement": to})


def stamp() -> Any:
    return make(TimestampRouter, {"timestamp.format": "yyyy-MM-dd"})


def snapshot(batch: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (r.topic, r.value_schema, dict(r.value) if type(r.value) is dict else r.value)
        for r in batch
    ]


def in_turn(transforms: list[Any], records: list[Any]) -> list[Any]:
    for t in transforms:
        records = t.apply_batch(records)
    return records


def records(n: int, seed: int, *, odd: bool = True) -> list[Any]:
    """Schemaless sink records first; with ``odd``, some unlike ones in between."""
    rng = random.Random(seed)
    out: list[Any] = []
    for i in range(n):
        topic = rng.choice(["orders-eu", "orders-us", "audit"])
        ts = 1_700_000_000_000 + rng.randrange(10) * 86_400_000
        value: Any = {"id": i, "internal": "x", "note": None}
        schema = None
        pick = rng.random() if odd and i else 1.0
        if pick < 0.08:
            value = None  # a tombstone
        elif pick < 0.16:
            value, schema = Struct(SCHEMA).put("id", i).put("internal", "y"), SCHEMA
        out.append(
            SinkRecord(
                topic=topic,
                kafka_partition=i % 3,
                kafka_offset=i,
                timestamp=ts,
                value_schema=schema,
                value=value,
            )
        )
    return out


CHAINS = {
    "insert, replace, regex, timestamp": lambda: [insert(), replace(), regex(), stamp()],
    "insert, replace": lambda: [insert(), replace()],
    "regex, timestamp": lambda: [regex(), stamp()],
    "two regex routers": lambda: [regex(), regex("(.*)-orders", "x-$1")],
    "insert, timestamp, replace": lambda: [insert(), stamp(), replace()],
}


@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.parametrize("odd", [False, True])
def test_the_loop_gives_what_the_transforms_give_in_turn(name: str, odd: bool) -> None:
    chain = CHAINS[name]()
    offer = chain[0].fused_batch(chain[1:])
    assert offer is not None
    count, fused = offer
    # A router ends the reshapers: ReplaceField after TimestampRouter is not fused.
    assert count == (2 if name == "insert, timestamp, replace" else len(chain))
    for seed in range(5):
        batch = records(300, seed, odd=odd)
        before = snapshot(batch)
        got = fused(batch)
        assert got is not None
        assert got == in_turn(CHAINS[name]()[:count], batch)
        assert snapshot(batch) == before  # inputs untouched: dicts are copied, not changed


def test_batches_it_does_not_take_are_left_to_the_transforms() -> None:
    _, fused = insert().fused_batch([replace()])
    assert fused([]) == []
    structs = [SinkRecord(topic="t", kafka_partition=0, value_schema=SCHEMA, value=Struct(SCHEMA))]
    assert fused(structs) is None  # Structs: each transform's own batch path
    source = [SourceRecord(topic="t", value={"id": 1})]
    # InsertField's offset field needs a SinkRecord: no straight-line code for sources.
    _, with_offset = insert(**{"offset.field": "_offset"}).fused_batch([replace()])
    assert with_offset(source) is None
    _, routers = regex().fused_batch([stamp()])
    assert routers(["not a record"]) is None


def test_what_it_does_not_fuse() -> None:
    assert insert().fused_batch([]) is None  # one transform alone
    assert insert().fused_batch([make(CastValue, {"spec": "id:string"})]) is None
    assert stamp().fused_batch([insert()]) is None  # a reshaper after a router reads the topic

    class Mine(InsertFieldValue):  # a subclass from elsewhere may change apply()
        pass

    mine = Mine()
    mine.configure({"topic.field": "_topic"})
    assert mine.fused_batch([replace()]) is None


@pytest.mark.parametrize("bad", ["timestamp", "value"])
def test_a_failing_record_fails_as_in_turn(bad: str) -> None:
    """A record with no timestamp (TimestampRouter) or a text value (InsertField) raises
    the error the transforms in turn raise; the runtime's chain then runs them in turn to
    name the failing one."""
    _, fused = insert().fused_batch([stamp()])
    batch = records(10, 1, odd=False)
    if bad == "timestamp":
        batch[4] = batch[4].new_record(timestamp=None)
    else:
        batch[4] = batch[4].new_record(value="text")
    with pytest.raises(DataError) as in_turn_error:
        in_turn([insert(), stamp()], batch)
    with pytest.raises(DataError) as fused_error:
        fused(batch)
    assert str(fused_error.value) == str(in_turn_error.value)
