"""Config definitions, config providers and properties files.

The worker and connector config keys Kafka Connect defines (``_definitions``), the
spark engine's keys (``_spark``), ``${provider:path:key}`` placeholders (``_providers``) and
Java-style ``.properties`` / JSON config files (``_properties``), and the one definition of
what is secret in a config with the views that hide it (``_secrets``).
"""

from __future__ import annotations

from ._definitions import (
    CONNECTOR_CONFIG,
    CONNECTOR_NAME_MAX_CHARS,
    EMBEDDED_SCHEMA_REGISTRY_URL,
    KCONNECT_CONNECTOR_EXTENSIONS,
    KCONNECT_SOURCE_EXTENSIONS,
    SINK_CONNECTOR_CONFIG,
    SOURCE_CONNECTOR_CONFIG,
    parse_connector_config,
    parse_worker_config,
)
from ._inter_worker import (
    canonical_mac,
    check_key_generator,
    check_signature_in_verification,
    key_bytes,
    mac_hash,
)
from ._kafka import (
    CLIENT_PREFIXES,
    client_security_errors,
    kafka_client_config,
    worker_security_errors,
)
from ._properties import load_connector_config, load_properties, parse_properties
from ._providers import ConfigProviders
from ._secrets import (
    CLIENT_PASSWORD_KEYS,
    HIDDEN,
    Redactor,
    is_client_password,
    is_valid_reference,
    register_worker_secrets,
)
from ._spark import SPARK_ENGINE_CONFIG, parse_spark_engine_config, spark_session_conf
from ._suggest import (  # unknown keys with the closest known key
    UnknownKey,
    closest_key,
    log_unknown_connector_keys,
    unknown_connector_keys,
    unknown_worker_keys,
)
from ._topic_creation import (
    TopicCreationGroup,
    check_topic_creation_groups,
    topic_creation_group,
)

__all__ = [
    "CLIENT_PASSWORD_KEYS",
    "CLIENT_PREFIXES",
    "CONNECTOR_CONFIG",
    "CONNECTOR_NAME_MAX_CHARS",
    "EMBEDDED_SCHEMA_REGISTRY_URL",
    "HIDDEN",
    "KCONNECT_CONNECTOR_EXTENSIONS",
    "KCONNECT_SOURCE_EXTENSIONS",
    "SINK_CONNECTOR_CONFIG",
    "SOURCE_CONNECTOR_CONFIG",
    "SPARK_ENGINE_CONFIG",
    "ConfigProviders",
    "Redactor",
    "TopicCreationGroup",
    "UnknownKey",
    "canonical_mac",
    "check_key_generator",
    "check_signature_in_verification",
    "check_topic_creation_groups",
    "client_security_errors",
    "closest_key",
    "is_client_password",
    "is_valid_reference",
    "kafka_client_config",
    "key_bytes",
    "load_connector_config",
    "load_properties",
    "log_unknown_connector_keys",
    "mac_hash",
    "parse_connector_config",
    "parse_properties",
    "parse_spark_engine_config",
    "parse_worker_config",
    "register_worker_secrets",
    "spark_session_conf",
    "topic_creation_group",
    "unknown_connector_keys",
    "unknown_worker_keys",
    "worker_security_errors",
]
