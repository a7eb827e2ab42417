"""Config definitions, config providers and properties files.

The worker and connector config keys Kafka Connect defines (``_definitions``), the
spark engine's keys (``_spark``), ``${provider:path:key}`` placeholders (``_providers``) and
Java-style ``.properties`` / JSON config files (``_properties``).
"""

from __future__ import annotations

from ._definitions import (
    CONNECTOR_CONFIG,
    EMBEDDED_SCHEMA_REGISTRY_URL,
    SINK_CONNECTOR_CONFIG,
    SOURCE_CONNECTOR_CONFIG,
    parse_connector_config,
    parse_worker_config,
)
from ._properties import load_connector_config, load_properties, parse_properties
from ._providers import ConfigProviders
from ._spark import SPARK_ENGINE_CONFIG, parse_spark_engine_config, spark_session_conf

__all__ = [
    "CONNECTOR_CONFIG",
    "EMBEDDED_SCHEMA_REGISTRY_URL",
    "SINK_CONNECTOR_CONFIG",
    "SOURCE_CONNECTOR_CONFIG",
    "SPARK_ENGINE_CONFIG",
    "ConfigProviders",
    "load_connector_config",
    "load_properties",
    "parse_connector_config",
    "parse_properties",
    "parse_spark_engine_config",
    "parse_worker_config",
    "spark_session_conf",
]
