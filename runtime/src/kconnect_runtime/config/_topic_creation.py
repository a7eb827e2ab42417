"""Topic creation groups of source connectors (KIP-158), as Kafka's ``TopicCreation``.

A source connector names groups in ``topic.creation.groups``; each group
``topic.creation.<group>.*`` has ``include`` and ``exclude`` (lists of regular expressions
a topic name must match whole), optional ``partitions`` and ``replication.factor`` (those of
the ``default`` group when unset), and any other key is a topic config of the topics it
creates (``cleanup.policy=compact``, ``retention.ms``, …). A new topic takes the first listed
group that includes and does not exclude it, else the ``default`` group, whose other keys are
topic configs too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kconnect_sdk import ConfigError

__all__ = ["TopicCreationGroup", "check_topic_creation_groups", "topic_creation_group"]

_PREFIX = "topic.creation."
_OWN_KEYS = ("include", "exclude", "partitions", "replication.factor")


@dataclass(frozen=True)
class TopicCreationGroup:
    """How a new topic is created: its group, partitions and replication factor (-1: the
    broker's default) and topic configs."""

    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)


def _groups(props: Mapping[str, str]) -> list[str]:
    listed = [g.strip() for g in str(props.get(_PREFIX + "groups", "")).split(",") if g.strip()]
    return [g for g in dict.fromkeys(listed) if g != "default"]


def _patterns(props: Mapping[str, str], key: str) -> list[re.Pattern[str]]:
    out = []
    for text in (p.strip() for p in str(props.get(key, "")).split(",")):
        if not text:
            continue
        try:
            out.append(re.compile(text))
        except re.error as exc:
            raise ConfigError(
                f"Invalid value {props.get(key)} for configuration {key}: Syntax error in "
                f"regular expression: {exc}",
                name=key,
            ) from None
    return out


def _number(props: Mapping[str, str], key: str, default: int, what: str) -> int:
    raw = props.get(key)
    if raw is None or not str(raw).strip():
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ConfigError(
            f"Invalid value {raw} for configuration {key}: Not a number of type "
            f"{'SHORT' if what == 'replication' else 'INT'}",
            name=key,
        ) from None
    if value != -1 and value < 1:
        reason = (
            "Number of partitions must be positive, or -1 to use the broker's default"
            if what == "partitions"
            else "Replication factor must be positive and not larger than the number of "
            "brokers in the Kafka cluster, or -1 to use the broker's default"
        )
        raise ConfigError(f"Invalid value {value} for configuration {key}: {reason}", name=key)
    return value


def _configs(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {
        key[len(prefix) :]: str(value)
        for key, value in props.items()
        if key.startswith(prefix) and key[len(prefix) :] not in _OWN_KEYS
    }


def check_topic_creation_groups(props: Mapping[str, str]) -> None:
    """Raise Kafka's error for a listed group's invalid regular expression, partitions or
    replication factor (the default group's keys are checked by the connector config)."""
    for group in _groups(props):
        prefix = f"{_PREFIX}{group}."
        _patterns(props, prefix + "include")
        _patterns(props, prefix + "exclude")
        _number(props, prefix + "partitions", -1, "partitions")
        _number(props, prefix + "replication.factor", -1, "replication")


def topic_creation_group(
    props: Mapping[str, str], topic: str, default: tuple[int, int]
) -> TopicCreationGroup:
    """The group a new ``topic`` is created with; ``default`` is the default group's
    (partitions, replication factor)."""
    partitions, replication = default
    for group in _groups(props):
        prefix = f"{_PREFIX}{group}."
        includes = _patterns(props, prefix + "include")
        excludes = _patterns(props, prefix + "exclude")
        if any(p.fullmatch(topic) for p in includes) and not any(
            p.fullmatch(topic) for p in excludes
        ):
            return TopicCreationGroup(
                group,
                _number(props, prefix + "partitions", partitions, "partitions"),
                _number(props, prefix + "replication.factor", replication, "replication"),
                _configs(props, prefix),
            )
    return TopicCreationGroup(
        "default", partitions, replication, _configs(props, _PREFIX + "default.")
    )
