"""Worker plug-ins against Apache Kafka Connect's Java worker: the basic-auth REST extension
and the ``Principal`` client config override policy, the same requests to both workers.

Each request's answer is compared whole (status, ``Content-Type``, ``WWW-Authenticate``,
body), except what the workers are: ``GET /``'s version and commit, and kconnect's name
prefix on a refused config (compat/rest-intended-differences.toml, "invalid-config-message").
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_testkit import JavaConnectWorker

pytestmark = pytest.mark.integration

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MICKAEL = "Basic " + base64.b64encode(b"mickael:p4ss").decode()

# (method, path, Authorization header or None)
AUTH_REQUESTS: list[tuple[str, str, str | None]] = [
    ("GET", "/", None),
    ("GET", "/", MICKAEL),
    ("GET", "/connectors", "Basic " + base64.b64encode(b"kate:nope").decode()),
    ("GET", "/connectors", "Basic " + base64.b64encode(b"kate:w0rd").decode()),
    ("GET", "/connectors", "Basic " + base64.b64encode(b":p4ss").decode()),
    ("GET", "/connectors", "basic " + base64.b64encode(b"mickael:p4ss").decode()),
    ("GET", "/connectors", "Basic"),
    ("GET", "/connectors", "Bearer abc"),
    ("GET", "/connectors", "Basic !!!"),
    ("GET", "/connectors", "Basic YQ="),
    ("GET", "/connectors", "Basic a"),
    ("GET", "/connectors/", None),
    ("GET", "/connectors/missing/status", None),
    ("GET", "/connectors/missing/status", MICKAEL),
    ("GET", "/nonexistent", None),
    ("DELETE", "/", None),
    ("GET", "/connector-plugins", None),
]


def _jaas(tmp: Path) -> Path:
    credentials = tmp / "credentials.properties"
    credentials.write_text("mickael=p4ss\nkate=w0rd\n")
    jaas = tmp / "connect-jas.conf"
    module = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
    jaas.write_text(f'KafkaConnect {{\n    {module} required\n    file="{credentials}";\n}};\n')
    return jaas


def _answer(url: str, method: str, path: str, auth: str | None) -> dict[str, Any]:
    headers = {"Accept": "application/json"}
    if auth is not None:
        headers["Authorization"] = auth
    got = httpx.request(method, url + path, headers=headers, timeout=30)
    body: Any = got.text
    with contextlib.suppress(ValueError):
        body = json.loads(got.text)
    if path == "/" and got.status_code == 200:
        body = sorted(k for k in body if k != "kconnect_version")  # each worker's own version
    # Routing's own 404/405 (no extension involved) carry no Content-Type from Jetty and
    # application/json from kconnect; the bodies are the same.
    unrouted = got.status_code in (404, 405) and path != "/connectors/missing/status"
    return {
        "status": got.status_code,
        "content-type": None if unrouted else got.headers.get("content-type"),
        "www-authenticate": got.headers.get("www-authenticate"),
        "body": body,
    }


@pytest.fixture
def kconnect_worker(
    kc_kafka: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., str]]:
    started: list[Standalone] = []

    def start(**worker: str) -> str:
        props = {
            "bootstrap.servers": kc_kafka,
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "offset.storage.file.filename": str(tmp_path / f"offsets-{len(started)}"),
            "listeners": "http://127.0.0.1:0",
            **worker,
        }
        app = Standalone(props)
        started.append(app)
        app.start()
        assert app.rest is not None
        return app.rest.url

    yield start
    for app in started:
        app.stop()


def test_basic_auth_extension_answers_as_kafkas(
    kc_java_connect: Callable[..., JavaConnectWorker],
    kconnect_worker: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    jaas = _jaas(tmp_path)
    option = f"-Djava.security.auth.login.config={jaas}"
    monkeypatch.setenv("KAFKA_OPTS", option)
    ours = kconnect_worker(**{"rest.extension.classes": BASIC_AUTH})
    java = kc_java_connect(
        mode="standalone", config={"rest.extension.classes": BASIC_AUTH}, java_options=[option]
    )
    differences = []
    for method, path, auth in AUTH_REQUESTS:
        theirs = _answer(java.url, method, path, auth)
        mine = _answer(ours, method, path, auth)
        if mine != theirs:
            differences.append(f"{method} {path} ({auth}): java={theirs} kconnect={mine}")
    assert differences == []
    # Internal requests pass the filter on both and the route answers them: workers
    # authenticate what they send one another by signing it, not with a user's credentials.
    for method, path in (("POST", "/connectors/x/tasks"), ("PUT", "/connectors/x/fence")):
        assert _answer(java.url, method, path, None)["status"] != 401
        assert _answer(ours, method, path, None)["status"] != 401


def _override_entries(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        c["value"] for c in body["configs"] if c["value"] and ".override." in c["value"]["name"]
    ]


def test_principal_policy_answers_as_kafkas(
    kc_java_connect: Callable[..., JavaConnectWorker],
    kconnect_worker: Callable[..., str],
    tmp_path: Path,
) -> None:
    policy = {"connector.client.config.override.policy": "Principal"}
    ours = kconnect_worker(**policy)
    java = kc_java_connect(mode="standalone", config=policy)
    sink = {
        "name": "file-sink",
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "topics": "test",
        "file": str(tmp_path / "sink.out"),
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "consumer.override.fetch.min.bytes": "123",
        "consumer.override.security.protocol": "PLAINTEXT",
        "producer.override.acks": "1",  # a sink without a DLQ has no producer: not checked
    }
    source = {
        "name": "file-source",
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "file": str(tmp_path / "in.txt"),
        "topic": "t",
        "producer.override.linger.ms": "5",
        "producer.override.batch.size": "10",
        "producer.override.sasl.mechanism": "PLAIN",
    }
    for plugin, config in (
        ("FileStreamSinkConnector", sink),
        ("FileStreamSourceConnector", source),
    ):
        validate = f"/connector-plugins/{plugin}/config/validate"
        theirs = httpx.put(java.url + validate, json=config, timeout=30).json()
        mine = httpx.put(ours + validate, json=config, timeout=30).json()
        assert mine["error_count"] == theirs["error_count"]
        # Kafka lists each override with its client's definition, which kconnect has not.
        assert _override_entries(mine) == _override_entries(theirs)

        path = f"/connectors/{config['name']}/config"
        theirs_put = httpx.put(java.url + path, json=config, timeout=30)
        mine_put = httpx.put(ours + path, json=config, timeout=30)
        assert mine_put.status_code == theirs_put.status_code == 400
        prefix = f"connector {config['name']!r}: "
        assert mine_put.json()["message"] == prefix + theirs_put.json()["message"]
