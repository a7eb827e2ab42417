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
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from kconnect_sdk import RetriableError

from kconnect_runtime.metrics import ErrorMetrics
from kconnect_runtime.status import format_trace

from ._dlq import DeadLetterQueue
from ._policy import ErrorPolicy, Stage, class_name, tolerance_exceeded

__all__ = ["ErrorHandler", "Failure", "json_text", "source_record_json"]

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

    @classmethod
    def of_source_record(
        cls, stage: Stage, error: BaseException, executing_class: str, record: Any
    ) -> Failure:
        """A source record's failure: its source partition and offset as JSON text."""
        return cls(
            stage,
            error,
            executing_class,
            topic=record.topic,
            partition=json_text(record.source_partition),
            offset=json_text(record.source_offset),
            record=lambda: repr(record),
        )


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
            (H_STACKTRACE, format_trace(error).encode()),
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
