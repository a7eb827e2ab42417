"""The isolation protocol's wire codec: frames, and record and value batches.

Both ends use this one module: the runtime imports it as part of ``kconnect_runtime``, and
the plugin host (:mod:`._plugin_host`) loads it beside itself in a plugin location's
interpreter, so it imports only the standard library and ``kconnect_sdk``.

* frames are a 4-byte big-endian length followed by UTF-8 JSON; when the length's top
  bit is set, the frame carries a binary tail: a 4-byte length of the JSON, the JSON,
  then raw bytes, which the reader hands over as the message's ``"$blob"``;

Records cross many per frame as a *record batch* (:func:`pack_records`), in columns: each
distinct schema is written once per frame in a ``schemas`` table, each record field is a
list with an item per record (or one ``{"=": v}`` when every record has ``v``), and keys
and values are ``kconnect_sdk.plain.value_to_plain`` data (bytes as base64, decimals and
timestamps tagged) except that a Struct of an all-scalar schema is the bare array of its
field values, and a column of schemaless JSON data (str-keyed dicts, lists, strings, ints,
bools, None, finite floats) is written as it is, its index ``{"=": null, "raw": 1}``, so
nothing is lost on the way. Converter bytes cross raw in the binary tail, their lengths in
the JSON (:func:`pack_blobs`).

Protocol 2 added the record-batch shape, the converter, header converter, transformation
and predicate kinds, and ``describe``; protocol 3 the binary tail, columnar record and
value batches, and raw converter bytes; protocol 4 a plugin's accepted config key
prefixes beside its config keys (``config`` and ``describe``).
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import IO, Any

from kconnect_sdk import (
    Header,
    Headers,
    Schema,
    SchemaAndValue,
    SinkRecord,
    SourceRecord,
    Struct,
    TimestampType,
    Type,
    record_maker,
    struct_maker,
    struct_values,
)
from kconnect_sdk.plain import schema_from_plain, schema_to_plain, value_from_plain, value_to_plain

PROTOCOL_VERSION = 4

# Frames are written by Python's json on both ends; orjson (the runtime has it, a plugin
# location may) speeds up reading them, and writes the raw value columns of
# :func:`pack_values_blob`, whose contents it writes exactly.
_orjson_loads: Callable[[bytes], Any] | None
_orjson_dumps: Callable[[Any], bytes] | None
try:
    from orjson import dumps as _orjson_dumps
    from orjson import loads as _orjson_loads
except ImportError:
    _orjson_loads = _orjson_dumps = None
_HEADER = struct.Struct(">I")
# The top bit of a frame's length word marks a frame with a binary tail.
_BLOB_FLAG = 0x80000000
_SIZE_MASK = 0x7FFFFFFF


def read_frame(stream: IO[bytes]) -> Any:
    """The next message on ``stream``, or None at end of stream.

    A frame with a binary tail (see :func:`write_frame`) gives its message with the tail
    under the ``"$blob"`` key.
    """
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (word,) = _HEADER.unpack(header)
    size = word & _SIZE_MASK
    body = stream.read(size)
    if len(body) < size:
        return None
    if not word & _BLOB_FLAG:
        return _loads(body)
    (json_size,) = _HEADER.unpack_from(body)
    end = _HEADER.size + json_size
    message = _loads(body[_HEADER.size : end])
    message["$blob"] = body[end:]
    return message


# orjson reads an integer beyond 64 bits as a float. Python's json writes such integers
# as they are (a schemaless value may hold one) and never writes a float with more than 17
# digits in a row, so a frame with a run of 19 digits (in a number or, harmlessly, in a
# string) is read by json.loads, which keeps every integer exact. Digits translate to "0",
# everything else to " ", and the run is then a plain substring search.
_DIGITS_ONLY = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_NUMBER = b"0" * 19


def _loads(body: bytes) -> Any:
    if _orjson_loads is not None and _LONG_NUMBER not in body.translate(_DIGITS_ONLY):
        try:
            return _orjson_loads(body)
        except ValueError:  # NaN or Infinity, which Python's json writes and orjson refuses
            pass
    return json.loads(body)


def encode_json(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":"), default=str).encode()


def write_frame(stream: IO[bytes], message: Any, blob: bytes = b"") -> None:
    """Write ``message``; a non-empty ``blob`` travels raw after it (no base64, no JSON)."""
    write_raw(stream, encode_json(message), blob)


def write_raw(stream: IO[bytes], body: bytes, blob: bytes = b"") -> None:
    if blob:
        size = _HEADER.size + len(body) + len(blob)
        if size > _SIZE_MASK:
            raise ValueError(f"a frame of {size} bytes is too large for the plugin protocol")
        stream.write(_HEADER.pack(size | _BLOB_FLAG) + _HEADER.pack(len(body)) + body)
        stream.write(blob)
    else:
        stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def pack_blobs(items: Sequence[bytes | None]) -> tuple[list[int], bytes]:
    """Byte strings as their lengths (-1 for None, the tombstone) and their concatenation."""
    if None in items:
        lengths = [-1 if data is None else len(data) for data in items]
        return lengths, b"".join([data for data in items if data is not None])
    return list(map(len, items)), b"".join(items)  # type: ignore[arg-type]  # no None


def unpack_blobs(lengths: Sequence[int], blob: bytes) -> list[bytes | None]:
    """The byte strings :func:`pack_blobs` wrote."""
    out: list[bytes | None] = []
    append = out.append
    at = 0
    for size in lengths:
        if size < 0:
            append(None)
        else:
            end = at + size
            append(blob[at:end])
            at = end
    if at != len(blob):
        raise ValueError(f"frame blob holds {len(blob)} bytes, its lengths say {at}")
    return out


class Blob:
    """An operation's result with a binary tail: ``result`` as JSON, ``blob`` raw after it."""

    __slots__ = ("blob", "result")

    def __init__(self, result: Any, blob: bytes) -> None:
        self.result, self.blob = result, blob


