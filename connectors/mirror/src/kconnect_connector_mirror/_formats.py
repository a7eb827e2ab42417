"""MirrorMaker 2's records: checkpoints, heartbeats and offset syncs, byte for byte as Kafka's.

Each is written with Kafka's protocol types (``Schema``/``Struct`` of the clients module):
big-endian fixed-width integers and strings as an int16 length followed by UTF-8. Keys are
one struct; checkpoint and heartbeat values are a version header (int16) followed by the
struct of that version, so a reader can refuse a version it does not know. Offset-sync
values carry no header: they predate versioning and Kafka never added one.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from kconnect_sdk import DataError, TopicPartition

__all__ = [
    "Checkpoint",
    "Heartbeat",
    "OffsetSync",
    "SchemaError",
]

_I16: Final = struct.Struct(">h")
_I32: Final = struct.Struct(">i")
_I64: Final = struct.Struct(">q")


class SchemaError(DataError):
    """Bytes that do not hold the struct they should (Kafka's ``SchemaException``)."""


def _string(value: str) -> bytes:
    data = value.encode("utf-8")
    if len(data) > 0x7FFF:
        raise SchemaError(f"string of {len(data)} bytes is longer than the 32767 a STRING holds")
    return _I16.pack(len(data)) + data


class _Reader:
    """Reads Kafka protocol fields from a buffer, failing with SchemaError on short input."""

    __slots__ = ("_data", "_pos")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _take(self, size: int, what: str) -> bytes:
        end = self._pos + size
        if size < 0 or end > len(self._data):
            raise SchemaError(
                f"Error reading field '{what}': {len(self._data) - self._pos} bytes left, "
                f"{size} needed"
            )
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def int16(self, what: str) -> int:
        value: int = _I16.unpack(self._take(2, what))[0]
        return value

    def int32(self, what: str) -> int:
        value: int = _I32.unpack(self._take(4, what))[0]
        return value

    def int64(self, what: str) -> int:
        value: int = _I64.unpack(self._take(8, what))[0]
        return value

    def string(self, what: str) -> str:
        size = self.int16(what)
        if size < 0:
            raise SchemaError(
                f"Error reading field '{what}': string length {size} cannot be negative"
            )
        try:
            return self._take(size, what).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SchemaError(f"Error reading field '{what}': {exc}") from None


def _bytes_of(data: Any, what: str) -> bytes:
    if data is None:
        raise SchemaError(f"the {what} of a MirrorMaker record is null")
    return bytes(data)


def _check_version(version: int, kind: str) -> None:
    # Kafka knows only version 0 of each value and asserts it; a newer writer's record
    # must fail loudly rather than be misread.
    if version != 0:
        raise SchemaError(f"{kind} value version {version} is not supported (only 0)")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A consumer group's committed offset on the source, translated for the target.

    ``topic_partition`` is the partition as named on the target (the remote topic).
    """

    consumer_group_id: str
    topic_partition: TopicPartition
    upstream_offset: int
    downstream_offset: int
    metadata: str

    VERSION: ClassVar[int] = 0

    def record_key(self) -> bytes:
        return (
            _string(self.consumer_group_id)
            + _string(self.topic_partition.topic)
            + _I32.pack(self.topic_partition.partition)
        )

    def record_value(self) -> bytes:
        return (
            _I16.pack(self.VERSION)
            + _I64.pack(self.upstream_offset)
            + _I64.pack(self.downstream_offset)
            + _string(self.metadata)
        )

    @classmethod
    def deserialize(cls, key: Any, value: Any) -> Checkpoint:
        """A checkpoint from a record of a checkpoints topic."""
        values = _Reader(_bytes_of(value, "value"))
        _check_version(values.int16("version"), "checkpoint")
        upstream = values.int64("upstreamOffset")
        downstream = values.int64("offset")
        metadata = values.string("metadata")
        keys = _Reader(_bytes_of(key, "key"))
        group = keys.string("group")
        topic = keys.string("topic")
        partition = keys.int32("partition")
        return cls(group, TopicPartition(topic, partition), upstream, downstream, metadata)

    def connect_partition(self) -> dict[str, Any]:
        """The source partition of the checkpoint's record in Connect's offsets.

        Keys in the order Kafka's worker writes them (its HashMap's), for identical bytes.
        """
        return {
            "partition": self.topic_partition.partition,
            "topic": self.topic_partition.topic,
            "group": self.consumer_group_id,
        }

    def __str__(self) -> str:
        return (
            f"Checkpoint{{consumerGroupId={self.consumer_group_id}, "
            f"topicPartition={self.topic_partition}, upstreamOffset={self.upstream_offset}, "
            f"downstreamOffset={self.downstream_offset}, metadata={self.metadata}}}"
        )


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Proof of life from ``source_cluster_alias`` to ``target_cluster_alias`` at ``timestamp``."""

    source_cluster_alias: str
    target_cluster_alias: str
    timestamp: int

    VERSION: ClassVar[int] = 0

    def record_key(self) -> bytes:
        return _string(self.source_cluster_alias) + _string(self.target_cluster_alias)

    def record_value(self) -> bytes:
        return _I16.pack(self.VERSION) + _I64.pack(self.timestamp)

    @classmethod
    def deserialize(cls, key: Any, value: Any) -> Heartbeat:
        """A heartbeat from a record of a heartbeats topic."""
        values = _Reader(_bytes_of(value, "value"))
        _check_version(values.int16("version"), "heartbeat")
        timestamp = values.int64("timestamp")
        keys = _Reader(_bytes_of(key, "key"))
        source = keys.string("sourceClusterAlias")
        target = keys.string("targetClusterAlias")
        return cls(source, target, timestamp)

    def connect_partition(self) -> dict[str, Any]:
        """The source partition of the heartbeat's record in Connect's offsets."""
        return {
            "sourceClusterAlias": self.source_cluster_alias,
            "targetClusterAlias": self.target_cluster_alias,
        }

    def __str__(self) -> str:
        return (
            f"Heartbeat{{sourceClusterAlias={self.source_cluster_alias}, "
            f"targetClusterAlias={self.target_cluster_alias}, timestamp={self.timestamp}}}"
        )


