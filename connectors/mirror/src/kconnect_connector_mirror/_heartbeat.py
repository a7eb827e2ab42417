"""MirrorHeartbeatConnector: a heartbeat every ``emit.heartbeats.interval.seconds``.

Heartbeats go to the compacted, single-partition ``heartbeats`` topic of the cluster the
worker writes to (usually the *source* of a flow, so that the source connector mirrors
them and their arrival on the target shows the flow is alive and how far behind it is).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import ConfigDef, Schema, SourceConnector, SourceRecord, SourceTask

from ._config import HEARTBEAT_CONFIG_DEF, MirrorConfig
from ._formats import Heartbeat
from ._kafka import KafkaAdmin
from ._partitions import check_offsets

__all__ = ["MirrorHeartbeatConnector", "MirrorHeartbeatTask"]


class MirrorHeartbeatConnector(SourceConnector):
    """Creates the heartbeats topic and runs one task that emits the heartbeats."""

    def __init__(self) -> None:
        self._config: MirrorConfig | None = None

    def config(self) -> ConfigDef:
        return HEARTBEAT_CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        config = self._config = MirrorConfig(HEARTBEAT_CONFIG_DEF, props)
        admin = KafkaAdmin(
            config.target_admin_config("heartbeats-target-admin"),
            "target admin",
            timeout_s=config.admin_timeout_s,
        )
        try:
            admin.create_compacted_topic(
                config.replication_policy.heartbeats_topic(),
                1,
                int(config["heartbeats.topic.replication.factor"]),
            )
        finally:
            admin.close()

    def stop(self) -> None:
        """Nothing runs in the background."""

    def task_class(self) -> type[MirrorHeartbeatTask]:
        return MirrorHeartbeatTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if self._config is None or self._config.interval_s("emit.heartbeats") < 0:
            return []
        return [dict(self._config.originals)]

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        return check_offsets(
            offsets,
            ("sourceClusterAlias", "targetClusterAlias"),
            with_partition=False,
            only_zero=True,
        )


class MirrorHeartbeatTask(SourceTask):
    """Emits ``Heartbeat(source, target, now)`` once per interval."""

    kafka_class_name = "org.apache.kafka.connect.mirror.MirrorHeartbeatTask"

    def __init__(self) -> None:
        self._stopped = threading.Event()
        self._interval_s = 1.0
        self.source_alias = ""
        self.target_alias = ""
        self.topic = "heartbeats"

    def start(self, props: Mapping[str, str]) -> None:
        config = MirrorConfig(HEARTBEAT_CONFIG_DEF, props)
        self.source_alias = config.source_cluster_alias
        self.target_alias = config.target_cluster_alias
        self.topic = config.replication_policy.heartbeats_topic()
        self._interval_s = config.interval_s("emit.heartbeats")

    def poll(self) -> list[SourceRecord] | None:
        if self._stopped.wait(max(self._interval_s, 0.0)):
            return None
        timestamp = int(time.time() * 1000)
        heartbeat = Heartbeat(self.source_alias, self.target_alias, timestamp)
        return [
            SourceRecord(
                source_partition=heartbeat.connect_partition(),
                source_offset={"offset": 0},
                topic=self.topic,
                kafka_partition=0,
                key_schema=Schema.BYTES,
                key=heartbeat.record_key(),
                value_schema=Schema.BYTES,
                value=heartbeat.record_value(),
                timestamp=timestamp,
            )
        ]

    def stop(self) -> None:
        self._stopped.set()
