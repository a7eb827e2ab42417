"""Secrets from config providers reach connectors and tasks but never the REST API."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.modes import free_port
from kconnect_sdk import ConfigError
from runtime_harness import (
    RecordingSourceConnector,
    RecordingSourceTask,
    standalone,
    wait_for,
    worker_props,
)

pytestmark = pytest.mark.integration

PROVIDERS = {
    "config.providers": "file,dir,env",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.dir.class": "DirectoryConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.env.param.allowlist.pattern": "KC_TEST_.*",
}


@pytest.fixture
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    secret_dir = tmp_path / "secrets"
    secret_dir.mkdir()
    (secret_dir / "db.properties").write_text("db.password=s3cr3t-from-file\n", encoding="utf-8")
    (secret_dir / "api-token").write_text("t0ken-from-dir", encoding="utf-8")
    monkeypatch.setenv("KC_TEST_REGION", "eu-from-env")
    return secret_dir


def test_connector_and_task_get_secrets_rest_shows_placeholders(
    tmp_path: Path, kafka: str, secrets: Path
) -> None:
    port = free_port()
    name = f"secrets-{uuid.uuid4().hex[:6]}"
    placeholders = {
        "password": f"${{file:{secrets}/db.properties:db.password}}",
        "token": f"${{dir:{secrets}:api-token}}",
        "region": "${env:KC_TEST_REGION}",
    }
    connector = {
        "name": name,
        "connector.class": "runtime_harness:RecordingSourceConnector",
        **placeholders,
    }
    worker = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}", **PROVIDERS)
    with standalone(worker, connector):
        wait_for(
            lambda: any(c.get("name") == name for c in RecordingSourceTask.started),
            20,
            "the task start",
        )
        got = next(c for c in RecordingSourceConnector.started if c["name"] == name)
        task = next(c for c in RecordingSourceTask.started if c["name"] == name)
        expected = {
            "password": "s3cr3t-from-file",
            "token": "t0ken-from-dir",
            "region": "eu-from-env",
        }
        for key, value in expected.items():
            assert got[key] == value
            assert task[key] == value
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            config = http.get(f"/connectors/{name}/config").json()
            tasks = http.get(f"/connectors/{name}/tasks").json()
            info = http.get(f"/connectors/{name}").json()
        for key, placeholder in placeholders.items():
            assert config[key] == placeholder
            assert tasks[0]["config"][key] == placeholder
            assert info["config"][key] == placeholder
        for body in (config, tasks, info):
            for secret in expected.values():
                assert secret not in str(body)


def test_password_typed_value_is_hidden_from_rest(tmp_path: Path, kafka: str) -> None:
    port = free_port()
    name = f"pw-{uuid.uuid4().hex[:6]}"
    connector = {
        "name": name,
        "connector.class": "runtime_harness:RecordingSourceConnector",
        "password": "plain",
    }
    worker = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}")
    with standalone(worker, connector), httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
        assert http.get(f"/connectors/{name}/config").json()["password"] == "[hidden]"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            # issue 21: a PASSWORD naming no configured provider may be a literal secret, so
            # the message says what is wrong without quoting it.
            "${vault:secret/db:password}",
            r"'password' holds a \$\{provider:path:key\} placeholder whose provider is not "
            r"configured \(value hidden: it is a password; configured providers: dir, env, file\)",
        ),
        ("${file:/nonexistent/db.properties:x}", r"\$\{file:/nonexistent/db.properties:x\}"),
        ("${env:HOME}", r"\$\{env:HOME\}"),
    ],
)
def test_bad_placeholder_fails_naming_connector_and_placeholder(
    tmp_path: Path, kafka: str, secrets: Path, value: str, message: str
) -> None:
    connector = {
        "name": "bad-secret",
        "connector.class": "runtime_harness:RecordingSourceConnector",
        "password": value,
    }
    app = Standalone(worker_props(tmp_path, kafka, **PROVIDERS), [connector])
    with pytest.raises(ConfigError, match=message) as info:
        app.start()
    assert "connector 'bad-secret'" in str(info.value)
    assert "password" in str(info.value)


def test_key_outside_allowed_paths_is_refused(tmp_path: Path, kafka: str, secrets: Path) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    worker = worker_props(
        tmp_path, kafka, **PROVIDERS, **{"config.providers.file.param.allowed.paths": str(allowed)}
    )
    connector = {
        "name": "outside",
        "connector.class": "runtime_harness:RecordingSourceConnector",
        "password": f"${{file:{secrets}/db.properties:db.password}}",
    }
    with pytest.raises(ConfigError, match=r"allowed\.paths|not allowed|outside"):
        Standalone(worker, [connector]).start()
