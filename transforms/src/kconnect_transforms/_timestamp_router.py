"""TimestampRouter: route to a topic named after the record's timestamp."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
)

from ._dateformat import JavaDateFormat
from ._util import BaseTransform, R, topic_updater

__all__ = ["TimestampRouter"]


def _check_date_format(name: str, value: Any) -> None:
    JavaDateFormat(value, name=name)


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
