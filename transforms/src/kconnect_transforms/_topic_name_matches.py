"""The TopicNameMatches predicate: the topic matches a Java regex."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    ParsedConfig,
    non_empty_string,
)

from ._predicate_base import _BasePredicate
from ._util import R, java_regex

__all__ = ["TopicNameMatches"]


def _check_pattern(name: str, value: Any) -> None:
    non_empty_string(name, value)
    java_regex(value, name=name)


class TopicNameMatches(_BasePredicate[R]):
    """True when the whole topic name matches ``pattern``
    (``org.apache.kafka.connect.transforms.predicates.TopicNameMatches``)."""

    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "pattern",
        ConfigType.STRING,
        validator=_check_pattern,
        importance=Importance.MEDIUM,
        documentation="A Java regular expression for matching against the name of a "
        "record's topic.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._pattern = java_regex(config["pattern"], name="pattern")
        self._seen: dict[str, bool] = {}

    def test(self, record: R) -> bool:
        # Typed str, but a record built by hand may lack one; Kafka's predicate says False.
        topic: str | None = record.topic
        if topic is None:
            return False
        hit = self._seen.get(topic)
        if hit is None:
            hit = self._pattern.fullmatch(topic) is not None
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen[topic] = hit
        return hit
