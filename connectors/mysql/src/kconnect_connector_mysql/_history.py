"""The schema history topic: Debezium's HistoryRecord documents in a one-partition Kafka topic."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import ConnectError
from kconnect_sdk.kafka_clients import librdkafka_config, with_prefix

__all__ = ["HISTORY_CONSUMER_PREFIX", "HISTORY_PRODUCER_PREFIX", "SchemaHistory"]

HISTORY_PRODUCER_PREFIX = "schema.history.internal.producer."
HISTORY_CONSUMER_PREFIX = "schema.history.internal.consumer."

log = logging.getLogger(__name__)


class SchemaHistory:
    """Reads and appends the schema history, with confluent-kafka.

    Each record is Debezium's ``HistoryRecord``: ``{"source": {"server": <prefix>},
    "position": <offset>, "ts_ms", "databaseName", "ddl", "tableChanges": [...]}``. Its
    clients take Debezium's ``schema.history.internal.producer.``/``.consumer.`` settings
    from ``client_props`` (Java client settings: ``security.protocol``, ``sasl.jaas.config``,
    ``ssl.truststore.*``...); the admin client uses the producer's, as Debezium's does.
    """

    def __init__(
        self,
        *,
        servers: str,
        topic: str,
        prefix: str,
        timeout_ms: int,
        poll_ms: int,
        attempts: int,
        client_props: Mapping[str, Any] | None = None,
    ) -> None:
        props = client_props or {}
        self._producer_settings = with_prefix(props, HISTORY_PRODUCER_PREFIX)
        self._consumer_settings = with_prefix(props, HISTORY_CONSUMER_PREFIX)
        self.servers = servers
        self.topic = topic
        self.prefix = prefix
        self.timeout_s = timeout_ms / 1000.0
        self.poll_s = poll_ms / 1000.0
        self.attempts = attempts
        self._producer: Any = None

    def _admin(self) -> Any:
        from confluent_kafka.admin import AdminClient

        return AdminClient(self._client("producer", {}))

    def _client(self, which: str, extra: Mapping[str, Any]) -> dict[str, Any]:
        """librdkafka settings for the history's ``which`` client (Java's translated)."""
        own = self._producer_settings if which == "producer" else self._consumer_settings
        prefix = HISTORY_PRODUCER_PREFIX if which == "producer" else HISTORY_CONSUMER_PREFIX
        return librdkafka_config({**own, **extra, "bootstrap.servers": self.servers}, prefix=prefix)

    def exists(self) -> bool:
        metadata = self._admin().list_topics(timeout=max(self.timeout_s, 5.0))
        topic = metadata.topics.get(self.topic)
        return topic is not None and topic.error is None

    def ensure_topic(self) -> None:
        if self.exists():
            return
        from confluent_kafka.admin import NewTopic  # type: ignore[attr-defined]  # re-exported at runtime, not in the stubs

        admin = self._admin()  # kept alive until the futures resolve
        futures = admin.create_topics(
            [
                NewTopic(
                    self.topic,
                    num_partitions=1,
                    replication_factor=1,
                    config={
                        "cleanup.policy": "delete",
                        "retention.ms": "-1",
                        "retention.bytes": "-1",
                    },
                )
            ]
        )
        for future in futures.values():
            try:
                future.result(timeout=30)
            except Exception as exc:  # the topic may have been created meanwhile
                if "already exists" not in str(exc).lower() and "TOPIC_ALREADY_EXISTS" not in str(
                    exc
                ):
                    raise ConnectError(
                        f"cannot create schema history topic {self.topic!r}: {exc}"
                    ) from exc

    def recover(self) -> list[dict[str, Any]]:
        """Every record in the topic, oldest first; [] when the topic is empty or missing."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

        if not self.exists():
            return []
        consumer = Consumer(
            self._client(
                "consumer",
                {
                    "group.id": f"{self.prefix}-schemahistory",
                    "enable.auto.commit": False,
                    "auto.offset.reset": "earliest",
                },
            )
        )
        try:
            low, high = consumer.get_watermark_offsets(
                TopicPartition(self.topic, 0), timeout=max(self.timeout_s, 5.0)
            )
            if high <= low:
                return []
            consumer.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
            records: list[dict[str, Any]] = []
            empty = 0
            next_offset = low
            # Past the reported high watermark, read on until a poll comes back empty: some
            # brokers (the embedded Tansu) report the watermark per batch, not per record.
            while empty < self.attempts:
                message = consumer.poll(self.poll_s)
                if message is None:
                    if next_offset >= high:
                        break
                    empty += 1
                    continue
                if message.error():
                    raise ConnectError(
                        f"reading schema history topic {self.topic!r} failed: {message.error()}"
                    )
                next_offset = (message.offset() or 0) + 1
                value = message.value()
                if value:
                    records.append(json.loads(value))
            if next_offset < high:
                raise ConnectError(
                    f"schema history topic {self.topic!r} could not be read to its end "
                    f"(offset {next_offset} of {high}); check the brokers in "
                    "schema.history.internal.kafka.bootstrap.servers"
                )
            return records
        finally:
            consumer.close()

    def store(self, records: list[dict[str, Any]]) -> None:
        """Append records and wait until the broker has them all."""
        if not records:
            return
        if self._producer is None:
            from confluent_kafka import Producer

            self._producer = Producer(
                self._client("producer", {"enable.idempotence": True, "linger.ms": 5})
            )
        errors: list[str] = []

        def delivered(err: Any, _msg: Any) -> None:
            if err is not None:
                errors.append(str(err))

        for record in records:
            self._producer.produce(
                self.topic,
                value=json.dumps(record, separators=(",", ":")).encode(),
                partition=0,
                on_delivery=delivered,
            )
        deadline = time.monotonic() + 30
        while len(self._producer) and time.monotonic() < deadline:
            self._producer.flush(1.0)
        if errors or len(self._producer):
            raise ConnectError(
                f"writing to schema history topic {self.topic!r} failed: {errors[:1] or 'timed out'}"
            )

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(5.0)
            self._producer = None
