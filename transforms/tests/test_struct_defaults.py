"""Struct schemas with a Struct default (issue 22): transforms carry them as Kafka does."""

from __future__ import annotations

from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct, Timestamp
from kconnect_transforms import FlattenValue, TimestampConverterValue


def test_flatten_reads_a_null_nested_struct_as_its_default_and_keeps_the_defaults() -> None:
    # Kafka's Flatten: nested field schemas take their defaults from the struct default,
    # and a null nested struct reads as that default (Struct.getStruct applies it).
    builder = SchemaBuilder.struct().optional().field("x", Schema.INT32).field("y", Schema.STRING)
    default = Struct(builder).put("x", 5).put("y", "five")
    inner = builder.default_value(default).build()
    outer = SchemaBuilder.struct().field("id", Schema.INT64).field("s", inner).build()
    xform: FlattenValue[SinkRecord] = FlattenValue()
    xform.configure({})
    record = SinkRecord(
        topic="t",
        kafka_partition=0,
        kafka_offset=0,
        value_schema=outer,
        value=Struct(outer).put("id", 1),
    )
    flat = xform.apply(record)
    assert flat is not None and flat.value_schema is not None
    fields = {f.name: f.schema for f in flat.value_schema.fields}
    assert fields["s.x"].default == 5
    assert fields["s.y"].default == "five"
    assert fields["s.x"].optional  # the parent struct is optional
    assert flat.value.get("s.x") == 5
    assert flat.value.get("s.y") == "five"


def test_timestamp_converter_converts_the_field_inside_a_struct_default() -> None:
    # Kafka's TimestampConverter rebuilds the struct default with the field converted.
    builder = SchemaBuilder.struct().optional().field("ts", Schema.INT64)
    schema = builder.default_value(Struct(builder).put("ts", 86_401_234)).build()
    xform: TimestampConverterValue[SinkRecord] = TimestampConverterValue()
    xform.configure({"target.type": "Timestamp", "field": "ts"})
    out = xform.apply(
        SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value_schema=schema, value=None)
    )
    assert out is not None and out.value_schema is not None
    assert out.value_schema.optional
    ts = out.value_schema.field("ts")
    assert ts is not None and ts.schema == Timestamp.SCHEMA
    default = out.value_schema.default
    assert isinstance(default, Struct)
    assert Timestamp.from_logical(Timestamp.SCHEMA, default.get("ts")) == 86_401_234
