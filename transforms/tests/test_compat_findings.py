"""What Apache Kafka 4.1.1's SMTs do where the differential suite (compat/) found kconnect's
did otherwise; each expectation is the Java original's behaviour on the same input."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
)
from kconnect_transforms import (
    CastKey,
    CastValue,
    FlattenValue,
    HeaderFromValue,
    HoistFieldValue,
    JavaDateFormat,
    MaskFieldValue,
    RegexRouter,
    SetSchemaMetadataValue,
    TimestampConverterValue,
    ValueToKey,
)


def build(cls: type[Any], config: dict[str, str]) -> Any:
    transform = cls()
    transform.configure(config)
    return transform


def test_flatten_refuses_a_map_field_with_schemas() -> None:
    schema = (
        SchemaBuilder.struct().field("m", SchemaBuilder.map(Schema.STRING, Schema.INT32)).build()
    )
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema).put("m", {"a": 1}))
    with pytest.raises(DataError, match="does not support MAP"):
        build(FlattenValue, {}).apply(record)


def test_set_schema_metadata_needs_a_name_or_a_version() -> None:
    with pytest.raises(ConfigError, match="Neither schema name nor version"):
        build(SetSchemaMetadataValue, {})


def test_hoist_field_takes_an_empty_name_for_maps_only() -> None:
    hoist = build(HoistFieldValue, {"field": ""})
    assert hoist.apply(SourceRecord(topic="t", value=1)).value == {"": 1}
    with pytest.raises(DataError):
        hoist.apply(SourceRecord(topic="t", value_schema=Schema.INT32, value=1))


def test_regex_router_reference_to_a_missing_group_is_a_data_error() -> None:
    router = build(RegexRouter, {"regex": "(.*)", "replacement": "$2"})
    with pytest.raises(DataError):
        router.apply(SourceRecord(topic="orders", value=1))


def test_cast_field_schema_is_only_type_optionality_and_default() -> None:
    field = SchemaBuilder.int32().name("Order").doc("d").optional().default_value(7).build()
    schema = SchemaBuilder.struct().field("n", field).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema).put("n", 1))
    out = build(CastValue, {"spec": "n:int64"}).apply(record)
    cast = out.value_schema.field("n").schema
    assert (cast.type.value, cast.optional, cast.default, cast.name, cast.doc) == (
        "int64",
        True,
        7,
        None,
        None,
    )


def test_cast_whole_value_keeps_name_version_and_doc() -> None:
    schema = SchemaBuilder.int32().name("Order").version(3).doc("d").build()
    out = build(CastValue, {"spec": "int64"}).apply(
        SourceRecord(topic="t", value_schema=schema, value=1)
    )
    assert (out.value_schema.name, out.value_schema.version, out.value_schema.doc) == (
        "Order",
        3,
        "d",
    )


def test_timestamp_converter_builds_the_schema_of_a_null_struct_whatever_the_field() -> None:
    schema = SchemaBuilder.struct().optional().field("f", Schema.OPTIONAL_INT8).build()
    transform = build(
        TimestampConverterValue, {"field": "f", "target.type": "string", "format": "yyyy"}
    )
    out = transform.apply(SourceRecord(topic="t", value_schema=schema, value=None))
    assert out.value is None and out.value_schema.field("f").schema.type.value == "string"
    with pytest.raises(DataError, match="does not correspond"):
        transform.apply(SourceRecord(topic="t", value_schema=schema, value=Struct(schema)))


def test_value_to_key_refuses_a_field_listed_twice_with_schemas() -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT32).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema).put("id", 1))
    with pytest.raises(DataError, match="duplication"):
        build(ValueToKey, {"fields": "id,id"}).apply(record)


@pytest.mark.parametrize(
    ("day", "text"),
    [
        (dt.date(2008, 11, 16), "2008-W47"),
        (dt.date(2008, 12, 30), "2009-W01"),  # the week holding January 1
        (dt.date(2022, 12, 31), "2022-W53"),
        # proleptic 0001-01-01 is the Julian 0001-01-03, a Monday: the year began on a
        # Saturday, so week 2 (SimpleDateFormat's calendar is Julian before 1582-10-15)
        (dt.date(1, 1, 1), "0001-W02"),
    ],
)
def test_week_of_year_is_javas_sunday_based_one(day: dt.date, text: str) -> None:
    moment = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
    assert JavaDateFormat("YYYY-'W'ww").format(moment) == text


def test_parse_ignores_what_follows_the_pattern_as_java_does() -> None:
    assert JavaDateFormat("yyyy").parse_millis("2012:26 PM") == JavaDateFormat("yyyy").parse_millis(
        "2012"
    )


@pytest.mark.parametrize(
    ("target", "value", "expected"),
    # What Kafka 4.1.1's Cast$Key gave for each (short)(int) 2.0386076425512094E52: (int)
    # saturates at Integer.MAX_VALUE, whose low 16 bits are -1.
    [
        ("int16", 2.0386076425512094e52, -1),
        ("int8", 300.7, 44),
        ("int32", -1e30, -(2**31)),
        ("int64", float("inf"), 2**63 - 1),
        ("int64", float("nan"), 0),
        ("boolean", float("inf"), True),
        ("float32", 1e300, float("inf")),
    ],
)
def test_cast_narrows_doubles_as_java_does(target: str, value: float, expected: object) -> None:
    record = SourceRecord(topic="t", key_schema=Schema.FLOAT64, key=value)
    assert build(CastKey, {"spec": target}).apply(record).key == expected


def test_cast_of_a_null_struct_field_gives_the_new_type_and_null() -> None:
    # Kafka builds the new schema whatever the field's type; only a value is checked.
    inner = SchemaBuilder.struct().optional().field("x", Schema.FLOAT64).build()
    schema = SchemaBuilder.struct().field("c", inner).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema))
    out = build(CastValue, {"spec": "missing:float64,c:boolean"}).apply(record)
    assert out.value_schema.field("c").schema == Schema.OPTIONAL_BOOLEAN
    assert out.value.get("c") is None
    with pytest.raises(DataError, match="does not support casting from struct"):
        build(CastValue, {"spec": "c:boolean"}).apply(
            SourceRecord(
                topic="t",
                value_schema=schema,
                value=Struct(schema).put("c", Struct(inner).put("x", 1.0)),
            )
        )


def test_flatten_leaves_fields_under_a_null_struct_null() -> None:
    # Kafka's Struct.get: a null takes its own field's default, and under a nested struct
    # that stays null the flat field is null even when its schema has a default.
    inner = SchemaBuilder.struct().optional().field("n", SchemaBuilder.int64().default_value(-935))
    schema = SchemaBuilder.struct().field("a", inner.build()).field("b", Schema.OPTIONAL_INT32)
    built = schema.build()
    out = build(FlattenValue, {}).apply(
        SourceRecord(topic="t", value_schema=built, value=Struct(built))
    )
    assert out.value_schema.field("a.n").schema.default == -935
    assert out.value.get_without_default("a.n") is None


def test_flatten_refuses_a_map_key_that_is_not_a_string() -> None:
    # Kafka casts each key to String (a ClassCastException).
    record = SourceRecord(topic="t", value={"a": {1.5: "x"}})
    with pytest.raises(DataError, match="string map keys"):
        build(FlattenValue, {"delimiter": "_"}).apply(record)


def test_mask_field_rounds_a_float32_replacement_as_kafka() -> None:
    # Kafka's Values.convertToFloat: (float) 9e99 is Infinity.
    schema = SchemaBuilder.struct().field("f", Schema.FLOAT32).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema).put("f", 1.5))
    out = build(MaskFieldValue, {"fields": "f", "replacement": "9e99"}).apply(record)
    assert out.value.get("f") == float("inf")


@pytest.mark.parametrize(
    ("text", "formatted"),
    # What Kafka 4.1.1's TimestampConverter wrote with format "yy": a year of four digits
    # is read as written, not cut to its first two.
    [("2023-11-14T10:00:00Z", "23"), ("1970-07-14T20:24:29Z", "70")],
)
def test_a_short_year_pattern_reads_every_digit(text: str, formatted: str) -> None:
    converter = build(TimestampConverterValue, {"target.type": "string", "format": "yy"})
    assert converter.apply(SourceRecord(topic="t", value=text)).value == formatted


def test_set_schema_metadata_refuses_a_null_left_in_a_required_field() -> None:
    # Kafka puts each value into the renamed Struct; with replace.null.with.default=false
    # a required field's null is refused there.
    schema = SchemaBuilder.struct().field("c", SchemaBuilder.int32().default_value(5)).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema))
    config = {"schema.name": "x", "replace.null.with.default": "false"}
    with pytest.raises(DataError, match="null used for required field"):
        build(SetSchemaMetadataValue, config).apply(record)
    assert build(SetSchemaMetadataValue, {"schema.name": "x"}).apply(record).value.get("c") == 5


def test_timestamp_converter_reads_the_schema_default_with_its_fields_defaults() -> None:
    # Kafka converts the struct schema's default as a record's value: a null field of it
    # takes the field's own default (-127 here) when replace.null.with.default is on.
    schema = (
        SchemaBuilder.struct()
        .field("b", SchemaBuilder.int8().default_value(-127).build())
        .field("ts", SchemaBuilder.int64().optional().build())
    )
    inner = schema.build()
    default = Struct(inner).put("ts", 1000)
    built = schema.default_value(default).build()
    record = SourceRecord(topic="t", value_schema=built, value=Struct(built).put("ts", 5))
    config = {"target.type": "Timestamp", "field": "ts"}
    out = build(TimestampConverterValue, config).apply(record)
    assert out.value_schema.default.get_without_default("b") == -127


def test_header_from_move_keeps_the_other_fields_with_their_defaults() -> None:
    # Kafka's HeaderFrom (move, replace.null.with.default=true) reads the kept fields with
    # Struct.get: a null field with a default gives the default (242 here).
    schema = (
        SchemaBuilder.struct()
        .field("n1", SchemaBuilder.int16().optional().default_value(242).build())
        .field("id", Schema.OPTIONAL_INT32)
        .build()
    )
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema).put("id", 1))
    config = {"fields": "id", "headers": "copy", "operation": "move"}
    out = build(HeaderFromValue, config).apply(record)
    assert out.value.get_without_default("n1") == 242


def test_value_to_key_refuses_a_null_in_a_required_field() -> None:
    # Kafka puts each field into the key Struct: "Invalid value: null used for required
    # field: "amount", schema type: BYTES".
    schema = SchemaBuilder.struct().field("amount", Schema.BYTES).build()
    record = SourceRecord(topic="t", value_schema=schema, value=Struct(schema))
    with pytest.raises(DataError, match='null used for required field: "amount"'):
        build(ValueToKey, {"fields": "amount"}).apply(record)


def test_flatten_reads_a_null_nested_struct_raw_not_its_default() -> None:
    # Kafka's Flatten reads nested structs with Struct.getStruct, which applies no default:
    # a null struct field's flat fields are null even when its schema has a default.
    inner = SchemaBuilder.struct().optional().field("x", Schema.OPTIONAL_BYTES).build()
    with_default = (
        SchemaBuilder.struct()
        .optional()
        .field("x", Schema.OPTIONAL_BYTES)
        .default_value(Struct(inner).put("x", b"]"))
        .build()
    )
    schema = SchemaBuilder.struct().field("b", with_default).build()
    out = build(FlattenValue, {}).apply(
        SourceRecord(topic="t", value_schema=schema, value=Struct(schema))
    )
    assert out.value.get_without_default("b.x") is None
