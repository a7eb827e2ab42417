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
the same run. A third part writes Debezium MySQL change events (key and envelope:
``before``/``after`` rows with nullable columns, a decimal and io.debezium.time fields, the
source block, creates/updates/deletes in turn) with schemas, whole batches, batches with
Debezium's tombstones, and one by one, and reads the envelopes back to Structs (with and
without the tombstones).
Everything runs in batches of 10,000 (the raw libraries too) and each batch's output is
kept until the next batch is made, as a task keeps a batch until it is written:
keeping a million outputs alive would time the allocation of fresh memory from the
operating system more than the conversion; for the same reason glibc's heap trimming is
turned off first (see ``keep_heap``; ``--trim-heap`` leaves it on). Prints records/s and
ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import decimal
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
from kconnect_sdk import Decimal, Schema, SchemaBuilder, Struct

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


def json_path() -> str:
    """Which JsonConverter code runs: compiled (kconnect-speedups) or pure Python."""
    from kconnect_converter_json import _codec

    if _codec.SPEEDUPS is not None:
        return f"compiled ({_codec.SPEEDUPS.__name__}; KCONNECT_SPEEDUPS=0 for pure Python)"
    return "pure Python (kconnect-speedups not installed, or KCONNECT_SPEEDUPS=0)"


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
    parser.add_argument("--no-debezium", action="store_true", help="skip the Debezium events")
    parser.add_argument(
        "--debezium-records",
        type=int,
        default=200_000,
        help="Debezium change events (at most --records; each holds four Structs)",
    )
    parser.add_argument(
        "--trim-heap",
        action="store_true",
        help="leave glibc's heap trimming as it is (figures then depend on the order of cases)",
    )
    args = parser.parse_args()
    n, rounds, skip_avro = args.records, args.rounds, args.no_avro
    kept = False if args.trim_heap else keep_heap()
    print(f"glibc heap trimming: {'off (fixed threshold)' if kept else 'as configured'}")
    print(f"JSON converter path: {json_path()}")

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
    plain_enc, off_enc, dict_enc, on_enc, plain_dec, off_dec, on_dec = (
        suite.cpu[x] for x in labels
    )

    print("ratios (per core, best of each case's rounds)")
    print(f"  schemaless encode: plain orjson is {plain_enc / off_enc:.2f}x faster (goal <= 1.3x)")
    print(
        f"  schemaless dicts encode (schema None): plain orjson is {plain_enc / dict_enc:.2f}x faster"
    )
    print(f"  schemaless decode: plain orjson is {plain_dec / off_dec:.2f}x faster (goal <= 1.2x)")
    print(
        f"  envelope encode: {on_enc:,.0f}/s, {on_enc / JAVA_ENCODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_ENCODE_RPS:,}/s; goal >= 1.0x)"
    )
    print(
        f"  envelope decode: {on_dec:,.0f}/s, {on_dec / JAVA_DECODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_DECODE_RPS:,}/s; goal >= 1.0x)"
    )

    if not args.no_debezium:
        bench_debezium(min(n, args.debezium_records), rounds)
    if not skip_avro:
        bench_avro(n, rounds, dicts, enc_items)


def _debezium_schemas() -> tuple[Schema, Schema]:
    """A Debezium MySQL table's key and envelope schemas (ten columns, a few nullable)."""
    row = (
        SchemaBuilder.struct()
        .name("bench.inventory.orders.Value")
        .field("id", Schema.INT64)
        .field("name", Schema.STRING)
        .field("qty", SchemaBuilder.int32().default_value(1).build())
        .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "12").build())
        .field("price", Schema.OPTIONAL_FLOAT64)
        .field("flag", Schema.BOOLEAN)
        .field("day", SchemaBuilder.int32().name("io.debezium.time.Date").version(1).build())
        .field(
            "created", SchemaBuilder.int64().name("io.debezium.time.Timestamp").version(1).build()
        )
        .field("code", Schema.OPTIONAL_INT64)
        .field("note", Schema.OPTIONAL_STRING)
        .optional()
        .build()
    )
    snapshot = (
        SchemaBuilder.string()
        .name("io.debezium.data.Enum")
        .version(1)
        .parameter(
            "allowed",
            "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental",
        )
        .default_value("false")
        .optional()
        .build()
    )
    source = (
        SchemaBuilder.struct()
        .name("io.debezium.connector.mysql.Source")
        .version(1)
        .field("version", Schema.STRING)
        .field("connector", Schema.STRING)
        .field("name", Schema.STRING)
        .field("ts_ms", Schema.INT64)
        .field("snapshot", snapshot)
        .field("db", Schema.STRING)
        .field("sequence", Schema.OPTIONAL_STRING)
        .field("ts_us", Schema.OPTIONAL_INT64)
        .field("ts_ns", Schema.OPTIONAL_INT64)
        .field("table", Schema.OPTIONAL_STRING)
        .field("server_id", Schema.INT64)
        .field("gtid", Schema.OPTIONAL_STRING)
        .field("file", Schema.STRING)
        .field("pos", Schema.INT64)
        .field("row", Schema.INT32)
        .field("thread", Schema.OPTIONAL_INT64)
        .field("query", Schema.OPTIONAL_STRING)
        .build()
    )
    block = (
        SchemaBuilder.struct()
        .optional()
        .name("event.block")
        .version(1)
        .field("id", Schema.STRING)
        .field("total_order", Schema.INT64)
        .field("data_collection_order", Schema.INT64)
        .build()
    )
    envelope = (
        SchemaBuilder.struct()
        .name("bench.inventory.orders.Envelope")
        .version(2)
        .field("before", row)
        .field("after", row)
        .field("source", source)
        .field("transaction", block)
        .field("op", Schema.STRING)
        .field("ts_ms", Schema.OPTIONAL_INT64)
        .field("ts_us", Schema.OPTIONAL_INT64)
        .field("ts_ns", Schema.OPTIONAL_INT64)
        .build()
    )
    key = (
        SchemaBuilder.struct().name("bench.inventory.orders.Key").field("id", Schema.INT64).build()
    )
    return key, envelope


