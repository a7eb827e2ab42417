"""Lossless conversion of schemas and records to and from plain, JSON-serialisable data.

Used wherever records cross a process boundary (isolated plugin environments, Spark).
Values that JSON cannot hold are written as single-key tagged objects: ``{"$bytes": b64}``,
``{"$decimal": "1.28"}``, ``{"$date": "2024-01-01"}``, ``{"$time": "12:00:00.5+00:00"}``,
``{"$datetime": iso}``, ``{"$float": "nan"}``, ``{"$map": [[k, v], ...]}`` and
``{"$struct": [field values], "$schema": {...}}`` (the schema is left out when the
enclosing schema already gives it). Python dicts are always written as ``$map``, so a
tagged object can never be confused with user data.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
import functools
import json
import math
from collections.abc import Mapping
from typing import Any

from ._errors import DataError
from ._headers import Header, Headers
from ._records import ConnectRecord, SinkRecord, SourceRecord, TimestampType
from ._schema import Field, Schema, Type
from ._struct import Struct

__all__ = ["record_from_plain", "record_to_plain", "schema_from_plain", "schema_to_plain"]


def schema_to_plain(schema: Schema | None) -> dict[str, Any] | None:
    """A schema as a JSON-serialisable dict (None stays None)."""
    if schema is None:
        return None
    out: dict[str, Any] = {"type": schema.type.value}
    if schema.optional:
        out["optional"] = True
    if schema.name is not None:
        out["name"] = schema.name
    if schema.version is not None:
        out["version"] = schema.version
    if schema.doc is not None:
        out["doc"] = schema.doc
    if schema.parameters:
        out["parameters"] = dict(schema.parameters)
    if schema.fields:
        out["fields"] = [
            {"name": f.name, "schema": schema_to_plain(f.schema)} for f in schema.fields
        ]
    elif schema.type is Type.STRUCT:
        out["fields"] = []
    if schema.key_schema is not None:
        out["key_schema"] = schema_to_plain(schema.key_schema)
    if schema.value_schema is not None:
        out["value_schema"] = schema_to_plain(schema.value_schema)
    if schema.default is not None:
        out["default"] = value_to_plain(schema.default, schema)
    return out


def schema_from_plain(data: Mapping[str, Any] | None) -> Schema | None:
    """The schema written by :func:`schema_to_plain`.

    Raises:
        DataError: when ``data`` is not a schema written by ``schema_to_plain``.
    """
    if data is None:
        return None
    try:
        type_ = Type(data["type"])
        fields = [
            Field(f["name"], i, _required_schema(f["schema"]))
            for i, f in enumerate(data.get("fields", ()))
        ]
        key_schema = schema_from_plain(data.get("key_schema"))
        value_schema = schema_from_plain(data.get("value_schema"))
        shell = Schema(
            type_,
            optional=bool(data.get("optional", False)),
            name=data.get("name"),
            version=data.get("version"),
            doc=data.get("doc"),
            parameters=data.get("parameters"),
            fields=fields,
            key_schema=key_schema,
            value_schema=value_schema,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"not a plain schema ({exc!r}): {data!r:.200}") from exc
    if "default" not in data:
        return shell
    return Schema(
        type_,
        optional=shell.optional,
        default=value_from_plain(data["default"], shell),
        name=shell.name,
        version=shell.version,
        doc=shell.doc,
        parameters=shell.parameters,
        fields=fields,
        key_schema=key_schema,
        value_schema=value_schema,
    )


def _required_schema(data: Mapping[str, Any]) -> Schema:
    schema = schema_from_plain(data)
    if schema is None:
        raise DataError("a struct field needs a schema")
    return schema


def value_to_plain(value: Any, schema: Schema | None = None) -> Any:
    """A Connect value as JSON-serialisable data; ``schema`` lets nested structs omit theirs."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"$float": repr(value)}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, _decimal.Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, _dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, _dt.time):
        return {"$time": value.isoformat()}
    if isinstance(value, list | tuple):
        element = schema.value_schema if schema is not None and schema.type is Type.ARRAY else None
        return [value_to_plain(v, element) for v in value]
    if isinstance(value, Mapping):
        is_map = schema is not None and schema.type is Type.MAP
        key_schema = schema.key_schema if is_map and schema is not None else None
        item_schema = schema.value_schema if is_map and schema is not None else None
        return {
            "$map": [
                [value_to_plain(k, key_schema), value_to_plain(v, item_schema)]
                for k, v in value.items()
            ]
        }
    if isinstance(value, Struct):
        fields = [
            value_to_plain(value.get_without_default(f), f.schema) for f in value.schema.fields
        ]
        out: dict[str, Any] = {"$struct": fields}
        if schema is None or (schema is not value.schema and schema != value.schema):
            out["$schema"] = schema_to_plain(value.schema)
        return out
    raise DataError(
        f"cannot convert a value of type {type(value).__name__} ({value!r:.60}) to plain data; "
        "records may only hold Connect data types"
    )


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def value_from_plain(data: Any, schema: Schema | None = None) -> Any:
    """The value written by :func:`value_to_plain` (with the same ``schema``)."""
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        element = schema.value_schema if schema is not None and schema.type is Type.ARRAY else None
        return [value_from_plain(v, element) for v in data]
    if not isinstance(data, Mapping):
        raise DataError(f"not plain data: {data!r:.60}")
    try:
        if "$struct" in data:
            struct_schema = schema_from_plain(data["$schema"]) if "$schema" in data else schema
            if struct_schema is None:
                raise DataError("a plain struct without its schema")
            struct = Struct(struct_schema)
            for field, item in zip(struct_schema.fields, data["$struct"], strict=True):
                struct._values[field.index] = value_from_plain(item, field.schema)
            return struct
        if "$map" in data:
            is_map = schema is not None and schema.type is Type.MAP
            key_schema = schema.key_schema if is_map and schema is not None else None
            item_schema = schema.value_schema if is_map and schema is not None else None
            return {
                _hashable(value_from_plain(k, key_schema)): value_from_plain(v, item_schema)
                for k, v in data["$map"]
            }
        (tag, text), *_ = data.items()
        if tag == "$bytes":
            return base64.b64decode(text)
        if tag == "$decimal":
            return _decimal.Decimal(text)
        if tag == "$datetime":
            return _dt.datetime.fromisoformat(text)
        if tag == "$date":
            return _dt.date.fromisoformat(text)
        if tag == "$time":
            return _dt.time.fromisoformat(text)
        if tag == "$float":
            return float(text)
    except (ValueError, TypeError, KeyError) as exc:
        raise DataError(f"malformed plain value {data!r:.100}: {exc}") from exc
    raise DataError(f"unknown plain value tag in {data!r:.100}")


