"""The book's chapter 6 MirrorMaker configs on a worker: no "unknown connector key" warning for
Kafka's MirrorMaker key families (``source.cluster.*``, ``target.producer.*`` ...), while a
misspelt key still gets one. Validated as the worker validates a connector it creates."""

from __future__ import annotations

import logging

import pytest
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.worker import validate_connector

BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
IDENTITY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"

# east-to-west-source.json of the book's disaster recovery example, with the client
# overrides of its "Client overrides" section and a security setting per cluster.
SOURCE = {
    "name": "east-to-west-source",
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "tasks.max": "10",
    "key.converter": BYTES,
    "value.converter": BYTES,
    "source.cluster.alias": "east-kafka",
    "target.cluster.alias": "west-kafka",
    "source.cluster.bootstrap.servers": "east-kafka0:9092",
    "target.cluster.bootstrap.servers": "west-kafka0:9092",
    "source.cluster.security.protocol": "PLAINTEXT",
    "target.cluster.client.dns.lookup": "use_all_dns_ips",
    "replication.factor": "-1",
    "offset-syncs.topic.replication.factor": "-1",
    "refresh.topics.interval.seconds": "10",
    "sync.topic.configs.interval.seconds": "10",
    "sync.topic.acls.enabled": "false",
    "replication.policy.class": IDENTITY,
    "topics": ".*",
    "producer.linger.ms": "5",
    "source.consumer.auto.offset.reset": "latest",
    "target.producer.compression.type": "lz4",
    "target.admin.request.timeout.ms": "30000",
}
CHECKPOINT = {
    "name": "east-to-west-checkpoint",
    "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "tasks.max": "10",
    "key.converter": BYTES,
    "value.converter": BYTES,
    "source.cluster.alias": "east-kafka",
    "target.cluster.alias": "west-kafka",
    "source.cluster.bootstrap.servers": "east-kafka0:9092",
    "target.cluster.bootstrap.servers": "west-kafka0:9092",
    "checkpoints.topic.replication.factor": "-1",
    "refresh.groups.interval.seconds": "10",
    "groups": ".*",
    "sync.group.offsets.enabled": "true",
    "replication.policy.class": IDENTITY,
}
WORKER = {"bootstrap.servers": "west-kafka0:9092", "key.converter": BYTES, "value.converter": BYTES}


def _warnings(caplog: pytest.LogCaptureFixture, config: dict[str, str]) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kconnect.config"):
        validate_connector(PluginRegistry.discover(), WORKER, config, strict=True)
    return [r.getMessage() for r in caplog.records if "unknown connector key" in r.getMessage()]


@pytest.mark.parametrize("config", [SOURCE, CHECKPOINT], ids=["source", "checkpoint"])
def test_the_books_configs_warn_of_no_unknown_key(
    caplog: pytest.LogCaptureFixture, config: dict[str, str]
) -> None:
    assert _warnings(caplog, config) == []


def test_a_misspelt_key_still_warns(caplog: pytest.LogCaptureFixture) -> None:
    config = {**SOURCE, "replication.factr": "-1", "source.cluster.alais": "east"}
    assert _warnings(caplog, config) == [
        "connector east-to-west-source: unknown connector key 'replication.factr' (did you "
        "mean 'replication.factor'?); it is ignored",
        "connector east-to-west-source: unknown connector key 'source.cluster.alais' (did you "
        "mean 'source.cluster.alias'?); it is ignored",
    ]