def filled(schema: Schema, **values: Any) -> Struct:
    """A Struct of ``schema`` with ``values`` put (fields left out stay null)."""
    struct = Struct(schema)
    for name, value in values.items():
        struct.put(name, value)
    return struct


def make_debezium(n: int) -> tuple[list[Any], list[Any]]:
    """``n`` change events, creates/updates/deletes in turn: (key items, envelope items)."""
    key_schema, envelope = _debezium_schemas()
    row_schema = envelope.fields[0].schema
    source_schema = envelope.fields[2].schema

    def row(i: int, version: int) -> Struct:
        return filled(
            row_schema,
            id=i,
            name=f"order {i}",
            qty=i % 7 + version,
            amount=decimal.Decimal(i % 10_000 + version).scaleb(-2),
            price=None if i % 6 == 0 else 9.5 + i % 90,
            flag=i % 2 == 0,
            day=19_000 + i % 365,
            created=1_700_000_000_000 + i,
            code=None if i % 4 == 0 else i * 31,
            note=None if i % 5 == 0 else f"note {i}",
        )

    keys: list[Any] = []
    values: list[Any] = []
    for i in range(n):
        op = "cud"[i % 3]
        ts = 1_700_000_000_000 + i
        source = filled(
            source_schema,
            version="3.5.0.Final",
            connector="mysql",
            name="bench",
            ts_ms=ts,
            snapshot="false" if i % 2 else None,
            db="inventory",
            ts_us=ts * 1000,
            ts_ns=ts * 1_000_000,
            table="orders",
            server_id=1,
            file="mysql-bin.000003",
            pos=4 + i * 200,
            row=0,
        )
        event = filled(
            envelope,
            before=None if op == "c" else row(i, 0),
            after=None if op == "d" else row(i, 1),
            source=source,
            op=op,
            ts_ms=ts + 5,
            ts_us=(ts + 5) * 1000,
            ts_ns=(ts + 5) * 1_000_000,
        )
        keys.append(("bench.inventory.orders", key_schema, Struct(key_schema).put("id", i)))
        values.append(("bench.inventory.orders", envelope, event))
    return keys, values


def bench_debezium(n: int, rounds: int) -> None:
    """Debezium MySQL change events (keys and envelopes) through JsonConverter with schemas."""
    keys, values = make_debezium(n)
    converter = JsonConverter()
    converter.configure({}, False)
    key_converter = JsonConverter()
    key_converter.configure({}, True)
    # The value stream with Debezium's tombstone after each delete: a batch of two schemas.
    with_tombstones: list[Any] = []
    for item in values:
        with_tombstones.append(item)
        if item[2].get("op") == "d":
            with_tombstones.append((item[0], None, None))
    written = in_batches(values, converter.from_connect_batch)
    tombstone_written = in_batches(with_tombstones, converter.from_connect_batch)
    size = sum(map(len, written))
    print(f"{n:,} Debezium change events, envelope {size / n:.0f} bytes of JSON on average")
    # What a sink's consumer of these events reads: the same bytes back to Structs.
    reader = JsonConverter()
    reader.configure({}, False)
    read_items = [(item[0], data) for item, data in zip(values, written, strict=True)]
    read_with_tombstones = [
        (item[0], data) for item, data in zip(with_tombstones, tombstone_written, strict=True)
    ]
    suite = Suite(n, rounds)
    suite.add("from_connect_batch, Debezium keys", batched(keys, key_converter.from_connect_batch))
    suite.add(
        "from_connect_batch, Debezium envelopes", batched(values, converter.from_connect_batch)
    )
    tombstone_run = batched(with_tombstones, converter.from_connect_batch)

    def run_with_tombstones() -> int:
        tombstone_run()
        return n  # rates per change event; the tombstones ride along

    suite.add("from_connect_batch, envelopes + tombstones", run_with_tombstones)
    suite.add(
        "from_connect_data, Debezium envelopes (one by one)",
        batched(values, lambda c: [converter.from_connect_data(t, s, v) for t, s, v in c]),
    )
    suite.add(
        "to_connect_batch, Debezium envelopes (Structs)",
        batched(read_items, reader.to_connect_batch),
    )
    read_tombstones_run = batched(read_with_tombstones, reader.to_connect_batch)

    def read_with_tombstones_run() -> int:
        read_tombstones_run()
        return n  # rates per change event, as above

    suite.add("to_connect_batch, envelopes + tombstones", read_with_tombstones_run)
    suite.run()
    labels = list(suite.cases)
    suite.report("Debezium change events (Connect -> bytes, schemas.enable=true)", labels[:-2])
    suite.report("Debezium change events (bytes -> Connect, schemas.enable=true)", labels[-2:])


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
