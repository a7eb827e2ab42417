"""Records that flow through a connector: SourceRecord (from a source task) and SinkRecord."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Self

from ._headers import Headers
from ._schema import Schema

__all__ = [
    "ConnectRecord",
    "RecordMetadata",
    "SinkRecord",
    "SourceRecord",
    "TimestampType",
    "TopicPartition",
]


class TopicPartition(NamedTuple):
    """A Kafka topic partition."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class TimestampType(StrEnum):
    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


class RecordMetadata(NamedTuple):
    """Where the broker stored a produced record (passed to ``SourceTask.commit_record``)."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectRecord:
    """Fields every Connect record has. Records are immutable: use :meth:`new_record`.

    Attributes:
        topic: the Kafka topic.
        kafka_partition: the partition, or None to let the producer choose.
        key_schema, key: the key and its schema (either may be None).
        value_schema, value: the value and its schema; a None value is a tombstone.
        timestamp: milliseconds since the epoch, or None.
        headers: the record's headers.
    """

    topic: str
    kafka_partition: int | None = None
    key_schema: Schema | None = None
    key: Any = None
    value_schema: Schema | None = None
    value: Any = None
    timestamp: int | None = None
    headers: Headers = field(default=Headers.EMPTY)

    def new_record(self, **changes: Any) -> Self:
        """A copy with the given fields replaced (``topic=``, ``value=``, ``headers=``...)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRecord(ConnectRecord):
    """A record a source task produced, with where it came from in the source system.

    ``source_partition`` and ``source_offset`` must be plain JSON data (str, int, float,
    bool, None, lists and dicts of those): the runtime stores them as JSON.
    """

    source_partition: Mapping[str, Any] | None = None
    source_offset: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SinkRecord(ConnectRecord):
    """A record read from Kafka for a sink task.

    ``original_*`` keep the coordinates the record had when consumed, before any transform
    changed its topic or partition; use them when reporting offsets from ``pre_commit``.
    """

    kafka_offset: int = -1
    timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE
    original_topic: str | None = None
    original_kafka_partition: int | None = None
    original_kafka_offset: int | None = None

    def __post_init__(self) -> None:
        if self.original_topic is None:
            object.__setattr__(self, "original_topic", self.topic)
        if self.original_kafka_partition is None:
            object.__setattr__(self, "original_kafka_partition", self.kafka_partition)
        if self.original_kafka_offset is None:
            object.__setattr__(self, "original_kafka_offset", self.kafka_offset)

    @property
    def original_topic_partition(self) -> TopicPartition:
        assert self.original_topic is not None and self.original_kafka_partition is not None
        return TopicPartition(self.original_topic, self.original_kafka_partition)
