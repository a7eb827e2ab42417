"""Behaviour of Apache Kafka's built-in transforms, case by case, with and without schemas.

Expected values are worked out by hand from Kafka's documentation and its unit tests.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
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
    Transformation,
    Type,
)
from kconnect_transforms import (
    CastKey,
    CastValue,
    DropHeaders,
    ExtractFieldKey,
    ExtractFieldValue,
    Filter,
    FlattenKey,
    FlattenValue,
    HeaderFromKey,
    HeaderFromValue,
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    InsertHeader,
    MaskFieldValue,
    RegexRouter,
    ReplaceFieldKey,
    ReplaceFieldValue,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
    TimestampConverterValue,
    TimestampRouter,
    ValueToKey,
)

UTC = dt.UTC


def make(cls: type[Transformation[Any]], **config: str) -> Transformation[Any]:
    transform = cls()
    transform.configure({k.replace("_", "."): v for k, v in config.items()})
    return transform


def build(cls: type[Transformation[Any]], config: dict[str, str]) -> Transformation[Any]:
    transform = cls()
    transform.configure(config)
    return transform


def sink(value: Any = None, schema: Schema | None = None, **kw: Any) -> SinkRecord:
    kw.setdefault("topic", "test")
    kw.setdefault("kafka_partition", 0)
    return SinkRecord(value=value, value_schema=schema, **kw)


def struct(schema: Schema, **values: Any) -> Struct:
    out = Struct(schema)
    for k, v in values.items():
        out.put(k, v)
    return out


def apply(transform: Transformation[Any], record: SinkRecord) -> SinkRecord:
    out = transform.apply(record)
    assert out is not None
    assert isinstance(out, SinkRecord)
    return out


def apply_any(transform: Transformation[Any], record: Any) -> Any:
    out = transform.apply(record)
    assert out is not None
    return out


# ------------------------------------------------------------------------------ InsertField

INSERT_ALL = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "offset.field": "offset_field!",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}


def test_insert_field_schemaless_adds_every_field() -> None:
    record = sink({"magic": 42}, kafka_partition=0, kafka_offset=42, timestamp=1_500_000_000_000)
    out = apply(build(InsertFieldValue, INSERT_ALL), record)
    assert out.value_schema is None
    assert out.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "offset_field": 42,
        "timestamp_field": 1_500_000_000_000,
        "instance_id": "my-instance-id",
    }


def test_insert_field_schemaless_leaves_out_null_partition_and_timestamp() -> None:
    record = SourceRecord(topic="test", kafka_partition=None, timestamp=None, value={"magic": 42})
    config = {
        k: v
        for k, v in INSERT_ALL.items()
        if k not in ("offset.field", "static.field", "static.value")
    }
    transform = build(InsertFieldValue, config)
    out = apply_any(transform, record)
    assert out.value == {"magic": 42, "topic_field": "test"}


def test_insert_field_config_must_insert_something_and_give_a_static_value() -> None:
    # As Kafka 4.1's InsertField.configure (found by compat/).
    with pytest.raises(ConfigError, match="No field insertion configured"):
        build(InsertFieldValue, {})
    with pytest.raises(ConfigError, match="No value specified for static field"):
        build(InsertFieldValue, {"static.field": "instance_id"})


def test_insert_field_with_schema_honours_required_and_optional_suffixes() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic", Schema.OPTIONAL_INT64)
        .build()
    )
    record = sink(struct(schema, magic=42), schema, kafka_offset=42, timestamp=1_500_000_000_000)
    out = apply(build(InsertFieldValue, INSERT_ALL), record)
    new = out.value_schema
    assert new is not None
    assert (new.name, new.version, new.doc) == ("name", 1, "doc")
    assert [f.name for f in new.fields] == [
        "magic",
        "topic_field",
        "partition_field",
        "offset_field",
        "timestamp_field",
        "instance_id",
    ]
    by_name = {f.name: f.schema for f in new.fields}
    assert by_name["topic_field"] == Schema.STRING
    assert by_name["partition_field"] == Schema.OPTIONAL_INT32
    assert by_name["offset_field"] == Schema.INT64
    assert by_name["timestamp_field"] == Timestamp.builder().optional().build()
    assert by_name["instance_id"] == Schema.OPTIONAL_STRING
    assert out.value.get("magic") == 42
    assert out.value.get("topic_field") == "test"
    assert out.value.get("partition_field") == 0
    assert out.value.get("offset_field") == 42
    # 1.5e12 ms after the epoch is 2017-07-14T02:40:00Z.
    assert out.value.get("timestamp_field") == dt.datetime(2017, 7, 14, 2, 40, tzinfo=UTC)
    assert out.value.get("instance_id") == "my-instance-id"


def test_insert_field_reuses_the_derived_schema() -> None:
    schema = SchemaBuilder.struct().field("magic", Schema.INT64).build()
    transform = make(InsertFieldValue, topic_field="t")
    first = apply(transform, sink(struct(schema, magic=1), schema))
    second = apply(transform, sink(struct(schema, magic=2), schema))
    assert first.value_schema is second.value_schema


def test_insert_field_required_field_with_null_value_is_a_data_error() -> None:
    schema = SchemaBuilder.struct().field("magic", Schema.INT64).build()
    record = SourceRecord(topic="test", value_schema=schema, value=struct(schema, magic=1))
    with pytest.raises(DataError, match="partition"):
        make(InsertFieldValue, partition_field="partition!").apply(record)


def test_insert_field_offset_needs_a_sink_record() -> None:
    with pytest.raises(DataError, match="SinkRecord"):
        make(InsertFieldValue, offset_field="o").apply(SourceRecord(topic="t", value={}))


def test_insert_field_key_variant_changes_only_the_key() -> None:
    record = sink({"v": 1}, key={"k": 1})
    out = apply(make(InsertFieldKey, topic_field="topic"), record)
    assert out.key == {"k": 1, "topic": "test"}
    assert out.value == {"v": 1}


def test_insert_field_rejects_a_non_map_schemaless_value() -> None:
    with pytest.raises(DataError, match=r"InsertField\$Value.*str"):
        make(InsertFieldValue, topic_field="t").apply(sink("just a string"))


def test_insert_field_replace_null_with_default() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("opt", SchemaBuilder.int32().optional().default_value(18))
        .build()
    )
    value = Struct(schema)
    keep_null = build(InsertFieldValue, {"topic.field": "t", "replace.null.with.default": "false"})
    assert apply(keep_null, sink(value, schema)).value.get_without_default("opt") is None
    use_default = build(InsertFieldValue, {"topic.field": "t"})
    assert apply(use_default, sink(value, schema)).value.get_without_default("opt") == 18


# ----------------------------------------------------------------------------- ReplaceField

REPLACE_CASES = [
    ({"exclude": "dont"}, {"dont": 1, "abc": 2, "foo": 3}, {"abc": 2, "foo": 3}),
    ({"include": "abc,foo"}, {"dont": 1, "abc": 2, "foo": 3}, {"abc": 2, "foo": 3}),
    ({"include": "abc,foo", "exclude": "foo"}, {"dont": 1, "abc": 2, "foo": 3}, {"abc": 2}),
    (
        {"renames": "abc:xyz,foo:bar"},
        {"abc": 2, "foo": 3, "etc": 4},
        {"xyz": 2, "bar": 3, "etc": 4},
    ),
    ({"exclude": "dont", "renames": "abc:xyz"}, {"dont": 1, "abc": 2}, {"xyz": 2}),
]


@pytest.mark.parametrize(("config", "value", "expected"), REPLACE_CASES)
def test_replace_field_schemaless(
    config: dict[str, str], value: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert apply(build(ReplaceFieldValue, config), sink(value)).value == expected


@pytest.mark.parametrize(("config", "value", "expected"), REPLACE_CASES)
def test_replace_field_with_schema(
    config: dict[str, str], value: dict[str, Any], expected: dict[str, Any]
) -> None:
    builder = SchemaBuilder.struct().name("row")
    for name in value:
        builder.field(name, Schema.INT32)
    schema = builder.build()
    out = apply(build(ReplaceFieldValue, config), sink(struct(schema, **value), schema))
    assert out.value_schema is not None and out.value_schema.name == "row"
    assert [f.name for f in out.value_schema.fields] == list(expected)
    assert out.value.to_dict() == expected


def test_replace_field_key_variant() -> None:
    out = apply(make(ReplaceFieldKey, exclude="b"), sink({"v": 1}, key={"a": 1, "b": 2}))
    assert out.key == {"a": 1}


def test_replace_field_rejects_malformed_renames_at_configure() -> None:
    with pytest.raises(ConfigError, match="renames") as info:
        make(ReplaceFieldValue, renames="a:b:c")
    assert info.value.name == "renames"


# ---------------------------------------------------------------------- RegexRouter & co.


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("foo", "bar", "foo", "bar"),
        ("foo", "bar", "foo-suffix", "foo-suffix"),  # matches() needs the whole name
        ("(.*)-suffix", "$1", "foo-suffix", "foo"),
        ("prefix-(.*)", "$1-suffix", "prefix-foo", "foo-suffix"),
        ("(?<name>[a-z]+)\\.(.*)", "${name}_$2", "db.orders", "db_orders"),
        ("(.*)", "\\$literal-$1", "x", "$literal-x"),
        ("(.*)", "$1-routed", "", "-routed"),
    ],
)
def test_regex_router(regex: str, replacement: str, topic: str, expected: str) -> None:
    router = make(RegexRouter, regex=regex, replacement=replacement)
    assert apply(router, sink({"a": 1}, topic=topic)).topic == expected


def test_regex_router_rejects_an_invalid_regex() -> None:
    with pytest.raises(ConfigError) as info:
        make(RegexRouter, regex="(unclosed", replacement="x")
    assert info.value.name == "regex"


@pytest.mark.parametrize(
    ("config", "timestamp", "expected"),
    [
        ({}, 1_483_425_001_864, "test-20170103"),  # Kafka's TimestampRouterTest
        (
            {"topic.format": "${timestamp}_${topic}", "timestamp.format": "yyyy-MM-dd'T'HH"},
            1_483_425_001_864,
            "2017-01-03T06_test",
        ),
        ({"timestamp.format": "yyyyMMddHHmmssSSS"}, 1_483_425_001_864, "test-20170103063001864"),
        ({"timestamp.format": "yy.MMM.d EEE"}, 0, "test-70.Jan.1 Thu"),
    ],
)
def test_timestamp_router(config: dict[str, str], timestamp: int, expected: str) -> None:
    assert apply(build(TimestampRouter, config), sink(None, timestamp=timestamp)).topic == expected


def test_timestamp_router_needs_a_timestamp() -> None:
    with pytest.raises(DataError, match="Timestamp missing"):
        make(TimestampRouter).apply(sink({"a": 1}, timestamp=None))


# ------------------------------------------------------------------------------ ValueToKey


def test_value_to_key_schemaless() -> None:
    out = apply(make(ValueToKey, fields="a,b"), sink({"a": 1, "b": 2, "c": 3}))
    assert out.key == {"a": 1, "b": 2}
    assert out.key_schema is None


def test_value_to_key_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32)
        .field("b", Schema.INT32)
        .field("c", Schema.INT32)
        .build()
    )
    out = apply(make(ValueToKey, fields="a,b"), sink(struct(schema, a=1, b=2, c=3), schema))
    assert (
        out.key_schema
        == SchemaBuilder.struct().field("a", Schema.INT32).field("b", Schema.INT32).build()
    )
    assert out.key.to_dict() == {"a": 1, "b": 2}


# ---------------------------------------------------------------------------- ExtractField


def test_extract_field_schemaless_key() -> None:
    out = apply(make(ExtractFieldKey, field="magic"), sink(None, key={"magic": 42}))
    assert (out.key_schema, out.key) == (None, 42)


def test_extract_field_with_schema() -> None:
    schema = SchemaBuilder.struct().field("magic", Schema.INT32).build()
    out = apply(make(ExtractFieldValue, field="magic"), sink(struct(schema, magic=42), schema))
    assert (out.value_schema, out.value) == (Schema.INT32, 42)


def test_extract_field_missing_schemaless_field_gives_null() -> None:
    assert apply(make(ExtractFieldValue, field="nope"), sink({"magic": 42})).value is None


@pytest.mark.parametrize(
    ("path", "expected"),
    [("magic.foo", 42), ("`magic.foo`", "dotted"), ("magic.`bar.baz`", 7), ("magic.missing", None)],
)
def test_extract_field_v2_nested_paths(path: str, expected: Any) -> None:
    value = {"magic": {"foo": 42, "bar.baz": 7}, "magic.foo": "dotted"}
    transform = build(ExtractFieldValue, {"field": path, "field.syntax.version": "V2"})
    assert apply(transform, sink(value)).value == expected


def test_extract_field_v2_with_schema() -> None:
    inner = SchemaBuilder.struct().field("foo", Schema.INT32).build()
    schema = SchemaBuilder.struct().field("magic", inner).build()
    value = struct(schema, magic=struct(inner, foo=42))
    out = apply(
        build(ExtractFieldValue, {"field": "magic.foo", "field.syntax.version": "V2"}),
        sink(value, schema),
    )
    assert (out.value_schema, out.value) == (Schema.INT32, 42)
    v1 = build(ExtractFieldValue, {"field": "magic.foo"})
    with pytest.raises(DataError, match=r"magic\.foo"):
        v1.apply(sink(value, schema))


# ------------------------------------------------------------------------------ HoistField


def test_hoist_field_schemaless_and_with_schema() -> None:
    assert apply(make(HoistFieldKey, field="magic"), sink(None, key=42)).key == {"magic": 42}
    record = SinkRecord(topic="t", key_schema=Schema.INT32, key=42)
    out = apply(make(HoistFieldKey, field="magic"), record)
    assert out.key_schema == SchemaBuilder.struct().field("magic", Schema.INT32).build()
    assert out.key.get("magic") == 42
    assert apply(make(HoistFieldValue, field="v"), sink("x")).value == {"v": "x"}


# ------------------------------------------------------------------------------- MaskField

MASK_VALUES = {
    "int": 42,
    "float": 1.5,
    "bool": True,
    "string": "secret",
    "list": [1, 2],
    "map": {"a": 1},
    "decimal": decimal.Decimal("1.23"),
    "untouched": "visible",
}


def test_mask_field_schemaless_uses_each_types_empty_value() -> None:
    fields = "int,float,bool,string,list,map,decimal"
    out = apply(make(MaskFieldValue, fields=fields), sink(dict(MASK_VALUES)))
    assert out.value == {
        "int": 0,
        "float": 0.0,
        "bool": False,
        "string": "",
        "list": [],
        "map": {},
        "decimal": decimal.Decimal(0),
        "untouched": "visible",
    }


def test_mask_field_with_schema_and_replacement() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("age", Schema.INT32)
        .field("name", Schema.STRING)
        .field("born", Date.SCHEMA)
        .field("price", Decimal.schema(2))
        .build()
    )
    value = struct(
        schema, age=42, name="ann", born=dt.date(2000, 1, 2), price=decimal.Decimal("9.99")
    )
    out = apply(make(MaskFieldValue, fields="age,name,born,price"), sink(value, schema))
    assert out.value.to_dict() == {
        "age": 0,
        "name": "",
        "born": dt.date(1970, 1, 1),
        "price": decimal.Decimal(0),
    }
    out = apply(make(MaskFieldValue, fields="age,name", replacement="123"), sink(value, schema))
    assert out.value.get("age") == 123
    assert out.value.get("name") == "123"


def test_mask_field_refuses_types_it_cannot_mask() -> None:
    with pytest.raises(DataError, match="'blob'"):
        make(MaskFieldValue, fields="blob").apply(sink({"blob": b"raw"}))


def test_mask_field_rejects_a_non_numeric_replacement_for_numbers() -> None:
    with pytest.raises(DataError, match="'age'"):
        make(MaskFieldValue, fields="age", replacement="abc").apply(sink({"age": 1}))


# ----------------------------------------------------------------------- SetSchemaMetadata


def test_set_schema_metadata_renames_schema_and_keeps_values() -> None:
    schema = SchemaBuilder.struct().name("old").version(1).field("a", Schema.INT32).build()
    out = apply(
        build(SetSchemaMetadataValue, {"schema.name": "new", "schema.version": "42"}),
        sink(struct(schema, a=5), schema),
    )
    assert out.value_schema is not None
    assert (out.value_schema.name, out.value_schema.version) == ("new", 42)
    assert out.value.schema is out.value_schema
    assert out.value.get("a") == 5


def test_set_schema_metadata_keeps_what_is_not_configured_and_works_on_primitives() -> None:
    record = SinkRecord(
        topic="t", key_schema=SchemaBuilder.string().name("k").version(3).build(), key="x"
    )
    out = apply(build(SetSchemaMetadataKey, {"schema.version": "4"}), record)
    assert out.key_schema is not None
    assert (out.key_schema.name, out.key_schema.version, out.key) == ("k", 4, "x")


def test_set_schema_metadata_requires_a_schema() -> None:
    with pytest.raises(DataError, match="Schema required"):
        make(SetSchemaMetadataValue, schema_name="x").apply(sink({"a": 1}))


# ------------------------------------------------------------------------------------ Cast


@pytest.mark.parametrize(
    ("spec", "value", "expected"),
    [
        ("int8", 42, 42),
        ("int8", 300, 44),  # Java narrowing wraps: 300 - 256
        ("int16", True, 1),
        ("int32", "42", 42),
        ("int64", 42.9, 42),
        ("float32", 1, 1.0),
        ("float64", "1.5", 1.5),
        ("boolean", 0, False),
        ("boolean", 7, True),
        ("boolean", 0.5, False),  # Number.longValue() != 0
        ("boolean", "TRUE", True),
        ("boolean", "yes", False),  # Boolean.parseBoolean
        ("string", 42, "42"),
        ("string", True, "true"),
        ("string", 1e10, "1.0E10"),
        ("string", 12.5, "12.5"),
        ("string", b"\x00\x01", "AAE="),  # bytes become base64
    ],
)
def test_cast_whole_value_schemaless(spec: str, value: Any, expected: Any) -> None:
    out = apply(make(CastValue, spec=spec), sink(value))
    assert out.value == expected
    assert type(out.value) is type(expected)


def test_cast_float32_rounds_like_java_floats() -> None:
    assert apply(make(CastValue, spec="float32"), sink(0.1)).value == pytest.approx(
        0.100000001490116, abs=1e-15
    )


def test_cast_fields_with_schema_keeps_optionality_and_casts_defaults() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("row")
        .field("int8", SchemaBuilder.int8().optional().default_value(2))
        .field("string", Schema.STRING)
        .field("ts", Timestamp.SCHEMA)
        .field("keep", Schema.BOOLEAN)
        .build()
    )
    moment = dt.datetime(2017, 1, 1, 1, 2, 3, 4000, tzinfo=UTC)
    value = struct(schema, string="42", ts=moment, keep=True)
    out = apply(make(CastValue, spec="int8:int64,string:int32,ts:int64"), sink(value, schema))
    new = out.value_schema
    assert new is not None and new.name == "row"
    types = {f.name: (f.schema.type, f.schema.optional, f.schema.default) for f in new.fields}
    assert types == {
        "int8": (Type.INT64, True, 2),
        "string": (Type.INT32, False, None),
        "ts": (Type.INT64, False, None),
        "keep": (Type.BOOLEAN, False, None),
    }
    assert out.value.to_dict() == {"int8": 2, "string": 42, "ts": 1_483_232_523_004, "keep": True}


def test_cast_timestamp_to_string_uses_iso_format() -> None:
    record = sink(dt.datetime(2017, 1, 1, 1, 2, 3, 4000, tzinfo=UTC), Timestamp.SCHEMA)
    out = apply(make(CastValue, spec="string"), record)
    assert (out.value_schema, out.value) == (Schema.STRING, "2017-01-01T01:02:03.004Z")


def test_cast_schemaless_fields_and_key() -> None:
    out = apply(make(CastValue, spec="a:string,b:int8"), sink({"a": 1, "b": "5", "c": 1.5}))
    assert out.value == {"a": "1", "b": 5, "c": 1.5}
    assert apply(make(CastKey, spec="string"), sink(None, key=7)).key == "7"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("a:bytes", "BYTES"),
        ("a:date", "Invalid type"),
        ("int8,a:int8", "entire value"),
        (":int8", "field name"),
    ],
)
def test_cast_rejects_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        make(CastValue, spec=spec)
    assert info.value.name == "spec"


def test_cast_refuses_struct_fields() -> None:
    inner = SchemaBuilder.struct().field("x", Schema.INT32).build()
    schema = SchemaBuilder.struct().field("inner", inner).build()
    with pytest.raises(DataError, match="'inner'"):
        make(CastValue, spec="inner:string").apply(
            sink(struct(schema, inner=struct(inner, x=1)), schema)
        )


# --------------------------------------------------------------------------------- Flatten


def test_flatten_schemaless_nested_maps() -> None:
    value = {
        "A": {"B": {"int8": 8, "string": "x", "list": [1, {"not": "flattened"}]}, "null": None},
        "top": True,
    }
    out = apply(make(FlattenValue, delimiter="#"), sink(value))
    assert out.value == {
        "A#B#int8": 8,
        "A#B#string": "x",
        "A#B#list": [1, {"not": "flattened"}],
        "A#null": None,
        "top": True,
    }


def test_flatten_with_schema_makes_children_of_optional_structs_optional() -> None:
    inner = SchemaBuilder.struct().field("x", Schema.INT32).field("y", Schema.STRING).build()
    maybe = SchemaBuilder.struct().optional().field("z", Schema.INT64).build()
    schema = (
        SchemaBuilder.struct()
        .name("row")
        .field("inner", inner)
        .field("maybe", maybe)
        .field("tags", SchemaBuilder.array(Schema.STRING).build())
        .build()
    )
    value = struct(schema, inner=struct(inner, x=1, y="a"), tags=["t"])
    out = apply(make(FlattenKey), SinkRecord(topic="t", key_schema=schema, key=value))
    new = out.key_schema
    assert new is not None and new.name == "row"
    layout = [(f.name, f.schema.type, f.schema.optional) for f in new.fields]
    assert layout == [
        ("inner.x", Type.INT32, False),
        ("inner.y", Type.STRING, False),
        ("maybe.z", Type.INT64, True),
        ("tags", Type.ARRAY, False),
    ]
    assert out.key.to_dict() == {"inner.x": 1, "inner.y": "a", "maybe.z": None, "tags": ["t"]}


# -------------------------------------------------------------------------- Filter, headers


def test_filter_drops_everything() -> None:
    assert make(Filter).apply(sink({"a": 1})) is None
    assert make(Filter).apply_batch([sink({"a": 1}), sink(None)]) == []


def test_header_from_copy_and_move_schemaless() -> None:
    record = sink({"a": 1, "b": "x", "c": True}, headers=Headers().add("old", 0))
    copied = apply(
        build(HeaderFromValue, {"fields": "a,b", "headers": "ha,hb", "operation": "copy"}), record
    )
    assert copied.value == {"a": 1, "b": "x", "c": True}
    assert [(h.key, h.value) for h in copied.headers] == [("old", 0), ("ha", 1), ("hb", "x")]
    moved = apply(
        build(HeaderFromValue, {"fields": "a,b", "headers": "ha,hb", "operation": "move"}), record
    )
    assert moved.value == {"c": True}
    assert [(h.key, h.value) for h in moved.headers] == [("old", 0), ("ha", 1), ("hb", "x")]


def test_header_from_move_with_schema_carries_the_field_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .name("k")
        .field("id", Schema.INT64)
        .field("rest", Schema.STRING)
        .build()
    )
    record = SinkRecord(topic="t", key_schema=schema, key=struct(schema, id=9, rest="r"))
    out = apply(
        build(HeaderFromKey, {"fields": "id", "headers": "key-id", "operation": "move"}), record
    )
    assert out.key_schema is not None and [f.name for f in out.key_schema.fields] == ["rest"]
    assert out.key.to_dict() == {"rest": "r"}
    header = out.headers.last_with_name("key-id")
    assert header is not None and (header.schema, header.value) == (Schema.INT64, 9)


def test_header_from_needs_as_many_headers_as_fields() -> None:
    with pytest.raises(ConfigError, match="same number") as info:
        build(HeaderFromValue, {"fields": "a,b", "headers": "h", "operation": "copy"})
    assert info.value.name == "headers"


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("hello", Schema.STRING, "hello"),
        ("42", Schema.INT8, 42),
        ("true", Schema.BOOLEAN, True),
        ("1000", Schema.INT16, 1000),
    ],
)
def test_insert_header_parses_the_literal_like_values_parse_string(
    literal: str, schema: Schema, value: Any
) -> None:
    out = apply(build(InsertHeader, {"header": "h", "value.literal": literal}), sink({"a": 1}))
    header = out.headers.last_with_name("h")
    assert header is not None and (header.schema, header.value) == (schema, value)


def test_drop_headers_removes_every_header_with_those_names() -> None:
    headers = Headers().add("a", 1).add("b", 2).add("a", 3).add("c", 4)
    out = apply(make(DropHeaders, headers="a,c"), sink({"x": 1}, headers=headers))
    assert [(h.key, h.value) for h in out.headers] == [("b", 2)]


# ---------------------------------------------------------------------- TimestampConverter

# 2017-01-01T01:02:03.004Z, as in Kafka's TimestampConverterTest.
MOMENT = dt.datetime(2017, 1, 1, 1, 2, 3, 4000, tzinfo=UTC)
MILLIS = 1_483_232_523_004
FORMAT = "yyyy MM dd HH mm ss SSS z"
TEXT = "2017 01 01 01 02 03 004 UTC"


@pytest.mark.parametrize(
    ("config", "value", "expected"),
    [
        ({"target.type": "Timestamp"}, MILLIS, MOMENT),
        ({"target.type": "unix"}, MOMENT, MILLIS),
        ({"target.type": "string", "format": FORMAT}, MILLIS, TEXT),
        ({"target.type": "unix", "format": FORMAT}, TEXT, MILLIS),
        ({"target.type": "Date"}, MILLIS, dt.date(2017, 1, 1)),
        ({"target.type": "Time"}, MILLIS, dt.time(1, 2, 3, 4000, tzinfo=UTC)),
        ({"target.type": "unix", "unix.precision": "seconds"}, MOMENT, 1_483_232_523),
        ({"target.type": "unix", "unix.precision": "microseconds"}, MOMENT, 1_483_232_523_004_000),
        (
            {"target.type": "Timestamp", "unix.precision": "nanoseconds"},
            1_483_232_523_004_567_890,
            MOMENT,
        ),
        (
            {"target.type": "Timestamp", "unix.precision": "seconds"},
            1_483_232_523,
            MOMENT.replace(microsecond=0),
        ),
    ],
)
def test_timestamp_converter_schemaless_whole_value(
    config: dict[str, str], value: Any, expected: Any
) -> None:
    assert apply(build(TimestampConverterValue, config), sink(value)).value == expected


@pytest.mark.parametrize(
    ("target", "schema", "expected"),
    [
        ("Timestamp", Timestamp.SCHEMA, MOMENT),
        ("unix", Schema.INT64, MILLIS),
        ("string", Schema.STRING, TEXT),
        ("Date", Date.SCHEMA, dt.date(2017, 1, 1)),
        ("Time", Time.SCHEMA, dt.time(1, 2, 3, 4000, tzinfo=UTC)),
    ],
)
def test_timestamp_converter_field_with_schema(target: str, schema: Schema, expected: Any) -> None:
    source = SchemaBuilder.struct().field("ts", Schema.INT64).field("other", Schema.STRING).build()
    transform = build(
        TimestampConverterValue, {"field": "ts", "target.type": target, "format": FORMAT}
    )
    out = apply(transform, sink(struct(source, ts=MILLIS, other="x"), source))
    assert out.value_schema is not None
    field = out.value_schema.field("ts")
    assert field is not None and field.schema == schema
    assert out.value.get("ts") == expected
    assert out.value.get("other") == "x"


def test_timestamp_converter_string_target_needs_a_format() -> None:
    with pytest.raises(ConfigError, match="format") as info:
        build(TimestampConverterValue, {"target.type": "string"})
    assert info.value.name == "format"


def test_timestamp_converter_reports_unparseable_strings_with_the_field() -> None:
    transform = build(
        TimestampConverterValue, {"field": "when", "target.type": "unix", "format": "yyyy-MM-dd"}
    )
    with pytest.raises(DataError, match="'when'"):
        transform.apply(sink({"when": "01/02/2017"}))
