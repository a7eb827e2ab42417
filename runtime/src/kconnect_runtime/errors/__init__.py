"""``errors.*``: retries with backoff, tolerance, error logging and the dead letter queue."""

from __future__ import annotations

from ._handler import (
    DeadLetterQueue,
    ErrorHandler,
    ErrorPolicy,
    Failure,
    Stage,
    class_name,
    json_text,
    source_record_json,
    tolerance_exceeded,
)

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
