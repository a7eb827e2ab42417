"""Methods of Confluent's ``AvroDataTest`` (schema-registry avro-data) that check values,
generalized sum types, the Variant logical type and invalid defaults; one test per method,
named after it. Expected values are the Java test's. (Schema-shape methods: test_golden.py.)
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from kconnect_converter_avro import AvroData
from kconnect_sdk import DataError, Schema, SchemaBuilder, Struct

GENERALIZED = {"generalized.sum.type.support": True, "schemas.cache.config": 2}


def test_from_connect_mismatch_schema_primitive() -> None:
    with pytest.raises(DataError):
        AvroData().from_connect_data(Schema.OPTIONAL_BOOLEAN, 12)


def test_from_connect_mismatch_schema_primitive_required() -> None:
    with pytest.raises(DataError):
        AvroData().from_connect_data(Schema.BOOLEAN, None)


def test_from_connect_mismatch_schema_array() -> None:
    with pytest.raises(DataError, match=r"\[0\]"):
        AvroData().from_connect_data(SchemaBuilder.array(Schema.BOOLEAN).build(), [12])


def test_from_connect_mismatch_schema_map_with_string_key_mismatch_key() -> None:
    with pytest.raises(DataError):
        AvroData().from_connect_data(
            SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {True: 12}
        )


def test_from_connect_mismatch_schema_map_with_string_key_mismatch_value() -> None:
    # Java passes 12L (a Long) for an INT32 value; Python ints have no width, so the
    # misfit here is a value beyond int32.
    with pytest.raises(DataError, match="foobar"):
        AvroData().from_connect_data(
            SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {"foobar": 2**40}
        )


def test_from_connect_mismatch_schema_map_with_non_string_key_mismatch_key() -> None:
    with pytest.raises(DataError):
        AvroData().from_connect_data(
            SchemaBuilder.map(Schema.INT32, Schema.INT32).build(), {True: 12}
        )


def test_from_connect_mismatch_schema_map_with_non_string_key_mismatch_value() -> None:
    with pytest.raises(DataError):  # 12L in Java; see above
        AvroData().from_connect_data(
            SchemaBuilder.map(Schema.INT32, Schema.INT32).build(), {12: 2**40}
        )


def test_from_connect_mismatch_schema_record() -> None:
    first = SchemaBuilder.struct().field("foo", Schema.BOOLEAN).build()
    second = SchemaBuilder.struct().field("foo", Schema.OPTIONAL_BOOLEAN).build()
    with pytest.raises(DataError):
        AvroData().from_connect_data(first, Struct(second).put("foo", None))


def test_to_connect_record_with_illegal_null_value() -> None:
    avro = {"type": "record", "name": "Record", "fields": [{"name": "string", "type": "string"}]}
    data = AvroData()
    with pytest.raises(DataError, match="string"):
        data.to_connect_data(data.to_connect_schema(avro), {"string": None})


def _to_connect(avro: Any, datum: Any) -> Any:
    data = AvroData()
    return data.to_connect_data(data.to_connect_schema(avro), datum)


def test_to_connect_schema_mismatch_primitive() -> None:
    with pytest.raises(DataError):  # 12L for an int in Java: here a value beyond int32
        _to_connect("int", 2**40)


def test_to_connect_schema_mismatch_array() -> None:
    with pytest.raises(DataError):
        _to_connect({"type": "array", "items": "string"}, [1, 2, 3])


def test_to_connect_schema_mismatch_map_mismatch_key() -> None:
    with pytest.raises(DataError):
        _to_connect({"type": "map", "values": "int"}, {12: 12})


def test_to_connect_schema_mismatch_map_mismatch_value() -> None:
    with pytest.raises(DataError):  # 12L in Java; see above
        _to_connect({"type": "map", "values": "int"}, {"foo": 2**40})


def test_to_connect_schema_mismatch_record() -> None:
    avro = {"type": "record", "name": "Record", "fields": [{"name": "string", "type": "string"}]}
    with pytest.raises(DataError):
        _to_connect(avro, {"string": 12})


def test_from_connect_enum_with_generalized_sum_type_support() -> None:
    avro = {
        "type": "enum",
        "name": "TestEnum",
        "doc": "some documentation",
        "symbols": ["foo", "bar", "baz"],
    }
    data = AvroData(GENERALIZED)
    schema = data.to_connect_schema(avro)
    expected = (
        SchemaBuilder.string()
        .name("TestEnum")
        .parameter("io.confluent.connect.avro.enum.doc.TestEnum", "some documentation")
        .parameter("org.apache.kafka.connect.data.Enum", "TestEnum")
        .parameter("org.apache.kafka.connect.data.Enum.foo", "0")
        .parameter("org.apache.kafka.connect.data.Enum.bar", "1")
        .parameter("org.apache.kafka.connect.data.Enum.baz", "2")
        .build()
    )
    assert schema == expected
    assert data.to_connect_data(schema, "bar") == "bar"
    back = data.from_connect_schema(schema)
    assert back["type"] == "enum" and back["symbols"] == ["foo", "bar", "baz"]
    assert data.from_connect_data(schema, "bar") == "bar"
    with pytest.raises(DataError):
        data.from_connect_data(schema, "qux")


def _generalized_union() -> tuple[Schema, Schema, Schema]:
    record1 = SchemaBuilder.struct().name("Test1").field("test", Schema.INT32).optional().build()
    record2 = (
        SchemaBuilder.struct()
        .name("io.confluent.Test2")
        .field("test", Schema.INT32)
        .optional()
        .build()
    )
    schema = (
        SchemaBuilder.struct()
        .name("connect_union_0")
        .parameter("org.apache.kafka.connect.data.Union", "connect_union_0")
        .field("connect_union_field_0", Schema.OPTIONAL_INT32)
        .field("connect_union_field_1", Schema.OPTIONAL_STRING)
        .field("connect_union_field_2", record1)
        .field("connect_union_field_3", record2)
        .build()
    )
    return schema, record1, record2


def test_from_connect_union_with_generalized_sum_type_support() -> None:
    data = AvroData(GENERALIZED)
    schema, record1, record2 = _generalized_union()
    assert data.from_connect_data(schema, Struct(schema).put("connect_union_field_0", 12)) == 12
    assert (
        data.from_connect_data(schema, Struct(schema).put("connect_union_field_1", "teststring"))
        == "teststring"
    )
    one = Struct(schema).put("connect_union_field_2", Struct(record1).put("test", 12))
    two = Struct(schema).put("connect_union_field_3", Struct(record2).put("test", 12))
    # Named members carry their Avro name, as GenericRecord does.
    assert data.from_connect_data(schema, one) == ("Test1", {"test": 12})
    assert data.from_connect_data(schema, two) == ("io.confluent.Test2", {"test": 12})
    avro = data.from_connect_schema(schema)
    assert isinstance(avro, list) and avro[:2] == ["int", "string"]


def test_to_connect_union_with_generalized_sum_type_support() -> None:
    avro = [
        "int",
        "string",
        {
            "type": "record",
            "name": "Test1",
            "fields": [{"name": "test", "type": "int"}],
            "connect.name": "Test1",
        },
        {
            "type": "record",
            "name": "Test2",
            "namespace": "io.confluent",
            "fields": [{"name": "test", "type": "int"}],
            "connect.name": "io.confluent.Test2",
        },
    ]
    data = AvroData(GENERALIZED)
    schema = data.to_connect_schema(avro)
    expected, record1, record2 = _generalized_union()
    assert schema == expected
    assert data.to_connect_data(schema, 12) == Struct(schema).put("connect_union_field_0", 12)
    assert data.to_connect_data(schema, "teststring") == Struct(schema).put(
        "connect_union_field_1", "teststring"
    )
    assert data.to_connect_data(schema, ("Test1", {"test": 12})) == Struct(schema).put(
        "connect_union_field_2", Struct(record1).put("test", 12)
    )
    assert data.to_connect_data(schema, ("io.confluent.Test2", {"test": 12})) == Struct(schema).put(
        "connect_union_field_3", Struct(record2).put("test", 12)
    )


def test_to_connect_enum_with_generalized_sum_type_support() -> None:
    avro = {
        "type": "enum",
        "name": "TestEnum",
        "doc": "some documentation",
        "symbols": ["foo", "bar", "baz"],
    }
    schema = AvroData(GENERALIZED).to_connect_schema(avro)
    assert schema.parameters["org.apache.kafka.connect.data.Enum"] == "TestEnum"
    assert schema.parameters["org.apache.kafka.connect.data.Enum.baz"] == "2"


VARIANT = (
    SchemaBuilder.struct()
    .name("org.apache.kafka.connect.data.Variant")
    .field("metadata", Schema.BYTES)
    .field("value", Schema.BYTES)
)


def test_from_connect_logical_variant() -> None:
    schema = VARIANT.build()
    # Variant bytes are opaque to the converter: they pass through unchanged.
    metadata, value = b"\x01\x01\x00\x04name", b"\x02\x01\x00\x00\x06\x15Alice"
    data = AvroData()
    avro = data.from_connect_schema(schema)
    assert avro["type"] == "record" and avro["logicalType"] == "variant"
    assert avro["name"] == "Variant" and avro["namespace"] == "confluent.type"
    datum = data.from_connect_data(
        schema, Struct(schema).put("metadata", metadata).put("value", value)
    )
    assert datum == {"metadata": metadata, "value": value}


def test_to_connect_variant() -> None:
    avro = {
        "type": "record",
        "name": "confluent.type.Variant",
        "logicalType": "variant",
        "fields": [{"name": "metadata", "type": "bytes"}, {"name": "value", "type": "bytes"}],
    }
    data = AvroData()
    schema = data.to_connect_schema(avro)
    assert schema.name == "org.apache.kafka.connect.data.Variant"
    value = data.to_connect_data(schema, {"metadata": b"\x01\x00\x00", "value": b"\x15hello"})
    assert isinstance(value, Struct) and value.get("value") == b"\x15hello"


def test_float_with_invalid_default() -> None:
    avro = {
        "type": "record",
        "name": "SomeThing",
        "namespace": "com.acme.property",
        "fields": [{"name": "f", "type": "float", "default": [1.23]}],
    }
    field = AvroData({"schemas.cache.config": 0}).to_connect_schema(avro).field("f")
    assert field is not None and field.schema.default is None


def test_nested_record_with_invalid_default() -> None:
    avro = {
        "name": "RecordWithObjectDefault",
        "type": "record",
        "fields": [
            {
                "name": "obj",
                "type": {
                    "name": "Object",
                    "type": "record",
                    "connect.default": [1.23],
                    "fields": [{"name": "nullableString", "type": ["null", "string"]}],
                },
            }
        ],
    }
    data = AvroData({"schemas.cache.config": 0})
    schema = data.to_connect_schema(avro)  # Confluent ignores the unusable default
    value = data.to_connect_data(schema, {"obj": {"nullableString": None}})
    assert value.get("obj") is not None
    assert value.get("obj").get("nullableString") is None


def test_date_beyond_year_9999_is_a_data_error() -> None:
    # Not an upstream method: Java dates reach further than Python's; the decode must still
    # fail as bad data, not with OverflowError.
    data = AvroData()
    schema = data.to_connect_schema({"type": "int", "logicalType": "date"})
    with pytest.raises(DataError, match="9999"):
        data.to_connect_data(schema, 2**31 - 1)
    assert data.to_connect_data(schema, 0) == dt.date(1970, 1, 1)