class Encoded(bytes):
    """An operation's result already encoded as JSON (so encoding can happen off the reply path)."""


class SchemaTable:
    """The distinct schemas of one frame; records refer to them by index."""

    def __init__(self) -> None:
        self.plain: list[dict[str, Any] | None] = []
        self._by_id: dict[int, int] = {}
        self._by_value: dict[Schema, int] = {}
        self._keep: list[Schema] = []  # ids stay valid while the frame is built

    def index(self, schema: Schema | None) -> int | None:
        if schema is None:
            return None
        found = self._by_id.get(id(schema))
        if found is not None:
            return found
        found = self._by_value.get(schema)
        if found is None:
            found = len(self.plain)
            self.plain.append(schema_to_plain(schema))
            self._by_value[schema] = found
        self._by_id[id(schema)] = found
        self._keep.append(schema)
        return found


# Values of these types are their own plain data (both ends are Python's json, which also
# carries NaN and the infinities), so the codec skips value_to_plain for them.
_SCALARS = frozenset({str, int, bool, float, type(None)})
_FLAT_FIELD_TYPES = frozenset(
    {
        Type.INT8,
        Type.INT16,
        Type.INT32,
        Type.INT64,
        Type.FLOAT32,
        Type.FLOAT64,
        Type.BOOLEAN,
        Type.STRING,
    }
)


def _flat_struct(schema: Schema) -> bool:
    """Whether a struct schema holds only scalar fields (its values cross as a plain list)."""
    return schema.type is Type.STRUCT and all(
        f.schema.type in _FLAT_FIELD_TYPES and f.schema.name is None for f in schema.fields
    )


def _encoder() -> Callable[[Any, Schema | None], Any]:
    """``value_to_plain`` with fast paths for scalars and all-scalar structs.

    A Struct of an all-scalar schema crosses as the bare JSON array of its field values;
    any other non-scalar value of such a schema is wrapped as ``{"$plain": ...}`` so the
    two never mix up. Every other value is exactly what ``value_to_plain`` writes.
    """
    flat: dict[int, tuple[Schema, bool]] = {}

    def encode(value: Any, schema: Schema | None) -> Any:
        kind = type(value)
        if kind in _SCALARS:
            return value
        if schema is None or schema.type is not Type.STRUCT:
            return value_to_plain(value, schema)
        known = flat.get(id(schema))
        if known is None or known[0] is not schema:
            known = flat[id(schema)] = (schema, _flat_struct(schema))
        if not known[1]:
            return value_to_plain(value, schema)
        if kind is Struct and value.schema is schema:
            return list(struct_values(value))
        return {"$plain": value_to_plain(value, schema)}

    return encode


def _decoder_for(schema: Schema | None) -> Callable[[Any], Any]:
    """The decoder of values written by :func:`_encoder` for ``schema`` (chosen once per frame)."""
    if schema is not None and _flat_struct(schema):
        size = len(schema.fields)
        make = struct_maker(schema)

        def flat_struct(data: Any) -> Any:
            if type(data) is list and len(data) == size:
                return make(data)  # a fresh list from the frame: the struct owns it
            if type(data) in _SCALARS:
                return data
            return value_from_plain(data["$plain"], schema)

        return flat_struct

    def generic(data: Any) -> Any:
        return data if type(data) in _SCALARS else value_from_plain(data, schema)

    return generic


