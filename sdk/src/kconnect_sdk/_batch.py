"""SourceBatch: many source records of one topic and one source partition, held as columns.

A source task that reads many similar rows at a time (lines of a file, rows of a table,
events of a binlog file) may return them from ``SourceTask.poll_batch`` as one batch of
columns instead of one :class:`SourceRecord` per row. A runtime that reads columns (the
kconnect DataFrame read) builds its Arrow columns straight from these lists; every other
consumer gets the same records from :meth:`SourceBatch.records`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ._headers import Headers
from ._records import SourceRecord

if TYPE_CHECKING:
    from ._schema import Schema

__all__ = ["SourceBatch"]


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
