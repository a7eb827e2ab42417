"""Error handling on the data path: retries, tolerance, error logging, dead letter queues.

Follows Kafka Connect's ``RetryWithToleranceOperator``: every operation runs at a named
:class:`Stage`; a :class:`~kconnect_sdk.RetriableError` is retried with exponential backoff
and jitter until ``errors.retry.timeout``; what still fails either fails the task
(``errors.tolerance=none``) or is skipped (``all``), after being logged
(``errors.log.enable``) and written to the dead letter queue
(``errors.deadletterqueue.topic.name``) with the ``__connect.errors.*`` context headers.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from confluent_kafka import KafkaError, KafkaException, Producer
from kconnect_sdk import ConnectError, RetriableError

from kconnect_runtime.metrics import ErrorMetrics

__all__ = [
    "DeadLetterQueue",
    "ErrorHandler",
    "ErrorPolicy",
    "Failure",
    "Stage",
    "class_name",
    "json_text",
    "source_record_json",
    "tolerance_exceeded",
]

log = logging.getLogger("kconnect.errors")

T = TypeVar("T")

# Kafka's header names (DeadLetterQueueReporter), so existing DLQ tooling reads ours.
HEADER_PREFIX = "__connect.errors."
H_TOPIC = HEADER_PREFIX + "topic"
H_PARTITION = HEADER_PREFIX + "partition"
H_OFFSET = HEADER_PREFIX + "offset"
H_CONNECTOR = HEADER_PREFIX + "connector.name"
H_TASK = HEADER_PREFIX + "task.id"
H_STAGE = HEADER_PREFIX + "stage"
H_CLASS = HEADER_PREFIX + "class.name"
H_EXCEPTION = HEADER_PREFIX + "exception.class.name"
H_MESSAGE = HEADER_PREFIX + "exception.message"
H_STACKTRACE = HEADER_PREFIX + "exception.stacktrace"

_RETRY_FIRST_DELAY_MS = 300  # Kafka's RetryWithToleranceOperator starts at 300 ms too


class Stage(StrEnum):
    """Where on the data path an operation failed (Kafka's ``Stage`` names)."""

    TASK_POLL = "TASK_POLL"
    TASK_PUT = "TASK_PUT"
    TRANSFORMATION = "TRANSFORMATION"
    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


def class_name(obj: object) -> str:
    """``module.QualName`` of an object's class (or of a class)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _flag(config: Mapping[str, str], key: str, default: bool) -> bool:
    raw = str(config.get(key, "")).strip().lower()
    return default if not raw else raw == "true"


def _int(config: Mapping[str, str], key: str, default: int) -> int:
    raw = str(config.get(key, "")).strip()
    return int(raw) if raw else default


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    """The ``errors.*`` settings of one connector (already validated by the worker)."""

    retry_timeout_ms: int = 0
    retry_delay_max_ms: int = 60000
    tolerate_all: bool = False
    log_enable: bool = False
    log_include_messages: bool = False
    dlq_topic: str = ""
    dlq_replication_factor: int = 3
    dlq_context_headers: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> ErrorPolicy:
        return cls(
            retry_timeout_ms=_int(config, "errors.retry.timeout", 0),
            retry_delay_max_ms=max(1, _int(config, "errors.retry.delay.max.ms", 60000)),
            tolerate_all=str(config.get("errors.tolerance", "none")).strip().lower() == "all",
            log_enable=_flag(config, "errors.log.enable", False),
            log_include_messages=_flag(config, "errors.log.include.messages", False),
            dlq_topic=str(config.get("errors.deadletterqueue.topic.name", "")).strip(),
            dlq_replication_factor=_int(
                config, "errors.deadletterqueue.topic.replication.factor", 3
            ),
            dlq_context_headers=_flag(
                config, "errors.deadletterqueue.context.headers.enable", False
            ),
        )

    @property
    def reports_errant_records(self) -> bool:
        """Whether a sink task gets an errant record reporter (Kafka's rule)."""
        return self.tolerate_all or self.log_enable or bool(self.dlq_topic)


def tolerance_exceeded(
    task: str, stage: Stage, where: str, exc: BaseException, *, retriable_gave_up: bool = False
) -> ConnectError:
    """The error that fails a task when a record fails and errors.tolerance=none."""
    advice = (
        "raise errors.retry.timeout to retry longer, or set errors.tolerance=all to skip such records"
        if retriable_gave_up
        else "fix the data or the config, or set errors.tolerance=all (with "
        "errors.deadletterqueue.topic.name to keep the records) to skip such records"
    )
    return ConnectError(
        f"{task}: Tolerance exceeded in error handler at stage {stage} ({where}): "
        f"{type(exc).__name__}: {exc}; {advice}"
    )


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
                {
                    **self._settings,
                    "bootstrap.servers": self._bootstrap,
                    "enable.idempotence": True,
                    "acks": "all",
                    "linger.ms": 5,
                }
            )
        return self._producer

    def _create_topic(self) -> None:
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        admin = AdminClient({"bootstrap.servers": self._bootstrap})
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


@dataclass(slots=True)
class Failure:
    """What is known about a record that failed, for the log and the DLQ."""

    stage: Stage
    error: BaseException
    executing_class: str
    # Kafka coordinates (sink) or the source partition/offset as JSON text (source).
    topic: str | None = None
    partition: str | None = None
    offset: str | None = None
    record: Callable[[], str] | None = None  # rendered only when errors.log.include.messages


class ErrorHandler:
    """One task's retry/tolerance/log/DLQ logic. Used on the task thread only."""

    def __init__(
        self,
        policy: ErrorPolicy,
        *,
        connector: str,
        task: int,
        metrics: ErrorMetrics,
        stopping: threading.Event,
        dlq: DeadLetterQueue | None = None,
    ) -> None:
        self.policy = policy
        self.connector = connector
        self.task = task
        self.metrics = metrics
        self.dlq = dlq
        self._stopping = stopping
        self._label = f"connector {connector!r} task {task}"

    @property
    def tolerate_all(self) -> bool:
        return self.policy.tolerate_all

    def retry(self, stage: Stage, operation: Callable[[], T], count: int = 1) -> T:
        """Run ``operation``, retrying RetriableError within errors.retry.timeout.

        Non-retriable errors and retriable ones that outlast the timeout propagate; the
        caller decides (per record) whether they are tolerated. ``count`` is how many
        records one attempt covers, for the failure metrics.
        """
        try:
            return operation()
        except RetriableError as first:
            if self.policy.retry_timeout_ms == 0:
                raise
            exc: RetriableError = first
        timeout_ms = self.policy.retry_timeout_ms
        deadline = None if timeout_ms < 0 else time.monotonic() + timeout_ms / 1000
        delay_ms: float = _RETRY_FIRST_DELAY_MS
        attempt = 1
        while True:
            self.metrics.record_failures += count
            wait_ms = min(delay_ms, self.policy.retry_delay_max_ms)
            wait_ms = random.uniform(wait_ms / 2, wait_ms)  # jitter spreads retrying tasks out
            if deadline is not None:
                wait_ms = min(wait_ms, max(0.0, (deadline - time.monotonic()) * 1000))
            log.warning(
                "%s: %s failed (attempt %d), retrying in %.0f ms: %s",
                self._label,
                stage,
                attempt,
                wait_ms,
                exc,
            )
            if self._stopping.wait(wait_ms / 1000):
                raise exc
            self.metrics.retries += 1
            attempt += 1
            try:
                return operation()
            except RetriableError as again:
                exc = again
                if deadline is not None and time.monotonic() >= deadline:
                    raise
            delay_ms *= 2

    def failed(self, failure: Failure) -> None:
        """Account for one record that failed for good: raise, or log/DLQ and skip it."""
        m = self.metrics
        m.record_failures += 1
        m.record_errors += 1
        m.last_error_timestamp = int(time.time() * 1000)
        where = self._where(failure)
        if self.policy.log_enable:
            self._log(failure, where)
        if not self.policy.tolerate_all:
            raise tolerance_exceeded(
                self._label,
                failure.stage,
                where,
                failure.error,
                retriable_gave_up=isinstance(failure.error, RetriableError),
            ) from failure.error
        m.records_skipped += 1

    def _where(self, failure: Failure) -> str:
        if failure.topic is None:
            return "no record"
        return f"topic {failure.topic!r} partition {failure.partition} offset {failure.offset}"

    def _log(self, failure: Failure, where: str) -> None:
        self.metrics.errors_logged += 1
        message = ""
        if self.policy.log_include_messages and failure.record is not None:
            message = f", record: {failure.record()}"
        log.error(
            "Error encountered in %s at stage %s executing %s, %s%s",
            self._label,
            failure.stage,
            failure.executing_class,
            where,
            message,
            exc_info=failure.error,
        )

    def context_headers(self, failure: Failure) -> list[tuple[str, bytes | None]]:
        """Kafka's ``__connect.errors.*`` headers, values as UTF-8 text."""
        headers: list[tuple[str, bytes | None]] = []
        if failure.topic is not None:
            headers.append((H_TOPIC, failure.topic.encode()))
            headers.append((H_PARTITION, _utf8(failure.partition)))
            headers.append((H_OFFSET, _utf8(failure.offset)))
        error = failure.error
        headers += [
            (H_CONNECTOR, self.connector.encode()),
            (H_TASK, str(self.task).encode()),
            (H_STAGE, failure.stage.value.encode()),
            (H_CLASS, failure.executing_class.encode()),
            (H_EXCEPTION, class_name(error).encode()),
            (H_MESSAGE, str(error).encode() if str(error) else None),
            (H_STACKTRACE, "".join(traceback.format_exception(error)).encode()),
        ]
        return headers

    def to_dlq(
        self,
        failure: Failure,
        key: bytes | None,
        value: bytes | None,
        headers: Sequence[tuple[str, bytes | None]] | None,
        timestamp: int | None = None,
    ) -> Future[None] | None:
        """Send a failed record to the DLQ when one is configured and errors are tolerated."""
        if self.dlq is None or not self.policy.tolerate_all:
            return None
        out = list(headers or ())
        if self.policy.dlq_context_headers:
            out += self.context_headers(failure)
        return self.dlq.send(key, value, out, timestamp)

    def flush(self) -> None:
        if self.dlq is not None:
            self.dlq.flush()

    def close(self) -> None:
        if self.dlq is not None:
            try:
                self.dlq.close()
            except Exception:  # closing must not mask why we shut down
                log.exception("%s: closing the dead letter queue producer failed", self._label)


def _utf8(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def source_record_json(record: Any) -> bytes:
    """A failed source record as JSON text (the source DLQ's value; see runtime/README)."""
    doc = {
        "topic": record.topic,
        "kafka_partition": record.kafka_partition,
        "source_partition": record.source_partition,
        "source_offset": record.source_offset,
        "timestamp": record.timestamp,
        "key": record.key,
        "value": record.value,
        "headers": [[h.key, h.value] for h in record.headers] if record.headers else [],
    }
    return json.dumps(doc, default=str, ensure_ascii=False).encode()


def json_text(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True, separators=(",", ":"))
