"""Issue 21: the one definition of what is secret, and the views that hide it.

The client password keys are the originals' (data below): Kafka's ``SslConfigs`` and
``SaslConfigs`` keys defined ``Type.PASSWORD``, librdkafka's properties flagged
``_RK_SENSITIVE`` in ``rdkafka_conf.c``, and the schema registry client's credentials.
"""

from __future__ import annotations

import logging

import pytest
from kconnect_runtime.config import HIDDEN, Redactor, is_client_password, is_valid_reference
from kconnect_runtime.logcontext import register_secrets, scrub_secrets

# Kafka's SslConfigs.addClientSslSupport / SaslConfigs.addClientSaslSupport, Type.PASSWORD.
KAFKA_PASSWORD_KEYS = [
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.certificates",
    "ssl.truststore.password",
    "sasl.jaas.config",
]
# librdkafka's rdkafka_conf.c, properties with _RK_SENSITIVE.
LIBRDKAFKA_SENSITIVE = [
    "ssl.key.location",
    "ssl.key.password",
    "ssl.key.pem",
    "ssl_key",
    "ssl.ca.pem",
    "ssl.keystore.password",
    "sasl.username",
    "sasl.password",
    "sasl.oauthbearer.config",
]
SCHEMA_REGISTRY_KEYS = ["basic.auth.user.info", "schema.registry.basic.auth.user.info"]
PREFIXES = [
    "",
    "producer.",
    "consumer.",
    "admin.",
    "producer.override.",
    "consumer.override.",
    "admin.override.",
    "key.converter.",
    "value.converter.",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("key", KAFKA_PASSWORD_KEYS + LIBRDKAFKA_SENSITIVE + SCHEMA_REGISTRY_KEYS)
def test_client_password_keys_are_secret_at_every_prefix(prefix: str, key: str) -> None:
    assert is_client_password(prefix + key)
    assert Redactor().show(prefix + key, "value") == HIDDEN


@pytest.mark.parametrize(
    "key",
    [
        "producer.override.linger.ms",
        "consumer.override.auto.offset.reset",
        "ssl.keystore.location",
        "ssl.truststore.type",
        "sasl.mechanism",
        "topic",
        "password.encoder.secret.unrelated.keyname.x",
    ],
)
def test_other_keys_are_shown(key: str) -> None:
    assert not is_client_password(key)
    assert Redactor().show(key, "value") == "value"


def test_declared_password_keys_are_secret() -> None:
    redactor = Redactor(declared=frozenset({"connection.password", "transforms.t.secret"}))
    shown = redactor.mask(
        {"connection.password": "pw", "transforms.t.secret": "s", "connection.user": "u"}
    )
    assert shown == {
        "connection.password": HIDDEN,
        "transforms.t.secret": HIDDEN,
        "connection.user": "u",
    }


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("${file:/etc/secrets/db.properties:password}", True),
        ("${env:DB_PASSWORD}", True),
        ("${S3CR3T-abc}", False),  # looks like a placeholder, is none
        ("${vault:secret/db:password}", False),  # names a provider not configured
        ("prefix-${file:/s:k}", False),  # not only a reference: the rest may be secret
        ("${file:/s:k}${env:X}", False),
        ("plain", False),
    ],
)
def test_only_a_whole_valid_reference_is_shown_as_written(value: str, valid: bool) -> None:
    assert is_valid_reference(value, {"file", "env"}) is valid
    redactor = Redactor(declared=frozenset({"db.password"}), providers=frozenset({"file", "env"}))
    shown = redactor.show("db.password", value)
    assert shown == (value if valid else HIDDEN)


def test_provider_values_are_found_in_free_text() -> None:
    raw = {"url": "jdbc:mysql://db/x?password=${file:/s:pw}&user=${env:U}", "note": "n"}
    resolved = {"url": "jdbc:mysql://db/x?password=hunter22&user=alice99", "note": "n"}
    redactor = Redactor.for_config(raw, resolved, providers={"file", "env"}, register=False)
    assert redactor.mask(raw) == raw  # a plain key keeps its placeholders
    assert redactor.scrub("login as alice99 with hunter22 failed") == (
        f"login as {HIDDEN} with {HIDDEN} failed"
    )
    assert "jdbc:mysql" not in redactor.scrub(f"bad url {resolved['url']}")


def test_error_message_names_key_and_problem_never_the_value() -> None:
    raw = {"retries": "${file:/s:retries}", "db.password": "hunter22"}
    redactor = Redactor.for_config(
        raw,
        {"retries": "oops-not-a-number", "db.password": "hunter22"},
        declared={"db.password"},
        register=False,
    )
    assert (
        redactor.safe_message(
            "Invalid value oops-not-a-number for configuration retries: not a number", raw
        )
        == "Invalid value for configuration retries: not a number "
        "(value hidden: it comes from a config provider)"
    )
    assert (
        redactor.safe_message(
            "Invalid value hunter22 for configuration db.password: too short", raw
        )
        == "Invalid value for configuration db.password: too short (value hidden: it is a password)"
    )
    # A value that is neither secret nor provided stays, as Kafka words it.
    plain = "Invalid value x for configuration tasks.max: Not a number of type INT"
    assert redactor.safe_message(plain, {"tasks.max": "x"}) == plain


def test_read_modify_write_restores_only_what_get_showed() -> None:
    redactor = Redactor(declared=frozenset({"db.password"}))
    stored = {"db.password": "hunter22", "note": "a"}
    assert redactor.restore({"db.password": HIDDEN, "note": "b"}, stored) == {
        "db.password": "hunter22",
        "note": "b",
    }
    assert redactor.restore({"db.password": "new-one"}, stored) == {"db.password": "new-one"}


def test_registered_secrets_never_reach_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    secret = "S3CR3T-registered-0f3c1e"
    register_secrets([secret])
    logger = logging.getLogger("kconnect.test.secrets.definition")
    with caplog.at_level(logging.DEBUG, logger=logger.name):
        logger.debug("config %s", {"password": secret})
        try:
            raise ValueError(f"cannot connect with {secret}")
        except ValueError:
            logger.exception("failed")
    assert secret not in caplog.text
    assert caplog.text.count(HIDDEN) >= 2
    assert scrub_secrets(f"x{secret}y") == f"x{HIDDEN}y"
