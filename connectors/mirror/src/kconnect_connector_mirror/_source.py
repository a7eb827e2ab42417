"""MirrorSourceConnector: copies topics, their partitions and configs from one cluster to another.

The connector watches the source cluster (``refresh.topics.interval.seconds``), creates
the remote topics on the target with the source's partition count, adds partitions when
the source grows, keeps topic configs in step (``sync.topic.configs.*``) and spreads the
partitions over its tasks. Each task copies its partitions' records as bytes (keys,
values, headers, timestamps, partition kept) and, as records are acknowledged by the
target, writes offset syncs for the checkpoint connector.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    OFFSET_INVALID,
    TIMESTAMP_NOT_AVAILABLE,
    Consumer,
    KafkaError,
    Producer,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_sdk import (
    ConfigDef,
    ConfigValue,
    ConnectError,
    ExactlyOnceSupport,
    Headers,
    RecordMetadata,
    Schema,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicPartition,
)

from ._config import (
    OFFSET_SYNCS_CLIENT_ROLE_PREFIX,
    OFFSET_SYNCS_TOPIC_CONFIG_PREFIX,
    SOURCE_CONFIG_DEF,
    TASK_TOPIC_PARTITIONS,
    MirrorConfig,
    task_config,
)
from ._filters import ConfigPropertyFilter, TopicFilter, config_property_filter, topic_filter
from ._formats import OffsetSync
from ._kafka import ClusterAdmin, KafkaAdmin, TopicConfigEntry, new_consumer, new_producer
from ._metrics import MirrorSourceMetrics, now_ms, task_plugin_metrics
from ._offset_syncs import OffsetSyncWriter
from ._partitions import check_offsets
from ._policy import ReplicationPolicy
from ._scheduler import Scheduler

__all__ = ["MirrorSourceConnector", "MirrorSourceTask"]

log = logging.getLogger(__name__)

SOURCE_CLUSTER_KEY: Final = "cluster"
TOPIC_KEY: Final = "topic"
PARTITION_KEY: Final = "partition"
OFFSET_KEY: Final = "offset"


def wrap_partition(topic_partition: TopicPartition, source_cluster_alias: str) -> dict[str, Any]:
    """A source partition's key in Connect's offsets: ``{"cluster", "partition", "topic"}``.

    In the order Kafka's worker writes the keys (its HashMap's), so the offset records are
    the same bytes as Java MirrorMaker's and either can take over the other's offsets.
    """
    return {
        SOURCE_CLUSTER_KEY: source_cluster_alias,
        PARTITION_KEY: topic_partition.partition,
        TOPIC_KEY: topic_partition.topic,
    }


def unwrap_offset(offset: Mapping[str, Any] | None) -> int:
    if offset is None or offset.get(OFFSET_KEY) is None:
        return -1
    return int(offset[OFFSET_KEY])


def encode_topic_partition(tp: TopicPartition) -> str:
    return f"{tp.topic}-{tp.partition}"


def decode_topic_partition(text: str) -> TopicPartition:
    topic, _, partition = text.strip().rpartition("-")
    return TopicPartition(topic, int(partition))


class TopicPlanner:
    """The connector's decisions, apart from its clients: what to mirror and how to name it."""

    def __init__(
        self,
        source_alias: str,
        target_alias: str,
        policy: ReplicationPolicy,
        topics: TopicFilter,
        properties: ConfigPropertyFilter,
        *,
        heartbeats_replication_enabled: bool = True,
    ) -> None:
        self.source_alias = source_alias
        self.target_alias = target_alias
        self.policy = policy
        self.topics = topics
        self.properties = properties
        self.heartbeats_replication_enabled = heartbeats_replication_enabled

    def format_remote_topic(self, topic: str) -> str:
        return self.policy.format_remote_topic(self.source_alias, topic)

    def is_cycle(self, topic: str) -> bool:
        """Whether ``topic`` came (maybe over several hops) from the target cluster."""
        seen: set[str] = set()
        while True:
            source = self.policy.topic_source(topic)
            if source is None:
                return False
            if source == self.target_alias:
                return True
            upstream = self.policy.upstream_topic(topic)
            # Policies that keep names (identity) cannot tell; they must not loop for ever.
            if upstream is None or upstream == topic or upstream in seen:
                return False
            seen.add(topic)
            topic = upstream

    def should_replicate_topic(self, topic: str) -> bool:
        wanted = self.topics.should_replicate_topic(topic) or (
            self.heartbeats_replication_enabled and self.policy.is_heartbeats_topic(topic)
        )
        return wanted and not self.policy.is_internal_topic(topic) and not self.is_cycle(topic)

    def target_config(
        self, entries: Sequence[TopicConfigEntry], *, incremental: bool
    ) -> dict[str, str | None]:
        """The target topic's properties for the source's ``entries``.

        With ``incremental`` (config sync), a property left at its source default is
        deleted on the target (value None) unless the filter wants the source's default
        copied; when creating a topic, such properties are simply left out.
        """
        out: dict[str, str | None] = {}
        for entry in entries:
            copy_default = self.properties.should_replicate_source_default(entry.name)
            if not (incremental or not entry.is_default or copy_default):
                continue
            if entry.is_read_only or entry.is_sensitive or entry.is_static_broker_config:
                continue
            if not self.properties.should_replicate_config_property(entry.name):
                continue
            out[entry.name] = (
                None if incremental and entry.is_default and not copy_default else entry.value
            )
        return out


