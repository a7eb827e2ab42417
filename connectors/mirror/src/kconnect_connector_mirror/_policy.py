"""Replication policies: how remote topics and MirrorMaker's internal topics are named.

A policy is the one place that knows that ``us.orders`` on some cluster is ``orders``
mirrored from cluster ``us``. The connectors use it to name remote topics, to find their
internal topics, and to refuse cycles (a topic that came from the target never goes back);
:class:`~kconnect_connector_mirror.MirrorClient` uses it to read a cluster's topology.
All connectors of a flow, and every client reading it, must use the same policy.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from kconnect_sdk import ConfigError

from ._plugins import instantiate

__all__ = [
    "DefaultReplicationPolicy",
    "IdentityReplicationPolicy",
    "ReplicationPolicy",
    "replication_policy",
]

log = logging.getLogger(__name__)

REPLICATION_POLICY_CLASS: Final = "replication.policy.class"
REPLICATION_POLICY_SEPARATOR: Final = "replication.policy.separator"
INTERNAL_TOPIC_SEPARATOR_ENABLED: Final = "replication.policy.internal.topic.separator.enabled"
SEPARATOR_DEFAULT: Final = "."
POLICY_ENTRY_POINT_GROUP: Final = "kconnect.replication_policies"


class ReplicationPolicy:
    """Kafka's ``ReplicationPolicy``: subclass it and name it in ``replication.policy.class``.

    The three naming methods are abstract; the others have Kafka's defaults. A policy
    that needs settings defines ``configure(props)``, which receives the connector's
    whole config.
    """

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        """The name on the target of ``topic`` mirrored from ``source_cluster_alias``."""
        raise NotImplementedError

    def topic_source(self, topic: str) -> str | None:
        """The alias of the cluster ``topic`` was mirrored from, or None for a local topic."""
        raise NotImplementedError

    def upstream_topic(self, topic: str) -> str | None:
        """The name ``topic`` has on the cluster it came from (itself maybe remote), or None."""
        raise NotImplementedError

    def original_topic(self, topic: str) -> str:
        """The name of the topic at its origin, however many hops away; ``topic`` if local."""
        seen: set[str] = set()
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic or topic in seen:
                return topic
            seen.add(topic)
            topic = upstream

    def heartbeats_topic(self) -> str:
        return "heartbeats"

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return f"mm2-offset-syncs.{cluster_alias}.internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return f"{cluster_alias}.checkpoints.internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.heartbeats_topic() == self.original_topic(topic)

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(".checkpoints.internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """Whether ``topic`` is one of MirrorMaker's own (never mirrored)."""
        return topic.endswith(".internal")

    def is_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's, Kafka's (``__``/``.`` prefix) or Connect's default internal topics."""
        kafka_internal = topic.startswith(("__", "."))
        connect_internal = topic.endswith(("-internal", ".internal"))
        return self.is_mm2_internal_topic(topic) or kafka_internal or connect_internal


def _java_split(text: str, separator: str) -> list[str]:
    # Java's String.split: no match gives the whole string; trailing empty parts are
    # dropped. "us." is therefore no remote topic, while ".x" has the source "".
    if not separator or separator not in text:
        return [text]
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_boolean(value: Any) -> bool:
    # Boolean.parseBoolean: "true" in any case is true, everything else false.
    return str(value).strip().lower() == "true"


class DefaultReplicationPolicy(ReplicationPolicy):
    """Remote topics are ``<source alias><separator><topic>``: ``us.orders``.

    ``replication.policy.separator`` (default ``.``) also goes into the names of the
    offset-syncs and checkpoints topics, unless
    ``replication.policy.internal.topic.separator.enabled=false`` keeps ``.`` there, as
    MirrorMaker releases before Kafka 3.1 named them.
    """

    def __init__(self) -> None:
        self.separator = SEPARATOR_DEFAULT
        self.internal_topic_separator_enabled = True

    def configure(self, props: Mapping[str, Any]) -> None:
        # As Kafka: the internal-topic switch is only read together with a custom separator.
        if REPLICATION_POLICY_SEPARATOR in props:
            self.separator = str(props[REPLICATION_POLICY_SEPARATOR])
            log.info("Using custom remote topic separator: '%s'", self.separator)
            if INTERNAL_TOPIC_SEPARATOR_ENABLED in props:
                enabled = _java_boolean(props[INTERNAL_TOPIC_SEPARATOR_ENABLED])
                self.internal_topic_separator_enabled = enabled
                if not enabled:
                    log.warning(
                        "Disabling custom topic separator for internal topics; will use '.' "
                        "instead of '%s'",
                        self.separator,
                    )

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return source_cluster_alias + self.separator + topic

    def topic_source(self, topic: str) -> str | None:
        parts = _java_split(topic, self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator) :]

    def _internal_separator(self) -> str:
        return self.separator if self.internal_topic_separator_enabled else "."

    def _internal_suffix(self) -> str:
        return self._internal_separator() + "internal"

    def _checkpoints_topic_suffix(self) -> str:
        return self._internal_separator() + "checkpoints" + self._internal_suffix()

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return (
            "mm2-offset-syncs"
            + self._internal_separator()
            + cluster_alias
            + self._internal_suffix()
        )

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return cluster_alias + self._checkpoints_topic_suffix()

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self._checkpoints_topic_suffix())

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return topic.endswith(self._internal_suffix())


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Remote topics keep their names (MirrorMaker 1's behaviour); heartbeats still get the prefix.

    The source of a topic cannot be told from its name, so ``topic_source`` answers the
    configured ``source.cluster.alias`` for every topic, and cycles cannot be detected:
    use it for one-way flows between two clusters only.
    """

    def __init__(self) -> None:
        super().__init__()
        self.source_cluster_alias: str | None = None

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if "source.cluster.alias" in props:
            self.source_cluster_alias = str(props["source.cluster.alias"])
            log.info("Using source cluster alias `%s`.", self.source_cluster_alias)

    def _looks_like_heartbeat(self, topic: str | None) -> bool:
        return topic is not None and topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        if self._looks_like_heartbeat(topic):
            return super().format_remote_topic(source_cluster_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().topic_source(topic)
        return self.source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().upstream_topic(topic)
        return topic


BUILTIN_POLICIES: Final[dict[str, type[ReplicationPolicy]]] = {
    "DefaultReplicationPolicy": DefaultReplicationPolicy,
    "IdentityReplicationPolicy": IdentityReplicationPolicy,
}


def replication_policy(props: Mapping[str, Any]) -> ReplicationPolicy:
    """The policy ``replication.policy.class`` names (default: Kafka's default), configured with ``props``."""
    name = props.get(REPLICATION_POLICY_CLASS) or "DefaultReplicationPolicy"
    if not isinstance(name, str):
        raise ConfigError(f"config '{REPLICATION_POLICY_CLASS}' must be a class name, got {name!r}")
    return instantiate(
        config_key=REPLICATION_POLICY_CLASS,
        name=name,
        base=ReplicationPolicy,
        builtins=BUILTIN_POLICIES,
        group=POLICY_ENTRY_POINT_GROUP,
        props=props,
    )