# Records of one stream share a handful of schemas, so converting each schema once per
# batch instead of once per record is where most of the time goes. Schemas are immutable
# and hashable, which makes them safe cache keys and safe to share.
@functools.lru_cache(maxsize=1024)
def _schema_to_plain_cached(schema: Schema) -> dict[str, Any] | None:
    return schema_to_plain(schema)


@functools.lru_cache(maxsize=1024)
def _schema_from_json(text: str) -> Schema | None:
    return schema_from_plain(json.loads(text))


def _to_plain(schema: Schema | None) -> dict[str, Any] | None:
    return None if schema is None else _schema_to_plain_cached(schema)


def _from_plain(data: Mapping[str, Any] | None) -> Schema | None:
    if data is None:
        return None
    try:
        key = json.dumps(data, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return schema_from_plain(data)
    return _schema_from_json(key)


def _headers_to_plain(headers: Headers) -> list[list[Any]]:
    return [[h.key, _to_plain(h.schema), value_to_plain(h.value, h.schema)] for h in headers]


def _headers_from_plain(data: list[list[Any]]) -> Headers:
    out = []
    for key, schema_data, value in data:
        schema = _from_plain(schema_data)
        out.append(Header(key, schema, value_from_plain(value, schema)))
    return Headers(out)


def record_to_plain(record: ConnectRecord) -> dict[str, Any]:
    """A SourceRecord or SinkRecord as a JSON-serialisable dict (``record_from_plain`` reverses it).

    Schema dicts inside the result may be shared between calls: serialise the result or
    read it, but do not modify it in place.

    Raises:
        DataError: for another record class or a value that is not Connect data.
    """
    out: dict[str, Any] = {
        "topic": record.topic,
        "kafka_partition": record.kafka_partition,
        "key_schema": _to_plain(record.key_schema),
        "key": value_to_plain(record.key, record.key_schema),
        "value_schema": _to_plain(record.value_schema),
        "value": value_to_plain(record.value, record.value_schema),
        "timestamp": record.timestamp,
        "headers": _headers_to_plain(record.headers),
    }
    if isinstance(record, SourceRecord):
        out["kind"] = "source"
        out["source_partition"] = value_to_plain(record.source_partition)
        out["source_offset"] = value_to_plain(record.source_offset)
    elif isinstance(record, SinkRecord):
        out["kind"] = "sink"
        out["kafka_offset"] = record.kafka_offset
        out["timestamp_type"] = record.timestamp_type.value
        out["original_topic"] = record.original_topic
        out["original_kafka_partition"] = record.original_kafka_partition
        out["original_kafka_offset"] = record.original_kafka_offset
    else:
        raise DataError(
            f"record_to_plain handles SourceRecord and SinkRecord, not {type(record).__name__}"
        )
    return out


def record_from_plain(data: Mapping[str, Any]) -> SourceRecord | SinkRecord:
    """The record written by :func:`record_to_plain`.

    Raises:
        DataError: when ``data`` was not written by ``record_to_plain``.
    """
    try:
        key_schema = _from_plain(data["key_schema"])
        value_schema = _from_plain(data["value_schema"])
        common: dict[str, Any] = {
            "topic": data["topic"],
            "kafka_partition": data["kafka_partition"],
            "key_schema": key_schema,
            "key": value_from_plain(data["key"], key_schema),
            "value_schema": value_schema,
            "value": value_from_plain(data["value"], value_schema),
            "timestamp": data["timestamp"],
            "headers": _headers_from_plain(data["headers"]),
        }
        kind = data["kind"]
        if kind == "source":
            return SourceRecord(
                **common,
                source_partition=value_from_plain(data["source_partition"]),
                source_offset=value_from_plain(data["source_offset"]),
            )
        if kind == "sink":
            return SinkRecord(
                **common,
                kafka_offset=data["kafka_offset"],
                timestamp_type=TimestampType(data["timestamp_type"]),
                original_topic=data["original_topic"],
                original_kafka_partition=data["original_kafka_partition"],
                original_kafka_offset=data["original_kafka_offset"],
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"not a plain record ({exc!r}): {data!r:.200}") from exc
    raise DataError(f"unknown plain record kind {kind!r}; expected 'source' or 'sink'")
