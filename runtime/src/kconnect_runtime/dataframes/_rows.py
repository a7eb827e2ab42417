"""Source records as Arrow record batches in the data source's row shape.

Rows carry ``topic``, ``partition`` (the source partition as JSON), ``offset`` (the source
offset as JSON), ``key``, ``value``, ``headers`` and ``timestamp``. ``key`` and ``value`` are
the Connect values in Spark types (``value.format=connect``, the default) or the bytes the
catalogue's converter makes of them (``json``, ``avro``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute
from kconnect_sdk import ConnectError, Headers, Schema, SourceBatch, SourceRecord

from kconnect_runtime.errors import ErrorHandler, Stage, class_name

from ._columns import Polled, first_record, regroup
from ._errors import source_record_failed
from ._plan import ConnectorPlan
from ._types import arrow_builder, arrow_type, describe_schema, project_array

__all__ = ["EVOLUTION_MODES", "RowEncoder", "SchemaChanged", "row_schema"]

EVOLUTION = "kconnect.schema.evolution"
EVOLUTION_MODES = ("fail", "project")

# ``RowEncoder._encode`` transposes records with ``zip(*records)``: the fields in this order.
_FIELDS = (
    "topic",
    "kafka_partition",
    "key_schema",
    "key",
    "value_schema",
    "value",
    "timestamp",
    "headers",
    "source_partition",
    "source_offset",
)
if SourceRecord._fields != _FIELDS:  # pragma: no cover - an SDK that reordered its fields
    raise ImportError(f"SourceRecord's fields are {SourceRecord._fields}, expected {_FIELDS}")

HEADERS_TYPE = pa.list_(pa.struct([pa.field("key", pa.string()), pa.field("value", pa.binary())]))


class SchemaChanged(ConnectError):
    """A record's schema no longer maps to the query's: a query-level failure, never skipped."""


class _EncodeError(ConnectError):
    """A column of a batch could not be made: which stage and class, for ``errors.*``."""

    def __init__(self, message: str, stage: Stage, executing: str) -> None:
        super().__init__(message)
        self.stage = stage
        self.executing = executing


def row_schema(key: pa.DataType, value: pa.DataType) -> pa.Schema:
    """The Arrow schema of the data source's rows, given the key's and value's types."""
    return pa.schema(
        [
            pa.field("topic", pa.string()),
            pa.field("partition", pa.string()),
            pa.field("offset", pa.string()),
            pa.field("key", key),
            pa.field("value", value),
            pa.field("headers", HEADERS_TYPE),
            pa.field("timestamp", pa.timestamp("us", tz="UTC")),
        ]
    )


def format_type(fmt: str, schema: Schema | None) -> pa.DataType:
    """The Arrow type of a key or value column: binary when a converter encodes it."""
    return arrow_type(schema) if fmt == "connect" else pa.binary()


