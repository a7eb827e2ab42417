"""Confluent-style transforms: Drop, ExtractTopic, TombstoneHandler and the JsonPath Filter."""

from __future__ import annotations

import logging
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
    non_empty_string,
)

from ._jsonpath import JsonPathError, MissingValue, compile_filter, compile_path
from ._util import BaseTransform, KeyOrValue, R, copy_schema, one_of_ci

__all__ = [
    "ConfluentFilterKey",
    "ConfluentFilterValue",
    "DropKey",
    "DropValue",
    "ExtractTopicHeader",
    "ExtractTopicKey",
    "ExtractTopicValue",
    "TombstoneHandler",
]

_log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------- Drop


class _Drop(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "schema.behavior",
        ConfigType.STRING,
        "nullify",
        one_of_ci("nullify", "retain", "validate", "force_optional"),
        importance=Importance.LOW,
        documentation="What to do with the schema: nullify (drop it), retain (keep it even "
        "if it is not optional), validate (fail when it is not optional) or force_optional "
        "(keep it, made optional).",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._behavior: str = config["schema.behavior"].lower()

    def apply(self, record: R) -> R | None:
        schema, _ = self.operand(record)
        if schema is None or self._behavior == "nullify":
            return self.new_record(record, None, None)
        if self._behavior == "retain" or schema.optional:
            return self.new_record(record, schema, None)
        if self._behavior == "validate":
            raise DataError(
                f"{self.NAME}: the {self.side} schema is not optional, so a null {self.side} "
                "would be invalid; use schema.behavior=force_optional or nullify"
            )
        return self.new_record(
            record, copy_schema(schema, optional=True, fields=schema.fields), None
        )


class DropKey(_Drop[R]):
    """Set the key to null (``io.confluent.connect.transforms.Drop$Key``)."""

    ON_KEY = True
    NAME = "Drop$Key"


class DropValue(_Drop[R]):
    """Set the value to null, making a tombstone (``io.confluent.connect.transforms.Drop$Value``)."""

    NAME = "Drop$Value"


# -------------------------------------------------------------------------- ExtractTopic


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


# ---------------------------------------------------------------------- TombstoneHandler


class TombstoneHandler(BaseTransform[R]):
    """Drop or reject tombstones (``io.confluent.connect.transforms.TombstoneHandler``).

    ``behavior=warn`` (default) drops them with a WARN log, ``ignore`` drops them quietly
    and ``fail`` raises.
    """

    NAME = "TombstoneHandler"
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "behavior",
        ConfigType.STRING,
        "warn",
        one_of_ci("ignore", "warn", "fail"),
        importance=Importance.MEDIUM,
        documentation="What to do with a tombstone: ignore (drop), warn (drop and log) or "
        "fail (raise an error).",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._behavior: str = config["behavior"].lower()

    def apply(self, record: R) -> R | None:
        if record.value is not None:
            return record
        if self._behavior == "fail":
            raise DataError(
                f"{self.NAME}: tombstone record (null value) on topic {record.topic!r} "
                f"partition {record.kafka_partition} is not allowed (behavior=fail)"
            )
        if self._behavior == "warn":
            _log.warning(
                "%s: dropping tombstone record on topic %r partition %s",
                self.NAME,
                record.topic,
                record.kafka_partition,
            )
        else:
            _log.debug("%s: dropping tombstone on topic %r", self.NAME, record.topic)
        return None


# -------------------------------------------------------------------------------- Filter


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
