"""Random Connect schemas and values, and random bytes, through the Avro converter.

Every value that fits its schema round-trips and its bytes read back with plain fastavro
to the datum written; a value with one misfit leaf is a DataError naming that field; and
random or mutated bytes never raise anything but a DataError. Bounded for CI.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
import uuid
from collections.abc import Iterator
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kconnect_converter_avro import AvroConverter, AvroData, drop_mock_schema_registry
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
)

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

UTC = dt.UTC
_INT_RANGE = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}

_LEAVES: list[tuple[Schema, st.SearchStrategy[Any]]] = [
    (Schema.INT8, st.integers(-(2**7), 2**7 - 1)),
    (Schema.INT16, st.integers(-(2**15), 2**15 - 1)),
    (Schema.INT32, st.integers(-(2**31), 2**31 - 1)),
    (Schema.INT64, st.integers(-(2**63), 2**63 - 1)),
    (Schema.FLOAT64, st.floats(allow_nan=False)),
    (Schema.FLOAT32, st.floats(width=32, allow_nan=False)),
    (Schema.BOOLEAN, st.booleans()),
    (Schema.STRING, st.text(max_size=8)),
    (Schema.BYTES, st.binary(max_size=8)),
    (Decimal.schema(2), st.decimals(places=2, allow_nan=False, allow_infinity=False)),
    (Date.SCHEMA, st.dates()),
    (
        Time.SCHEMA,
        st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, tzinfo=UTC)),
    ),
    (
        Timestamp.SCHEMA,
        st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1)).map(
            lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, tzinfo=UTC)
        ),
    ),
]


@st.composite
def schema_and_value(draw: st.DrawFn, depth: int = 0) -> tuple[Schema, Any]:
    kinds = ["leaf"] * 3 + (["array", "map", "intmap", "struct"] if depth < 2 else [])
    kind = draw(st.sampled_from(kinds))
    optional = draw(st.booleans())
    if kind == "leaf":
        schema, values = draw(st.sampled_from(_LEAVES))
        if optional:
            schema = schema.replace(optional=True)
        value = draw(st.none() | values) if optional else draw(values)
        return schema, value
    if kind in ("array", "map", "intmap"):
        inner, _ = draw(schema_and_value(depth + 1))
        items = st.lists(st.deferred(lambda: _value_for(inner)), max_size=3)
        if kind == "array":
            builder = SchemaBuilder.array(inner)
            value: Any = draw(items)
        else:
            key = Schema.STRING if kind == "map" else Schema.INT32
            builder = SchemaBuilder.map(key, inner)
            keys = st.text(max_size=4) if kind == "map" else st.integers(-5, 5)
            value = draw(st.dictionaries(keys, _value_for(inner), max_size=3))
        schema = (builder.optional() if optional else builder).build()
        return schema, (draw(st.none() | st.just(value)) if optional else value)
    count = draw(st.integers(1, 4))
    builder = SchemaBuilder.struct().name(f"fuzz.R{uuid.uuid4().hex[:8]}")
    fields = []
    for i in range(count):
        fschema, fvalue = draw(schema_and_value(depth + 1))
        builder.field(f"f{i}", fschema)
        fields.append((f"f{i}", fvalue))
    schema = (builder.optional() if optional else builder).build()
    struct = Struct(schema)
    for name, fvalue in fields:
        struct.put(name, fvalue)
    return schema, (draw(st.none() | st.just(struct)) if optional else struct)


def _value_for(schema: Schema) -> st.SearchStrategy[Any]:
    """Values of an already drawn schema (for container items)."""
    for leaf, values in _LEAVES:
        if schema.replace(optional=False) == leaf:
            return (st.none() | values) if schema.optional else values
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        inner = st.lists(_value_for(schema.value_schema), max_size=2)
    elif schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        keys = st.text(max_size=3) if schema.key_schema.type is Type.STRING else st.integers(-3, 3)
        inner = st.dictionaries(keys, _value_for(schema.value_schema), max_size=2)
    else:
        fields = [(f.name, _value_for(f.schema)) for f in schema.fields]

        @st.composite
        def struct(draw: st.DrawFn) -> Struct:
            value = Struct(schema)
            for name, strategy in fields:
                value.put(name, draw(strategy))
            return value

        inner = struct()
    return (st.none() | inner) if schema.optional else inner


def _without_logical_types(node: Any) -> Any:
    # Read the underlying Avro values (days, millis, unscaled bytes), as AvroData writes them.
    if isinstance(node, list):
        return [_without_logical_types(n) for n in node]
    if isinstance(node, dict):
        return {k: _without_logical_types(v) for k, v in node.items() if k != "logicalType"}
    return node


@pytest.fixture
def converter() -> Iterator[AvroConverter]:
    scope = f"fuzz-{uuid.uuid4().hex}"
    conv = AvroConverter()
    conv.configure({"schema.registry.url": f"mock://{scope}"}, False)
    yield conv
    conv.close()
    drop_mock_schema_registry(scope)


def _plain(value: Any) -> Any:
    """Values without their schemas: a schema read back carries the registry's version."""
    if isinstance(value, Struct):
        return {f.name: _plain(value.get(f)) for f in value.schema.fields}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@FUZZ
