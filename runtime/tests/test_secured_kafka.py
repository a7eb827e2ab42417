"""Workers and connectors on a secured Apache Kafka, configured as the book's chapter 8 does.

Java client settings, unchanged: ``security.protocol``, ``sasl.mechanism`` with
``sasl.jaas.config``, JKS, PKCS12 and PEM trust and key stores with their passwords. The
broker is the session's ``kc_kafka`` with its SASL_SSL, SSL (client certificates required)
and SASL_PLAINTEXT listeners (``kc_secured_kafka``).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import httpx
import pytest
from kconnect_runtime.config import parse_properties
from kconnect_runtime.status import State
from kconnect_sdk import ConfigError
from kconnect_testkit import SecuredListeners
from runtime_harness import file_sink, file_source, line_count, standalone, wait_for, worker_props

pytestmark = pytest.mark.integration

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


def _jaas(module: str, user: str, password: str) -> str:
    return f'{module} required username="{user}" password="{password}";'


def _client_settings(kind: str, secured: SecuredListeners) -> tuple[str, dict[str, str]]:
    """The listener and a client's Java settings for one of the book's set-ups."""
    tls = secured.certificates
    if kind == "sasl-ssl-plain-jks":  # TLS with a JKS truststore (the default type), PLAIN
        return secured.sasl_ssl, {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": _jaas(PLAIN, "alice", secured.users["alice"]),
            "ssl.truststore.location": str(tls.truststore_jks),
            "ssl.truststore.password": tls.store_password,
        }
    if kind == "sasl-ssl-scram512-pkcs12":
        return secured.sasl_ssl, {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": _jaas(SCRAM, "connect", secured.users["connect"]),
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(tls.truststore_p12),
            "ssl.truststore.password": tls.store_password,
        }
    if kind == "mtls-jks-keystore":  # mutual TLS: a JKS keystore whose key has its own password
        return secured.ssl, {
            "security.protocol": "SSL",
            "ssl.truststore.location": str(tls.truststore_jks),
            "ssl.truststore.password": tls.store_password,
            "ssl.keystore.location": str(tls.client_keystore_jks),
            "ssl.keystore.password": tls.store_password,
            "ssl.key.password": tls.key_password,
        }
    if kind == "mtls-pem":
        return secured.ssl, {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(tls.ca_pem),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.key": tls.client_key_pem.read_text(),
            "ssl.keystore.certificate.chain": tls.client_chain_pem.read_text(),
            "ssl.key.password": tls.key_password,
        }
    assert kind == "sasl-plaintext-scram256"
    return secured.sasl_plaintext, {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": _jaas(SCRAM, "alice", secured.users["alice"]),
    }


def _for_clients(settings: Mapping[str, str], *prefixes: str) -> dict[str, str]:
    """The settings at the top level (the worker's own clients) and under each prefix."""
    out = dict(settings)
    for prefix in prefixes:
        out.update({f"{prefix}{k}": v for k, v in settings.items()})
    return out


def _secrets(secured: SecuredListeners) -> list[str]:
    tls = secured.certificates
    return [*secured.users.values(), tls.store_password, tls.key_password]


def _status(app: object, name: str) -> dict[str, object]:
    herder = app.herder  # type: ignore[attr-defined]  # Standalone: set once started
    status: dict[str, object] = herder.connector_status(name)
    return status


@pytest.mark.parametrize(
    "kind",
    [
        "sasl-ssl-plain-jks",
        "sasl-ssl-scram512-pkcs12",
        "mtls-jks-keystore",
        "mtls-pem",
        "sasl-plaintext-scram256",
    ],
)
def test_standalone_worker_runs_file_pipeline_with_the_books_settings(
    kind: str,
    kc_secured_kafka: SecuredListeners,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    listener, settings = _client_settings(kind, kc_secured_kafka)
    topic = f"secured-{uuid.uuid4().hex[:8]}"
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    lines = [f"line {i}" for i in range(20)]
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    worker = worker_props(
        tmp_path, listener, **_for_clients(settings, "producer.", "consumer.", "admin.")
    )
    caplog.set_level(logging.DEBUG)
    with standalone(
        worker, file_source("src", source, topic), file_sink("snk", sink, topic)
    ) as app:
        wait_for(lambda: line_count(sink) >= len(lines), 60, f"{len(lines)} lines in the sink")
        assert _status(app, "src")["tasks"][0]["state"] == "RUNNING"  # type: ignore[index]
    assert sink.read_text(encoding="utf-8").splitlines() == lines
    logged = caplog.text
    for secret in _secrets(kc_secured_kafka):
        assert secret not in logged, f"a secret of {kind} reached the log"


def test_connector_with_its_own_credentials_and_a_wrong_password(
    kc_secured_kafka: SecuredListeners, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secured = kc_secured_kafka
    listener, settings = _client_settings("sasl-ssl-plain-jks", secured)
    # The worker's principal is "connect"; each connector logs in as its own user.
    worker_settings = {**settings, "sasl.jaas.config": _jaas(PLAIN, "connect", "connect-secret")}
    worker = worker_props(
        tmp_path, listener, **_for_clients(worker_settings, "producer.", "consumer.", "admin.")
    )
    good_topic = f"override-{uuid.uuid4().hex[:8]}"
    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\n", encoding="utf-8")
    wrong = "not-alices-password"
    caplog.set_level(logging.DEBUG)
    with standalone(worker) as app:
        herder = app.herder
        assert herder is not None
        herder.create_connector(
            file_source(
                "as-alice",
                source,
                good_topic,
                **{"producer.override.sasl.jaas.config": _jaas(PLAIN, "alice", "alice-secret")},
            )
        )
        sink = tmp_path / "out.txt"
        herder.create_connector(file_sink("sink", sink, good_topic))
        wait_for(lambda: line_count(sink) >= 2, 60, "alice's records in the sink")

        herder.create_connector(
            file_source(
                "wrong-password",
                source,
                f"wrong-{uuid.uuid4().hex[:8]}",
                **{"producer.override.sasl.jaas.config": _jaas(PLAIN, "alice", wrong)},
            )
        )

        def failed() -> bool:
            tasks = _status(app, "wrong-password")["tasks"]
            return bool(tasks) and tasks[0]["state"] == State.FAILED.value  # type: ignore[index]

        wait_for(failed, 60, "the task with the wrong password to fail")
        trace = str(_status(app, "wrong-password")["tasks"][0]["trace"])  # type: ignore[index]
    assert "'wrong-password'" in trace, trace
    assert "SASL mechanism PLAIN" in trace, trace
    assert "Authentication failed" in trace, trace
    for secret in [wrong, *_secrets(secured)]:
        assert secret not in trace
        assert secret not in caplog.text, "a password reached the log"


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("producer.override.sasl.login.class", "com.example.MyLogin", "sasl.login.class"),
        (
            "producer.override.ssl.engine.factory.class",
            "com.example.Engine",
            "ssl.engine.factory.class",
        ),
        ("producer.override.sasl.mechanism", "GSSAPI", "GSSAPI"),
    ],
)
def test_a_setting_librdkafka_cannot_honour_is_refused_at_create(
    key: str, value: str, named: str, kc_secured_kafka: SecuredListeners, tmp_path: Path
) -> None:
    listener, settings = _client_settings("sasl-ssl-plain-jks", kc_secured_kafka)
    worker = worker_props(tmp_path, listener, **_for_clients(settings, "producer.", "consumer."))
    source = tmp_path / "in.txt"
    source.write_text("x\n", encoding="utf-8")
    with standalone(worker) as app:
        herder = app.herder
        assert herder is not None
        with pytest.raises(ConfigError) as refused:
            herder.create_connector(file_source("refused", source, "t", **{key: value}))
        assert refused.value.name == key
        assert key in str(refused.value) and named in str(refused.value)
        assert "refused" not in herder.connectors


DOCS = Path(__file__).parents[2] / "docs" / "security.md"


def _docs_blocks(language: str) -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Connecting to a secured Kafka") :]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def test_docs_settings_work_as_written(
    kc_secured_kafka: SecuredListeners, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/security.md's worker and connector settings, with only the broker's address and
    the stores' paths replaced by the test's."""
    tls = kc_secured_kafka.certificates
    places = {
        "broker:9093": kc_secured_kafka.sasl_ssl,
        "broker:9094": kc_secured_kafka.ssl,
        "/etc/kafka/secrets/truststore.jks": str(tls.truststore_jks),
        "/etc/kafka/secrets/client.keystore.jks": str(tls.client_keystore_jks),
        "/data/orders.txt": str(tmp_path / "orders.txt"),
    }

    def placed(text: str) -> str:
        for written, here in places.items():
            text = text.replace(written, here)
        return text

    sasl_worker, mtls_worker = (parse_properties(placed(b)) for b in _docs_blocks("properties"))
    (connector,) = (json.loads(placed(b)) for b in _docs_blocks("json"))
    assert sasl_worker["ssl.truststore.password"] == tls.store_password
    assert mtls_worker["ssl.key.password"] == tls.key_password
    mtls_worker.update(
        {
            f"{p}{k}": v
            for p in ("producer.", "consumer.")
            for k, v in mtls_worker.items()
            if k != "bootstrap.servers"
        }
    )
    (tmp_path / "orders.txt").write_text("o1\no2\no3\n", encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    for worker in (sasl_worker, mtls_worker):
        sink = tmp_path / f"out-{uuid.uuid4().hex[:6]}.txt"
        topic = f"orders-{uuid.uuid4().hex[:8]}"
        source = {**connector["config"], "name": connector["name"], "topic": topic}
        if worker is mtls_worker:  # the JAAS override is the SASL listener's
            source.pop("producer.override.sasl.jaas.config")
        workdir = tmp_path / topic  # offsets of its own: the same connector name runs twice
        workdir.mkdir()
        with standalone(
            {**worker_props(workdir, worker["bootstrap.servers"]), **worker},
            source,
            file_sink("orders-sink", sink, topic),
        ):
            wait_for(lambda sink=sink: line_count(sink) >= 3, 60, "the orders in the sink")
        assert sink.read_text(encoding="utf-8").splitlines() == ["o1", "o2", "o3"]
    for secret in _secrets(kc_secured_kafka):
        assert secret not in caplog.text


def _secured_consumer(bootstrap: str, settings: Mapping[str, str], topic: str) -> list[bytes]:
    """Every value of ``topic``, read with a client configured from Java settings."""
    from confluent_kafka import Consumer
    from kconnect_sdk.kafka_clients import librdkafka_config

    consumer = Consumer(
        librdkafka_config(
            {
                **settings,
                "bootstrap.servers": bootstrap,
                "group.id": f"reader-{uuid.uuid4().hex[:8]}",
                "auto.offset.reset": "earliest",
            }
        )
    )
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        empty = 0
        while empty < 6:
            batch = consumer.consume(100, 1.0)
            if not batch:
                empty += 1
                continue
            values.extend(m.value() for m in batch if m.error() is None)
    finally:
        consumer.close()
    return values


def test_distributed_worker_on_sasl_ssl_scram(
    kc_secured_kafka: SecuredListeners, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Config, offset and status topics, the group, and the tasks' clients, all on SASL_SSL."""
    from kconnect_runtime import Distributed

    listener, settings = _client_settings("sasl-ssl-scram512-pkcs12", kc_secured_kafka)
    group = f"secured-{uuid.uuid4().hex[:8]}"
    props = {
        **worker_props(tmp_path, listener),
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        **_for_clients(settings, "producer.", "consumer.", "admin."),
    }
    topic = f"dist-{uuid.uuid4().hex[:8]}"
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    source.write_text("a\nb\nc\n", encoding="utf-8")
    caplog.set_level(logging.DEBUG)
    app = Distributed(props)
    app.start()
    try:
        herder = app.herder
        assert herder is not None
        herder.create_connector(file_source("dsrc", source, topic))
        herder.create_connector(file_sink("dsnk", sink, topic))
        wait_for(lambda: line_count(sink) >= 3, 90, "the records in the sink")
    finally:
        app.stop()
    assert sink.read_text(encoding="utf-8").splitlines() == ["a", "b", "c"]
    # The connectors' configs are in the config topic, read back over SASL_SSL.
    configs = _secured_consumer(listener, settings, f"{group}-configs")
    assert any(b"dsrc" in v for v in configs if v)
    for secret in _secrets(kc_secured_kafka):
        assert secret not in caplog.text


def test_dead_letter_queue_on_sasl_ssl(kc_secured_kafka: SecuredListeners, tmp_path: Path) -> None:
    """A record the sink's converter refuses goes to the DLQ, produced over SASL_SSL."""
    from confluent_kafka import Producer
    from kconnect_sdk.kafka_clients import librdkafka_config

    listener, settings = _client_settings("sasl-ssl-plain-jks", kc_secured_kafka)
    topic, dlq = f"in-{uuid.uuid4().hex[:8]}", f"dlq-{uuid.uuid4().hex[:8]}"
    producer = Producer(librdkafka_config({**settings, "bootstrap.servers": listener}))
    for value in (b'{"ok": 1}', b"not json", b'{"ok": 2}'):
        producer.produce(topic, value)
    assert producer.flush(30) == 0
    sink = tmp_path / "out.txt"
    worker = worker_props(tmp_path, listener, **_for_clients(settings, "producer.", "consumer."))
    connector = file_sink(
        "dlq-sink",
        sink,
        topic,
        **{
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
        },
    )
    with standalone(worker, connector):
        wait_for(lambda: line_count(sink) >= 2, 60, "the two good records in the sink")
        wait_for(lambda: _secured_consumer(listener, settings, dlq) == [b"not json"], 60, "the DLQ")


def test_schema_registry_kafkastore_on_sasl_ssl(kc_secured_kafka: SecuredListeners) -> None:
    """The registry's store clients take Java settings under kafkastore.; a second registry
    reads the first one's schemas back from the secured topic."""
    from kconnect_runtime.schema_registry import SchemaRegistryServer

    listener, settings = _client_settings("sasl-ssl-scram512-pkcs12", kc_secured_kafka)
    topic = f"_schemas_{uuid.uuid4().hex[:8]}"
    config = {
        "listeners": "http://127.0.0.1:0",
        "kafkastore.bootstrap.servers": listener,
        "kafkastore.topic": topic,
        "kafkastore.topic.replication.factor": "1",
        **{f"kafkastore.{k}": v for k, v in settings.items()},
    }
    schema = json.dumps({"type": "record", "name": "U", "fields": [{"name": "id", "type": "int"}]})
    first = SchemaRegistryServer(config)
    first.start()
    try:
        answer = httpx.post(
            f"{first.url}/subjects/users-value/versions",
            json={"schema": schema},
            headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        schema_id = answer.json()["id"]
    finally:
        first.stop()
    second = SchemaRegistryServer(config)
    second.start()
    try:
        found = httpx.get(f"{second.url}/schemas/ids/{schema_id}", timeout=30)
        assert found.status_code == 200, found.text
        assert json.loads(found.json()["schema"]) == json.loads(schema)
    finally:
        second.stop()


def test_a_store_that_cannot_be_read_fails_the_task_naming_the_key(
    kc_secured_kafka: SecuredListeners, tmp_path: Path
) -> None:
    listener, settings = _client_settings("sasl-ssl-plain-jks", kc_secured_kafka)
    worker = worker_props(tmp_path, listener, **_for_clients(settings, "producer.", "consumer."))
    source = tmp_path / "in.txt"
    source.write_text("x\n", encoding="utf-8")
    wrong = "not-the-store-password"
    with standalone(worker) as app:
        herder = app.herder
        assert herder is not None
        herder.create_connector(
            file_source(
                "bad-store",
                source,
                f"t-{uuid.uuid4().hex[:8]}",
                **{"producer.override.ssl.truststore.password": wrong},
            )
        )

        def failed() -> bool:
            tasks = _status(app, "bad-store")["tasks"]
            return bool(tasks) and tasks[0]["state"] == State.FAILED.value  # type: ignore[index]

        wait_for(failed, 30, "the task to fail")
        trace = str(_status(app, "bad-store")["tasks"][0]["trace"])  # type: ignore[index]
    assert "connector 'bad-store' task 0" in trace, trace
    assert "ssl.truststore.location" in trace and "password was incorrect" in trace, trace
    assert wrong not in trace


class _TokenEndpoint(BaseHTTPRequestHandler):
    """An OAuth token endpoint handing out Kafka's unsecured JWTs (the test broker's
    OAUTHBEARER validator takes them), recording each request."""

    requests: ClassVar[list[tuple[str, str]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        self.requests.append((self.headers.get("Authorization", ""), body))

        def part(value: dict[str, object]) -> str:
            return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

        now = int(time.time())
        token = f"{part({'alg': 'none'})}.{part({'sub': 'alice', 'iat': now, 'exp': now + 600})}."
        answer = json.dumps({"access_token": token, "token_type": "bearer", "expires_in": 600})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer.encode())

    def log_message(self, *args: object) -> None:
        """Quiet: the test asserts on the requests."""


def test_oauthbearer_client_credentials_reach_the_token_endpoint_and_the_broker(
    kc_secured_kafka: SecuredListeners,
) -> None:
    """Kafka's OIDC login (KIP-768) settings, as written for Java, run on librdkafka's OIDC."""
    from confluent_kafka.admin import AdminClient
    from kconnect_sdk.kafka_clients import librdkafka_config

    server = HTTPServer(("127.0.0.1", 0), _TokenEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        java = {
            "bootstrap.servers": kc_secured_kafka.sasl_plaintext,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.login.callback.handler.class": "org.apache.kafka.common.security.oauthbearer."
            "OAuthBearerLoginCallbackHandler",
            "sasl.oauthbearer.token.endpoint.url": f"http://127.0.0.1:{server.server_port}/token",
            "sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer."
            'OAuthBearerLoginModule required clientId="connect" clientSecret="c-secret" '
            'scope="kafka";',
        }
        errors: list[str] = []
        admin = AdminClient(
            {**librdkafka_config(java), "error_cb": lambda e: errors.append(e.str())}
        )
        topics = admin.list_topics(timeout=30).topics
    finally:
        server.shutdown()
        server.server_close()
    assert topics is not None and not errors, errors
    authorization, body = _TokenEndpoint.requests[0]
    assert authorization == "Basic " + base64.b64encode(b"connect:c-secret").decode()
    assert "grant_type=client_credentials" in body and "scope=kafka" in body
