"""Checkpoint, Heartbeat and OffsetSync bytes, against Kafka's schemas written out by hand.

Kafka's Checkpoint/Heartbeat/OffsetSync classes define their records with protocol
``Schema``s: STRING is an int16 length then UTF-8, INT16/INT32/INT64 big-endian, and
checkpoint and heartbeat values start with an INT16 version header (0). The expected
bytes below spell those definitions out field by field; the serde cases are Kafka's
CheckpointTest, HeartbeatTest and OffsetSyncTest.
"""

from __future__ import annotations

import pytest
from kconnect_connector_mirror import Checkpoint, Heartbeat, OffsetSync, SchemaError
from kconnect_sdk import TopicPartition


def _s(text: str) -> bytes:
    return len(text).to_bytes(2, "big") + text.encode()


CHECKPOINT = Checkpoint("group-1", TopicPartition("topic-2", 3), 4, 5, "metadata-6")
CHECKPOINT_KEY = _s("group-1") + _s("topic-2") + bytes.fromhex("00000003")
CHECKPOINT_VALUE = (
    bytes.fromhex("0000")  # version 0
    + bytes.fromhex("0000000000000004")  # upstreamOffset
    + bytes.fromhex("0000000000000005")  # offset (downstream)
    + _s("metadata-6")
)


def test_checkpoint_bytes_are_kafkas() -> None:
    assert CHECKPOINT.record_key() == CHECKPOINT_KEY
    assert CHECKPOINT.record_value() == CHECKPOINT_VALUE
    assert CHECKPOINT.record_key() == (b"\x00\x07group-1\x00\x07topic-2\x00\x00\x00\x03")


def test_checkpoint_serde() -> None:
    assert Checkpoint.deserialize(CHECKPOINT_KEY, CHECKPOINT_VALUE) == CHECKPOINT


def test_heartbeat_bytes_and_serde() -> None:
    heartbeat = Heartbeat("source-1", "target-2", 1234567890)
    key = _s("source-1") + _s("target-2")
    value = bytes.fromhex("0000") + (1234567890).to_bytes(8, "big")
    assert heartbeat.record_key() == key
    assert heartbeat.record_value() == value
    assert Heartbeat.deserialize(key, value) == heartbeat


def test_offset_sync_bytes_and_serde() -> None:
    sync = OffsetSync(TopicPartition("topic-1", 2), 3, 4)
    key = _s("topic-1") + bytes.fromhex("00000002")
    # No version header: offset-sync values never had one.
    value = (3).to_bytes(8, "big") + (4).to_bytes(8, "big")
    assert sync.record_key() == key
    assert sync.record_value() == value
    assert OffsetSync.deserialize(key, value).same_as(sync)


def test_negative_offsets_are_twos_complement() -> None:
    checkpoint = Checkpoint("g", TopicPartition("t", 0), -1, -1, "")
    assert checkpoint.record_value() == bytes.fromhex("0000" + "ff" * 16 + "0000")


def test_text_is_kafkas_to_string() -> None:
    # As the book shows CheckpointFormatter and OffsetSyncFormatter output.
    assert (
        str(Checkpoint("my-group", TopicPartition("eu.heartbeat", 0), 351, 42, ""))
        == "Checkpoint{consumerGroupId=my-group, topicPartition=eu.heartbeat-0, "
        "upstreamOffset=351, downstreamOffset=42, metadata=}"
    )
    assert (
        str(OffsetSync(TopicPartition("heartbeat", 0), 0, 0))
        == "OffsetSync{topicPartition=heartbeat-0, upstreamOffset=0, downstreamOffset=0}"
    )
    assert (
        str(Heartbeat("eu", "us", 1665592609324))
        == "Heartbeat{sourceClusterAlias=eu, targetClusterAlias=us, timestamp=1665592609324}"
    )


def test_checkpoint_connect_partition_in_kafkas_key_order() -> None:
    assert list(CHECKPOINT.connect_partition().items()) == [
        ("partition", 3),
        ("topic", "topic-2"),
        ("group", "group-1"),
    ]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (CHECKPOINT_KEY, CHECKPOINT_VALUE[:5], "upstreamOffset"),
        (CHECKPOINT_KEY[:4], CHECKPOINT_VALUE, "group"),
        (CHECKPOINT_KEY, b"\x00\x01" + CHECKPOINT_VALUE[2:], "version 1"),
        (None, CHECKPOINT_VALUE, "null"),
    ],
)
def test_bad_checkpoint_bytes_fail_with_schema_error(
    key: bytes | None, value: bytes, message: str
) -> None:
    with pytest.raises(SchemaError, match=message):
        Checkpoint.deserialize(key, value)
