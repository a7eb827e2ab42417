"""Config definitions of the worker and of connectors, with Apache Kafka Connect's keys."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    ParsedConfig,
    Range,
    ValidString,
    non_empty_string,
)

from ._spark import SPARK_ENGINE_CONFIG

__all__ = [
    "CONNECTOR_CONFIG",
    "SINK_CONNECTOR_CONFIG",
    "SOURCE_CONNECTOR_CONFIG",
    "WORKER_CONFIG",
    "parse_connector_config",
    "parse_worker_config",
]

H, M, L = Importance.HIGH, Importance.MEDIUM, Importance.LOW

# Set by the runtime itself (never by users) when it starts a schema registry beside the
# embedded development broker: converters that declare schema.registry.url but set none get it.
EMBEDDED_SCHEMA_REGISTRY_URL = "kconnect.embedded.schema.registry.url"

WORKER_CONFIG = (
    ConfigDef()
    .define(
        "bootstrap.servers",
        ConfigType.LIST,
        None,
        importance=H,
        documentation="Kafka brokers to connect to. When unset, the worker starts an embedded, "
        "memory-only development broker (needs the kconnect-runtime[dev] extra).",
    )
    .define(
        "key.converter", ConfigType.CLASS, importance=H, documentation="Converter for record keys."
    )
    .define(
        "value.converter",
        ConfigType.CLASS,
        importance=H,
        documentation="Converter for record values.",
    )
    .define(
        "header.converter",
        ConfigType.CLASS,
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
        importance=L,
        documentation="Converter for header values.",
    )
    .define(
        "offset.storage.file.filename",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="File where a standalone worker stores source offsets.",
    )
    .define(
        "offset.flush.interval.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(0),
        importance=L,
        documentation="How often source offsets are committed and sink offsets pre-committed.",
    )
    .define(
        "offset.flush.timeout.ms",
        ConfigType.LONG,
        5000,
        Range.at_least(0),
        importance=L,
        documentation="How long to wait for records to be acknowledged before an offset commit gives up.",
    )
    .define(
        "task.shutdown.graceful.timeout.ms",
        ConfigType.LONG,
        5000,
        Range.at_least(0),
        importance=L,
        documentation="How long to wait for tasks to stop before abandoning them.",
    )
    .define(
        "listeners",
        ConfigType.LIST,
        "http://0.0.0.0:8083",
        importance=L,
        documentation="REST API listeners (http://host:port). An empty list disables the REST API.",
    )
    .define(
        "plugin.path",
        ConfigType.LIST,
        None,
        importance=L,
        documentation="Isolated plugin locations.",
    )
    .define(
        "engine",
        ConfigType.STRING,
        "local",
        ValidString.one_of("local", "spark"),
        importance=M,
        documentation="Where task code runs: 'local' (threads in this process) or 'spark' "
        "(Spark jobs through PySpark; this process is the driver; see docs/spark.md).",
    )
    .embed("", "Spark engine", 0, SPARK_ENGINE_CONFIG)
    .define(
        "consumer.session.timeout.ms",
        ConfigType.INT,
        None,
        importance=L,
        documentation="Sink consumers' session timeout; with the embedded broker it defaults to 6000.",
    )
    .define(
        "topic.creation.enable",
        ConfigType.BOOLEAN,
        True,
        importance=L,
        documentation="Whether source connectors may create their topics (topic.creation.default.*).",
    )
    .define(
        "task.liveness.timeout.ms",
        ConfigType.LONG,
        300000,
        Range.at_least(0),
        importance=L,
        documentation="A running task that shows no progress (no poll/consume/put returning) for this "
        "long is marked FAILED with the stack it is stuck in; 0 disables the bound.",
    )
    .define(
        "group.id",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="Distributed: the Connect cluster.",
    )
    .define(
        "config.storage.topic",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="Distributed: compacted topic holding connector configs, task configs and "
        "target states (one partition).",
    )
    .define(
        "config.storage.replication.factor",
        ConfigType.SHORT,
        3,
        importance=L,
        documentation="Distributed: replication factor of config.storage.topic when created; "
        "-1 for the broker's default.",
    )
    .define(
        "offset.storage.topic",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="Distributed: compacted topic holding source connector offsets.",
    )
    .define(
        "offset.storage.partitions",
        ConfigType.INT,
        25,
        importance=L,
        documentation="Distributed: partitions of offset.storage.topic when created.",
    )
    .define(
        "offset.storage.replication.factor",
        ConfigType.SHORT,
        3,
        importance=L,
        documentation="Distributed: replication factor of offset.storage.topic when created.",
    )
    .define(
        "status.storage.topic",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="Distributed: compacted topic holding connector and task statuses.",
    )
    .define(
        "status.storage.partitions",
        ConfigType.INT,
        5,
        importance=L,
        documentation="Distributed: partitions of status.storage.topic when created.",
    )
    .define(
        "status.storage.replication.factor",
        ConfigType.SHORT,
        3,
        importance=L,
        documentation="Distributed: replication factor of status.storage.topic when created.",
    )
    # -- distributed mode's group (issue 19; Kafka's DistributedConfig keys and defaults) --
    .define(
        "session.timeout.ms",
        ConfigType.INT,
        10000,
        importance=H,
        documentation="Distributed: a worker whose heartbeats stop for this long leaves the group "
        "and its connectors are reassigned (after scheduled.rebalance.max.delay.ms).",
    )
    .define(
        "heartbeat.interval.ms",
        ConfigType.INT,
        3000,
        importance=H,
        documentation="Distributed: how often a worker heartbeats to the group coordinator; "
        "below a third of session.timeout.ms.",
    )
    .define(
        "rebalance.timeout.ms",
        ConfigType.INT,
        60000,
        importance=H,
        documentation="Distributed: how long the group waits for every worker to rejoin "
        "during a rebalance.",
    )
    .define(
        "scheduled.rebalance.max.delay.ms",
        ConfigType.INT,
        300000,
        Range.between(0, 2147483647),
        importance=L,
        documentation="Distributed: how long the connectors of a departed worker wait for it to "
        "come back before they are assigned to the others (0: at once).",
    )
    .define(
        "connect.protocol",
        ConfigType.STRING,
        "sessioned",
        ValidString.one_of("eager", "compatible", "sessioned"),
        importance=L,
        documentation="Distributed: accepted for compatibility; kconnect workers always "
        "rebalance incrementally (see docs/distributed.md).",
    )
    .define(
        "topic.tracking.enable",
        ConfigType.BOOLEAN,
        True,
        importance=L,
        documentation="Track the topics each connector uses (GET /connectors/{name}/topics).",
    )
    .define(
        "topic.tracking.allow.reset",
        ConfigType.BOOLEAN,
        True,
        importance=L,
        documentation="Allow PUT /connectors/{name}/topics/reset.",
    )
    # issue 24: CORS, as Kafka's RestServerConfig (empty origin: cross-origin calls refused).
    .define(
        "access.control.allow.origin",
        ConfigType.STRING,
        "",
        importance=L,
        documentation="Value to set the Access-Control-Allow-Origin header to for REST API "
        "requests: '*' or a comma-separated list of origins (an origin may contain '*'). "
        "Empty: cross-origin requests are not allowed.",
    )
    .define(
        "access.control.allow.methods",
        ConfigType.STRING,
        "",
        importance=L,
        documentation="Methods allowed in cross-origin requests (comma-separated). Empty: "
        "GET, POST and HEAD.",
    )
    .define(
        "rest.basic.auth.user.file",
        ConfigType.STRING,
        None,
        importance=M,
        documentation="kconnect: require HTTP basic authentication on the REST API, with users "
        "from this file (lines 'user: password[,role...]', as Kafka's basic-auth extension).",
    )
    .define(
        "listeners.https.ssl.certificate.location",
        ConfigType.STRING,
        None,
        importance=M,
        documentation="kconnect: PEM certificate (chain) served by https:// listeners.",
    )
    .define(
        "listeners.https.ssl.key.location",
        ConfigType.STRING,
        None,
        importance=M,
        documentation="kconnect: PEM private key of listeners.https.ssl.certificate.location.",
    )
    .define(
        "listeners.https.ssl.key.password",
        ConfigType.PASSWORD,
        None,
        importance=M,
        documentation="kconnect: password of an encrypted listeners.https.ssl.key.location.",
    )
    # -- issue 20: exactly-once sources (KIP-618) ---------------------------------------
    .define(
        "exactly.once.source.support",
        ConfigType.STRING,
        "disabled",
        CaseInsensitiveValidString.one_of("disabled", "preparing", "enabled"),
        importance=H,
        documentation="Whether source tasks run with transactions (distributed mode): "
        "'enabled' gives exactly-once delivery, 'preparing' fences zombies without it (for a "
        "rolling upgrade), 'disabled' is at-least-once.",
    )
    # -- end issue 20 ------------------------------------------------------------------
)


def _topics_regex_validator(name: str, value: Any) -> None:
    if value:
        try:
            re.compile(value)
        except re.error as exc:
            raise ConfigError(
                f"Invalid value {value} for configuration {name}: not a valid regular expression ({exc})",
                name=name,
                value=value,
            ) from None


CONNECTOR_CONFIG = (
    ConfigDef()
    .define(
        "name",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=H,
        group="Common",
        documentation="Globally unique name to use for this connector.",
    )
    .define(
        "connector.class",
        ConfigType.STRING,
        importance=H,
        group="Common",
        documentation="Name or alias of the connector class, e.g. FileStreamSource or "
        "org.apache.kafka.connect.file.FileStreamSourceConnector.",
    )
    .define(
        "tasks.max",
        ConfigType.INT,
        1,
        Range.at_least(1),
        importance=H,
        group="Common",
        documentation="Maximum number of tasks to use for this connector.",
    )
    .define(
        "key.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group="Common",
        documentation="Overrides the worker's key.converter.",
    )
    .define(
        "value.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group="Common",
        documentation="Overrides the worker's value.converter.",
    )
    .define(
        "header.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group="Common",
        documentation="Overrides the worker's header.converter.",
    )
    .define(
        "transforms",
        ConfigType.LIST,
        "",
        importance=L,
        group="Transforms",
        documentation="Aliases of the transformations to apply to records, in order.",
    )
    .define(
        "predicates",
        ConfigType.LIST,
        "",
        importance=L,
        group="Predicates",
        documentation="Aliases of the predicates used by the transformations.",
    )
    .define(
        "errors.retry.timeout",
        ConfigType.LONG,
        0,
        importance=M,
        group="Error Handling",
        documentation="Max time in ms to retry a failed operation; -1 retries forever.",
    )
    .define(
        "errors.retry.delay.max.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(1),
        importance=M,
        group="Error Handling",
        documentation="Max delay in ms between consecutive retries.",
    )
    .define(
        "errors.tolerance",
        ConfigType.STRING,
        "none",
        ValidString.one_of("none", "all"),
        importance=M,
        group="Error Handling",
        documentation="none: an error fails the task; all: skip problematic records.",
    )
    .define(
        "errors.log.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group="Error Handling",
        documentation="Log each error and the failed operation.",
    )
    .define(
        "errors.log.include.messages",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group="Error Handling",
        documentation="Include the failed record in the error log.",
    )
    .define(
        "errors.restart.max.attempts",
        ConfigType.INT,
        0,
        Range.at_least(-1),
        importance=M,
        group="Error Handling",
        documentation="kconnect: how many times a FAILED task is restarted automatically, with "
        "exponential backoff; 0 (Kafka's behaviour) never, -1 without limit. The count starts "
        "again after a restart through the REST API or a config change.",
    )
    .define(
        "errors.restart.backoff.initial.ms",
        ConfigType.LONG,
        1000,
        Range.at_least(0),
        importance=L,
        group="Error Handling",
        documentation="kconnect: delay before the first automatic restart; doubled each time.",
    )
    .define(
        "errors.restart.backoff.max.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(0),
        importance=L,
        group="Error Handling",
        documentation="kconnect: upper bound of the delay between automatic restarts.",
    )
)

SINK_CONNECTOR_CONFIG = (
    ConfigDef()
    .embed("", "Common", 0, CONNECTOR_CONFIG)
    .define(
        "topics",
        ConfigType.LIST,
        "",
        importance=H,
        group="Common",
        documentation="Topics to consume; exactly one of topics and topics.regex is required.",
    )
    .define(
        "topics.regex",
        ConfigType.STRING,
        "",
        _topics_regex_validator,
        importance=H,
        group="Common",
        documentation="Regular expression of topics to consume.",
    )
    .define(
        "errors.deadletterqueue.topic.name",
        ConfigType.STRING,
        "",
        importance=M,
        group="Error Handling",
        documentation="Topic for records that failed processing.",
    )
    .define(
        "errors.deadletterqueue.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=M,
        group="Error Handling",
        documentation="Replication factor of the dead letter queue topic when it is created.",
    )
    .define(
        "errors.deadletterqueue.context.headers.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group="Error Handling",
        documentation="Add __connect.errors.* headers describing the failure to DLQ records.",
    )
)
SOURCE_CONNECTOR_CONFIG = (
    ConfigDef()
    .embed("", "Common", 0, CONNECTOR_CONFIG)
    .define(
        "topic.creation.default.partitions",
        ConfigType.INT,
        None,
        importance=L,
        group="Topic Creation",
        documentation="Partitions of topics this connector creates; -1 for the broker's default. "
        "Topic creation is on when this and the replication factor are set.",
    )
    .define(
        "topic.creation.default.replication.factor",
        ConfigType.SHORT,
        None,
        importance=L,
        group="Topic Creation",
        documentation="Replication factor of topics this connector creates; -1 for the broker's default.",
    )
    .define(
        "errors.deadletterqueue.topic.name",
        ConfigType.STRING,
        "",
        importance=M,
        group="Error Handling",
        documentation="kconnect extension: topic for source records that failed in transforms or "
        "converters (value: the record as JSON), instead of dropping them under errors.tolerance=all.",
    )
    .define(
        "errors.deadletterqueue.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=M,
        group="Error Handling",
        documentation="Replication factor of the dead letter queue topic when it is created.",
    )
    .define(
        "errors.deadletterqueue.context.headers.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group="Error Handling",
        documentation="Add __connect.errors.* headers describing the failure to DLQ records.",
    )
    # -- issue 20: exactly-once sources (KIP-618) ---------------------------------------
    .define(
        "exactly.once.support",
        ConfigType.STRING,
        "requested",
        CaseInsensitiveValidString.one_of("requested", "required"),
        importance=M,
        group="Exactly Once Support",
        documentation="'required' refuses the connector unless the worker has exactly-once "
        "source support enabled and the connector says it supports exactly-once with this "
        "config; 'requested' skips that check.",
    )
    .define(
        "transaction.boundary",
        ConfigType.STRING,
        "poll",
        CaseInsensitiveValidString.one_of("poll", "interval", "connector"),
        importance=M,
        group="Exactly Once Support",
        documentation="Where transactions end: after each poll's batch, every "
        "transaction.boundary.interval.ms, or where the task says (its transaction context).",
    )
    .define(
        "transaction.boundary.interval.ms",
        ConfigType.LONG,
        None,
        Range.at_least(0),
        importance=L,
        group="Exactly Once Support",
        documentation="With transaction.boundary=interval, how often to commit; unset: the "
        "worker's offset.flush.interval.ms.",
    )
    .define(
        "offsets.storage.topic",
        ConfigType.STRING,
        None,
        importance=L,
        group="offsets.topic",
        documentation="The connector's own offsets topic (unset: the worker's offset.storage.topic).",
    )
    # -- end issue 20 ------------------------------------------------------------------
)


def parse_worker_config(props: Mapping[str, str]) -> ParsedConfig:
    """Parse a worker config; ConfigError messages name the key."""
    return WORKER_CONFIG.parse(props)


def parse_connector_config(props: Mapping[str, str], *, sink: bool) -> ParsedConfig:
    """Parse the framework's part of a connector config, with the sink topic rules."""
    definition = SINK_CONNECTOR_CONFIG if sink else SOURCE_CONNECTOR_CONFIG
    parsed = definition.parse(props)
    if sink:
        has_topics = bool(parsed["topics"])
        has_regex = bool(parsed["topics.regex"])
        if has_topics == has_regex:
            raise ConfigError(
                "Must configure one of topics or topics.regex"
                if not has_topics
                else "topics and topics.regex are mutually exclusive options, but both are set.",
                name="topics",
            )
    return parsed
