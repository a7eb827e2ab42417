"""Connect schemas as Arrow (and so Spark) types, and Connect values as Arrow arrays and back.

One mapping serves both directions: a Connect schema maps to an Arrow type, and Spark's own
Arrow mapping turns that into the Spark type (``pyspark.sql.pandas.types.from_arrow_type``),
so the batches a reader yields always match the schema it declared. Converting a column is
prepared once per schema (:func:`arrow_builder`, :func:`connect_builder`) and then applied to
whole batches: no per-row type dispatch.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import pyarrow as pa
from kconnect_sdk import (
    DataError,
    Date,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    struct_maker,
    struct_values,
)
from kconnect_sdk import Decimal as ConnectDecimal

__all__ = [
    "DECIMAL_PRECISION",
    "arrow_builder",
    "arrow_type",
    "connect_builder",
    "connect_schema",
    "describe_schema",
    "json_default",
    "project_array",
]

DECIMAL_PRECISION = "connect.decimal.precision"
"""The schema parameter that JDBC and Debezium connectors set on Decimal schemas."""

_PRIMITIVES: dict[Type, pa.DataType] = {
    Type.INT8: pa.int8(),
    Type.INT16: pa.int16(),
    Type.INT32: pa.int32(),
    Type.INT64: pa.int64(),
    Type.FLOAT32: pa.float32(),
    Type.FLOAT64: pa.float64(),
    Type.BOOLEAN: pa.bool_(),
    Type.STRING: pa.string(),
    Type.BYTES: pa.binary(),
}

# Spark's TimestampType is microseconds since the epoch in UTC; its TimeType travels as
# nanoseconds (what pyspark's to_arrow_type gives), so ours do too.
_TIMESTAMP = pa.timestamp("us", tz="UTC")
_TIME = pa.time64("ns")


def arrow_type(schema: Schema | None) -> pa.DataType:
    """The Arrow type of values of ``schema``; schemaless values are JSON text.

    Every Connect type has one: the primitives their Arrow namesakes, ``bytes`` binary,
    arrays lists, maps maps, structs structs; the logical types Decimal (precision from the
    ``connect.decimal.precision`` parameter, else 38), Date, Time and Timestamp their Arrow
    (and Spark) counterparts.
    """
    if schema is None:
        return pa.string()
    name = schema.name
    if name == ConnectDecimal.LOGICAL_NAME:
        scale = ConnectDecimal.scale_of(schema)
        precision = int(schema.parameters.get(DECIMAL_PRECISION, "38"))
        return pa.decimal128(max(min(precision, 38), scale, 1), scale)
    if name == Date.LOGICAL_NAME:
        return pa.date32()
    if name == Time.LOGICAL_NAME:
        return _TIME
    if name == Timestamp.LOGICAL_NAME:
        return _TIMESTAMP
    if schema.type in _PRIMITIVES:
        return _PRIMITIVES[schema.type]
    if schema.type is Type.ARRAY:
        return pa.list_(arrow_type(schema.value_schema))
    if schema.type is Type.MAP:
        key = arrow_type(schema.key_schema)
        return pa.map_(key, arrow_type(schema.value_schema))
    return pa.struct([pa.field(f.name, arrow_type(f.schema), nullable=True) for f in schema.fields])


def describe_schema(schema: Schema | None) -> str:
    """A short text naming a schema and its fields, for error messages."""
    if schema is None:
        return "no schema (schemaless)"
    label = schema.name or schema.type.value
    if schema.type is Type.STRUCT:
        fields = ", ".join(f"{f.name}: {describe_schema(f.schema)}" for f in schema.fields)
        return f"{label}{{{fields}}}"
    if schema.type is Type.ARRAY:
        return f"array<{describe_schema(schema.value_schema)}>"
    if schema.type is Type.MAP:
        return f"map<{describe_schema(schema.key_schema)}, {describe_schema(schema.value_schema)}>"
    return label


def json_default(value: Any) -> Any:
    """orjson's ``default`` for Connect values: structs as objects, bytes as base64."""
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, bytes | bytearray):
        import base64

        return base64.b64encode(value).decode()
    if isinstance(value, decimal.Decimal):
        return str(value)
    raise TypeError(type(value).__name__)


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return orjson.dumps(value, default=json_default).decode()


_Builder = Callable[[Sequence[Any]], pa.Array]


