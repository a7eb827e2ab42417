"""Refusals in Apache Kafka Connect's own words, where clients and scripts match on them.

The expected texts are Kafka 4.1's (AbstractHerder.maybeAddConfigErrors,
SinkUtils.parseSinkConnectorOffsets), written out here by hand; compat/tests/test_rest.py
compares the same answers with a running Java worker's.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.storage import BadRequestError
from kconnect_runtime.worker import validate_connector
from kconnect_runtime.worker._offsets import parse_sink_offsets
from kconnect_sdk import ConfigError, TopicPartition

_WORKER = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}
_VALIDATE_HINT = (
    "You can also find the above list of errors at the endpoint "
    "`/connector-plugins/{connectorType}/config/validate`"
)


def test_an_invalid_config_is_refused_with_every_error_at_once() -> None:
    props = {
        "name": "src",
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "tasks.max": "x",
        "file": "/tmp/in.txt",
        "topic": "t",
        "errors.tolerance": "some",
    }
    with pytest.raises(ConfigError) as refused:
        validate_connector(PluginRegistry.discover(), _WORKER, props, strict=True)
    message = str(refused.value)
    lines = message.split("\n")
    # Kafka's parseForValidate: "x" does not parse, so tasks.max is null and its validator
    # adds a second error (the Java worker answers the same in the REST differential).
    assert lines[0] == "Connector configuration is invalid and contains the following 3 error(s):"
    assert lines[-1] == _VALIDATE_HINT
    assert sorted(lines[1:-1]) == [
        "Invalid value null for configuration tasks.max: Value must be non-null",
        "Invalid value some for configuration errors.tolerance: String must be one of: none, all",
        "Invalid value x for configuration tasks.max: Not a number of type INT",
    ]
    assert refused.value.name in ("tasks.max", "errors.tolerance")


def test_a_valid_config_is_not_refused() -> None:
    props = {
        "name": "src",
        "connector.class": "FileStreamSource",
        "file": "/tmp/in.txt",
        "topic": "t",
    }
    found = validate_connector(PluginRegistry.discover(), _WORKER, props, strict=True)
    assert found.instance is not None


def _sink(partition: Any, offset: Any) -> list[dict[str, Any]]:
    return [{"partition": partition, "offset": offset}]


@pytest.mark.parametrize(
    ("entries", "complaint"),
    [
        ([{}], "The partition for a sink connector offset cannot be null or missing"),
        (_sink(None, None), "The partition for a sink connector offset cannot be null or missing"),
        (
            _sink({}, None),
            "The partition for a sink connector offset must contain the keys 'kafka_topic' "
            "and 'kafka_partition'",
        ),
        (
            _sink({"kafka_topic": None, "kafka_partition": 0}, None),
            "Kafka topic names must be valid strings and may not be null",
        ),
        (
            _sink({"kafka_topic": "t", "kafka_partition": None}, None),
            "Kafka partitions must be valid numbers and may not be null",
        ),
        (
            _sink({"kafka_topic": "t", "kafka_partition": "not a number"}, None),
            "Failed to parse the following Kafka partition value in the provided offsets: "
            "'not a number'. Partition values for sink connectors need to be integers.",
        ),
        (
            _sink({"kafka_topic": "t", "kafka_partition": 0}, {"offset": 5}),
            "The offset for a sink connector should either be null or contain the key "
            "'kafka_offset'",
        ),
        (
            _sink({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": "ten"}),
            "Failed to parse the following Kafka offset value in the provided offsets: 'ten'. "
            "Offset values for sink connectors need to be integers.",
        ),
        (
            _sink({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 1.5}),
            "Failed to parse the following Kafka offset value in the provided offsets: '1.5'. "
            "Offset values for sink connectors need to be integers.",
        ),
    ],
)
def test_sink_offsets_are_refused_in_kafkas_words(
    entries: list[dict[str, Any]], complaint: str
) -> None:
    with pytest.raises(BadRequestError) as refused:
        parse_sink_offsets(entries)
    assert str(refused.value) == complaint


def test_sink_offsets_may_be_numbers_or_their_text() -> None:
    entries = [
        {
            "partition": {"kafka_topic": "t", "kafka_partition": "1"},
            "offset": {"kafka_offset": "10"},
        },
        {"partition": {"kafka_topic": "t", "kafka_partition": 2}, "offset": {"kafka_offset": 20}},
        {"partition": {"kafka_topic": "t", "kafka_partition": 3}, "offset": None},
    ]
    assert parse_sink_offsets(entries) == {
        TopicPartition("t", 1): 10,
        TopicPartition("t", 2): 20,
        TopicPartition("t", 3): None,
    }


def test_a_negative_sink_offset_is_refused_before_it_reaches_the_group() -> None:
    entries = [
        {"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": -1}}
    ]
    with pytest.raises(BadRequestError, match="integers >= 0"):
        parse_sink_offsets(entries)
