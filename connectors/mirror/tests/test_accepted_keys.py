"""The book's chapter 6 MirrorMaker configs on a worker: no "unknown connector key" warning for
Kafka's MirrorMaker key families (``source.cluster.*``, ``target.producer.*`` ...), while a
misspelt key still gets one. Validated as the worker validates a connector it creates, and
as the operator commands (``kconnect validate``, ``kconnect apply``) check a config file."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.cli import main
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.worker import validate_connector
from runtime_harness import worker_props

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


def _unknown_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "unknown" in line and "key" in line]


@pytest.mark.integration
def test_the_operator_commands_take_the_mirror_key_families(
    kc_kafka: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {
        **SOURCE,
        "source.cluster.bootstrap.servers": kc_kafka,
        "target.cluster.bootstrap.servers": kc_kafka,
        "replication.factr": "-1",
    }
    path = tmp_path / "east-to-west-source.json"
    path.write_text(json.dumps(config))
    misspelt = "replication.factr: unknown key (did you mean 'replication.factor'?); it is ignored"

    # Offline, from the plugins installed here.
    assert main(["validate", "-f", str(path), "--offline"]) == 0
    assert _unknown_lines(capsys.readouterr().out) == [
        "east-to-west-source (org.apache.kafka.connect.mirror.MirrorSourceConnector): "
        "0 error(s), 1 unknown key(s)",
        f"WARN  {misspelt}",
    ]

    # Against a worker: the prefixes come from the worker's plugin.
    app = Standalone(worker_props(tmp_path, kc_kafka, listeners="http://127.0.0.1:0"))
    app.start()
    try:
        assert app.rest is not None
        url = app.rest.url
        assert main(["validate", "-f", str(path), "--url", url]) == 0
        assert _unknown_lines(capsys.readouterr().out)[1:] == [f"WARN  {misspelt}"]
        assert main(["apply", "-f", str(path), "--url", url, "--dry-run"]) == 0
        assert _unknown_lines(capsys.readouterr().err) == [
            "kconnect: warning: east-to-west-source: unknown connector key 'replication.factr' "
            "(did you mean 'replication.factor'?); it is ignored"
        ]
    finally:
        app.stop()
