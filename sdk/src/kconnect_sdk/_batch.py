"""Records held as columns: SourceBatch (what a source task polls), SinkBatch (what a sink
task is handed).

A source task that reads many similar rows at a time (lines of a file, rows of a table,
events of a binlog file) may return them from ``SourceTask.poll_batch`` as one batch of
columns instead of one :class:`SourceRecord` per row. A runtime that reads columns (the
kconnect DataFrame read) builds its Arrow columns straight from these lists; every other
consumer gets the same records from :meth:`SourceBatch.records`.

A sink task that writes a batch's values (or keys, or any other field) column by column
may take a :class:`SinkBatch` in ``SinkTask.put_batch``: the worker then makes no
:class:`SinkRecord` per consumed message, which was most of what a simple sink's records
cost in Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ._headers import Headers
from ._records import SinkRecord, SourceRecord, TimestampType

if TYPE_CHECKING:
    from ._schema import Schema

__all__ = ["SinkBatch", "SourceBatch"]

# A SinkRecord from a tuple of its 13 fields in declaration order, made in C.
_make_sink_record = partial(tuple.__new__, SinkRecord)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceBatch:
    """Records of ONE topic and ONE source partition, as columns (row ``i`` of each list).

    Every row shares ``topic``, ``source_partition``, ``value_schema`` and ``key_schema``;
    values, keys, offsets and timestamps are per row. A batch has no headers and no chosen
    Kafka partition: a task that needs them returns records from ``poll``.

    Give each row's source offset in one of two ways (or neither: every offset is None,
    for a source that cannot be resumed, like standard input):

    - ``source_offsets``: one offset map (or None) per row, as ``SourceRecord`` has them;
    - ``source_offset_columns``: the offset maps as columns, ``{"position": [7, 15, 22]}``
      meaning row ``i``'s offset is ``{"position": [7, 15, 22][i]}``. The cheapest form for
      a reader of columns: no map per row is ever built unless :meth:`records` is called.

    Attributes:
        topic: The Kafka topic of every row.
        source_partition: The source partition of every row (plain JSON data), or None.
        values: The rows' values (a None value is a tombstone).
        value_schema: The schema of every value, or None for schemaless values.
        keys: The rows' keys, or None when every key is None.
        key_schema: The schema of every key, or None.
        source_offsets: Per row: the source offset (plain JSON data) or None.
        source_offset_columns: Per offset key: that key's value in each row.
        timestamps: Per row: milliseconds since the epoch or None; None when no row has one.

    Like records, a batch belongs to the runtime once returned: neither it nor its lists
    may be changed afterwards.

    Raises:
        ValueError: when a column's length differs from ``values``', or both offset forms,
            or offsets without a source partition, are given.
    """

    topic: str
    source_partition: Mapping[str, Any] | None
    values: Sequence[Any]
    value_schema: Schema | None = None
    keys: Sequence[Any] | None = None
    key_schema: Schema | None = None
    source_offsets: Sequence[Mapping[str, Any] | None] | None = None
    source_offset_columns: Mapping[str, Sequence[Any]] | None = None
    timestamps: Sequence[int | None] | None = None

    def __post_init__(self) -> None:
        n = len(self.values)
        for name, column in (
            ("keys", self.keys),
            ("source_offsets", self.source_offsets),
            ("timestamps", self.timestamps),
        ):
            if column is not None and len(column) != n:
                raise ValueError(
                    f"SourceBatch of topic {self.topic!r}: {name} has {len(column)} rows but "
                    f"values has {n}; give one entry per row"
                )
        columns = self.source_offset_columns
        if columns is not None:
            if self.source_offsets is not None:
                raise ValueError(
                    f"SourceBatch of topic {self.topic!r}: give source_offsets or "
                    "source_offset_columns, not both"
                )
            for key, column in columns.items():
                if len(column) != n:
                    raise ValueError(
                        f"SourceBatch of topic {self.topic!r}: source offset column {key!r} "
                        f"has {len(column)} rows but values has {n}; give one entry per row"
                    )
        has_offsets = self.source_offsets is not None or columns is not None
        if has_offsets and self.source_partition is None:
            raise ValueError(
                f"SourceBatch of topic {self.topic!r}: source offsets need a "
                "source_partition (the partition the offsets are positions in)"
            )

    def __len__(self) -> int:
        return len(self.values)

    def source_offset(self, row: int) -> Mapping[str, Any] | None:
        """Row ``row``'s source offset (a new map when the offsets are given as columns)."""
        columns = self.source_offset_columns
        if columns is not None:
            return {key: column[row] for key, column in columns.items()}
        offsets = self.source_offsets
        return None if offsets is None else offsets[row]

    def offsets(self) -> list[Mapping[str, Any] | None]:
        """Every row's source offset, in row order (maps built from the columns if need be)."""
        columns = self.source_offset_columns
        if columns is not None:
            keys = list(columns)
            if len(keys) == 1:  # the usual shape ({"position": n}): a literal per row
                (key,) = keys
                return [{key: v} for v in columns[key]]
            if not keys:
                return [{} for _ in range(len(self.values))]
            rows = zip(*columns.values(), strict=True)
            return [dict(zip(keys, row, strict=True)) for row in rows]
        if self.source_offsets is not None:
            return list(self.source_offsets)
        return [None] * len(self.values)

    def records(self) -> list[SourceRecord]:
        """The batch as the records ``poll`` returns: one :class:`SourceRecord` per row.

        Every record shares this batch's ``source_partition`` object and has no headers
        and no Kafka partition.
        """
        n = len(self.values)
        if not n:
            return []
        new, cls = tuple.__new__, SourceRecord
        topic, key_schema, value_schema = self.topic, self.key_schema, self.value_schema
        partition, empty = self.source_partition, Headers.EMPTY
        keys = repeat(None, n) if self.keys is None else self.keys
        times = repeat(None, n) if self.timestamps is None else self.timestamps
        offsets: Any = self.source_offsets
        if offsets is None:
            offsets = repeat(None, n) if self.source_offset_columns is None else self.offsets()
        # A SourceRecord is a tuple of its fields in declaration order: built without a
        # Python-level __new__ call per row (the same object the keyword constructor makes).
        return [
            new(cls, (topic, None, key_schema, k, value_schema, v, t, empty, partition, o))
            for k, v, t, o in zip(keys, self.values, times, offsets, strict=True)
        ]

    @staticmethod
    def records_of(batch: SourceBatch | None) -> list[SourceRecord] | None:
        """``batch.records()``, or None for no batch: ``poll`` of a task that has ``poll_batch``.

        Example:
            >>> def poll(self) -> list[SourceRecord] | None:
            ...     return SourceBatch.records_of(self.poll_batch())
        """
        return None if batch is None else batch.records()


