"""AvroFormat: Avro object container files, with the Connect -> Avro mapping of the Avro converter.

The container is written here (header, blocks of at most about 64 000 bytes as Java's
``DataFileWriter`` cuts them, the codec of ``avro.codec``) so that each record is
serialised and checked *before* it joins a block: a record that does not fit its schema
is an errant record and never half-written.
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import zlib
from typing import Any, Final

import fastavro
import pyarrow as pa
from kconnect_converter_avro import AvroData, render_avro_schema
from kconnect_sdk import DataError, Schema, SinkRecord

from ._config import S3SinkSettings
from ._formats import FileWriter, Format, RecordView
from ._storage import S3OutputStream, S3Storage

__all__ = ["AvroFormat", "avro_data_for"]

_MAGIC: Final = b"Obj\x01"
# Java's DataFileConstants.DEFAULT_SYNC_INTERVAL: a block is written once it holds this much.
_SYNC_INTERVAL: Final = 64_000


def _long(n: int) -> bytes:
    """Avro's zig-zag varint."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z & ~0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _bytes(data: bytes) -> bytes:
    return _long(len(data)) + data


def _compress(codec: str, data: bytes) -> bytes:
    if codec == "null":
        return data
    if codec == "deflate":
        deflate = zlib.compressobj(-1, zlib.DEFLATED, -zlib.MAX_WBITS)
        return deflate.compress(data) + deflate.flush()
    if codec == "snappy":
        compressed = pa.compress(data, codec="snappy", asbytes=True)
        assert isinstance(compressed, bytes)
        return compressed + zlib.crc32(data).to_bytes(4, "big")
    return bz2.compress(data)


def avro_data_for(settings: S3SinkSettings) -> AvroData:
    raw = settings.raw
    return AvroData(
        {
            "schemas.cache.config": raw["schemas.cache.config"],
            "enhanced.avro.schema.support": raw["enhanced.avro.schema.support"],
            "connect.meta.data": raw["connect.meta.data"],
        }
    )


def deterministic_sync_marker(key: str) -> bytes:
    """Avro's 16-byte sync marker, derived from the object key.

    Java picks a random marker per file, so its objects differ on every rewrite; a marker
    that depends only on the key makes a rewritten object byte-identical, which is what
    makes the rewrite after a crash indistinguishable from the first write.
    """
    return hashlib.md5(key.encode("utf-8")).digest()


class _Prepared:
    """A Connect schema's Avro form, parsed once for every record of that schema."""

    def __init__(self, avro: Any) -> None:
        self.text = json.dumps(render_avro_schema(avro), separators=(",", ":")).encode()
        self.parsed = fastavro.parse_schema(avro)


class _AvroWriter(FileWriter):
    def __init__(self, fmt: AvroFormat, out: S3OutputStream, view: RecordView) -> None:
        self.fmt = fmt
        self.out = out
        self.view = view
        self.schema: Schema | None = None
        self.prepared: _Prepared | None = None
        self.block = bytearray()
        self.count = 0
        self.sync = deterministic_sync_marker(out.key)

    def prepare(self, record: SinkRecord) -> bytes:
        schema = self.view.schema(record, False)
        value = self.view.value(record, False)
        where = f"offset {record.kafka_offset} of {record.topic}-{record.kafka_partition}"
        if schema is None:
            raise DataError(
                f"AvroFormat cannot write the schemaless record at {where}: Avro files need a "
                "schema; use a converter with schemas (AvroConverter, JsonConverter with "
                "schemas.enable=true) or JsonFormat"
            )
        # A file holds one schema; rotation happens on a schema change before we get here.
        prepared = self.prepared
        if prepared is None or self.schema is not schema:
            prepared = self.fmt.prepared(schema)
        try:
            datum = self.fmt.avro_data.from_connect_data(schema, value)
            buf = io.BytesIO()
            fastavro.schemaless_writer(buf, prepared.parsed, datum)
        except DataError as exc:
            raise DataError(f"AvroFormat cannot write the record at {where}: {exc}") from exc
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as exc:
            raise DataError(
                f"AvroFormat cannot write the record at {where}: it does not fit its schema ({exc})"
            ) from exc
        if self.schema is None:
            self.schema, self.prepared = schema, prepared
        return buf.getvalue()

    def append(self, prepared: bytes) -> None:
        if self.count == 0 and self.out.position == 0:
            assert self.prepared is not None
            codec = self.fmt.codec.encode()
            # Java keeps the metadata in a HashMap, which iterates "avro.schema" before
            # "avro.codec"; the header lists them in that order.
            header = (
                _MAGIC
                + _long(2)
                + _bytes(b"avro.schema")
                + _bytes(self.prepared.text)
                + _bytes(b"avro.codec")
                + _bytes(codec)
                + _long(0)
                + self.sync
            )
            self.out.write(header)
        self.block += prepared
        self.count += 1
        if len(self.block) >= _SYNC_INTERVAL:
            self._write_block()

    def _write_block(self) -> None:
        if not self.count:
            return
        data = _compress(self.fmt.codec, bytes(self.block))
        self.out.write(_long(self.count) + _long(len(data)) + data + self.sync)
        self.block = bytearray()
        self.count = 0

    def commit(self) -> None:
        self._write_block()
        self.out.commit()

    def abort(self) -> None:
        self.block = bytearray()
        self.out.abort()

    def buffered_bytes(self) -> int:
        return len(self.block) + self.out.buffered


class AvroFormat(Format):
    """Avro object container files (``.avro``), one schema per file."""

    java_name = "io.confluent.connect.s3.format.avro.AvroFormat"

    def __init__(self, settings: S3SinkSettings) -> None:
        super().__init__(settings)
        self.avro_data = avro_data_for(settings)
        self.codec = str(settings.raw["avro.codec"])
        self._prepared: dict[Schema, _Prepared] = {}

    def prepared(self, schema: Schema) -> _Prepared:
        found = self._prepared.get(schema)
        if found is None:
            if len(self._prepared) >= 1000:
                self._prepared.clear()
            found = self._prepared[schema] = _Prepared(self.avro_data.from_connect_schema(schema))
        return found

    @property
    def extension(self) -> str:
        return ".avro"

    def writer(self, storage: S3Storage, key: str, view: RecordView) -> FileWriter:
        return _AvroWriter(self, S3OutputStream(storage, key), view)
