"""MirrorCheckpointConnector: consumer group offsets translated for the target cluster.

The connector finds the source's consumer groups that have offsets on mirrored topics
(``groups``, ``groups.exclude``, ``refresh.groups.interval.seconds``) and spreads them over
its tasks. Every ``emit.checkpoints.interval.seconds`` a task reads each group's committed
offsets, translates them through the offset syncs and writes checkpoints to
``<source>.checkpoints.internal`` on the target; with ``sync.group.offsets.enabled`` it
also commits them for groups that have no active member on the target, so a consumer
can fail over and resume without skipping a record.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigValue,
    RecordMetadata,
    RetriableError,
    Schema,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicPartition,
)

from ._config import CHECKPOINT_CONFIG_DEF, TASK_CONSUMER_GROUPS, MirrorConfig, task_config
from ._filters import GroupFilter, TopicFilter, group_filter, topic_filter
from ._formats import Checkpoint
from ._kafka import ClusterAdmin, KafkaAdmin
from ._metrics import MirrorCheckpointMetrics, now_ms, task_plugin_metrics
from ._offset_syncs import OffsetSyncStore
from ._partitions import check_offsets
from ._policy import ReplicationPolicy
from ._scheduler import Scheduler
from ._topic_log import TopicLog

__all__ = ["CheckpointStore", "MirrorCheckpointConnector", "MirrorCheckpointTask"]

log = logging.getLogger(__name__)


def group_partitions(elements: Sequence[str], groups: int) -> list[list[str]]:
    """Kafka's ``ConnectorUtils.groupPartitions``: contiguous runs, the first ones one longer."""
    per_group, leftover = divmod(len(elements), groups)
    out: list[list[str]] = []
    start = 0
    for index in range(groups):
        size = per_group + (1 if index < leftover else 0)
        out.append(list(elements[start : start + size]))
        start += size
    return out


class CheckpointStore:
    """The last checkpoint per group and partition: read once from the checkpoints topic at
    start, then kept up to date in memory as the task emits new ones."""

    def __init__(
        self, checkpoints: dict[str, dict[TopicPartition, Checkpoint]] | None = None
    ) -> None:
        self.checkpoints: dict[str, dict[TopicPartition, Checkpoint]] = (
            checkpoints if checkpoints is not None else {}
        )
        self.initialized = checkpoints is not None

    def load(self, log_reader: TopicLog | None, groups: set[str]) -> bool:
        """Read the checkpoints topic; False (and an empty store) if that failed."""
        loaded: dict[str, dict[TopicPartition, Checkpoint]] = {}

        def handle(key: bytes | None, value: bytes | None) -> None:
            checkpoint = Checkpoint.deserialize(key, value)
            if checkpoint.consumer_group_id in groups:
                loaded.setdefault(checkpoint.consumer_group_id, {})[checkpoint.topic_partition] = (
                    checkpoint
                )

        ok = True
        if log_reader is not None:
            try:
                log_reader.read_to_end(handle)
            except Exception as exc:
                ok = False
                loaded.clear()
                log.info(
                    "Exception encountered loading checkpoints topic %s - this may degrade offset "
                    "translation as only checkpoints for offsets which were mirrored after the "
                    "task started will be emitted: %s",
                    log_reader.topic,
                    exc,
                )
            finally:
                log_reader.close()
        self.checkpoints = loaded
        self.initialized = True
        return ok

    def update(self, group: str, new: Mapping[TopicPartition, Checkpoint]) -> None:
        self.checkpoints.setdefault(group, {}).update(new)

    def get(self, group: str) -> Mapping[TopicPartition, Checkpoint] | None:
        return self.checkpoints.get(group)

    def converted_upstream_offsets(self) -> dict[str, dict[TopicPartition, tuple[int, str]]]:
        return {
            group: {tp: (c.downstream_offset, c.metadata) for tp, c in by_partition.items()}
            for group, by_partition in self.checkpoints.items()
        }


