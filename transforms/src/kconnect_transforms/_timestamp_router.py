"""TimestampRouter: route to a topic named after the record's timestamp."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, floordiv
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
)
from kconnect_sdk.java import JavaDateFormat

from ._fuse import FusedRouter
from ._util import BaseTransform, R, topic_updater, topics_of, with_topics

_timestamp_of = attrgetter("timestamp")

__all__ = ["TimestampRouter"]


def _check_date_format(name: str, value: Any) -> None:
    JavaDateFormat(value, name=name)


class TimestampRouter(BaseTransform[R], FusedRouter):
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
        # (topic, timestamp // the format's granularity) -> routed topic, for apply_batch.
        self._routes: dict[tuple[str, int], str] = {}

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        # One dict lookup per record on (topic, time bucket of the pattern's finest unit)
        # instead of formatting: a day's records share one topic name.
        granularity = self._format.granularity_ms
        routes = self._routes
        if records:
            # Every record's (topic, time bucket) looked up and the record copied, in C;
            # a bucket not seen yet, or a record with no timestamp, takes the loop below.
            buckets = map(floordiv, map(_timestamp_of, records), repeat(granularity))
            try:
                routed = list(
                    map(routes.__getitem__, zip(topics_of(records), buckets, strict=True))
                )
            except (KeyError, TypeError):
                pass
            else:
                whole = with_topics(records, routed)
                if whole is not None:
                    return whole
        route = self.route
        out: list[R] = []
        append = out.append
        cls: type | None = None
        update: Any = None
        for record in records:
            timestamp = record.timestamp
            topic = (
                None if timestamp is None else routes.get((record.topic, timestamp // granularity))
            )
            if topic is None:
                # First sight of this bucket (route remembers it), or no timestamp (route
                # raises the DataError).
                topic = route(record.topic, timestamp)
            if type(record) is not cls:
                cls = type(record)
                update = topic_updater(cls)
            append(update(record, topic))
        return out

    def _route_lines(self, i: int) -> tuple[list[str], dict[str, Any]]:
        lines = [
            "ts = record.timestamp",
            f"t = None if ts is None else _memo{i}.get((topic, ts // _unit{i}))",
            f"if t is None: t = _route{i}(topic, ts)",
        ]
        used = {
            f"_memo{i}": self._routes,
            f"_unit{i}": self._format.granularity_ms,
            f"_route{i}": self.route,
        }
        return lines, used

    def route(self, topic: str, timestamp: int | None) -> str:
        """The topic a record of ``topic`` stamped ``timestamp`` goes to (``apply``'s)."""
        if timestamp is None:
            raise DataError(
                f"{self.NAME}: Timestamp missing on record for topic {topic!r}; "
                "TimestampRouter needs the record timestamp"
            )
        stamp = self._format.format_millis(timestamp)
        key = (topic, stamp)
        routed = self._topics.get(key)
        if routed is None:
            if len(self._topics) > 10_000:
                self._topics.clear()
            routed = self._topic_format.replace("${topic}", topic).replace("${timestamp}", stamp)
            self._topics[key] = routed
        if len(self._routes) > 10_000:
            self._routes.clear()
        self._routes[(topic, timestamp // self._format.granularity_ms)] = routed
        return routed

    def apply(self, record: R) -> R | None:
        return topic_updater(type(record))(record, self.route(record.topic, record.timestamp))
