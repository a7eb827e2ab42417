"""A batch written whole gives the bytes of the same records written one by one.

``from_connect_batch`` writes a batch of one schema (or of schemaless values) with no
Python code per record and falls back to record-by-record writing whenever a check fails;
these cases hold values on both sides of every check.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import DataError, Schema, SchemaBuilder, Struct

FLAT = (
    SchemaBuilder.struct()
    .name("t.Flat")
    .field("id", Schema.INT64)
    .field("small", Schema.INT8)
    .field("amount", Schema.FLOAT64)
    .field("name", Schema.STRING)
    .field("ok", Schema.BOOLEAN)
    .field("note", Schema.OPTIONAL_STRING)
    .field("ratio", Schema.OPTIONAL_FLOAT64)
    .field("level", SchemaBuilder.int32().optional().default_value(7).build())
    .build()
)


def flat(amount: float = 1.5, **fields: Any) -> Struct:
    values: dict[str, Any] = {
        "id": 1,
        "small": -3,
        "amount": amount,
        "name": "n",
        "ok": True,
        "note": "x",
        "ratio": 0.25,
        "level": 3,
    }
    values.update(fields)
    s = Struct(FLAT)
    for name, value in values.items():
        s.put(name, value)
    return s


@pytest.fixture(params=["true", "false"], ids=["envelope", "schemaless"])
def converter(request: pytest.FixtureRequest) -> JsonConverter:
    c = JsonConverter()
    c.configure({"schemas.enable": request.param}, False)
    return c


def one_by_one(converter: JsonConverter, items: list[tuple[str, Any, Any]]) -> list[Any]:
    return [converter.from_connect_data(t, s, v) for t, s, v in items]


@pytest.mark.parametrize(
    "structs",
    [
        pytest.param([flat(), flat(amount=2.25, name="m")], id="in range"),
        pytest.param([flat(), flat(amount=1e7)], id="double 1e7"),
        pytest.param([flat(amount=1.5e-5), flat()], id="double 1.5e-5"),
        pytest.param([flat(amount=-2.5e20)], id="negative large"),
        pytest.param([flat(amount=0.0), flat(amount=-0.0), flat(amount=5.0)], id="zeros"),
        pytest.param([flat(amount=math.nan), flat()], id="nan first"),
        pytest.param([flat(), flat(amount=math.inf)], id="infinity"),
        pytest.param([flat(note=None, ratio=None), flat(level=None)], id="nulls"),
        pytest.param([flat(ratio=1e-9, note=None)], id="optional double small"),
        pytest.param([flat(name='tab\there \x01 "q" \\ é ☃')], id="escapes"),
        pytest.param([flat(name="1e+5 0.0001 123456789.5")], id="number-like text"),
        pytest.param([flat(id=2**63 - 1, small=127)], id="int bounds"),
    ],
)
def test_flat_struct_batch_matches_one_by_one(
    converter: JsonConverter, structs: list[Struct]
) -> None:
    items = [("t", FLAT, s) for s in structs]
    assert converter.from_connect_batch(items) == one_by_one(converter, items)


def test_java_text_of_doubles_in_a_whole_batch() -> None:
    c = JsonConverter()
    c.configure({"schemas.enable": "false"}, False)
    out = c.from_connect_batch([("t", FLAT, flat(amount=3e9)), ("t", FLAT, flat())])
    assert out[0] is not None and b'"amount":3.0E9' in out[0]
    assert out[1] is not None and b'"amount":1.5,' in out[1]


def test_struct_of_an_equal_schema_and_mixed_schemas_match_one_by_one(
    converter: JsonConverter,
) -> None:
    twin = (
        SchemaBuilder.struct()
        .name("t.Flat")
        .field("id", Schema.INT64)
        .field("small", Schema.INT8)
        .field("amount", Schema.FLOAT64)
        .field("name", Schema.STRING)
        .field("ok", Schema.BOOLEAN)
        .field("note", Schema.OPTIONAL_STRING)
        .field("ratio", Schema.OPTIONAL_FLOAT64)
        .field("level", SchemaBuilder.int32().optional().default_value(7).build())
        .build()
    )
    other = Struct(twin)
    for name in ("id", "small", "amount", "name", "ok"):
        other.put(name, flat().get(name))
    items: list[tuple[str, Any, Any]] = [("t", FLAT, flat()), ("t", FLAT, other)]
    assert converter.from_connect_batch(items) == one_by_one(converter, items)
    mixed: list[tuple[str, Any, Any]] = [
        ("t", FLAT, flat()),
        ("t", Schema.STRING, "s"),
        ("t", None, {"a": 1}),
    ]
    assert converter.from_connect_batch(mixed) == one_by_one(converter, mixed)


def test_nested_struct_batch_matches_one_by_one(converter: JsonConverter) -> None:
    outer = SchemaBuilder.struct().field("inner", FLAT).field("tag", Schema.BYTES).build()
    values = [Struct(outer).put("inner", flat()).put("tag", b"\x00\xff") for _ in range(3)]
    items = [("t", outer, v) for v in values]
    assert converter.from_connect_batch(items) == one_by_one(converter, items)


@pytest.mark.parametrize(
    "values",
    [
        pytest.param([{"a": 1.5}, {"b": [1, "x", None, True]}], id="plain"),
        pytest.param([{"a": 20.990000000000002}, {"b": 0.0001}], id="long digits, small"),
        pytest.param([{"a": 1e20}, [1e-7], 12345678.5], id="scientific"),
        pytest.param([{"a": b"\x01\x02"}, {1: "int key"}], id="bytes and int keys"),
        pytest.param([{"a": "\x01"}, "\x7f\x1f"], id="control characters"),
        pytest.param([{"a": 1}, None, {"b": 2}], id="tombstone"),
    ],
)
def test_schemaless_batch_matches_one_by_one(converter: JsonConverter, values: list[Any]) -> None:
    items = [("t", None, v) for v in values]
    assert converter.from_connect_batch(items) == one_by_one(converter, items)


def test_bad_record_in_a_whole_batch_is_named_as_one_by_one() -> None:
    c = JsonConverter()
    c.configure({"schemas.enable": "false"}, False)
    bad = Struct(FLAT).put("name", "n")  # required fields left unset
    with pytest.raises(DataError, match="topic 'orders'") as caught:
        c.from_connect_batch([("orders", FLAT, flat()), ("orders", FLAT, bad)])
    with pytest.raises(DataError) as single:
        c.from_connect_data("orders", FLAT, bad)
    assert str(caught.value) == str(single.value)


def envelope(payload: bytes) -> bytes:
    """``payload`` in the envelope of FLAT, as the converter writes it."""
    c = JsonConverter()
    c.configure({}, False)
    written = c.from_connect_data("t", FLAT, flat())
    assert written is not None
    return written[: written.index(b',"payload":') + len(b',"payload":')] + payload + b"}"


GOOD = b'{"id":1,"small":2,"amount":1.5,"name":"a","ok":true,"note":null,"ratio":null,"level":3}'


@pytest.mark.parametrize(
    "payloads",
    [
        pytest.param([GOOD, GOOD.replace(b'"id":1', b'"id":2')], id="flat"),
        pytest.param([GOOD, GOOD.replace(b'"small":2', b'"small":300')], id="int8 out of range"),
        pytest.param([GOOD, GOOD.replace(b'"amount":1.5', b'"amount":2')], id="int for a double"),
        pytest.param([GOOD, GOOD.replace(b'"level":3', b'"level":null')], id="null with default"),
        pytest.param([GOOD, GOOD.replace(b'"id":1', b'"id":null')], id="null required"),
        pytest.param([GOOD, GOOD.replace(b',"note":null', b"")], id="field missing"),
        pytest.param([GOOD, GOOD.replace(b'"name":"a"', b'"name":5')], id="wrong class"),
        pytest.param([GOOD, b"[1]"], id="not an object"),
        pytest.param([GOOD, GOOD + b" "], id="trailing space"),
        pytest.param([GOOD, GOOD.replace(b'"id":1', b'"id":0012')], id="leading zeros"),
    ],
)
def test_envelope_batch_reads_as_one_by_one(payloads: list[bytes]) -> None:
    reader = JsonConverter()
    reader.configure({}, False)
    data = [envelope(p) for p in payloads]
    reader.to_connect_data("t", data[0])  # the first record read makes the envelope known
    items: list[tuple[str, bytes | None]] = [("t", d) for d in data * 3] + [("t", None)]
    expected: list[Any] = []
    for t, d in items:
        try:
            expected.append(reader.to_connect_data(t, d))
        except DataError as exc:
            expected.append(str(exc))
    errors = [e for e in expected if isinstance(e, str)]
    if errors:
        # The batch raises the first failing record's error, as one by one would.
        with pytest.raises(DataError) as caught:
            reader.to_connect_batch(items)
        assert str(caught.value) == errors[0]
        return
    got = reader.to_connect_batch(items)
    assert got == expected
    assert [sv.schema for sv in got] == [sv.schema for sv in expected]
