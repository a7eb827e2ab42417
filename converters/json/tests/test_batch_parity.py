"""A batch written whole gives the bytes of the same records written one by one.

``from_connect_batch`` writes a batch of one schema (or of schemaless values) with no
Python code per record and falls back to record-by-record writing whenever a check fails;
these cases hold values on both sides of every check.
"""

from __future__ import annotations

import datetime
import decimal
import math
from typing import Any

import pytest
from kconnect_converter_json import JsonConverter, _codec
from kconnect_sdk import DataError, Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp

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


@pytest.mark.parametrize(
    ("field", "value"), [("small", 128), ("small", -129), ("id", 2**63), ("level", 2**31)]
)
def test_int_out_of_its_range_in_a_batch_fails_as_one_by_one(field: str, value: int) -> None:
    """Values filled in directly (no Struct.put check): the batch must not write what the
    record alone refuses."""
    bad = flat()
    bad._values[FLAT.field(field).index] = value  # type: ignore[union-attr]
    c = JsonConverter()
    c.configure({"schemas.enable": "false"}, False)
    with pytest.raises(DataError, match="out of range") as caught:
        c.from_connect_batch([("t", FLAT, flat()), ("t", FLAT, bad)])
    with pytest.raises(DataError) as single:
        c.from_connect_data("t", FLAT, bad)
    assert str(caught.value) == str(single.value)


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


# -- nested and nullable structs: the generated encoders against the field-by-field one ----

POINT = (
    SchemaBuilder.struct()
    .name("t.Point")
    .optional()
    .field("x", Schema.FLOAT64)
    .field("y", Schema.FLOAT64)
    .field("srid", Schema.OPTIONAL_INT32)
    .build()
)
_LABEL_BUILDER = SchemaBuilder.struct().name("t.Label").optional().field("text", Schema.STRING)
LABEL = _LABEL_BUILDER.default_value(Struct(_LABEL_BUILDER).put("text", "none")).build()
ROW = (
    SchemaBuilder.struct()
    .name("t.Row")
    .optional()
    .field("id", Schema.INT64)
    .field("i8", Schema.OPTIONAL_INT8)
    .field("i16", Schema.INT16)
    .field("i32", SchemaBuilder.int32().default_value(5).build())
    .field("f32", Schema.OPTIONAL_FLOAT32)
    .field("f64", Schema.FLOAT64)
    .field("flag", Schema.OPTIONAL_BOOLEAN)
    .field("text", SchemaBuilder.string().optional().default_value("dflt").build())
    .field("raw", Schema.OPTIONAL_BYTES)
    .field("amount", Decimal.builder(2).optional().build())
    .field("big", Decimal.builder(0).parameter("connect.decimal.precision", "40").build())
    .field("day", Date.builder().optional().build())
    .field("tod", Time.builder().optional().build())
    .field("at", Timestamp.builder().build())
    .field("dbz_day", SchemaBuilder.int32().name("io.debezium.time.Date").version(1).build())
    .field(
        "dbz_micros",
        SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").version(1).optional().build(),
    )
    .field(
        "zoned",
        SchemaBuilder.string()
        .name("io.debezium.time.ZonedTimestamp")
        .version(1)
        .optional()
        .build(),
    )
    .field("tags", SchemaBuilder.array(Schema.STRING).optional().build())
    .field("attrs", SchemaBuilder.map(Schema.STRING, Schema.INT32).optional().build())
    .field("pairs", SchemaBuilder.map(Schema.INT32, Schema.STRING).optional().build())
    .field("point", POINT)
    .field("label", LABEL)
    .build()
)
SOURCE = (
    SchemaBuilder.struct()
    .name("t.Source")
    .field("name", Schema.STRING)
    .field(
        "snapshot",
        SchemaBuilder.string()
        .name("io.debezium.data.Enum")
        .version(1)
        .parameter("allowed", "true,last,false")
        .default_value("false")
        .optional()
        .build(),
    )
    .field("gtid", Schema.OPTIONAL_STRING)
    .field("pos", Schema.INT64)
    .field("row", Schema.INT32)
    .field("thread", Schema.OPTIONAL_INT64)
    .build()
)
BLOCK = (
    SchemaBuilder.struct()
    .name("t.block")
    .optional()
    .field("id", Schema.STRING)
    .field("total_order", Schema.INT64)
    .build()
)
ENVELOPE = (
    SchemaBuilder.struct()
    .name("t.Envelope")
    .version(2)
    .field("before", ROW)
    .field("after", ROW)
    .field("source", SOURCE)
    .field("transaction", BLOCK)
    .field("op", Schema.STRING)
    .field("ts_ms", Schema.OPTIONAL_INT64)
    .build()
)


