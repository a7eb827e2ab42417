"""``errors.*``: retries with backoff, tolerance, error logging and the dead letter queue.

``_policy`` reads the ``errors.*`` keys and names the stages, ``_handler`` applies them to
each failure (Kafka's ``RetryWithToleranceOperator``), ``_dlq`` writes failed records with
the ``__connect.errors.*`` context headers.
"""

from __future__ import annotations

from ._attributed import (
    NamesExecutingClass,
    NamesFailedRecords,
    executing_class,
    failed_records,
)
from ._dlq import DeadLetterQueue
from ._handler import ErrorHandler, Failure, json_text, source_record_json
from ._policy import ErrorPolicy, Stage, class_name, tolerance_exceeded

__all__ = [
    "DeadLetterQueue",
    "ErrorHandler",
    "ErrorPolicy",
    "Failure",
    "NamesExecutingClass",
    "NamesFailedRecords",
    "Stage",
    "class_name",
    "executing_class",
    "failed_records",
    "json_text",
    "source_record_json",
    "tolerance_exceeded",
]
