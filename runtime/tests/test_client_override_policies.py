"""Connector client config override policies (``connector.client.config.override.policy``),
with Apache Kafka Connect's messages at ``config/validate``, create and update."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.worker import config_infos
from kconnect_sdk import ConfigError
from runtime_harness import doc_block, file_sink, file_source, worker_props

pytestmark = pytest.mark.integration

# Kafka's AbstractHerder.maybeAddConfigErrors around each message.
_INVALID = "Connector configuration is invalid and contains the following {n} error(s):\n"
_WHERE = (
    "You can also find the above list of errors at the endpoint "
    "`/connector-plugins/{connectorType}/config/validate`"
)


def _named(name: str, kafka_message: str) -> str:
    """Kafka's message as kconnect answers it: the connector's name first (an intended
    difference, compat/rest-intended-differences.toml "invalid-config-message")."""
    return f"connector {name!r}: {kafka_message}"


def _refusal(policy: str, key: str) -> str:
    return f"The '{policy}' policy does not allow '{key}' to be overridden in the connector configuration."


@contextlib.contextmanager
def _api(kafka: str, tmp: Path, **worker: str) -> Iterator[httpx.Client]:
    app = Standalone(worker_props(tmp, kafka, listeners="http://127.0.0.1:0", **worker))
    app.start()
    assert app.rest is not None
    try:
        with httpx.Client(base_url=app.rest.url, timeout=30) as client:
            yield client
    finally:
        app.stop()


def _source(tmp: Path, **overrides: str) -> dict[str, str]:
    name = f"src-{uuid.uuid4().hex[:8]}"
    return file_source(name, tmp / f"{name}.txt", f"{name}-topic", **overrides)


def _validate_entry(body: dict[str, Any], key: str) -> dict[str, Any]:
    found = [c for c in body["configs"] if c["value"] and c["value"]["name"] == key]
    assert len(found) == 1, f"{key} listed {len(found)} times in {body['configs']}"
    entry: dict[str, Any] = found[0]
    return entry


def test_default_policy_all_lets_connectors_override(kafka: str, tmp_path: Path) -> None:
    with _api(kafka, tmp_path) as api:
        config = _source(tmp_path, **{"producer.override.linger.ms": "5"})
        created = api.post("/connectors", json={"name": config["name"], "config": config})
        assert created.status_code == 201, created.text
        checked = api.put("/connector-plugins/FileStreamSource/config/validate", json=config).json()
        entry = _validate_entry(checked, "producer.override.linger.ms")
        assert entry["value"]["errors"] == [] and entry["value"]["value"] == "5"


def test_none_policy_refuses_every_override(kafka: str, tmp_path: Path) -> None:
    with _api(kafka, tmp_path, **{"connector.client.config.override.policy": "None"}) as api:
        config = _source(tmp_path, **{"producer.override.linger.ms": "5"})
        created = api.post("/connectors", json={"name": config["name"], "config": config})
        assert created.status_code == 400
        assert created.json() == {
            "error_code": 400,
            "message": _named(
                config["name"],
                _INVALID.format(n=1) + _refusal("None", "linger.ms") + "\n" + _WHERE,
            ),
        }
        assert api.get("/connectors").json() == []

        checked = api.put("/connector-plugins/FileStreamSource/config/validate", json=config).json()
        assert checked["error_count"] == 1
        entry = _validate_entry(checked, "producer.override.linger.ms")
        assert entry["value"]["errors"] == [_refusal("None", "linger.ms")]

        # Kafka checks only the clients a connector uses: a source's consumer is not one.
        consumer = _source(tmp_path, **{"consumer.override.fetch.min.bytes": "1"})
        ok = api.post("/connectors", json={"name": consumer["name"], "config": consumer})
        assert ok.status_code == 201, ok.text

        # Update: PUT of a config that overrides is refused the same way, the old one kept.
        refused = api.put(
            f"/connectors/{consumer['name']}/config",
            json={**consumer, "producer.override.acks": "1"},
        )
        assert refused.status_code == 400
        assert refused.json()["message"] == _named(
            consumer["name"], _INVALID.format(n=1) + _refusal("None", "acks") + "\n" + _WHERE
        )
        kept = api.get(f"/connectors/{consumer['name']}/config").json()
        assert "producer.override.acks" not in kept


def test_principal_policy_as_the_book_shows(kafka: str, tmp_path: Path) -> None:
    """Chapter 7: a FileStreamSink overriding fetch.min.bytes under ``Principal``."""
    worker = {"connector.client.config.override.policy": "Principal"}
    with _api(kafka, tmp_path, **worker) as api:
        config = {
            "name": "file-sink",
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "topics": "test",
            "file": str(tmp_path / "sink.out"),
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "consumer.override.fetch.min.bytes": "123",
        }
        refused = api.put("/connectors/file-sink/config", json=config)
        assert refused.status_code == 400
        assert refused.json() == {
            "error_code": 400,
            "message": _named(
                "file-sink",
                "Connector configuration is invalid and contains the following 1 error(s):\n"
                "The 'Principal' policy does not allow 'fetch.min.bytes' to be overridden in "
                "the connector configuration.\nYou can also find the above list of errors at "
                "the endpoint `/connector-plugins/{connectorType}/config/validate`",
            ),
        }
        del config["consumer.override.fetch.min.bytes"]
        config["consumer.override.security.protocol"] = "PLAINTEXT"
        accepted = api.put("/connectors/file-sink/config", json=config)
        assert accepted.status_code == 201, accepted.text


def test_allowlist_policy_allows_exactly_its_list(kafka: str, tmp_path: Path) -> None:
    worker = {
        "connector.client.config.override.policy": (
            "org.apache.kafka.connect.connector.policy.AllowlistConnectorClientConfigOverridePolicy"
        ),
        "connector.client.config.override.allowlist": "linger.ms, compression.type",
    }
    with _api(kafka, tmp_path, **worker) as api:
        config = _source(
            tmp_path,
            **{
                "producer.override.linger.ms": "5",
                "producer.override.batch.size": "1000",
                "producer.override.compression.type": "lz4",
                "admin.override.request.timeout.ms": "1000",
            },
        )
        checked = api.put("/connector-plugins/FileStreamSource/config/validate", json=config).json()
        # topic.creation.* makes the source use an admin client, so its overrides count.
        assert checked["error_count"] == 2
        errors = {
            e["value"]["name"]: e["value"]["errors"]
            for e in checked["configs"]
            if e["value"] and ".override." in e["value"]["name"]
        }
        assert errors == {
            "producer.override.linger.ms": [],
            "producer.override.batch.size": [_refusal("Allowlist", "batch.size")],
            "producer.override.compression.type": [],
            "admin.override.request.timeout.ms": [_refusal("Allowlist", "request.timeout.ms")],
        }
        # Kafka lists the overrides after the connector's keys, producer before admin.
        names = [e["value"]["name"] for e in checked["configs"] if e["value"]]
        overrides = [n for n in names if ".override." in n]
        assert names[-len(overrides) :] == overrides
        assert overrides[-1] == "admin.override.request.timeout.ms"

        created = api.post("/connectors", json={"name": config["name"], "config": config})
        assert created.status_code == 400
        message = created.json()["message"]
        assert message.startswith(_named(config["name"], _INVALID.format(n=2)))
        assert message.endswith(_WHERE)
        assert _refusal("Allowlist", "batch.size") in message


def test_the_documented_allowlist(kafka: str, tmp_path: Path) -> None:
    """docs/security.md's example: connectors bring their own credentials, nothing else."""
    block = doc_block("lets each connector bring its own credentials")
    worker = dict(line.split("=", 1) for line in block.splitlines())
    with _api(kafka, tmp_path, **worker) as api:
        config = _source(
            tmp_path,
            **{
                "producer.override.sasl.mechanism": "PLAIN",
                "producer.override.security.protocol": "SASL_PLAINTEXT",
                "producer.override.sasl.jaas.config": (
                    "org.apache.kafka.common.security.plain.PlainLoginModule required "
                    'username="alice" password="alice-secret";'
                ),
                "producer.override.linger.ms": "5",
            },
        )
        checked = api.put("/connector-plugins/FileStreamSource/config/validate", json=config).json()
        assert checked["error_count"] == 1, checked
        assert _validate_entry(checked, "producer.override.linger.ms")["value"]["errors"] == [
            _refusal("Allowlist", "linger.ms")
        ]
        assert _validate_entry(checked, "producer.override.sasl.mechanism")["value"]["errors"] == []
        assert (
            _validate_entry(checked, "producer.override.sasl.jaas.config")["value"]["errors"] == []
        )


