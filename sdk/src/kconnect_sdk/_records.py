"""Records that flow through a connector: SourceRecord (from a source task) and SinkRecord.

Records are immutable tuples with named fields: cheap to build (a pipeline builds millions)
and impossible to mutate by accident. Build them with keyword arguments; derive changed
copies with ``record.new_record(field=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, Self, runtime_checkable

from ._headers import Headers

if TYPE_CHECKING:
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


@runtime_checkable
class ConnectRecord(Protocol):
    """Fields every Connect record has (SourceRecord and SinkRecord both provide them).

    Attributes:
        topic: the Kafka topic.
        kafka_partition: the partition, or None to let the producer choose.
        key_schema, key: the key and its schema (either may be None).
        value_schema, value: the value and its schema; a None value is a tombstone.
        timestamp: milliseconds since the epoch, or None.
        headers: the record's headers.
    """

    @property
    def topic(self) -> str: ...
    @property
    def kafka_partition(self) -> int | None: ...
    @property
    def key_schema(self) -> Schema | None: ...
    @property
    def key(self) -> Any: ...
    @property
    def value_schema(self) -> Schema | None: ...
    @property
    def value(self) -> Any: ...
    @property
    def timestamp(self) -> int | None: ...
    @property
    def headers(self) -> Headers: ...

    def new_record(self, **changes: Any) -> Self:
        """A copy with the given fields replaced (``topic=``, ``value=``, ``headers=``...)."""
        ...


class _SourceRecordFields(NamedTuple):
    topic: str
    kafka_partition: int | None
    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    timestamp: int | None
    headers: Headers
    source_partition: Mapping[str, Any] | None
    source_offset: Mapping[str, Any] | None


class SourceRecord(_SourceRecordFields):
    """A record a source task produced, with where it came from in the source system.

    ``source_partition`` and ``source_offset`` must be plain JSON data (str, int, float,
    bool, None, lists and dicts of those): the runtime stores them as JSON.
    """

    __slots__ = ()

    def __new__(
        cls,
        *,
        topic: str,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        timestamp: int | None = None,
        headers: Headers = Headers.EMPTY,
        source_partition: Mapping[str, Any] | None = None,
        source_offset: Mapping[str, Any] | None = None,
    ) -> Self:
        return tuple.__new__(
            cls,
            (
                topic,
                kafka_partition,
                key_schema,
                key,
                value_schema,
                value,
                timestamp,
                headers,
                source_partition,
                source_offset,
            ),
        )

    def new_record(self, **changes: Any) -> Self:
        """A copy with the given fields replaced (``topic=``, ``value=``, ``headers=``...)."""
        return self._replace(**changes)


class _SinkRecordFields(NamedTuple):
    topic: str
    kafka_partition: int | None
    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    timestamp: int | None
    headers: Headers
    kafka_offset: int
    timestamp_type: TimestampType
    original_topic: str
    original_kafka_partition: int | None
    original_kafka_offset: int


class SinkRecord(_SinkRecordFields):
    """A record read from Kafka for a sink task.

    ``original_*`` keep the coordinates the record had when consumed, before any transform
    changed its topic or partition; use them when reporting offsets from ``pre_commit``.
    They default to ``topic``/``kafka_partition``/``kafka_offset`` and ``new_record`` keeps them.
    """

    __slots__ = ()

    def __new__(
        cls,
        *,
        topic: str,
        kafka_partition: int | None = None,
        key_schema: Schema | None = None,
        key: Any = None,
        value_schema: Schema | None = None,
        value: Any = None,
        timestamp: int | None = None,
        headers: Headers = Headers.EMPTY,
        kafka_offset: int = -1,
        timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE,
        original_topic: str | None = None,
        original_kafka_partition: int | None = None,
        original_kafka_offset: int | None = None,
    ) -> Self:
        return tuple.__new__(
            cls,
            (
                topic,
                kafka_partition,
                key_schema,
                key,
                value_schema,
                value,
                timestamp,
                headers,
                kafka_offset,
                timestamp_type,
                topic if original_topic is None else original_topic,
                kafka_partition if original_kafka_partition is None else original_kafka_partition,
                kafka_offset if original_kafka_offset is None else original_kafka_offset,
            ),
        )

    def new_record(self, **changes: Any) -> Self:
        """A copy with the given fields replaced; the ``original_*`` coordinates are kept."""
        return self._replace(**changes)

    @property
    def original_topic_partition(self) -> TopicPartition:
        assert self.original_kafka_partition is not None
        return TopicPartition(self.original_topic, self.original_kafka_partition)
