"""Java-parity primitives: ``Double.toString``, ``String.hashCode``, ``HashMap`` order, the
epoch constants, ``GregorianCalendar``'s Julian/Gregorian days, ``SimpleDateFormat`` and a
retry-with-backoff loop.

For plugins that must write what Kafka Connect's Java plugins write. Most plugins never
need them, so they are not part of the top-level ``kconnect_sdk`` API::

    from kconnect_sdk.java import JavaDateFormat, double_to_string, hashmap_order, string_hash

    double_to_string(1e7)  # "1.0E7", as Java writes it
    [keys[i] for i in hashmap_order([string_hash(k) for k in keys])]  # HashMap order
    JavaDateFormat("yyyy-MM-dd").format_millis(-12_219_292_800_001)  # "1582-10-04" (Julian)
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
from ._java_time import (
    DAY_NAMES,
    GREGORIAN_CUTOVER_DAY,
    MONTH_NAMES,
    JavaDateFormat,
    date_pattern_tokens,
    date_to_string,
    gregorian_date,
    gregorian_epoch_day,
    java_calendar_date,
    julian_date,
    julian_epoch_day,
)

__all__ = [
    "CIVIL_EPOCH_DAY",
    "DAY_NAMES",
    "EPOCH_DATE",
    "EPOCH_DATETIME",
    "EPOCH_ORDINAL",
    "GREGORIAN_CUTOVER_DAY",
    "MICROS_PER_DAY",
    "MILLIS_PER_DAY",
    "MONTH_NAMES",
    "JavaDateFormat",
    "date_pattern_tokens",
    "date_to_string",
    "double_to_string",
    "float_to_string",
    "gregorian_date",
    "gregorian_epoch_day",
    "hashmap_order",
    "java_calendar_date",
    "julian_date",
    "julian_epoch_day",
    "retry_with_backoff",
    "string_hash",
]