@dataclass(frozen=True, slots=True, kw_only=True)
class SinkBatch:
    """Records consumed from Kafka, as columns: row ``i`` of each list is one record.

    What ``SinkTask.put_batch`` receives. Each column has one entry per record and means
    what the :class:`SinkRecord` field of the same name means; the rows are in the order
    ``put`` would have received the records. A batch carries the records as consumed (the
    worker hands batches only to connectors without transforms), so every row's
    ``original_*`` coordinates are its ``topics`` / ``kafka_partitions`` /
    ``kafka_offsets``.

    Attributes:
        topics: Each record's topic.
        kafka_partitions: Each record's partition.
        kafka_offsets: Each record's offset in its partition.
        key_schemas: Each key's schema (None: schemaless).
        keys: Each record's key, as the key converter returned it.
        value_schemas: Each value's schema (None: schemaless).
        values: Each record's value, as the value converter returned it (None: a tombstone).
        timestamps: Each record's timestamp (ms since the epoch), or None.
        timestamp_types: Each record's :class:`TimestampType`.
        headers: Each record's headers.

    The batch and its lists belong to the worker: read them, do not change them. A row's
    full record is :meth:`record` (for ``context.errant_record_reporter``), all of them
    :meth:`records`.
    """

    topics: Sequence[str]
    kafka_partitions: Sequence[int]
    kafka_offsets: Sequence[int]
    key_schemas: Sequence[Schema | None]
    keys: Sequence[Any]
    value_schemas: Sequence[Schema | None]
    values: Sequence[Any]
    timestamps: Sequence[int | None]
    timestamp_types: Sequence[TimestampType]
    headers: Sequence[Headers]

    def __post_init__(self) -> None:
        n = len(self.values)
        for name in (
            "topics",
            "kafka_partitions",
            "kafka_offsets",
            "key_schemas",
            "keys",
            "value_schemas",
            "timestamps",
            "timestamp_types",
            "headers",
        ):
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"SinkBatch: {name} has {len(getattr(self, name))} rows but values has "
                    f"{n}; give one entry per record"
                )

    def __len__(self) -> int:
        return len(self.values)

    def _rows(self, rows: slice) -> Any:
        topics, partitions, offsets = (
            self.topics[rows],
            self.kafka_partitions[rows],
            self.kafka_offsets[rows],
        )
        return zip(
            topics,
            partitions,
            self.key_schemas[rows],
            self.keys[rows],
            self.value_schemas[rows],
            self.values[rows],
            self.timestamps[rows],
            self.headers[rows],
            offsets,
            self.timestamp_types[rows],
            topics,
            partitions,
            offsets,
            strict=True,
        )

    def records(self) -> list[SinkRecord]:
        """Every row as the :class:`SinkRecord` ``put`` would have received, in order."""
        return list(map(_make_sink_record, self._rows(slice(None))))

    def record(self, row: int) -> SinkRecord:
        """Row ``row`` as a :class:`SinkRecord` (negative rows count from the end)."""
        n = len(self.values)
        if not -n <= row < n:
            raise IndexError(f"SinkBatch has {n} rows, not a row {row}")
        row %= n
        (record,) = map(_make_sink_record, self._rows(slice(row, row + 1)))
        return record

    @classmethod
    def of(cls, records: Sequence[SinkRecord]) -> SinkBatch:
        """The batch of ``records`` (as consumed: each one's ``original_*`` coordinates are
        its own). For tests and for callers that hold records: the worker builds batches
        straight from consumed messages.

        Raises:
            ValueError: when a record was moved by a transform (its topic, partition or
                offset differs from its ``original_*`` one): a batch cannot say both.
        """
        for r in records:
            if (r.topic, r.kafka_partition, r.kafka_offset) != (
                r.original_topic,
                r.original_kafka_partition,
                r.original_kafka_offset,
            ):
                raise ValueError(
                    f"SinkBatch.of: record {r.original_topic}-{r.original_kafka_partition}@"
                    f"{r.original_kafka_offset} now has topic {r.topic!r} partition "
                    f"{r.kafka_partition} offset {r.kafka_offset}; a batch holds records as "
                    "consumed, so give such records to put"
                )
        partitions = [r.kafka_partition for r in records]
        if None in partitions:
            raise ValueError(
                "SinkBatch.of: a record without a kafka_partition was not consumed from Kafka; "
                "give such records to put"
            )
        return cls(
            topics=[r.topic for r in records],
            kafka_partitions=partitions,  # type: ignore[arg-type]  # no None, checked above
            kafka_offsets=[r.kafka_offset for r in records],
            key_schemas=[r.key_schema for r in records],
            keys=[r.key for r in records],
            value_schemas=[r.value_schema for r in records],
            values=[r.value for r in records],
            timestamps=[r.timestamp for r in records],
            timestamp_types=[r.timestamp_type for r in records],
            headers=[r.headers for r in records],
        )
