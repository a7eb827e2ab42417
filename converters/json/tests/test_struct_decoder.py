"""The generated struct decoder gives what the field-by-field decoder gives.

Each struct schema's JSON object is read by one generated function (``itemgetter``,
inline class checks, the other fields' own decoders); anything it does not take goes to
the field-by-field path. Random struct schemas (every primitive, logical types, nested
and optional structs, defaults) and random objects for them (values of the right class,
of other classes, nulls, missing keys, ints out of range, exact numbers as
``decimal.Decimal``) must give the same Struct, or the same error, on both.
"""

from __future__ import annotations

import base64
import decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kconnect_converter_json import JsonConverter
from kconnect_converter_json._codec import NeedsExactRead, _Compiler
from kconnect_converter_json._config import JsonConverterSettings
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Timestamp,
)

_LEAVES = [
    Schema.INT8,
    Schema.INT16,
    Schema.INT32,
    Schema.INT64,
    Schema.FLOAT32,
    Schema.FLOAT64,
    Schema.BOOLEAN,
    Schema.STRING,
    Schema.BYTES,
    Schema.OPTIONAL_INT32,
    Schema.OPTIONAL_INT64,
    Schema.OPTIONAL_FLOAT64,
    Schema.OPTIONAL_STRING,
    Schema.OPTIONAL_BOOLEAN,
    SchemaBuilder.int32().default_value(7).build(),
    SchemaBuilder.string().optional().default_value("dflt").build(),
    SchemaBuilder.int8().optional().default_value(-3).build(),
    Decimal.schema(2),
    Decimal.builder(0).optional().build(),
    Date.SCHEMA,
    Timestamp.builder().optional().build(),
    SchemaBuilder.int32().name("io.debezium.time.Date").build(),
    SchemaBuilder.array(Schema.INT32).optional().build(),
    SchemaBuilder.map(Schema.STRING, Schema.OPTIONAL_STRING).build(),
]

_JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**64), 2**64),
    st.sampled_from([0, 1, -1, 127, 128, -129, 2**15, 2**31, -(2**31) - 1, 2**63]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 2.5, -0.0]),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.sampled_from([decimal.Decimal("12"), decimal.Decimal("1.50"), decimal.Decimal("1E+3")]),
    st.text(max_size=4),
    st.sampled_from(["AQ==", "BNI=", "", "not base64!", "NaN", "Infinity"]),
    st.lists(st.integers(-3, 3) | st.none(), max_size=3),
    st.dictionaries(st.text(max_size=2), st.text(max_size=2) | st.none(), max_size=2),
)


@st.composite
def _struct_schemas(draw: st.DrawFn, depth: int = 0) -> Schema:
    builder = SchemaBuilder.struct().name(f"s{depth}")
    if draw(st.booleans()):
        builder = builder.optional()
    width = draw(st.integers(0 if depth else 1, 5))
    for i in range(width):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            field = draw(_struct_schemas(depth + 1))
        else:
            field = draw(st.sampled_from(_LEAVES))
        builder = builder.field(f"f{i}", field)
    return builder.build()


def _objects(schema: Schema) -> st.SearchStrategy[Any]:
    """Mostly objects with every field, each value of any JSON class (nested objects for
    struct fields), sometimes a field left out or a value that is not an object."""

    def value(field_schema: Schema) -> st.SearchStrategy[Any]:
        if field_schema.type.value == "struct":
            return st.none() | _objects(field_schema)
        return _JSON_VALUES

    whole = st.fixed_dictionaries({f.name: value(f.schema) for f in schema.fields})
    return st.one_of(
        whole,
        whole,
        whole.flatmap(lambda d: st.sampled_from([*d, None]).map(lambda k: _without(d, k))),
        _JSON_VALUES,
    )


def _without(d: dict[str, Any], key: str | None) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


def _outcome(decode: Any, obj: Any) -> Any:
    try:
        result = decode(obj)
    except DataError as exc:
        return ("DataError", str(exc))
    except NeedsExactRead:  # both paths ask the reader to parse the text exactly
        return ("NeedsExactRead",)
    return _plain(result)


def _plain(value: Any) -> Any:
    """A Struct as (schema name, its values), all the way down, -0.0 told from 0.0."""
    if isinstance(value, Struct):
        return (value.schema.name, [_plain(v) for v in value._values])
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, decimal.Decimal):
        return ("decimal", str(value))
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@pytest.mark.parametrize("replace_null", [True, False])
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), schema=_struct_schemas())
def test_generated_decoder_is_the_field_by_field_decoder(
    speedups: str, replace_null: bool, data: st.DataObject, schema: Schema
) -> None:
    compiler = _Compiler(JsonConverterSettings(replace_null_with_default=replace_null))
    decode = compiler.value_decoder(schema)
    slow = decode.__globals__["_slow"]  # the field-by-field path of the same schema
    for obj in data.draw(st.lists(_objects(schema), min_size=1, max_size=4)):
        if type(obj) is dict:
            assert _outcome(decode, obj) == _outcome(slow, obj)
        else:
            with pytest.raises(DataError, match="Structs should be encoded as JSON objects"):
                decode(obj)