def _decoders(schemas: Sequence[Schema | None]) -> list[Callable[[Any], Any]]:
    return [_decoder_for(schema) for schema in schemas]


def _offset_to_plain(data: Mapping[str, Any] | None) -> Any:
    """A source partition or offset: a flat str-keyed dict crosses as a JSON object."""
    if data is None:
        return None
    if type(data) is dict:
        for key, value in data.items():
            if type(key) is not str or type(value) not in _SCALARS:
                return [value_to_plain(data)]
        return data
    return [value_to_plain(data)]


def _offset_from_plain(data: Any) -> Any:
    if data is None or type(data) is dict:
        return data
    return value_from_plain(data[0])


# Schemas already read, by their plain form: every frame of a batch stream names the same
# few schemas, and handing plugins the same Schema object each time keeps their identity
# checks (converter and transform caches) on the fast path instead of a deep comparison.
_SCHEMAS_READ: dict[str, Schema | None] = {}
_SCHEMAS_READ_MAX = 1024


def schemas_from_plain(data: Iterable[Mapping[str, Any] | None]) -> list[Schema | None]:
    out: list[Schema | None] = []
    for plain in data:
        if plain is None:
            out.append(None)
            continue
        key = json.dumps(plain, sort_keys=True, separators=(",", ":"))
        schema = _SCHEMAS_READ.get(key)
        if schema is None:
            schema = schema_from_plain(plain)
            if len(_SCHEMAS_READ) >= _SCHEMAS_READ_MAX:
                _SCHEMAS_READ.clear()
            _SCHEMAS_READ[key] = schema
        out.append(schema)
    return out


def to_b64(data: bytes | None) -> str | None:
    """Converter bytes as frame text (None, the tombstone, stays None)."""
    return None if data is None else base64.b64encode(data).decode("ascii")


def from_b64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _headers_row(headers: Headers, table: SchemaTable) -> list[list[Any]]:
    return [[h.key, table.index(h.schema), value_to_plain(h.value, h.schema)] for h in headers]


def _headers_from_row(row: Sequence[Sequence[Any]], schemas: Sequence[Schema | None]) -> Headers:
    if not row:
        return Headers.EMPTY
    out = []
    for key, index, value in row:
        schema = None if index is None else schemas[index]
        out.append(Header(key, schema, value_from_plain(value, schema)))
    return Headers(out)


def _column(items: list[Any]) -> Any:
    """A batch column: ``{"=": v}`` when every item is ``v``, else the list itself."""
    if items and items.count(items[0]) == len(items):
        first = items[0]
        # 1 == True == 1.0: only a value of one type stands for the whole column.
        if all(type(item) is type(first) for item in items) if type(first) is not str else True:
            return {"=": first}
    return items


def _expand(column: Any, count: int) -> list[Any]:
    if type(column) is dict:
        return [column["="]] * count
    if len(column) != count:
        raise ValueError(f"a record batch column has {len(column)} items for {count} records")
    return list(column)


def _encoded_column(
    schemas: list[Schema | None], values: list[Any], table: SchemaTable
) -> tuple[Any, list[Any]]:
    index = table.index
    indexes = [index(schema) for schema in schemas]
    if values and indexes.count(None) == len(indexes) and _raw_ok(values):
        # Schemaless JSON data (see _raw_item): the values are their own frame text, and
        # the reader takes them as they are ({"raw": 1}), no value_to_plain walk.
        return {"=": None, "raw": 1}, values
    encode = _encoder()
    return _column(indexes), [encode(v, schema) for v, schema in zip(values, schemas, strict=True)]


def _decoded_column(
    column: Any, values: Sequence[Any], schemas: Sequence[Schema | None]
) -> tuple[list[Schema | None], list[Any]]:
    if type(column) is dict:  # one schema for the whole column
        if column.get("raw"):
            return [None] * len(values), list(values)
        shared = column["="]
        schema = None if shared is None else schemas[shared]
        decode = _decoder_for(schema)
        return [schema] * len(values), [decode(v) for v in values]
    decoders = _decoders(schemas)
    schemaless = _decoder_for(None)
    out_schemas: list[Schema | None] = []
    out_values: list[Any] = []
    for i, value in zip(column, values, strict=True):
        if i is None:
            out_schemas.append(None)
            out_values.append(schemaless(value))
        else:
            out_schemas.append(schemas[i])
            out_values.append(decoders[i](value))
    return out_schemas, out_values


