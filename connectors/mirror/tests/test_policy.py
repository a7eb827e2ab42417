"""Replication policies and MirrorClient: Kafka's ReplicationPolicyTest and MirrorClientTest."""

from __future__ import annotations

import pytest
from kconnect_connector_mirror import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    MirrorClient,
    ReplicationPolicy,
    replication_policy,
)
from kconnect_sdk import ConfigError


def _identity(source: str) -> IdentityReplicationPolicy:
    policy = IdentityReplicationPolicy()
    policy.configure({"source.cluster.alias": source})
    return policy


def _client(topics: list[str], policy: ReplicationPolicy | None = None) -> MirrorClient:
    return MirrorClient(
        {}, policy=policy or DefaultReplicationPolicy(), list_topics=lambda: set(topics)
    )


def test_internal_topic() -> None:
    policy = DefaultReplicationPolicy()
    assert policy.is_internal_topic("__consumer_offsets")
    assert policy.is_internal_topic(".hiddentopic")
    assert policy.is_internal_topic("mm2-offsets.CLUSTER.internal")
    assert policy.is_internal_topic("mm2-offsets-CLUSTER-internal")
    assert not policy.is_internal_topic("mm2-offsets_CLUSTER_internal")


def test_internal_topic_names_follow_the_separator_switch() -> None:
    policy = DefaultReplicationPolicy()
    policy.configure(
        {
            "replication.policy.separator": "__",
            "replication.policy.internal.topic.separator.enabled": False,
        }
    )
    assert policy.offset_syncs_topic("CLUSTER") == "mm2-offset-syncs.CLUSTER.internal"
    assert policy.checkpoints_topic("CLUSTER") == "CLUSTER.checkpoints.internal"
    policy.configure(
        {
            "replication.policy.separator": "__",
            "replication.policy.internal.topic.separator.enabled": "true",
        }
    )
    assert policy.offset_syncs_topic("CLUSTER") == "mm2-offset-syncs__CLUSTER__internal"
    assert policy.checkpoints_topic("CLUSTER") == "CLUSTER__checkpoints__internal"
    assert policy.heartbeats_topic() == "heartbeats"


def test_remote_topic_names() -> None:
    policy = DefaultReplicationPolicy()
    assert policy.format_remote_topic("us", "orders") == "us.orders"
    assert policy.topic_source("us.eu.orders") == "us"
    assert policy.upstream_topic("us.eu.orders") == "eu.orders"
    assert policy.original_topic("us.eu.orders") == "orders"
    # Java's String.split drops trailing empty parts: "us." is no remote topic.
    assert policy.topic_source("us.") is None
    assert policy.topic_source("orders") is None


def test_is_heartbeat_topic() -> None:
    client = _client([])
    policy = client.replication_policy
    for topic in ("heartbeats", "source1.heartbeats", "source2.source1.heartbeats"):
        assert policy.is_heartbeats_topic(topic)
    for topic in ("heartbeats!", "!heartbeats", "source1heartbeats", "source1-heartbeats"):
        assert not policy.is_heartbeats_topic(topic)


def test_is_checkpoint_topic() -> None:
    policy = DefaultReplicationPolicy()
    assert policy.is_checkpoints_topic("source1.checkpoints.internal")
    for topic in (
        "checkpoints.internal",
        "checkpoints-internal",
        "checkpoints.internal!",
        "!checkpoints.internal",
        "source1checkpointsinternal",
    ):
        assert not policy.is_checkpoints_topic(topic)


def test_count_hops_for_topic() -> None:
    client = _client([])
    assert client.count_hops_for_topic("topic", "source") == -1
    assert client.count_hops_for_topic("source", "source") == -1
    assert client.count_hops_for_topic("sourcetopic", "source") == -1
    assert client.count_hops_for_topic("source1.topic", "source2") == -1
    assert client.count_hops_for_topic("source1.topic", "source1") == 1
    assert client.count_hops_for_topic("source2.source1.topic", "source2") == 1
    assert client.count_hops_for_topic("source2.source1.topic", "source1") == 2
    assert client.count_hops_for_topic("source3.source2.source1.topic", "source1") == 3
    assert client.count_hops_for_topic("source3.source2.source1.topic", "source4") == -1


