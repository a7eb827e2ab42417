"""Lossless plain (JSON-serialisable) forms of schemas, values and records.

This is the wire codec the runtime uses where records cross a process boundary (isolated
plugin locations, Spark executors). Plugin authors rarely need it, so it is not part of the
top-level ``kconnect_sdk`` API::

    from kconnect_sdk.plain import record_to_plain, record_from_plain
"""

from __future__ import annotations

from ._plain import (
    record_from_plain,
    record_to_plain,
    schema_from_plain,
    schema_to_plain,
    value_from_plain,
    value_to_plain,
)

__all__ = [
    "record_from_plain",
    "record_to_plain",
    "schema_from_plain",
    "schema_to_plain",
    "value_from_plain",
    "value_to_plain",
]
