"""Java client settings translated for librdkafka: JAAS lines, stores, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from kconnect_sdk import ConfigError
from kconnect_sdk.kafka_clients import (
    JAVA_CLIENT_SECURITY_KEYS,
    StoreError,
    check_prefixed,
    librdkafka_config,
    openssl_cipher_list,
    parse_jaas_config,
    parse_jaas_file,
    security_problems,
)
from kconnect_testkit import TestCertificates

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTH = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
DOCS = Path(__file__).parents[2] / "docs" / "security.md"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> TestCertificates:
    return TestCertificates(tmp_path_factory.mktemp("tls"))


# -- JAAS grammar (Kafka's JaasConfig) -------------------------------------------------------
def test_jaas_line_as_the_book_writes_it() -> None:
    (module,) = parse_jaas_config(
        f'{PLAIN} required\n    username="alice"\n    password="alice-secret";'
    )
    assert module.class_name == PLAIN
    assert module.flag == "required"
    assert dict(module.options) == {"username": "alice", "password": "alice-secret"}


def test_jaas_quoted_values_take_javas_escapes_and_single_quotes() -> None:
    (module,) = parse_jaas_config(
        f'{SCRAM} OPTIONAL username=\'bob\' password="a\\"b\\\\c\\tend\\101" /* note */ x=y;'
    )
    assert module.flag == "optional"
    assert module.options["username"] == "bob"
    assert module.options["password"] == 'a"b\\c\tendA'
    assert module.options["x"] == "y"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f'{PLAIN} required username="a" password="b"', "not terminated by semi-colon"),
        (f"{PLAIN}", "control flag not specified"),
        (f"{PLAIN} mandatory;", "Invalid login module control flag 'mandatory'"),
        (f"{PLAIN} required username;", "Value not specified for key 'username'"),
        ("  // only a comment", "Login module not specified"),
    ],
)
def test_jaas_errors_say_what_kafka_says(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_jaas_config(text)


def test_jaas_file_kafka_client_section() -> None:
    text = f"""
    KafkaServer {{ {PLAIN} required user_admin="x"; }};
    // the client's login
    KafkaClient {{
        {PLAIN} required
        username="alice"
        password="alice-secret";
    }};
    """
    (module,) = parse_jaas_file(text) or []
    assert module.options["username"] == "alice"
    assert parse_jaas_file(text, "Other") is None


def test_jaas_file_errors_name_the_file_and_line() -> None:
    unquoted = f"KafkaClient {{\n  {PLAIN} required\n  file=/etc/x;\n}};\n"
    with pytest.raises(ConfigError, match=r"client\.jaas, line 4: expected a value for option"):
        parse_jaas_file(unquoted, source="client.jaas")
    twice = f"KafkaClient {{ {PLAIN} required; }};\n\nKafkaClient {{ }};\n"
    with pytest.raises(ConfigError, match=r"line 3: section KafkaClient appears twice"):
        parse_jaas_file(twice, source="client.jaas")


def test_jaas_options_never_show_in_a_repr() -> None:
    (module,) = parse_jaas_config(f'{PLAIN} required username="alice" password="s3cret-pw";')
    assert "s3cret-pw" not in repr(module)


# -- SASL ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_user_and_password_come_out_of_the_jaas_line(mechanism: str) -> None:
    module = PLAIN if mechanism == "PLAIN" else SCRAM
    out = librdkafka_config(
        {
            "bootstrap.servers": "b:9093",
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": mechanism,
            "sasl.jaas.config": f'{module} required username="alice" password="alice-secret";',
        }
    )
    assert out == {
        "bootstrap.servers": "b:9093",
        "security.protocol": "SASL_SSL",
        "sasl.mechanisms": mechanism,
        "sasl.username": "alice",
        "sasl.password": "alice-secret",
    }


def test_oauthbearer_client_credentials_become_librdkafkas_oidc() -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.login.callback.handler.class": "org.apache.kafka.common.security.oauthbearer."
            "OAuthBearerLoginCallbackHandler",
            "sasl.oauthbearer.token.endpoint.url": "https://idp.example/token",
            "sasl.jaas.config": f'{OAUTH} required clientId="connect" clientSecret="c-secret" '
            'scope="kafka" extension_logicalCluster="lkc-1";',
        }
    )
    assert out["sasl.oauthbearer.method"] == "oidc"
    assert out["sasl.oauthbearer.token.endpoint.url"] == "https://idp.example/token"
    assert out["sasl.oauthbearer.client.id"] == "connect"
    assert out["sasl.oauthbearer.client.secret"] == "c-secret"
    assert out["sasl.oauthbearer.scope"] == "kafka"
    assert out["sasl.oauthbearer.extensions"] == "logicalCluster=lkc-1"
    assert "sasl.login.callback.handler.class" not in out


def test_oauthbearer_unsecured_login_becomes_an_unsecured_jwt() -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "OAUTHBEARER",
            "sasl.jaas.config": f'{OAUTH} required unsecuredLoginStringClaim_sub="alice" '
            'unsecuredLoginListClaim_scope=",read,write" unsecuredLoginLifetimeSeconds="600";',
        }
    )
    assert out["enable.sasl.oauthbearer.unsecure.jwt"] is True
    assert out["sasl.oauthbearer.config"] == "principal=alice scope=read,write lifeSeconds=600"


def test_jaas_file_from_kafka_opts(tmp_path: Path) -> None:
    jaas = tmp_path / "client.jaas"
    jaas.write_text(f'KafkaClient {{ {PLAIN} required username="alice" password="from-file"; }};')
    out = librdkafka_config(
        {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"},
        environ={"KAFKA_OPTS": f"-Xmx1g -Djava.security.auth.login.config={jaas}"},
    )
    assert (out["sasl.username"], out["sasl.password"]) == ("alice", "from-file")


def test_sasl_settings_are_ignored_without_sasl() -> None:
    out = librdkafka_config(
        {"security.protocol": "PLAINTEXT", "sasl.jaas.config": "garbage", "sasl.mechanism": "X"}
    )
    assert out == {"security.protocol": "PLAINTEXT"}


# -- refusals --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("settings", "key", "words"),
    [
        ({"sasl.mechanism": "GSSAPI"}, "sasl.mechanism", "Kerberos"),
        ({}, "security.protocol", "GSSAPI"),  # Java's default mechanism
        (
            {"sasl.mechanism": "PLAIN", "sasl.login.class": "com.x.Login"},
            "sasl.login.class",
            "Java class",
        ),
        (
            {"sasl.mechanism": "PLAIN", "sasl.client.callback.handler.class": "com.x.H"},
            "sasl.client.callback.handler.class",
            "Java class",
        ),
        (
            {"sasl.mechanism": "PLAIN", "sasl.login.callback.handler.class": "com.x.H"},
            "sasl.login.callback.handler.class",
            "OAuthBearerLoginCallbackHandler",
        ),
        (
            {"sasl.mechanism": "PLAIN", "sasl.jaas.config": "com.x.MyModule required;"},
            "sasl.jaas.config",
            "PlainLoginModule",
        ),
        (
            {"sasl.mechanism": "PLAIN", "sasl.jaas.config": f'{PLAIN} required username="a"'},
            "sasl.jaas.config",
            "semi-colon",
        ),
        ({"sasl.mechanism": "PLAIN"}, "sasl.jaas.config", "needs credentials"),
        (
            {"sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config": f"{OAUTH} required;"},
            "sasl.oauthbearer.token.endpoint.url",
            "token.endpoint.url",
        ),
    ],
)
def test_sasl_settings_librdkafka_cannot_honour_are_named(
    settings: dict[str, str], key: str, words: str
) -> None:
    java = {"security.protocol": "SASL_SSL", **settings}
    problems = dict(security_problems(java))
    assert key in problems, problems
    assert words in problems[key]
    with pytest.raises(ConfigError) as refused:
        librdkafka_config(java, prefix="producer.override.")
    assert refused.value.name is not None
    assert refused.value.name.startswith("producer.override.")


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"ssl.engine.factory.class": "com.x.Engine"}, "ssl.engine.factory.class"),
        ({"ssl.provider": "BC"}, "ssl.provider"),
        ({"ssl.protocol": "TLSv1.1"}, "ssl.protocol"),
        ({"ssl.enabled.protocols": "TLSv1.3"}, "ssl.enabled.protocols"),
        (
            {"ssl.endpoint.identification.algorithm": "ldaps"},
            "ssl.endpoint.identification.algorithm",
        ),
        ({"ssl.truststore.type": "BKS"}, "ssl.truststore.type"),
        ({"ssl.cipher.suites": "TLS_FOO_WITH_BAR"}, "ssl.cipher.suites"),
    ],
)
def test_tls_settings_librdkafka_cannot_honour_are_named(
    settings: dict[str, str], key: str
) -> None:
    problems = dict(security_problems({"security.protocol": "SSL", **settings}))
    assert list(problems) == [key]


def test_a_password_never_shows_in_a_refusal() -> None:
    problems = check_prefixed(
        {
            "producer.override.security.protocol": "SASL_SSL",
            "producer.override.sasl.mechanism": "SCRAM-SHA-512",
            "producer.override.sasl.jaas.config": 'com.x.Module required password="hunter2-pw";',
        },
        ["producer.override."],
    )
    assert [k for k, _ in problems] == ["producer.override.sasl.jaas.config"]
    assert all("hunter2-pw" not in m for _, m in problems)


# -- TLS -------------------------------------------------------------------------------------
def test_endpoint_identification_and_ciphers() -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SSL",
            "ssl.endpoint.identification.algorithm": "",
            "ssl.protocol": "TLSv1.3",
            "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
            "ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_AES_128_GCM_SHA256",
            "ssl.keymanager.algorithm": "SunX509",
            "ssl.client.auth": "required",  # a server's key: Java's clients ignore it
        }
    )
    assert out == {
        "security.protocol": "SSL",
        "ssl.endpoint.identification.algorithm": "none",
        "ssl.cipher.suites": "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305",
    }
    assert openssl_cipher_list("TLS_RSA_WITH_AES_128_CBC_SHA256") == "AES128-SHA256"


@pytest.mark.parametrize("store", ["truststore_jks", "truststore_p12", "ca_pem"])
def test_truststores_become_the_ca_in_memory(store: str, certs: TestCertificates) -> None:
    path: Path = getattr(certs, store)
    out = librdkafka_config(
        {
            "security.protocol": "SSL",
            # Java's default type is JKS: a PKCS12 file under it still loads (keystore.type.compat)
            "ssl.truststore.type": "PEM" if store == "ca_pem" else "JKS",
            "ssl.truststore.location": str(path),
            "ssl.truststore.password": certs.store_password,
        }
    )
    assert x509.load_pem_x509_certificates(out["ssl.ca.pem"].encode()) == [
        x509.load_pem_x509_certificate(certs.ca_pem.read_bytes())
    ]
    assert "ssl.truststore.location" not in out
    assert "ssl.truststore.password" not in out


@pytest.mark.parametrize("store", ["client_keystore_jks", "client_keystore_p12"])
def test_keystores_become_key_and_chain_in_memory(store: str, certs: TestCertificates) -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SSL",
            "ssl.keystore.location": str(getattr(certs, store)),
            "ssl.keystore.password": certs.store_password,
            "ssl.key.password": certs.key_password,
        }
    )
    chain = x509.load_pem_x509_certificates(out["ssl.certificate.pem"].encode())
    assert chain[0] == certs.client.cert
    assert "PRIVATE KEY" in out["ssl.key.pem"] and "ENCRYPTED" not in out["ssl.key.pem"]
    assert not {"ssl.keystore.location", "ssl.keystore.password", "ssl.key.password"} & set(out)


def test_pem_keystore_inline(certs: TestCertificates) -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SSL",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.key": certs.client_key_pem.read_text(),
            "ssl.keystore.certificate.chain": certs.client_chain_pem.read_text(),
            "ssl.key.password": certs.key_password,
        }
    )
    assert "ENCRYPTED" not in out["ssl.key.pem"]
    assert out["ssl.certificate.pem"] == certs.client_chain_pem.read_text().strip()


@pytest.mark.parametrize(
    ("settings", "key", "words"),
    [
        (
            {"ssl.truststore.location": "truststore_jks", "ssl.truststore.password": "WRONG-pw"},
            "ssl.truststore.location",
            "password was incorrect",
        ),
        (
            {
                "ssl.keystore.location": "client_keystore_jks",
                "ssl.keystore.password": "store-secret",
                "ssl.key.password": "WRONG-pw",
            },
            "ssl.keystore.location",
            "ssl.key.password",
        ),
        (
            {"ssl.keystore.location": "client_keystore_p12", "ssl.keystore.password": "WRONG-pw"},
            "ssl.keystore.location",
            "password was incorrect",
        ),
        ({"ssl.truststore.location": "missing"}, "ssl.truststore.location", "no such file"),
    ],
)
def test_unreadable_stores_name_the_key_never_the_password(
    settings: dict[str, str], key: str, words: str, certs: TestCertificates, tmp_path: Path
) -> None:
    java = {"security.protocol": "SSL"}
    for k, v in settings.items():
        java[k] = str(getattr(certs, v, tmp_path / v)) if k.endswith("location") else v
    with pytest.raises(StoreError) as failed:
        librdkafka_config(java, prefix="consumer.")
    assert failed.value.name == f"consumer.{key}"
    assert words in str(failed.value)
    assert "WRONG-pw" not in str(failed.value)


def test_librdkafkas_own_keys_pass_through() -> None:
    out = librdkafka_config(
        {
            "security.protocol": "SASL_SSL",
            "sasl.mechanisms": "PLAIN",
            "sasl.username": "u",
            "sasl.password": "p",
            "ssl.ca.location": "/etc/ca.pem",
            "ssl.key.location": "/etc/key.pem",
            "ssl.key.password": "kp",
        }
    )
    assert out["ssl.key.password"] == "kp"
    assert out["sasl.username"] == "u"
    assert out["ssl.ca.location"] == "/etc/ca.pem"


def test_every_key_of_the_table_is_in_the_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    missing = [key for key in JAVA_CLIENT_SECURITY_KEYS if f"`{key}`" not in text]
    assert not missing, f"docs/security.md does not list {missing}"


def test_java_client_keys_librdkafka_names_otherwise_keep_their_tuning() -> None:
    config = librdkafka_config(
        {
            "bootstrap.servers": "b:9092",
            "receive.buffer.bytes": "-1",
            "send.buffer.bytes": "1048576",
            "fetch.max.wait.ms": "800",
            "max.request.size": "2097152",
        }
    )
    assert config == {
        "bootstrap.servers": "b:9092",
        "socket.receive.buffer.bytes": 0,  # Java's -1: the operating system's default
        "socket.send.buffer.bytes": 1048576,
        "fetch.wait.max.ms": "800",
        "message.max.bytes": "2097152",
    }
    # librdkafka's own name, when given, wins over the Java one.
    both = librdkafka_config({"fetch.max.wait.ms": "800", "fetch.wait.max.ms": "100"})
    assert both == {"fetch.wait.max.ms": "100"}
    with pytest.raises(ConfigError, match=r"consumer\.receive\.buffer\.bytes"):
        librdkafka_config({"receive.buffer.bytes": "lots"}, prefix="consumer.")
