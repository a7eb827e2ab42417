"""Throughput of the JSON and Avro converters' batch methods against their raw libraries.

Run: .venv/bin/python bench/bench_converters.py [--records N]   (e.g. --records 2000 in CI)

Builds N records of a 10-field struct (about 200 bytes of JSON payload), converts them with
``from_connect_batch``/``to_connect_batch`` with schemas on and off, and times a plain
``orjson.dumps``/``orjson.loads`` of the same payload dicts as the floor. The Avro part
runs AvroConverter (Confluent wire format, ``mock://`` registry) against plain fastavro
``schemaless_writer``/``schemaless_reader`` of the same dicts with the same Avro schema, in
the same run. Outputs are kept in lists, as a real batch keeps them. Prints records/s and
ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import gc
import io
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


def timed(label: str, n: int, run: Callable[[], list[Any]]) -> float:
    gc.collect()
    start = time.perf_counter()
    kept = run()
    elapsed = time.perf_counter() - start
    assert len(kept) == n
    rps = n / elapsed
    print(f"  {label:<44} {rps:>12,.0f} records/s")
    return rps


def in_batches(items: list[Any], fn: Callable[[list[Any]], list[Any]]) -> list[Any]:
    out: list[Any] = []
    for i in range(0, len(items), BATCH):
        out.extend(fn(items[i : i + BATCH]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    n = parser.parse_args().records

    structs, dicts = make_records(n)
    plain_bytes = [orjson.dumps(d) for d in dicts]
    # Setup objects are long-lived; keep the collector from rescanning them on every pass.
    gc.freeze()
    print(f"{n:,} records, payload {sum(map(len, plain_bytes)) / n:.0f} bytes of JSON on average")

    with_schema = JsonConverter()
    with_schema.configure({}, False)
    without = JsonConverter()
    without.configure({"schemas.enable": "false"}, False)

    enc_items = [("bench", SCHEMA, s) for s in structs]
    dumps, loads = orjson.dumps, orjson.loads

    # Grow the heap once, untimed, so the first measurement does not pay for it alone.
    warm = [dumps(d) for d in dicts]
    del warm
    print("encode (Connect -> bytes)")
    plain_enc = timed("plain orjson.dumps(dict)", n, lambda: [dumps(d) for d in dicts])
    off_enc = timed(
        "from_connect_batch, schemas.enable=false",
        n,
        lambda: in_batches(enc_items, without.from_connect_batch),
    )
    on_bytes: list[bytes] = []

    def encode_on() -> list[Any]:
        on_bytes.extend(in_batches(enc_items, with_schema.from_connect_batch))
        return on_bytes

    on_enc = timed("from_connect_batch, schemas.enable=true", n, encode_on)

    print("decode (bytes -> Connect)")
    plain_dec = timed("plain orjson.loads(bytes)", n, lambda: [loads(b) for b in plain_bytes])
    plain_items = [("bench", b) for b in plain_bytes]
    off_dec = timed(
        "to_connect_batch, schemas.enable=false",
        n,
        lambda: in_batches(plain_items, without.to_connect_batch),
    )
    on_items = [("bench", b) for b in on_bytes]
    on_dec = timed(
        "to_connect_batch, schemas.enable=true (Structs)",
        n,
        lambda: in_batches(on_items, with_schema.to_connect_batch),
    )

    print("ratios")
    print(f"  schemaless encode: plain orjson is {plain_enc / off_enc:.2f}x faster (goal <= 1.5x)")
    print(f"  schemaless decode: plain orjson is {plain_dec / off_dec:.2f}x faster (goal <= 1.5x)")
    print(
        f"  envelope encode: {on_enc / JAVA_ENCODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_ENCODE_RPS:,} records/s; goal >= 1.0x)"
    )
    print(
        f"  envelope decode: {on_dec / JAVA_DECODE_RPS:.2f}x Kafka's Java figure "
        f"({JAVA_DECODE_RPS:,} records/s; goal >= 1.0x)"
    )

    bench_avro(n, structs, dicts, enc_items)


def bench_avro(
    n: int, structs: list[Struct], dicts: list[dict[str, Any]], enc_items: list[Any]
) -> None:
    converter = AvroConverter()
    converter.configure({"schema.registry.url": "mock://bench"}, False)
    parsed = fastavro.parse_schema(converter.avro_data.from_connect_schema(SCHEMA))
    writer, reader = fastavro.schemaless_writer, fastavro.schemaless_reader
    bytes_io = io.BytesIO

    def plain_encode() -> list[Any]:
        out = []
        for d in dicts:
            buf = bytes_io()
            writer(buf, parsed, d)
            out.append(buf.getvalue())
        return out

    print("avro encode (Connect -> bytes)")
    plain_enc = timed("plain fastavro schemaless_writer(dict)", n, plain_encode)
    framed: list[bytes] = []

    def encode() -> list[Any]:
        framed.extend(in_batches(enc_items, converter.from_connect_batch))
        return framed

    conv_enc = timed("AvroConverter.from_connect_batch", n, encode)

    bodies = plain_encode()
    print("avro decode (bytes -> Connect)")
    plain_dec = timed(
        "plain fastavro schemaless_reader(bytes)",
        n,
        lambda: [reader(bytes_io(b), parsed) for b in bodies],
    )
    items = [("bench", b) for b in framed]
    conv_dec = timed(
        "AvroConverter.to_connect_batch (Structs)",
        n,
        lambda: in_batches(items, converter.to_connect_batch),
    )
    print("avro ratios")
    print(f"  encode: converter at {conv_enc / plain_enc:.2f}x plain fastavro (goal >= 0.7x)")
    print(f"  decode: converter at {conv_dec / plain_dec:.2f}x plain fastavro (goal >= 0.7x)")


if __name__ == "__main__":
    main()
