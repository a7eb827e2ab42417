"""Throughput of the JSON and Avro converters' batch methods against their raw libraries.

Run: .venv/bin/python bench/bench_converters.py [--records N]   (e.g. --records 2000 in CI)

Rates are records per CPU-second of this process (the goals are per core; on a shared
machine the wall clock also counts other processes' time), best of ``--rounds`` interleaved
rounds; the wall-clock rate is printed beside each.

Builds N records of a 10-field struct (about 200 bytes of JSON payload), converts them with
``from_connect_batch``/``to_connect_batch`` with schemas on and off, and times a plain
``orjson.dumps``/``orjson.loads`` of the same payload dicts as the floor. The Avro part
runs AvroConverter (Confluent wire format, ``mock://`` registry) against plain fastavro
``schemaless_writer``/``schemaless_reader`` of the same dicts with the same Avro schema, in
the same run. Everything runs in batches of 10,000 (the raw libraries too) and each batch's
output is kept until the next batch is made, as a task keeps a batch until it is written:
keeping a million outputs alive would time the allocation of fresh memory from the
operating system more than the conversion; for the same reason glibc's heap trimming is
turned off first (see ``keep_heap``; ``--trim-heap`` leaves it on). Prints records/s and
ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import io
import resource
import time
from collections.abc import Callable
from typing import Any

import fastavro
import orjson
from kconnect_converter_avro import AvroConverter
from kconnect_converter_json import JsonConverter
from kconnect_sdk import Schema, SchemaBuilder, Struct

# Kafka's Jackson-based JsonConverter on one core for this shape of record (fixed figures).
JAVA_ENCODE_RPS = 400_000
JAVA_DECODE_RPS = 250_000
BATCH = 10_000

SCHEMA = (
    SchemaBuilder.struct()
    .name("bench.Order")
    .field("id", Schema.INT64)
    .field("customer_id", Schema.INT64)
    .field("status", Schema.STRING)
    .field("amount", Schema.FLOAT64)
    .field("currency", Schema.STRING)
    .field("quantity", Schema.INT32)
    .field("express", Schema.BOOLEAN)
    .field("note", Schema.OPTIONAL_STRING)
    .field("created_at", Schema.INT64)
    .field("region", Schema.STRING)
    .build()
)


def keep_heap() -> bool:
    """Stop glibc from handing the heap's top back to the kernel after every batch.

    orjson starts each output in a 1 KiB buffer and shrinks it, so a batch of outputs
    grows the C heap by about 1 KiB per record; when the batch is freed glibc trims that
    top and the next batch faults every page in again. Whether it trims depends on what
    the process freed before (glibc raises its thresholds after freeing a large block),
    so the same case measured 0.15 or 1.8 us per record depending on the order of cases.
    A fixed trim threshold makes every case pay the same (none of it); a worker can do
    the same with ``MALLOC_TRIM_THRESHOLD_``. Returns whether glibc accepted it.
    """
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(
            libc.mallopt(m_trim_threshold, 512 << 20) and libc.mallopt(m_mmap_threshold, 32 << 20)
        )
    except (OSError, AttributeError):  # not glibc
        return False


def make_records(n: int) -> tuple[list[Struct], list[dict[str, Any]]]:
    structs: list[Struct] = []
    dicts: list[dict[str, Any]] = []
    for i in range(n):
        fields = {
            "id": 1_000_000 + i,
            "customer_id": 42_000 + i % 977,
            "status": "SHIPPED" if i % 3 else "PENDING",
            "amount": 19.99 + i % 100,
            "currency": "EUR",
            "quantity": i % 12 + 1,
            "express": i % 2 == 0,
            "note": f"leave at door, order {i}",
            "created_at": 1_700_000_000_000 + i,
            "region": "eu-north-1",
        }
        s = Struct(SCHEMA)
        for name, value in fields.items():
            s.put(name, value)
        structs.append(s)
        dicts.append(fields)
    return structs, dicts


class Suite:
    """Cases timed interleaved: every round runs each case once, in turn.

    A case's figure is its best round, in records per CPU-second of this process (one
    core): on a shared machine other work stretches the wall clock, and interleaving
    spreads any slow spell over all cases instead of the one that ran then. The
    wall-clock rate of the same best round is printed beside it, and the rate counting
    user time only: on this kind of virtual machine the kernel's time to hand back freed
    memory and fault it in again (system time) can exceed the conversion itself.
    """

    def __init__(self, n: int, rounds: int) -> None:
        self.n = n
        self.rounds = rounds
        self.cases: dict[str, Callable[[], int]] = {}
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self.user: dict[str, float] = {}

    def add(self, label: str, run: Callable[[], int]) -> None:
        self.cases[label] = run

    def run(self) -> None:
        n = self.n
        # Inputs are long-lived; keep the collector from rescanning them on every pass
        # (a running task's heap does not hold a million records either).
        gc.collect()
        gc.freeze()
        for _ in range(self.rounds):
            for label, run in self.cases.items():
                gc.collect()
                start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
                done = run()
                after = resource.getrusage(resource.RUSAGE_SELF)
                wall = time.perf_counter() - start
                user = after.ru_utime - before.ru_utime
                cpu = user + after.ru_stime - before.ru_stime
                if done != n:
                    raise SystemExit(f"{label}: {done} results for {n} records")
                self.cpu[label] = max(self.cpu.get(label, 0.0), n / max(cpu, 1e-9))
                self.wall[label] = max(self.wall.get(label, 0.0), n / max(wall, 1e-9))
                self.user[label] = max(self.user.get(label, 0.0), n / max(user, 1e-9))
        gc.unfreeze()

    def report(self, title: str, labels: list[str]) -> None:
        print(title)
        for label in labels:
            print(
                f"  {label:<48} {self.cpu[label]:>10,.0f} records/s per core"
                f"  ({self.user[label]:,.0f}/s user time only, {self.wall[label]:,.0f}/s wall)"
            )


def in_batches(items: list[Any], fn: Callable[[list[Any]], list[Any]]) -> list[Any]:
    """All results of ``fn`` over ``items`` in batches (untimed setup: outputs kept)."""
    out: list[Any] = []
    for i in range(0, len(items), BATCH):
        out.extend(fn(items[i : i + BATCH]))
    return out


def batched(items: list[Any], fn: Callable[[list[Any]], list[Any]]) -> Callable[[], int]:
    """A timed case: ``fn`` over pre-cut batches, each output kept until the next one."""
    chunks = [items[i : i + BATCH] for i in range(0, len(items), BATCH)]

    def run() -> int:
        done = 0
        for chunk in chunks:
            done += len(fn(chunk))
        return done

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; best counts")
    parser.add_argument("--no-avro", action="store_true", help="JSON converter only")
    parser.add_argument(
        "--trim-heap",
        action="store_true",
        help="leave glibc's heap trimming as it is (figures then depend on the order of cases)",
    )
    args = parser.parse_args()
    n, rounds, skip_avro = args.records, args.rounds, args.no_avro
    kept = False if args.trim_heap else keep_heap()
    print(f"glibc heap trimming: {'off (fixed threshold)' if kept else 'as configured'}")

    structs, dicts = make_records(n)
    plain_bytes = [orjson.dumps(d) for d in dicts]
    print(f"{n:,} records, payload {sum(map(len, plain_bytes)) / n:.0f} bytes of JSON on average")

    with_schema = JsonConverter()
    with_schema.configure({}, False)
    without = JsonConverter()
    without.configure({"schemas.enable": "false"}, False)

    enc_items = [("bench", SCHEMA, s) for s in structs]
    dumps, loads = orjson.dumps, orjson.loads

    on_bytes = in_batches(enc_items, with_schema.from_connect_batch)  # untimed: decode input
    plain_items = [("bench", b) for b in plain_bytes]
    on_items = [("bench", b) for b in on_bytes]
    dict_items = [("bench", None, d) for d in dicts]

    suite = Suite(n, rounds)
    suite.add("plain orjson.dumps(dict)", batched(dicts, lambda c: [dumps(d) for d in c]))
    suite.add(
        "from_connect_batch, schemas.enable=false",
        batched(enc_items, without.from_connect_batch),
    )
    suite.add(
        "from_connect_batch, schema None (dicts)",
        batched(dict_items, without.from_connect_batch),
    )
    suite.add(
        "from_connect_batch, schemas.enable=true",
        batched(enc_items, with_schema.from_connect_batch),
    )
    suite.add("plain orjson.loads(bytes)", batched(plain_bytes, lambda c: [loads(b) for b in c]))
    suite.add(
        "to_connect_batch, schemas.enable=false",
        batched(plain_items, without.to_connect_batch),
    )
    suite.add(
        "to_connect_batch, schemas.enable=true (Structs)",
        batched(on_items, with_schema.to_connect_batch),
    )
    suite.run()
    labels = list(suite.cases)
    suite.report("encode (Connect -> bytes)", labels[:4])
    suite.report("decode (bytes -> Connect)", labels[4:])
    plain_enc, off_enc, _, on_enc, plain_dec, off_dec, on_dec = (suite.cpu[x] for x in labels)

    print("ratios (per core, best of each case's rounds)")
    print(f"  schemaless encode: plain orjson is {plain_enc / off_enc:.2f}x faster (goal <= 1.3x)")
    print(f"  schemaless decode: plain orjson is {plain_dec / off_dec:.2f}x faster (goal <= 1.2x)")
    print(
        f"  envelope encode: {on_enc:,.0f}/s, {on_enc / JAVA_ENCODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_ENCODE_RPS:,}/s; goal >= 1.0x)"
    )
    print(
        f"  envelope decode: {on_dec:,.0f}/s, {on_dec / JAVA_DECODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_DECODE_RPS:,}/s; goal >= 1.0x)"
    )

    if not skip_avro:
        bench_avro(n, rounds, dicts, enc_items)


def bench_avro(n: int, rounds: int, dicts: list[dict[str, Any]], enc_items: list[Any]) -> None:
    converter = AvroConverter()
    converter.configure({"schema.registry.url": "mock://bench"}, False)
    parsed = fastavro.parse_schema(converter.avro_data.from_connect_schema(SCHEMA))
    writer, reader = fastavro.schemaless_writer, fastavro.schemaless_reader
    bytes_io = io.BytesIO

    def plain_encode(chunk: list[dict[str, Any]]) -> list[Any]:
        out = []
        for d in chunk:
            buf = bytes_io()
            writer(buf, parsed, d)
            out.append(buf.getvalue())
        return out

    bodies = plain_encode(dicts)
    items = [("bench", b) for b in in_batches(enc_items, converter.from_connect_batch)]
    suite = Suite(n, rounds)
    suite.add("plain fastavro schemaless_writer(dict)", batched(dicts, plain_encode))
    suite.add(
        "AvroConverter.from_connect_batch",
        batched(enc_items, converter.from_connect_batch),
    )
    suite.add(
        "plain fastavro schemaless_reader(bytes)",
        batched(bodies, lambda c: [reader(bytes_io(b), parsed) for b in c]),
    )
    suite.add(
        "AvroConverter.to_connect_batch (Structs)",
        batched(items, converter.to_connect_batch),
    )
    suite.run()
    labels = list(suite.cases)
    suite.report("avro encode (Connect -> bytes)", labels[:2])
    suite.report("avro decode (bytes -> Connect)", labels[2:])
    plain_enc, conv_enc, plain_dec, conv_dec = (suite.cpu[x] for x in labels)
    print("avro ratios")
    print(f"  encode: converter at {conv_enc / plain_enc:.2f}x plain fastavro (goal >= 0.7x)")
    print(f"  decode: converter at {conv_dec / plain_dec:.2f}x plain fastavro (goal >= 0.7x)")


if __name__ == "__main__":
    main()