@dataclass(frozen=True, slots=True, eq=False)
class OffsetSync:
    """Upstream offset ``upstream_offset`` of a source partition is ``downstream_offset`` on the target.

    Compared by identity, as Kafka's sync store does: two syncs with the same numbers read
    at different times are different entries of the store.
    """

    topic_partition: TopicPartition
    upstream_offset: int
    downstream_offset: int

    def record_key(self) -> bytes:
        return _string(self.topic_partition.topic) + _I32.pack(self.topic_partition.partition)

    def record_value(self) -> bytes:
        return _I64.pack(self.upstream_offset) + _I64.pack(self.downstream_offset)

    @classmethod
    def deserialize(cls, key: Any, value: Any) -> OffsetSync:
        """An offset sync from a record of an offset-syncs topic."""
        keys = _Reader(_bytes_of(key, "key"))
        topic = keys.string("topic")
        partition = keys.int32("partition")
        values = _Reader(_bytes_of(value, "value"))
        upstream = values.int64("upstreamOffset")
        downstream = values.int64("offset")
        return cls(TopicPartition(topic, partition), upstream, downstream)

    def same_as(self, other: OffsetSync) -> bool:
        """Whether both name the same partition and offsets."""
        return (
            self.topic_partition == other.topic_partition
            and self.upstream_offset == other.upstream_offset
            and self.downstream_offset == other.downstream_offset
        )

    def __str__(self) -> str:
        return (
            f"OffsetSync{{topicPartition={self.topic_partition}, "
            f"upstreamOffset={self.upstream_offset}, downstreamOffset={self.downstream_offset}}}"
        )
