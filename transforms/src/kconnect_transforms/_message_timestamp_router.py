"""Confluent's MessageTimestampRouter: route by a timestamp field of the value."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    Struct,
)
from kconnect_sdk.java import JavaDateFormat

from ._timestamp_router import _check_date_format
from ._util import BaseTransform, R, non_empty_list

__all__ = ["MessageTimestampRouter"]


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
