"""The schema history on a secured Kafka: Debezium's ``schema.history.internal.producer.``
and ``.consumer.`` Java settings, as the book's tip writes them."""

from __future__ import annotations

import uuid

import pytest
from kconnect_connector_mysql import MySqlConnector
from kconnect_connector_mysql._history import SchemaHistory
from kconnect_testkit import SecuredListeners

pytestmark = pytest.mark.integration

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def _client_props(secured: SecuredListeners) -> dict[str, str]:
    tls = secured.certificates
    settings = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": f'{PLAIN} required username="alice" password="alice-secret";',
        "ssl.truststore.location": str(tls.truststore_jks),
        "ssl.truststore.password": tls.store_password,
    }
    return {
        f"schema.history.internal.{client}.{key}": value
        for client in ("producer", "consumer")
        for key, value in settings.items()
    }


def test_history_is_stored_and_recovered_over_sasl_ssl(
    kc_secured_kafka: SecuredListeners,
) -> None:
    def history() -> SchemaHistory:
        return SchemaHistory(
            servers=kc_secured_kafka.sasl_ssl,
            topic=f"history-{topic}",
            prefix="inventory",
            timeout_ms=10000,
            poll_ms=500,
            attempts=4,
            client_props=_client_props(kc_secured_kafka),
        )

    topic = uuid.uuid4().hex[:8]
    records = [
        {
            "source": {"server": "inventory"},
            "position": {"pos": i},
            "ddl": f"CREATE TABLE t{i} (a INT)",
        }
        for i in range(3)
    ]
    writer = history()
    writer.ensure_topic()
    writer.store(records)
    writer.close()
    assert history().recover() == records


def test_validate_refuses_history_settings_librdkafka_cannot_honour() -> None:
    props = {
        "schema.history.internal.consumer.security.protocol": "SASL_SSL",
        "schema.history.internal.consumer.sasl.mechanism": "GSSAPI",
    }
    results = {v.name: v for v in MySqlConnector().validate(props)}
    key = "schema.history.internal.consumer.sasl.mechanism"
    assert key in results
    assert any("GSSAPI" in m and "Kerberos" in m for m in results[key].error_messages)
