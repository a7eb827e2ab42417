"""Formats: how one file's records become one object's bytes (JSON, ByteArray, Avro, Parquet).

Every writer prepares a record fully (``prepare``) before anything is appended, so a
record the format cannot write raises :class:`DataError` and leaves the file untouched:
the task hands that record to the errant record reporter and goes on.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, Final

from kconnect_converter_json import JsonConverter
from kconnect_sdk import (
    DataError,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Type,
    Values,
)
from kconnect_sdk.java import hashmap_order, string_hash

from ._config import S3SinkSettings
from ._storage import S3OutputStream, S3Storage

__all__ = [
    "ByteArrayFormat",
    "FileWriter",
    "Format",
    "JsonFormat",
    "RecordView",
]

# --- record views (Confluent's RecordViews): which part of a record a file holds ----------

_HEADER_SCHEMA: Final = (
    SchemaBuilder.struct().field("key", Schema.STRING).field("value", Schema.STRING).build()
)
_HEADERS_ARRAY: Final = SchemaBuilder.array(_HEADER_SCHEMA).build()
_HEADERS_ENVELOPE: Final = (
    SchemaBuilder.struct().name("RecordHeaders").field("headers", _HEADERS_ARRAY).build()
)


class RecordView(abc.ABC):
    """The value, key or headers of a record, as a schema and a value."""

    extension: str = ""

    @abc.abstractmethod
    def schema(self, record: SinkRecord, enveloped: bool) -> Schema | None: ...

    @abc.abstractmethod
    def value(self, record: SinkRecord, enveloped: bool) -> Any: ...


class ValueView(RecordView):
    def schema(self, record: SinkRecord, enveloped: bool) -> Schema | None:
        return record.value_schema

    def value(self, record: SinkRecord, enveloped: bool) -> Any:
        return record.value


class KeyView(RecordView):
    extension = ".keys"

    def schema(self, record: SinkRecord, enveloped: bool) -> Schema | None:
        if not enveloped:
            return record.key_schema
        builder = SchemaBuilder.struct().name("RecordKey")
        if record.key_schema is not None:
            builder.field("key", record.key_schema)
        return builder.build()

    def value(self, record: SinkRecord, enveloped: bool) -> Any:
        if not enveloped:
            return record.key
        schema = self.schema(record, True)
        assert schema is not None
        return Struct(schema).put("key", record.key)


class HeadersView(RecordView):
    extension = ".headers"

    def schema(self, record: SinkRecord, enveloped: bool) -> Schema | None:
        return _HEADERS_ENVELOPE if enveloped else _HEADERS_ARRAY

    def value(self, record: SinkRecord, enveloped: bool) -> Any:
        items = [
            Struct(_HEADER_SCHEMA)
            .put("key", h.key)
            .put("value", Values.convert_to_string(h.schema, h.value))
            for h in record.headers
        ]
        return Struct(_HEADERS_ENVELOPE).put("headers", items) if enveloped else items


VALUE_VIEW: Final = ValueView()
KEY_VIEW: Final = KeyView()
HEADERS_VIEW: Final = HeadersView()


# --- Java HashMap iteration order -----------------------------------------------------------
#
# Kafka's JsonConverter reads a schemaless JSON object into a java.util.HashMap, and Jackson
# writes a Map in its iteration order, so the Java connector writes the keys of schemaless
# objects in HashMap order, not in the order they arrived. To write the same bytes, such
# dicts are reordered the same way: bucket index of the spread String hash in a table sized
# for the entry count (16, doubling above 0.75 load), insertion order within a bucket.

_ORDER_CACHE: dict[tuple[Any, ...], tuple[int, ...] | None] = {}


def _hashmap_order(keys: tuple[Any, ...]) -> tuple[int, ...] | None:
    """The positions of ``keys`` (in insertion order) as a Java HashMap iterates them;
    None when the order is already that one (or keys are not all strings)."""
    if keys in _ORDER_CACHE:
        return _ORDER_CACHE[keys]
    order: tuple[int, ...] | None = None
    if all(isinstance(k, str) for k in keys):
        ranked = tuple(hashmap_order([string_hash(key) for key in keys]))
        order = None if ranked == tuple(range(len(keys))) else ranked
    if len(_ORDER_CACHE) > 4096:
        _ORDER_CACHE.clear()
    _ORDER_CACHE[keys] = order
    return order


def java_map_order(value: Any) -> Any:
    """A schemaless value with every dict in Java HashMap iteration order.

    Hot path (one call per schemaless record): orders are cached per key tuple, and a dict
    already in order without nested containers is returned as it is.
    """
    kind = type(value)
    if kind is dict:
        keys = tuple(value)
        order = _ORDER_CACHE[keys] if keys in _ORDER_CACHE else _hashmap_order(keys)
        nested = False
        for item in value.values():
            if type(item) is dict or type(item) is list:
                nested = True
                break
        if order is None and not nested:
            return value
        items = keys if order is None else [keys[i] for i in order]
        if nested:
            return {k: java_map_order(value[k]) for k in items}
        return {k: value[k] for k in items}
    if kind is list:
        for item in value:
            if type(item) is dict or type(item) is list:
                return [java_map_order(v) for v in value]
    return value


def _where(record: SinkRecord) -> str:
    return f"record at offset {record.kafka_offset} of {record.topic}-{record.kafka_partition}"


# --- writers ------------------------------------------------------------------------------


class FileWriter(abc.ABC):
    """Writes one file's worth of one view of records, then uploads it."""

    @abc.abstractmethod
    def prepare(self, record: SinkRecord) -> Any:
        """Everything that can fail for a bad record; raises DataError."""

    @abc.abstractmethod
    def append(self, prepared: Any) -> None:
        """Add a prepared record (I/O errors only)."""

    def prepare_batch(self, records: Sequence[SinkRecord]) -> list[Any]:
        """``prepare`` of many records; raises DataError if any is bad."""
        return [self.prepare(r) for r in records]

    def append_batch(self, prepared: list[Any]) -> None:
        for item in prepared:
            self.append(item)

    @abc.abstractmethod
    def commit(self) -> None:
        """Finish and upload the object."""

    @abc.abstractmethod
    def abort(self) -> None:
        """Forget the file; no object is created."""

    def buffered_bytes(self) -> int:
        return 0


