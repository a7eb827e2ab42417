"""The Kafka clients MirrorMaker uses on both clusters, given Java client settings.

Connector configs carry Java client properties (``source.cluster.bootstrap.servers``,
``producer.linger.ms``, ``sasl.jaas.config`` ...). librdkafka shares most names; the
security settings that differ are translated by the SDK (``kconnect_sdk.kafka_clients``),
and properties librdkafka does not know are left out with a debug line, as Java's clients
ignore unknown properties with a warning.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from confluent_kafka import (
    Consumer,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
)
from confluent_kafka import (
    TopicPartition as KafkaTopicPartition,
)

# confluent-kafka's typed package re-exports these without __all__; they are its public API.
from confluent_kafka.admin import (  # type: ignore[attr-defined]
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
)
from kconnect_sdk import ConfigError, ConnectError, TopicPartition, kafka_clients

__all__ = [
    "ClusterAdmin",
    "KafkaAdmin",
    "TopicConfigEntry",
    "kafka_client",
    "librdkafka_config",
]

log = logging.getLogger(__name__)

C = TypeVar("C")


def librdkafka_config(java: Mapping[str, Any], *, prefix: str = "") -> dict[str, Any]:
    """librdkafka properties for Java client properties ``java`` (the SDK's translation:
    ``sasl.jaas.config``, JKS/PKCS12/PEM stores and the rest of Java's security settings).

    Raises:
        ConfigError: a setting librdkafka cannot honour, or a store that cannot be read,
            named with ``prefix`` (``source.cluster.``).
    """
    return kafka_clients.librdkafka_config(java, prefix=prefix)


def kafka_client(factory: Callable[[dict[str, Any]], C], java: Mapping[str, Any], role: str) -> C:
    """A librdkafka client (``Consumer``, ``Producer`` or ``AdminClient``) for ``java`` settings.

    Properties librdkafka refuses as unknown are dropped one by one (each named in a debug
    line); a known property with a bad value, a security setting librdkafka cannot honour
    or a store that cannot be read is a ConfigError naming the client's role.
    """
    try:
        config = librdkafka_config(java)
    except ConfigError as exc:
        raise ConfigError(f"MirrorMaker {role} client: {exc}", name=exc.name) from None
    config.setdefault("logger", logging.getLogger(f"{__name__}.{role}"))
    while True:
        try:
            return factory(config)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            text = error.str() if isinstance(error, KafkaError) else str(exc)
            unknown = re.search(r'No such configuration property: "([^"]+)"', text)
            if unknown is None or unknown.group(1) not in config:
                raise ConfigError(f"MirrorMaker {role} client: {text}") from None
            log.debug("MirrorMaker %s client ignores unknown property %r", role, unknown.group(1))
            del config[unknown.group(1)]
        except ValueError as exc:
            raise ConfigError(f"MirrorMaker {role} client: {exc}") from None


def new_consumer(java: Mapping[str, Any], role: str) -> Consumer:
    config = dict(java)
    # librdkafka wants a group id even for a consumer that assigns partitions itself; it is
    # never joined and nothing is committed under it.
    config.setdefault("group.id", config.get("client.id") or role)
    return kafka_client(Consumer, config, role)


def new_producer(java: Mapping[str, Any], role: str) -> Producer:
    return kafka_client(Producer, java, role)


@dataclass(frozen=True, slots=True)
class TopicConfigEntry:
    """One topic config property as the source cluster describes it."""

    name: str
    value: str | None
    is_default: bool = False
    is_read_only: bool = False
    is_sensitive: bool = False
    is_static_broker_config: bool = False


class ClusterAdmin(Protocol):
    """What the connectors ask of a cluster's admin API (Kafka's ``Admin``, reduced)."""

    def topic_partition_counts(self) -> dict[str, int]:
        """Every topic that is not Kafka-internal, with its partition count."""
        ...

    def describe_topic_configs(
        self, topics: Iterable[str]
    ) -> dict[str, list[TopicConfigEntry]]: ...

    def create_topics(self, topics: Mapping[str, tuple[int, int, Mapping[str, str]]]) -> None:
        """Create ``name -> (partitions, replication factor (-1: broker default), configs)``."""
        ...

    def create_partitions(self, counts: Mapping[str, int]) -> None: ...

    def incremental_alter_configs(self, changes: Mapping[str, Mapping[str, str | None]]) -> None:
        """Per topic, set each property to its value, or delete it (None)."""
        ...

    def create_compacted_topic(
        self, name: str, partitions: int, replication_factor: int
    ) -> None: ...

    def consumer_groups(self) -> list[str]: ...

    def group_offsets(self, group: str) -> dict[TopicPartition, tuple[int, str]]:
        """A group's committed ``(offset, metadata)`` per partition."""
        ...

    def empty_groups(self, groups: Iterable[str]) -> set[str]:
        """Those of ``groups`` that exist but have no active member (EMPTY)."""
        ...

    def alter_group_offsets(
        self, group: str, offsets: Mapping[TopicPartition, tuple[int, str]]
    ) -> None: ...

    def close(self) -> None: ...