def pack_records(records: Iterable[SourceRecord | SinkRecord]) -> dict[str, Any]:
    """A batch of records as one JSON-serialisable record batch, in columns.

    Each distinct schema is written once (``schemas``); every record field is a column, a
    list with an item per record or ``{"=": v}`` when all records share ``v``. All the
    records of a batch are SourceRecords (``"kind": "source"``) or all SinkRecords.
    """
    rows = records if isinstance(records, list) else list(records)
    if all(isinstance(r, SourceRecord) for r in rows):
        kind = "source"
    elif all(isinstance(r, SinkRecord) for r in rows):
        kind = "sink"
    else:
        bad = [type(r).__name__ for r in rows if not isinstance(r, SourceRecord | SinkRecord)]
        raise TypeError(
            f"not a SourceRecord or SinkRecord: {bad[0]}"
            if bad
            else "a record batch mixes SourceRecords and SinkRecords"
        )
    table = SchemaTable()
    fields = list(zip(*rows, strict=True)) if rows else [() for _ in range(13)]
    key_index, keys = _encoded_column(list(fields[2]), list(fields[3]), table)
    value_index, values = _encoded_column(list(fields[4]), list(fields[5]), table)
    headers = list(fields[7])
    batch: dict[str, Any] = {
        "kind": kind,
        "count": len(rows),
        "topic": _column(list(fields[0])),
        "partition": _column(list(fields[1])),
        "key_index": key_index,
        "key": keys,
        "value_index": value_index,
        "value": values,
        "timestamp": _column(list(fields[6])),
    }
    if any(headers):
        batch["headers"] = [_headers_row(h, table) if h else [] for h in headers]
    if kind == "source":
        plain_partitions: list[Any] = []
        last: Any = None
        last_plain: Any = None
        for partition in fields[8]:
            # A task usually reuses one partition object for a whole batch.
            if partition is not last:
                last, last_plain = partition, _offset_to_plain(partition)
            plain_partitions.append(last_plain)
        batch["source_partition"] = _column(plain_partitions)
        batch["source_offset"] = [_offset_to_plain(o) for o in fields[9]]
    else:
        batch["offset"] = list(fields[8])
        batch["timestamp_type"] = _column([t.value for t in fields[9]])
        batch["original_topic"] = _column(list(fields[10]))
        batch["original_partition"] = _column(list(fields[11]))
        batch["original_offset"] = list(fields[12])
    batch["schemas"] = table.plain
    return batch


def unpack_records(batch: Mapping[str, Any]) -> list[Any]:
    """The records of a batch written by :func:`pack_records`."""
    schemas = schemas_from_plain(batch["schemas"])
    count = int(batch["count"])
    key_schemas, keys = _decoded_column(batch["key_index"], batch["key"], schemas)
    value_schemas, values = _decoded_column(batch["value_index"], batch["value"], schemas)
    if "headers" in batch:
        headers = [
            _headers_from_row(row, schemas) if row else Headers.EMPTY for row in batch["headers"]
        ]
    else:
        headers = [Headers.EMPTY] * count
    common = (
        _expand(batch["topic"], count),
        _expand(batch["partition"], count),
        key_schemas,
        keys,
        value_schemas,
        values,
        _expand(batch["timestamp"], count),
        headers,
    )
    if batch["kind"] == "source":
        partitions = [_offset_from_plain(p) for p in _expand(batch["source_partition"], count)]
        offsets = [_offset_from_plain(o) for o in _expand(batch["source_offset"], count)]
        return list(map(_make_source, zip(*common, partitions, offsets, strict=True)))
    ts_types = [TimestampType(t) for t in _expand(batch["timestamp_type"], count)]
    return [
        _make_sink(fields)
        for fields in zip(
            *common,
            _expand(batch["offset"], count),
            ts_types,
            _expand(batch["original_topic"], count),
            _expand(batch["original_partition"], count),
            _expand(batch["original_offset"], count),
            strict=True,
        )
    ]


def pack_values(items: Iterable[tuple[Schema | None, Any]]) -> dict[str, Any]:
    """``(schema, value)`` pairs as one JSON-serialisable batch, in columns.

    ``schemas`` lists each distinct schema once, ``values`` the encoded values and
    ``index`` each value's schema index (one number when all share one schema).
    """
    table = SchemaTable()
    index = table.index
    encode = _encoder()
    indexes: list[int | None] = []
    values: list[Any] = []
    add_index, add_value = indexes.append, values.append
    for schema, value in items:
        add_index(index(schema))
        add_value(encode(value, schema))
    shared: Any = indexes
    if indexes and indexes.count(indexes[0]) == len(indexes):
        shared = indexes[0] if indexes[0] is not None else -1
    return {"schemas": table.plain, "index": shared, "values": values}


