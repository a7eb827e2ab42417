"""MirrorClient: what a cluster's topics say about the MirrorMaker flows that reach it.

Kafka's ``MirrorClient``/``RemoteClusterUtils`` for Python: which clusters replicate into
this one (from the heartbeats topics that arrive), how many hops away each is, which
topics are remote, and a consumer group's offsets translated by the checkpoints, so an
application can move to this cluster and resume where it was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import TopicPartition

from ._formats import Checkpoint, SchemaError
from ._kafka import kafka_client, new_consumer
from ._policy import ReplicationPolicy, replication_policy

__all__ = ["MirrorClient"]

log = logging.getLogger(__name__)


class MirrorClient:
    """Reads MirrorMaker's topics on one cluster.

    Args:
        props: the cluster's Java client settings (``bootstrap.servers``, security ...),
            ``replication.policy.class`` and its settings, and ``admin.*``/``consumer.*``
            overrides, as Kafka's ``MirrorClientConfig`` takes them.
        list_topics: where topic names come from; by default the cluster's metadata.
    """

    def __init__(
        self,
        props: Mapping[str, Any],
        *,
        list_topics: Callable[[], set[str]] | None = None,
        policy: ReplicationPolicy | None = None,
    ) -> None:
        self._props = dict(props)
        self.replication_policy = policy or replication_policy(self._props)
        self._list_topics = list_topics or self._metadata_topics

    def _client_props(self, kind: str) -> dict[str, Any]:
        base = {
            k: v
            for k, v in self._props.items()
            if k in ("bootstrap.servers", "security.protocol") or k.startswith(("ssl.", "sasl."))
        }
        base.update(
            {k[len(kind) + 1 :]: v for k, v in self._props.items() if k.startswith(kind + ".")}
        )
        return base

    def _metadata_topics(self) -> set[str]:
        from confluent_kafka.admin import AdminClient

        admin = kafka_client(AdminClient, self._client_props("admin"), "mirror client admin")
        return set(admin.list_topics(timeout=30).topics)

    def list_topics(self) -> set[str]:
        return self._list_topics()

    def heartbeat_topics(self) -> set[str]:
        return {t for t in self.list_topics() if self.replication_policy.is_heartbeats_topic(t)}

    def checkpoint_topics(self) -> set[str]:
        return {t for t in self.list_topics() if self.replication_policy.is_checkpoints_topic(t)}

    def upstream_clusters(self) -> set[str]:
        """Every cluster, however many hops away, whose heartbeats reach this one."""
        clusters: set[str] = set()
        for topic in self.heartbeat_topics():
            clusters |= self._all_sources(topic)
        return clusters

    def remote_topics(self, source: str | None = None) -> set[str]:
        """Remote topics on this cluster (internal ones excluded); with ``source``, only
        those mirrored directly from that cluster."""
        policy = self.replication_policy
        found = {t for t in self.list_topics() if self._is_remote_topic(t)}
        if source is None:
            return found
        return {t for t in found if policy.topic_source(t) == source}

    def replication_hops(self, upstream_cluster_alias: str) -> int:
        """Fewest hops from ``upstream_cluster_alias`` to this cluster (A->B->C: 2 from A); -1
        when its heartbeats do not arrive."""
        hops = [
            self.count_hops_for_topic(t, upstream_cluster_alias) for t in self.heartbeat_topics()
        ]
        reachable = [h for h in hops if h != -1]
        return min(reachable) if reachable else -1

    def count_hops_for_topic(self, topic: str, source_cluster_alias: str) -> int:
        policy = self.replication_policy
        hops = 0
        visited: set[str] = set()
        current: str | None = topic
        while current is not None:
            hops += 1
            source = policy.topic_source(current)
            if source is None:
                return -1
            if source == source_cluster_alias:
                return hops
            if source in visited:
                # Policies that keep names cannot prevent cycles: assume one, give up.
                return -1
            visited.add(source)
            current = policy.upstream_topic(current)
        return -1

    def _is_remote_topic(self, topic: str) -> bool:
        policy = self.replication_policy
        return not policy.is_internal_topic(topic) and policy.topic_source(topic) is not None

    def _all_sources(self, topic: str) -> set[str]:
        policy = self.replication_policy
        sources: set[str] = set()
        current: str | None = topic
        source = policy.topic_source(topic)
        while source is not None and source not in sources:
            sources.add(source)
            current = policy.upstream_topic(current) if current is not None else None
            source = policy.topic_source(current) if current is not None else None
        return sources

    def remote_consumer_offsets(
        self, consumer_group_id: str, remote_cluster_alias: str, timeout_s: float
    ) -> dict[TopicPartition, tuple[int, str]]:
        """The group's offsets on ``remote_cluster_alias``, translated for this cluster:
        ``(offset, metadata)`` per partition, named as on this cluster."""
        topic = self.replication_policy.checkpoints_topic(remote_cluster_alias)
        consumer_props = self._client_props("consumer")
        # ``timeout_s`` bounds the reading; the end offset is asked for as Kafka's client
        # asks (endOffsets): within the consumer's default.api.timeout.ms, a minute by
        # default. A broker slow to answer delays the result rather than failing the call.
        api_timeout_s = int(consumer_props.get("default.api.timeout.ms", 60_000)) / 1000
        consumer: Consumer = new_consumer(consumer_props, "mirror client consumer")
        offsets: dict[TopicPartition, tuple[int, str]] = {}
        deadline = time.monotonic() + timeout_s
        try:
            partition = KafkaTopicPartition(topic, 0)
            consumer.assign([KafkaTopicPartition(topic, 0, OFFSET_BEGINNING)])
            while time.monotonic() < deadline:
                _, end = consumer.get_watermark_offsets(partition, timeout=api_timeout_s)
                position = consumer.position([partition])[0].offset
                if position >= end or (position < 0 and end == 0):
                    break
                # At least one poll after a slow end offset, as Kafka's loop polls once it
                # has the end offset, whatever time is left.
                for message in consumer.consume(500, min(1.0, timeout_s)):
                    if message.error() is not None:
                        continue
                    try:
                        checkpoint = Checkpoint.deserialize(message.key(), message.value())
                    except SchemaError as exc:
                        log.info("Could not deserialize record. Skipping. %s", exc)
                        continue
                    if checkpoint.consumer_group_id == consumer_group_id:
                        offsets[checkpoint.topic_partition] = (
                            checkpoint.downstream_offset,
                            checkpoint.metadata,
                        )
        finally:
            consumer.close()
        log.info(
            "Consumed %d checkpoint records for %s from %s.", len(offsets), consumer_group_id, topic
        )
        return offsets
