"""Reading a batch gives what reading the same records one by one gives.

Plain records (every field read as it comes) take a faster Struct build in
``to_connect_batch``; these cases hold records on both sides of it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_converter_avro import AvroConverter, drop_mock_schema_registry
from kconnect_sdk import Schema, SchemaBuilder, Struct

FLAT = (
    SchemaBuilder.struct()
    .name("t.Flat")
    .field("id", Schema.INT64)
    .field("name", Schema.STRING)
    .field("note", Schema.OPTIONAL_STRING)
    .field("ratio", Schema.OPTIONAL_FLOAT64)
    .build()
)
NESTED = (
    SchemaBuilder.struct()
    .name("t.Outer")
    .field("inner", FLAT)
    .field("raw", Schema.BYTES)
    .field("tags", SchemaBuilder.array(Schema.STRING).build())
    .build()
)
ONE_FIELD = SchemaBuilder.struct().name("t.One").field("id", Schema.INT32).build()


@pytest.fixture
def converter() -> Iterator[AvroConverter]:
    url = f"mock://batch-{uuid.uuid4().hex}"
    c = AvroConverter()
    c.configure({"schema.registry.url": url}, False)
    yield c
    c.close()
    drop_mock_schema_registry(url)


def flat(i: int, note: str | None = "n", ratio: float | None = 0.5) -> Struct:
    return Struct(FLAT).put("id", i).put("name", f"x{i}").put("note", note).put("ratio", ratio)


def test_batch_reads_as_one_by_one(converter: AvroConverter) -> None:
    values: list[tuple[Schema, Any]] = [
        (FLAT, flat(1)),
        (FLAT, flat(2, note=None, ratio=None)),
        (NESTED, Struct(NESTED).put("inner", flat(3)).put("raw", b"\x00").put("tags", ["a"])),
        (ONE_FIELD, Struct(ONE_FIELD).put("id", 7)),
        (FLAT, flat(4)),
    ]
    data = converter.from_connect_batch([("t", s, v) for s, v in values])
    items = [("t", d) for d in data] + [("t", None)]
    batch = converter.to_connect_batch(items)
    assert batch == [converter.to_connect_data(t, d) for t, d in items]
    # (A schema read back carries the registry's version, so compare the fields.)
    assert [sv.value.to_dict() for sv in batch[:-1]] == [v.to_dict() for _, v in values]
    assert batch[1].value.get("note") is None
