"""Java-parity primitives: ``Double.toString``, ``String.hashCode``, ``HashMap`` order, the
epoch constants and a retry-with-backoff loop.

For plugins that must write what Kafka Connect's Java plugins write. Most plugins never
need them, so they are not part of the top-level ``kconnect_sdk`` API::

    from kconnect_sdk.java import double_to_string, hashmap_order, string_hash

    double_to_string(1e7)  # "1.0E7", as Java writes it
    [keys[i] for i in hashmap_order([string_hash(k) for k in keys])]  # HashMap order
"""

from __future__ import annotations

from ._java import (
    CIVIL_EPOCH_DAY,
    EPOCH_DATE,
    EPOCH_DATETIME,
    EPOCH_ORDINAL,
    MICROS_PER_DAY,
    MILLIS_PER_DAY,
    double_to_string,
    float_to_string,
    hashmap_order,
    retry_with_backoff,
    string_hash,
)

__all__ = [
    "CIVIL_EPOCH_DAY",
    "EPOCH_DATE",
    "EPOCH_DATETIME",
    "EPOCH_ORDINAL",
    "MICROS_PER_DAY",
    "MILLIS_PER_DAY",
    "double_to_string",
    "float_to_string",
    "hashmap_order",
    "retry_with_backoff",
    "string_hash",
]
