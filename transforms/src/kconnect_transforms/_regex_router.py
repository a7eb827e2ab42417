"""RegexRouter: rename the topic with a Java regex and replacement."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
)

from ._fuse import FusedRouter
from ._util import (
    BaseTransform,
    R,
    java_regex,
    java_replacement,
    topic_updater,
    topics_of,
    with_topics,
)

__all__ = ["RegexRouter"]


def _check_regex(name: str, value: Any) -> None:
    java_regex(value, name=name)


def _check_replacement(name: str, value: Any) -> None:
    java_replacement(value, name=name)


class RegexRouter(BaseTransform[R], FusedRouter):
    """Rename the topic with a regex and replacement (``...transforms.RegexRouter``).

    The regex must match the whole topic; ``$1``/``${name}`` in the replacement refer to
    groups, as in Java's ``Matcher.replaceFirst``. Topics that do not match pass unchanged.
    """

    NAME = "RegexRouter"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "regex",
            ConfigType.STRING,
            validator=_check_regex,
            importance=Importance.HIGH,
            documentation="Regular expression to use for matching.",
        )
        .define(
            "replacement",
            ConfigType.STRING,
            validator=_check_replacement,
            importance=Importance.HIGH,
            documentation="Replacement string.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._regex = java_regex(config["regex"], name="regex")
        self._replacement = java_replacement(config["replacement"], name="replacement")
        # Few distinct topics flow through a task, so the routing decision is memoised.
        self._routes: dict[str, str] = {}

    def _route_lines(self, i: int) -> tuple[list[str], dict[str, Any]]:
        lines = [f"t = _memo{i}.get(topic)", f"if t is None: t = _route{i}(topic)"]
        return lines, {f"_memo{i}": self._routes, f"_route{i}": self.route}

    def route(self, topic: str) -> str:
        routed = self._routes.get(topic)
        if routed is None:
            if self._regex.fullmatch(topic):
                try:
                    routed = self._regex.sub(self._replacement, topic, count=1)
                except (re.error, IndexError) as exc:
                    # Java's Matcher fails the same way (a group the regex does not have).
                    raise DataError(
                        f"RegexRouter: replacement {self._replacement!r} does not fit regex "
                        f"{self._regex.pattern!r} for topic {topic!r}: {exc}"
                    ) from exc
            else:
                routed = topic
            if len(self._routes) > 10_000:
                self._routes.clear()
            self._routes[topic] = routed
        return routed

    def apply(self, record: R) -> R | None:
        routed = self.route(record.topic)
        if routed == record.topic:
            return record
        return topic_updater(type(record))(record, routed)

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        if not records:
            return []
        routes, route = self._routes, self.route
        topics = topics_of(records)
        # The batch's few topics are routed once; then every record is looked up and
        # copied in C (a route memoised by an earlier batch costs one dict lookup).
        for topic in set(topics):
            route(topic)
        try:
            routed = list(map(routes.__getitem__, topics))
        except KeyError:  # the memo was cleared on the way (over 10,000 topics)
            pass
        else:
            if routed == topics:
                return list(records)
            whole = with_topics(records, routed)
            if whole is not None:
                return whole
        out: list[R] = []
        append = out.append
        cls: type | None = None
        update: Any = None
        for record in records:
            topic = record.topic
            new_topic = routes.get(topic) or route(topic)
            if new_topic == topic:
                append(record)
                continue
            if type(record) is not cls:
                cls = type(record)
                update = topic_updater(cls)
            append(update(record, new_topic))
        return out
