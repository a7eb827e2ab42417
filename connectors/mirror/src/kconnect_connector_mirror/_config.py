"""The three connectors' configs, as Kafka's ``Mirror*Config`` classes define them.

Besides its own keys, a MirrorMaker connector config carries client settings for both
clusters: ``source.cluster.*`` and ``target.cluster.*`` (connection and security, for
every client of that cluster), ``producer.*``/``consumer.*``/``admin.*`` (one kind of
client on either cluster) and ``source.consumer.*``, ``target.admin.*`` ... (one kind on
one cluster), later ones winning. Every client id says which flow, connector and role
it serves (``us->eu|mirror-source|replication-consumer``), as Kafka's do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from kconnect_sdk import ConfigDef, ConfigType, Importance, ParsedConfig, ValidString

from ._filters import (
    CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
    GROUPS_EXCLUDE_DEFAULT,
    GROUPS_INCLUDE_DEFAULT,
    TOPICS_EXCLUDE_DEFAULT,
    TOPICS_INCLUDE_DEFAULT,
)
from ._policy import ReplicationPolicy, replication_policy

__all__ = [
    "CHECKPOINT_CONFIG_DEF",
    "HEARTBEAT_CONFIG_DEF",
    "SOURCE_CONFIG_DEF",
    "MirrorConfig",
]

SOURCE_CLUSTER_PREFIX: Final = "source.cluster."
TARGET_CLUSTER_PREFIX: Final = "target.cluster."
TASK_TOPIC_PARTITIONS: Final = "task.assigned.partitions"
TASK_CONSUMER_GROUPS: Final = "task.assigned.groups"
TASK_INDEX: Final = "task.index"
OFFSET_SYNCS_CLIENT_ROLE_PREFIX: Final = "offset-syncs-"
OFFSET_SYNCS_TOPIC_CONFIG_PREFIX: Final = "offset-syncs.topic."


def _is_client_config(name: str) -> bool:
    # Kafka's MirrorClientConfig.CLIENT_CONFIG_DEF: connection and security settings only.
    return name in ("bootstrap.servers", "security.protocol") or name.startswith(("ssl.", "sasl."))


_CLIENT_PREFIXES: Final = {
    SOURCE_CLUSTER_PREFIX: "Connection and security settings of every client of the source "
    "cluster (bootstrap.servers, security.protocol, ssl.*, sasl.*).",
    TARGET_CLUSTER_PREFIX: "Connection and security settings of every client of the target "
    "cluster.",
    "producer.": "Settings of the connector's producers, on either cluster.",
    "consumer.": "Settings of the connector's consumers, on either cluster.",
    "admin.": "Settings of the connector's admin clients, on either cluster.",
    **{
        f"{side}.{kind}.": f"Settings of the connector's {kind} clients of the {side} cluster "
        f"(over {kind}.* and {side}.cluster.*)."
        for side in ("source", "target")
        for kind in ("producer", "consumer", "admin")
    },
    "replication.policy.": "Settings of a custom replication.policy.class.",
    "config.providers": "Passed on by the dedicated mode, as Kafka's; the worker's config "
    "providers resolve placeholders.",
}
"""Key families every MirrorMaker connector reads without defining each key (Kafka's
``MirrorConnectorConfig`` prefixes, and what ``MirrorMakerConfig`` passes on)."""


def _base() -> ConfigDef:
    definition = ConfigDef()
    for prefix, documentation in _CLIENT_PREFIXES.items():
        definition.accept_prefix(prefix, documentation)
    return (
        definition.define(
            "enabled",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to replicate source->target.",
        )
        .define(
            "source.cluster.alias",
            ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="Alias of source cluster",
        )
        .define(
            "target.cluster.alias",
            ConfigType.STRING,
            "target",
            importance=Importance.HIGH,
            documentation="Alias of target cluster. Used in metrics reporting.",
        )
        .define(
            "admin.timeout.ms",
            ConfigType.LONG,
            60000,
            importance=Importance.LOW,
            documentation="Timeout for administrative tasks, e.g. detecting new topics.",
        )
        .define(
            "replication.policy.class",
            ConfigType.CLASS,
            "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
            importance=Importance.LOW,
            documentation="Class which defines the remote topic naming convention.",
        )
        .define(
            "replication.policy.separator",
            ConfigType.STRING,
            ".",
            importance=Importance.LOW,
            documentation="Separator used in remote topic naming convention.",
        )
        .define(
            "replication.policy.internal.topic.separator.enabled",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to use replication.policy.separator to control the names "
            "of topics used for checkpoints and offset syncs. Set it to 'false' to keep the "
            "'.' names of MirrorMaker releases that did not let these names be customized.",
        )
        .define(
            "forwarding.admin.class",
            ConfigType.CLASS,
            "org.apache.kafka.clients.admin.ForwardingAdmin",
            importance=Importance.LOW,
            documentation="Accepted for compatibility; kconnect always talks to the "
            "clusters through Kafka's admin API.",
        )
        .define(
            "metric.reporters",
            ConfigType.LIST,
            "org.apache.kafka.common.metrics.JmxReporter",
            importance=Importance.LOW,
            documentation="Accepted for compatibility; metrics go to the worker's metrics.",
        )
        .define(
            "security.protocol",
            ConfigType.STRING,
            "PLAINTEXT",
            ValidString.one_of(
                "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL", case_insensitive=True
            ),
            importance=Importance.MEDIUM,
            documentation="Protocol used to communicate with brokers.",
        )
    )


def _offset_syncs_location(definition: ConfigDef) -> ConfigDef:
    return definition.define(
        "offset-syncs.topic.location",
        ConfigType.STRING,
        "source",
        ValidString.one_of("source", "target"),
        importance=Importance.LOW,
        documentation="The location (source/target) of the offset-syncs topic.",
    )


def _poll_timeout(definition: ConfigDef) -> ConfigDef:
    return definition.define(
        "consumer.poll.timeout.ms",
        ConfigType.LONG,
        1000,
        importance=Importance.LOW,
        documentation="Timeout when polling source cluster.",
    )


def _topic_filter_class(definition: ConfigDef) -> ConfigDef:
    return definition.define(
        "topic.filter.class",
        ConfigType.CLASS,
        "org.apache.kafka.connect.mirror.DefaultTopicFilter",
        importance=Importance.LOW,
        documentation="TopicFilter to use. Selects topics to replicate.",
    )


SOURCE_CONFIG_DEF: Final = _offset_syncs_location(
    _topic_filter_class(
        _poll_timeout(
            _base()
            .define(
                "topics",
                ConfigType.LIST,
                TOPICS_INCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Topics to replicate. Supports comma-separated topic names and regexes.",
            )
            .define(
                "topics.exclude",
                ConfigType.LIST,
                TOPICS_EXCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Excluded topics. Supports comma-separated topic names and regexes. "
                "Excludes take precedence over includes.",
            )
            .define(
                "config.properties.exclude",
                ConfigType.LIST,
                CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Topic config properties that should not be replicated. Supports "
                "comma-separated property names and regexes.",
            )
            .define(
                "use.defaults.from",
                ConfigType.STRING,
                "target",
                ValidString.one_of("source", "target"),
                importance=Importance.MEDIUM,
                documentation="Which cluster's defaults (source or target) to use when syncing "
                "topic configurations that have default values.",
            )
            .define(
                "config.property.filter.class",
                ConfigType.CLASS,
                "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter",
                importance=Importance.LOW,
                documentation="ConfigPropertyFilter to use. Selects topic config properties to replicate.",
            )
        )
    )
    .define(
        "refresh.topics.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to periodically check for new topics and partitions.",
    )
    .define(
        "refresh.topics.interval.seconds",
        ConfigType.LONG,
        600,
        importance=Importance.LOW,
        documentation="Frequency of topic refresh.",
    )
    .define(
        "sync.topic.configs.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to periodically configure remote topics to match their "
        "corresponding upstream topics.",
    )
    .define(
        "sync.topic.configs.interval.seconds",
        ConfigType.LONG,
        600,
        importance=Importance.LOW,
        documentation="Frequency of topic config sync.",
    )
    .define(
        "sync.topic.acls.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to periodically configure remote topic ACLs to match their "
        "corresponding upstream topics. Not implemented yet: ACLs are not copied.",
    )
    .define(
        "sync.topic.acls.interval.seconds",
        ConfigType.LONG,
        600,
        importance=Importance.LOW,
        documentation="Frequency of topic ACL sync.",
    )
    .define(
        "replication.factor",
        ConfigType.INT,
        2,
        importance=Importance.LOW,
        documentation="Replication factor for newly created remote topics (-1: the target "
        "broker's default).",
    )
    .define(
        "offset-syncs.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=Importance.LOW,
        documentation="Replication factor for offset-syncs topic.",
    )
    .define(
        "offset.lag.max",
        ConfigType.LONG,
        100,
        importance=Importance.LOW,
        documentation="How out-of-sync a remote partition can be before it is resynced.",
    )
    .define(
        "emit.offset-syncs.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to store the new offset of the replicated records in the "
        "offset-syncs topic. MirrorCheckpointConnector cannot emit checkpoints or sync "
        "group offsets without them.",
    )
    .define(
        "heartbeats.replication.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to replicate the heartbeats topics even when the topic filter "
        "does not include them.",
    )
)

CHECKPOINT_CONFIG_DEF: Final = _topic_filter_class(
    _offset_syncs_location(
        _poll_timeout(
            _base()
            .define(
                "groups",
                ConfigType.LIST,
                GROUPS_INCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Consumer groups to replicate. Supports comma-separated group IDs and regexes.",
            )
            .define(
                "groups.exclude",
                ConfigType.LIST,
                GROUPS_EXCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Exclude groups. Supports comma-separated group IDs and regexes. "
                "Excludes take precedence over includes.",
            )
            .define(
                "group.filter.class",
                ConfigType.CLASS,
                "org.apache.kafka.connect.mirror.DefaultGroupFilter",
                importance=Importance.LOW,
                documentation="GroupFilter to use. Selects consumer groups to replicate.",
            )
            .define(
                "refresh.groups.enabled",
                ConfigType.BOOLEAN,
                True,
                importance=Importance.LOW,
                documentation="Whether to periodically check for new consumer groups.",
            )
            .define(
                "refresh.groups.interval.seconds",
                ConfigType.LONG,
                600,
                importance=Importance.LOW,
                documentation="Frequency of group refresh.",
            )
            .define(
                "emit.checkpoints.enabled",
                ConfigType.BOOLEAN,
                True,
                importance=Importance.LOW,
                documentation="Whether to replicate consumer offsets to target cluster.",
            )
            .define(
                "emit.checkpoints.interval.seconds",
                ConfigType.LONG,
                60,
                importance=Importance.LOW,
                documentation="Frequency of checkpoints.",
            )
            .define(
                "sync.group.offsets.enabled",
                ConfigType.BOOLEAN,
                False,
                importance=Importance.LOW,
                documentation="Whether to periodically write the translated offsets to "
                "__consumer_offsets topic in target cluster, as long as no active consumers in that "
                "group are connected to the target cluster",
            )
            .define(
                "sync.group.offsets.interval.seconds",
                ConfigType.LONG,
                60,
                importance=Importance.LOW,
                documentation="Frequency of consumer group offset sync.",
            )
            .define(
                "checkpoints.topic.replication.factor",
                ConfigType.SHORT,
                3,
                importance=Importance.LOW,
                documentation="Replication factor for checkpoints topic.",
            )
            .define(
                "topics",
                ConfigType.LIST,
                TOPICS_INCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Topics whose consumer offsets are checkpointed.",
            )
            .define(
                "topics.exclude",
                ConfigType.LIST,
                TOPICS_EXCLUDE_DEFAULT,
                importance=Importance.HIGH,
                documentation="Topics whose consumer offsets are not checkpointed.",
            )
        )
    )
)

HEARTBEAT_CONFIG_DEF: Final = (
    _base()
    .define(
        "emit.heartbeats.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Whether to emit heartbeats to target cluster.",
    )
    .define(
        "emit.heartbeats.interval.seconds",
        ConfigType.LONG,
        1,
        importance=Importance.LOW,
        documentation="Frequency of heartbeats.",
    )
    .define(
        "heartbeats.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=Importance.LOW,
        documentation="Replication factor for heartbeats topic.",
    )
)


def _know_each_others_keys(*definitions: ConfigDef) -> None:
    """Kafka's dedicated mode gives each connector of a flow the keys of all three
    (``MirrorMakerConfig.connectorBaseConfig``), and a checkpoint connector reads a source
    key (``emit.offset-syncs.enabled``): every connector knows the others' keys, as
    internal ones (parsed alike, left out of its documented table)."""
    for definition in definitions:
        for other in definitions:
            for key in list(other.config_keys.values()):
                if key.name not in definition:
                    definition.define_key(dataclasses.replace(key, internal=True))


_know_each_others_keys(SOURCE_CONFIG_DEF, CHECKPOINT_CONFIG_DEF, HEARTBEAT_CONFIG_DEF)


class MirrorConfig:
    """A parsed MirrorMaker connector or task config: aliases, policy, intervals, clients."""

    def __init__(self, definition: ConfigDef, props: Mapping[str, str]) -> None:
        self.originals: dict[str, str] = dict(props)
        self.values: ParsedConfig = definition.parse(props)
        self._policy: ReplicationPolicy | None = None

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def enabled(self) -> bool:
        return bool(self.values["enabled"])

    @property
    def source_cluster_alias(self) -> str:
        return str(self.values["source.cluster.alias"])

    @property
    def target_cluster_alias(self) -> str:
        return str(self.values["target.cluster.alias"])

    @property
    def connector_name(self) -> str:
        return self.originals.get("name", "")

    @property
    def replication_policy(self) -> ReplicationPolicy:
        if self._policy is None:
            self._policy = replication_policy(self.originals)
        return self._policy

    @property
    def admin_timeout_s(self) -> float:
        return int(self.values["admin.timeout.ms"]) / 1000.0

    def interval_s(self, name: str) -> float:
        """``<name>.interval.seconds``, or -1 when ``<name>.enabled`` is false (disabled)."""
        if not self.values[f"{name}.enabled"]:
            return -1.0
        return float(self.values[f"{name}.interval.seconds"])

    def entity_label(self) -> str:
        label = f"{self.source_cluster_alias}->{self.target_cluster_alias}|{self.connector_name}"
        if TASK_INDEX in self.originals:
            label += f"-{self.originals[TASK_INDEX]}"
        return label

    def _with_prefix(self, prefix: str) -> dict[str, str]:
        return {k[len(prefix) :]: v for k, v in self.originals.items() if k.startswith(prefix)}

    def _client(self, cluster: str, kind: str, role: str | None) -> dict[str, Any]:
        cluster_prefix = SOURCE_CLUSTER_PREFIX if cluster == "source" else TARGET_CLUSTER_PREFIX
        props: dict[str, Any] = {
            k: v for k, v in self._with_prefix(cluster_prefix).items() if _is_client_config(k)
        }
        props.update(self._with_prefix(f"{kind}."))
        props.update(self._with_prefix(f"{cluster}.{kind}."))
        if kind == "consumer":
            props["enable.auto.commit"] = "false"
            props.setdefault("auto.offset.reset", "earliest")
        client_id = self.entity_label() + ("" if role is None else f"|{role}")
        user_id = props.get("client.id")
        props["client.id"] = client_id if user_id is None else f"{user_id}|{client_id}"
        return props

    def source_consumer_config(self, role: str) -> dict[str, Any]:
        return self._client("source", "consumer", role)

    def source_producer_config(self, role: str) -> dict[str, Any]:
        return self._client("source", "producer", role)

    def source_admin_config(self, role: str) -> dict[str, Any]:
        return self._client("source", "admin", role)

    def target_consumer_config(self, role: str) -> dict[str, Any]:
        return self._client("target", "consumer", role)

    def target_producer_config(self, role: str) -> dict[str, Any]:
        return self._client("target", "producer", role)

    def target_admin_config(self, role: str) -> dict[str, Any]:
        return self._client("target", "admin", role)

    # Where the offset-syncs topic lives, and what it is called: named after the *other*
    # cluster, so that one source cluster can hold the syncs of several targets.
    @property
    def offset_syncs_on_source(self) -> bool:
        return bool(self.values["offset-syncs.topic.location"] == "source")

    def offset_syncs_topic(self) -> str:
        other = (
            self.target_cluster_alias if self.offset_syncs_on_source else self.source_cluster_alias
        )
        return self.replication_policy.offset_syncs_topic(other)

    def offset_syncs_admin_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_admin_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-admin")
        return self.target_admin_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-admin")

    def offset_syncs_producer_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_producer_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-producer")
        return self.target_producer_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-producer")

    def offset_syncs_consumer_config(self) -> dict[str, Any]:
        if self.offset_syncs_on_source:
            return self.source_consumer_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "source-consumer")
        return self.target_consumer_config(OFFSET_SYNCS_CLIENT_ROLE_PREFIX + "target-consumer")

    def checkpoints_topic(self) -> str:
        return self.replication_policy.checkpoints_topic(self.source_cluster_alias)


def task_config(props: Mapping[str, str], extra: Mapping[str, str], index: int) -> dict[str, str]:
    """A task's config: the connector's, plus its assignment and index."""
    config = dict(props)
    config.update(extra)
    config[TASK_INDEX] = str(index)
    return config
