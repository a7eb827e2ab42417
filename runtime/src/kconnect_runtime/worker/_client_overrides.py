"""The worker's connector client config override policy (``connector.client.config.override.policy``).

Which clients' overrides a connector config is checked for follows Kafka's herders: a
source's producer, a sink's consumer, the admin client when a source uses topic creation
or a sink a dead letter queue, the producer of a sink with a dead letter queue, and (on a
distributed worker) the consumer and admin client of a source that reads its offsets
itself (exactly-once source support, or its own ``offsets.storage.topic``). An override of a
client the connector does not use is not checked, as in Kafka.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kconnect_sdk import (
    ClientType,
    ConfigError,
    ConfigValue,
    ConnectorClientConfigOverridePolicy,
    ConnectorClientConfigRequest,
)
from kconnect_sdk.java import hashmap_order, string_hash

from kconnect_runtime.plugins import PluginKind, PluginRegistry
from kconnect_runtime.tasks import exactly_once_enabled

__all__ = [
    "OVERRIDE_POLICY_CONFIG",
    "client_override_values",
    "load_override_policy",
]

OVERRIDE_POLICY_CONFIG = "connector.client.config.override.policy"
DEFAULT_OVERRIDE_POLICY = "All"
"""Kafka 4.x's default (KIP-722); Kafka 5.0 is to make it ``Allowlist`` (KIP-1188)."""


def load_override_policy(
    registry: PluginRegistry, worker_props: Mapping[str, str]
) -> ConnectorClientConfigOverridePolicy:
    """The policy the worker config names, configured with the worker config.

    Raises:
        ConfigError: naming ``connector.client.config.override.policy`` when the class is
            unknown, cannot be loaded or refuses its configuration.
    """
    name = str(worker_props.get(OVERRIDE_POLICY_CONFIG) or DEFAULT_OVERRIDE_POLICY).strip()
    cls = registry.load(
        name, PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY, key=OVERRIDE_POLICY_CONFIG
    )
    try:
        policy: ConnectorClientConfigOverridePolicy = cls()
        policy.configure(dict(worker_props))
    except Exception as exc:
        raise ConfigError(
            f"config {OVERRIDE_POLICY_CONFIG!r}: policy {name!r} cannot be configured: {exc}",
            name=OVERRIDE_POLICY_CONFIG,
            value=name,
        ) from exc
    return policy


def _clients_used(
    worker_props: Mapping[str, str], props: Mapping[str, Any], *, sink: bool
) -> list[ClientType]:
    """The clients whose overrides Kafka's herder checks, in the order it reports them."""
    dlq = bool(str(props.get("errors.deadletterqueue.topic.name") or "").strip())
    own_offsets = (
        not sink
        and bool(worker_props.get("group.id"))
        and (
            exactly_once_enabled(worker_props)
            or bool(str(props.get("offsets.storage.topic") or "").strip())
        )
    )
    used = []
    if not sink or dlq:
        used.append(ClientType.PRODUCER)
    if sink or own_offsets:
        used.append(ClientType.CONSUMER)
    if (dlq if sink else any(k.startswith("topic.creation.") for k in props)) or own_offsets:
        used.append(ClientType.ADMIN)
    return used


def client_override_values(
    policy: ConnectorClientConfigOverridePolicy,
    worker_props: Mapping[str, str],
    props: Mapping[str, Any],
    *,
    sink: bool,
) -> list[ConfigValue]:
    """What ``policy`` says of each checked override in ``props``, named with its prefix.

    Within a client, in the order Kafka's ``HashMap`` of the overrides gives them, so that
    ``config/validate`` lists them as Kafka does.

    Raises:
        ConfigError: the policy itself failed (a custom policy's bug), naming the policy key.
    """
    out: list[ConfigValue] = []
    for client in _clients_used(worker_props, props, sink=sink):
        names = [k[len(client.prefix) :] for k in props if k.startswith(client.prefix)]
        names = [names[i] for i in hashmap_order([string_hash(n) for n in names])]
        request = ConnectorClientConfigRequest(
            connector_name=str(props.get("name") or ""),
            connector_type="sink" if sink else "source",
            connector_class=str(props.get("connector.class") or ""),
            client_type=client,
            client_props={n: props[client.prefix + n] for n in names},
        )
        try:
            checked = policy.validate(request)
        except Exception as exc:
            raise ConfigError(
                f"the {OVERRIDE_POLICY_CONFIG} ({type(policy).__name__}) failed to check the "
                f"{client.value} overrides: {exc}",
                name=OVERRIDE_POLICY_CONFIG,
            ) from exc
        for value in checked or ():
            out.append(
                ConfigValue(
                    client.prefix + value.name,
                    value.value,
                    list(value.recommended_values),
                    list(value.error_messages),
                    value.visible,
                )
            )
    return out