def round_robin(partitions: Sequence[TopicPartition], max_tasks: int) -> list[list[TopicPartition]]:
    """Partitions dealt to ``min(max_tasks, len(partitions))`` tasks in turn."""
    count = min(max_tasks, len(partitions))
    tasks: list[list[TopicPartition]] = [[] for _ in range(count)]
    for index, partition in enumerate(partitions):
        tasks[index % count].append(partition)
    return tasks


def _sorted_partitions(counts: Mapping[str, int]) -> list[TopicPartition]:
    return [TopicPartition(t, p) for t in sorted(counts) for p in range(counts[t])]


class MirrorSourceConnector(SourceConnector):
    """Replicates topics (data and configs) from ``source.cluster.alias`` to ``target.cluster.alias``."""

    def __init__(self) -> None:
        self._config: MirrorConfig | None = None
        self._scheduler: Scheduler | None = None
        self.planner: TopicPlanner | None = None
        self.source_admin: ClusterAdmin | None = None
        self.target_admin: ClusterAdmin | None = None
        self.known_source_partitions: list[TopicPartition] = []
        self.known_target_partitions: list[TopicPartition] = []
        self._lock = threading.Lock()

    def config(self) -> ConfigDef:
        return SOURCE_CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = super().validate(props)
        offset_syncs_configured = any(
            k.startswith((OFFSET_SYNCS_CLIENT_ROLE_PREFIX, OFFSET_SYNCS_TOPIC_CONFIG_PREFIX))
            for k in props
        )
        if props.get("emit.offset-syncs.enabled") == "false" and offset_syncs_configured:
            _add_error(
                values,
                "emit.offset-syncs.enabled",
                "MirrorSourceConnector can't setup offset-syncs feature while "
                "emit.offset-syncs.enabled set to false",
            )
        if props.get("exactly.once.support") == "required" and not _reads_committed(props):
            _add_error(
                values,
                "exactly.once.support",
                "MirrorSourceConnector can only provide exactly-once guarantees when its source "
                "consumer is configured with isolation.level set to 'read_committed'; otherwise, "
                "records from aborted and uncommitted transactions will be replicated from the "
                "source cluster to the target cluster.",
            )
        return values

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        if _reads_committed(props):
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def start(self, props: Mapping[str, str]) -> None:
        config = self._config = MirrorConfig(SOURCE_CONFIG_DEF, props)
        if not config.enabled:
            return
        if config["sync.topic.acls.enabled"]:
            # Kafka's default is true; say once that remote topics get no ACLs from us.
            log.warning(
                "MirrorSourceConnector %s->%s: sync.topic.acls.enabled=true, but kconnect does "
                "not copy topic ACLs to the target cluster yet; set it to false to silence "
                "this, and grant the target's ACLs yourself",
                config.source_cluster_alias,
                config.target_cluster_alias,
            )
        self.planner = TopicPlanner(
            config.source_cluster_alias,
            config.target_cluster_alias,
            config.replication_policy,
            topic_filter(config.originals),
            config_property_filter(config.originals),
            heartbeats_replication_enabled=bool(config["heartbeats.replication.enabled"]),
        )
        timeout = config.admin_timeout_s
        self.source_admin = KafkaAdmin(
            config.source_admin_config("replication-source-admin"),
            "source admin",
            timeout_s=timeout,
        )
        self.target_admin = KafkaAdmin(
            config.target_admin_config("replication-target-admin"),
            "target admin",
            timeout_s=timeout,
        )
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorSourceConnector: {config.entity_label()}"
        )
        scheduler.execute(self._create_offset_syncs_topic, "creating upstream offset-syncs topic")
        scheduler.execute(self.load_topic_partitions, "loading initial set of topic-partitions")
        scheduler.execute(
            self.compute_and_create_topic_partitions, "creating downstream topic-partitions"
        )
        scheduler.schedule_repeating(
            self.sync_topic_configs,
            config.interval_s("sync.topic.configs"),
            "syncing topic configs",
        )
        scheduler.schedule_repeating_delayed(
            self.refresh_topic_partitions, config.interval_s("refresh.topics"), "refreshing topics"
        )
        log.info(
            "Started %s with %d topic-partitions.",
            config.connector_name,
            len(self.known_source_partitions),
        )

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        for admin in (self.source_admin, self.target_admin):
            if admin is not None:
                admin.close()
        self.source_admin = self.target_admin = None

    def task_class(self) -> type[MirrorSourceTask]:
        return MirrorSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        config = self._config
        with self._lock:
            known = list(self.known_source_partitions)
        if config is None or not config.enabled or not known:
            return []
        return [
            task_config(
                config.originals,
                {TASK_TOPIC_PARTITIONS: ",".join(encode_topic_partition(tp) for tp in group)},
                index,
            )
            for index, group in enumerate(round_robin(known, max_tasks))
        ]

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        # The source consumer never commits, so validating the format is all there is to do.
        return check_offsets(
            offsets, (SOURCE_CLUSTER_KEY, TOPIC_KEY), with_partition=True, only_zero=False
        )

    # -- the connector's background work (Kafka's method names, for the ported tests) --

    def _create_offset_syncs_topic(self) -> None:
        config = self._config
        assert config is not None
        if not config["emit.offset-syncs.enabled"]:
            return
        admin = KafkaAdmin(
            config.offset_syncs_admin_config(),
            "offset-syncs admin",
            timeout_s=config.admin_timeout_s,
        )
        try:
            admin.create_compacted_topic(
                config.offset_syncs_topic(), 1, int(config["offset-syncs.topic.replication.factor"])
            )
        finally:
            admin.close()

    def find_source_topic_partitions(self) -> list[TopicPartition]:
        assert self.source_admin is not None and self.planner is not None
        counts = self.source_admin.topic_partition_counts()
        wanted = {t: n for t, n in counts.items() if self.planner.should_replicate_topic(t)}
        return _sorted_partitions(wanted)

    def find_target_topic_partitions(self) -> list[TopicPartition]:
        assert (
            self.target_admin is not None and self.planner is not None and self._config is not None
        )
        policy = self.planner.policy
        checkpoints = self._config.checkpoints_topic()
        counts = self.target_admin.topic_partition_counts()
        remote = {
            t: n
            for t, n in counts.items()
            if policy.topic_source(t) == self.planner.source_alias and t != checkpoints
        }
        return _sorted_partitions(remote)

    def load_topic_partitions(self) -> None:
        source = self.find_source_topic_partitions()
        target = self.find_target_topic_partitions()
        with self._lock:
            self.known_source_partitions = source
            self.known_target_partitions = target

    def refresh_topic_partitions(self) -> None:
        assert self.planner is not None
        source = self.find_source_topic_partitions()
        target = self.find_target_topic_partitions()
        policy = self.planner.policy
        upstream_of_target = {
            TopicPartition(policy.upstream_topic(tp.topic) or tp.topic, tp.partition)
            for tp in target
        }
        missing_in_target = set(source) - upstream_of_target
        with self._lock:
            known = set(self.known_source_partitions)
            self.known_target_partitions = target
        if known == set(source) and not missing_in_target:
            return
        log.info(
            "Found %d new topic-partitions on %s. Found %d deleted topic-partitions on %s. "
            "Found %d topic-partitions missing on %s.",
            len(set(source) - known),
            self.planner.source_alias,
            len(known - set(source)),
            self.planner.source_alias,
            len(missing_in_target),
            self.planner.target_alias,
        )
        with self._lock:
            self.known_source_partitions = source
        self.compute_and_create_topic_partitions()
        self.context.request_task_reconfiguration()

    def compute_and_create_topic_partitions(self) -> None:
        assert (
            self.planner is not None and self.target_admin is not None and self._config is not None
        )
        with self._lock:
            source_counts = _counts(self.known_source_partitions)
            target_counts = _counts(self.known_target_partitions)
        remote_of = {t: self.planner.format_remote_topic(t) for t in source_counts}
        new_topics = {t for t in source_counts if remote_of[t] not in target_counts}
        if new_topics:
            self.create_new_topics(new_topics, source_counts)
        grown = {
            remote_of[t]: source_counts[t]
            for t in source_counts
            if t not in new_topics and source_counts[t] > target_counts[remote_of[t]]
        }
        if grown:
            self.target_admin.create_partitions(grown)

    def create_new_topics(self, topics: set[str], partition_counts: Mapping[str, int]) -> None:
        assert self.planner is not None and self.source_admin is not None
        assert self.target_admin is not None and self._config is not None
        configs = self.source_admin.describe_topic_configs(sorted(topics))
        rf = int(self._config["replication.factor"])
        new: dict[str, tuple[int, int, Mapping[str, str]]] = {}
        for topic in sorted(topics):
            props = self.planner.target_config(configs.get(topic, []), incremental=False)
            new[self.planner.format_remote_topic(topic)] = (
                partition_counts[topic],
                rf,
                {k: v for k, v in props.items() if v is not None},
            )
        self.target_admin.create_topics(new)

    def topics_being_replicated(self) -> set[str]:
        assert self.planner is not None
        with self._lock:
            target_topics = {tp.topic for tp in self.known_target_partitions}
            source_topics = {tp.topic for tp in self.known_source_partitions}
        return {t for t in source_topics if self.planner.format_remote_topic(t) in target_topics}

    def sync_topic_configs(self) -> None:
        assert self.planner is not None and self.source_admin is not None
        assert self.target_admin is not None
        topics = sorted(self.topics_being_replicated())
        if not topics:
            return
        configs = self.source_admin.describe_topic_configs(topics)
        changes = {
            self.planner.format_remote_topic(topic): self.planner.target_config(
                entries, incremental=True
            )
            for topic, entries in configs.items()
        }
        self.target_admin.incremental_alter_configs(changes)