def test_a_sink_with_a_dead_letter_queue_has_its_producer_checked(
    kafka: str, tmp_path: Path
) -> None:
    with _api(kafka, tmp_path, **{"connector.client.config.override.policy": "None"}) as api:
        name = f"sink-{uuid.uuid4().hex[:8]}"
        plain = file_sink(name, tmp_path / "out.txt", "in", **{"producer.override.acks": "1"})
        checked = api.put("/connector-plugins/FileStreamSink/config/validate", json=plain).json()
        assert checked["error_count"] == 0  # no DLQ: the sink has no producer to override
        with_dlq = {**plain, "errors.tolerance": "all", "errors.deadletterqueue.topic.name": "dlq"}
        checked = api.put("/connector-plugins/FileStreamSink/config/validate", json=with_dlq).json()
        assert checked["error_count"] == 1
        entry = _validate_entry(checked, "producer.override.acks")
        assert entry["value"]["errors"] == [_refusal("None", "acks")]


def test_a_custom_policy_from_a_module(kafka: str, tmp_path: Path) -> None:
    worker = {"connector.client.config.override.policy": "runtime_harness:SmallLingerPolicy"}
    with _api(kafka, tmp_path, **worker) as api:
        small = _source(tmp_path, **{"producer.override.linger.ms": "5"})
        assert (
            api.post("/connectors", json={"name": small["name"], "config": small}).status_code
            == 201
        )
        large = _source(tmp_path, **{"producer.override.linger.ms": "500"})
        refused = api.post("/connectors", json={"name": large["name"], "config": large})
        assert refused.status_code == 400
        assert "linger.ms above 100 ms" in refused.json()["message"]


