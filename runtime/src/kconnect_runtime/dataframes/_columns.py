"""Columnar source batches on the read path: merging small batches, slicing big ones.

A task's :class:`~kconnect_sdk.SourceBatch` es go to Arrow without a record per row (see
``RowEncoder.encode_batch``). Batches smaller than ``kconnect.batch.rows`` that continue one
another (same topic, partition, schemas and column shapes) are joined first, so that a task
polling 2,000 lines at a time still makes record batches of the configured size.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kconnect_sdk import SourceBatch, SourceRecord

__all__ = ["Polled", "first_record", "polled_rows", "regroup"]

Polled = list[SourceRecord] | SourceBatch
"""What one poll of a task gave the read path: records (the row path) or a batch."""


def polled_rows(items: Sequence[Polled]) -> int:
    return sum(map(len, items))


def _shape(batch: SourceBatch) -> tuple[Any, ...]:
    columns = batch.source_offset_columns
    return (
        batch.topic,
        id(batch.value_schema),
        id(batch.key_schema),
        batch.keys is None,
        batch.timestamps is None,
        batch.source_offsets is None,
        None if columns is None else tuple(columns),
    )


def _joinable(a: SourceBatch, b: SourceBatch) -> bool:
    return _shape(a) == _shape(b) and (
        a.source_partition is b.source_partition or a.source_partition == b.source_partition
    )


def _join(batches: list[SourceBatch]) -> SourceBatch:
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    values: list[Any] = []
    keys: list[Any] | None = None if first.keys is None else []
    offsets: list[Any] | None = None if first.source_offsets is None else []
    columns: dict[str, list[Any]] | None = None
    if first.source_offset_columns is not None:
        columns = {k: [] for k in first.source_offset_columns}
    times: list[int | None] | None = None if first.timestamps is None else []
    for b in batches:  # _joinable: every batch has the same columns as the first
        values.extend(b.values)
        if keys is not None:
            keys.extend(b.keys or ())
        if offsets is not None:
            offsets.extend(b.source_offsets or ())
        if columns is not None and b.source_offset_columns is not None:
            for k, column in b.source_offset_columns.items():
                columns[k].extend(column)
        if times is not None:
            times.extend(b.timestamps or ())
    return SourceBatch(
        topic=first.topic,
        source_partition=first.source_partition,
        values=values,
        value_schema=first.value_schema,
        keys=keys,
        key_schema=first.key_schema,
        source_offsets=offsets,
        source_offset_columns=columns,
        timestamps=times,
    )


def _slice(batch: SourceBatch, start: int, stop: int) -> SourceBatch:
    if start == 0 and stop >= len(batch):
        return batch
    columns = batch.source_offset_columns
    return SourceBatch(
        topic=batch.topic,
        source_partition=batch.source_partition,
        values=batch.values[start:stop],
        value_schema=batch.value_schema,
        keys=None if batch.keys is None else batch.keys[start:stop],
        key_schema=batch.key_schema,
        source_offsets=None if batch.source_offsets is None else batch.source_offsets[start:stop],
        source_offset_columns=None
        if columns is None
        else {k: c[start:stop] for k, c in columns.items()},
        timestamps=None if batch.timestamps is None else batch.timestamps[start:stop],
    )


def first_record(batch: SourceBatch) -> SourceRecord:
    """The record of a batch's first row (for messages that name a record)."""
    return _slice(batch, 0, 1).records()[0]


def regroup(items: Sequence[Polled], rows: int) -> Iterator[Polled]:
    """``items`` in order, as pieces of at most ``rows`` rows each.

    Consecutive record lists are joined, and so are consecutive batches that continue one
    another; then each is cut into ``rows``-row pieces (the last piece of each may be
    smaller).
    """
    records: list[SourceRecord] = []
    batches: list[SourceBatch] = []

    def flush() -> Iterator[Polled]:
        if records:
            for i in range(0, len(records), rows):
                yield records[i : i + rows]
            records.clear()  # the pieces above are copies
        if batches:
            joined = _join(batches)
            batches.clear()
            for i in range(0, len(joined), rows):
                yield _slice(joined, i, i + rows)

    for item in items:
        if isinstance(item, SourceBatch):
            if records or (batches and not _joinable(batches[-1], item)):
                yield from flush()
            batches.append(item)
        else:
            if batches:
                yield from flush()
            records.extend(item)
    yield from flush()
