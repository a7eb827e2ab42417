"""AvroConverter's settings, named and defaulted as Confluent's ``AvroConverterConfig``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kconnect_sdk import ConfigDef, ConfigError, ConfigType, Importance, ValidString

from ._avro_data import avro_data_config_def

__all__ = [
    "RECORD_NAME_STRATEGY",
    "TOPIC_NAME_STRATEGY",
    "TOPIC_RECORD_NAME_STRATEGY",
    "AvroConverterSettings",
    "avro_converter_config_def",
]

SCHEMA_REGISTRY_URL_CONFIG: Final = "schema.registry.url"
BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG: Final = "basic.auth.credentials.source"
USER_INFO_CONFIG: Final = "basic.auth.user.info"
AUTO_REGISTER_SCHEMAS_CONFIG: Final = "auto.register.schemas"
USE_LATEST_VERSION_CONFIG: Final = "use.latest.version"
LATEST_COMPATIBILITY_STRICT_CONFIG: Final = "latest.compatibility.strict"
NORMALIZE_SCHEMAS_CONFIG: Final = "normalize.schemas"
KEY_SUBJECT_NAME_STRATEGY_CONFIG: Final = "key.subject.name.strategy"
VALUE_SUBJECT_NAME_STRATEGY_CONFIG: Final = "value.subject.name.strategy"
MAX_SCHEMAS_PER_SUBJECT_CONFIG: Final = "max.schemas.per.subject"
SSL_PREFIX: Final = "schema.registry.ssl."
KEY_SCHEMA_ID_SERIALIZER_CONFIG: Final = "key.schema.id.serializer"
VALUE_SCHEMA_ID_SERIALIZER_CONFIG: Final = "value.schema.id.serializer"
KEY_SCHEMA_ID_DESERIALIZER_CONFIG: Final = "key.schema.id.deserializer"
VALUE_SCHEMA_ID_DESERIALIZER_CONFIG: Final = "value.schema.id.deserializer"
_SCHEMA_ID: Final = "io.confluent.kafka.serializers.schema.id."
PREFIX_SCHEMA_ID_SERIALIZER: Final = _SCHEMA_ID + "PrefixSchemaIdSerializer"
HEADER_SCHEMA_ID_SERIALIZER: Final = _SCHEMA_ID + "HeaderSchemaIdSerializer"
PREFIX_SCHEMA_ID_DESERIALIZER: Final = _SCHEMA_ID + "PrefixSchemaIdDeserializer"
DUAL_SCHEMA_ID_DESERIALIZER: Final = _SCHEMA_ID + "DualSchemaIdDeserializer"
#: The record headers Confluent's HeaderSchemaIdSerializer puts a schema's GUID in.
KEY_SCHEMA_ID_HEADER: Final = "__key_schema_id"
VALUE_SCHEMA_ID_HEADER: Final = "__value_schema_id"

TOPIC_NAME_STRATEGY: Final = "io.confluent.kafka.serializers.subject.TopicNameStrategy"
RECORD_NAME_STRATEGY: Final = "io.confluent.kafka.serializers.subject.RecordNameStrategy"
TOPIC_RECORD_NAME_STRATEGY: Final = "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"
_STRATEGIES: Final = (TOPIC_NAME_STRATEGY, RECORD_NAME_STRATEGY, TOPIC_RECORD_NAME_STRATEGY)

# The SSL keys the Python client understands, from Confluent's Java names. Java keystores
# (JKS/PKCS12) cannot be read here; PEM files can.
_SSL_KEYS: Final = {
    "truststore.location": "ssl.ca.location",
    "ca.location": "ssl.ca.location",
    "keystore.location": "ssl.certificate.location",
    "certificate.location": "ssl.certificate.location",
    "key.location": "ssl.key.location",
    "key.password": "ssl.key.password",
}


def avro_converter_config_def() -> ConfigDef:
    """The ConfigDef of AvroConverter: Confluent's serde keys plus ``AvroDataConfig``'s."""
    cd = (
        ConfigDef()
        .define(
            SCHEMA_REGISTRY_URL_CONFIG,
            ConfigType.LIST,
            None,
            importance=Importance.HIGH,
            documentation="Comma-separated list of URLs for Schema Registry instances that can "
            "be used to register or look up schemas. `mock://<scope>` uses an in-process "
            "registry shared by everything in this process that names the same scope. Unset, "
            "the worker's embedded registry is used when it runs one.",
        )
        .define(
            BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG,
            ConfigType.STRING,
            "URL",
            ValidString.one_of("URL", "USER_INFO"),
            importance=Importance.MEDIUM,
            documentation="Specify how to pick the credentials for the Basic Auth header: "
            "`URL` (user info in the URL) or `USER_INFO` (`basic.auth.user.info`).",
        )
        .define(
            USER_INFO_CONFIG,
            ConfigType.PASSWORD,
            "",
            importance=Importance.MEDIUM,
            documentation="Specify the user info for the Basic Auth in the form of "
            "{username}:{password}",
        )
        .define(
            AUTO_REGISTER_SCHEMAS_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Specify if the Serializer should attempt to register the Schema "
            "with Schema Registry",
        )
        .define(
            USE_LATEST_VERSION_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Specify if the Serializer should use the latest subject version for "
            "serialization",
        )
        .define(
            LATEST_COMPATIBILITY_STRICT_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Specify if the Serializer should check for backward compatibility "
            "between the latest subject version and the schema of the object being serialized",
        )
        .define(
            NORMALIZE_SCHEMAS_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.LOW,
            documentation="Whether to normalize schemas, which generally ignores ordering when "
            "it is not significant",
        )
        .define(
            KEY_SUBJECT_NAME_STRATEGY_CONFIG,
            ConfigType.STRING,
            TOPIC_NAME_STRATEGY,
            ValidString.one_of(*_STRATEGIES),
            importance=Importance.MEDIUM,
            documentation="Determines how to construct the subject name under which the key "
            "schema is registered with the schema registry.",
        )
        .define(
            VALUE_SUBJECT_NAME_STRATEGY_CONFIG,
            ConfigType.STRING,
            TOPIC_NAME_STRATEGY,
            ValidString.one_of(*_STRATEGIES),
            importance=Importance.MEDIUM,
            documentation="Determines how to construct the subject name under which the value "
            "schema is registered with the schema registry.",
        )
        .define(
            MAX_SCHEMAS_PER_SUBJECT_CONFIG,
            ConfigType.INT,
            1000,
            importance=Importance.LOW,
            documentation="Maximum number of schemas to create or cache locally.",
        )
    )
    for name, default, what in (
        (
            KEY_SCHEMA_ID_SERIALIZER_CONFIG,
            PREFIX_SCHEMA_ID_SERIALIZER,
            "serialize the ID for the key",
        ),
        (
            VALUE_SCHEMA_ID_SERIALIZER_CONFIG,
            PREFIX_SCHEMA_ID_SERIALIZER,
            "serialize the ID for the value",
        ),
        (
            KEY_SCHEMA_ID_DESERIALIZER_CONFIG,
            DUAL_SCHEMA_ID_DESERIALIZER,
            "deserialize the ID for the key",
        ),
        (
            VALUE_SCHEMA_ID_DESERIALIZER_CONFIG,
            DUAL_SCHEMA_ID_DESERIALIZER,
            "deserialize the ID for the value",
        ),
    ):
        cd.define(
            name,
            ConfigType.STRING,
            default,
            importance=Importance.LOW,
            documentation=f"Determines how to {what} schema. Only Confluent's default is "
            "offered: ids travel in the payload prefix (a record that carries its schema id "
            "in a header is refused with a data error).",
        )
    data = avro_data_config_def()
    for key in data.config_keys.values():
        cd.define_key(key)
    return cd


@dataclass(frozen=True, slots=True)
class AvroConverterSettings:
    """The parsed settings one AvroConverter runs with."""

    urls: tuple[str, ...] = ()
    credentials_source: str = "URL"
    user_info: str = field(default="", repr=False)
    auto_register: bool = True
    use_latest_version: bool = False
    latest_compatibility_strict: bool = True
    normalize: bool = False
    key_strategy: str = TOPIC_NAME_STRATEGY
    value_strategy: str = TOPIC_NAME_STRATEGY
    max_schemas_per_subject: int = 1000
    ssl: Mapping[str, str] = field(default_factory=dict)
    data_config: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, configs: Mapping[str, Any]) -> AvroConverterSettings:
        known = avro_converter_config_def()
        relevant = {k: v for k, v in configs.items() if k in known.names()}
        p = known.parse(relevant)
        urls = tuple(u.strip() for u in (p[SCHEMA_REGISTRY_URL_CONFIG] or []) if u.strip())
        ssl: dict[str, str] = {}
        for key, value in configs.items():
            if key.startswith(SSL_PREFIX) and value not in (None, ""):
                target = _SSL_KEYS.get(key[len(SSL_PREFIX) :])
                if target is None:
                    continue
                ssl[target] = value.value if hasattr(value, "value") else str(value)
        for key in (KEY_SCHEMA_ID_SERIALIZER_CONFIG, VALUE_SCHEMA_ID_SERIALIZER_CONFIG):
            if p[key] != PREFIX_SCHEMA_ID_SERIALIZER:
                raise ConfigError(
                    f"AvroConverter: '{key}' = {p[key]!r} is not supported; kconnect writes the "
                    f"schema id in the payload prefix ({PREFIX_SCHEMA_ID_SERIALIZER}). Schema "
                    f"ids in record headers ({HEADER_SCHEMA_ID_SERIALIZER}) need schema GUIDs, "
                    f"which kconnect's converter does not use yet; remove the setting"
                )
        for key in (KEY_SCHEMA_ID_DESERIALIZER_CONFIG, VALUE_SCHEMA_ID_DESERIALIZER_CONFIG):
            if p[key] not in (DUAL_SCHEMA_ID_DESERIALIZER, PREFIX_SCHEMA_ID_DESERIALIZER):
                raise ConfigError(
                    f"AvroConverter: '{key}' = {p[key]!r} is not supported; use "
                    f"{DUAL_SCHEMA_ID_DESERIALIZER} (the default) or "
                    f"{PREFIX_SCHEMA_ID_DESERIALIZER}"
                )
        user_info = p[USER_INFO_CONFIG]
        return cls(
            urls=urls,
            credentials_source=p[BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG],
            user_info=user_info.value if user_info is not None else "",
            auto_register=p[AUTO_REGISTER_SCHEMAS_CONFIG],
            use_latest_version=p[USE_LATEST_VERSION_CONFIG],
            latest_compatibility_strict=p[LATEST_COMPATIBILITY_STRICT_CONFIG],
            normalize=p[NORMALIZE_SCHEMAS_CONFIG],
            key_strategy=p[KEY_SUBJECT_NAME_STRATEGY_CONFIG],
            value_strategy=p[VALUE_SUBJECT_NAME_STRATEGY_CONFIG],
            max_schemas_per_subject=p[MAX_SCHEMAS_PER_SUBJECT_CONFIG],
            ssl=ssl,
            data_config=dict(configs),
        )

    def client_config(self) -> dict[str, Any]:
        """The confluent-kafka ``SchemaRegistryClient`` config for these settings."""
        if not self.urls:
            raise ConfigError(
                "AvroConverter: 'schema.registry.url' is not set; point it at a Schema Registry "
                "(e.g. http://localhost:8081), use mock://<scope> for an in-process one, or run "
                "the worker with its embedded broker, which starts a registry for you"
            )
        conf: dict[str, Any] = {"url": ",".join(self.urls)}
        if self.credentials_source == "USER_INFO" and self.user_info:
            conf["basic.auth.user.info"] = self.user_info
        conf.update(self.ssl)
        conf["cache.capacity"] = self.max_schemas_per_subject
        return conf
