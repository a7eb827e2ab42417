"""Every Connect type and logical type has a Spark type, and values survive the trip both ways."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pyarrow as pa
import pytest
from kconnect_runtime.dataframes import arrow_type, connect_schema
from kconnect_runtime.dataframes._types import arrow_builder, connect_builder
from kconnect_sdk import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from pyspark.sql.pandas.types import from_arrow_type
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
    TimeType,
)

UTC = dt.UTC

# (Connect schema, the Spark type a user sees, values including a null)
CASES: list[tuple[str, Schema, Any, list[Any]]] = [
    ("int8", Schema.OPTIONAL_INT8, ByteType(), [-128, 127, None]),
    ("int16", Schema.OPTIONAL_INT16, ShortType(), [-32768, 32767, None]),
    ("int32", Schema.OPTIONAL_INT32, IntegerType(), [-(2**31), 2**31 - 1, None]),
    ("int64", Schema.OPTIONAL_INT64, LongType(), [-(2**63), 2**63 - 1, None]),
    ("float32", Schema.OPTIONAL_FLOAT32, FloatType(), [1.5, -0.25, None]),
    ("float64", Schema.OPTIONAL_FLOAT64, DoubleType(), [1e300, -2.5, None]),
    ("boolean", Schema.OPTIONAL_BOOLEAN, BooleanType(), [True, False, None]),
    ("string", Schema.OPTIONAL_STRING, StringType(), ["héllo", "", None]),
    ("bytes", Schema.OPTIONAL_BYTES, BinaryType(), [b"\x00\xff", b"", None]),
    (
        "Decimal",
        Decimal.builder(2).optional().build(),
        DecimalType(38, 2),
        [decimal.Decimal("12345678901234567890123456789012.34"), decimal.Decimal("-0.01"), None],
    ),
    (
        "Decimal with connect.decimal.precision",
        Decimal.builder(3).parameter("connect.decimal.precision", "10").optional().build(),
        DecimalType(10, 3),
        [decimal.Decimal("1234567.891"), None, decimal.Decimal("0.000")],
    ),
    (
        "Date",
        Date.builder().optional().build(),
        DateType(),
        [dt.date(1970, 1, 1), dt.date(2024, 2, 29), None],
    ),
    (
        "Time",
        Time.builder().optional().build(),
        TimeType(6),
        [dt.time(0, 0), dt.time(23, 59, 59, 999000), None],
    ),
    (
        "Timestamp",
        Timestamp.builder().optional().build(),
        TimestampType(),
        [
            dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
            dt.datetime(1969, 12, 31, tzinfo=UTC),
            None,
        ],
    ),
    (
        "array",
        SchemaBuilder.array(Schema.OPTIONAL_INT32).optional().build(),
        ArrayType(IntegerType(), True),
        [[1, None, 3], [], None],
    ),
    (
        "map",
        SchemaBuilder.map(Schema.STRING, Schema.OPTIONAL_FLOAT64).optional().build(),
        MapType(StringType(), DoubleType(), True),
        [{"a": 1.0, "b": None}, {}, None],
    ),
]


@pytest.mark.parametrize(("label", "schema", "spark", "values"), CASES, ids=[c[0] for c in CASES])
def test_connect_type_maps_to_spark_type_and_values_survive(
    label: str, schema: Schema, spark: Any, values: list[Any]
) -> None:
    assert from_arrow_type(arrow_type(schema)) == spark, label
    array = arrow_builder(schema)(values)
    assert from_arrow_type(array.type) == spark
    back_schema = connect_schema(array.type)
    back = connect_builder(back_schema, array.type)(array)
    if schema.type.value == "map":
        assert back == values
    else:
        assert back == values
    # Spark's type back to Connect keeps the type and the logical name.
    assert back_schema.type == schema.type
    assert back_schema.name == schema.name


def test_struct_with_nested_struct_array_and_defaults() -> None:
    inner = SchemaBuilder.struct().field("x", Schema.INT32).optional().build()
    schema = (
        SchemaBuilder.struct()
        .name("shop.Order")
        .field("id", Schema.INT64)
        .field("note", SchemaBuilder.string().optional().default_value("none").build())
        .field("inner", inner)
        .field("tags", SchemaBuilder.array(Schema.STRING).optional().build())
        .build()
    )
    one = Struct(schema).put("id", 1).put("inner", Struct(inner).put("x", 7)).put("tags", ["a"])
    two = Struct(schema).put("id", 2).put("note", "rush")
    array = arrow_builder(schema)([one, two, None])
    assert from_arrow_type(array.type) == StructType(
        [
            StructField("id", LongType()),
            StructField("note", StringType()),
            StructField("inner", StructType([StructField("x", IntegerType())])),
            StructField("tags", ArrayType(StringType())),
        ]
    )
    assert array.to_pylist() == [
        # An unset field reads as its schema's default, as Struct.get gives it.
        {"id": 1, "note": "none", "inner": {"x": 7}, "tags": ["a"]},
        {"id": 2, "note": "rush", "inner": None, "tags": None},
        None,
    ]
    back = connect_builder(connect_schema(array.type), array.type)(array)
    assert [b.to_dict() if b is not None else None for b in back] == [
        {"id": 1, "note": "none", "inner": {"x": 7}, "tags": ["a"]},
        {"id": 2, "note": "rush", "inner": None, "tags": None},
        None,
    ]


def test_schemaless_values_are_json_text() -> None:
    array = arrow_builder(None)([{"a": [1, 2]}, "x", None])
    assert array.type == pa.string()
    assert array.to_pylist() == ['{"a":[1,2]}', '"x"', None]


def _encoder(mode: str) -> Any:
    from kconnect_runtime.dataframes import ConnectorPlan
    from kconnect_runtime.dataframes._rows import RowEncoder, row_schema
    from kconnect_sdk import PluginKind
    from pyspark.sql.pandas.types import from_arrow_type as spark_type

    plan = ConnectorPlan(
        "evolving",
        "FileStreamSource",
        PluginKind.SOURCE,
        {"connector.class": "FileStreamSource"},
        ({},),
        {
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
        {"kconnect.schema.evolution": mode},
    )
    wide = pa.struct(
        [pa.field("id", pa.int64()), pa.field("name", pa.string()), pa.field("color", pa.string())]
    )
    return RowEncoder(plan, row_schema(pa.string(), wide), spark_type)


V1 = (
    SchemaBuilder.struct()
    .name("item")
    .field("id", Schema.INT32)
    .field("name", Schema.STRING)
    .build()
)
V2 = (
    SchemaBuilder.struct()
    .name("item")
    .field("id", Schema.INT32)
    .field("name", Schema.STRING)
    .field("color", Schema.OPTIONAL_STRING)
    .field("size", Schema.OPTIONAL_INT32)
    .build()
)


def _records() -> list[Any]:
    from kconnect_sdk import SourceRecord

    return [
        SourceRecord(
            topic="items",
            value_schema=V1,
            value=Struct(V1).put("id", 1).put("name", "a"),
            source_partition={"t": "items"},
            source_offset={"pos": 1},
        ),
        SourceRecord(
            topic="items",
            value_schema=V2,
            value=Struct(V2).put("id", 2).put("name", "b").put("color", "red").put("size", 3),
            source_partition={"t": "items"},
            source_offset={"pos": 2},
        ),
    ]


def test_schema_change_fails_by_default_naming_the_new_schema() -> None:
    from kconnect_sdk import ConnectError

    encoder = _encoder("fail")
    with pytest.raises(
        ConnectError,
        match=r"value schema changed mid-stream.*offset \{\"pos\":1\}.*item\{id: int32, name: string\}",
    ) as info:
        encoder.encode(_records())
    assert "kconnect.schema.evolution=project" in str(info.value)


def test_schema_change_maps_onto_a_wider_schema_when_allowed() -> None:
    batch = _encoder("project").encode(_records())
    assert batch.column("value").to_pylist() == [
        {"id": 1, "name": "a", "color": None},
        # int32 widens to the query's bigint; the field the query does not have is dropped.
        {"id": 2, "name": "b", "color": "red"},
    ]
