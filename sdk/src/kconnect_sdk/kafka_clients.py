"""Java Kafka client settings for librdkafka (confluent-kafka) clients.

Plugins that build their own Kafka clients (a schema history, a signal topic, a second
cluster) take Java client settings from their configs, as the runtime does; one call turns
them into what librdkafka reads, with the same translation the runtime applies to every
client it builds::

    from confluent_kafka import Producer
    from kconnect_sdk.kafka_clients import librdkafka_config, with_prefix

    java = with_prefix(config, "schema.history.internal.producer.")
    producer = Producer(librdkafka_config(java, prefix="schema.history.internal.producer."))

``security.protocol``, ``sasl.mechanism`` with ``sasl.jaas.config`` (PLAIN, SCRAM, OAUTHBEARER),
JKS, PKCS12 and PEM trust and key stores with their passwords (converted to PEM in memory),
``ssl.endpoint.identification.algorithm`` and the TLS version and cipher settings are
translated; a setting librdkafka cannot honour (GSSAPI without Kerberos, a Java login or SSL
engine class) is a :class:`~kconnect_sdk.ConfigError` naming the key. Call
:func:`security_problems` (or :func:`check_prefixed`) from a connector's ``validate()`` to
refuse such a config before it runs. Reading stores needs ``kconnect-sdk[kafka]``.
"""

from __future__ import annotations

from ._jaas import (
    JAAS_LOGIN_CONFIG,
    JaasLoginModule,
    jaas_file_from_kafka_opts,
    parse_jaas_config,
    parse_jaas_file,
    read_jaas_file,
)
from ._kafka_clients import (
    JAVA_CLIENT_SECURITY_KEYS,
    StoreError,
    check_prefixed,
    librdkafka_config,
    openssl_cipher_list,
    security_problems,
    security_settings,
    with_prefix,
)

__all__ = [
    "JAAS_LOGIN_CONFIG",
    "JAVA_CLIENT_SECURITY_KEYS",
    "JaasLoginModule",
    "StoreError",
    "check_prefixed",
    "jaas_file_from_kafka_opts",
    "librdkafka_config",
    "openssl_cipher_list",
    "parse_jaas_config",
    "parse_jaas_file",
    "read_jaas_file",
    "security_problems",
    "security_settings",
    "with_prefix",
]
