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
    Width,
    lambda_validator,
)

from ._inter_worker import (
    validate_key_algorithm,
    validate_signature_algorithm,
    validate_verification_algorithms,
)
from ._spark import SPARK_ENGINE_CONFIG

__all__ = [
    "CONNECTOR_CONFIG",
    "CONNECTOR_NAME_MAX_CHARS",
    "KCONNECT_CONNECTOR_EXTENSIONS",
    "KCONNECT_SOURCE_EXTENSIONS",
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
    .define(  # kconnect only
        "broker.unreachable.timeout.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(1),
        importance=L,
        documentation="When a task's Kafka client has reached no broker for this long, the "
        "task logs it once, its status carries the cause, the broker-unreachable metric is 1 "
        "and GET /health answers unhealthy, until a broker is reachable again.",
    )
    .define(  # kconnect only
        "source.ack.stall.timeout.ms",
        ConfigType.LONG,
        30000,
        Range.at_least(0),
        importance=L,
        documentation="When a source task's oldest record has waited this long for the "
        "broker's acknowledgement, the task warns once per stall, naming the likely cause "
        "(broker unreachable, topic missing, ...); 0 disables the warning.",
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
    # -- distributed mode's group (Kafka's DistributedConfig keys and defaults) ------------
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
        documentation="Distributed: 'eager' stops every connector and task on each rebalance "
        "and assigns them afresh; 'compatible' and 'sessioned' rebalance incrementally (see "
        "docs/distributed.md).",
    )
    # KIP-507: how the leader's session key is made and how internal requests are signed,
    # as Kafka's DistributedConfig defines them (docs/security.md, "Requests between workers").
    .define(
        "inter.worker.key.ttl.ms",
        ConfigType.INT,
        3600000,
        Range.between(0, 2147483647),
        importance=L,
        documentation="Distributed: the TTL of generated session keys used for internal request "
        "validation (in milliseconds); the leader writes a new key when it expires.",
    )
    .define(
        "inter.worker.key.generation.algorithm",
        ConfigType.STRING,
        "HmacSHA256",
        lambda_validator(
            validate_key_algorithm, "Any KeyGenerator algorithm supported by the worker"
        ),
        importance=L,
        documentation="Distributed: the algorithm to use for generating internal request keys.",
    )
    .define(
        "inter.worker.key.size",
        ConfigType.INT,
        None,
        importance=L,
        documentation="Distributed: the size of the key to use for signing internal requests, in "
        "bits. If null, the default key size for the key generation algorithm will be used.",
    )
    .define(
        "inter.worker.signature.algorithm",
        ConfigType.STRING,
        "HmacSHA256",
        lambda_validator(validate_signature_algorithm, "Any MAC algorithm supported by the worker"),
        importance=L,
        documentation="Distributed: the algorithm used to sign internal requests.",
    )
    .define(
        "inter.worker.verification.algorithms",
        ConfigType.LIST,
        ["HmacSHA256"],
        lambda_validator(
            validate_verification_algorithms,
            "A list of one or more MAC algorithms, each supported by the worker",
        ),
        importance=L,
        documentation="Distributed: a list of permitted algorithms for verifying internal "
        "requests, which must include the algorithm used for the "
        "inter.worker.signature.algorithm property.",
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
    # CORS, as Kafka's RestServerConfig (empty origin: cross-origin calls refused).
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
        "rest.extension.classes",
        ConfigType.LIST,
        "",
        importance=L,
        documentation="Comma-separated REST extensions (plugins of the kconnect.rest_extensions "
        "group, by name or Kafka class name) registered in this order; an unknown class stops "
        "the worker. org.apache.kafka.connect.rest.basic.auth.extension."
        "BasicAuthSecurityRestExtension is built in (see docs/security.md).",
    )
    .define(
        "connector.client.config.override.policy",
        ConfigType.STRING,
        "All",
        importance=M,
        documentation="Class name or alias of the ConnectorClientConfigOverridePolicy: which "
        "client configs connectors may override (producer.override.*, consumer.override.*, "
        "admin.override.*). All (the default), None, Principal (sasl.jaas.config, "
        "sasl.mechanism, security.protocol) or Allowlist.",
    )
    .define(
        "connector.client.config.override.allowlist",
        ConfigType.LIST,
        "",
        importance=M,
        documentation="The Allowlist policy: the client configs connectors may override. "
        "Empty: none.",
    )
    .define(
        "rest.access.log.enable",
        ConfigType.BOOLEAN,
        False,
        importance=L,
        documentation="kconnect: log one INFO line per REST request on the logger "
        "kconnect.rest.access: method, path, status, time taken and (with basic auth) the user.",
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
    # -- exactly-once sources (KIP-618) -------------------------------------------------
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


def _partitions_validator(name: str, value: Any) -> None:
    # Kafka's TopicCreationConfig: -1 leaves the number to the broker.
    if value is not None and value != -1 and value < 1:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: Number of partitions must be "
            "positive, or -1 to use the broker's default",
            name=name,
            value=value,
        )


def _replication_factor_validator(name: str, value: Any) -> None:
    if value is not None and value != -1 and value < 1:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: Replication factor must be "
            "positive and not larger than the number of brokers in the Kafka cluster, or -1 "
            "to use the broker's default",
            name=name,
            value=value,
        )


