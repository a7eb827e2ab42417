"""The dead letter queue: a producer of failed records with their error context."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from kconnect_sdk import ConnectError
from kconnect_sdk.kafka_clients import security_settings

from kconnect_runtime.config import kafka_client_config
from kconnect_runtime.logcontext import kafka_logging
from kconnect_runtime.metrics import ErrorMetrics

__all__ = ["DeadLetterQueue"]

log = logging.getLogger("kconnect.errors")


class DeadLetterQueue:
    """A producer for one dead letter topic, created on first use (with the topic)."""

    def __init__(
        self,
        topic: str,
        *,
        bootstrap_servers: str,
        replication_factor: int,
        metrics: ErrorMetrics,
        producer_settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.topic = topic
        self._bootstrap = bootstrap_servers
        self._replication = replication_factor
        self._metrics = metrics
        self._settings = dict(producer_settings or {})
        self._producer: Producer | None = None
        self.pending = 0

    def _ensure(self) -> Producer:
        if self._producer is None:
            self._create_topic()
            self._producer = Producer(
                kafka_logging(
                    kafka_client_config(
                        {
                            # Java's partitioner (a user's producer setting wins): a failed
                            # record's key lands where Java's DLQ producer would put it.
                            "partitioner": "murmur2_random",
                            **self._settings,
                            "bootstrap.servers": self._bootstrap,
                            "enable.idempotence": True,
                            "acks": "all",
                            "linger.ms": 5,
                        }
                    ),
                    f"dead letter queue producer ({self.topic})",
                )
            )
        return self._producer

    def _create_topic(self) -> None:
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        # The producer's principal creates its topic (as a source task's admin client does).
        admin = AdminClient(
            kafka_logging(
                kafka_client_config(
                    {**security_settings(self._settings), "bootstrap.servers": self._bootstrap}
                ),
                "dead letter queue admin client",
            )
        )
        if self.topic in admin.list_topics(timeout=10).topics:
            return
        futures = admin.create_topics(
            [NewTopic(self.topic, 1, self._replication)], operation_timeout=10
        )
        for future in futures.values():
            try:
                future.result()
                log.info(
                    "created dead letter queue topic %s (replication factor %d)",
                    self.topic,
                    self._replication,
                )
            except KafkaException as exc:
                if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise ConnectError(
                        f"cannot create the dead letter queue topic {self.topic!r} with replication "
                        f"factor {self._replication}: {exc}; create it yourself or lower "
                        "errors.deadletterqueue.topic.replication.factor to the brokers' count"
                    ) from exc

    def send(
        self,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes | None]],
        timestamp: int | None = None,
    ) -> Future[None]:
        """Produce one record; the future completes when the broker acknowledges it."""
        producer = self._ensure()
        future: _FlushingFuture = _FlushingFuture(self)
        self._metrics.dlq_produce_requests += 1
        self.pending += 1

        def on_delivery(err: KafkaError | None, _msg: Any) -> None:
            self.pending -= 1
            if err is None:
                future.set_result(None)
            else:
                self._metrics.dlq_produce_failures += 1
                log.error("could not produce a record to dead letter queue %s: %s", self.topic, err)
                future.set_exception(
                    ConnectError(f"dead letter queue {self.topic!r} refused a record: {err.str()}")
                )

        kwargs: dict[str, Any] = {"key": key, "value": value, "on_delivery": on_delivery}
        if headers:
            kwargs["headers"] = headers
        if timestamp is not None:
            kwargs["timestamp"] = timestamp
        while True:
            try:
                producer.produce(self.topic, **kwargs)
                break
            except BufferError:
                producer.poll(0.05)
        producer.poll(0)
        return future

    def flush(self, timeout_s: float = 30.0) -> None:
        """Wait until every record sent so far is acknowledged (before offsets are committed)."""
        if self._producer is None or not self.pending:
            return
        remaining = self._producer.flush(timeout_s)
        if remaining:
            raise ConnectError(
                f"dead letter queue {self.topic!r}: {remaining} records not acknowledged within "
                f"{timeout_s:.0f}s; offsets covering them are not committed"
            )

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(10)
            self._producer = None


class _FlushingFuture(Future[None]):
    """A future whose ``result()`` serves the producer, so a task may wait on its own thread."""

    def __init__(self, dlq: DeadLetterQueue) -> None:
        super().__init__()
        self._dlq = dlq

    def result(self, timeout: float | None = None) -> None:
        if not self.done():
            self._dlq.flush(30.0 if timeout is None else timeout)
        return super().result(timeout)
