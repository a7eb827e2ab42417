"""``SinkBatch``: consumed records as columns, and ``SinkTask.put_batch``'s default."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from kconnect_sdk import (
    Headers,
    Schema,
    SinkBatch,
    SinkRecord,
    SinkTask,
    TimestampType,
)


def _records() -> list[SinkRecord]:
    return [
        SinkRecord(
            topic="orders",
            kafka_partition=i % 2,
            key_schema=Schema.OPTIONAL_STRING,
            key=f"k{i}",
            value_schema=Schema.INT32,
            value=i * 10,
            timestamp=1_700_000_000_000 + i,
            headers=Headers().add_string("h", str(i)) if i == 1 else Headers.EMPTY,
            kafka_offset=100 + i,
            timestamp_type=TimestampType.LOG_APPEND_TIME,
        )
        for i in range(3)
    ]


def test_a_batch_gives_back_every_record_field_for_field_in_order() -> None:
    records = _records()
    batch = SinkBatch.of(records)
    assert len(batch) == 3
    assert batch.values == [0, 10, 20]
    assert batch.kafka_partitions == [0, 1, 0]
    assert batch.records() == records
    assert [batch.record(i) for i in range(3)] == records
    assert batch.record(-1) == records[-1]
    assert batch.record(1).headers == records[1].headers
    assert batch.record(1).original_kafka_offset == 101
    with pytest.raises(IndexError, match="3 rows"):
        batch.record(3)


def test_columns_of_different_lengths_are_refused_naming_the_column() -> None:
    with pytest.raises(ValueError, match="kafka_offsets has 1 rows but values has 2"):
        SinkBatch(
            topics=["t", "t"],
            kafka_partitions=[0, 0],
            kafka_offsets=[5],
            key_schemas=[None, None],
            keys=[None, None],
            value_schemas=[None, None],
            values=["a", "b"],
            timestamps=[None, None],
            timestamp_types=[TimestampType.NO_TIMESTAMP_TYPE] * 2,
            headers=[Headers.EMPTY] * 2,
        )


def test_a_record_moved_by_a_transform_cannot_join_a_batch() -> None:
    moved = _records()[0].new_record(topic="elsewhere")
    with pytest.raises(ValueError, match="give such records to put"):
        SinkBatch.of([moved])


def test_put_batch_defaults_to_put_with_the_batchs_records() -> None:
    class Recording(SinkTask):
        def __init__(self) -> None:
            self.seen: list[list[SinkRecord]] = []

        def version(self) -> str:
            return "1"

        def start(self, props: object) -> None:
            pass

        def put(self, records: Sequence[SinkRecord]) -> None:
            self.seen.append(list(records))

        def stop(self) -> None:
            pass

    task = Recording()
    task.put_batch(SinkBatch.of(_records()))
    assert task.seen == [_records()]
