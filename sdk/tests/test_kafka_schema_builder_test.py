"""Apache Kafka's ``SchemaBuilderTest``, method by method.

Kafka's ``SchemaBuilder.bool()`` is ``SchemaBuilder.boolean()`` here; a builder is not a
Schema, so cases that use a builder as a schema build it first; Java's ``null`` parameters
map to an empty mapping.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import Schema, SchemaBuilder, SchemaBuilderError, Struct, Type

NAME, VERSION, DOC = "name", 2, "doc"

BUILDERS = {
    "int8": (SchemaBuilder.int8, Type.INT8, 12),
    "int16": (SchemaBuilder.int16, Type.INT16, 12),
    "int32": (SchemaBuilder.int32, Type.INT32, 12),
    "int64": (SchemaBuilder.int64, Type.INT64, 12),
    "float": (SchemaBuilder.float32, Type.FLOAT32, 12.0),
    "double": (SchemaBuilder.float64, Type.FLOAT64, 12.0),
    "boolean": (SchemaBuilder.boolean, Type.BOOLEAN, True),
    "string": (SchemaBuilder.string, Type.STRING, "a default string"),
    "bytes": (SchemaBuilder.bytes, Type.BYTES, b"a default byte array"),
}
INVALID_DEFAULTS: dict[str, Any] = {
    "int8": "invalid",
    "int16": "invalid",
    "int32": "invalid",
    "int64": "invalid",
    "float": "invalid",
    "double": "invalid",
    "boolean": "invalid",
    "string": True,
    "bytes": "a string, not bytes",
}


def assert_type_and_default(schema: Schema, type_: Type, optional: bool, default: Any) -> None:
    assert schema.type is type_
    assert schema.optional is optional
    assert schema.default == default


def assert_metadata(
    schema: Schema, name: str | None, version: int | None, doc: str | None, params: dict[str, str]
) -> None:
    assert (schema.name, schema.version, schema.doc) == (name, version, doc)
    assert dict(schema.parameters) == params


@pytest.mark.parametrize(
    "kind",
    list(BUILDERS),
    ids=[
        "test_int8_builder",
        "test_int16_builder",
        "test_int32_builder",
        "test_int64_builder",
        "test_float_builder",
        "test_double_builder",
        "test_boolean_builder",
        "test_string_builder",
        "test_bytes_builder",
    ],
)
def test_primitive_builders(kind: str) -> None:
    make, type_, default = BUILDERS[kind]
    schema = make().build()
    assert_type_and_default(schema, type_, False, None)
    assert_metadata(schema, None, None, None, {})
    schema = make().name(NAME).optional().default_value(default).version(VERSION).doc(DOC).build()
    assert_type_and_default(schema, type_, True, default)
    assert_metadata(schema, NAME, VERSION, DOC, {})


@pytest.mark.parametrize(
    "kind",
    list(BUILDERS),
    ids=[
        "test_int8_builder_invalid_default",
        "test_int16_builder_invalid_default",
        "test_int32_builder_invalid_default",
        "test_int64_builder_invalid_default",
        "test_float_builder_invalid_default",
        "test_double_builder_invalid_default",
        "test_boolean_builder_invalid_default",
        "test_string_builder_invalid_default",
        "test_bytes_builder_invalid_default",
    ],
)
def test_primitive_builders_invalid_default(kind: str) -> None:
    make = BUILDERS[kind][0]
    with pytest.raises(SchemaBuilderError):
        make().default_value(INVALID_DEFAULTS[kind])


def test_test_parameters() -> None:
    expected = {"foo": "val", "bar": "baz"}
    schema = SchemaBuilder.string().parameter("foo", "val").parameter("bar", "baz").build()
    assert_type_and_default(schema, Type.STRING, False, None)
    assert_metadata(schema, None, None, None, expected)
    schema = SchemaBuilder.string().parameters(expected).build()
    assert_metadata(schema, None, None, None, expected)


def test_test_struct_builder() -> None:
    schema = (
        SchemaBuilder.struct().field("field1", Schema.INT8).field("field2", Schema.INT8).build()
    )
    assert_type_and_default(schema, Type.STRUCT, False, None)
    assert [(f.name, f.index, f.schema) for f in schema.fields] == [
        ("field1", 0, Schema.INT8),
        ("field2", 1, Schema.INT8),
    ]
    assert_metadata(schema, None, None, None, {})


def test_test_non_struct_cant_have_fields() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.int8().field("field", SchemaBuilder.int8().build())


def test_test_array_builder() -> None:
    schema = SchemaBuilder.array(Schema.INT8).build()
    assert_type_and_default(schema, Type.ARRAY, False, None)
    assert schema.value_schema == Schema.INT8
    assert_metadata(schema, None, None, None, {})
    schema = SchemaBuilder.array(Schema.INT8).default_value([1, 2]).build()
    assert_type_and_default(schema, Type.ARRAY, False, [1, 2])


def test_test_array_builder_invalid_default() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.array(Schema.INT8).default_value(["string"]).build()


def test_test_map_builder() -> None:
    schema = SchemaBuilder.map(Schema.INT8, Schema.INT8).build()
    assert_type_and_default(schema, Type.MAP, False, None)
    assert (schema.key_schema, schema.value_schema) == (Schema.INT8, Schema.INT8)
    assert_metadata(schema, None, None, None, {})
    schema = SchemaBuilder.map(Schema.INT8, Schema.INT8).default_value({5: 10}).build()
    assert_type_and_default(schema, Type.MAP, False, {5: 10})


def test_test_map_builder_invalid_default() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.map(Schema.INT8, Schema.INT8).default_value({5: "foo"}).build()


def test_test_empty_struct() -> None:
    builder = SchemaBuilder.struct()
    Struct(builder)  # a Struct may be built on the builder, as in Kafka
    schema = builder.build()
    assert len(schema.fields) == 0
    Struct(schema)


def test_test_duplicate_fields() -> None:
    with pytest.raises(SchemaBuilderError):
        (
            SchemaBuilder.struct()
            .name("testing")
            .field("id", SchemaBuilder.string().doc("").build())
            .field("id", SchemaBuilder.string().doc("").build())
            .build()
        )


def test_test_default_fields_same_value_overwriting() -> None:
    builder = SchemaBuilder.string().name("testing").version(123)
    builder.name("testing")
    builder.version(123)
    assert builder.build().name == "testing"


def test_test_default_fields_different_value_overwriting() -> None:
    builder = SchemaBuilder.string().name("testing").version(123)
    builder.name("testing")
    with pytest.raises(SchemaBuilderError):
        builder.version(456)


def test_test_field_name_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.struct().field(None, Schema.STRING).build()  # type: ignore[arg-type]


def test_test_field_schema_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.struct().field("fieldName", None).build()  # type: ignore[arg-type]


def test_test_array_schema_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.array(None).build()  # type: ignore[arg-type]


def test_test_map_key_schema_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.map(None, Schema.STRING).build()  # type: ignore[arg-type]


def test_test_map_value_schema_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.map(Schema.STRING, None).build()  # type: ignore[arg-type]


def test_test_type_not_null() -> None:
    with pytest.raises(SchemaBuilderError):
        SchemaBuilder.type(None)  # type: ignore[arg-type]