class MirrorCheckpointConnector(SourceConnector):
    """Finds the consumer groups to checkpoint and gives each task a share of them."""

    def __init__(self) -> None:
        self._config: MirrorConfig | None = None
        self._scheduler: Scheduler | None = None
        self.topic_filter: TopicFilter | None = None
        self.group_filter: GroupFilter | None = None
        self.source_admin: ClusterAdmin | None = None
        self.target_admin: ClusterAdmin | None = None
        self.known_consumer_groups: set[str] | None = None

    def config(self) -> ConfigDef:
        return CHECKPOINT_CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = super().validate(props)
        if props.get("enabled", "true") == "false":
            return values
        problems = {}
        if props.get("emit.checkpoints.enabled") == "false":
            problems["emit.checkpoints.enabled"] = (
                "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"
            )
        if props.get("emit.offset-syncs.enabled") == "false":
            problems["emit.offset-syncs.enabled"] = (
                "MirrorCheckpointConnector can't run without offset syncs"
            )
        for name, message in problems.items():
            for value in values:
                if value.name == name:
                    value.add_error_message(message)
                    break
            else:
                added = ConfigValue(name)
                added.add_error_message(message)
                values.append(added)
        return values

    def start(self, props: Mapping[str, str]) -> None:
        config = self._config = MirrorConfig(CHECKPOINT_CONFIG_DEF, props)
        if not config.enabled:
            return
        self.topic_filter = topic_filter(config.originals)
        self.group_filter = group_filter(config.originals)
        timeout = config.admin_timeout_s
        self.source_admin = KafkaAdmin(
            config.source_admin_config("checkpoint-source-admin"), "source admin", timeout_s=timeout
        )
        self.target_admin = KafkaAdmin(
            config.target_admin_config("checkpoint-target-admin"), "target admin", timeout_s=timeout
        )
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorCheckpointConnector: {config.entity_label()}"
        )
        scheduler.execute(self._create_internal_topics, "creating internal topics")
        scheduler.execute(self._load_initial_consumer_groups, "loading initial consumer groups")
        scheduler.schedule_repeating_delayed(
            self.refresh_consumer_groups,
            config.interval_s("refresh.groups"),
            "refreshing consumer groups",
        )

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.close()
            self._scheduler = None
        for admin in (self.source_admin, self.target_admin):
            if admin is not None:
                admin.close()

    def task_class(self) -> type[MirrorCheckpointTask]:
        return MirrorCheckpointTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        config = self._config
        if config is None or not config.enabled:
            return []
        if self.known_consumer_groups is None:
            # The first listing has not finished: let the worker ask again later.
            raise RetriableError("Timeout while loading consumer groups.")
        if not self.known_consumer_groups or config.interval_s("emit.checkpoints") < 0:
            return []
        groups = sorted(self.known_consumer_groups)
        count = min(max_tasks, len(groups))
        return [
            task_config(config.originals, {TASK_CONSUMER_GROUPS: ",".join(chunk)}, index)
            for index, chunk in enumerate(group_partitions(groups, count))
        ]

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        return check_offsets(offsets, ("group", "topic"), with_partition=True, only_zero=True)

    def _create_internal_topics(self) -> None:
        assert self._config is not None and self.target_admin is not None
        self.target_admin.create_compacted_topic(
            self._config.checkpoints_topic(),
            1,
            int(self._config["checkpoints.topic.replication.factor"]),
        )

    def _load_initial_consumer_groups(self) -> None:
        self.known_consumer_groups = self.find_consumer_groups()
        log.info("Started with %d consumer groups.", len(self.known_consumer_groups))

    def find_consumer_groups(self) -> set[str]:
        """Groups the group filter accepts that have offsets for a topic the topic filter accepts."""
        assert self.source_admin is not None and self.group_filter is not None
        assert self.topic_filter is not None
        found = set()
        for group in self.source_admin.consumer_groups():
            if not self.group_filter.should_replicate_group(group):
                continue
            offsets = self.source_admin.group_offsets(group)
            if any(self.topic_filter.should_replicate_topic(tp.topic) for tp in offsets):
                found.add(group)
        return found

    def refresh_consumer_groups(self) -> None:
        known = self.known_consumer_groups or set()
        groups = self.find_consumer_groups()
        if groups != known:
            log.info(
                "Found %d consumer groups. %d are new. %d were removed. Previously had %d.",
                len(groups),
                len(groups - known),
                len(known - groups),
                len(known),
            )
            self.known_consumer_groups = groups
            self.context.request_task_reconfiguration()


