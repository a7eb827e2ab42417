"""The text Java's ``PrintStream.println(Object)`` prints for a Connect value.

Kafka's ``FileStreamSinkTask`` writes ``String.valueOf(record.value())``, so each value type
prints as its Java class's ``toString``:

- ``null``, ``true``/``false``, integers as decimal digits, strings as they are;
- doubles and floats as ``Double.toString``/``Float.toString`` (``1.0E10``, ``0.001``);
- decimals as ``BigDecimal.toString`` (``1.23E+5`` when the scale is negative, as Python's);
- lists as ``AbstractCollection.toString``: ``[a, b]``;
- maps as ``AbstractMap.toString``: ``{k=v, k2=v2}`` in **``HashMap`` iteration order**, the
  map class converters build (JsonConverter, AvroConverter);
- structs as ``Struct.toString``: ``Struct{a=1,b=x}`` with null fields left out;
- Date, Time and Timestamp values as ``java.util.Date.toString`` in UTC
  (``Thu Jan 01 00:00:00 UTC 1970``), the zone of a JVM started with ``TZ=UTC``.

Bytes have no stable Java text (``[B@1b6d3586``, an identity hash); they print as Python's
``bytes`` repr. ``HashMap`` order is reproduced for string, integer and boolean keys; a bucket
that Java turned into a tree (eight or more colliding keys in a map of 64 buckets or more)
may order differently.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any, Final

from kconnect_sdk import Schema, Struct, Type, Values
from kconnect_sdk.java import date_to_string, hashmap_order, string_hash

__all__ = ["java_text"]

_DOUBLE: Final = Schema.FLOAT64
_FLOAT: Final = Schema.FLOAT32


def java_text(value: Any, schema: Schema | None = None) -> str:
    """``String.valueOf(value)`` as Kafka Connect's Java runtime would print it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        float32 = schema is not None and schema.type is Type.FLOAT32
        return Values.convert_to_string(_FLOAT if float32 else _DOUBLE, value) or "null"
    if isinstance(value, Struct):
        parts = []
        for field in value.schema.fields:
            item = value.get(field)  # by Field: no lookup of its name
            if item is not None:
                text = item if type(item) is str else java_text(item, field.schema)
                parts.append(f"{field.name}={text}")
        return "Struct{" + ",".join(parts) + "}"
    if isinstance(value, list | tuple):
        element = schema.value_schema if schema is not None and schema.type is Type.ARRAY else None
        return "[" + ", ".join(java_text(item, element) for item in value) + "]"
    if isinstance(value, dict):
        return _map_text(value, schema)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return date_to_string(value)
    return str(value)


def _map_text(value: dict[Any, Any], schema: Schema | None) -> str:
    key_schema = value_schema = None
    if schema is not None and schema.type is Type.MAP:
        key_schema, value_schema = schema.key_schema, schema.value_schema
    int32_keys = key_schema is not None and key_schema.type in (Type.INT8, Type.INT16, Type.INT32)
    entries = list(value.items())
    hashes = [_java_hash(key, int32_keys) for key, _ in entries]
    known = [h for h in hashes if h is not None]
    if len(known) == len(hashes):
        entries = [entries[i] for i in hashmap_order(known)]
    body = ", ".join(
        f"{java_text(key, key_schema)}={java_text(item, value_schema)}" for key, item in entries
    )
    return "{" + body + "}"


def _java_hash(key: Any, int32: bool) -> int | None:
    """``key.hashCode()`` as an unsigned 32-bit int, or None where it is not reproducible."""
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, str):
        return string_hash(key)
    if isinstance(key, int):
        if int32:
            return key & 0xFFFFFFFF  # Integer.hashCode
        bits = key & 0xFFFFFFFFFFFFFFFF  # Long.hashCode: (int) (value ^ (value >>> 32))
        return (bits ^ (bits >> 32)) & 0xFFFFFFFF
    return None
