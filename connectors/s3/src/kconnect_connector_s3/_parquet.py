"""ParquetFormat: one Parquet file per S3 object, written with pyarrow.

Columns are the fields of the record value's Struct schema, mapped Connect -> Arrow the way
parquet-avro maps Confluent's Avro schemas: logical types keep their meaning (Date ->
date32, Time -> time32[ms], Timestamp -> timestamp[ms, UTC], Decimal -> decimal128), and
optional fields are nullable columns. Records are kept column by column until the file
commits, so memory grows with the data of the open files, not with a part size.
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq
from kconnect_sdk import (
    ConfigError,
    DataError,
    Date,
    Decimal,
    Schema,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
    Type,
)

from ._config import S3SinkSettings
from ._formats import FileWriter, Format, RecordView
from ._storage import S3OutputStream, S3Storage

__all__ = ["ParquetFormat", "arrow_schema", "arrow_type"]

# parquet-mr's CompressionCodecName extensions (what Java puts before ".parquet").
_CODECS: Final = {
    "none": ("NONE", ""),
    "snappy": ("SNAPPY", ".snappy"),
    "gzip": ("GZIP", ".gz"),
    "brotli": ("BROTLI", ".br"),
    "lz4": ("LZ4", ".lz4hc"),
    "zstd": ("ZSTD", ".zstd"),
}

_PRIMITIVES: Final = {
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


def arrow_type(schema: Schema) -> pa.DataType:
    """The Arrow type of a Connect schema (logical types included)."""
    if schema.name == Decimal.LOGICAL_NAME:
        scale = Decimal.scale_of(schema)
        precision = int(schema.parameters.get("connect.decimal.precision", "38"))
        return pa.decimal128(max(precision, scale, 1), scale)
    if schema.name == Date.LOGICAL_NAME:
        return pa.date32()
    if schema.name == Time.LOGICAL_NAME:
        return pa.time32("ms")
    if schema.name == Timestamp.LOGICAL_NAME:
        return pa.timestamp("ms", tz="UTC")
    if schema.type in _PRIMITIVES:
        return _PRIMITIVES[schema.type]
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        return pa.list_(_field("element", schema.value_schema))
    if schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return pa.map_(arrow_type(schema.key_schema), _field("value", schema.value_schema))
    return pa.struct([_field(f.name, f.schema) for f in schema.fields])


def _field(name: str, schema: Schema) -> pa.Field:
    return pa.field(name, arrow_type(schema), nullable=schema.optional)


def arrow_schema(schema: Schema) -> pa.Schema:
    """The Arrow schema of a Struct schema: one column per field."""
    return pa.schema([_field(f.name, f.schema) for f in schema.fields])


def _plain(schema: Schema, value: Any) -> Any:
    """A Connect value as the Python value pyarrow takes for ``arrow_type(schema)``."""
    if value is None:
        return None
    if schema.name == Timestamp.LOGICAL_NAME and isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if schema.type is Type.STRUCT:
        if not isinstance(value, Struct):
            raise DataError(f"expected a Struct for schema {schema.name or 'struct'}")
        return {f.name: _plain(f.schema, value.get(f.name)) for f in schema.fields}
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        return [_plain(schema.value_schema, v) for v in value]
    if schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        ks, vs = schema.key_schema, schema.value_schema
        return [(_plain(ks, k), _plain(vs, v)) for k, v in value.items()]
    return value


class _ParquetWriter(FileWriter):
    def __init__(self, fmt: ParquetFormat, out: S3OutputStream, view: RecordView) -> None:
        self.fmt = fmt
        self.out = out
        self.view = view
        self.schema: Schema | None = None
        self.columns: list[list[Any]] = []
        self.approx_bytes = 0

    def prepare(self, record: SinkRecord) -> tuple[Schema, list[Any]]:
        schema = self.view.schema(record, True)
        value = self.view.value(record, True)
        where = f"offset {record.kafka_offset} of {record.topic}-{record.kafka_partition}"
        if schema is None or schema.type is not Type.STRUCT or not isinstance(value, Struct):
            raise DataError(
                f"ParquetFormat cannot write the record at {where}: Parquet needs a Struct "
                "value with a schema; use a converter with schemas (AvroConverter, "
                "JsonConverter with schemas.enable=true) or JsonFormat"
            )
        if self.schema is not None and schema != self.schema:
            raise DataError(
                f"ParquetFormat: the record at {where} has another schema than its file"
            )
        try:
            return schema, [_plain(f.schema, value.get(f.name)) for f in schema.fields]
        except DataError as exc:
            raise DataError(f"ParquetFormat cannot write the record at {where}: {exc}") from exc

    def append(self, prepared: tuple[Schema, list[Any]]) -> None:
        schema, row = prepared
        if self.schema is None:
            self.schema = schema
            self.columns = [[] for _ in row]
        for column, item in zip(self.columns, row, strict=True):
            column.append(item)
        # A rough size, for the memory bound: Python objects, not encoded bytes.
        self.approx_bytes += 64 * len(row)

    def commit(self) -> None:
        if self.schema is None:
            self.out.abort()
            return
        arrow = self.fmt.arrow_schema(self.schema)
        try:
            arrays = [
                pa.array(column, type=field.type)
                for column, field in zip(self.columns, arrow, strict=True)
            ]
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise DataError(f"ParquetFormat cannot write {self.out.key!r}: {exc}") from exc
        table = pa.Table.from_arrays(arrays, schema=arrow)
        buf = io.BytesIO()
        pq.write_table(table, buf, compression=self.fmt.codec)
        self.columns = []
        self.out.write(buf.getbuffer())
        self.out.commit()

    def abort(self) -> None:
        self.columns = []
        self.out.abort()

    def buffered_bytes(self) -> int:
        return self.approx_bytes


class ParquetFormat(Format):
    """Parquet files (``<codec>.parquet``) with ``parquet.codec`` compression."""

    java_name = "io.confluent.connect.s3.format.parquet.ParquetFormat"

    def __init__(self, settings: S3SinkSettings) -> None:
        super().__init__(settings)
        name = str(settings.raw["parquet.codec"])
        if name not in _CODECS:
            raise ConfigError(
                f"S3 sink: config 'parquet.codec': {name!r} cannot be written by pyarrow; use "
                "one of " + ", ".join(_CODECS),
                name="parquet.codec",
                value=name,
            )
        self.codec, self._ext = _CODECS[name]
        self._schemas: dict[Schema, pa.Schema] = {}

    def arrow_schema(self, schema: Schema) -> pa.Schema:
        found = self._schemas.get(schema)
        if found is None:
            if len(self._schemas) >= 1000:
                self._schemas.clear()
            found = self._schemas[schema] = arrow_schema(schema)
        return found

    @property
    def extension(self) -> str:
        return self._ext + ".parquet"

    def writer(self, storage: S3Storage, key: str, view: RecordView) -> FileWriter:
        return _ParquetWriter(self, S3OutputStream(storage, key), view)
