"""Golden cases from Confluent's AvroDataTest: the Avro schemas we register, and back."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from pathlib import Path
from typing import Any

import pytest
from kconnect_converter_avro import AvroData
from kconnect_sdk import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp

GOLDEN = json.loads((Path(__file__).parent / "golden" / "from_connect_schema.json").read_text())

_INNER = SchemaBuilder.struct().field("value", Schema.INT64).optional().build()

_UTC = dt.UTC


def _with_defaults() -> Schema:
    def b(builder: SchemaBuilder, default: Any, doc: str | None = None) -> Schema:
        builder = builder.default_value(default)
        return (builder.doc(doc) if doc else builder).build()

    return (
        SchemaBuilder.struct()
        .field("int8", b(SchemaBuilder.int8(), 2, "int8 field"))
        .field("int16", b(SchemaBuilder.int16(), 12, "int16 field"))
        .field("int32", b(SchemaBuilder.int32(), 12, "int32 field"))
        .field("int64", b(SchemaBuilder.int64(), 12, "int64 field"))
        .field("float32", b(SchemaBuilder.float32(), 12.2, "float32 field"))
        .field("float64", b(SchemaBuilder.float64(), 12.2, "float64 field"))
        .field("boolean", b(SchemaBuilder.boolean(), True, "bool field"))
        .field("string", b(SchemaBuilder.string(), "foo", "string field"))
        .field("bytes", b(SchemaBuilder.bytes(), b"foo", "bytes field"))
        .field("array", b(SchemaBuilder.array(Schema.STRING), ["a", "b", "c"]))
        .field("map", b(SchemaBuilder.map(Schema.STRING, Schema.INT32), {"field": 1}))
        .field(
            "date", b(Date.builder(), dt.date(1970, 1, 1) + dt.timedelta(days=100), "date field")
        )
        .field("time", b(Time.builder(), dt.time(2, 0, tzinfo=_UTC), "time field"))
        .field(
            "ts",
            b(
                Timestamp.builder(),
                dt.datetime(1970, 1, 1, tzinfo=_UTC) + dt.timedelta(milliseconds=1471229028),
                "ts field",
            ),
        )
        .field("decimal", b(Decimal.builder(5), decimal.Decimal("3.14159"), "decimal field"))
        .build()
    )


# The Connect side of each golden case, as the Java test of the same name builds it.
CONNECT: dict[str, tuple[Schema, dict[str, Any]]] = {
    "testFromConnectComplexWithDefaults": (_with_defaults(), {}),
    "testFromConnectByte": (Schema.INT8, {}),
    "testFromConnectShort": (Schema.INT16, {}),
    "testFromConnectInteger": (Schema.INT32, {}),
    "testFromConnectLong": (Schema.INT64, {}),
    "testFromConnectFloat": (Schema.FLOAT32, {}),
    "testFromConnectDouble": (Schema.FLOAT64, {}),
    "testFromConnectBoolean": (Schema.BOOLEAN, {}),
    "testFromConnectBytes": (Schema.BYTES, {}),
    "testFromConnectString": (Schema.STRING, {}),
    "testFromConnectOptionalString": (Schema.OPTIONAL_STRING, {}),
    "testFromConnectMapWithStringKey": (SchemaBuilder.map(Schema.STRING, Schema.INT32).build(), {}),
    "testFromConnectMapWithOptionalKey": (
        SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.INT32).build(),
        {},
    ),
    "testFromConnectMapWithAllowOptionalKey": (
        SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.OPTIONAL_STRING).build(),
        {"allow.optional.map.keys": "true"},
    ),
    "testFromConnectMapWithNonStringKey": (
        SchemaBuilder.map(Schema.INT32, Schema.INT32).build(),
        {},
    ),
    "testFromNamedConnectMapWithNonStringKey": (
        SchemaBuilder.map(Schema.OPTIONAL_STRING, Schema.INT32).name("foo.bar").build(),
        {},
    ),
    "testFromConnectComplex": (
        SchemaBuilder.struct()
        .field("int8", SchemaBuilder.int8().default_value(2).doc("int8 field").build())
        .field("int16", Schema.INT16)
        .field("int32", Schema.INT32)
        .field("int64", Schema.INT64)
        .field("float32", Schema.FLOAT32)
        .field("float64", Schema.FLOAT64)
        .field("boolean", Schema.BOOLEAN)
        .field("string", Schema.STRING)
        .field("bytes", Schema.BYTES)
        .field("array", SchemaBuilder.array(Schema.STRING).build())
        .field("map", SchemaBuilder.map(Schema.STRING, Schema.INT32).build())
        .field("mapNonStringKeys", SchemaBuilder.map(Schema.INT32, Schema.INT32).build())
        .build(),
        {},
    ),
    "testFromConnectStructsWithNullName": (
        SchemaBuilder.struct()
        .field("struct", _INNER)
        .field("array", SchemaBuilder.array(_INNER).build())
        .build(),
        {},
    ),
    "testFromConnectOptionalWithDefaultNull": (
        SchemaBuilder.struct()
        .field("optionalBool", SchemaBuilder.boolean().optional().default_value(None).build())
        .build(),
        {},
    ),
    "testFromConnectOptionalPrimitiveWithMetadata": (
        SchemaBuilder.string()
        .doc("doc")
        .default_value("foo")
        .name("io.confluent.stringtype")
        .version(2)
        .optional()
        .parameter("foo", "bar")
        .parameter("baz", "baz")
        .build(),
        {},
    ),
    "testFromConnectRecordWithMetadata": (
        SchemaBuilder.struct()
        .name("io.confluent.test.TestSchema")
        .version(12)
        .doc("doc")
        .field("int32", Schema.INT32)
        .build(),
        {},
    ),
    "testFromConnectLogicalDecimalNew": (
        Decimal.builder(2).parameter("connect.decimal.precision", "64").build(),
        {},
    ),
    "testFromConnectLogicalDecimalScaleGreaterThanPrecision": (
        Decimal.builder(7).parameter("connect.decimal.precision", "5").build(),
        {},
    ),
    "testFromConnectLogicalDateNew": (Date.SCHEMA, {}),
    "testFromConnectLogicalTimeNew": (Time.SCHEMA, {}),
    "testFromConnectLogicalTimestampNew": (Timestamp.SCHEMA, {}),
    "testFromConnectLogicalDecimalFixedNew": (
        Decimal.builder(2)
        .parameter("connect.decimal.precision", "64")
        .parameter("connect.fixed.size", "100")
        .build(),
        {},
    ),
}


def test_every_golden_case_has_a_connect_side() -> None:
    assert set(CONNECT) == {k for k in GOLDEN if not k.startswith("_")}


@pytest.mark.parametrize("case", sorted(CONNECT))
def test_from_connect_schema_matches_confluent(case: str) -> None:
    schema, config = CONNECT[case]
    assert AvroData(config).from_connect_schema(schema) == GOLDEN[case]


@pytest.mark.parametrize("case", sorted(CONNECT))
def test_golden_schema_maps_back_to_connect(case: str) -> None:
    schema, config = CONNECT[case]
    data = AvroData(config)
    back = data.to_connect_schema(GOLDEN[case])
    # Confluent's round trip gives the same schema, except that Avro field defaults are
    # remembered with a flag parameter (checked in the test below).
    assert back.type is schema.type
    assert back.name == schema.name
    assert back.optional == schema.optional or schema.type is Schema.STRUCT


def test_to_connect_record_with_metadata() -> None:
    """testToConnectRecordWithMetadata: a field default and field doc become parameters."""
    avro = {
        "type": "record",
        "name": "TestSchema",
        "namespace": "io.confluent.test",
        "fields": [{"name": "int32", "type": "int", "doc": "field doc", "default": 7}],
        "connect.name": "io.confluent.test.TestSchema",
        "connect.version": 12,
        "connect.doc": "doc",
    }
    expected = (
        SchemaBuilder.struct()
        .name("io.confluent.test.TestSchema")
        .version(12)
        .doc("doc")
        .field(
            "int32",
            SchemaBuilder.int32()
            .default_value(7)
            .parameter("io.confluent.connect.avro.field.default", "true")
            .build(),
        )
        .parameter("io.confluent.connect.avro.field.doc.int32", "field doc")
        .build()
    )
    data = AvroData()
    assert data.to_connect_schema(avro) == expected
    value = data.to_connect_data(expected, {"int32": 12})
    assert value == Struct(expected).put("int32", 12)
    # Back to Avro: the flag is not written as a parameter, the field doc is restored.
    again = data.from_connect_schema(expected)
    assert again["fields"][0]["doc"] == "field doc"
    assert "connect.parameters" not in again["fields"][0]["type"]


def test_to_connect_optional_primitive_with_metadata() -> None:
    """testToConnectOptionalPrimitiveWithConnectMetadata."""
    expected = CONNECT["testFromConnectOptionalPrimitiveWithMetadata"][0]
    assert (
        AvroData().to_connect_schema(GOLDEN["testFromConnectOptionalPrimitiveWithMetadata"])
        == expected
    )


def test_to_connect_enum_and_union_under_enhanced_support() -> None:
    avro = {
        "type": "record",
        "name": "R",
        "fields": [
            {
                "name": "e",
                "type": {
                    "type": "enum",
                    "name": "Color",
                    "namespace": "x",
                    "symbols": ["RED", "GREEN"],
                },
            },
            {"name": "u", "type": ["null", "int", "string"], "default": None},
        ],
    }
    data = AvroData({"enhanced.avro.schema.support": "true"})
    schema = data.to_connect_schema(avro)
    enum = schema.field("e").schema  # type: ignore[union-attr]
    assert enum.type.value == "string"
    assert dict(enum.parameters) == {
        "io.confluent.connect.avro.Enum": "x.Color",
        "io.confluent.connect.avro.Enum.RED": "RED",
        "io.confluent.connect.avro.Enum.GREEN": "GREEN",
    }
    union = schema.field("u").schema  # type: ignore[union-attr]
    assert union.name == "io.confluent.connect.avro.Union"
    assert [f.name for f in union.fields] == ["int", "string"]
    assert union.optional
    # Back to Avro, the enum and the union come back as they were.
    again = data.from_connect_schema(schema)
    assert again["fields"][0]["type"]["type"] == "enum"
    assert again["fields"][0]["type"]["symbols"] == ["RED", "GREEN"]
    assert again["fields"][1]["type"] == ["null", "int", "string"]
    value = data.to_connect_data(schema, {"e": "GREEN", "u": "hi"})
    assert value.get("e") == "GREEN"
    assert value.get("u").get("string") == "hi"
    assert data.from_connect_data(schema, value) == {"e": "GREEN", "u": "hi"}


def test_scrub_invalid_names() -> None:
    schema = (
        SchemaBuilder.struct().name("com.my-co.Order!").field("total-price", Schema.INT32).build()
    )
    avro = AvroData({"scrub.invalid.names": "true"}).from_connect_schema(schema)
    assert avro["name"] == "Order_21"
    assert avro["namespace"] == "com.my_co"
    assert avro["fields"][0]["name"] == "total_price"


def test_connect_meta_data_false_drops_connect_properties() -> None:
    schema, _ = CONNECT["testFromConnectRecordWithMetadata"]
    avro = AvroData({"connect.meta.data": "false"}).from_connect_schema(schema)
    assert avro == {
        "type": "record",
        "name": "TestSchema",
        "namespace": "io.confluent.test",
        "fields": [{"name": "int32", "type": "int"}],
    }


@pytest.mark.parametrize("case", sorted(CONNECT))
def test_rendering_is_idempotent(case: str) -> None:
    from kconnect_converter_avro import render_avro_schema

    assert render_avro_schema(GOLDEN[case]) == GOLDEN[case]


def test_unnamed_namespace_inside_a_namespaced_record() -> None:
    inner = SchemaBuilder.struct().name("Plain").field("a", Schema.INT32).build()
    outer = SchemaBuilder.struct().name("com.x.Outer").field("p", inner).build()
    avro = AvroData().from_connect_schema(outer)
    # Avro Java writes an empty namespace for a name without one inside a namespaced record.
    assert avro["fields"][0]["type"] == {
        "type": "record",
        "name": "Plain",
        "namespace": "",
        "fields": [{"name": "a", "type": "int"}],
        "connect.name": "Plain",
    }
    assert AvroData().to_connect_schema(avro) == outer


def test_complex_with_defaults_round_trips_to_the_same_connect_schema() -> None:
    """testFromConnectComplexWithDefaults: Connect -> Avro -> Connect gives the schema back."""
    schema, _ = CONNECT["testFromConnectComplexWithDefaults"]
    data = AvroData()
    assert data.to_connect_schema(data.from_connect_schema(schema)) == schema
