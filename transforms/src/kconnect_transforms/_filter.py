"""Filter (drop every record; gate it with a predicate) and the three Apache predicates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    ParsedConfig,
    Predicate,
    non_empty_string,
)

from ._util import RUNTIME_KEYS, BaseTransform, R, java_regex

__all__ = ["Filter", "HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"]


class Filter(BaseTransform[R]):
    """Drop every record (``org.apache.kafka.connect.transforms.Filter``).

    Useful only with a predicate: ``transforms.drop.predicate=isTombstone``.
    """

    NAME = "Filter"
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()

    def apply(self, record: R) -> R | None:
        return None

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        return []


class _BasePredicate(Predicate[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        props = {k: v for k, v in configs.items() if k not in RUNTIME_KEYS}
        self._configure(self.CONFIG_DEF.parse(props))

    def _configure(self, config: ParsedConfig) -> None:
        """Keep what ``test`` needs."""


class HasHeaderKey(_BasePredicate[R]):
    """True when the record has at least one header called ``name``
    (``org.apache.kafka.connect.transforms.predicates.HasHeaderKey``)."""

    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "name",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.MEDIUM,
        documentation="The header name.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._name: str = config["name"]

    def test(self, record: R) -> bool:
        name = self._name
        return any(h.key == name for h in record.headers)


class RecordIsTombstone(_BasePredicate[R]):
    """True when the record value is null
    (``org.apache.kafka.connect.transforms.predicates.RecordIsTombstone``)."""

    def test(self, record: R) -> bool:
        return record.value is None


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
        topic = record.topic
        hit = self._seen.get(topic)
        if hit is None:
            hit = self._pattern.fullmatch(topic) is not None
            if len(self._seen) > 10_000:
                self._seen.clear()
            self._seen[topic] = hit
        return hit