_RAW_SCALAR_TYPES = frozenset({str, int, bool, type(None)})
# SchemaAndValue(schema, value) for each (schema, value) tuple, without a Python call each.
_schema_and_value = record_maker(SchemaAndValue)
_make_source = record_maker(SourceRecord)
_make_sink = record_maker(SinkRecord)


def _raw_item(value: Any) -> bool:
    """Whether ``value`` is JSON data that JSON gives back equal: str-keyed dicts, lists,
    strings, ints, bools, None and finite floats, of exactly those types."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value - value == 0.0)  # NaN and the infinities give NaN
    if kind is dict:
        return _raw_dict(value)
    if kind is list:
        return all(map(_raw_item, value))
    return False


def _raw_dict(value: dict[Any, Any]) -> bool:
    for key, item in value.items():
        if type(key) is not str:
            return False
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if not _raw_item(item):
            return False
    return True


def _raw_ok(values: Sequence[Any]) -> bool:
    """Whether every one of ``values`` is JSON data JSON gives back equal (:func:`_raw_item`)."""
    if _RAW_SCALAR_TYPES.issuperset(map(type, values)):
        return True
    try:
        return all(map(_raw_item, values))
    except RecursionError:
        return False


def _raw_values(values: Sequence[Any]) -> tuple[str, bytes] | None:
    """Schemaless values as one JSON array and the writer's name, when JSON keeps them
    exactly (see :func:`_raw_item`); None when one of them needs ``value_to_plain``."""
    if not _raw_ok(values):
        return None
    if _orjson_dumps is not None:
        try:  # refuses integers beyond 64 bits, lone surrogates and deep nesting
            return "orjson", _orjson_dumps(values)
        except TypeError:
            pass
    return "json", json.dumps(values, separators=(",", ":")).encode()


def pack_values_blob(
    items: Iterable[tuple[Schema | None, Any]],
) -> tuple[dict[str, Any], bytes]:
    """:func:`pack_values` for a frame with a binary tail: ``(batch, blob)``.

    When every value is schemaless JSON data (the schemaless values of JSON converters),
    the values travel as one JSON array in the blob, written by orjson where it can and
    read back as they are, with no ``value_to_plain`` walk on either side; the batch then
    says ``"raw"`` (the writer) instead of listing values. Otherwise the blob is empty and
    the batch is :func:`pack_values`'s.
    """
    pairs = items if isinstance(items, list) else list(items)
    if pairs:
        schemas, values = zip(*pairs, strict=True)
        if schemas.count(None) == len(schemas):
            raw = _raw_values(values)
            if raw is not None:
                return {"schemas": [], "index": -1, "count": len(values), "raw": raw[0]}, raw[1]
    return pack_values(pairs), b""


def unpack_values(batch: Mapping[str, Any], blob: bytes = b"") -> list[SchemaAndValue]:
    """The values of a batch written by :func:`pack_values` or :func:`pack_values_blob`
    (whose blob is ``blob``), each a ``SchemaAndValue``."""
    raw = batch.get("raw")
    if raw is not None:
        # orjson wrote no integer it cannot read back; Python's json may have.
        values = _orjson_loads(blob) if raw == "orjson" and _orjson_loads else _loads(blob)
        if type(values) is not list or len(values) != batch["count"]:
            raise ValueError(f"a raw value batch does not hold the {batch['count']} values it says")
        return list(map(_schema_and_value, zip(repeat(None), values)))
    schemas = schemas_from_plain(batch["schemas"])
    values = batch["values"]
    shared = batch["index"]
    if type(shared) is int:  # one schema for all (-1: none)
        schema = schemas[shared] if shared >= 0 else None
        decode = _decoder_for(schema)
        return list(map(_schema_and_value, zip(repeat(schema), map(decode, values))))
    decoders = _decoders(schemas)
    schemaless = _decoder_for(None)
    out: list[SchemaAndValue] = []
    for i, value in zip(shared, values, strict=True):
        if i is None:
            out.append(SchemaAndValue(None, schemaless(value)))
        else:
            out.append(SchemaAndValue(schemas[i], decoders[i](value)))
    return out


def topics_arg(topics: Sequence[str]) -> dict[str, Any]:
    """A batch's topics for a request: one ``topic`` when they are all the same."""
    first = topics[0] if topics else ""
    if topics.count(first) == len(topics):
        return {"topic": first}
    return {"topics": list(topics)}


def batch_topics(args: Mapping[str, Any], count: int) -> Sequence[str]:
    if "topic" in args:
        return [str(args["topic"])] * count
    return list(args["topics"])
