"""The TopicNameMatches predicate: the topic matches a Java regex."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    ParsedConfig,
    non_empty_string,
)

from ._predicate_base import _BasePredicate
from ._util import R, java_regex, topics_of

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
        return self._matches(topic)

    def _matches(self, topic: str) -> bool:
        hit = self._seen.get(topic)
        if hit is None:
            hit = self._pattern.fullmatch(topic) is not None
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen[topic] = hit
        return hit

    def test_batch(self, records: Sequence[R]) -> list[bool]:
        # Each distinct topic of the batch is matched once; then one lookup per record, in C.
        topics = topics_of(records)
        for topic in set(topics):
            if topic is not None:
                self._matches(topic)
        try:
            return list(map(self._seen.__getitem__, topics))
        except (KeyError, TypeError):  # no topic, or the memo was cleared on the way
            return [self.test(record) for record in records]
