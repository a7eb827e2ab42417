"""Apache Kafka's ``StructTest``, method by method.

Kafka's typed getters (``getInt8``...) are Python's one ``get``; a Java ``byte[]`` and a
``ByteBuffer`` are both Python ``bytes``.
"""

from __future__ import annotations

import pytest
from kconnect_sdk import DataError, Field, Schema, SchemaBuilder, Struct

FLAT = (
    SchemaBuilder.struct()
    .field("int8", Schema.INT8)
    .field("int16", Schema.INT16)
    .field("int32", Schema.INT32)
    .field("int64", Schema.INT64)
    .field("float32", Schema.FLOAT32)
    .field("float64", Schema.FLOAT64)
    .field("boolean", Schema.BOOLEAN)
    .field("string", Schema.STRING)
    .field("bytes", Schema.BYTES)
    .build()
)
ARRAY = SchemaBuilder.array(Schema.INT8).build()
MAP = SchemaBuilder.map(Schema.INT32, Schema.STRING).build()
CHILD = SchemaBuilder.struct().field("int8", Schema.INT8).build()
NESTED = (
    SchemaBuilder.struct().field("array", ARRAY).field("map", MAP).field("nested", CHILD).build()
)
REQUIRED = Schema.INT8
OPTIONAL = SchemaBuilder.int8().optional().build()
DEFAULTED = SchemaBuilder.int8().default_value(0).build()


def _flat(string: str = "foobar", data: bytes = b"foobar") -> Struct:
    return (
        Struct(FLAT)
        .put("int8", 12)
        .put("int16", 12)
        .put("int32", 12)
        .put("int64", 12)
        .put("float32", 12.0)
        .put("float64", 12.0)
        .put("boolean", True)
        .put("string", string)
        .put("bytes", data)
    )


def _nested(array: list[int], key: int, child: int) -> Struct:
    return (
        Struct(NESTED)
        .put("array", array)
        .put("map", {key: "string"})
        .put("nested", Struct(CHILD).put("int8", child))
    )


def test_test_flat_struct() -> None:
    struct = _flat()
    expected = {
        "int8": 12,
        "int16": 12,
        "int32": 12,
        "int64": 12,
        "float32": 12.0,
        "float64": 12.0,
        "boolean": True,
        "string": "foobar",
        "bytes": b"foobar",
    }
    for name, value in expected.items():
        assert struct.get(name) == value
    struct.validate()


def test_test_complex_struct() -> None:
    struct = _nested([1, 2], 1, 12)
    assert struct.get("array") == [1, 2]
    assert struct.get("map") == {1: "string"}
    assert struct.get("nested").get("int8") == 12
    struct.validate()


@pytest.mark.parametrize(
    ("schema", "field", "value"),
    [
        (FLAT, "int8", "should fail because this is a string, not int8"),
        (NESTED, "array", ["should fail since elements should be int8s"]),
        (NESTED, "map", {"should fail because keys should be int8s": 12}),
    ],
    ids=[
        "test_invalid_field_type",
        "test_invalid_array_field_elements",
        "test_invalid_map_key_elements",
    ],
)
def test_invalid_values(schema: Schema, field: str, value: object) -> None:
    with pytest.raises(DataError):
        Struct(schema).put(field, value)


def test_test_invalid_struct_field_schema() -> None:
    with pytest.raises(DataError):
        Struct(NESTED).put("nested", Struct(MAP))


def test_test_invalid_struct_field_value() -> None:
    with pytest.raises(DataError):
        Struct(NESTED).put("nested", Struct(CHILD))


def test_test_missing_field_validation() -> None:
    with pytest.raises(DataError):
        Struct(SchemaBuilder.struct().field("field", REQUIRED).build()).validate()


def test_test_missing_optional_field_validation() -> None:
    Struct(SchemaBuilder.struct().field("field", OPTIONAL).build()).validate()


def test_test_missing_field_with_default_validation() -> None:
    Struct(SchemaBuilder.struct().field("field", DEFAULTED).build()).validate()


def test_test_missing_field_with_default_value() -> None:
    assert Struct(SchemaBuilder.struct().field("field", DEFAULTED).build()).get("field") == 0


def test_test_missing_field_without_default_value() -> None:
    assert Struct(SchemaBuilder.struct().field("field", REQUIRED).build()).get("field") is None


def test_test_equals() -> None:
    assert _flat() == _flat()
    assert _flat() != _flat(string="mismatching string")
    assert _nested([1, 2], 1, 12) == _nested([1, 2], 1, 12)
    assert _nested([1, 2], 1, 12) != _nested([1, 2, 3], 2, 13)


def test_test_equals_and_hash_code_with_byte_array_value() -> None:
    struct1, struct2 = _flat(), _flat()
    struct3 = _flat(data=b"mismatching_string")
    assert struct1 == struct2
    assert struct2 == struct1
    assert struct1 != struct3
    assert struct2 != struct3
    assert hash(struct1) == hash(struct2)
    assert hash(struct1) != hash(struct3)
    assert hash(struct2) != hash(struct3)


def test_test_validate_struct_with_null_value() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("one", Schema.STRING)
        .field("two", Schema.STRING)
        .field("three", Schema.STRING)
        .build()
    )
    with pytest.raises(DataError) as info:
        Struct(schema).validate()
    assert (
        str(info.value) == 'Invalid value: null used for required field: "one", schema type: STRING'
    )


def test_test_put_null_field() -> None:
    struct = Struct(SchemaBuilder.struct().field("fieldName", Schema.STRING))
    with pytest.raises(DataError):
        struct.put(None, "valid")  # type: ignore[arg-type]  # Kafka's test passes a null Field
    assert isinstance(struct.schema.fields[0], Field)


def test_test_invalid_put_includes_field_name() -> None:
    struct = Struct(SchemaBuilder.struct().field("fieldName", Schema.STRING))
    with pytest.raises(DataError) as info:
        struct.put("fieldName", None)
    assert str(info.value) == (
        'Invalid value: null used for required field: "fieldName", schema type: STRING'
    )
