"""The JSON encoding the Java harness and the Python side both write (see ConnectHarness.java).

A value carries its Java type as a tag (``{"i32": 5}``, ``{"f64": "<bits>"}``, ``{"ts": ms}``),
so the two sides can be compared exactly: a float by its bits, a Decimal by its unscaled value
and scale, a struct with its schema. Python has one ``int`` and one ``float``; without a schema
to say which Java type they stand for, kconnect's values are tagged ``int`` and ``float`` and
the comparison accepts any Java integer (or floating-point) type of the same value there.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import struct
from collections.abc import Mapping
from typing import Any, Final

from kconnect_sdk import ConnectRecord, Headers, Schema, SinkRecord, Struct, Type

__all__ = [
    "Wire",
    "decode_bytes",
    "encode_bytes",
    "encode_headers",
    "encode_record",
    "encode_schema",
    "encode_value",
    "float_bits",
    "float_of_bits",
]

Wire = Any  # a JSON value in the encoding above

_INT_TAGS: Final = {Type.INT8: "i8", Type.INT16: "i16", Type.INT32: "i32", Type.INT64: "i64"}
_FLOAT_TAGS: Final = {Type.FLOAT32: "f32", Type.FLOAT64: "f64"}
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DATE: Final = dt.date(1970, 1, 1)
_MS_PER_DAY: Final = 86_400_000


def _fits(value: int, typ: Type) -> bool:
    bits = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32}.get(typ, 64)
    return -(1 << (bits - 1)) <= value < 1 << (bits - 1)


def float_bits(value: float) -> str:
    """The IEEE-754 double bits of ``value`` as 16 hex digits (every NaN as Java's one NaN)."""
    if math.isnan(value):
        return "7ff8000000000000"
    return struct.pack(">d", value).hex()


def float_of_bits(bits: str) -> float:
    return float(struct.unpack(">d", bytes.fromhex(bits))[0])


def encode_bytes(data: bytes | bytearray | memoryview | None) -> str | None:
    return None if data is None else base64.b64encode(bytes(data)).decode("ascii")


def decode_bytes(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def encode_schema(schema: Schema | None, *, for_java: bool = False) -> Wire:
    """``schema`` in the wire encoding; ``for_java`` as in :func:`encode_value`."""
    if schema is None:
        return None
    node: dict[str, Any] = {"type": schema.type.value, "optional": schema.optional}
    if schema.name is not None:
        node["name"] = schema.name
    if schema.version is not None:
        node["version"] = schema.version
    if schema.doc is not None:
        node["doc"] = schema.doc
    if schema.parameters:
        node["parameters"] = dict(schema.parameters)
    if schema.type is Type.STRUCT:
        node["fields"] = [
            {"name": f.name, "schema": encode_schema(f.schema, for_java=for_java)}
            for f in schema.fields
        ]
    if schema.type is Type.MAP:
        node["keySchema"] = encode_schema(schema.key_schema, for_java=for_java)
    if schema.type in (Type.ARRAY, Type.MAP):
        node["valueSchema"] = encode_schema(schema.value_schema, for_java=for_java)
    if schema.default is not None:
        default = schema.default
        # As the harness: a struct default is this schema's value, written without a schema.
        node["default"] = (
            _encode_struct(default, for_java=for_java, with_schema=False)
            if isinstance(default, Struct)
            else encode_value(default, schema, for_java=for_java)
        )
    return node


def _millis(value: dt.datetime | dt.date | dt.time) -> tuple[int, int]:
    """Epoch (or, for a time of day, midnight) milliseconds and the microseconds left over."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        delta = aware - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(value, dt.date):
        micros = (value - _EPOCH_DATE).days * _MS_PER_DAY * 1000
    else:
        offset = value.utcoffset() or dt.timedelta(0)
        micros = (
            ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000
            + value.microsecond
            - (offset.days * 86_400 + offset.seconds) * 1_000_000
        )
    millis, rest = divmod(micros, 1000)
    return millis, rest


def encode_value(value: Any, schema: Schema | None = None, *, for_java: bool = False) -> Wire:
    """``value`` in the wire encoding.

    ``schema`` (the schema the value sits under, if any) picks the Java width of a Python
    int or float. ``for_java`` encodes an input for the harness: an int or float with no
    such schema becomes a Long or Double, as Kafka's JsonConverter reads a JSON number;
    otherwise it is tagged ``int``/``float`` (kconnect's output, compared loosely).
    """
    if value is None or isinstance(value, bool | str):
        return value
    typ = schema.type if schema is not None else None
    if isinstance(value, int):
        if for_java and typ in _FLOAT_TAGS:
            # The SDK takes an int for a FLOAT32/FLOAT64; Kafka holds a Float or Double.
            return {_FLOAT_TAGS[typ]: float_bits(float(value))}
        tag = _INT_TAGS.get(typ) if typ is not None else None
        if tag is not None and typ is not None and for_java and not _fits(value, typ):
            # An int its schema's type cannot hold (a value not valid for its schema) is no
            # Short or Byte in Java: it goes as a Long, as a schemaless int does.
            tag = "i64"
        return {tag or ("i64" if for_java else "int"): value}
    if isinstance(value, float):
        tag = _FLOAT_TAGS.get(typ) if typ is not None else None
        return {tag or ("f64" if for_java else "float"): float_bits(value)}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": encode_bytes(value)}
    if isinstance(value, decimal.Decimal):
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            return {"py": "Decimal", "text": str(value)}
        unscaled = int("".join(map(str, digits)) or "0")
        return {"dec": str(-unscaled if sign else unscaled), "scale": -exponent}
    if isinstance(value, dt.datetime | dt.date | dt.time):
        millis, rest = _millis(value)
        node: dict[str, Any] = {"ts": millis}
        if rest and not for_java:
            node["us"] = rest  # below a millisecond: nothing in Java can hold it
        return node
    if isinstance(value, Struct):
        return _encode_struct(value, for_java=for_java, with_schema=True)
    if isinstance(value, list | tuple):
        element = schema.value_schema if typ is Type.ARRAY and schema is not None else None
        return {"array": [encode_value(v, element, for_java=for_java) for v in value]}
    if isinstance(value, Mapping):
        keys = schema.key_schema if typ is Type.MAP and schema is not None else None
        values = schema.value_schema if typ is Type.MAP and schema is not None else None
        return {
            "map": [
                [
                    encode_value(k, keys, for_java=for_java),
                    encode_value(v, values, for_java=for_java),
                ]
                for k, v in value.items()
            ]
        }
    return {"py": type(value).__name__, "text": repr(value)[:200]}


def _encode_struct(value: Struct, *, for_java: bool, with_schema: bool) -> Wire:
    node: dict[str, Any] = {
        "struct": [
            [f.name, encode_value(value.get_without_default(f), f.schema, for_java=for_java)]
            for f in value.schema.fields
        ]
    }
    if with_schema:
        node["schema"] = encode_schema(value.schema, for_java=for_java)
    return node


def encode_headers(headers: Headers, *, for_java: bool = False) -> Wire:
    return [
        [
            h.key,
            encode_schema(h.schema, for_java=for_java),
            encode_value(h.value, h.schema, for_java=for_java),
        ]
        for h in headers
    ]


def encode_record(record: ConnectRecord, *, for_java: bool = False) -> Wire:
    """``record`` in the wire encoding (a SinkRecord with its offset)."""
    node: dict[str, Any] = {
        "kind": "sink" if isinstance(record, SinkRecord) else "source",
        "topic": record.topic,
        "partition": record.kafka_partition,
        "keySchema": encode_schema(record.key_schema, for_java=for_java),
        "key": encode_value(record.key, record.key_schema, for_java=for_java),
        "valueSchema": encode_schema(record.value_schema, for_java=for_java),
        "value": encode_value(record.value, record.value_schema, for_java=for_java),
        "timestamp": record.timestamp,
        "headers": encode_headers(record.headers, for_java=for_java),
    }
    if isinstance(record, SinkRecord):
        node["offset"] = record.kafka_offset
    return node