def _is_static_broker(source: Any) -> bool:
    # confluent-kafka reports the source as the enum or as its int value, by version.
    return source in (ConfigSource.STATIC_BROKER_CONFIG, ConfigSource.STATIC_BROKER_CONFIG.value)


def _result(future: Any, timeout_s: float) -> Any:
    return future.result(timeout=timeout_s)


class KafkaAdmin:
    """:class:`ClusterAdmin` on a real cluster, through librdkafka's admin client."""

    def __init__(self, java: Mapping[str, Any], role: str, *, timeout_s: float = 60.0) -> None:
        self.role = role
        self.timeout_s = timeout_s
        self._admin = kafka_client(AdminClient, java, role)

    def topic_partition_counts(self) -> dict[str, int]:
        meta = self._admin.list_topics(timeout=self.timeout_s)
        return {
            name: len(topic.partitions)
            for name, topic in meta.topics.items()
            if topic.error is None and not name.startswith("__")
        }

    def describe_topic_configs(self, topics: Iterable[str]) -> dict[str, list[TopicConfigEntry]]:
        resources = [ConfigResource(ConfigResource.Type.TOPIC, t) for t in topics]
        if not resources:
            return {}
        out: dict[str, list[TopicConfigEntry]] = {}
        for resource, future in self._admin.describe_configs(resources).items():
            entries: dict[str, ConfigEntry] = _result(future, self.timeout_s)
            out[resource.name] = [
                TopicConfigEntry(
                    name=e.name,
                    value=e.value,
                    is_default=bool(e.is_default),
                    is_read_only=bool(e.is_read_only),
                    is_sensitive=bool(e.is_sensitive),
                    is_static_broker_config=_is_static_broker(e.source),
                )
                for e in entries.values()
            ]
        return out

    def create_topics(self, topics: Mapping[str, tuple[int, int, Mapping[str, str]]]) -> None:
        if not topics:
            return
        new = [
            NewTopic(name, num_partitions=parts, replication_factor=rf, config=dict(configs))
            for name, (parts, rf, configs) in topics.items()
        ]
        for name, future in self._admin.create_topics(new).items():
            try:
                _result(future, self.timeout_s)
                log.info("Created remote topic %s with %d partitions.", name, topics[name][0])
            except KafkaException as exc:
                log.warning("Could not create topic %s: %s", name, exc)

    def create_partitions(self, counts: Mapping[str, int]) -> None:
        if not counts:
            return
        new = [NewPartitions(topic, count) for topic, count in counts.items()]
        for topic, future in self._admin.create_partitions(new).items():
            try:
                _result(future, self.timeout_s)
                log.info("Increased size of %s to %d partitions.", topic, counts[topic])
            except KafkaException as exc:
                error = exc.args[0] if exc.args else None
                # Another task or worker got there first: the partitions exist, as wanted.
                if isinstance(error, KafkaError) and error.code() == KafkaError.INVALID_PARTITIONS:
                    continue
                log.warning("Could not create topic-partitions for %s: %s", topic, exc)

    def incremental_alter_configs(self, changes: Mapping[str, Mapping[str, str | None]]) -> None:
        resources = []
        for topic, props in changes.items():
            entries = [
                ConfigEntry(
                    name,
                    value,
                    incremental_operation=AlterConfigOpType.DELETE
                    if value is None
                    else AlterConfigOpType.SET,
                )
                for name, value in props.items()
            ]
            resources.append(
                ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=entries)
            )
        if not resources:
            return
        for resource, future in self._admin.incremental_alter_configs(resources).items():
            try:
                _result(future, self.timeout_s)
            except KafkaException as exc:
                log.warning("Could not alter configuration of topic %s: %s", resource.name, exc)

    def create_compacted_topic(self, name: str, partitions: int, replication_factor: int) -> None:
        topic = NewTopic(
            name,
            num_partitions=partitions,
            replication_factor=replication_factor,
            config={"cleanup.policy": "compact"},
        )
        try:
            _result(self._admin.create_topics([topic])[name], self.timeout_s)
            log.info("Created topic '%s'", name)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            code = error.code() if isinstance(error, KafkaError) else None
            if code == KafkaError.TOPIC_ALREADY_EXISTS:
                return
            if code in (
                KafkaError.TOPIC_AUTHORIZATION_FAILED,
                KafkaError.CLUSTER_AUTHORIZATION_FAILED,
            ):
                log.debug("Not authorized to create topic '%s'; assuming it exists", name)
                return
            raise ConnectError(
                f"Error while attempting to create/find topic '{name}': {exc}"
            ) from exc

    def consumer_groups(self) -> list[str]:
        listing = _result(self._admin.list_consumer_groups(), self.timeout_s)
        return [g.group_id for g in listing.valid]

    def group_offsets(self, group: str) -> dict[TopicPartition, tuple[int, str]]:
        futures = self._admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
        result = _result(futures[group], self.timeout_s)
        out: dict[TopicPartition, tuple[int, str]] = {}
        for tp in result.topic_partitions or []:
            # Partitions without a committed offset come back as OFFSET_INVALID (-1001).
            if tp.error is None and tp.offset >= 0:
                out[TopicPartition(tp.topic, tp.partition)] = (tp.offset, tp.metadata or "")
        return out

    def empty_groups(self, groups: Iterable[str]) -> set[str]:
        wanted = list(groups)
        if not wanted:
            return set()
        empty: set[str] = set()
        for group, future in self._admin.describe_consumer_groups(wanted).items():
            try:
                description = _result(future, self.timeout_s)
            except KafkaException as exc:
                log.error("Error querying for consumer group %s: %s", group, exc)
                continue
            if description.state == ConsumerGroupState.EMPTY:
                empty.add(group)
        return empty

    def alter_group_offsets(
        self, group: str, offsets: Mapping[TopicPartition, tuple[int, str]]
    ) -> None:
        partitions = [
            KafkaTopicPartition(tp.topic, tp.partition, offset, metadata)
            for tp, (offset, metadata) in offsets.items()
        ]
        request = ConsumerGroupTopicPartitions(group, partitions)
        try:
            _result(self._admin.alter_consumer_group_offsets([request])[group], self.timeout_s)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if isinstance(error, KafkaError) and error.code() == KafkaError.UNKNOWN_MEMBER_ID:
                log.warning(
                    "Unable to sync offsets for consumer group %s. This is likely caused by "
                    "consumers currently using this group in the target cluster.",
                    group,
                )
            else:
                log.error("Unable to sync offsets for consumer group %s: %s", group, exc)

    def close(self) -> None:
        # librdkafka's admin client has no close; dropping it releases its threads.
        self._admin = None  # type: ignore[assignment]  # released; no call follows close()
