"""Confluent's Filter$Key / Filter$Value: keep or drop records by a JsonPath condition."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    non_empty_string,
)

from ._jsonpath import JsonPathError, MissingValue, compile_filter
from ._util import KeyOrValue, R, one_of_ci

__all__ = ["ConfluentFilterKey", "ConfluentFilterValue"]


def _check_condition(name: str, value: Any) -> None:
    non_empty_string(name, value)
    try:
        compile_filter(value)
    except JsonPathError as exc:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: not a supported JsonPath "
            f"filter: {exc}; write e.g. $[?(@.status == 'active')]",
            name=name,
            value=value,
        ) from None


class _ConfluentFilter(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "filter.condition",
            ConfigType.STRING,
            validator=_check_condition,
            importance=Importance.HIGH,
            documentation="A JsonPath filter predicate, such as $[?(@.status == 'active')].",
        )
        .define(
            "filter.type",
            ConfigType.STRING,
            validator=one_of_ci("include", "exclude"),
            importance=Importance.HIGH,
            documentation="include: keep matching records and drop the rest; exclude: drop "
            "matching records.",
        )
        .define(
            "missing.or.null.behavior",
            ConfigType.STRING,
            "fail",
            one_of_ci("fail", "include", "exclude"),
            importance=Importance.MEDIUM,
            documentation="What to do when the condition refers to a missing or null field: "
            "fail, include (keep the record) or exclude (drop it).",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._condition_text: str = config["filter.condition"]
        self._condition = compile_filter(self._condition_text)
        self._include = config["filter.type"].lower() == "include"
        self._missing: str = config["missing.or.null.behavior"].lower()

    def apply(self, record: R) -> R | None:
        _, value = self.operand(record)
        if value is None:
            return record
        try:
            matched = self._condition(value)
        except MissingValue as exc:
            if self._missing == "include":
                return record
            if self._missing == "exclude":
                return None
            raise DataError(
                f"{self.NAME}: field {exc.path!r} of filter.condition "
                f"{self._condition_text!r} is missing or null in the record on topic "
                f"{record.topic!r}; set missing.or.null.behavior to include or exclude to "
                "let such records through or drop them"
            ) from None
        return record if matched == self._include else None


class ConfluentFilterKey(_ConfluentFilter[R]):
    """Keep or drop records by a JsonPath condition on the key (``io.confluent.connect.transforms.Filter$Key``)."""

    ON_KEY = True
    NAME = "Filter$Key"


class ConfluentFilterValue(_ConfluentFilter[R]):
    """Keep or drop records by a JsonPath condition on the value (``...Filter$Value``)."""

    NAME = "Filter$Value"
