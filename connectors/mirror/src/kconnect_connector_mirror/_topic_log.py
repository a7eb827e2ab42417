"""Reading MirrorMaker's single-partition internal topics (offset syncs, checkpoints).

Like Kafka's ``KafkaBasedLog`` restricted to partition 0: read everything from the
beginning to the end offset seen at the start, then (for offset syncs) keep following
the topic while the task runs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException
from confluent_kafka import TopicPartition as KafkaTopicPartition

from ._kafka import new_consumer

__all__ = ["TopicLog"]

log = logging.getLogger(__name__)

RecordHandler = Callable[[bytes | None, bytes | None], None]


def _bytes(data: str | bytes | None) -> bytes | None:
    return data.encode() if isinstance(data, str) else data


class TopicLog:
    """Partition 0 of ``topic``, read with a consumer made from Java client settings."""

    def __init__(self, topic: str, consumer_config: Mapping[str, Any], role: str) -> None:
        self.topic = topic
        self._consumer: Consumer | None = new_consumer(consumer_config, role)
        self._partition = KafkaTopicPartition(topic, 0, OFFSET_BEGINNING)
        self._assigned = False
        self._lock = threading.Lock()

    def _watermarks(self, timeout_s: float) -> tuple[int, int] | None:
        assert self._consumer is not None
        try:
            low, high = self._consumer.get_watermark_offsets(
                KafkaTopicPartition(self.topic, 0), timeout=timeout_s
            )
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if isinstance(error, KafkaError) and error.code() in (
                KafkaError.UNKNOWN_TOPIC_OR_PART,
                KafkaError._UNKNOWN_PARTITION,
                KafkaError._UNKNOWN_TOPIC,
            ):
                return None
            raise
        return int(low), int(high)

    def read_to_end(
        self,
        handler: RecordHandler,
        timeout_s: float = 60.0,
        stop: threading.Event | None = None,
    ) -> bool:
        """Hand every record up to the current end to the handler; False if the topic is missing."""
        with self._lock:
            if self._consumer is None:
                return False
            marks = self._watermarks(timeout_s)
            if marks is None:
                return False
            low, end = marks
            if not self._assigned:
                self._consumer.assign([self._partition])
                self._assigned = True
            position = low
            deadline = time.monotonic() + timeout_s
            while position < end and not (stop is not None and stop.is_set()):
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"reading {self.topic} to offset {end} took over {timeout_s:.0f} s"
                    )
                for message in self._consumer.consume(500, 0.2):
                    error = message.error()
                    if error is not None:
                        if error.code() != KafkaError._PARTITION_EOF:
                            raise KafkaException(error)
                        continue
                    offset = message.offset() or 0
                    self._deliver(handler, _bytes(message.key()), _bytes(message.value()), offset)
                    position = max(position, offset + 1)
                if position < end:
                    positions = self._consumer.position([KafkaTopicPartition(self.topic, 0)])
                    if positions and positions[0].offset >= 0:
                        position = max(position, positions[0].offset)
            return True

    def poll_once(self, handler: RecordHandler, timeout_s: float) -> None:
        """Hand over what arrived since the last read (waits up to ``timeout_s``)."""
        with self._lock:
            if self._consumer is None or not self._assigned:
                return
            for message in self._consumer.consume(500, timeout_s):
                if message.error() is None:
                    offset = message.offset() or 0
                    self._deliver(handler, _bytes(message.key()), _bytes(message.value()), offset)

    def _deliver(
        self, handler: RecordHandler, key: bytes | None, value: bytes | None, offset: int
    ) -> None:
        try:
            handler(key, value)
        except Exception as exc:
            log.warning("Ignored invalid record at offset %d of %s: %s", offset, self.topic, exc)

    def close(self) -> None:
        with self._lock:
            if self._consumer is not None:
                self._consumer.close()
                self._consumer = None
