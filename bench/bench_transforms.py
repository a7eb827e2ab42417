"""Throughput of a typical transform chain, schemaless and with schemas.

Runs InsertField$Value -> ReplaceField$Value -> RegexRouter -> TimestampRouter over
``--records`` sink records in batches, as the runtime runs a connector's chain
(``TransformChain.apply_batch``, which holds off the garbage collector for the batch), and
prints records/s for the whole chain against the goal; then the cost of each transform
(timed stage by stage, collector held off per batch as in the chain) and the rate of the
same transforms with the collector running throughout. Times are CPU time of this process
(the goals are per core; on a shared machine the wall clock also counts other processes),
with the wall-clock rate beside. Prints figures only; asserts no time.

    .venv/bin/python bench/bench_transforms.py [--records 1000000] [--batch 10000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from kconnect_runtime.tasks._chain import TransformChain, _Stage, gc_paused
from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct, Transformation
from kconnect_transforms import InsertFieldValue, RegexRouter, ReplaceFieldValue, TimestampRouter

GOALS = {"schemaless": 400_000, "with schemas": 250_000}

CHAIN: list[tuple[str, Callable[[], Transformation[Any]], dict[str, str]]] = [
    (
        "InsertField$Value",
        InsertFieldValue,
        {"topic.field": "_topic", "partition.field": "_partition", "offset.field": "_offset"},
    ),
    ("ReplaceField$Value", ReplaceFieldValue, {"exclude": "internal", "renames": "id:order_id"}),
    ("RegexRouter", RegexRouter, {"regex": "orders-(.*)", "replacement": "$1-orders"}),
    ("TimestampRouter", TimestampRouter, {}),
]

SCHEMA = (
    SchemaBuilder.struct()
    .name("com.example.Order")
    .field("id", Schema.INT64)
    .field("customer", Schema.STRING)
    .field("amount", Schema.FLOAT64)
    .field("status", Schema.STRING)
    .field("internal", Schema.OPTIONAL_STRING)
    .field("note", Schema.OPTIONAL_STRING)
    .build()
)


def make_batch(size: int, *, with_schema: bool) -> list[SinkRecord]:
    records = []
    for i in range(size):
        fields = {
            "id": i,
            "customer": f"c{i % 97}",
            "amount": i * 0.5,
            "status": "open",
            "internal": "x",
            "note": None,
        }
        value: Any = fields
        if with_schema:
            value = Struct(SCHEMA)
            for k, v in fields.items():
                value.put(k, v)
        records.append(
            SinkRecord(
                topic=f"orders-{i % 4}",
                kafka_partition=i % 8,
                kafka_offset=i,
                timestamp=1_700_000_000_000 + i * 1000,
                value_schema=SCHEMA if with_schema else None,
                value=value,
            )
        )
    return records


def build_chain() -> list[tuple[str, Transformation[Any]]]:
    chain = []
    for name, factory, config in CHAIN:
        transform = factory()
        transform.configure(config)
        chain.append((name, transform))
    return chain


def copy_reference(batch: list[SinkRecord]) -> float:
    """Seconds per record for ``record.new_record(topic=...)``: the SDK's public record copy."""
    started = time.process_time()
    for _ in range(3):
        [r.new_record(topic="x") for r in batch]
    return (time.process_time() - started) / (3 * len(batch))


def run(total: int, batch_size: int, *, with_schema: bool) -> None:
    label = "with schemas" if with_schema else "schemaless"
    batch = make_batch(batch_size, with_schema=with_schema)
    rounds = max(1, total // batch_size)
    processed = rounds * batch_size
    # The chain as a task runs it.
    runtime_chain: TransformChain[Any] = TransformChain(
        [_Stage(name, t, None, False) for name, t in build_chain()]
    )
    runtime_chain.apply_batch(batch[:100])  # warm-up: the schema and topic caches
    started = time.process_time()
    wall_started = time.perf_counter()
    for _ in range(rounds):
        runtime_chain.apply_batch(batch)
    elapsed = time.process_time() - started
    wall = time.perf_counter() - wall_started
    rate = processed / elapsed
    goal = GOALS[label]
    # The same chain with each transform's apply_batch in turn (no fused loop), after it.
    unfused: TransformChain[Any] = TransformChain(
        [_Stage(name, t, None, False) for name, t in build_chain()], fuse=False
    )
    unfused.apply_batch(batch[:100])
    started = time.process_time()
    for _ in range(rounds):
        unfused.apply_batch(batch)
    unfused_rate = processed / (time.process_time() - started)
    print(f"\n{label}: {processed:,} records through {len(CHAIN)} transforms")
    print(
        f"  chain (TransformChain.apply_batch): {rate:,.0f} records/s per core ({elapsed:.2f} s "
        f"CPU; goal {goal:,}/s, ratio {rate / goal:.2f}; {processed / wall:,.0f} records/s wall)"
    )
    print(
        f"  the same chain unfused (fuse=False: each apply_batch in turn): "
        f"{unfused_rate:,.0f} records/s per core; fused / unfused {rate / unfused_rate:.2f}"
    )
    # Each transform's share: the same chain, timed stage by stage (collector held off
    # per batch as in the chain), then once more with the collector running throughout.
    chain = build_chain()
    stage_seconds = {name: 0.0 for name, _ in chain}
    for _, transform in chain:
        transform.apply_batch(batch[:100])
    for _ in range(rounds):
        records: list[Any] = batch
        with gc_paused():
            for name, transform in chain:
                t0 = time.process_time()
                records = transform.apply_batch(records)
                stage_seconds[name] += time.process_time() - t0
    staged = sum(stage_seconds.values())
    started = time.process_time()
    for _ in range(rounds):
        records = batch
        for _, transform in chain:
            records = transform.apply_batch(records)
    collecting = time.process_time() - started
    print(
        f"  the same transforms with the collector running throughout: "
        f"{processed / collecting:,.0f} records/s per core"
    )
    reference = copy_reference(batch)
    print(
        f"  reference: record.new_record(topic=...) alone costs {reference * 1e6:.2f} us/record "
        "here (the transforms use a cheaper slot copy of their own)"
    )
    for name, seconds in stage_seconds.items():
        print(
            f"  {name:<20} {seconds / processed * 1e6:6.2f} us/record "
            f"({processed / seconds:,.0f} records/s, {seconds / staged:5.1%} of chain)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=10_000)
    args = parser.parse_args()
    run(args.records, args.batch, with_schema=False)
    run(args.records, args.batch, with_schema=True)


if __name__ == "__main__":
    main()