def test_secret_overrides_stay_hidden_in_the_validate_body() -> None:
    worker = {
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "connector.client.config.override.policy": "Principal",
    }
    config = {
        "name": "s",
        "connector.class": "FileStreamSource",
        "file": "/tmp/x",
        "topic": "t",
        "producer.override.sasl.jaas.config": 'x.Login required password="topsecret";',
        "producer.override.ssl.key.password": "hunter2",
    }
    checked = config_infos(PluginRegistry.discover(), worker, config)
    assert checked["error_count"] == 1
    assert _validate_entry(checked, "producer.override.sasl.jaas.config")["value"] == {
        "name": "producer.override.sasl.jaas.config",
        "value": "[hidden]",
        "recommended_values": [],
        "errors": [],
        "visible": True,
    }
    refused = _validate_entry(checked, "producer.override.ssl.key.password")["value"]
    assert refused["value"] == "[hidden]"
    assert refused["errors"] == [_refusal("Principal", "ssl.key.password")]
    assert "topsecret" not in json.dumps(checked) and "hunter2" not in json.dumps(checked)


def test_an_unknown_policy_stops_the_worker_naming_the_key(kafka: str, tmp_path: Path) -> None:
    props = worker_props(tmp_path, kafka, **{"connector.client.config.override.policy": "Nobody"})
    with pytest.raises(ConfigError, match=r"connector\.client\.config\.override\.policy") as err:
        Standalone(props).start()
    assert "'Nobody'" in str(err.value)
