"""Confluent's ExtractTopic$Key / $Value / $Header: take the topic name from the record."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    Struct,
)

from ._jsonpath import JsonPathError, MissingValue, compile_path
from ._util import BaseTransform, R, one_of_ci

__all__ = ["ExtractTopicHeader", "ExtractTopicKey", "ExtractTopicValue"]


def _topic_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


class _ExtractTopic(BaseTransform[R]):
    SIDE: ClassVar[str] = "value"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "field",
            ConfigType.STRING,
            "",
            importance=Importance.MEDIUM,
            documentation="Field (or JsonPath, or header name for $Header) holding the topic; "
            "empty uses the whole key or value.",
        )
        .define(
            "field.format",
            ConfigType.STRING,
            "plain",
            one_of_ci("plain", "JSON_PATH"),
            importance=Importance.MEDIUM,
            documentation="How to read 'field': plain (a top-level field name) or JSON_PATH.",
        )
        .define(
            "skip.missing.or.null",
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Pass the record unchanged when the field is missing or null, "
            "instead of failing.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._field: str = config["field"]
        self._skip: bool = config["skip.missing.or.null"]
        self._path: Callable[[Any], Any] | None = None
        if config["field.format"].lower() == "json_path" and self._field:
            try:
                self._path = compile_path(self._field)
            except JsonPathError as exc:
                raise ConfigError(
                    f"Invalid value {self._field} for configuration field: not a supported "
                    f"JsonPath: {exc}",
                    name="field",
                    value=self._field,
                ) from None

    def _source(self, record: R) -> Any:
        return record.key if self.SIDE == "key" else record.value

    def _lookup(self, record: R) -> Any:
        source = self._source(record)
        if not self._field:
            return source
        if source is None:
            return None
        if self._path is not None:
            try:
                return self._path(source)
            except MissingValue:
                return None
        if isinstance(source, Struct):
            field = source.schema.field(self._field)
            return None if field is None else source.get(field)
        if isinstance(source, Mapping):
            return source.get(self._field)
        raise DataError(
            f"{self.NAME}: the {self.SIDE} is a {type(source).__name__}, which has no field "
            f"{self._field!r}; it must be a struct or a map"
        )

    def apply(self, record: R) -> R | None:
        if self.SIDE != "header" and self._source(record) is None:
            return record
        value = self._lookup(record)
        topic = _topic_text(value)
        if topic is None:
            if self._skip and value is None:
                return record
            what = f"field {self._field!r}" if self._field else f"the {self.SIDE}"
            problem = "is missing or null" if value is None else f"is a {type(value).__name__}"
            raise DataError(
                f"{self.NAME}: {what} {problem} in the record on topic {record.topic!r}; it "
                "must hold the topic name as a string (set skip.missing.or.null=true to pass "
                "such records unchanged)"
            )
        return record.new_record(topic=topic)


class ExtractTopicKey(_ExtractTopic[R]):
    """Route to the topic named by the key or a key field (``...ExtractTopic$Key``)."""

    SIDE = "key"
    NAME = "ExtractTopic$Key"


class ExtractTopicValue(_ExtractTopic[R]):
    """Route to the topic named by the value or a value field (``...ExtractTopic$Value``)."""

    NAME = "ExtractTopic$Value"


class ExtractTopicHeader(_ExtractTopic[R]):
    """Route to the topic named by the last header called ``field`` (``...ExtractTopic$Header``)."""

    SIDE = "header"
    NAME = "ExtractTopic$Header"

    def _lookup(self, record: R) -> Any:
        if not self._field:
            raise DataError(f"{self.NAME}: 'field' must name the header holding the topic")
        header = record.headers.last_with_name(self._field)
        return None if header is None else header.value
