"""KIP-875 offsets: requests parsed, confirmation messages, and sink consumer-group admin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import ConnectError, TopicPartition

from kconnect_runtime.storage import BadRequestError

__all__ = [
    "OFFSETS_NEED_STOPPED",
    "alter_group_offsets",
    "delete_group",
    "list_group_offsets",
    "offsets_message",
    "parse_sink_offsets",
    "parse_source_offsets",
]

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


OFFSETS_NEED_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. "
    "Stop connector {name!r} first with PUT /connectors/{name}/stop, then try again."
)


def offsets_message(accepted: bool, reset: bool) -> str:
    verb = "reset" if reset else "altered"
    if accepted:
        return f"The offsets for this connector have been {verb} successfully"
    return (
        f"The Connect framework-managed offsets for this connector have been {verb} "
        "successfully. However, if this connector manages offsets externally, they will need "
        f"to be manually {verb} in the system that the connector uses."
    )


def _entries(entries: Sequence[Mapping[str, Any]]) -> list[tuple[Any, Any]]:
    if not entries:
        raise BadRequestError('The "offsets" list must name at least one partition to alter.')
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("partition"), Mapping):
            raise BadRequestError(
                f'offsets[{i}]: every entry needs a "partition" object (and an "offset" object or null)'
            )
        offset = entry.get("offset")
        if offset is not None and not isinstance(offset, Mapping):
            raise BadRequestError(f'offsets[{i}]: "offset" must be an object or null')
        out.append((entry["partition"], offset))
    return out


def parse_source_offsets(
    entries: Sequence[Mapping[str, Any]],
) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
    return _entries(entries)


def parse_sink_offsets(entries: Sequence[Mapping[str, Any]]) -> dict[TopicPartition, int | None]:
    out: dict[TopicPartition, int | None] = {}
    for i, (partition, offset) in enumerate(_entries(entries)):
        topic, number = partition.get("kafka_topic"), partition.get("kafka_partition")
        if not isinstance(topic, str) or not topic:
            raise BadRequestError(
                f'offsets[{i}]: a sink partition needs "kafka_topic" (a topic name), got {topic!r}'
            )
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise BadRequestError(
                f'offsets[{i}]: a sink partition needs "kafka_partition" (an integer >= 0), got {number!r}'
            )
        value: int | None = None
        if offset is not None:
            value = offset.get("kafka_offset")
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise BadRequestError(
                    f'offsets[{i}]: a sink offset needs "kafka_offset" (an integer >= 0), got {value!r}'
                )
        out[TopicPartition(topic, number)] = value
    return out
