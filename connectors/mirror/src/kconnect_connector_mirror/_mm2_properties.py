"""``connect-mirror-maker.properties``: clusters and flows into per-flow connector configs.

Kafka's ``MirrorMakerConfig`` as a pure function, for the dedicated mode: ``clusters``
names the aliases; ``<alias>.*`` are that cluster's settings; ``A->B.*`` configure the
flow from A to B (``A->B.enabled=true`` turns it on); everything else is shared. Each
flow gives a source, a checkpoint and a heartbeat connector config, with the cluster
settings turned into ``source.cluster.*``/``target.cluster.*`` and ``source.*``/
``target.*`` client overrides, as Kafka's driver builds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from kconnect_sdk import ConfigError

from ._config import CHECKPOINT_CONFIG_DEF, HEARTBEAT_CONFIG_DEF, SOURCE_CONFIG_DEF

__all__ = ["MirrorFlow", "mirror_maker_flows"]

# In the order Kafka's MirrorMaker configures them.
CONNECTOR_CLASSES: Final = (
    "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
    "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
)
BYTE_ARRAY_CONVERTER: Final = "org.apache.kafka.connect.converters.ByteArrayConverter"
_CLIENT_KIND: Final = re.compile(r"^(consumer|producer|admin)")


def _is_client_config(name: str) -> bool:
    return name in ("bootstrap.servers", "security.protocol") or name.startswith(("ssl.", "sasl."))


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _java_true(value: str | None) -> bool:
    return value is not None and value.strip().lower() == "true"


@dataclass(frozen=True)
class MirrorFlow:
    """One ``source->target`` flow: its worker settings and its three connector configs."""

    source: str
    target: str
    worker_config: dict[str, str] = field(default_factory=dict)
    connectors: dict[str, dict[str, str]] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


class _Props:
    def __init__(self, raw: Mapping[str, str]) -> None:
        self.raw = {k.strip(): v.strip() for k, v in raw.items()}

    def stripped(self, prefix: str) -> dict[str, str]:
        return {k[len(prefix) :]: v for k, v in self.raw.items() if k.startswith(prefix)}

    def with_prefix(self, prefix: str) -> dict[str, str]:
        return {k: v for k, v in self.raw.items() if k.startswith(prefix)}

    def cluster_props(self, cluster: str) -> dict[str, str]:
        props = self.stripped(cluster + ".")
        for source in (dict(props), self.raw):
            for key, value in source.items():
                if _is_client_config(key):
                    for kind in ("producer", "consumer", "admin"):
                        props.setdefault(f"{kind}.{key}", value)
                    if source is self.raw:
                        props.setdefault(key, value)
        return props


# Kafka's ConnectorConfig.configDef() (Kafka 4.1): the Mirror*Config definitions extend it,
# so a top-level ``tasks.max`` or ``errors.tolerance`` reaches every connector.
_CONNECT_CONNECTOR_NAMES: Final = frozenset(
    {
        "name",
        "connector.class",
        "connector.plugin.version",
        "tasks.max",
        "tasks.max.enforce",
        "key.converter",
        "key.converter.plugin.version",
        "value.converter",
        "value.converter.plugin.version",
        "header.converter",
        "header.converter.plugin.version",
        "transforms",
        "predicates",
        "config.action.reload",
        "errors.retry.timeout",
        "errors.retry.delay.max.ms",
        "errors.tolerance",
        "errors.log.enable",
        "errors.log.include.messages",
    }
)
_ALL_CONNECTOR_NAMES: Final = (
    SOURCE_CONFIG_DEF.names()
    | CHECKPOINT_CONFIG_DEF.names()
    | HEARTBEAT_CONFIG_DEF.names()
    | _CONNECT_CONNECTOR_NAMES
)


def _pairs(props: _Props, clusters: list[str]) -> Iterator[tuple[str, str]]:
    heartbeats_default = props.raw.get("emit.heartbeats.enabled")
    global_heartbeats = True if heartbeats_default is None else _java_true(heartbeats_default)
    for source in clusters:
        for target in clusters:
            if source == target:
                continue
            prefix = f"{source}->{target}."
            enabled = _java_true(props.raw.get(prefix + "enabled"))
            own = props.raw.get(prefix + "emit.heartbeats.enabled")
            heartbeats = global_heartbeats if own is None else _java_true(own)
            # A flow A->B also needs B->A to exist for A's heartbeats (emitted into A):
            # Kafka creates every pair unless heartbeats are switched off.
            if enabled or heartbeats:
                yield source, target


def _connector_config(
    props: _Props, source: str, target: str, connector_class: str
) -> dict[str, str]:
    config = {k: v for k, v in props.raw.items() if k in _ALL_CONNECTOR_NAMES}
    config.update(props.with_prefix("config.providers"))
    config.update(props.with_prefix("replication.policy"))
    for alias, cluster_prefix, client_prefix in (
        (source, "source.cluster.", "source."),
        (target, "target.cluster.", "target."),
    ):
        cluster = props.cluster_props(alias)
        for key, value in cluster.items():
            if _CLIENT_KIND.match(key):
                config[client_prefix + key] = value
            else:
                config[cluster_prefix + key] = value
    simple = connector_class.rpartition(".")[2]
    config.setdefault("name", simple)
    config.setdefault("connector.class", connector_class)
    config.setdefault("source.cluster.alias", source)
    config.setdefault("target.cluster.alias", target)
    config.update(props.stripped(f"{source}->{target}."))
    config.setdefault("enabled", "false")
    return config


def _worker_config(props: _Props, source: str, target: str) -> dict[str, str]:
    config = props.cluster_props(target)
    for prefix in (
        "offset.storage",
        "config.storage",
        "status.storage",
        "key.converter",
        "value.converter",
        "header.converter",
        "task",
        "worker",
        "replication.policy",
        "config.providers",
    ):
        config.update(props.with_prefix(prefix))
    config.setdefault("client.id", f"{source}->{target}")
    config.setdefault("group.id", f"{source}-mm2")
    config.setdefault("offset.storage.topic", f"mm2-offsets.{source}.internal")
    config.setdefault("status.storage.topic", f"mm2-status.{source}.internal")
    config.setdefault("config.storage.topic", f"mm2-configs.{source}.internal")
    config.setdefault("key.converter", BYTE_ARRAY_CONVERTER)
    config.setdefault("value.converter", BYTE_ARRAY_CONVERTER)
    config.setdefault("header.converter", BYTE_ARRAY_CONVERTER)
    return config


def mirror_maker_flows(
    raw: Mapping[str, str], *, clusters: Iterable[str] | None = None
) -> list[MirrorFlow]:
    """The flows of a ``connect-mirror-maker.properties`` (already parsed into a dict).

    ``clusters`` keeps only flows whose target is one of them, as ``--clusters`` does.
    Flows come in the order of the ``clusters`` list, source first.
    """
    props = _Props(raw)
    if "clusters" not in props.raw:
        raise ConfigError(
            "connect-mirror-maker.properties: 'clusters' is required (the cluster aliases, "
            "e.g. clusters = eu, us)"
        )
    aliases = _list(props.raw["clusters"])
    wanted = None if clusters is None else set(clusters)
    flows = []
    for source, target in _pairs(props, aliases):
        if wanted is not None and target not in wanted:
            continue
        connectors = {
            cls.rpartition(".")[2]: _connector_config(props, source, target, cls)
            for cls in CONNECTOR_CLASSES
        }
        flows.append(MirrorFlow(source, target, _worker_config(props, source, target), connectors))
    return flows