def arrow_builder(schema: Schema | None) -> _Builder:
    """A function turning a batch of Connect values of ``schema`` into one Arrow array.

    Built once per schema; a struct column is split into its field columns with one pass
    over the batch, so the per-row Python work is a list lookup, not a type dispatch.
    """
    target = arrow_type(schema)
    if schema is None:
        return lambda values: pa.array([_json_text(v) for v in values], type=target)
    name = schema.name
    if name == ConnectDecimal.LOGICAL_NAME or name in (Date.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        # Python's Decimal, date and aware datetime values convert natively.
        return lambda values: pa.array(values, type=target)
    if name == Time.LOGICAL_NAME:
        return lambda values: pa.array(values, type=pa.time64("us")).cast(target)
    if schema.type in _PRIMITIVES:
        return lambda values: pa.array(values, type=target)
    if schema.type is Type.ARRAY:
        element = arrow_builder(schema.value_schema)

        def build_list(values: Sequence[Any]) -> pa.Array:
            offsets = [0]
            flat: list[Any] = []
            mask = []
            for v in values:
                if v is None:
                    mask.append(True)
                else:
                    mask.append(False)
                    flat.extend(v)
                offsets.append(len(flat))
            return pa.ListArray.from_arrays(
                pa.array(offsets, type=pa.int32()),
                element(flat),
                type=target,
                mask=pa.array(mask, type=pa.bool_()),
            )

        return build_list
    if schema.type is Type.MAP:
        keys_of = arrow_builder(schema.key_schema)
        values_of = arrow_builder(schema.value_schema)

        def build_map(values: Sequence[Any]) -> pa.Array:
            offsets = [0]
            ks: list[Any] = []
            vs: list[Any] = []
            mask = []
            for v in values:
                if v is None:
                    mask.append(True)
                else:
                    mask.append(False)
                    ks.extend(v.keys())
                    vs.extend(v.values())
                offsets.append(len(ks))
            return pa.MapArray.from_arrays(
                pa.array(offsets, type=pa.int32()),
                keys_of(ks),
                values_of(vs),
                type=target,
                mask=pa.array(mask, type=pa.bool_()),
            )

        return build_map
    fields = schema.fields
    children = [arrow_builder(f.schema) for f in fields]
    defaults = [(i, f.schema.default) for i, f in enumerate(fields) if f.schema.default is not None]
    width = len(fields)
    empty = [None] * width

    def build_struct(values: Sequence[Any]) -> pa.Array:
        mask = [v is None for v in values]
        rows = [empty if v is None else _field_values(v, schema) for v in values]
        columns: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * width
        for i, default in defaults:
            # Struct.get gives a field's schema default for an unset value; so do we.
            columns[i] = [default if x is None else x for x in columns[i]]
        arrays = [child(col) for child, col in zip(children, columns, strict=True)]
        return pa.StructArray.from_arrays(
            arrays, fields=list(target), mask=pa.array(mask, type=pa.bool_())
        )

    return build_struct


def _field_values(value: Any, schema: Schema) -> Sequence[Any]:
    if not isinstance(value, Struct):
        raise DataError(
            f"expected a Struct for schema {describe_schema(schema)}, got {type(value).__name__}"
        )
    # The values as put, in field order: one slice instead of a get() per field (the
    # batch's hot loop). Defaults are applied per column by the caller.
    return struct_values(value)


def project_array(array: pa.Array, target: pa.DataType) -> pa.Array:
    """``array`` in the shape of ``target``: struct fields by name (missing ones null, extra
    ones dropped), other types cast (only where Arrow's safe cast allows)."""
    if array.type == target:
        return array
    if pa.types.is_struct(target) and pa.types.is_struct(array.type):
        names = {array.type.field(i).name: i for i in range(array.type.num_fields)}
        children = []
        for field in target:
            if field.name in names:
                children.append(project_array(array.field(names[field.name]), field.type))
            else:
                children.append(pa.nulls(len(array), type=field.type))
        return pa.StructArray.from_arrays(
            children, fields=list(target), mask=array.is_null() if array.null_count else None
        )
    return array.cast(target, safe=True)


# -- Spark (Arrow) → Connect, for the sink side ------------------------------------------------


def connect_schema(arrow: pa.DataType, optional: bool = True) -> Schema:
    """The Connect schema of a column of Arrow type ``arrow`` (a Spark column's type).

    The inverse of :func:`arrow_type`: Spark's decimals become Connect Decimals (with their
    precision in ``connect.decimal.precision``), dates Date, timestamps Timestamp, times Time.
    """
    builder: SchemaBuilder
    if pa.types.is_decimal(arrow):
        builder = ConnectDecimal.builder(arrow.scale).parameter(
            DECIMAL_PRECISION, str(arrow.precision)
        )
    elif pa.types.is_date(arrow):
        builder = Date.builder()
    elif pa.types.is_time(arrow):
        builder = Time.builder()
    elif pa.types.is_timestamp(arrow):
        builder = Timestamp.builder()
    elif pa.types.is_int8(arrow):
        builder = SchemaBuilder.int8()
    elif pa.types.is_int16(arrow):
        builder = SchemaBuilder.int16()
    elif pa.types.is_int32(arrow):
        builder = SchemaBuilder.int32()
    elif pa.types.is_int64(arrow):
        builder = SchemaBuilder.int64()
    elif pa.types.is_float32(arrow):
        builder = SchemaBuilder.float32()
    elif pa.types.is_float64(arrow):
        builder = SchemaBuilder.float64()
    elif pa.types.is_boolean(arrow):
        builder = SchemaBuilder.boolean()
    elif pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
        builder = SchemaBuilder.string()
    elif pa.types.is_binary(arrow) or pa.types.is_large_binary(arrow):
        builder = SchemaBuilder.bytes()
    elif pa.types.is_map(arrow):
        builder = SchemaBuilder.map(
            connect_schema(arrow.key_type, False), connect_schema(arrow.item_type)
        )
    elif pa.types.is_list(arrow) or pa.types.is_large_list(arrow):
        builder = SchemaBuilder.array(connect_schema(arrow.value_type))
    elif pa.types.is_struct(arrow):
        builder = SchemaBuilder.struct()
        for field in arrow:
            builder.field(field.name, connect_schema(field.type, field.nullable))
    elif pa.types.is_null(arrow):
        builder = SchemaBuilder.string()
    else:
        raise DataError(f"the Spark/Arrow type {arrow} has no Connect schema")
    if optional:
        builder.optional()
    return builder.build()


_ToConnect = Callable[[pa.Array], list[Any]]


def connect_builder(schema: Schema, arrow: pa.DataType) -> _ToConnect:
    """A function turning an Arrow array of type ``arrow`` into Connect values of ``schema``."""
    if schema.name == Time.LOGICAL_NAME:
        return lambda array: array.cast(pa.time64("us")).to_pylist()
    if schema.name == Timestamp.LOGICAL_NAME:
        # Connect's Timestamp is an aware UTC datetime; Spark's may come tz-naive.
        return lambda array: array.cast(_TIMESTAMP).to_pylist()
    if schema.type is Type.STRUCT:
        fields = schema.fields
        children = [connect_builder(f.schema, arrow.field(f.name).type) for f in fields]

        make = struct_maker(schema)

        def to_structs(array: pa.Array) -> list[Any]:
            columns = [child(array.field(i)) for i, child in enumerate(children)]
            valid = array.is_valid().to_pylist()
            # A row's values, one per field from the columns the Arrow types were read into.
            return [
                make([column[i] for column in columns]) if ok else None
                for i, ok in enumerate(valid)
            ]

        return to_structs
    if (
        schema.type is Type.ARRAY
        and schema.value_schema is not None
        and _needs_rebuild(schema.value_schema)
    ):
        element = connect_builder(schema.value_schema, arrow.value_type)

        def to_lists(array: pa.Array) -> list[Any]:
            flat = element(array.flatten())
            offsets = array.offsets.to_pylist()
            valid = array.is_valid().to_pylist()
            return [flat[offsets[i] : offsets[i + 1]] if ok else None for i, ok in enumerate(valid)]

        return to_lists
    if schema.type is Type.MAP:

        def to_maps(array: pa.Array) -> list[Any]:
            return [None if v is None else dict(v) for v in array.to_pylist()]

        return to_maps
    return lambda array: array.to_pylist()


def _needs_rebuild(schema: Schema) -> bool:
    return schema.type in (Type.STRUCT, Type.ARRAY, Type.MAP) or schema.name in (
        Time.LOGICAL_NAME,
        Timestamp.LOGICAL_NAME,
    )
