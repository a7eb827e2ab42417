"""Kafka Connect's JsonConverter: Connect data as JSON, byte-compatible with Apache Kafka.

With ``schemas.enable=true`` every key, value or header is written in Kafka's envelope,
``{"schema":{...},"payload":...}``, so readers recover the exact schema; with ``false``
only the payload is written and readers get schemaless values.

Example:
    .. code-block:: properties

        value.converter=org.apache.kafka.connect.json.JsonConverter
        value.converter.schemas.enable=true
        value.converter.schemas.cache.size=1000
        value.converter.decimal.format=NUMERIC
        value.converter.replace.null.with.default=true

Settings (defaults as in Kafka): ``schemas.enable`` (true), ``schemas.cache.size`` (1000),
``decimal.format`` (``BASE64`` or ``NUMERIC``, case-insensitive; default ``BASE64``),
``replace.null.with.default`` (true).
"""

from __future__ import annotations

from ._config import DecimalFormat, JsonConverterSettings, json_converter_config_def
from ._converter import JsonConverter

__all__ = [
    "DecimalFormat",
    "JsonConverter",
    "JsonConverterSettings",
    "json_converter_config_def",
]
