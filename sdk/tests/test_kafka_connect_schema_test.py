"""Apache Kafka's ``ConnectSchemaTest``, method by method.

``ConnectSchema.validateValue`` is ``validate_value`` here. Kafka's messages name Java
classes (``class java.lang.Boolean``); ours name the Python type and the path, so the
cases check the error and the part of the message both share.

Kept difference: ``Schema.fields`` on a non-struct schema is ``()``; Kafka raises. Other
kconnect packages still copy schemas generically with ``fields=schema.fields``; see the
SDK README.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Field,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    validate_value,
)

UTC = dt.UTC
FLAT = SchemaBuilder.struct().field("field", Schema.INT32).build()
MAP_INT_STRING = SchemaBuilder.map(Schema.INT32, Schema.STRING).build()
STRUCT = (
    SchemaBuilder.struct()
    .field("first", Schema.INT32)
    .field("second", Schema.STRING)
    .field("array", SchemaBuilder.array(Schema.INT32).build())
    .field("map", MAP_INT_STRING)
    .field("nested", FLAT)
    .build()
)
PARENT = SchemaBuilder.struct().field("nested", FLAT).build()


def test_test_fields_on_struct_schema() -> None:
    schema = SchemaBuilder.struct().field("foo", Schema.BOOLEAN).field("bar", Schema.INT32).build()
    assert len(schema.fields) == 2
    foo, bar = schema.field("foo"), schema.field("bar")
    assert foo is not None and foo.index == 0
    assert bar is not None and bar.index == 1
    assert schema.field("other") is None


def test_test_fields_only_valid_for_structs() -> None:
    # Kafka raises for fields() on INT8; kconnect keeps () (see the module docstring) but
    # field lookup by name raises, as Kafka's field(name) does.
    assert Schema.INT8.fields == ()
    with pytest.raises(DataError):
        Schema.INT8.field("x")


def test_test_validate_value_matching_type() -> None:
    for schema, value in (
        (Schema.INT8, 1),
        (Schema.INT16, 1),
        (Schema.INT32, 1),
        (Schema.INT64, 1),
        (Schema.FLOAT32, 1.0),
        (Schema.FLOAT64, 1.0),
        (Schema.BOOLEAN, True),
        (Schema.STRING, "a string"),
        (Schema.BYTES, b"a byte array"),
        (Schema.BYTES, bytearray(b"a byte array")),
        (SchemaBuilder.array(Schema.INT32).build(), [1, 2, 3]),
        (MAP_INT_STRING, {1: "value"}),
    ):
        validate_value(schema, value)
    struct = (
        Struct(STRUCT)
        .put("first", 1)
        .put("second", "foo")
        .put("array", [1, 2, 3])
        .put("map", {1: "value"})
        .put("nested", Struct(FLAT).put("field", 12))
    )
    validate_value(STRUCT, struct)


def test_test_validate_value_matching_logical_type() -> None:
    validate_value(Decimal.schema(2), decimal.Decimal("1.56"))
    validate_value(Date.SCHEMA, dt.date(1970, 1, 1))
    validate_value(Time.SCHEMA, dt.time(0, 0, tzinfo=UTC))
    validate_value(Timestamp.SCHEMA, dt.datetime(1970, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # Python has one int type, so Java's int-for-byte mismatches become range checks.
        (Schema.INT8, 128),
        (Schema.INT16, 2**15),
        (Schema.INT32, 2**31),
        (Schema.INT64, 2**63),
        (Schema.FLOAT32, "1.0"),
        (Schema.FLOAT64, "1.0"),
        (Schema.BOOLEAN, 1.0),
        (Schema.STRING, memoryview(b"abc")),
        (Schema.BYTES, [1, "foo"]),
        (SchemaBuilder.array(Schema.INT32).build(), ["a", "b", "c"]),
        (SchemaBuilder.array(Schema.INT32).build(), [1, 2, "c"]),
        (MAP_INT_STRING, {"wrong key type": "value"}),
        (MAP_INT_STRING, {1: 2}),
        (MAP_INT_STRING, {1: "abc", "wrong": "it's as easy as one two three"}),
        (MAP_INT_STRING, {1: "abc", 2: b"wrong"}),
        (FLAT, Struct(SchemaBuilder.struct().field("x", Schema.INT32).build()).put("x", 1)),
        (Decimal.schema(2), 156),
        (Date.SCHEMA, 1000),
        (Time.SCHEMA, 1000),
        (Timestamp.SCHEMA, 1000),
    ],
    ids=[
        "test_validate_value_mismatch_int8",
        "test_validate_value_mismatch_int16",
        "test_validate_value_mismatch_int32",
        "test_validate_value_mismatch_int64",
        "test_validate_value_mismatch_float",
        "test_validate_value_mismatch_double",
        "test_validate_value_mismatch_boolean",
        "test_validate_value_mismatch_string",
        "test_validate_value_mismatch_bytes",
        "test_validate_value_mismatch_array",
        "test_validate_value_mismatch_array_some_match",
        "test_validate_value_mismatch_map_key",
        "test_validate_value_mismatch_map_value",
        "test_validate_value_mismatch_map_some_keys",
        "test_validate_value_mismatch_map_some_values",
        "test_validate_value_mismatch_struct_wrong_schema",
        "test_validate_value_mismatch_decimal",
        "test_validate_value_mismatch_date",
        "test_validate_value_mismatch_time",
        "test_validate_value_mismatch_timestamp",
    ],
)
def test_validate_value_mismatch(schema: Schema, value: Any) -> None:
    with pytest.raises(DataError):
        validate_value(schema, value)


def test_test_validate_value_mismatch_struct_wrong_nested_schema() -> None:
    wrong = Struct(SchemaBuilder.struct().field("x", Schema.INT32).build()).put("x", 1)
    with pytest.raises(DataError):
        Struct(PARENT).put("nested", wrong)


def test_test_primitive_equality() -> None:
    def make(**overrides: Any) -> Schema:
        args: dict[str, Any] = {"optional": False, "name": "name", "version": 2, "doc": "doc"}
        args.update(overrides)
        return Schema(overrides.pop("type", Type.INT8), **args)

    s1, s2 = make(), make()
    assert s1 == s2
    assert s1 != Schema(Type.INT16, optional=False, name="name", version=2, doc="doc")
    assert s1 != make(optional=True)
    assert s1 != Schema(Type.INT8, optional=False, default=1, name="name", version=2, doc="doc")
    assert s1 != make(name="otherName")
    assert s1 != make(version=4)
    assert s1 != make(doc="other doc")
    assert s1 != make(parameters={"param": "value"})


def test_test_array_equality() -> None:
    s1 = Schema(Type.ARRAY, value_schema=SchemaBuilder.int8().build())
    s2 = Schema(Type.ARRAY, value_schema=SchemaBuilder.int8().build())
    assert s1 == s2
    assert s1 != Schema(Type.ARRAY, value_schema=SchemaBuilder.int16().build())


def test_test_array_default_value_equality() -> None:
    element = SchemaBuilder.string().build()  # Kafka's test uses String[] defaults
    s1 = Schema(Type.ARRAY, default=["a", "b"], value_schema=element)
    s2 = Schema(Type.ARRAY, default=["a", "b"], value_schema=element)
    assert s1 == s2
    assert s1 != Schema(Type.ARRAY, default=["b", "c"], value_schema=element)


def test_test_map_equality() -> None:
    def make(key: Schema, value: Schema) -> Schema:
        return Schema(Type.MAP, key_schema=key, value_schema=value)

    s1 = make(SchemaBuilder.int8().build(), SchemaBuilder.int16().build())
    s2 = make(SchemaBuilder.int8().build(), SchemaBuilder.int16().build())
    assert s1 == s2
    assert s1 != make(SchemaBuilder.string().build(), SchemaBuilder.int16().build())
    assert s1 != make(SchemaBuilder.int8().build(), SchemaBuilder.string().build())


def test_test_struct_equality() -> None:
    def make(second: str) -> Schema:
        return Schema(
            Type.STRUCT,
            fields=[
                Field("field", 0, SchemaBuilder.int8().build()),
                Field(second, 1, SchemaBuilder.int16().build()),
            ],
        )

    assert make("field2") == make("field2")
    assert make("field2") != make("different field name")


def test_test_empty_struct() -> None:
    empty = Schema(Type.STRUCT)
    assert len(empty.fields) == 0
    Struct(empty)


def test_test_validate_field_with_invalid_value_type() -> None:
    # (Kafka's first case uses a fake Schema class, which has no Python counterpart.)
    with pytest.raises(DataError, match="expected int8, got object"):
        validate_value(Schema.INT8, object())
    with pytest.raises(DataError, match="at 'field': expected int8, got object"):
        validate_value(Schema.INT8, object(), path="field")


def test_test_validate_field_with_invalid_value_mismatch_timestamp() -> None:
    validate_value(Schema.INT64, 1000, path="field")
    with pytest.raises(
        DataError, match=r"schema 'org\.apache\.kafka\.connect\.data\.Timestamp'.* at 'field': int"
    ):
        validate_value(Timestamp.SCHEMA, 1000, path="field")


def test_test_validate_list() -> None:
    optional_strings = SchemaBuilder.array(Schema.OPTIONAL_STRING).build()
    for value in ([], ["hello"], [None], ["hello", "world"], ["hello", None], [None, "world"]):
        validate_value(optional_strings, value, path="field")
    with pytest.raises(DataError, match=r"at 'field\[0\]': expected string, got bool"):
        validate_value(optional_strings, [True], path="field")
    required_strings = SchemaBuilder.array(Schema.STRING).build()
    for value in ([], ["hello"], ["hello", "world"]):
        validate_value(required_strings, value, path="field")
    for value in ([None], ["hello", None], [None, "world"]):
        with pytest.raises(
            DataError, match=r"null used for required field: \"field\[\d\]\", schema type: STRING"
        ):
            validate_value(required_strings, value, path="field")
    untyped = Schema._untyped(Type.ARRAY)  # Kafka: SchemaBuilder.type(ARRAY), no element schema
    for value in ([], ["hello"], [None], ["hello", "world"], ["hello", None], [True]):
        with pytest.raises(DataError, match="No schema defined for element of array at 'field'"):
            validate_value(untyped, value, path="field")


def test_test_validate_map() -> None:
    optional_strings = SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.OPTIONAL_STRING).build()
    for value in ({}, {"key": "value"}, {"key": None}, {None: "value"}, {None: None}):
        validate_value(optional_strings, value, path="field")
    with pytest.raises(DataError, match="expected string, got bool"):
        validate_value(optional_strings, {"key": True}, path="field")
    with pytest.raises(DataError, match=r"\{key True\}'?: expected string, got bool"):
        validate_value(optional_strings, {True: "value"}, path="field")
    required = SchemaBuilder.map(Schema.STRING, Schema.STRING).build()
    for value in ({}, {"key": "value"}):
        validate_value(required, value, path="field")
    for value in ({"key": None}, {None: "value"}, {None: None}):
        with pytest.raises(DataError, match=r"null used for required field: .*schema type: STRING"):
            validate_value(required, value, path="field")
    for value in ({"key": True}, {True: "value"}):
        with pytest.raises(DataError, match="expected string, got bool"):
            validate_value(required, value, path="field")
    null_keys = Schema._untyped(Type.MAP)
    null_values = Schema._untyped(Type.MAP, key_schema=Schema.OPTIONAL_STRING)
    for value in ({}, {"key": "value"}, {"key": None}, {None: "value"}, {"key": True}):
        with pytest.raises(DataError, match="No schema defined for key of map at 'field'"):
            validate_value(null_keys, value, path="field")
        with pytest.raises(DataError, match="No schema defined for value of map at 'field'"):
            validate_value(null_values, value, path="field")