def put_all(schema: Schema, **values: Any) -> Struct:
    s = Struct(schema)
    for name, value in values.items():
        s.put(name, value)
    return s


def row(**changes: Any) -> Struct:
    values: dict[str, Any] = {
        "id": 7,
        "i8": -8,
        "i16": 300,
        "i32": 70_000,
        "f32": 1.25,
        "f64": 2.5,
        "flag": False,
        "text": "héllo \x01",
        "raw": b"\x00\xffab",
        "amount": decimal.Decimal("-12.30"),
        "big": decimal.Decimal("123456789012345678901234567890123"),
        "day": datetime.date(2024, 2, 29),
        "tod": datetime.time(13, 14, 15, 16000),
        "at": datetime.datetime(2024, 2, 29, 1, 2, 3, 4000, tzinfo=datetime.UTC),
        "dbz_day": 19_782,
        "dbz_micros": 1_709_168_523_004_000,
        "zoned": "2024-02-29T01:02:03.004Z",
        "tags": ["a", "b"],
        "attrs": {"k": 1},
        "pairs": {1: "one"},
        "point": put_all(POINT, x=1.5, y=-2.0, srid=4326),
        "label": put_all(LABEL, text="hi"),
    }
    values.update(changes)
    return put_all(ROW, **values)


def nulls_row() -> Struct:
    """Every nullable field of ROW null (required ones set; i32 null: has a default)."""
    return put_all(
        ROW,
        id=1,
        i16=2,
        f64=0.5,
        big=decimal.Decimal(0),
        at=datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC),
        dbz_day=0,
    )


def event(op: str = "u", before: Any = None, after: Any = None, **source: Any) -> Struct:
    src: dict[str, Any] = {"name": "db", "pos": 4, "row": 0, "snapshot": "true"}
    src.update(source)
    envelope = put_all(ENVELOPE, source=put_all(SOURCE, **src), op=op, ts_ms=1_700_000_000_000)
    # Rows set without Struct.put's checks, so that bad rows reach the converter.
    envelope._values[0:2] = [before, after]
    return envelope


def raw(schema: Schema, values: list[Any]) -> Struct:
    """A Struct filled without Struct.put's checks, as connectors building rows do."""
    s = Struct(schema)
    s._values = values
    return s


def with_field(struct: Struct, name: str, value: Any) -> Struct:
    copy = raw(struct.schema, list(struct._values))
    field = struct.schema.field(name)
    assert field is not None
    copy._values[field.index] = value
    return copy


class OddDecimal(decimal.Decimal):
    """A Decimal whose text is not its value: only its digits may count."""

    def __str__(self) -> str:
        return "9.99"


ROW_TWIN = SchemaBuilder.struct().name("t.Row").optional()
for _f in ROW.fields:
    ROW_TWIN.field(_f.name, _f.schema)
ROW_TWIN_SCHEMA = ROW_TWIN.build()

EVENTS: dict[str, list[Struct]] = {
    "create, update, delete": [
        event("c", after=row()),
        event("u", before=row(), after=row(f64=3.75, text="x")),
        event("d", before=row()),
    ],
    "all nullable fields null": [event("c", after=nulls_row()), event("d", before=nulls_row())],
    "source nulls and defaults": [
        event("c", after=row(), snapshot=None, gtid=None, thread=None),
        event("c", after=row(), gtid="0-1-2", thread=9),
    ],
    "transaction block": [
        with_field(event("c", after=row()), "transaction", put_all(BLOCK, id="tx", total_order=3))
    ],
    "doubles in scientific notation": [
        event("c", after=row(f64=1e7, f32=3.0e10)),
        event("c", after=row(f64=-1.5e-5, f32=1e-9)),
        event("c", after=row(f64=0.0, f32=-0.0)),
        event("c", after=row(point=put_all(POINT, x=1e300, y=5e-324))),
    ],
    "not finite doubles": [event("c", after=row(f64=math.nan, f32=math.inf))],
    "int in a double field": [event("c", after=with_field(row(), "f64", 3))],
    "bytearray and memoryview": [
        event("c", after=with_field(row(), "raw", bytearray(b"\x01\x02"))),
        event("c", after=with_field(row(), "raw", memoryview(b"\x03"))),
    ],
    "tuple for an array": [event("c", after=with_field(row(), "tags", ("t",)))],
    "decimals": [
        event("c", after=row(amount=decimal.Decimal("0.00"), big=decimal.Decimal("-1"))),
        event("c", after=row(amount=decimal.Decimal("-0.01"), big=decimal.Decimal("-128"))),
        event("c", after=row(amount=decimal.Decimal("1E+2").quantize(decimal.Decimal("0.01")))),
        event("c", after=row(big=decimal.Decimal("1E+3"))),
        event("c", after=row(amount=decimal.Decimal("0.00000001").scaleb(6))),
    ],
    "decimal subclass": [event("c", after=with_field(row(), "amount", OddDecimal("1.25")))],
    "decimal of another scale": [
        event("c", after=with_field(row(), "amount", decimal.Decimal("1.5")))
    ],
    "decimal not finite": [event("c", after=with_field(row(), "amount", decimal.Decimal("NaN")))],
    "nested struct of an equal schema": [
        event("c", after=raw(ROW_TWIN_SCHEMA, list(row()._values)))
    ],
    "nested struct default": [event("c", after=row(label=None))],
    "required null in a nested struct": [event("c", after=with_field(row(), "id", None))],
    "required null in the envelope": [with_field(event("c", after=row()), "op", None)],
    "int8 out of range": [event("c", after=with_field(row(), "i8", 128))],
    "int32 out of range": [event("c", after=with_field(row(), "i32", -(2**31) - 1))],
    "int64 out of range": [event("c", after=with_field(row(), "id", 2**63))],
    "bool in an int field": [event("c", after=with_field(row(), "i16", True))],
    "datetime in a date field": [
        event("c", after=with_field(row(), "day", datetime.datetime(2024, 1, 1)))
    ],
    "wrong struct in a struct field": [
        event("c", after=with_field(row(), "point", put_all(BLOCK, id="x", total_order=1)))
    ],
    "too few values": [event("c", after=raw(ROW, list(row()._values)[:-1]))],
}
CONFIGS = {
    "defaults": {},
    "schemaless payload": {"schemas.enable": "false"},
    "no null replacement": {"replace.null.with.default": "false"},
    "numeric decimals": {"decimal.format": "NUMERIC"},
}