def _headers(
    raw: Mapping[str, str | bytes | None] | Sequence[tuple[str, str | bytes | None]] | None,
) -> list[tuple[str, bytes | None]]:
    if not raw:
        return []
    items = raw.items() if isinstance(raw, Mapping) else raw
    return [(k, v.encode() if isinstance(v, str) else v) for k, v in items]


_RESET_OFFSETS: Final = {
    "earliest": OFFSET_BEGINNING,
    "smallest": OFFSET_BEGINNING,
    "beginning": OFFSET_BEGINNING,
    "latest": OFFSET_END,
    "largest": OFFSET_END,
    "end": OFFSET_END,
}
"""auto.offset.reset values (Java's and librdkafka's) as the logical offsets they start at."""


def _counts(partitions: Sequence[TopicPartition]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for tp in partitions:
        counts[tp.topic] = counts.get(tp.topic, 0) + 1
    return counts


def _reads_committed(props: Mapping[str, str]) -> bool:
    # The source consumer's isolation.level, with the precedence its config is built with.
    level = None
    for prefix in ("consumer.", "source.consumer."):
        level = props.get(prefix + "isolation.level", level)
    return level == "read_committed"


def _add_error(values: list[ConfigValue], name: str, message: str) -> None:
    for value in values:
        if value.name == name:
            value.add_error_message(message)
            return
    added = ConfigValue(name)
    added.add_error_message(message)
    values.append(added)


class MirrorSourceTask(SourceTask):
    """Copies the records of its assigned source partitions to their remote topics."""

    kafka_class_name = "org.apache.kafka.connect.mirror.MirrorSourceTask"

    def __init__(self) -> None:
        self._consumer: Consumer | None = None
        self._producer: Producer | None = None
        self.writer: OffsetSyncWriter | None = None
        self._consumer_lock = threading.Lock()
        self._stopping = False
        self._serving = threading.Event()
        self._server: threading.Thread | None = None
        self.source_alias = ""
        self.policy: ReplicationPolicy | None = None
        self._poll_timeout_s = 1.0
        self._remote_topics: dict[str, str] = {}
        self.metrics: MirrorSourceMetrics | None = None

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorConfig(SOURCE_CONFIG_DEF, props)
        self.source_alias = config.source_cluster_alias
        self.policy = config.replication_policy
        self._poll_timeout_s = int(config["consumer.poll.timeout.ms"]) / 1000.0
        if config["emit.offset-syncs.enabled"]:
            producer = self._producer = new_producer(
                config.offset_syncs_producer_config(), "offset-syncs producer"
            )
            topic = config.offset_syncs_topic()

            def send(sync: OffsetSync, done: Any) -> None:
                producer.produce(
                    topic,
                    key=sync.record_key(),
                    value=sync.record_value(),
                    partition=0,
                    on_delivery=lambda err, _msg: done(
                        None if err is None else ConnectError(str(err))
                    ),
                )

            self.writer = OffsetSyncWriter(send, int(config["offset.lag.max"]))
            # The offset syncs' delivery reports are served as they come, as Kafka's producer
            # runs its callbacks on its own I/O thread: each frees one of the ten in-flight
            # slots at once. Served only from the task's own calls, the slots stayed taken
            # through bursts (a heartbeats partition syncs every few records), and the sync
            # of a partition's first records was replaced while it waited, leaving its
            # groups' early offsets untranslatable.
            self._serving.set()
            self._server = threading.Thread(
                target=self._serve_offset_syncs,
                args=(producer,),
                name=f"offset-syncs-{config.entity_label()}",
                daemon=True,
            )
            self._server.start()
        raw = props.get(TASK_TOPIC_PARTITIONS, "")
        partitions = [decode_topic_partition(p) for p in raw.split(",") if p.strip()]
        self.metrics = MirrorSourceMetrics(
            task_plugin_metrics(self.context),
            self.source_alias,
            config.target_cluster_alias,
            [(self.remote_topic(tp.topic), tp.partition) for tp in partitions],
        )
        consumer_config = config.source_consumer_config("replication-consumer")
        self._consumer = new_consumer(consumer_config, "replication consumer")
        self._initialize_consumer(partitions, str(consumer_config["auto.offset.reset"]))
        log.info(
            "%s replicating %d topic-partitions %s->%s: %s.",
            config.entity_label(),
            len(partitions),
            self.source_alias,
            config.target_cluster_alias,
            [str(p) for p in partitions],
        )

    def _initialize_consumer(
        self, partitions: Sequence[TopicPartition], auto_offset_reset: str
    ) -> None:
        assert self._consumer is not None
        reader = self.context.offset_storage_reader
        offsets = reader.offsets([wrap_partition(tp, self.source_alias) for tp in partitions])
        # Without a stored offset, the consumer's auto.offset.reset decides (earliest by
        # default), said as a logical offset: Kafka's replication consumer has no group, so
        # it never asks the source's group coordinator for committed offsets. librdkafka's
        # needs a group.id and would ask, and on a source cluster whose coordinator is not
        # ready yet (no __consumer_offsets) the partitions would never start fetching.
        start = _RESET_OFFSETS.get(auto_offset_reset.lower(), OFFSET_INVALID)
        assignment = []
        for tp, offset in zip(partitions, offsets, strict=True):
            committed = unwrap_offset(offset)
            # The stored offset is that of the last record copied; continue after it.
            assignment.append(
                KafkaTopicPartition(
                    tp.topic, tp.partition, committed + 1 if committed >= 0 else start
                )
            )
        self._consumer.assign(assignment)

    def remote_topic(self, topic: str) -> str:
        remote = self._remote_topics.get(topic)
        if remote is None:
            assert self.policy is not None
            remote = self._remote_topics[topic] = self.policy.format_remote_topic(
                self.source_alias, topic
            )
        return remote

    def convert_record(
        self,
        *,
        topic: str,
        partition: int,
        offset: int,
        key: bytes | None,
        value: bytes | None,
        timestamp: int | None,
        headers: Sequence[tuple[str, bytes | None]] | None,
    ) -> SourceRecord:
        return SourceRecord(
            source_partition=wrap_partition(TopicPartition(topic, partition), self.source_alias),
            source_offset={OFFSET_KEY: offset},
            topic=self.remote_topic(topic),
            kafka_partition=partition,
            key_schema=Schema.OPTIONAL_BYTES,
            key=key,
            value_schema=Schema.BYTES,
            value=value,
            timestamp=timestamp,
            headers=Headers([(k, Schema.BYTES, v) for k, v in headers])
            if headers
            else Headers.EMPTY,
        )

    def poll(self) -> list[SourceRecord] | None:
        if not self._consumer_lock.acquire(blocking=False):
            return None
        try:
            if self._stopping or self._consumer is None:
                return None
            metrics = self.metrics
            if metrics is not None:
                metrics.report()
            messages = self._consumer.consume(500, self._poll_timeout_s)
            records = []
            # Per remote topic-partition: the polled records' ages (ms) and value sizes.
            measured: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
            polled_at = now_ms()
            for message in messages:
                error = message.error()
                if error is not None:
                    if error.code() != KafkaError._PARTITION_EOF:
                        log.warning("Failure during poll: %s", error)
                    continue
                kind, ts = message.timestamp()
                key, value = message.key(), message.value()
                record = self.convert_record(
                    topic=message.topic() or "",
                    partition=message.partition() or 0,
                    offset=message.offset() or 0,
                    key=key.encode() if isinstance(key, str) else key,
                    value=value.encode() if isinstance(value, str) else value,
                    timestamp=ts if kind != TIMESTAMP_NOT_AVAILABLE else None,
                    headers=_headers(message.headers()),
                )
                records.append(record)
                where = (record.topic, record.kafka_partition or 0)
                ages, sizes = measured.get(where) or measured.setdefault(where, ([], []))
                if kind != TIMESTAMP_NOT_AVAILABLE:
                    ages.append(polled_at - ts)
                sizes.append(float(len(value)) if value is not None else 0.0)
            if metrics is not None:
                for (topic, partition), (ages, sizes) in measured.items():
                    metrics.polled(topic, partition, ages, sizes)
            return records or None
        finally:
            self._consumer_lock.release()

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if self._stopping:
            return
        if metadata is None:
            log.debug(
                "No RecordMetadata (filtered by a transform?): no offset sync for %s", record.topic
            )
            return
        if metadata.offset < 0:
            log.error("RecordMetadata has no offset -- can't sync offsets for %s.", record.topic)
            return
        if self.metrics is not None and record.timestamp is not None:
            self.metrics.acknowledged(
                record.topic, record.kafka_partition or 0, now_ms() - record.timestamp
            )
        if self.writer is None:
            return
        assert record.source_partition is not None
        source_tp = TopicPartition(
            str(record.source_partition[TOPIC_KEY]), int(record.source_partition[PARTITION_KEY])
        )
        self.writer.maybe_queue_offset_syncs(
            source_tp, unwrap_offset(record.source_offset), metadata.offset
        )
        self._serve_producer()
        self.writer.fire_pending_offset_syncs()

    def commit(self) -> None:
        if self.metrics is not None:
            self.metrics.report()
        if self.writer is None:
            return
        # Syncs held back by their spacing go out at each commit, so a partition that
        # went quiet is still translated up to its last record.
        self.writer.promote_delayed_offset_syncs()
        self._serve_producer()
        self.writer.fire_pending_offset_syncs()

    def _serve_producer(self) -> None:
        if self._producer is not None:
            self._producer.poll(0)

    def _serve_offset_syncs(self, producer: Producer) -> None:
        while self._serving.is_set():
            producer.poll(0.05)

    def stop(self) -> None:
        start = time.monotonic()
        self._stopping = True
        # Wait for a poll in progress (at most consumer.poll.timeout.ms), then close.
        with self._consumer_lock:
            if self._consumer is not None:
                self._consumer.close()
                self._consumer = None
        self._serving.clear()
        if self._server is not None:
            self._server.join(5.0)
            self._server = None
        if self._producer is not None:
            self._producer.flush(5.0)
            self._producer = None
        log.info("Stopping MirrorSourceTask took %d ms.", (time.monotonic() - start) * 1000)
