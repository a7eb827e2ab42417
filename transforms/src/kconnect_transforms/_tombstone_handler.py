"""Confluent's TombstoneHandler: ignore (drop) or fail on tombstones."""

from __future__ import annotations

import logging
from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
)

from ._util import BaseTransform, R, one_of_ci

_log = logging.getLogger(__name__)

__all__ = ["TombstoneHandler"]


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