class _StreamWriter(FileWriter):
    """A writer whose records are bytes appended to a multipart stream (JSON, ByteArray)."""

    def __init__(self, out: S3OutputStream, separator: bytes) -> None:
        self.out = out
        self.separator = separator

    def append(self, prepared: bytes) -> None:
        self.out.write(prepared + self.separator)

    def append_batch(self, prepared: list[bytes]) -> None:
        # One write per batch: the join is C code, the loop it replaces is not.
        sep = self.separator
        self.out.write(sep.join(prepared) + sep)

    def commit(self) -> None:
        self.out.commit()

    def abort(self) -> None:
        self.out.abort()

    def buffered_bytes(self) -> int:
        return self.out.buffered


class _JsonWriter(_StreamWriter):
    def __init__(
        self, out: S3OutputStream, view: RecordView, converter: JsonConverter, sep: bytes
    ) -> None:
        super().__init__(out, sep)
        self.view = view
        self.converter = converter
        self.enveloped = isinstance(view, HeadersView)

    def prepare(self, record: SinkRecord) -> bytes:
        schema = self.view.schema(record, self.enveloped)
        value = self.view.value(record, self.enveloped)
        if schema is None and isinstance(value, Struct):
            schema = value.schema
        elif schema is None:
            value = java_map_order(value)
        try:
            data = self.converter.from_connect_data(record.topic, schema, value)
        except DataError as exc:
            raise DataError(f"JsonFormat cannot write the {_where(record)}: {exc}") from exc
        # A null written by Jackson is the JSON literal; the converter returns None for it.
        return b"null" if data is None else data

    def prepare_batch(self, records: Sequence[SinkRecord]) -> list[Any]:
        if self.enveloped or not isinstance(self.view, ValueView):
            return super().prepare_batch(records)
        items = [
            (r.topic, None, java_map_order(r.value))
            if r.value_schema is None
            else (r.topic, r.value_schema, r.value)
            for r in records
        ]
        if any(s is None and isinstance(v, Struct) for _, s, v in items):
            return super().prepare_batch(records)
        try:
            out = self.converter.from_connect_batch(items)
        except DataError:
            # Find the bad record one by one, for a message that names it.
            return super().prepare_batch(records)
        return [b"null" if data is None else data for data in out]


class _ByteArrayWriter(_StreamWriter):
    def __init__(self, out: S3OutputStream, view: RecordView, sep: bytes) -> None:
        super().__init__(out, sep)
        self.view = view

    def prepare(self, record: SinkRecord) -> bytes:
        schema = self.view.schema(record, False)
        value = self.view.value(record, False)
        if schema is not None and schema.type is not Type.BYTES:
            raise DataError(
                f"ByteArrayFormat cannot write the {_where(record)}: its schema is "
                f"{schema.type.value}, not bytes; use JsonFormat or a ByteArrayConverter"
            )
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        raise DataError(
            f"ByteArrayFormat cannot write the {_where(record)}: the value is "
            f"{type(value).__name__}, not bytes; use a ByteArrayConverter or another format"
        )


class Format(abc.ABC):
    """A format class of ``format.class``: an extension and writers."""

    java_name: str = ""

    def __init__(self, settings: S3SinkSettings) -> None:
        self.settings = settings

    @property
    @abc.abstractmethod
    def extension(self) -> str: ...

    @abc.abstractmethod
    def writer(self, storage: S3Storage, key: str, view: RecordView) -> FileWriter: ...


class JsonFormat(Format):
    """One value per line as Kafka's JsonConverter writes it with ``schemas.enable=false``."""

    java_name = "io.confluent.connect.s3.format.json.JsonFormat"

    def __init__(self, settings: S3SinkSettings) -> None:
        super().__init__(settings)
        self.converter = JsonConverter()
        self.converter.configure(
            {
                "schemas.enable": "false",
                "schemas.cache.size": str(settings.raw["schemas.cache.config"]),
                "decimal.format": str(settings.raw["json.decimal.format"]).upper(),
            },
            is_key=False,
        )

    @property
    def extension(self) -> str:
        return ".json" + (".gz" if self.settings.compression == "gzip" else "")

    def writer(self, storage: S3Storage, key: str, view: RecordView) -> FileWriter:
        out = S3OutputStream(storage, key, compress=True)
        return _JsonWriter(out, view, self.converter, b"\n")


class ByteArrayFormat(Format):
    """Raw bytes, each followed by ``format.bytearray.separator``."""

    java_name = "io.confluent.connect.s3.format.bytearray.ByteArrayFormat"

    @property
    def extension(self) -> str:
        gz = ".gz" if self.settings.compression == "gzip" else ""
        return self.settings.bytearray_extension + gz

    def writer(self, storage: S3Storage, key: str, view: RecordView) -> FileWriter:
        out = S3OutputStream(storage, key, compress=True)
        return _ByteArrayWriter(out, view, self.settings.bytearray_separator)
