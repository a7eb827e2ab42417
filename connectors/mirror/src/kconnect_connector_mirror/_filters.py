"""Which topics, consumer groups and topic config properties MirrorMaker copies.

Each filter is Kafka's default one (include and exclude lists of names and regexes,
matched against the whole name) and can be replaced by a class named in
``topic.filter.class``, ``group.filter.class`` or ``config.property.filter.class``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from kconnect_sdk import ConfigError, ConfigType, parse_type

from ._plugins import instantiate

__all__ = [
    "ConfigPropertyFilter",
    "DefaultConfigPropertyFilter",
    "DefaultGroupFilter",
    "DefaultTopicFilter",
    "GroupFilter",
    "TopicFilter",
    "compile_pattern_list",
]

TOPICS_INCLUDE_DEFAULT: Final = ".*"
TOPICS_EXCLUDE_DEFAULT: Final = r".*[\-\.]internal, .*\.replica, __.*"
GROUPS_INCLUDE_DEFAULT: Final = ".*"
GROUPS_EXCLUDE_DEFAULT: Final = "console-consumer-.*, connect-.*, __.*"
CONFIG_PROPERTIES_EXCLUDE_DEFAULT: Final = (
    r"follower\.replication\.throttled\.replicas, "
    r"leader\.replication\.throttled\.replicas, "
    r"message\.timestamp\.difference\.max\.ms, "
    r"message\.timestamp\.type, "
    r"unclean\.leader\.election\.enable, "
    r"min\.insync\.replicas"
)
USE_DEFAULTS_FROM: Final = "use.defaults.from"


def compile_pattern_list(config_key: str, fields: Sequence[str]) -> re.Pattern[str] | None:
    """One regex matching any of ``fields``; None for an empty list, which matches nothing.

    (The empty regex would match everything, but a blank list means "none".)
    """
    if not fields:
        return None
    joined = "|".join(fields)
    try:
        return re.compile(joined)
    except re.error as exc:
        raise ConfigError(
            f"config '{config_key}': {joined!r} is not a valid regex: {exc}"
        ) from None


def _patterns(props: Mapping[str, Any], key: str, default: str) -> re.Pattern[str] | None:
    raw = props.get(key, default)
    return compile_pattern_list(key, parse_type(key, raw, ConfigType.LIST))


def _matches(pattern: re.Pattern[str] | None, name: str) -> bool:
    return pattern is not None and pattern.fullmatch(name) is not None


class TopicFilter:
    """Kafka's ``TopicFilter``: which source topics to mirror (and checkpoint)."""

    def should_replicate_topic(self, topic: str) -> bool:
        raise NotImplementedError


class GroupFilter:
    """Kafka's ``GroupFilter``: which consumer groups to checkpoint."""

    def should_replicate_group(self, group: str) -> bool:
        raise NotImplementedError


class ConfigPropertyFilter:
    """Kafka's ``ConfigPropertyFilter``: which topic config properties to copy."""

    def should_replicate_config_property(self, prop: str) -> bool:
        raise NotImplementedError

    def should_replicate_source_default(self, prop: str) -> bool:
        """Whether a property left at the source's default is set on the target too."""
        return False


class DefaultTopicFilter(TopicFilter):
    """``topics`` (default all) minus ``topics.exclude`` (default internal and ``.replica`` topics)."""

    def __init__(self) -> None:
        self.include = compile_pattern_list("topics", [TOPICS_INCLUDE_DEFAULT])
        self.exclude = _patterns({}, "topics.exclude", TOPICS_EXCLUDE_DEFAULT)

    def configure(self, props: Mapping[str, Any]) -> None:
        self.include = _patterns(props, "topics", TOPICS_INCLUDE_DEFAULT)
        self.exclude = _patterns(props, "topics.exclude", TOPICS_EXCLUDE_DEFAULT)

    def should_replicate_topic(self, topic: str) -> bool:
        return _matches(self.include, topic) and not _matches(self.exclude, topic)


class DefaultGroupFilter(GroupFilter):
    """``groups`` (default all) minus ``groups.exclude`` (console consumers, Connect's, ``__``)."""

    def __init__(self) -> None:
        self.include = compile_pattern_list("groups", [GROUPS_INCLUDE_DEFAULT])
        self.exclude = _patterns({}, "groups.exclude", GROUPS_EXCLUDE_DEFAULT)

    def configure(self, props: Mapping[str, Any]) -> None:
        self.include = _patterns(props, "groups", GROUPS_INCLUDE_DEFAULT)
        self.exclude = _patterns(props, "groups.exclude", GROUPS_EXCLUDE_DEFAULT)

    def should_replicate_group(self, group: str) -> bool:
        return _matches(self.include, group) and not _matches(self.exclude, group)


class DefaultConfigPropertyFilter(ConfigPropertyFilter):
    """All properties but ``config.properties.exclude``; defaults from ``use.defaults.from``.

    With ``use.defaults.from=target`` (the default) a property at its default on the
    source is deleted on the target, so the target cluster's default applies; with
    ``source`` the source's default value is set explicitly.
    """

    def __init__(self) -> None:
        self.exclude = _patterns({}, "config.properties.exclude", CONFIG_PROPERTIES_EXCLUDE_DEFAULT)
        self.use_defaults_from = "target"

    def configure(self, props: Mapping[str, Any]) -> None:
        self.exclude = _patterns(
            props, "config.properties.exclude", CONFIG_PROPERTIES_EXCLUDE_DEFAULT
        )
        self.use_defaults_from = str(props.get(USE_DEFAULTS_FROM, "target")).strip()

    def should_replicate_config_property(self, prop: str) -> bool:
        return not _matches(self.exclude, prop)

    def should_replicate_source_default(self, prop: str) -> bool:
        return self.use_defaults_from == "source"


def topic_filter(props: Mapping[str, Any]) -> TopicFilter:
    return instantiate(
        config_key="topic.filter.class",
        name=str(props.get("topic.filter.class") or "DefaultTopicFilter"),
        base=TopicFilter,
        builtins={"DefaultTopicFilter": DefaultTopicFilter},
        group="kconnect.mirror_topic_filters",
        props=props,
    )


def group_filter(props: Mapping[str, Any]) -> GroupFilter:
    return instantiate(
        config_key="group.filter.class",
        name=str(props.get("group.filter.class") or "DefaultGroupFilter"),
        base=GroupFilter,
        builtins={"DefaultGroupFilter": DefaultGroupFilter},
        group="kconnect.mirror_group_filters",
        props=props,
    )


def config_property_filter(props: Mapping[str, Any]) -> ConfigPropertyFilter:
    return instantiate(
        config_key="config.property.filter.class",
        name=str(props.get("config.property.filter.class") or "DefaultConfigPropertyFilter"),
        base=ConfigPropertyFilter,
        builtins={"DefaultConfigPropertyFilter": DefaultConfigPropertyFilter},
        group="kconnect.mirror_config_property_filters",
        props=props,
    )
