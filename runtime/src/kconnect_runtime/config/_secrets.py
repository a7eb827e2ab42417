"""The one definition of what is secret in a config, and how secrets are kept out of sight.

A config key is secret when

- a plugin declares it PASSWORD-typed in its ``ConfigDef`` (the connector's own keys, and its
  converters', transforms' and predicates' under their prefixes: ``value.converter.<k>``,
  ``transforms.<alias>.<k>``, ``predicates.<alias>.<k>``), or
- it ends in one of the Kafka clients' password keys (:data:`CLIENT_PASSWORD_KEYS`: Kafka's
  ``SslConfigs``/``SaslConfigs`` PASSWORD-typed keys, librdkafka's sensitive properties and
  the schema registry client's credentials), whatever prefix brings it there:
  ``producer.override.sasl.password``, ``consumer.ssl.key.password``,
  ``value.converter.basic.auth.user.info``...

A secret key's value is shown as ``[hidden]``, unless it is exactly one valid
``${provider:[path:]key}`` reference to a configured provider (the reference is not the
secret). Every value a config provider resolved is secret too, whatever its key: it never
appears in an error message, a log line or a REST body.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kconnect_sdk._config_provider import PLACEHOLDER_PATTERN

from kconnect_runtime.logcontext import register_secrets

__all__ = [
    "CLIENT_PASSWORD_KEYS",
    "HIDDEN",
    "Redactor",
    "is_client_password",
    "is_valid_reference",
    "provider_values",
    "register_worker_secrets",
]

HIDDEN: Final = "[hidden]"
"""What a secret shows as (Kafka's ``Password.toString()``)."""

CLIENT_PASSWORD_KEYS: Final = frozenset(
    {
        # Kafka's SslConfigs, PASSWORD-typed.
        "ssl.key.password",
        "ssl.keystore.password",
        "ssl.truststore.password",
        "ssl.keystore.key",
        "ssl.keystore.certificate.chain",
        "ssl.truststore.certificates",
        # Kafka's SaslConfigs, PASSWORD-typed.
        "sasl.jaas.config",
        "sasl.oauthbearer.client.credentials.client.secret",
        "sasl.oauthbearer.assertion.private.key.passphrase",
        # librdkafka's properties flagged sensitive (_RK_SENSITIVE) and its OIDC secrets.
        "sasl.username",
        "sasl.password",
        "sasl.oauthbearer.config",
        "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.assertion.private.key.pem",
        "ssl.key.location",
        "ssl.key.pem",
        "ssl_key",
        "ssl.ca.pem",
        # The schema registry client's credentials (Confluent's serde configs).
        "basic.auth.user.info",
        "schema.registry.basic.auth.user.info",
        "bearer.auth.token",
        "bearer.auth.client.secret",
    }
)
"""Password keys of the Kafka, librdkafka and schema registry clients."""

# Free text is searched only for values at least this long: shorter ones would match
# ordinary words and numbers everywhere (they are still hidden as config values).
_MIN_SCRUB_LENGTH: Final = 4


def is_client_password(key: str) -> bool:
    """Whether ``key`` is, or ends in, a client password key (any prefix: ``producer.override.``…)."""
    parts = key.split(".")
    return any(".".join(parts[i:]) in CLIENT_PASSWORD_KEYS for i in range(len(parts)))


def is_valid_reference(value: str | None, providers: Collection[str]) -> bool:
    """Whether ``value`` is exactly one ``${provider:[path:]key}`` naming a configured provider."""
    if value is None:
        return False
    match = PLACEHOLDER_PATTERN.fullmatch(value)
    return match is not None and match.group(1) in providers


def provider_values(raw: str, resolved: str) -> list[str]:
    """The parts of ``resolved`` that config providers put in place of ``raw``'s placeholders.

    ``user=${file:/s:u}`` resolved to ``user=alice`` gives ``["alice"]``; the whole resolved
    value when the parts cannot be told apart.
    """
    literals = PLACEHOLDER_PATTERN.split(raw)
    # split() interleaves the groups; every 5th item (0, 5, 10…) is literal text.
    texts = literals[:: PLACEHOLDER_PATTERN.groups + 1]
    if len(texts) < 2:
        return []
    pattern = "(.*?)".join(re.escape(t) for t in texts)
    match = re.fullmatch(pattern, resolved, flags=re.DOTALL)
    if match is None:
        return [resolved]
    return [g for g in match.groups() if g]


# Kafka's ConfigException wording, which puts the value in the message.
_INVALID_VALUE: Final = re.compile(
    r"Invalid value (?P<value>.*?) for configuration (?P<key>[^\s:]+)(?P<rest>:[^;\n]*)?",
    re.DOTALL,
)


def _searchable(values: Iterable[str]) -> list[str]:
    return sorted(
        {v for v in values if len(v) >= _MIN_SCRUB_LENGTH and v != HIDDEN},
        key=len,
        reverse=True,  # longest first, so a secret containing another is hidden whole
    )


@dataclass(frozen=True)
class Redactor:
    """What is secret in one config, and the views of it that hide those secrets.

    Attributes:
        declared: Keys that plugins declare PASSWORD-typed, with their prefixes.
        providers: Names of the configured config providers.
        values: Secret strings to search for in free text (error messages, traces, logs).
    """

    declared: frozenset[str] = frozenset()
    providers: frozenset[str] = frozenset()
    values: tuple[str, ...] = ()
    _pattern: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def for_config(
        cls,
        raw: Mapping[str, str | None],
        resolved: Mapping[str, str | None] | None = None,
        *,
        declared: Iterable[str] = (),
        providers: Iterable[str] = (),
        register: bool = True,
    ) -> Redactor:
        """The redactor of a config as submitted (``raw``) and as providers resolved it.

        With ``register`` its secret strings are also hidden from every log line.
        """
        made = cls(frozenset(declared), frozenset(providers))
        resolved = raw if resolved is None else resolved
        found: list[str] = []
        for key, value in raw.items():
            if value is None:
                continue
            now = resolved.get(key)
            if PLACEHOLDER_PATTERN.search(value) and now is not None and now != value:
                found.append(now)
                found.extend(provider_values(value, now))
            if made.is_secret(key):
                if not is_valid_reference(value, made.providers):
                    found.append(value)
                if now is not None and now != value:
                    found.append(now)
        values = tuple(_searchable(found))
        pattern = re.compile("|".join(re.escape(v) for v in values)) if values else None
        if register:
            register_secrets(values)
        made = cls(made.declared, made.providers, values, pattern)
        return made

    def is_secret(self, key: str) -> bool:
        """Whether ``key``'s value is a secret (see the module docstring)."""
        return key in self.declared or is_client_password(key)

    def show(self, key: str, value: str | None) -> str | None:
        """``value`` as a REST body or message may show it: secrets ``[hidden]``."""
        if value is None or not self.is_secret(key) or is_valid_reference(value, self.providers):
            return value
        return HIDDEN

    def mask(self, config: Mapping[str, str | None]) -> dict[str, Any]:
        """``config`` with every secret value ``[hidden]``, valid references as written."""
        return {key: self.show(key, value) for key, value in config.items()}

    def scrub(self, text: str) -> str:
        """``text`` with every secret string of this config replaced by ``[hidden]``."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(HIDDEN, text)

    def safe_message(self, message: str, raw: Mapping[str, Any]) -> str:
        """``message`` naming the key and the problem, never a secret or resolved value.

        ``Invalid value <v> for configuration retries: not a number`` becomes ``Invalid value
        for configuration retries: not a number (value hidden: it comes from a config
        provider)`` when ``raw``'s ``retries`` held a placeholder (``…: it is a password`` for
        a secret key); any secret string left in the text is replaced by ``[hidden]``.
        """

        def reword(match: re.Match[str]) -> str:
            key = match.group("key")
            original = raw.get(key)
            if self.is_secret(key):
                why = "it is a password"
            elif isinstance(original, str) and PLACEHOLDER_PATTERN.search(original):
                why = "it comes from a config provider"
            else:
                return match.group(0)
            rest = match.group("rest") or ""
            return f"Invalid value for configuration {key}{rest} (value hidden: {why})"

        return self.scrub(_INVALID_VALUE.sub(reword, message))

    def scrub_json(self, body: Any) -> Any:
        """Every string in a JSON-like body scrubbed (keys too)."""
        if self._pattern is None:
            return body
        if isinstance(body, str):
            return self.scrub(body)
        if isinstance(body, Mapping):
            return {self.scrub(str(k)): self.scrub_json(v) for k, v in body.items()}
        if isinstance(body, list | tuple):
            return [self.scrub_json(v) for v in body]
        return body

    def restore(
        self, submitted: Mapping[str, str | None], stored: Mapping[str, str]
    ) -> dict[str, str | None]:
        """``submitted`` with each secret key that says ``[hidden]`` given its ``stored`` value.

        This is what lets a client GET a config, change a key and PUT it back without
        retyping its secrets. A ``[hidden]`` key with nothing stored stays as submitted.
        """
        out = dict(submitted)
        for key, value in submitted.items():
            if value == HIDDEN and key in stored and self.is_secret(key):
                out[key] = stored[key]
        return out


def register_worker_secrets(raw: Mapping[str, str], resolved: Mapping[str, str]) -> Redactor:
    """Hide the worker config's own secrets (client passwords, provider values) from the logs."""
    return Redactor.for_config(raw, resolved, register=True)
