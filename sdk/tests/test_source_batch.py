from __future__ import annotations

from collections.abc import Mapping

import pytest
from kconnect_sdk import Headers, Schema, SourceBatch, SourceRecord, SourceTask

PARTITION = {"filename": "/data/in.txt"}


def test_records_are_what_poll_would_return_one_per_row() -> None:
    batch = SourceBatch(
        topic="lines",
        source_partition=PARTITION,
        value_schema=Schema.STRING,
        values=["a", "bb", None],
        key_schema=Schema.OPTIONAL_INT64,
        keys=[1, None, 3],
        source_offset_columns={"position": [2, 5, 6]},
        timestamps=[1000, None, 1002],
    )
    assert len(batch) == 3
    assert batch.records() == [
        SourceRecord(
            topic="lines",
            key_schema=Schema.OPTIONAL_INT64,
            key=key,
            value_schema=Schema.STRING,
            value=value,
            timestamp=ts,
            source_partition=PARTITION,
            source_offset={"position": position},
        )
        for key, value, ts, position in [
            (1, "a", 1000, 2),
            (None, "bb", None, 5),
            (3, None, 1002, 6),
        ]
    ]
    first = batch.records()[0]
    assert type(first) is SourceRecord
    assert first.headers is Headers.EMPTY
    assert first.kafka_partition is None
    # One partition object for the whole batch, as a task's poll shares it.
    assert all(r.source_partition is PARTITION for r in batch.records())


def test_offsets_as_maps_or_as_columns_give_the_same_records() -> None:
    as_maps = SourceBatch(
        topic="t",
        source_partition=PARTITION,
        values=["x", "y"],
        source_offsets=[{"file": "b.1", "pos": 4}, {"file": "b.2", "pos": 9}],
    )
    as_columns = SourceBatch(
        topic="t",
        source_partition=PARTITION,
        values=["x", "y"],
        source_offset_columns={"file": ["b.1", "b.2"], "pos": [4, 9]},
    )
    assert as_maps.records() == as_columns.records()
    assert as_columns.offsets() == [{"file": "b.1", "pos": 4}, {"file": "b.2", "pos": 9}]
    assert as_columns.source_offset(1) == {"file": "b.2", "pos": 9}
    assert as_maps.source_offset(0) == {"file": "b.1", "pos": 4}


def test_a_batch_without_offsets_or_partition_gives_records_without_them() -> None:
    batch = SourceBatch(topic="stdin", source_partition=None, values=["a", "b"])
    assert [(r.source_partition, r.source_offset, r.value) for r in batch.records()] == [
        (None, None, "a"),
        (None, None, "b"),
    ]
    assert batch.offsets() == [None, None]
    assert SourceBatch(topic="t", source_partition=None, values=[]).records() == []


def test_empty_offset_columns_mean_an_empty_offset_per_row() -> None:
    batch = SourceBatch(
        topic="t", source_partition=PARTITION, values=[1, 2], source_offset_columns={}
    )
    assert [r.source_offset for r in batch.records()] == [{}, {}]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"keys": [1]}, "keys has 1 rows but values has 2"),
        ({"timestamps": [1, 2, 3]}, "timestamps has 3 rows but values has 2"),
        ({"source_offsets": [{"p": 1}]}, "source_offsets has 1 rows"),
        ({"source_offset_columns": {"p": [1]}}, "source offset column 'p' has 1 rows"),
        (
            {"source_offsets": [{"p": 1}, {"p": 2}], "source_offset_columns": {"p": [1, 2]}},
            "not both",
        ),
        (
            {"source_partition": None, "source_offset_columns": {"p": [1, 2]}},
            "source offsets need a source_partition",
        ),
    ],
)
def test_a_malformed_batch_is_refused_saying_what_is_wrong(
    changes: dict[str, object], message: str
) -> None:
    fields: dict[str, object] = {"topic": "t", "source_partition": PARTITION, "values": ["a", "b"]}
    with pytest.raises(ValueError, match=message):
        SourceBatch(**{**fields, **changes})  # type: ignore[arg-type]  # deliberately wrong


def test_a_batch_is_immutable() -> None:
    batch = SourceBatch(topic="t", source_partition=None, values=[1])
    with pytest.raises(AttributeError):
        batch.topic = "u"  # type: ignore[misc]  # frozen: the assignment must fail


class _Lines(SourceTask):
    """A task that implements both polls, as the contract asks: poll from poll_batch."""

    def __init__(self, batches: int) -> None:
        self.left = batches
        self.position = 0

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll_batch(self) -> SourceBatch | None:
        if self.left <= 0:
            return None
        self.left -= 1
        start = self.position
        self.position += 3
        return SourceBatch(
            topic="t",
            source_partition=PARTITION,
            value_schema=Schema.STRING,
            values=[f"line {i}" for i in range(start, start + 3)],
            source_offset_columns={"position": list(range(start + 1, start + 4))},
        )

    def poll(self) -> list[SourceRecord] | None:
        return SourceBatch.records_of(self.poll_batch())

    def stop(self) -> None:
        pass


class _RowsOnly(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        return [SourceRecord(topic="t", value=1)]

    def stop(self) -> None:
        pass


def test_a_task_with_both_polls_gives_the_same_records_from_each() -> None:
    by_rows, by_batches = _Lines(2), _Lines(2)
    rows = [r for _ in range(2) for r in by_rows.poll() or []]
    batches = [by_batches.poll_batch(), by_batches.poll_batch()]
    assert [r for b in batches if b is not None for r in b.records()] == rows
    assert [r.value for r in rows] == [f"line {i}" for i in range(6)]
    assert by_rows.poll() is None
    assert by_batches.poll_batch() is None


def test_a_task_that_only_polls_rows_offers_no_batches() -> None:
    task = _RowsOnly()
    assert task.poll_batch() is None
    # How a runtime tells a columnar task: its class overrides poll_batch.
    assert type(task).poll_batch is SourceTask.poll_batch
    assert type(_Lines(1)).poll_batch is not SourceTask.poll_batch
