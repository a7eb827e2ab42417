"""connect-mirror-maker.properties into per-flow configs: Kafka's MirrorMakerConfigTest cases."""

from __future__ import annotations

import pytest
from kconnect_connector_mirror import mirror_maker_flows
from kconnect_sdk import ConfigError, parse_properties

BOOK = """
clusters = eu, us
eu.bootstrap.servers = eu-kafka0:9092, eu-kafka1:9092, eu-kafka2:9092
us.bootstrap.servers = us-kafka0:9092, us-kafka1:9092, us-kafka2:9092
eu->us.enabled = true
eu->us.topics = .*
us->eu.enabled = true
us->eu.topics = inventory
"""


def test_the_books_two_flows() -> None:
    flows = {str(f): f for f in mirror_maker_flows(parse_properties(BOOK))}
    assert set(flows) == {"eu->us", "us->eu"}
    source = flows["eu->us"].connectors["MirrorSourceConnector"]
    assert source["connector.class"] == "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    assert source["name"] == "MirrorSourceConnector"
    assert source["source.cluster.alias"] == "eu"
    assert source["target.cluster.alias"] == "us"
    assert (
        source["source.cluster.bootstrap.servers"]
        == "eu-kafka0:9092, eu-kafka1:9092, eu-kafka2:9092"
    )
    assert (
        source["target.cluster.bootstrap.servers"]
        == "us-kafka0:9092, us-kafka1:9092, us-kafka2:9092"
    )
    assert source["source.consumer.bootstrap.servers"] == source["source.cluster.bootstrap.servers"]
    assert source["target.producer.bootstrap.servers"] == source["target.cluster.bootstrap.servers"]
    assert source["topics"] == ".*"
    assert source["enabled"] == "true"
    assert flows["us->eu"].connectors["MirrorSourceConnector"]["topics"] == "inventory"
    worker = flows["eu->us"].worker_config
    assert worker["bootstrap.servers"] == "us-kafka0:9092, us-kafka1:9092, us-kafka2:9092"
    assert worker["group.id"] == "eu-mm2"
    assert worker["offset.storage.topic"] == "mm2-offsets.eu.internal"
    assert worker["key.converter"] == "org.apache.kafka.connect.converters.ByteArrayConverter"
    assert worker["header.converter"] == "org.apache.kafka.connect.converters.ByteArrayConverter"


def test_cluster_and_flow_prefixes() -> None:
    # MirrorMakerConfigTest.testClusterConfigProperties / testReplicationConfigProperties
    flows = mirror_maker_flows(
        {
            "clusters": "a, b",
            "a.bootstrap.servers": "servers-one",
            "b.bootstrap.servers": "servers-two",
            "security.protocol": "SSL",
            "replication.factor": "4",
            "a.producer.client.id": "a-producer",
            "a->b.enabled": "true",
            "a->b.topics": "topic-1",
            "a->b.producer.client.id": "overridden",
        }
    )
    flow = next(f for f in flows if str(f) == "a->b")
    source = flow.connectors["MirrorSourceConnector"]
    assert source["source.cluster.bootstrap.servers"] == "servers-one"
    assert source["target.cluster.security.protocol"] == "SSL"
    assert source["source.producer.client.id"] == "a-producer"
    assert source["replication.factor"] == "4"
    assert source["topics"] == "topic-1"
    assert source["producer.client.id"] == "overridden"
    # b->a is not enabled, but exists for the heartbeats of a->b.
    other = next(f for f in flows if str(f) == "b->a")
    assert other.connectors["MirrorSourceConnector"]["enabled"] == "false"


def test_heartbeats_off_drops_disabled_pairs() -> None:
    flows = mirror_maker_flows(
        {"clusters": "a, b, c", "a->b.enabled": "true", "emit.heartbeats.enabled": "false"}
    )
    assert [str(f) for f in flows] == ["a->b"]
    flows = mirror_maker_flows(
        {
            "clusters": "a, b",
            "a->b.enabled": "true",
            "emit.heartbeats.enabled": "false",
            "b->a.emit.heartbeats.enabled": "true",
        }
    )
    assert sorted(str(f) for f in flows) == ["a->b", "b->a"]


def test_clusters_option_keeps_flows_into_those_clusters() -> None:
    flows = mirror_maker_flows(parse_properties(BOOK), clusters=["eu"])
    assert [str(f) for f in flows] == ["us->eu"]


def test_clusters_is_required() -> None:
    with pytest.raises(ConfigError, match="'clusters' is required"):
        mirror_maker_flows({"a->b.enabled": "true"})


def test_connect_connector_keys_reach_every_connector_in_kafkas_order() -> None:
    # MirrorMakerConfig.allConfigNames() includes ConnectorConfig's keys (tasks.max, errors.*).
    (flow,) = mirror_maker_flows(
        {
            "clusters": "a, b",
            "a->b.enabled": "true",
            "emit.heartbeats.enabled": "false",
            "tasks.max": "4",
            "errors.tolerance": "all",
            "not.a.connector.key": "x",
        }
    )
    assert list(flow.connectors) == [
        "MirrorSourceConnector",
        "MirrorHeartbeatConnector",
        "MirrorCheckpointConnector",
    ]
    for config in flow.connectors.values():
        assert config["tasks.max"] == "4"
        assert config["errors.tolerance"] == "all"
        assert "not.a.connector.key" not in config
    assert flow.worker_config["tasks.max"] == "4"  # the "task" prefix, as Kafka's workerConfig
