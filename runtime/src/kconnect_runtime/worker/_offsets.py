"""KIP-875 offsets: requests parsed, confirmation messages, and sink consumer-group admin."""

from __future__ import annotations

import re
import socket
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import ConnectError, TopicPartition

from kconnect_runtime.config import kafka_client_config
from kconnect_runtime.logcontext import kafka_logging
from kconnect_runtime.storage import BadRequestError

__all__ = [
    "OFFSETS_NEED_STOPPED",
    "alter_group_offsets",
    "delete_group",
    "delete_group_offsets",
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

    admin = AdminClient(
        kafka_logging(kafka_client_config(client_config), "admin client (group offsets)")
    )
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
    consumer = Consumer(
        kafka_logging(
            kafka_client_config({**client_config, "group.id": group, "enable.auto.commit": False}),
            f"consumer (offsets of group {group})",
        )
    )
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

    admin = AdminClient(
        kafka_logging(kafka_client_config(client_config), "admin client (group reset)")
    )
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
    "Connectors must be in the STOPPED state before their offsets can be modified. This can "
    "be done for the specified connector by issuing a 'PUT' request to the "
    "'/connectors/{name}/stop' endpoint"
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
    """Kafka's ``SinkUtils.parseSinkConnectorOffsets``: its checks, order and words.

    Topic names are taken as Java's ``String.valueOf`` writes the value; partitions and
    offsets may be JSON numbers or their decimal text ("10" as 10). A negative partition
    or offset, which Kafka passes on to the consumer group, is refused here.
    """
    if not entries:
        raise BadRequestError('The "offsets" list must name at least one partition to alter.')
    out: dict[TopicPartition, int | None] = {}
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise BadRequestError(
                "The partition for a sink connector offset cannot be null or missing"
            )
        partition, offset = entry.get("partition"), entry.get("offset")
        if not isinstance(partition, Mapping):
            raise BadRequestError(
                "The partition for a sink connector offset cannot be null or missing"
            )
        if "kafka_topic" not in partition or "kafka_partition" not in partition:
            raise BadRequestError(
                "The partition for a sink connector offset must contain the keys 'kafka_topic' "
                "and 'kafka_partition'"
            )
        if partition["kafka_topic"] is None:
            raise BadRequestError("Kafka topic names must be valid strings and may not be null")
        if partition["kafka_partition"] is None:
            raise BadRequestError("Kafka partitions must be valid numbers and may not be null")
        topic = _java_text(partition["kafka_topic"])
        number = _java_integer(partition["kafka_partition"], 31)
        if number is None:
            raise BadRequestError(
                "Failed to parse the following Kafka partition value in the provided offsets: "
                f"'{_java_text(partition['kafka_partition'])}'. Partition values for sink "
                "connectors need to be integers."
            )
        value: int | None = None
        if offset is not None:
            if not isinstance(offset, Mapping) or "kafka_offset" not in offset:
                raise BadRequestError(
                    "The offset for a sink connector should either be null or contain the key "
                    "'kafka_offset'"
                )
            value = _java_integer(offset["kafka_offset"], 63)
            if value is None:
                raise BadRequestError(
                    "Failed to parse the following Kafka offset value in the provided offsets: "
                    f"'{_java_text(offset['kafka_offset'])}'. Offset values for sink connectors "
                    "need to be integers."
                )
        if number < 0 or (value is not None and value < 0):
            raise BadRequestError(
                f"Partition {number} and offset {value} of topic {topic!r}: sink partitions and "
                "offsets are integers >= 0"
            )
        out[TopicPartition(topic, number)] = value
    return out


_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")


def _java_integer(value: Any, bits: int) -> int | None:
    """``Integer/Long.parseLong(String.valueOf(value))``, or None where Java throws."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    text = str(value)
    if not _JAVA_INTEGER.fullmatch(text):
        return None
    number = int(text)
    return number if -(2**bits) <= number < 2**bits else None


def _java_text(value: Any) -> str:
    """How Java's ``String.valueOf`` writes a JSON value Jackson read (near enough for
    the scalars a REST body holds)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e7 else f"{value:.1f}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}={_java_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_java_text(v) for v in value) + "]"
    return str(value)


# -- resetting single sink partitions (Kafka's OffsetDelete, KIP-496) --------------------
# confluent-kafka's AdminClient has no delete_consumer_group_offsets, so the request is
# sent as Kafka's wire protocol: OffsetDelete v0 (API key 47) to the group's coordinator,
# which AdminClient.describe_consumer_groups names. Plaintext listeners only; anything
# else is refused with a message saying what to do instead.
_OFFSET_DELETE_API_KEY = 47
_KAFKA_ERRORS = {
    3: "the topic or partition does not exist",
    15: "the group coordinator is not available; retry in a moment",
    16: "the broker asked is no longer the group's coordinator; retry",
    25: "the group has no committed offsets",
    30: "not authorized to change the group's offsets",
    35: "the broker does not support deleting single partitions' offsets (Kafka 2.4+)",
    69: "the group has no committed offsets",
    86: "the group is still subscribed to the topic (is the connector really stopped?)",
}


def _kafka_string(value: str) -> bytes:
    raw = value.encode()
    return struct.pack(">h", len(raw)) + raw


