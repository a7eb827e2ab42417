"""Connector client config override policies: which ``*.override.*`` keys a connector may set.

The Python counterpart of Kafka's ``ConnectorClientConfigOverridePolicy``. A worker applies
one policy (``connector.client.config.override.policy``) to every connector config it
validates, creates or updates: each key a connector sets under ``producer.override.``,
``consumer.override.`` or ``admin.override.`` is offered to the policy, prefix stripped, and
a key the policy refuses is an error on that key (``config/validate``) or a 400 (create,
update). A custom policy is a plugin of the ``kconnect.connector_client_config_override_policies``
entry-point group::

    class SaslOnly(ConnectorClientConfigOverridePolicy):
        def policy_name(self) -> str:
            return "SaslOnly"

        def is_allowed(self, name: str, value: object) -> bool:
            return name.startswith("sasl.")

Kafka's built-in policies are here too, under Kafka's class names and aliases: ``All`` (the
default, as in Kafka 4.x), ``None``, ``Principal`` and ``Allowlist`` (KIP-1188, with
``connector.client.config.override.allowlist``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ._config import ConfigValue
from ._versioned import Versioned

__all__ = [
    "ALLOWLIST_CONFIG",
    "AllConnectorClientConfigOverridePolicy",
    "AllowlistConnectorClientConfigOverridePolicy",
    "ClientType",
    "ConnectorClientConfigOverridePolicy",
    "ConnectorClientConfigRequest",
    "NoneConnectorClientConfigOverridePolicy",
    "PrincipalConnectorClientConfigOverridePolicy",
]

ALLOWLIST_CONFIG: Final = "connector.client.config.override.allowlist"
"""The worker key listing what the ``Allowlist`` policy lets connectors override (KIP-1188)."""


class ClientType(StrEnum):
    """Which of a connector's Kafka clients an override is for (Kafka's ``ClientType``)."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    ADMIN = "admin"

    @property
    def prefix(self) -> str:
        """The connector-config prefix of this client's overrides (``producer.override.``)."""
        return f"{self.value}.override."


@dataclass(frozen=True, slots=True)
class ConnectorClientConfigRequest:
    """What a policy is asked about: one client's overrides of one connector.

    Attributes:
        connector_name: the connector's ``name``.
        connector_type: ``"source"`` or ``"sink"``.
        connector_class: the connector's class as the config names it.
        client_type: the client the overrides are for.
        client_props: the overrides, prefix stripped (``{"linger.ms": "5"}``).
    """

    connector_name: str
    connector_type: str
    connector_class: str
    client_type: ClientType
    client_props: Mapping[str, Any] = field(default_factory=dict)


class ConnectorClientConfigOverridePolicy(Versioned):
    """Base of override policies (Kafka's ``ConnectorClientConfigOverridePolicy``).

    The worker creates one instance at start, hands it the whole worker config through
    :meth:`configure`, asks :meth:`validate` for every connector config and calls
    :meth:`close` on shutdown. ``validate`` may be called from several threads at once.

    Subclasses usually implement :meth:`policy_name` and :meth:`is_allowed`; the default
    :meth:`validate` then refuses a key with Kafka's message ("The 'None' policy does not
    allow 'linger.ms' to be overridden in the connector configuration."). Override
    :meth:`validate` itself to judge values or combinations of keys.
    """

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive the worker config (every key, as the worker properties give them)."""

    def policy_name(self) -> str:
        """The name error messages give this policy (Kafka's ``policyName()``)."""
        return type(self).__name__

    def is_allowed(self, name: str, value: Any) -> bool:
        """Whether a connector may set client config ``name`` (prefix stripped) to ``value``."""
        raise NotImplementedError

    def validate(self, request: ConnectorClientConfigRequest) -> list[ConfigValue]:
        """One :class:`ConfigValue` per override in ``request``, with an error if refused.

        Names are the client's keys (prefix stripped); the worker adds the prefix back.
        """
        out = []
        for name, value in request.client_props.items():
            checked = ConfigValue(name, value)
            if not self.is_allowed(name, value):
                checked.add_error_message(
                    f"The '{self.policy_name()}' policy does not allow '{name}' to be "
                    "overridden in the connector configuration."
                )
            out.append(checked)
        return out

    def close(self) -> None:
        """Release resources; the policy is not used afterwards."""


class AllConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """``All``: connectors may override every client config (Kafka 4.x's default)."""

    def policy_name(self) -> str:
        return "All"

    def is_allowed(self, name: str, value: Any) -> bool:
        return True


class NoneConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """``None``: connectors may override no client config."""

    def policy_name(self) -> str:
        return "None"

    def is_allowed(self, name: str, value: Any) -> bool:
        return False


class PrincipalConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """``Principal``: connectors may set only their own identity: ``sasl.jaas.config``,
    ``sasl.mechanism`` and ``security.protocol`` (deprecated in Kafka 4.2 for ``Allowlist``)."""

    ALLOWED: Final = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})

    def policy_name(self) -> str:
        return "Principal"

    def is_allowed(self, name: str, value: Any) -> bool:
        return name in self.ALLOWED


class AllowlistConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """``Allowlist`` (KIP-1188): connectors may override exactly the client configs listed in
    the worker's ``connector.client.config.override.allowlist`` (comma-separated; empty or
    unset: none)."""

    def __init__(self) -> None:
        self.allowlist: frozenset[str] = frozenset()

    def configure(self, configs: Mapping[str, Any]) -> None:
        raw = configs.get(ALLOWLIST_CONFIG) or ""
        items = raw if isinstance(raw, list | tuple) else str(raw).split(",")
        self.allowlist = frozenset(str(item).strip() for item in items if str(item).strip())

    def policy_name(self) -> str:
        return "Allowlist"

    def is_allowed(self, name: str, value: Any) -> bool:
        return name in self.allowlist