# Keys, types, defaults, importance, groups, orders, widths and display names as
# Kafka's ConnectorConfig / SinkConnectorConfig / SourceConnectorConfig define them (UIs build
# forms from GET /connector-plugins/{p}/config); the documentation is ours.
_COMMON, _ERRORS = "Common", "Error Handling"
S, MW, LW = Width.SHORT, Width.MEDIUM, Width.LONG
CONNECTOR_NAME_MAX_CHARS = 249
"""kconnect's limit on connector names, so that every name fits in a URL and a log line."""


def _connector_name_validator(name: str, value: Any) -> None:
    """Kafka's NonEmptyStringWithoutControlChars, plus kconnect's length limit."""
    if value is None:
        return
    text = str(value)
    if not text:
        raise ConfigError(
            f"Invalid value for configuration {name}: String may not be empty", name=name
        )
    if len(text) > CONNECTOR_NAME_MAX_CHARS:
        raise ConfigError(
            f"Invalid value for configuration {name}: a connector name may have at most "
            f"{CONNECTOR_NAME_MAX_CHARS} characters, this one has {len(text)}; choose a shorter name",
            name=name,
        )
    controls = [str(ord(c)) for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
    if controls:
        raise ConfigError(
            f"Invalid value {text!r} for configuration {name}: String may not contain control "
            f"sequences but had the following ASCII chars: {', '.join(controls)}",
            name=name,
        )


CONNECTOR_CONFIG = (
    ConfigDef()
    .define(
        "name",
        ConfigType.STRING,
        validator=_connector_name_validator,
        importance=H,
        group=_COMMON,
        order_in_group=1,
        width=MW,
        display_name="Connector name",
        documentation="Name of the connector, unique in the Connect cluster (at most "
        f"{CONNECTOR_NAME_MAX_CHARS} characters, no control characters).",
    )
    .define(
        "connector.class",
        ConfigType.STRING,
        importance=H,
        group=_COMMON,
        order_in_group=2,
        width=LW,
        display_name="Connector class",
        documentation="The connector plugin: its full class name, its entry-point name or a "
        "short alias, e.g. org.apache.kafka.connect.file.FileStreamSinkConnector, "
        "FileStreamSinkConnector or FileStreamSink.",
    )
    .define(
        "tasks.max",
        ConfigType.INT,
        1,
        Range.at_least(1),
        importance=H,
        group=_COMMON,
        order_in_group=4,
        width=S,
        display_name="Tasks max",
        documentation="The most tasks this connector may run.",
    )
    .define(
        "tasks.max.enforce",
        ConfigType.BOOLEAN,
        True,
        importance=L,
        group=_COMMON,
        order_in_group=5,
        width=S,
        display_name="Enforce tasks max",
        documentation="(Deprecated in Kafka) Whether a connector that generates more task "
        "configs than tasks.max fails. kconnect always enforces tasks.max.",
    )
    .define(
        "key.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group=_COMMON,
        order_in_group=6,
        width=S,
        display_name="Key converter class",
        documentation="Converter between Connect data and the bytes of record keys in Kafka "
        "(e.g. JSON or Avro); unset, the worker's key.converter is used.",
    )
    .define(
        "value.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group=_COMMON,
        order_in_group=8,
        width=S,
        display_name="Value converter class",
        documentation="Converter between Connect data and the bytes of record values in Kafka "
        "(e.g. JSON or Avro); unset, the worker's value.converter is used.",
    )
    .define(
        "header.converter",
        ConfigType.CLASS,
        None,
        importance=L,
        group=_COMMON,
        order_in_group=10,
        width=S,
        display_name="Header converter class",
        documentation="HeaderConverter between Connect data and the bytes of header values in "
        "Kafka; unset, the worker's header.converter (by default SimpleHeaderConverter, which "
        "writes values as strings and infers schemas when reading) is used.",
    )
    .define(
        "transforms",
        ConfigType.LIST,
        "",
        importance=L,
        group="Transforms",
        order_in_group=12,
        width=LW,
        display_name="Transforms",
        documentation="Aliases of the transformations to apply to records, in order.",
    )
    .define(
        "predicates",
        ConfigType.LIST,
        "",
        importance=L,
        group="Predicates",
        order_in_group=13,
        width=LW,
        display_name="Predicates",
        documentation="Aliases of the predicates the transformations use.",
    )
    .define(
        "config.action.reload",
        ConfigType.STRING,
        "restart",
        ValidString.one_of("none", "restart"),
        importance=L,
        group=_COMMON,
        order_in_group=14,
        width=MW,
        display_name="Reload Action",
        documentation="What to do when a config provider reports that values the config "
        "resolved have changed: 'restart' the connector with the new values, or 'none'.",
    )
    .define(
        "errors.retry.timeout",
        ConfigType.LONG,
        0,
        importance=M,
        group=_ERRORS,
        order_in_group=1,
        width=MW,
        display_name="Retry Timeout for Errors",
        documentation="How long in ms a failed operation is retried; 0 (the default) never "
        "retries, -1 retries without end.",
    )
    .define(
        "errors.retry.delay.max.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(1),
        importance=M,
        group=_ERRORS,
        order_in_group=2,
        width=MW,
        display_name="Maximum Delay Between Retries for Errors",
        documentation="Upper bound in ms of the delay between retries; past it, jitter is "
        "added so that retries do not all happen at once.",
    )
    .define(
        "errors.tolerance",
        ConfigType.STRING,
        "none",
        ValidString.one_of("none", "all"),
        importance=M,
        group=_ERRORS,
        order_in_group=3,
        width=S,
        display_name="Error Tolerance",
        documentation="'none' (the default): any error fails the task at once; 'all': "
        "problematic records are skipped.",
    )
    .define(
        "errors.log.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group=_ERRORS,
        order_in_group=4,
        width=S,
        display_name="Log Errors",
        documentation="Whether each error, with the failed operation and record, is written to "
        "the worker's log; off, only errors that are not tolerated are reported.",
    )
    .define(
        "errors.log.include.messages",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group=_ERRORS,
        order_in_group=5,
        width=S,
        display_name="Log Error Details",
        documentation="Whether the error log includes the record that failed (topic, partition, "
        "offset and timestamp for sink records; key, value, headers and offsets for source "
        "records). Off by default, so record contents stay out of log files.",
    )
    # kconnect extensions (KCONNECT_CONNECTOR_EXTENSIONS): not in Kafka's definition.
    .define(
        "errors.restart.max.attempts",
        ConfigType.INT,
        0,
        Range.at_least(-1),
        importance=M,
        group=_ERRORS,
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
        group=_ERRORS,
        documentation="kconnect: delay before the first automatic restart; doubled each time.",
    )
    .define(
        "errors.restart.backoff.max.ms",
        ConfigType.LONG,
        60000,
        Range.at_least(0),
        importance=L,
        group=_ERRORS,
        documentation="kconnect: upper bound of the delay between automatic restarts.",
    )
)

SINK_CONNECTOR_CONFIG = (
    ConfigDef(CONNECTOR_CONFIG.config_keys.values())  # the keys as they are, groups kept
    .define(
        "topics",
        ConfigType.LIST,
        "",
        importance=H,
        group=_COMMON,
        order_in_group=4,
        width=LW,
        display_name="Topics",
        documentation="Topics to consume, comma-separated; exactly one of topics and "
        "topics.regex is required.",
    )
    .define(
        "topics.regex",
        ConfigType.STRING,
        "",
        _topics_regex_validator,
        importance=H,
        group=_COMMON,
        order_in_group=4,
        width=LW,
        display_name="Topics regex",
        documentation="Regular expression of the topics to consume (Python's re syntax, which "
        "agrees with java.util.regex for common patterns); exactly one of topics and "
        "topics.regex is required.",
    )
    .define(
        "errors.deadletterqueue.topic.name",
        ConfigType.STRING,
        "",
        importance=M,
        group=_ERRORS,
        order_in_group=6,
        width=MW,
        display_name="Dead Letter Queue Topic Name",
        documentation="Topic that receives the records this sink connector, its transformations "
        "or converters failed to process (the dead letter queue); empty (the default) keeps "
        "no such records.",
    )
    .define(
        "errors.deadletterqueue.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=M,
        group=_ERRORS,
        order_in_group=7,
        width=MW,
        display_name="Dead Letter Queue Topic Replication Factor",
        documentation="Replication factor of the dead letter queue topic when it has to be "
        "created.",
    )
    .define(
        "errors.deadletterqueue.context.headers.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group=_ERRORS,
        order_in_group=8,
        width=MW,
        display_name="Enable Error Context Headers",
        documentation="Whether records written to the dead letter queue carry headers "
        "describing the error; their keys start with __connect.errors. so they cannot clash "
        "with the record's own headers.",
    )
)
SOURCE_CONNECTOR_CONFIG = (
    ConfigDef(CONNECTOR_CONFIG.config_keys.values())  # the keys as they are, groups kept
    .define(
        "topic.creation.groups",
        ConfigType.LIST,
        "",
        importance=L,
        group="Topic Creation",
        order_in_group=1,
        width=LW,
        display_name="Topic Creation Groups",
        documentation="Groups of settings for the topics source connectors create: "
        "topic.creation.<group>.include/exclude (regular expressions), partitions, "
        "replication.factor and topic configs; other topics take topic.creation.default.*.",
    )
    # -- exactly-once sources (KIP-618) -------------------------------------------------
    .define(
        "exactly.once.support",
        ConfigType.STRING,
        "requested",
        CaseInsensitiveValidString.one_of("requested", "required"),
        importance=M,
        group="Exactly Once Support",
        order_in_group=2,
        width=S,
        display_name="Exactly once support",
        documentation="requested or required. 'required' refuses the connector unless the worker "
        "has exactly-once source support enabled and the connector says it supports "
        "exactly-once with this config; 'requested' skips that check.",
    )
    .define(
        "transaction.boundary",
        ConfigType.STRING,
        "poll",
        CaseInsensitiveValidString.one_of("poll", "interval", "connector"),
        importance=M,
        group="Exactly Once Support",
        order_in_group=3,
        width=S,
        display_name="Transaction Boundary",
        documentation="poll, interval or connector: where transactions end: after each poll's "
        "batch, every transaction.boundary.interval.ms, or where the task says (its "
        "transaction context; not every connector can).",
    )
    .define(
        "transaction.boundary.interval.ms",
        ConfigType.LONG,
        None,
        Range.at_least(0),
        importance=L,
        group="Exactly Once Support",
        order_in_group=4,
        width=S,
        display_name="Transaction boundary interval",
        documentation="With transaction.boundary=interval, how often to commit; unset: the "
        "worker's offset.flush.interval.ms. No effect with another transaction.boundary.",
    )
    .define(
        "offsets.storage.topic",
        ConfigType.STRING,
        None,
        importance=L,
        group="offsets.topic",
        order_in_group=1,
        width=LW,
        display_name="Offsets topic",
        documentation="The connector's own offsets topic (unset: the worker's "
        "offset.storage.topic); distributed mode only.",
    )
    # kconnect extensions (KCONNECT_CONNECTOR_EXTENSIONS): not in Kafka's definition.
    .define(
        "topic.creation.default.partitions",
        ConfigType.INT,
        None,
        lambda_validator(
            _partitions_validator, "Positive number, or -1 to use the broker's default"
        ),
        importance=L,
        group="Topic Creation",
        documentation="Partitions of topics this connector creates; -1 for the broker's default. "
        "Topic creation is on when this and the replication factor are set.",
    )
    .define(
        "topic.creation.default.replication.factor",
        ConfigType.SHORT,
        None,
        lambda_validator(
            _replication_factor_validator,
            "Positive number not larger than the number of brokers in the Kafka cluster, or -1 "
            "to use the broker's default",
        ),
        importance=L,
        group="Topic Creation",
        documentation="Replication factor of topics this connector creates; -1 for the broker's default.",
    )
    .define(
        "errors.deadletterqueue.topic.name",
        ConfigType.STRING,
        "",
        importance=M,
        group=_ERRORS,
        documentation="kconnect extension: topic for source records that failed in transforms or "
        "converters (value: the record as JSON), instead of dropping them under errors.tolerance=all.",
    )
    .define(
        "errors.deadletterqueue.topic.replication.factor",
        ConfigType.SHORT,
        3,
        importance=M,
        group=_ERRORS,
        documentation="Replication factor of the dead letter queue topic when it is created.",
    )
    .define(
        "errors.deadletterqueue.context.headers.enable",
        ConfigType.BOOLEAN,
        False,
        importance=M,
        group=_ERRORS,
        documentation="Add __connect.errors.* headers describing the failure to DLQ records.",
    )
)

KCONNECT_CONNECTOR_EXTENSIONS = frozenset(
    {
        "errors.restart.max.attempts",
        "errors.restart.backoff.initial.ms",
        "errors.restart.backoff.max.ms",
        "topic.creation.default.partitions",
        "topic.creation.default.replication.factor",
    }
)
"""Connector keys kconnect adds to Kafka's: REST lists them only where a config sets them."""
KCONNECT_SOURCE_EXTENSIONS = KCONNECT_CONNECTOR_EXTENSIONS | {
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable",
}
"""Source connectors' extension keys: Kafka's dead letter queue is for sinks only."""


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