def _offset_delete_request(
    group: str, partitions: Sequence[TopicPartition], correlation_id: int = 1
) -> bytes:
    """OffsetDelete v0: group id, then each topic with its partition numbers."""
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    body = _kafka_string(group) + struct.pack(">i", len(by_topic))
    for topic, numbers in by_topic.items():
        body += _kafka_string(topic) + struct.pack(">i", len(numbers))
        body += b"".join(struct.pack(">i", n) for n in numbers)
    header = struct.pack(">hhi", _OFFSET_DELETE_API_KEY, 0, correlation_id)
    header += _kafka_string("kconnect")
    message = header + body
    return struct.pack(">i", len(message)) + message


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = b""
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        chunks += chunk
    return chunks


def _api_keys(sock: socket.socket) -> set[int]:
    """The request types the broker at ``sock`` serves (ApiVersions v0)."""
    header = struct.pack(">hhi", 18, 0, 0) + _kafka_string("kconnect")
    sock.sendall(struct.pack(">i", len(header)) + header)
    (size,) = struct.unpack(">i", _read_exactly(sock, 4))
    raw = _read_exactly(sock, size)
    error, count = struct.unpack_from(">hi", raw, 4)
    if error:
        return set()
    return {struct.unpack_from(">h", raw, 10 + 6 * i)[0] for i in range(count)}


def _offset_delete_errors(raw: bytes) -> tuple[int, dict[tuple[str, int], int]]:
    """(group error code, {(topic, partition): error code}) of an OffsetDelete v0 answer."""
    pos = 4  # correlation id
    (group_error,) = struct.unpack_from(">h", raw, pos)
    pos += 2 + 4  # error code, throttle time
    (topics,) = struct.unpack_from(">i", raw, pos)
    pos += 4
    errors: dict[tuple[str, int], int] = {}
    for _ in range(max(topics, 0)):
        (length,) = struct.unpack_from(">h", raw, pos)
        topic = raw[pos + 2 : pos + 2 + length].decode()
        pos += 2 + length
        (count,) = struct.unpack_from(">i", raw, pos)
        pos += 4
        for _ in range(max(count, 0)):
            number, code = struct.unpack_from(">ih", raw, pos)
            pos += 6
            errors[(topic, number)] = code
    return group_error, errors


def delete_group_offsets(
    client_config: Mapping[str, Any],
    group: str,
    partitions: Sequence[TopicPartition],
    *,
    connector: str,
) -> None:
    """Delete ``group``'s committed offsets of ``partitions`` (Kafka's OffsetDelete).

    The sink then starts those partitions where its consumer's ``auto.offset.reset`` says,
    as Kafka Connect does for ``"offset": null``. Raises ConnectError saying why when the
    brokers cannot do it.
    """
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    shown = ", ".join(f"{tp.topic}-{tp.partition}" for tp in partitions)
    instead = (
        f'give those partitions a "kafka_offset" instead, or reset every partition of '
        f"connector {connector!r} with DELETE /connectors/<name>/offsets"
    )
    protocol = str(client_config.get("security.protocol", "PLAINTEXT")).upper()
    if protocol != "PLAINTEXT":
        raise ConnectError(
            f"cannot reset the offsets of {shown} for consumer group {group!r}: kconnect sends "
            f"Kafka's OffsetDelete request on PLAINTEXT listeners only (this worker uses "
            f"{protocol}); {instead}"
        )
    admin = AdminClient(kafka_client_config(client_config))
    try:
        described = admin.describe_consumer_groups([group], request_timeout=_TIMEOUT_S)[
            group
        ].result(timeout=_TIMEOUT_S)
        coordinator = described.coordinator
        address = (coordinator.host, int(coordinator.port))
    except KafkaException as exc:
        raise ConnectError(
            f"cannot reset the offsets of {shown}: cannot find the coordinator of consumer "
            f"group {group!r} ({exc}); check that the brokers are reachable"
        ) from None
    try:
        with socket.create_connection(address, timeout=_TIMEOUT_S) as sock:
            if _OFFSET_DELETE_API_KEY not in _api_keys(sock):
                raise ConnectError(
                    f"cannot reset the offsets of {shown} for consumer group {group!r}: the "
                    f"brokers do not support deleting single partitions' committed offsets "
                    f"(Kafka's OffsetDelete request, Kafka 2.4+; the group coordinator "
                    f"{address[0]}:{address[1]} does not offer it); {instead}"
                )
            sock.sendall(_offset_delete_request(group, partitions))
            (size,) = struct.unpack(">i", _read_exactly(sock, 4))
            group_error, errors = _offset_delete_errors(_read_exactly(sock, size))
    except (OSError, struct.error) as exc:
        raise ConnectError(
            f"cannot reset the offsets of {shown} for consumer group {group!r}: the group "
            f"coordinator {address[0]}:{address[1]} did not answer Kafka's OffsetDelete request "
            f"({exc}; brokers before Kafka 2.4 do not have it); {instead}"
        ) from None
    if group_error in (25, 69):  # no committed offsets at all: nothing to reset
        return
    problems = {tp: code for tp, code in errors.items() if code not in (0, 3)}
    if group_error or problems:
        code = group_error or next(iter(problems.values()))
        reason = _KAFKA_ERRORS.get(code, f"Kafka error code {code}")
        raise ConnectError(
            f"cannot reset the offsets of {shown} for consumer group {group!r}: {reason}; {instead}"
        )