def _json(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _json_column(values: list[Any]) -> pa.Array:
    """Source partitions or offsets as a JSON text column (compact, keys sorted).

    Consecutive records mostly share one partition object, so its text is reused. Offsets
    are mostly a new small map per record with the same keys and integer or plain string
    values (``{"position": 42}``, a binlog file and position): those are assembled column by
    column in Arrow (:func:`_flat_maps_json`), the rest go through orjson one by one.
    """
    fast = _flat_maps_json(values)
    if fast is not None:
        return fast
    dumps = orjson.dumps
    opt = orjson.OPT_SORT_KEYS
    out: list[bytes | None] = []
    append = out.append
    last: Any = object()
    last_text: bytes | None = None
    for v in values:
        if v is not last:
            last = v
            last_text = None if v is None else dumps(v, option=opt)
        append(last_text)
    return pa.array(out, type=pa.binary()).cast(pa.string())


# A string JSON would escape (quote, backslash, control characters): not for the fast path.
_NEEDS_ESCAPE = r'["\\\x00-\x1f]'


def _flat_maps_json(values: list[Any]) -> pa.Array | None:
    """The JSON texts of ``values`` when all are maps with one key set and int/str values.

    The same texts as ``orjson.dumps(v, option=OPT_SORT_KEYS)``, made with one Python pass
    per key and Arrow's string kernels; None when the batch does not have that shape.
    """
    n = len(values)
    if n < 16:
        return None
    first = values[0]
    if values.count(first) == n:  # one object (or equal ones): one text, repeated
        text = None if first is None else orjson.dumps(first, option=orjson.OPT_SORT_KEYS)
        return pa.repeat(pa.scalar(text, type=pa.binary()), n).cast(pa.string())
    # C-level passes (map), not a Python loop per row: all dicts of the same size...
    if type(first) is not dict or not first or set(map(type, values)) != {dict}:
        return None
    if set(map(len, values)) != {len(first)}:
        return None
    columns: dict[Any, list[Any]] = {}
    for key in first:
        try:
            columns[key] = list(map(itemgetter(key), values))  # ...same keys (else KeyError)
        except KeyError:
            return None
    return columns_json(columns)


def columns_json(columns: Mapping[Any, Sequence[Any]]) -> pa.Array | None:
    """Per row, the JSON text of the map ``{key: columns[key][row] for key in columns}``.

    The same texts as ``orjson.dumps(map, option=OPT_SORT_KEYS)`` when every column holds
    only ints (within int64) or only strings JSON would not escape, made with Arrow's
    kernels; None for any other shape (the caller then dumps each map with orjson).
    """
    if not columns or not all(isinstance(key, str) for key in columns):
        return None
    pieces: list[Any] = []
    sep = "{"
    for key in sorted(columns):
        if any(c in '"\\' or c < " " for c in key):
            return None
        column = columns[key]
        kinds = set(map(type, column))
        if kinds == {int}:
            try:
                text = pa.array(column, type=pa.int64()).cast(pa.string())
            except (OverflowError, pa.ArrowException):
                return None
        elif kinds == {str}:
            array = pa.array(column, type=pa.string())
            if pa.compute.any(pa.compute.match_substring_regex(array, _NEEDS_ESCAPE)).as_py():
                return None
            text = pa.compute.binary_join_element_wise('"', array, '"', "")
        else:
            return None
        pieces.append(f'{sep}"{key}":')
        pieces.append(text)
        sep = ","
    pieces.append("}")
    return pa.compute.binary_join_element_wise(*pieces, "")


class RowEncoder:
    """Turns batches of (transformed) source records into record batches of ``target``.

    Args:
        plan: The connector (formats, converters, options).
        target: The Arrow schema the query declared (from Spark's schema).
        spark_types: A function giving the Spark type of an Arrow type (to tell whether a
            record's schema still fits the query's).
    """

    def __init__(
        self,
        plan: ConnectorPlan,
        target: pa.Schema,
        spark_type: Callable[[pa.DataType], Any],
        errors: ErrorHandler | None = None,
    ) -> None:
        self.plan = plan
        self.errors = errors
        self.target = target
        self._spark_type = spark_type
        self.converters = plan.converters()
        mode = plan.own_str(EVOLUTION, "fail").lower()
        if mode not in EVOLUTION_MODES:
            from kconnect_sdk import ConfigError

            raise ConfigError(
                f"Invalid value {mode} for option {EVOLUTION}: expected one of "
                f"{', '.join(EVOLUTION_MODES)}",
                name=EVOLUTION,
            )
        self.project = mode == "project"
        self._builders: dict[int, tuple[Schema | None, Callable[[Sequence[Any]], pa.Array]]] = {}
        self._checked: dict[tuple[str, int], bool] = {}

    def close(self) -> None:
        self.converters.close()

    def _builder(self, schema: Schema | None) -> Callable[[Sequence[Any]], pa.Array]:
        entry = self._builders.get(id(schema))
        if entry is None or entry[0] is not schema:
            entry = (schema, arrow_builder(schema))
            self._builders[id(schema)] = entry
        return entry[1]

    def _fits(self, which: str, schema: Schema | None, record: SourceRecord) -> None:
        """Check once per schema object that it maps to the query's type (else evolve or fail)."""
        key = (which, id(schema))
        if key in self._checked:
            return
        have = arrow_type(schema)
        want = self.target.field(which).type
        same = have == want or self._spark_type(have) == self._spark_type(want)
        if not same and not self.project:
            raise SchemaChanged(
                f"connector {self.plan.name!r}: the {which} schema changed mid-stream: a record "
                f"of topic {record.topic!r} at source partition {_json(record.source_partition)} "
                f"offset {_json(record.source_offset)} has {which} schema "
                f"{describe_schema(schema)}, which is Spark type "
                f"{self._spark_type(have).simpleString()}, but the query reads "
                f"{self._spark_type(want).simpleString()}. Restart the query to read the new "
                f"schema, or set option {EVOLUTION}=project to map records onto the query's "
                "schema (give a wider schema with .schema(...): missing fields become null, "
                "fields the schema does not have are dropped)"
            )
        self._checked[key] = same

    def _column(
        self,
        which: str,
        fmt: str,
        records: Sequence[SourceRecord],
        *,
        topics: Sequence[str],
        schemas: Sequence[Schema | None],
        all_values: Sequence[Any],
    ) -> pa.Array:
        want = self.target.field(which).type
        stage = Stage.KEY_CONVERTER if which == "key" else Stage.VALUE_CONVERTER
        if fmt != "connect":
            conv = self.converters.key if which == "key" else self.converters.value
            try:
                data = conv.from_connect_batch(list(zip(topics, schemas, all_values, strict=True)))
            except Exception as exc:
                raise _EncodeError(
                    f"connector {self.plan.name!r}: {class_name(conv)} cannot convert a {which} "
                    f"of topic {records[0].topic!r}: {type(exc).__name__}: {exc}",
                    stage,
                    class_name(conv),
                ) from exc
            return pa.array(data, type=pa.binary()).cast(want)
        # Runs of records that share a schema object convert in one call.
        pieces: list[pa.Array] = []
        n = len(records)
        one_schema = schemas.count(schemas[0]) == n  # identity first: C speed for one object
        start = 0
        while start < n:
            first = records[start]
            schema = schemas[start]
            if one_schema:
                end = n
            else:
                end = start + 1
                while end < n and schemas[end] is schema:
                    end += 1
            values = list(all_values) if (start, end) == (0, n) else list(all_values[start:end])
            if schema is None and values.count(None) == len(values):
                # Tombstones (and null keys) carry no schema: null in whatever type the
                # query reads, not a schema change.
                pieces.append(pa.nulls(len(values), type=want))
                start = end
                continue
            self._fits(which, schema, first)
            try:
                array = self._builder(schema)(values)
            except Exception as exc:
                raise _EncodeError(
                    f"connector {self.plan.name!r}: cannot convert a {which} of topic "
                    f"{first.topic!r} (schema {describe_schema(schema)}) to Arrow: "
                    f"{type(exc).__name__}: {exc}",
                    stage,
                    class_name(self),
                ) from exc
            pieces.append(array if array.type == want else project_array(array, want))
            start = end
        return pieces[0] if len(pieces) == 1 else pa.concat_arrays(pieces)

    def encode(self, records: Sequence[SourceRecord]) -> pa.RecordBatch:
        """One record batch of ``records``, under ``errors.*``.

        A batch that fails is encoded again one record at a time to find the records that
        fail; each fails the task (``errors.tolerance=none``: the error names the record) or
        is skipped (``all``: logged, sent to the DLQ as configured). A schema change is never
        skipped (see ``kconnect.schema.evolution``).
        """
        try:
            return self._encode(records)
        except SchemaChanged:
            raise
        except _EncodeError as exc:
            if self.errors is None:
                raise
            first_error = exc
        good: list[SourceRecord] = []
        for r in records:
            try:
                self._encode([r])
            except SchemaChanged:
                raise
            except _EncodeError as exc:
                source_record_failed(self.errors, r, exc.stage, exc.executing, exc)
                continue
            good.append(r)
        if len(good) == len(records):
            raise first_error  # fails only as a batch: nothing to skip
        return self._encode(good)

    def _encode(self, records: Sequence[SourceRecord]) -> pa.RecordBatch:
        plan = self.plan
        header_conv = self.converters.header
        if not records:
            return pa.RecordBatch.from_pylist([], schema=self.target)
        # A SourceRecord is a tuple: one C-level transpose gives every field's column.
        (
            topics,
            _,
            key_schemas,
            keys,
            value_schemas,
            values,
            times,
            all_headers,
            source_partitions,
            source_offsets,
        ) = zip(*records, strict=True)
        empty = Headers.EMPTY
        with_headers = (
            []
            if all_headers.count(empty) == len(all_headers)
            else [i for i, h in enumerate(all_headers) if h is not empty and h]
        )
        headers: list[Any] = [None] * len(records) if with_headers else []
        for i in with_headers:
            r = records[i]
            try:
                headers[i] = [
                    {
                        "key": h.key,
                        "value": header_conv.from_connect_header(r.topic, h.key, h.schema, h.value),
                    }
                    for h in r.headers
                ]
            except Exception as exc:
                raise _EncodeError(
                    f"connector {plan.name!r}: {class_name(header_conv)} cannot convert a "
                    f"header of topic {r.topic!r}: {type(exc).__name__}: {exc}",
                    Stage.HEADER_CONVERTER,
                    class_name(header_conv),
                ) from exc
        partitions = _json_column(list(source_partitions))
        offsets = _json_column(list(source_offsets))
        timestamps = pa.array(times, type=pa.int64())
        columns = [
            pa.array(topics, type=pa.string()),
            partitions,
            offsets,
            self._column(
                "key", plan.key_format, records, topics=topics, schemas=key_schemas, all_values=keys
            ),
            self._column(
                "value",
                plan.value_format,
                records,
                topics=topics,
                schemas=value_schemas,
                all_values=values,
            ),
            pa.array(headers, type=HEADERS_TYPE)
            if with_headers
            else pa.nulls(len(records), type=HEADERS_TYPE),
            pa.compute.multiply(timestamps, 1000).cast(pa.timestamp("us", tz="UTC")),
        ]
        columns = [
            c if c.type == f.type else project_array(c, f.type)
            for c, f in zip(columns, self.target, strict=True)
        ]
        return pa.RecordBatch.from_arrays(columns, schema=self.target)

    def encode_chunks(self, records: Sequence[SourceRecord], rows: int) -> Iterator[pa.RecordBatch]:
        for i in range(0, len(records), rows):
            yield self.encode(records[i : i + rows])

    def encode_polled(self, items: Sequence[Polled], rows: int) -> Iterator[pa.RecordBatch]:
        """Record batches of at most ``rows`` rows of what polls gave (records or batches)."""
        for piece in regroup(items, rows):
            if isinstance(piece, SourceBatch):
                yield self.encode_batch(piece)
            else:
                yield self.encode(piece)

    def encode_batch(self, batch: SourceBatch) -> pa.RecordBatch:
        """One record batch of a task's columnar batch, with no record per row.

        The same rows :meth:`encode` makes of ``batch.records()``. When a column cannot be
        made (a value that does not fit its schema's Arrow type, a converter that refuses
        one), the batch's records take :meth:`encode`, which finds the failing records and
        applies ``errors.*`` to each exactly as for records polled one by one.
        """
        try:
            return self._encode_batch(batch)
        except SchemaChanged:
            raise
        except _EncodeError:
            return self.encode(batch.records())

    def _encode_batch(self, batch: SourceBatch) -> pa.RecordBatch:
        plan = self.plan
        n = len(batch)
        if batch.source_offset_columns is not None:
            offsets = columns_json(batch.source_offset_columns)
            if offsets is None:
                offsets = _json_column(batch.offsets())
        elif batch.source_offsets is not None:
            offsets = _json_column(list(batch.source_offsets))
        else:
            offsets = pa.nulls(n, type=pa.string())
        stamps = batch.timestamps
        if stamps is None:
            times = pa.nulls(n, type=pa.timestamp("us", tz="UTC"))
        else:
            first = stamps[0]
            if type(first) is int and stamps.count(first) == n:  # one clock for the poll
                millis = pa.repeat(pa.scalar(first, type=pa.int64()), n)
            else:
                millis = pa.array(stamps, type=pa.int64())
            times = pa.compute.multiply(millis, 1000).cast(pa.timestamp("us", tz="UTC"))
        columns = [
            pa.repeat(pa.scalar(batch.topic, type=pa.string()), n),
            pa.repeat(pa.scalar(_json(batch.source_partition), type=pa.string()), n),
            offsets,
            self._batch_column("key", plan.key_format, batch, batch.key_schema, batch.keys),
            self._batch_column("value", plan.value_format, batch, batch.value_schema, batch.values),
            pa.nulls(n, type=HEADERS_TYPE),
            times,
        ]
        columns = [
            c if c.type == f.type else project_array(c, f.type)
            for c, f in zip(columns, self.target, strict=True)
        ]
        return pa.RecordBatch.from_arrays(columns, schema=self.target)

    def _batch_column(
        self,
        which: str,
        fmt: str,
        batch: SourceBatch,
        schema: Schema | None,
        values: Sequence[Any] | None,
    ) -> pa.Array:
        """The key or value column of a batch: as :meth:`_column` makes it of its records."""
        want = self.target.field(which).type
        stage = Stage.KEY_CONVERTER if which == "key" else Stage.VALUE_CONVERTER
        n = len(batch)
        if fmt != "connect":
            conv = self.converters.key if which == "key" else self.converters.value
            column = repeat(None, n) if values is None else values
            rows = list(zip(repeat(batch.topic), repeat(schema), column))
            try:
                data = conv.from_connect_batch(rows)
            except Exception as exc:
                raise _EncodeError(
                    f"connector {self.plan.name!r}: {class_name(conv)} cannot convert a {which} "
                    f"of topic {batch.topic!r}: {type(exc).__name__}: {exc}",
                    stage,
                    class_name(conv),
                ) from exc
            return pa.array(data, type=pa.binary()).cast(want)
        if values is None:
            values = [None] * n
        if schema is None and (values.count(None) == n):
            return pa.nulls(n, type=want)  # null keys, tombstones: no schema to check
        if (which, id(schema)) not in self._checked:
            self._fits(which, schema, first_record(batch))
        try:
            array = self._builder(schema)(values if type(values) is list else list(values))
        except Exception as exc:
            raise _EncodeError(
                f"connector {self.plan.name!r}: cannot convert a {which} of topic "
                f"{batch.topic!r} (schema {describe_schema(schema)}) to Arrow: "
                f"{type(exc).__name__}: {exc}",
                stage,
                class_name(self),
            ) from exc
        return array if array.type == want else project_array(array, want)
