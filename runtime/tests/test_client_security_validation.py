"""Client security settings librdkafka cannot honour are refused before anything runs:
at ``config/validate`` (an error on the key), at create, and at a worker's start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.worker import validate_connector
from kconnect_runtime.worker._validation import config_infos
from kconnect_sdk import ConfigError

_WORKER = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    "producer.security.protocol": "SASL_SSL",
    "producer.sasl.mechanism": "PLAIN",
    "producer.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule "
    'required username="connect" password="connect-secret";',
}
_SECRET = "s3cret-in-the-jaas-line"


def _source(**extra: str) -> dict[str, str]:
    return {
        "name": "src",
        "connector.class": "FileStreamSource",
        "file": "/tmp/in.txt",
        "topic": "t",
        **extra,
    }


def _entry(infos: dict[str, Any], key: str) -> dict[str, Any]:
    for entry in infos["configs"]:
        if entry["value"] is not None and entry["value"]["name"] == key:
            value: dict[str, Any] = entry["value"]
            return value
    raise AssertionError(f"{key} is not in the validation result")


def test_validate_puts_the_error_on_the_override_key() -> None:
    infos = config_infos(
        PluginRegistry.discover(),
        _WORKER,
        _source(**{"producer.override.sasl.login.class": "com.example.Login"}),
    )
    entry = _entry(infos, "producer.override.sasl.login.class")
    assert infos["error_count"] == 1
    (message,) = entry["errors"]
    assert "sasl.login.class" in message and "librdkafka" in message


def test_a_refused_jaas_line_stays_hidden() -> None:
    jaas = f'com.example.CustomLoginModule required username="u" password="{_SECRET}";'
    props = _source(**{"producer.override.sasl.jaas.config": jaas})
    infos = config_infos(PluginRegistry.discover(), _WORKER, props)
    entry = _entry(infos, "producer.override.sasl.jaas.config")
    assert entry["value"] == "[hidden]"
    assert entry["errors"] and "CustomLoginModule" in entry["errors"][0]
    assert _SECRET not in str(infos)
    with pytest.raises(ConfigError) as refused:
        validate_connector(PluginRegistry.discover(), _WORKER, props, strict=True)
    assert refused.value.name == "producer.override.sasl.jaas.config"
    assert _SECRET not in str(refused.value)


def test_the_worker_setting_a_connector_builds_on_is_named_as_the_worker_wrote_it() -> None:
    # The worker chose GSSAPI; the connector only brings its own JAAS line.
    worker = {**_WORKER, "producer.sasl.mechanism": "GSSAPI"}
    props = _source(**{"producer.override.sasl.jaas.config": "x required;"})
    with pytest.raises(ConfigError) as refused:
        validate_connector(PluginRegistry.discover(), worker, props, strict=True)
    assert "producer.sasl.mechanism" in str(refused.value)
    assert "Kerberos" in str(refused.value)


def test_a_worker_whose_own_clients_cannot_be_configured_does_not_start(tmp_path: Path) -> None:
    props = {
        **_WORKER,
        "bootstrap.servers": "127.0.0.1:1",
        "offset.storage.file.filename": str(tmp_path / "offsets"),
        "listeners": "",
        "security.protocol": "SSL",
        "ssl.engine.factory.class": "com.example.EngineFactory",
    }
    with pytest.raises(ConfigError) as refused:
        Standalone(props).start()
    assert refused.value.name == "ssl.engine.factory.class"
    assert str(refused.value).startswith("worker config: ssl.engine.factory.class")
