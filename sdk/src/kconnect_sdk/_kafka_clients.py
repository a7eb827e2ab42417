"""Java Kafka client settings as librdkafka settings: one translation for every client.

Workers, connectors and plugins are configured with Apache Kafka's Java client properties;
the clients are librdkafka's (confluent-kafka). Most names are shared. Security is where
they part: Java reads a JAAS line, JKS/PKCS12 stores and JVM-only TLS knobs; librdkafka
reads a user name and password, PEM text and OpenSSL's cipher names. :func:`librdkafka_config`
turns the one into the other, converting key and trust stores to PEM in memory (key
material never goes to disk), and refuses, naming the key and what to use instead, what
librdkafka cannot do. :func:`security_problems` finds those refusals without reading any
file, for config validation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from ._config import Password
from ._errors import ConfigError
from ._jaas import JaasLoginModule, jaas_file_from_kafka_opts, parse_jaas_config, read_jaas_file

__all__ = [
    "JAVA_CLIENT_SECURITY_KEYS",
    "StoreError",
    "check_prefixed",
    "librdkafka_config",
    "openssl_cipher_list",
    "security_problems",
    "security_settings",
    "with_prefix",
]

PLAIN_LOGIN_MODULE: Final = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE: Final = "org.apache.kafka.common.security.scram.ScramLoginModule"
OAUTHBEARER_LOGIN_MODULE: Final = (
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
)
KRB5_LOGIN_MODULE: Final = "com.sun.security.auth.module.Krb5LoginModule"

# Kafka's own OAuth client-credentials login handler (its 3.1-3.3 package, then its home):
# what librdkafka's built-in OIDC support does.
_OIDC_LOGIN_HANDLERS: Final = frozenset(
    {
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler",
    }
)
# Kafka 4's JWT retrievers (KIP-1139): the client-credentials one is librdkafka's OIDC.
_CLIENT_CREDENTIALS_RETRIEVERS: Final = frozenset(
    {
        "org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
        "org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever",
    }
)

_ALTERNATIVE: Final = (
    "use SASL PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER through sasl.jaas.config, "
    "or TLS client certificates (ssl.keystore.*)"
)

JAVA_CLIENT_SECURITY_KEYS: Final[Mapping[str, str]] = {
    "security.protocol": "passed through (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
    "sasl.mechanism": "translated to sasl.mechanisms; GSSAPI refused when librdkafka has no Kerberos",
    "sasl.jaas.config": (
        "translated: PlainLoginModule and ScramLoginModule to sasl.username/sasl.password; "
        "OAuthBearerLoginModule to librdkafka's OIDC settings (clientId, clientSecret, scope, "
        "extension_*) or, without a token endpoint, to an unsecured JWT "
        "(unsecuredLoginStringClaim_sub); other login modules refused"
    ),
    "sasl.client.callback.handler.class": "refused: Java code cannot run in librdkafka",
    "sasl.login.class": "refused: Java code cannot run in librdkafka",
    "sasl.login.callback.handler.class": (
        "Kafka's OAuthBearerLoginCallbackHandler: translated (librdkafka's OIDC); any other "
        "class refused"
    ),
    "sasl.oauthbearer.token.endpoint.url": "passed through; sets sasl.oauthbearer.method=oidc",
    "sasl.oauthbearer.scope": "passed through (the JAAS scope option wins)",
    "sasl.oauthbearer.client.credentials.client.id": "translated to sasl.oauthbearer.client.id",
    "sasl.oauthbearer.client.credentials.client.secret": (
        "translated to sasl.oauthbearer.client.secret"
    ),
    "sasl.oauthbearer.jwt.retriever.class": (
        "DefaultJwtRetriever and ClientCredentialsJwtRetriever accepted; others refused"
    ),
    "sasl.oauthbearer.scope.claim.name": "dropped: librdkafka does not validate its own token",
    "sasl.oauthbearer.sub.claim.name": "dropped: librdkafka does not validate its own token",
    "sasl.oauthbearer.expected.audience": "dropped: the broker validates tokens",
    "sasl.oauthbearer.expected.issuer": "dropped: the broker validates tokens",
    "sasl.oauthbearer.clock.skew.seconds": "dropped: the broker validates tokens",
    "sasl.oauthbearer.jwks.endpoint.url": "dropped: a broker setting",
    "sasl.login.refresh.buffer.seconds": "dropped: librdkafka refreshes at 80% of a token's life",
    "sasl.login.refresh.min.period.seconds": "dropped: librdkafka refreshes on its own schedule",
    "sasl.login.refresh.window.factor": "dropped: librdkafka refreshes at 80% of a token's life",
    "sasl.login.refresh.window.jitter": "dropped: librdkafka refreshes on its own schedule",
    "sasl.login.connect.timeout.ms": "dropped: librdkafka's token request has its own timeout",
    "sasl.login.read.timeout.ms": "dropped: librdkafka's token request has its own timeout",
    "sasl.login.retry.backoff.ms": "dropped: librdkafka retries token requests itself",
    "sasl.login.retry.backoff.max.ms": "dropped: librdkafka retries token requests itself",
    "sasl.kerberos.service.name": "passed through (GSSAPI only, where librdkafka has Kerberos)",
    "sasl.kerberos.kinit.cmd": "dropped: librdkafka runs its own kinit command line",
    "sasl.kerberos.min.time.before.relogin": "passed through (GSSAPI only)",
    "sasl.kerberos.ticket.renew.jitter": "dropped: no librdkafka equivalent",
    "sasl.kerberos.ticket.renew.window.factor": "dropped: no librdkafka equivalent",
    "ssl.truststore.type": "read: JKS (default), PKCS12, JCEKS or PEM; the file's own format wins, as Java's keystore.type.compat",
    "ssl.truststore.location": "translated: the store's certificates to ssl.ca.pem (in memory)",
    "ssl.truststore.password": "used to check and read the truststore; never passed on",
    "ssl.truststore.certificates": "translated to ssl.ca.pem",
    "ssl.keystore.type": "read: JKS (default), PKCS12, JCEKS or PEM",
    "ssl.keystore.location": (
        "translated: the key to ssl.key.pem and its certificate chain to ssl.certificate.pem "
        "(in memory)"
    ),
    "ssl.keystore.password": "used to read the keystore; never passed on",
    "ssl.key.password": "used to decrypt the key; never passed on",
    "ssl.keystore.key": "translated to ssl.key.pem (decrypted with ssl.key.password)",
    "ssl.keystore.certificate.chain": "translated to ssl.certificate.pem",
    "ssl.endpoint.identification.algorithm": (
        "translated: https to https, empty to none (no host name check)"
    ),
    "ssl.protocol": "TLSv1.2, TLSv1.3 and TLS accepted (OpenSSL negotiates 1.2 or 1.3); older refused",
    "ssl.enabled.protocols": (
        "accepted when it lists TLSv1.2 (OpenSSL negotiates 1.2 or 1.3); a list without it refused: "
        "librdkafka cannot restrict TLS versions"
    ),
    "ssl.cipher.suites": (
        "translated: TLS 1.2 suites to OpenSSL's names in ssl.cipher.suites; TLS 1.3 suites "
        "are OpenSSL's defaults"
    ),
    "ssl.keymanager.algorithm": "dropped: a JVM setting",
    "ssl.trustmanager.algorithm": "dropped: a JVM setting",
    "ssl.secure.random.implementation": "dropped: a JVM setting",
    "ssl.provider": "refused when set: a java.security.Provider cannot run in librdkafka",
    "ssl.engine.factory.class": "refused: Java code cannot run in librdkafka",
}
"""Each Java client security key and what :func:`librdkafka_config` does with it."""

# Java-only client properties that are not about security: what a JVM client needs and
# librdkafka has no use for (Java's clients ignore an unknown property; librdkafka refuses it).
_JAVA_ONLY: Final = frozenset(
    {
        "key.serializer",
        "value.serializer",
        "key.deserializer",
        "value.deserializer",
        "metric.reporters",
        "interceptor.classes",
    }
)

# Java security keys consumed by the translation (never passed on as they are).
_CONSUMED: Final = frozenset(JAVA_CLIENT_SECURITY_KEYS) - {
    "security.protocol",
    "sasl.oauthbearer.token.endpoint.url",
    "sasl.oauthbearer.scope",
    "sasl.kerberos.service.name",
    "sasl.kerberos.min.time.before.relogin",
}

# librdkafka's own security properties (2.x): passed through as given. Any other ssl.*,
# sasl.* key is Java's (a broker's, or one with no client meaning here) and is left out, as
# Java's clients leave out a key they do not know.
_LIBRDKAFKA_SECURITY_KEYS: Final = frozenset(
    [
        "security.protocol",
        "ssl.key.location",
        "ssl.key.password",
        "ssl.key.pem",
        "ssl.certificate.location",
        "ssl.certificate.pem",
        "ssl.ca.location",
        "ssl.ca.pem",
        "ssl.ca.certificate.stores",
        "ssl.crl.location",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.providers",
        "ssl.engine.location",
        "ssl.engine.id",
        "ssl.endpoint.identification.algorithm",
        "ssl.cipher.suites",
        "ssl.curves.list",
        "ssl.sigalgs.list",
        "ssl.certificate.verify_cb",
        "ssl_key",
        "ssl_certificate",
        "ssl_ca",
        "ssl_engine_callback_data",
        "sasl.mechanisms",
        "sasl.mechanism",
        "sasl.kerberos.service.name",
        "sasl.kerberos.principal",
        "sasl.kerberos.kinit.cmd",
        "sasl.kerberos.keytab",
        "sasl.kerberos.min.time.before.relogin",
        "sasl.username",
        "sasl.password",
        "sasl.oauthbearer.config",
        "sasl.oauthbearer.method",
        "sasl.oauthbearer.client.id",
        "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.scope",
        "sasl.oauthbearer.extensions",
        "sasl.oauthbearer.token.endpoint.url",
        "sasl.oauthbearer.grant.type",
        "sasl.oauthbearer.assertion.algorithm",
        "sasl.oauthbearer.assertion.private.key.file",
        "sasl.oauthbearer.assertion.private.key.passphrase",
        "sasl.oauthbearer.assertion.private.key.pem",
        "sasl.oauthbearer.assertion.file",
        "sasl.oauthbearer.assertion.claim.aud",
        "sasl.oauthbearer.assertion.claim.exp.seconds",
        "sasl.oauthbearer.assertion.claim.iss",
        "sasl.oauthbearer.assertion.claim.jti.include",
        "sasl.oauthbearer.assertion.claim.nbf.seconds",
        "sasl.oauthbearer.assertion.claim.sub",
        "sasl.oauthbearer.assertion.jwt.template.file",
        "sasl.oauthbearer.metadata.authentication.type",
    ]
)


class StoreError(ConfigError):
    """A key or trust store cannot be read (missing file, wrong password, bad format)."""


@dataclass(frozen=True, slots=True)
class _Problem:
    key: str
    message: str


def _text(value: Any) -> str:
    # Password objects (kconnect_sdk.Password) and plain strings alike.
    inner = getattr(value, "value", value)
    return "" if inner is None else str(inner)


def _protocol(java: Mapping[str, Any]) -> str:
    return _text(java.get("security.protocol") or "PLAINTEXT").strip().upper()


def _mechanism(java: Mapping[str, Any]) -> str:
    raw = java.get("sasl.mechanism") or java.get("sasl.mechanisms") or "GSSAPI"
    return _text(raw).strip().upper()


@cache
def _librdkafka_has_kerberos() -> bool:
    """Whether this librdkafka build speaks GSSAPI (it needs Cyrus SASL or a Kerberos library)."""
    try:
        from confluent_kafka import KafkaException, Producer
    except ImportError:
        return False
    try:
        Producer(
            {
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanisms": "GSSAPI",
                "log_level": 0,  # it is a probe: no "no bootstrap.servers" line
            }
        ).flush(0)
    except KafkaException:
        return False
    return True


def _jaas_source(
    java: Mapping[str, Any], environ: Mapping[str, str] | None
) -> tuple[str, list[JaasLoginModule] | None]:
    """Where the login module comes from (the key to name) and its entries, or None."""
    raw = java.get("sasl.jaas.config")
    if raw is not None and _text(raw).strip():
        return "sasl.jaas.config", parse_jaas_config(_text(raw))
    path = jaas_file_from_kafka_opts(environ)
    if path is None:
        return "sasl.jaas.config", None
    where = f"the JAAS file {path} (KAFKA_OPTS -Djava.security.auth.login.config)"
    return where, read_jaas_file(path).get("KafkaClient")


def _sasl_problems(java: Mapping[str, Any], environ: Mapping[str, str] | None) -> list[_Problem]:
    problems: list[_Problem] = []
    mechanism = _mechanism(java)
    for key in ("sasl.login.class", "sasl.client.callback.handler.class"):
        if _text(java.get(key)).strip():
            problems.append(
                _Problem(
                    key,
                    f"{key} names a Java class, which cannot run in librdkafka (kconnect's Kafka "
                    f"client); remove it and {_ALTERNATIVE}",
                )
            )
    handler = _text(java.get("sasl.login.callback.handler.class")).strip()
    if handler and not (mechanism == "OAUTHBEARER" and handler in _OIDC_LOGIN_HANDLERS):
        problems.append(
            _Problem(
                "sasl.login.callback.handler.class",
                f"sasl.login.callback.handler.class={handler} cannot run in librdkafka "
                "(kconnect's Kafka client); only Kafka's OAuthBearerLoginCallbackHandler with "
                "sasl.mechanism=OAUTHBEARER is supported (librdkafka's OIDC client): remove "
                f"it and {_ALTERNATIVE}",
            )
        )
    retriever = _text(java.get("sasl.oauthbearer.jwt.retriever.class")).strip()
    if retriever and retriever not in _CLIENT_CREDENTIALS_RETRIEVERS:
        problems.append(
            _Problem(
                "sasl.oauthbearer.jwt.retriever.class",
                f"sasl.oauthbearer.jwt.retriever.class={retriever} cannot run in librdkafka; "
                "only the client-credentials grant is supported (remove the key, set "
                "sasl.oauthbearer.token.endpoint.url and clientId/clientSecret in "
                "sasl.jaas.config)",
            )
        )
    if mechanism == "GSSAPI":
        if not _librdkafka_has_kerberos():
            key = "sasl.mechanism" if java.get("sasl.mechanism") else "security.protocol"
            problems.append(
                _Problem(
                    key,
                    "SASL mechanism GSSAPI (Kerberos"
                    + (
                        ", Java's default when sasl.mechanism is unset"
                        if key != "sasl.mechanism"
                        else ""
                    )
                    + ") is not supported: this build of librdkafka (kconnect's Kafka client) "
                    f"has no Kerberos support; set sasl.mechanism and {_ALTERNATIVE}",
                )
            )
        return problems
    if mechanism not in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"):
        problems.append(
            _Problem(
                "sasl.mechanism",
                f"unknown SASL mechanism {mechanism}; Kafka's are GSSAPI, PLAIN, SCRAM-SHA-256, "
                "SCRAM-SHA-512 and OAUTHBEARER",
            )
        )
        return problems
    try:
        where, modules = _jaas_source(java, environ)
    except (ValueError, ConfigError) as exc:
        problems.append(_Problem("sasl.jaas.config", f"Invalid sasl.jaas.config: {exc}"))
        return problems
    if modules is None:
        if mechanism == "OAUTHBEARER" or java.get("sasl.username") is not None:
            return problems  # librdkafka's own settings, or OIDC from its own keys
        problems.append(
            _Problem(
                "sasl.jaas.config",
                f"SASL mechanism {mechanism} needs credentials: set sasl.jaas.config, e.g. "
                f"{PLAIN_LOGIN_MODULE if mechanism == 'PLAIN' else SCRAM_LOGIN_MODULE} required "
                'username="..." password="...";',
            )
        )
        return problems
    module = modules[0]
    wanted = {
        "PLAIN": (PLAIN_LOGIN_MODULE, SCRAM_LOGIN_MODULE),
        "SCRAM-SHA-256": (SCRAM_LOGIN_MODULE, PLAIN_LOGIN_MODULE),
        "SCRAM-SHA-512": (SCRAM_LOGIN_MODULE, PLAIN_LOGIN_MODULE),
        "OAUTHBEARER": (OAUTHBEARER_LOGIN_MODULE,),
    }[mechanism]
    if module.class_name not in wanted:
        problems.append(
            _Problem(
                "sasl.jaas.config",
                f"{where} names login module {module.class_name}, which kconnect cannot use "
                f"with SASL mechanism {mechanism} (librdkafka runs no Java login module); "
                f"use {wanted[0]}",
            )
        )
    elif mechanism != "OAUTHBEARER":
        missing = [o for o in ("username", "password") if o not in module.options]
        if missing:
            problems.append(
                _Problem(
                    "sasl.jaas.config",
                    f"{where}: {module.simple_name} has no {' and no '.join(missing)} option",
                )
            )
        if module.options.get("tokenauth", "").lower() == "true":
            problems.append(
                _Problem(
                    "sasl.jaas.config",
                    f"{where}: tokenauth=true (delegation tokens) is not supported by librdkafka; "
                    "log in with a SCRAM user's own name and password",
                )
            )
    elif not _text(java.get("sasl.oauthbearer.token.endpoint.url")).strip():
        options = module.options
        claim = options.get("unsecuredLoginPrincipalClaimName", "sub")
        if f"unsecuredLoginStringClaim_{claim}" not in options:
            problems.append(
                _Problem(
                    "sasl.oauthbearer.token.endpoint.url",
                    "SASL OAUTHBEARER needs sasl.oauthbearer.token.endpoint.url (with clientId "
                    "and clientSecret in sasl.jaas.config) or, for an unsecured test broker, "
                    f"unsecuredLoginStringClaim_{claim} in sasl.jaas.config",
                )
            )
    return problems


_OLD_PROTOCOLS: Final = frozenset({"SSL", "SSLV2", "SSLV3", "TLSV1", "TLSV1.1"})


def _ssl_problems(java: Mapping[str, Any]) -> list[_Problem]:
    problems: list[_Problem] = []
    for key in ("ssl.engine.factory.class", "ssl.provider"):
        if _text(java.get(key)).strip():
            problems.append(
                _Problem(
                    key,
                    f"{key} names Java code, which cannot run in librdkafka (kconnect's Kafka "
                    "client, on OpenSSL); remove it and give the stores with ssl.truststore.* "
                    "and ssl.keystore.* (JKS, PKCS12 or PEM)",
                )
            )
    protocol = _text(java.get("ssl.protocol")).strip()
    if protocol and protocol.upper() in _OLD_PROTOCOLS:
        problems.append(
            _Problem(
                "ssl.protocol",
                f"ssl.protocol={protocol} is not supported: librdkafka (OpenSSL) negotiates "
                "TLSv1.2 or TLSv1.3; remove the key or set TLSv1.3",
            )
        )
    enabled = _text(java.get("ssl.enabled.protocols")).strip()
    if enabled:
        names = {p.strip().upper() for p in enabled.split(",") if p.strip()}
        if "TLSV1.2" not in names:
            problems.append(
                _Problem(
                    "ssl.enabled.protocols",
                    f"ssl.enabled.protocols={enabled} cannot be honoured: librdkafka cannot "
                    "restrict TLS versions and negotiates TLSv1.2 or TLSv1.3; remove the key or "
                    "list TLSv1.2,TLSv1.3",
                )
            )
    algorithm = java.get("ssl.endpoint.identification.algorithm")
    if algorithm is not None and _text(algorithm).strip().lower() not in ("", "https"):
        problems.append(
            _Problem(
                "ssl.endpoint.identification.algorithm",
                f"ssl.endpoint.identification.algorithm={_text(algorithm)} is not supported: "
                "use https (check the broker's host name) or an empty value (do not)",
            )
        )
    suites = _text(java.get("ssl.cipher.suites")).strip()
    if suites:
        try:
            openssl_cipher_list(suites)
        except ValueError as exc:
            problems.append(_Problem("ssl.cipher.suites", str(exc)))
    for which in ("truststore", "keystore"):
        kind = _text(java.get(f"ssl.{which}.type")).strip().upper()
        if kind and kind not in ("JKS", "PKCS12", "PEM", "JCEKS"):
            problems.append(
                _Problem(
                    f"ssl.{which}.type",
                    f"ssl.{which}.type={kind} is not supported: use JKS, PKCS12 or PEM",
                )
            )
    return problems


def security_problems(
    java: Mapping[str, Any], *, environ: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """What in these Java client settings librdkafka cannot honour: ``(key, message)`` pairs.

    Reads no store (only the JAAS file ``KAFKA_OPTS`` names, when SASL needs it), so a
    config can be refused at validation, before anything runs. Each message names the key
    and what to use instead, and never a value of a secret.

    Args:
        java: one client's settings, without prefix (``sasl.jaas.config``, not
            ``producer.override.sasl.jaas.config``).
        environ: the environment to read ``KAFKA_OPTS`` from (default: the process's).
    """
    protocol = _protocol(java)
    problems: list[_Problem] = []
    if protocol not in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"):
        problems.append(
            _Problem(
                "security.protocol",
                f"Invalid value {protocol} for configuration security.protocol: one of "
                "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
            )
        )
    if protocol.startswith("SASL_"):
        problems.extend(_sasl_problems(java, environ))
    if protocol.endswith("SSL"):
        problems.extend(_ssl_problems(java))
    return [(p.key, p.message) for p in problems]


# -- TLS cipher suites -----------------------------------------------------------------------
_TLS13_SUITES: Final = frozenset(
    {
        "TLS_AES_128_GCM_SHA256",
        "TLS_AES_256_GCM_SHA384",
        "TLS_CHACHA20_POLY1305_SHA256",
        "TLS_AES_128_CCM_SHA256",
        "TLS_AES_128_CCM_8_SHA256",
    }
)
_KEY_EXCHANGES: Final = {
    "ECDHE_ECDSA": "ECDHE-ECDSA-",
    "ECDHE_RSA": "ECDHE-RSA-",
    "DHE_RSA": "DHE-RSA-",
    "DHE_DSS": "DHE-DSS-",
    "RSA": "",
}
_IANA_SUITE: Final = re.compile(
    r"TLS_(ECDHE_ECDSA|ECDHE_RSA|DHE_RSA|DHE_DSS|RSA)_WITH_"
    r"(AES_128_GCM|AES_256_GCM|AES_128_CBC|AES_256_CBC|CHACHA20_POLY1305)_(SHA|SHA256|SHA384)"
)


def openssl_cipher_list(suites: str) -> str:
    """Java's (IANA) TLS 1.2 cipher suite names as an OpenSSL cipher list.

    TLS 1.3 suites are left out: OpenSSL enables them all, and librdkafka sets none.

    Raises:
        ValueError: a suite has no OpenSSL name here.
    """
    out: list[str] = []
    for raw in suites.split(","):
        name = raw.strip()
        if not name or name in _TLS13_SUITES:
            continue
        match = _IANA_SUITE.fullmatch(name)
        if match is None:
            if re.fullmatch(r"[A-Z0-9-]+", name):  # already OpenSSL's name
                out.append(name)
                continue
            raise ValueError(
                f"ssl.cipher.suites: {name} has no OpenSSL equivalent kconnect knows; list "
                "TLS 1.2 ECDHE/DHE/RSA suites with AES-GCM, AES-CBC or CHACHA20-POLY1305, or "
                "remove the key"
            )
        kx, cipher, mac = match.groups()
        body = {
            "AES_128_GCM": "AES128-GCM",
            "AES_256_GCM": "AES256-GCM",
            "AES_128_CBC": "AES128",
            "AES_256_CBC": "AES256",
            "CHACHA20_POLY1305": "CHACHA20-POLY1305",
        }[cipher]
        suffix = "" if cipher == "CHACHA20_POLY1305" else f"-{mac}"
        if kx.startswith("ECDHE") and cipher.endswith("CBC") and mac == "SHA":
            suffix = "-SHA"
        out.append(f"{_KEY_EXCHANGES[kx]}{body}{suffix}")
    return ":".join(out)


# -- stores ----------------------------------------------------------------------------------
def _crypto() -> Any:
    try:
        from . import _stores
    except ImportError as exc:  # pragma: no cover - the kafka extra is missing
        raise StoreError(
            f"reading Java key and trust stores needs the 'cryptography' and 'pyjks' packages "
            f"({exc}); install kconnect-sdk[kafka]"
        ) from None
    return _stores


def _store_error(key: str, path: str, exc: Exception) -> StoreError:
    # Library messages can quote what they read: the message names the file and the key only.
    return StoreError(f"{key}={path}: {exc}", name=key)


def _translate_ssl(java: Mapping[str, Any], out: dict[str, Any], prefix: str) -> None:
    stores = None
    trust_pem = _text(java.get("ssl.truststore.certificates")).strip()
    trust_path = _text(java.get("ssl.truststore.location")).strip()
    if trust_pem:
        out["ssl.ca.pem"] = trust_pem
    elif trust_path:
        stores = stores or _crypto()
        try:
            out["ssl.ca.pem"] = stores.trusted_certificates_pem(
                Path(trust_path),
                _text(java.get("ssl.truststore.type")).strip().upper() or "JKS",
                java.get("ssl.truststore.password") and _text(java.get("ssl.truststore.password")),
            )
        except stores.StoreReadError as exc:
            raise StoreError(
                f"{prefix}ssl.truststore.location={trust_path}: {exc}",
                name=f"{prefix}ssl.truststore.location",
            ) from None
    key_password = _text(java.get("ssl.key.password")) or None
    inline_key = _text(java.get("ssl.keystore.key")).strip()
    key_path = _text(java.get("ssl.keystore.location")).strip()
    if inline_key:
        stores = stores or _crypto()
        chain = _text(java.get("ssl.keystore.certificate.chain")).strip()
        try:
            out["ssl.key.pem"] = stores.pem_private_key(inline_key, key_password)
        except stores.StoreReadError as exc:
            raise StoreError(
                f"{prefix}ssl.keystore.key: {exc}", name=f"{prefix}ssl.keystore.key"
            ) from None
        if chain:
            out["ssl.certificate.pem"] = chain
    elif key_path:
        stores = stores or _crypto()
        try:
            key_pem, chain_pem = stores.key_and_chain_pem(
                Path(key_path),
                _text(java.get("ssl.keystore.type")).strip().upper() or "JKS",
                _text(java.get("ssl.keystore.password")) or None,
                key_password,
            )
        except stores.StoreReadError as exc:
            raise StoreError(
                f"{prefix}ssl.keystore.location={key_path}: {exc}",
                name=f"{prefix}ssl.keystore.location",
            ) from None
        out["ssl.key.pem"] = key_pem
        out["ssl.certificate.pem"] = chain_pem
    algorithm = java.get("ssl.endpoint.identification.algorithm")
    if algorithm is not None:
        out["ssl.endpoint.identification.algorithm"] = (
            "https" if _text(algorithm).strip() else "none"
        )
    suites = _text(java.get("ssl.cipher.suites")).strip()
    if suites:
        ciphers = openssl_cipher_list(suites)
        if ciphers:
            out["ssl.cipher.suites"] = ciphers


def _translate_sasl(
    java: Mapping[str, Any], out: dict[str, Any], environ: Mapping[str, str] | None
) -> None:
    mechanism = _mechanism(java)
    out["sasl.mechanisms"] = mechanism
    _, modules = _jaas_source(java, environ)
    options = dict(modules[0].options) if modules else {}
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        if "username" in options:
            out["sasl.username"] = options["username"]
        if "password" in options:
            out["sasl.password"] = options["password"]
        return
    if mechanism != "OAUTHBEARER":
        return
    extensions = [
        f"{name[len('extension_') :]}={value}"
        for name, value in options.items()
        if name.startswith("extension_")
    ]
    endpoint = _text(java.get("sasl.oauthbearer.token.endpoint.url")).strip()
    if endpoint:
        out["sasl.oauthbearer.method"] = "oidc"
        out["sasl.oauthbearer.token.endpoint.url"] = endpoint
        client_id = options.get("clientId") or _text(
            java.get("sasl.oauthbearer.client.credentials.client.id")
        )
        secret = options.get("clientSecret") or _text(
            java.get("sasl.oauthbearer.client.credentials.client.secret")
        )
        scope = options.get("scope") or _text(java.get("sasl.oauthbearer.scope"))
        if client_id:
            out["sasl.oauthbearer.client.id"] = client_id
        if secret:
            out["sasl.oauthbearer.client.secret"] = secret
        if scope:
            out["sasl.oauthbearer.scope"] = scope
        if extensions:
            out["sasl.oauthbearer.extensions"] = ",".join(extensions)
        return
    if not options:
        return  # librdkafka's own OAUTHBEARER settings, passed through
    # Kafka's unsecured login module (tests and development): librdkafka makes the same
    # unsigned token from sasl.oauthbearer.config.
    claim = options.get("unsecuredLoginPrincipalClaimName", "sub")
    parts = [f"principal={options.get(f'unsecuredLoginStringClaim_{claim}', '')}"]
    if claim != "sub":
        parts.append(f"principalClaimName={claim}")
    scope_claim = options.get("unsecuredLoginScopeClaimName", "scope")
    scope = options.get(f"unsecuredLoginListClaim_{scope_claim}", "")
    if scope:
        # Java's list claims open with their own delimiter: ",a,b".
        items = [s for s in scope[1:].split(scope[0]) if s] if len(scope) > 1 else []
        if items:
            parts.append(f"scope={','.join(items)}")
        if scope_claim != "scope":
            parts.append(f"scopeClaimName={scope_claim}")
    if "unsecuredLoginLifetimeSeconds" in options:
        parts.append(f"lifeSeconds={options['unsecuredLoginLifetimeSeconds']}")
    parts.extend(
        f"extension_{name[len('unsecuredLoginExtension_') :]}={value}"
        for name, value in options.items()
        if name.startswith("unsecuredLoginExtension_")
    )
    out["enable.sasl.oauthbearer.unsecure.jwt"] = True
    out["sasl.oauthbearer.config"] = " ".join(parts)


def librdkafka_config(
    java: Mapping[str, Any],
    *,
    prefix: str = "",
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """librdkafka settings for one client's Java settings ``java``.

    Keys both clients share (and librdkafka's own keys, callbacks, loggers) pass through
    unchanged; Java's security keys are translated (see :data:`JAVA_CLIENT_SECURITY_KEYS`),
    key and trust stores read and converted to PEM in memory. An explicit librdkafka key
    (``sasl.username``, ``ssl.ca.location``...) is kept as given.

    Args:
        java: the client's settings, without prefix.
        prefix: how the caller's config names these keys (``producer.override.``), for
            error messages.
        environ: the environment to read ``KAFKA_OPTS`` from (default: the process's).

    Raises:
        ConfigError: a setting librdkafka cannot honour; ``name`` is the key with ``prefix``.
        StoreError: a store cannot be read (missing file, wrong password, not a store).
    """
    problems = security_problems(java, environ=environ)
    if problems:
        key, message = problems[0]
        raise ConfigError(f"{prefix}{key}: {message}" if prefix else message, name=f"{prefix}{key}")
    out: dict[str, Any] = {}
    protocol = _protocol(java)
    sasl = protocol.startswith("SASL_")
    for key, raw in java.items():
        if raw is None or key in _JAVA_ONLY:
            continue
        if key in _CONSUMED and not (key == "ssl.key.password" and "ssl.key.location" in java):
            continue  # (librdkafka's own ssl.key.location keeps its password)
        if key.startswith(("sasl.oauthbearer.", "sasl.kerberos.")) and not sasl:
            continue
        if key.startswith(("ssl.", "sasl.")) and key not in _LIBRDKAFKA_SECURITY_KEYS:
            continue
        value: Any = raw
        if key == "bootstrap.servers":
            value = ",".join(p.strip() for p in _text(raw).split(",") if p.strip())
        elif key == "security.protocol":
            value = protocol
        elif isinstance(raw, Password):
            value = _text(raw)
        renamed = _RENAMED.get(key)
        if renamed is not None:
            name, convert = renamed
            try:
                translated_value = convert(value) if convert is not None else value
            except ValueError:
                raise ConfigError(
                    f"Invalid value {value} for configuration {prefix}{key}: Not a number of type INT",
                    name=f"{prefix}{key}",
                ) from None
            if name not in java:  # an explicit librdkafka key wins
                out[name] = translated_value
            continue
        out[key] = value
    translated: dict[str, Any] = {}
    if protocol.startswith("SASL_"):
        _translate_sasl(java, translated, environ)
    if protocol.endswith("SSL"):
        _translate_ssl(java, translated, prefix)
    for key, value in translated.items():
        out.setdefault(key, value)  # an explicit librdkafka key wins
    return out


_SECURITY_PREFIXES: Final = ("security.", "sasl.", "ssl.", "enable.ssl.", "enable.sasl.")


# Java client settings librdkafka has under another name. Java's -1 for a socket buffer
# means the operating system's default (autotuned), which librdkafka spells 0; a config
# tuned for a long link (larger buffers, a longer fetch wait) keeps its tuning.
def _socket_buffer(value: Any) -> int:
    size = int(str(value).strip())
    return 0 if size == -1 else size


_RENAMED: Final[dict[str, tuple[str, Any]]] = {
    "receive.buffer.bytes": ("socket.receive.buffer.bytes", _socket_buffer),
    "send.buffer.bytes": ("socket.send.buffer.bytes", _socket_buffer),
    "fetch.max.wait.ms": ("fetch.wait.max.ms", None),
    "max.request.size": ("message.max.bytes", None),
}


def security_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a client config (Java's or librdkafka's) that say how to reach the brokers
    securely, for another client of the same principal (a DLQ producer, an admin client)."""
    return {
        k: v
        for k, v in config.items()
        if k.startswith(_SECURITY_PREFIXES) or k in ("client.dns.lookup",)
    }


def with_prefix(config: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The keys of ``config`` that start with ``prefix``, without it."""
    return {k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)}


def check_prefixed(
    config: Mapping[str, Any], prefixes: Iterable[str], *, environ: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """:func:`security_problems` of each client whose settings ``config`` holds under a prefix
    (``producer.override.``...), keys named with their prefix. A prefix whose client sets no
    security key is not checked."""
    found: list[tuple[str, str]] = []
    for prefix in prefixes:
        client = with_prefix(config, prefix)
        if not any(k.startswith(("security.", "sasl.", "ssl.")) for k in client):
            continue
        found.extend(
            (f"{prefix}{key}", f"{prefix}{key}: {message}")
            for key, message in security_problems(client, environ=environ)
        )
    return found
