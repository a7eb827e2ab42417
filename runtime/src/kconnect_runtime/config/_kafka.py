"""The runtime's Kafka clients, configured from Java client settings.

Every client the runtime builds (task producers and consumers, admin clients, the DLQ
producer, the distributed worker's internal clients, the schema registry's store) takes its
settings through :func:`kafka_client_config`: the SDK's one translation of Java client
settings to librdkafka's, with the translated secrets (a password out of ``sasl.jaas.config``,
a key out of a keystore) hidden from every log line from then on. :func:`client_security_errors`
finds, before anything runs, the settings librdkafka cannot honour.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from kconnect_sdk.kafka_clients import librdkafka_config, security_problems, with_prefix

from kconnect_runtime.logcontext import register_secrets

__all__ = [
    "CLIENT_PREFIXES",
    "client_security_errors",
    "kafka_client_config",
    "worker_security_errors",
]

CLIENT_PREFIXES: Final = ("producer", "consumer", "admin")
"""The clients a connector's ``<client>.override.`` keys and a worker's ``<client>.`` keys
configure."""

_SECURITY_KEY_PREFIXES: Final = ("security.", "sasl.", "ssl.")

# The translated values hidden from the logs: passwords and keys. Not user names (librdkafka
# counts sasl.username as sensitive, but a user called "connect" would blank out every
# "connector" in the logs) nor certificates, which are public.
_LOG_SECRETS: Final = frozenset(
    {
        "sasl.password",
        "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.assertion.private.key.passphrase",
        "sasl.oauthbearer.assertion.private.key.pem",
        "ssl.key.pem",
        "ssl.key.password",
        "ssl.keystore.password",
    }
)


def kafka_client_config(java: Mapping[str, Any], *, prefix: str = "") -> dict[str, Any]:
    """librdkafka settings for one client's Java settings; its secrets never reach a log.

    Raises:
        ConfigError: a setting librdkafka cannot honour, or a store that cannot be read,
            named with ``prefix`` (``producer.override.ssl.truststore.location``).
    """
    out = librdkafka_config(java, prefix=prefix)
    register_secrets(v for k, v in out.items() if isinstance(v, str) and v and k in _LOG_SECRETS)
    return out


def _errors(
    client: Mapping[str, Any], source: Mapping[str, str], default_prefix: str
) -> list[tuple[str, str]]:
    if not any(k.startswith(_SECURITY_KEY_PREFIXES) for k in client):
        return []
    found = []
    for key, message in security_problems(client):
        shown = source.get(key, f"{default_prefix}{key}")
        found.append((shown, f"{shown}: {message}"))
    return found


def client_security_errors(
    worker_props: Mapping[str, str], connector_props: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """``(key, message)`` for each security setting of a connector's clients that librdkafka
    cannot honour: each client's worker ``<client>.`` settings with the connector's
    ``<client>.override.`` settings laid over them, keys named as the config that set them."""
    found: list[tuple[str, str]] = []
    for client in CLIENT_PREFIXES:
        worker = {
            k: v
            for k, v in with_prefix(worker_props, f"{client}.").items()
            if not k.startswith("override.")
        }
        override = with_prefix(connector_props, f"{client}.override.")
        if not override:
            continue  # the worker's own settings are checked when it starts
        source = {k: f"{client}.{k}" for k in worker}
        source.update({k: f"{client}.override.{k}" for k in override})
        found.extend(_errors({**worker, **override}, source, f"{client}.override."))
    return _unique(found)


def worker_security_errors(worker_props: Mapping[str, str]) -> list[tuple[str, str]]:
    """The same for a worker's own clients: top-level keys (its internal clients) and its
    ``producer.``, ``consumer.`` and ``admin.`` keys (the connectors' clients)."""
    top = {k: v for k, v in worker_props.items() if k.startswith(_SECURITY_KEY_PREFIXES)}
    found = _errors(top, {k: k for k in top}, "")
    for client in CLIENT_PREFIXES:
        settings = {
            k: v
            for k, v in with_prefix(worker_props, f"{client}.").items()
            if not k.startswith("override.")
        }
        found.extend(_errors(settings, {k: f"{client}.{k}" for k in settings}, f"{client}."))
    return _unique(found)


def _unique(found: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(dict.fromkeys(found))
