"""Plain-data round trips of schemas and records (what crosses process boundaries)."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
    TimestampType,
)
from kconnect_sdk.plain import (
    record_from_plain,
    record_to_plain,
    schema_from_plain,
    schema_to_plain,
)

UTC = dt.UTC


def _ms(value: dt.datetime) -> dt.datetime:
    return value.replace(microsecond=value.microsecond // 1000 * 1000, tzinfo=UTC)


_LEAVES: list[tuple[Schema, st.SearchStrategy[Any]]] = [
    (Schema.INT8, st.integers(-128, 127)),
    (Schema.INT64, st.integers(-(2**63), 2**63 - 1)),
    (Schema.FLOAT64, st.floats(allow_nan=False)),
    (Schema.BOOLEAN, st.booleans()),
    (Schema.STRING, st.text()),
    (Schema.BYTES, st.binary()),
    (Decimal.schema(2), st.decimals(places=2, allow_nan=False, allow_infinity=False)),
    (Date.SCHEMA, st.dates()),
    (
        Time.SCHEMA,
        st.times().map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000, tzinfo=UTC)),
    ),
    (Timestamp.SCHEMA, st.datetimes().map(_ms)),
    (Schema.OPTIONAL_STRING, st.none() | st.text()),
]
_KEY_SCHEMAS = st.sampled_from([Schema.STRING, Schema.INT32])


def _struct_schema(fields: list[Schema]) -> Schema:
    builder = SchemaBuilder.struct().name("com.example.Thing")
    for i, schema in enumerate(fields):
        builder.field(f"f{i}", schema)
    return builder.build()


schemas: st.SearchStrategy[Schema] = st.recursive(
    st.sampled_from([s for s, _ in _LEAVES]),
    lambda children: st.one_of(
        children.map(lambda s: SchemaBuilder.array(s).build()),
        st.tuples(_KEY_SCHEMAS, children).map(lambda kv: SchemaBuilder.map(*kv).build()),
        st.lists(children, min_size=1, max_size=3).map(_struct_schema),
    ),
    max_leaves=6,
)


def values_for(schema: Schema) -> st.SearchStrategy[Any]:
    for leaf, strategy in _LEAVES:
        if leaf is schema:
            return strategy
    if schema.type.value == "array":
        assert schema.value_schema is not None
        return st.lists(values_for(schema.value_schema), max_size=3)
    if schema.type.value == "map":
        assert schema.key_schema is not None and schema.value_schema is not None
        keys = st.text() if schema.key_schema == Schema.STRING else st.integers(-(2**31), 2**31 - 1)
        return st.dictionaries(keys, values_for(schema.value_schema), max_size=3)
    field_values = [values_for(f.schema) for f in schema.fields]
    return st.tuples(*field_values).map(lambda vs: _struct_of(schema, vs))


def _struct_of(schema: Schema, values: tuple[Any, ...]) -> Struct:
    struct = Struct(schema)
    for field, value in zip(schema.fields, values, strict=True):
        struct.put(field, value)
    return struct


schema_and_value = schemas.flatmap(lambda s: st.tuples(st.just(s), values_for(s)))


def _through_json(data: Any) -> Any:
    # allow_nan=False proves the output is strict JSON.
    return json.loads(json.dumps(data, allow_nan=False))


@given(schema_and_value, schema_and_value, st.lists(schema_and_value, max_size=3))
@settings(max_examples=150, deadline=None)
def test_source_records_round_trip_through_json(
    key: tuple[Schema, Any], value: tuple[Schema, Any], headers: list[tuple[Schema, Any]]
) -> None:
    record = SourceRecord(
        topic="orders",
        kafka_partition=3,
        key_schema=key[0],
        key=key[1],
        value_schema=value[0],
        value=value[1],
        timestamp=1704067200000,
        headers=Headers((f"h{i}", s, v) for i, (s, v) in enumerate(headers)),
        source_partition={"file": "/tmp/in.txt"},
        source_offset={"position": 42},
    )
    assert record_from_plain(_through_json(record_to_plain(record))) == record


@given(schema_and_value)
@settings(max_examples=50, deadline=None)
def test_sink_records_round_trip_through_json(value: tuple[Schema, Any]) -> None:
    record = SinkRecord(
        topic="renamed",
        kafka_partition=1,
        value_schema=value[0],
        value=value[1],
        kafka_offset=99,
        timestamp_type=TimestampType.LOG_APPEND_TIME,
        original_topic="orders",
    )
    back = record_from_plain(_through_json(record_to_plain(record)))
    assert back == record
    assert isinstance(back, SinkRecord)
    assert back.original_topic == "orders" and back.original_kafka_offset == 99


def test_schemaless_values_keep_their_python_types() -> None:
    struct = Struct(SchemaBuilder.struct().field("a", Schema.INT32).build()).put("a", 1)
    value = {
        "bytes": b"\x00\xff",
        "dec": decimal.Decimal("-1.50"),
        "when": dt.datetime(2024, 1, 1, 12, tzinfo=UTC),
        "day": dt.date(2024, 1, 1),
        "inf": float("inf"),
        "nested": [{"$map": "looks like a tag"}, None, struct],
        7: "int key",
    }
    record = SourceRecord(topic="t", value=value, headers=Headers().add("s", struct))
    back = record_from_plain(_through_json(record_to_plain(record)))
    assert back == record
    assert type(back.value["dec"]) is decimal.Decimal
    assert back.value["dec"].as_tuple().exponent == -2


def test_schema_round_trip_keeps_every_property() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("com.example.Order")
        .version(3)
        .doc("an order")
        .parameter("connect.record.doc", "x")
        .optional()
        .field("id", SchemaBuilder.int64().default_value(5).doc("id"))
        .field("tags", SchemaBuilder.map(Schema.STRING, Schema.OPTIONAL_BYTES).build())
        .field(
            "price",
            SchemaBuilder.bytes()
            .name(Decimal.LOGICAL_NAME)
            .parameter("scale", "2")
            .default_value(decimal.Decimal("1.28")),
        )
        .build()
    )
    plain = _through_json(schema_to_plain(schema))
    back = schema_from_plain(plain)
    assert back == schema
    assert back is not None and back.field("price") is not None
    assert plain["fields"][0] == {
        "name": "id",
        "schema": {"type": "int64", "doc": "id", "default": 5},
    }


def test_schema_from_plain_rejects_garbage() -> None:
    with pytest.raises(DataError, match="not a plain schema"):
        schema_from_plain({"type": "uint8"})


def test_record_from_plain_rejects_unknown_kinds() -> None:
    plain = record_to_plain(SourceRecord(topic="t"))
    plain["kind"] = "other"
    with pytest.raises(DataError, match="unknown plain record kind 'other'"):
        record_from_plain(plain)