def written(config: dict[str, str], items: list[tuple[str, Any, Any]]) -> list[Any]:
    """Each item written alone: its bytes, or the error's text."""
    c = JsonConverter()
    c.configure(config, False)
    out: list[Any] = []
    for topic, schema, value in items:
        try:
            out.append(c.from_connect_data(topic, schema, value))
        except DataError as exc:
            out.append(f"DataError: {exc}")
    return out


@pytest.mark.parametrize("config", list(CONFIGS.values()), ids=list(CONFIGS))
@pytest.mark.parametrize("events", list(EVENTS.values()), ids=list(EVENTS))
def test_generated_struct_encoders_write_as_field_by_field(
    monkeypatch: pytest.MonkeyPatch, config: dict[str, str], events: list[Struct]
) -> None:
    items: list[tuple[str, Any, Any]] = [("cdc", ENVELOPE, e) for e in events * 2]
    with monkeypatch.context() as m:
        m.setattr(_codec, "FAST_ENCODERS", False)
        expected = written(config, items)
    assert written(config, items) == expected
    # The batch (whole or record by record) too, also behind a tombstone and a key.
    c = JsonConverter()
    c.configure(config, False)
    mixed = [*items, ("cdc", None, None), ("cdc", Schema.INT64, 5)]
    for batch, want in ((items, expected), (mixed, [*expected, *written(config, mixed[-2:])])):
        errors = [w for w in want if isinstance(w, str)]
        if errors:
            with pytest.raises(DataError) as caught:
                c.from_connect_batch(batch)
            assert f"DataError: {caught.value}" == errors[0]
        else:
            assert c.from_connect_batch(batch) == want


def test_debezium_envelope_bytes() -> None:
    """A create with nulls and defaults, written as Kafka's JsonConverter writes it."""
    point = put_all(POINT, x=1.0, y=2.5)
    c = JsonConverter()
    c.configure({"schemas.enable": "false"}, False)
    after = put_all(
        ROW,
        id=1,
        i16=2,
        f64=1e7,
        amount=decimal.Decimal("-1.00"),
        big=decimal.Decimal(256),
        day=datetime.date(1970, 1, 2),
        at=datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.UTC),
        dbz_day=3,
        point=point,
    )
    out = c.from_connect_data("cdc", ENVELOPE, event("c", after=after, snapshot=None))
    assert out == (
        b'{"before":null,"after":{"id":1,"i8":null,"i16":2,"i32":5,"f32":null,"f64":1.0E7,'
        b'"flag":null,"text":"dflt","raw":null,"amount":"nA==","big":"AQA=","day":1,'
        b'"tod":null,"at":1000,"dbz_day":3,"dbz_micros":null,"zoned":null,"tags":null,'
        b'"attrs":null,"pairs":null,"point":{"x":1.0,"y":2.5,"srid":null},'
        b'"label":{"text":"none"}},"source":{"name":"db","snapshot":"false","gtid":null,'
        b'"pos":4,"row":0,"thread":null},"transaction":null,"op":"c","ts_ms":1700000000000}'
    )