class MirrorCheckpointTask(SourceTask):
    """Emits checkpoints for its consumer groups and, if asked, syncs their offsets."""

    kafka_class_name = "org.apache.kafka.connect.mirror.MirrorCheckpointTask"

    def __init__(self) -> None:
        self.source_alias = ""
        self.target_alias = ""
        self.checkpoints_topic = ""
        self.consumer_groups: list[str] = []
        self.policy: ReplicationPolicy | None = None
        self.topic_filter: TopicFilter | None = None
        self.offset_sync_store = OffsetSyncStore()
        self.checkpoint_store = CheckpointStore()
        self.source_admin: ClusterAdmin | None = None
        self.target_admin: ClusterAdmin | None = None
        self.idle_consumer_group_offsets: dict[str, dict[TopicPartition, tuple[int, str]]] = {}
        self._interval_s = 60.0
        self._stopped = threading.Event()
        self.metrics: MirrorCheckpointMetrics | None = None
        self._scheduler: Scheduler | None = None
        self._syncs_log: TopicLog | None = None
        self._syncs_thread: threading.Thread | None = None

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorConfig(CHECKPOINT_CONFIG_DEF, props)
        self.source_alias = config.source_cluster_alias
        self.target_alias = config.target_cluster_alias
        self.consumer_groups = [
            g.strip() for g in props.get(TASK_CONSUMER_GROUPS, "").split(",") if g.strip()
        ]
        self.checkpoints_topic = config.checkpoints_topic()
        self.policy = config.replication_policy
        self.metrics = MirrorCheckpointMetrics(
            task_plugin_metrics(self.context), self.source_alias, self.target_alias
        )
        self.topic_filter = topic_filter(config.originals)
        self._interval_s = config.interval_s("emit.checkpoints")
        timeout = config.admin_timeout_s
        self.source_admin = KafkaAdmin(
            config.source_admin_config("checkpoint-source-admin"), "source admin", timeout_s=timeout
        )
        self.target_admin = KafkaAdmin(
            config.target_admin_config("checkpoint-target-admin"), "target admin", timeout_s=timeout
        )
        checkpoints_log = TopicLog(
            self.checkpoints_topic,
            config.target_consumer_config("checkpoints-target-consumer"),
            "checkpoints consumer",
        )
        self._syncs_log = TopicLog(
            config.offset_syncs_topic(),
            config.offset_syncs_consumer_config(),
            "offset-syncs consumer",
        )
        sync_interval = config.interval_s("sync.group.offsets")
        scheduler = self._scheduler = Scheduler(
            f"Scheduler for MirrorCheckpointTask: {config.entity_label()}"
        )

        def load_stores() -> None:
            # Slow (two topics read to their end), so off the task thread: a task that has
            # not finished starting cannot be stopped.
            loaded = self.checkpoint_store.load(checkpoints_log, set(self.consumer_groups))
            self.offset_sync_store.start(not loaded)
            self._follow_offset_syncs()
            scheduler.schedule_repeating(
                self.refresh_idle_consumer_group_offsets,
                sync_interval,
                "refreshing idle consumers group offsets at target cluster",
            )
            scheduler.schedule_repeating_delayed(
                self._sync_group_offsets_job,
                sync_interval,
                "sync idle consumer group offset from source to target",
            )

        scheduler.execute_async(load_stores, "starting checkpoint and offset sync stores")
        log.info(
            "%s checkpointing %d consumer groups %s->%s: %s.",
            config.entity_label(),
            len(self.consumer_groups),
            self.source_alias,
            self.target_alias,
            self.consumer_groups,
        )

    def _follow_offset_syncs(self) -> None:
        syncs = self._syncs_log
        assert syncs is not None
        while not self._stopped.is_set():
            try:
                if syncs.read_to_end(self.offset_sync_store.handle_record, stop=self._stopped):
                    break
            except Exception as exc:
                log.warning("Reading %s failed, retrying: %s", syncs.topic, exc)
            # The source connector may not have created the topic yet.
            self._stopped.wait(1.0)
        self.offset_sync_store.mark_read_to_end()

        def follow() -> None:
            while not self._stopped.is_set():
                try:
                    syncs.poll_once(self.offset_sync_store.handle_record, 0.5)
                except Exception as exc:
                    log.warning("Reading %s failed, retrying: %s", syncs.topic, exc)
                    self._stopped.wait(1.0)

        self._syncs_thread = threading.Thread(
            target=follow, name=f"{syncs.topic}-reader", daemon=True
        )
        self._syncs_thread.start()

    def poll(self) -> list[SourceRecord] | None:
        if self._stopped.wait(max(self._interval_s, 0.0)) or not self.checkpoint_store.initialized:
            return None
        try:
            records: list[SourceRecord] = []
            for group in self.consumer_groups:
                records.extend(self.source_records_for_group(group))
            return records or None
        except Exception as exc:
            log.warning("Failure polling consumer state for checkpoints: %s", exc)
            return None

    def source_records_for_group(self, group: str) -> list[SourceRecord]:
        assert self.source_admin is not None
        timestamp = int(time.time() * 1000)
        try:
            upstream = self.source_admin.group_offsets(group)
        except Exception as exc:
            log.error(
                "Error querying offsets for consumer group %s on cluster %s: %s",
                group,
                self.source_alias,
                exc,
            )
            return []
        checkpoints = self.checkpoints_for_group(upstream, group)
        self.checkpoint_store.update(group, checkpoints)
        return [self.checkpoint_record(c, timestamp) for c in checkpoints.values()]

    def checkpoints_for_group(
        self, upstream: Mapping[TopicPartition, tuple[int, str] | None], group: str
    ) -> dict[TopicPartition, Checkpoint]:
        assert self.topic_filter is not None
        out: dict[TopicPartition, Checkpoint] = {}
        for tp, committed in upstream.items():
            if not self.topic_filter.should_replicate_topic(tp.topic):
                continue
            checkpoint = self.checkpoint(group, tp, committed)
            # No sync yet, or too old to translate without risking a skipped record.
            if checkpoint is None or checkpoint.downstream_offset < 0:
                continue
            if self._is_more_recent(checkpoint):
                out[checkpoint.topic_partition] = checkpoint
        return out

    def _is_more_recent(self, checkpoint: Checkpoint) -> bool:
        previous_by_partition = self.checkpoint_store.get(checkpoint.consumer_group_id)
        if previous_by_partition is None:
            return True
        previous = previous_by_partition.get(checkpoint.topic_partition)
        if previous is None:
            return True
        # A rewound upstream group may move its checkpoint back; otherwise checkpoints only
        # move forward, so a failed-over consumer never goes back over what it processed.
        if checkpoint.upstream_offset < previous.upstream_offset:
            return True
        return checkpoint.downstream_offset > previous.downstream_offset

    def checkpoint(
        self, group: str, tp: TopicPartition, committed: tuple[int, str] | None
    ) -> Checkpoint | None:
        if committed is None:
            return None
        upstream_offset, metadata = committed
        downstream = self.offset_sync_store.translate_downstream(group, tp, upstream_offset)
        if downstream is None:
            return None
        return Checkpoint(
            group, self.rename_topic_partition(tp), upstream_offset, downstream, metadata
        )

    def rename_topic_partition(self, tp: TopicPartition) -> TopicPartition:
        assert self.policy is not None
        if self.policy.topic_source(tp.topic) == self.target_alias:
            # It came from the target: back home it has its original name (us.orders -> orders).
            return TopicPartition(self.policy.original_topic(tp.topic), tp.partition)
        return TopicPartition(
            self.policy.format_remote_topic(self.source_alias, tp.topic), tp.partition
        )

    def checkpoint_record(self, checkpoint: Checkpoint, timestamp: int) -> SourceRecord:
        return SourceRecord(
            source_partition=checkpoint.connect_partition(),
            source_offset={"offset": 0},
            topic=self.checkpoints_topic,
            kafka_partition=0,
            key_schema=Schema.BYTES,
            key=checkpoint.record_key(),
            value_schema=Schema.BYTES,
            value=checkpoint.record_value(),
            timestamp=timestamp,
        )

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """A checkpoint the target acknowledged: its latency, per group and partition."""
        if self.metrics is None or record.timestamp is None or record.source_partition is None:
            return
        partition = record.source_partition
        self.metrics.checkpoint_latency(
            str(partition["group"]),
            str(partition["topic"]),
            int(partition["partition"]),
            now_ms() - record.timestamp,
        )

    def refresh_idle_consumer_group_offsets(self) -> None:
        assert self.target_admin is not None
        for group in self.target_admin.empty_groups(self.consumer_groups):
            self.idle_consumer_group_offsets[group] = self.target_admin.group_offsets(group)

    def sync_group_offsets(self) -> dict[str, dict[TopicPartition, tuple[int, str]]]:
        """Commit translated offsets on the target for groups without active members there.

        A group absent from the target is new there and gets every translated offset; an
        idle one only those ahead of what it already committed on the target.
        """
        synced: dict[str, dict[TopicPartition, tuple[int, str]]] = {}
        for group, converted in self.checkpoint_store.converted_upstream_offsets().items():
            target = self.idle_consumer_group_offsets.get(group)
            if target is None:
                # Kafka syncs such a group at once: a group still active on the target is
                # refused by the broker (unknown member), which is logged.
                self._alter(group, converted)
                synced[group] = converted
                continue
            to_sync = {
                tp: offset
                for tp, offset in converted.items()
                if tp not in target or target[tp][0] < offset[0]
            }
            if to_sync:
                self._alter(group, to_sync)
                synced[group] = to_sync
        self.idle_consumer_group_offsets.clear()
        return synced

    def _sync_group_offsets_job(self) -> None:
        self.sync_group_offsets()

    def _alter(self, group: str, offsets: Mapping[TopicPartition, tuple[int, str]]) -> None:
        if self.target_admin is not None and offsets:
            self.target_admin.alter_group_offsets(group, offsets)

    def stop(self) -> None:
        self._stopped.set()
        if self._scheduler is not None:
            self._scheduler.close()
        if self._syncs_thread is not None:
            self._syncs_thread.join(5.0)
        if self._syncs_log is not None:
            self._syncs_log.close()
        for admin in (self.source_admin, self.target_admin):
            if admin is not None:
                admin.close()