def test_generated_decoder_reads_a_debezium_like_row() -> None:
    """Nulls in optional fields, a default, a Decimal and a nested struct: one call."""
    inner = SchemaBuilder.struct().name("inner").optional().field("x", Schema.INT8).build()
    schema = (
        SchemaBuilder.struct()
        .name("row")
        .field("id", Schema.INT64)
        .field("qty", SchemaBuilder.int32().default_value(1).build())
        .field("amount", Decimal.schema(2))
        .field("note", Schema.OPTIONAL_STRING)
        .field("inner", inner)
        .build()
    )
    decode = _Compiler(JsonConverterSettings()).value_decoder(schema)
    row = decode({"id": 5, "qty": None, "amount": "BNI=", "note": None, "inner": {"x": 3}})
    assert row.get("id") == 5 and row.get("qty") == 1 and row.get("note") is None
    assert row.get("amount") == decimal.Decimal("12.34")
    assert row.get("inner").get("x") == 3
    with pytest.raises(DataError, match=r"field 'inner': field 'x': 300 is out of range"):
        decode({"id": 5, "qty": 2, "amount": "BNI=", "note": "n", "inner": {"x": 300}})
    with pytest.raises(DataError, match="field 'id': Invalid null value for required INT64"):
        decode({"qty": 2, "amount": "BNI=", "note": "n", "inner": None})
    with pytest.raises(DataError, match="Structs should be encoded as JSON objects"):
        decode([1])


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@settings(max_examples=300, deadline=None)
@given(raw=st.binary(min_size=1, max_size=20), scale=st.integers(-3, 40))
def test_base64_decimals_read_as_the_sdk_reads_them(speedups: str, raw: bytes, scale: int) -> None:
    schema = Decimal.schema(scale)
    decode = _Compiler(JsonConverterSettings()).value_decoder(schema)
    got = decode(base64.b64encode(raw).decode())
    want = Decimal.to_logical(schema, raw)
    assert str(got) == str(want) and got.as_tuple() == want.as_tuple()


@pytest.mark.parametrize("value", [b"9223372036854775808", b"18446744073709551615"])
def test_int64_field_past_its_range_reads_as_an_error_in_a_batch_too(
    speedups: str, value: bytes
) -> None:
    """As a top-level INT64 and the field-by-field path do: not a Struct that holds an
    int no INT64 can hold (which could not be written again)."""
    schema = SchemaBuilder.struct().name("r").field("f", Schema.INT64).build()
    converter = JsonConverter()
    converter.configure({}, False)
    good = converter.from_connect_data("t", schema, Struct(schema).put("f", 1))
    assert good is not None
    bad = good.replace(b'"f":1', b'"f":' + value)
    converter.to_connect_data("t", good)  # the envelope is known: batches are read whole
    message = rf"topic 't': field 'f': {int(value)} is out of range for INT64"
    with pytest.raises(DataError, match=message):
        converter.to_connect_batch([("t", good), ("t", bad)])
    with pytest.raises(DataError, match=message):
        converter.to_connect_data("t", bad)


_ROW = (
    SchemaBuilder.struct()
    .name("row")
    .optional()
    .field("id", Schema.INT64)
    .field("amount", Decimal.schema(2))
    .field("price", Schema.OPTIONAL_FLOAT64)
    .field("day", Date.SCHEMA)
    .build()
)
_EVENT = (
    SchemaBuilder.struct()
    .name("event")
    .field("before", _ROW)
    .field("after", _ROW)
    .field("op", Schema.STRING)
    .build()
)
_AFTER = b'{"id":1,"amount":"BNI=","price":2.5,"day":19000}'
_GOOD_EVENT = b'{"before":null,"after":' + _AFTER + b',"op":"c"}'


@pytest.mark.parametrize(
    "odd",
    [
        pytest.param(_GOOD_EVENT.replace(b'"id":1', b'"id":2'), id="good"),
        pytest.param(_GOOD_EVENT.replace(b'"BNI="', b"12.345"), id="exact decimal"),
        pytest.param(_GOOD_EVENT.replace(b'"price":2.5', b'"price":0.1e1'), id="exact double"),
        pytest.param(_GOOD_EVENT.replace(b'"id":1', b'"id":007'), id="leading zeros"),
        pytest.param(_GOOD_EVENT.replace(b'"op":"c"', b'"op":"\\u0063"'), id="escape"),
        pytest.param(_GOOD_EVENT.replace(b'"day":19000', b'"day":"x"'), id="bad nested field"),
        pytest.param(_GOOD_EVENT.replace(b'"op":"c"', b'"op":null'), id="required null"),
        pytest.param(_GOOD_EVENT.replace(b'"BNI="', b'"B!"'), id="bad base64"),
        pytest.param(_GOOD_EVENT[:-1], id="not JSON"),
        pytest.param(None, id="tombstone"),
    ],
)
def test_nested_envelope_batches_read_as_one_by_one(speedups: str, odd: bytes | None) -> None:
    """Batches longer than a decoding slice, one odd record among good ones: the values,
    or the first failing record's error, as read one by one."""
    converter = JsonConverter()
    converter.configure({}, False)
    written = converter.from_connect_data("t", _EVENT, Struct(_EVENT).put("op", "c"))
    assert written is not None
    prefix = written[: written.index(b',"payload":') + len(b',"payload":')]
    good = prefix + _GOOD_EVENT + b"}"
    converter.to_connect_data("t", good)  # the envelope is known: batches are read whole
    datas = [good] * 150
    datas[100] = None if odd is None else prefix + odd + b"}"
    items = [("t", d) for d in datas]
    expected: list[Any] = []
    for topic, data in items:
        try:
            sv = converter.to_connect_data(topic, data)
            expected.append((sv.schema, None if sv.value is None else _plain(sv.value)))
        except DataError as exc:
            expected.append(str(exc))
    errors = [e for e in expected if isinstance(e, str)]
    if errors:
        with pytest.raises(DataError) as caught:
            converter.to_connect_batch(items)
        assert str(caught.value) == errors[0]
        return
    got = converter.to_connect_batch(items)
    assert [(sv.schema, None if sv.value is None else _plain(sv.value)) for sv in got] == expected
    if odd is not None and b"12.345" in odd:
        assert str(got[100].value.get("after").get("amount")) == "12.345"