def test_heartbeat_and_checkpoint_topics() -> None:
    client = _client(
        [
            "topic1",
            "topic2",
            "heartbeats",
            "source1.heartbeats",
            "source2.source1.heartbeats",
            "source3.heartbeats",
            "checkpoints.internal",
            "source1.checkpoints.internal",
            "source2.source1.checkpoints.internal",
        ]
    )
    assert client.heartbeat_topics() == {
        "heartbeats",
        "source1.heartbeats",
        "source2.source1.heartbeats",
        "source3.heartbeats",
    }
    assert client.checkpoint_topics() == {
        "source1.checkpoints.internal",
        "source2.source1.checkpoints.internal",
    }


def test_replication_hops() -> None:
    client = _client(
        [
            "topic1",
            "topic2",
            "heartbeats",
            "source1.heartbeats",
            "source1.source2.heartbeats",
            "source3.heartbeats",
        ]
    )
    assert client.replication_hops("source1") == 1
    assert client.replication_hops("source2") == 2
    assert client.replication_hops("source3") == 1
    assert client.replication_hops("source4") == -1


@pytest.mark.parametrize("identity", [False, True])
def test_upstream_clusters(identity: bool) -> None:
    # The identity policy treats heartbeats as the default one does.
    client = _client(
        [
            "topic1",
            "topic2",
            "heartbeats",
            "source1.heartbeats",
            "source1.source2.heartbeats",
            "source3.source4.source5.heartbeats",
        ],
        _identity("source") if identity else None,
    )
    assert client.upstream_clusters() == {"source1", "source2", "source3", "source4", "source5"}


def test_remote_topics() -> None:
    client = _client(
        [
            "topic1",
            "topic2",
            "topic3",
            "source1.topic4",
            "source1.source2.topic5",
            "source3.source4.source5.topic6",
        ]
    )
    assert client.remote_topics() == {
        "source1.topic4",
        "source1.source2.topic5",
        "source3.source4.source5.topic6",
    }
    assert client.remote_topics("source1") == {"source1.topic4", "source1.source2.topic5"}


def test_identity_policy_remote_topics_and_sources() -> None:
    client = _client(
        ["topic1", "topic2", "topic3", "heartbeats", "backup.heartbeats"], _identity("source")
    )
    assert client.remote_topics() == {"topic1", "topic2", "topic3", "backup.heartbeats"}
    policy = _identity("primary")
    assert policy.format_remote_topic("primary", "topic1") == "topic1"
    assert policy.topic_source("topic1") == "primary"
    assert policy.format_remote_topic("backup", "heartbeats") == "backup.heartbeats"
    assert policy.topic_source("backup.heartbeats") == "backup"


def test_remote_topics_with_a_custom_separator() -> None:
    policy = DefaultReplicationPolicy()
    policy.configure({"replication.policy.separator": "__"})
    client = _client(
        [
            "topic1",
            "topic2",
            "topic3",
            "source1__topic4",
            "source1__source2__topic5",
            "source3__source4__source5__topic6",
        ],
        policy,
    )
    assert client.remote_topics() == {
        "source1__topic4",
        "source1__source2__topic5",
        "source3__source4__source5__topic6",
    }


class PrefixPolicy(ReplicationPolicy):
    """A user's policy: remote topics are ``<source>-<topic>``."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}-{topic}"

    def topic_source(self, topic: str) -> str | None:
        return topic.split("-", 1)[0] if "-" in topic else None

    def upstream_topic(self, topic: str) -> str | None:
        return topic.split("-", 1)[1] if "-" in topic else None


def test_policies_load_by_java_name_entry_point_or_module_path() -> None:
    identity = replication_policy(
        {
            "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
            "source.cluster.alias": "east",
        }
    )
    assert isinstance(identity, IdentityReplicationPolicy)
    assert identity.topic_source("orders") == "east"
    default = replication_policy({"replication.policy.separator": "_"})
    assert default.format_remote_topic("a", "b") == "a_b"
    custom = replication_policy({"replication.policy.class": f"{__name__}:PrefixPolicy"})
    assert custom.format_remote_topic("a", "b") == "a-b"
    with pytest.raises(ConfigError, match=r"'replication.policy.class'.*NoSuchPolicy"):
        replication_policy({"replication.policy.class": "com.example.NoSuchPolicy"})
