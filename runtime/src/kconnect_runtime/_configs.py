"""Config definitions of the worker and of connectors, with Apache Kafka Connect's keys."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    ParsedConfig,
    Range,
    ValidString,
    non_empty_string,
)

__all__ = [
    "CONNECTOR_CONFIG",
    "SINK_CONNECTOR_CONFIG",
    "SOURCE_CONNECTOR_CONFIG",
    "WORKER_CONFIG",
    "parse_connector_config",
    "parse_worker_config",
]

H, M, L = Importance.HIGH, Importance.MEDIUM, Importance.LOW

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
        ValidString.one_of("local"),
        importance=M,
        documentation="Where task code runs: 'local' (threads in this process).",
    )
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
        "group.id",
        ConfigType.STRING,
        None,
        importance=H,
        documentation="Distributed: the Connect cluster.",
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
