"""A sink connector's offsets: the committed offsets of its consumer group."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect_sdk import ConnectError, TopicPartition

__all__ = ["alter_group_offsets", "delete_group", "list_group_offsets"]

_TIMEOUT_S = 15.0


def list_group_offsets(client_config: Mapping[str, Any], group: str) -> dict[tuple[str, int], int]:
    """``{(topic, partition): offset}`` committed by ``group``; empty when it has none."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(dict(client_config))
    try:
        futures = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
        result = futures[group].result(timeout=_TIMEOUT_S)
    except KafkaException as exc:
        raise ConnectError(
            f"cannot read the committed offsets of consumer group {group!r}: {exc}; "
            "check that the brokers are reachable"
        ) from None
    return {
        (tp.topic, tp.partition): tp.offset
        for tp in result.topic_partitions or []
        if tp.offset >= 0 and tp.error is None
    }


def alter_group_offsets(
    client_config: Mapping[str, Any], group: str, offsets: Mapping[TopicPartition, int]
) -> None:
    """Commit ``offsets`` for ``group`` (which must have no active members)."""
    from confluent_kafka import Consumer, KafkaException
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    # A plain commit from a consumer that never joins the group: works on every broker
    # that supports offset commits, including ones without the AlterConsumerGroupOffsets API.
    consumer = Consumer({**client_config, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(
            offsets=[KafkaTopicPartition(tp.topic, tp.partition, o) for tp, o in offsets.items()],
            asynchronous=False,
        )
    except KafkaException as exc:
        raise ConnectError(f"cannot commit offsets for consumer group {group!r}: {exc}") from None
    finally:
        consumer.close()


def delete_group(client_config: Mapping[str, Any], group: str) -> None:
    """Delete ``group`` and its committed offsets (what Kafka does to reset a sink)."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(dict(client_config))
    try:
        admin.delete_consumer_groups([group], request_timeout=_TIMEOUT_S)[group].result(
            timeout=_TIMEOUT_S
        )
    except KafkaException as exc:
        error = exc.args[0] if exc.args else None
        if isinstance(error, KafkaError) and error.code() == KafkaError.GROUP_ID_NOT_FOUND:
            return  # nothing committed: already reset
        raise ConnectError(f"cannot delete consumer group {group!r}: {exc}") from None