@given(case=schema_and_value())
def test_values_that_fit_round_trip_and_read_back_with_plain_fastavro(
    converter: AvroConverter, case: tuple[Schema, Any]
) -> None:
    schema, value = case
    try:
        data = converter.from_connect_data("t", schema, value)
    except DataError as exc:
        refused = str(exc)
    else:
        refused = ""
    if refused:
        # Two different maps with non-string keys in one schema both want the Avro record
        # io.confluent.connect.avro.MapEntry; Avro (Java too) cannot name both.
        assert "Can't redefine: io.confluent.connect.avro.MapEntry" in refused
        return
    if value is None and schema.optional:
        assert data is None
        return
    assert data is not None
    back = converter.to_connect_data("t", data).value
    if schema.type is Type.FLOAT32 and value is not None:
        assert back == pytest.approx(value, rel=1e-6)
    else:
        assert _plain(back) == _plain(value)
    avro = AvroData()
    parsed = fastavro.parse_schema(_without_logical_types(avro.from_connect_schema(schema)))
    if (isinstance(parsed, dict) and parsed.get("type") == "bytes") or parsed == "bytes":
        return  # written raw, as Confluent's serializers write a top-level bytes schema
    # An independent reader gets the datum AvroData made, from our bytes.
    # Only unions of several named types carry their member's name (an optional struct is a
    # plain dict), as AvroData writes them.
    read = fastavro.schemaless_reader(
        io.BytesIO(data[5:]),
        parsed,
        None,
        return_named_type=True,
        return_named_type_override=True,
    )
    assert read == avro.from_connect_data(schema, value)


_MISFITS: dict[Type, list[Any]] = {
    Type.INT8: [2**7, "1", 1.5, True],
    Type.INT16: [2**15, "1", True],
    Type.INT32: [2**40, "1", 2.0, False],
    Type.INT64: [2**64, "1", True],
    Type.FLOAT32: ["1", 1e300, True],
    Type.FLOAT64: ["1", True, b"x"],
    Type.BOOLEAN: [12, "true", None],
    Type.STRING: [12, b"x", "\ud800"],
    Type.BYTES: ["x", 12],
}


@FUZZ
@given(case=schema_and_value(), data=st.data())
def test_a_misfit_leaf_is_a_data_error_naming_its_field(
    converter: AvroConverter, case: tuple[Schema, Any], data: st.DataObject
) -> None:
    schema, value = case
    if schema.type is not Type.STRUCT or value is None:
        return
    try:
        converter.avro_data.from_connect_schema(schema)
    except DataError:
        return  # a schema Avro cannot name (see above)
    # Put a misfit into one required primitive field of the top-level struct.
    targets = [f for f in schema.fields if f.schema.type in _MISFITS and f.schema.name is None]
    if not targets:
        return
    field = data.draw(st.sampled_from(targets))
    bad = data.draw(st.sampled_from(_MISFITS[field.schema.type]))
    if bad is None and field.schema.optional:
        return
    broken = Struct(schema)
    for f in schema.fields:
        broken._values[f.index] = value.get(f)
    broken._values[field.index] = bad  # bypass put()'s own check: a connector's bug
    with pytest.raises(DataError) as err:
        converter.from_connect_data("t", schema, broken)
    assert repr(field.name) in str(err.value)


@FUZZ
@given(case=schema_and_value(), noise=st.binary(max_size=40), flips=st.data())
def test_random_and_mutated_bytes_only_ever_raise_data_error(
    converter: AvroConverter, case: tuple[Schema, Any], noise: bytes, flips: st.DataObject
) -> None:
    schema, value = case
    try:
        data = converter.from_connect_data("t", schema, value)
    except DataError:
        data = None
    candidates = [noise, b"\x00" + noise]
    if data is not None:
        mutated = bytearray(data)
        for _ in range(flips.draw(st.integers(1, 3))):
            i = flips.draw(st.integers(5, max(5, len(mutated) - 1))) if len(mutated) > 5 else 0
            if i < len(mutated):
                mutated[i] = flips.draw(st.integers(0, 255))
        candidates += [bytes(mutated), data[: flips.draw(st.integers(0, len(data)))]]
        candidates.append(data + noise)
    for candidate in candidates:
        with contextlib.suppress(DataError):
            converter.to_connect_data("t", candidate)


def test_decimal_of_another_scale_names_the_field(converter: AvroConverter) -> None:
    schema = SchemaBuilder.struct().field("amount", Decimal.schema(2)).build()
    struct = Struct(schema)
    struct._values[0] = decimal.Decimal("1.234")
    with pytest.raises(DataError, match="'amount'"):
        converter.from_connect_data("t", schema, struct)
