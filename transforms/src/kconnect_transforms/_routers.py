"""Topic routers: RegexRouter, TimestampRouter and Confluent's MessageTimestampRouter."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    Struct,
)

from ._dateformat import JavaDateFormat
from ._util import BaseTransform, R, java_regex, java_replacement, non_empty_list, topic_updater

__all__ = ["MessageTimestampRouter", "RegexRouter", "TimestampRouter"]


def _check_regex(name: str, value: Any) -> None:
    java_regex(value, name=name)


def _check_date_format(name: str, value: Any) -> None:
    JavaDateFormat(value, name=name)


def _check_replacement(name: str, value: Any) -> None:
    java_replacement(value, name=name)


class RegexRouter(BaseTransform[R]):
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

    def route(self, topic: str) -> str:
        routed = self._routes.get(topic)
        if routed is None:
            if self._regex.fullmatch(topic):
                routed = self._regex.sub(self._replacement, topic, count=1)
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
        routes, route = self._routes, self.route
        out: list[R] = []
        append = out.append
        for record in records:
            topic = record.topic
            routed = routes.get(topic) or route(topic)
            append(record if routed == topic else topic_updater(type(record))(record, routed))
        return out


class TimestampRouter(BaseTransform[R]):
    """Route to a topic named from the topic and the record timestamp (``...TimestampRouter``).

    The timestamp is formatted in UTC with a Java ``SimpleDateFormat`` pattern.
    """

    NAME = "TimestampRouter"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "topic.format",
            ConfigType.STRING,
            "${topic}-${timestamp}",
            importance=Importance.HIGH,
            documentation="Format string which can contain ${topic} and ${timestamp} as "
            "placeholders for the topic and timestamp, respectively.",
        )
        .define(
            "timestamp.format",
            ConfigType.STRING,
            "yyyyMMdd",
            _check_date_format,
            importance=Importance.HIGH,
            documentation="Format string for the timestamp that is compatible with "
            "java.text.SimpleDateFormat.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._topic_format: str = config["topic.format"]
        self._format = JavaDateFormat(config["timestamp.format"], name="timestamp.format")
        self._topics: dict[tuple[str, str], str] = {}

    def apply(self, record: R) -> R | None:
        timestamp = record.timestamp
        if timestamp is None:
            raise DataError(
                f"{self.NAME}: Timestamp missing on record for topic {record.topic!r}; "
                "TimestampRouter needs the record timestamp"
            )
        stamp = self._format.format_millis(timestamp)
        key = (record.topic, stamp)
        topic = self._topics.get(key)
        if topic is None:
            if len(self._topics) > 10_000:
                self._topics.clear()
            topic = self._topic_format.replace("${topic}", record.topic).replace(
                "${timestamp}", stamp
            )
            self._topics[key] = topic
        return topic_updater(type(record))(record, topic)


class MessageTimestampRouter(BaseTransform[R]):
    """Route by a timestamp read from a value field (``io.confluent.connect.transforms.MessageTimestampRouter``).

    The value must be a map (Confluent does not support structs; this one accepts structs
    too). The first of ``message.timestamp.keys`` present is parsed with
    ``message.timestamp.format`` and rendered with ``topic.timestamp.format``.
    """

    NAME = "MessageTimestampRouter"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "topic.format",
            ConfigType.STRING,
            "${topic}-${timestamp}",
            importance=Importance.HIGH,
            documentation="Format string which can contain ${topic} and ${timestamp}.",
        )
        .define(
            "message.timestamp.format",
            ConfigType.STRING,
            "yyyy-MM-dd",
            _check_date_format,
            importance=Importance.HIGH,
            documentation="SimpleDateFormat of the timestamp in the message.",
        )
        .define(
            "topic.timestamp.format",
            ConfigType.STRING,
            "yyyy.MM.dd",
            _check_date_format,
            importance=Importance.HIGH,
            documentation="SimpleDateFormat of the timestamp in the topic name.",
        )
        .define(
            "message.timestamp.keys",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Fields to read the timestamp from, tried in order.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._topic_format: str = config["topic.format"]
        self._message_format = JavaDateFormat(
            config["message.timestamp.format"], name="message.timestamp.format"
        )
        self._topic_stamp = JavaDateFormat(
            config["topic.timestamp.format"], name="topic.timestamp.format"
        )
        self._keys: list[str] = config["message.timestamp.keys"]

    def apply(self, record: R) -> R | None:
        value = record.value
        if value is None:
            return record
        fields: Mapping[str, Any]
        if isinstance(value, Struct):
            fields = value.to_dict()
        elif isinstance(value, Mapping):
            fields = value
        else:
            raise DataError(f"{self.NAME}: the value must be a map, found {type(value).__name__}")
        raw = next((fields[k] for k in self._keys if fields.get(k) is not None), None)
        if raw is None:
            raise DataError(
                f"{self.NAME}: none of the fields {self._keys} holds a timestamp in the record "
                f"value on topic {record.topic!r}; check message.timestamp.keys"
            )
        if isinstance(raw, dt.datetime):
            millis = int(raw.timestamp() * 1000)
        elif isinstance(raw, int) and not isinstance(raw, bool):
            millis = raw
        else:
            try:
                millis = self._message_format.parse_millis(str(raw))
            except DataError as exc:
                raise DataError(f"{self.NAME}: field value {raw!r}: {exc}") from None
        stamp = self._topic_stamp.format_millis(millis)
        topic = self._topic_format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
        return record.new_record(topic=topic)
