"""MirrorMaker 2 for kconnect: Apache Kafka's ``connect-mirror`` connectors, wire-compatible.

``MirrorSourceConnector`` copies topics (records, partitions, configs) from a source
cluster to a target cluster and writes offset syncs; ``MirrorCheckpointConnector``
translates consumer group offsets into checkpoints (and, if asked, commits them on the
target); ``MirrorHeartbeatConnector`` emits heartbeats. Their records, topic names and
Connect offsets are byte for byte those of Kafka's, so kconnect and Java MirrorMaker can
replace each other on a running flow.

Example:
    A source connector as in *Kafka Connect* (chapter 6), run by ``kconnect standalone``::

        name=east-to-west-source
        connector.class=org.apache.kafka.connect.mirror.MirrorSourceConnector
        tasks.max=10
        key.converter=org.apache.kafka.connect.converters.ByteArrayConverter
        value.converter=org.apache.kafka.connect.converters.ByteArrayConverter
        header.converter=org.apache.kafka.connect.converters.ByteArrayConverter
        source.cluster.alias=east-kafka
        target.cluster.alias=west-kafka
        source.cluster.bootstrap.servers=east-kafka0:9092
        target.cluster.bootstrap.servers=west-kafka0:9092
        replication.factor=-1
        offset-syncs.topic.replication.factor=-1
        refresh.topics.interval.seconds=10
        sync.topic.configs.interval.seconds=10
        sync.topic.acls.enabled=false
        topics=.*

    Or Kafka's dedicated mode, ``kconnect mirror-maker mm2.properties``, from a
    ``connect-mirror-maker.properties`` (read by :func:`mirror_maker_flows`)::

        clusters = eu, us
        eu.bootstrap.servers = eu-kafka0:9092
        us.bootstrap.servers = us-kafka0:9092
        eu->us.enabled = true
        eu->us.topics = .*
"""

from __future__ import annotations

from ._checkpoint import MirrorCheckpointConnector, MirrorCheckpointTask
from ._client import MirrorClient
from ._filters import (
    ConfigPropertyFilter,
    DefaultConfigPropertyFilter,
    DefaultGroupFilter,
    DefaultTopicFilter,
    GroupFilter,
    TopicFilter,
)
from ._formats import Checkpoint, Heartbeat, OffsetSync, SchemaError
from ._heartbeat import MirrorHeartbeatConnector, MirrorHeartbeatTask
from ._mm2_properties import MirrorFlow, mirror_maker_flows
from ._offset_syncs import OffsetSyncStore, OffsetSyncWriter
from ._policy import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
    replication_policy,
)
from ._source import MirrorSourceConnector, MirrorSourceTask

__all__ = [
    "Checkpoint",
    "ConfigPropertyFilter",
    "DefaultConfigPropertyFilter",
    "DefaultGroupFilter",
    "DefaultReplicationPolicy",
    "DefaultTopicFilter",
    "GroupFilter",
    "Heartbeat",
    "IdentityReplicationPolicy",
    "MirrorCheckpointConnector",
    "MirrorCheckpointTask",
    "MirrorClient",
    "MirrorFlow",
    "MirrorHeartbeatConnector",
    "MirrorHeartbeatTask",
    "MirrorSourceConnector",
    "MirrorSourceTask",
    "OffsetSync",
    "OffsetSyncStore",
    "OffsetSyncWriter",
    "ReplicationPolicy",
    "SchemaError",
    "TopicFilter",
    "mirror_maker_flows",
    "replication_policy",
]
