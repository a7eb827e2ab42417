"""Debezium's ByLogicalTableRouter: route sharded tables' topics to one logical table topic."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Struct,
    Type,
    struct_values,
)

from ._util import (
    BaseTransform,
    R,
    SchemaCache,
    copy_schema,
    fill_struct,
    java_regex,
    java_replacement,
    one_of_ci,
)

__all__ = ["ByLogicalTableRouter"]


def _check_regex(name: str, value: Any) -> None:
    java_regex(value, name=name)


def _check_replacement(name: str, value: Any) -> None:
    java_replacement(value, name=name)


class ByLogicalTableRouter(BaseTransform[R]):
    """Route several physical tables' topics to one logical topic (``io.debezium.transforms.ByLogicalTableRouter``).

    Records whose topic matches ``topic.regex`` (whole name) go to ``topic.replacement``;
    with ``key.enforce.uniqueness`` the key gains a field naming the original topic so keys
    from different tables stay distinct.
    """

    NAME = "ByLogicalTableRouter"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "topic.regex",
            ConfigType.STRING,
            validator=_check_regex,
            importance=Importance.LOW,
            documentation="The regex used for extracting the name of the logical table from "
            "the original topic name.",
        )
        .define(
            "topic.replacement",
            ConfigType.STRING,
            validator=_check_replacement,
            importance=Importance.LOW,
            documentation="The replacement string used with topic.regex; the result is the "
            "new topic name.",
        )
        .define(
            "key.enforce.uniqueness",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Augment each record's key with a field naming the original topic.",
        )
        .define(
            "key.field.name",
            ConfigType.STRING,
            "__dbz__physicalTableIdentifier",
            importance=Importance.LOW,
            documentation="Name of the key field holding the original table identifier.",
        )
        .define(
            "key.field.regex",
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="Regex applied to the original topic to compute the key field value.",
        )
        .define(
            "key.field.replacement",
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="Replacement used with key.field.regex; required when it is set.",
        )
        .define(
            "schema.name.adjustment.mode",
            ConfigType.STRING,
            "none",
            one_of_ci("none", "avro", "avro_unicode"),
            importance=Importance.LOW,
            documentation="none: keep schema names as they are; avro: replace characters "
            "Avro does not allow in names with '_'.",
        )
        .define(
            "logical.table.cache.size",
            ConfigType.INT,
            16,
            importance=Importance.LOW,
            documentation="Number of derived key and envelope schemas to cache.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._regex = java_regex(config["topic.regex"], name="topic.regex")
        self._replacement = java_replacement(config["topic.replacement"], name="topic.replacement")
        self._unique: bool = config["key.enforce.uniqueness"]
        self._key_field: str = config["key.field.name"]
        key_regex: str | None = config["key.field.regex"]
        key_replacement: str | None = config["key.field.replacement"]
        self._key_regex: re.Pattern[str] | None = None
        self._key_replacement = ""
        if key_regex is not None:
            if key_replacement is None:
                raise ConfigError(
                    'Missing required configuration "key.field.replacement": it is needed '
                    "because key.field.regex is set",
                    name="key.field.replacement",
                )
            self._key_regex = java_regex(key_regex, name="key.field.regex")
            self._key_replacement = java_replacement(key_replacement, name="key.field.replacement")
        self._avro = config["schema.name.adjustment.mode"].lower() != "none"
        size = max(1, config["logical.table.cache.size"])
        self._keys: SchemaCache[Schema] = SchemaCache(size)
        self._envelopes: SchemaCache[Schema] = SchemaCache(size)
        self._topics: dict[str, str | None] = {}

    def _adjust(self, name: str) -> str:
        if not self._avro:
            return name
        adjusted = re.sub(r"[^A-Za-z0-9_.]", "_", name)
        return "_" + adjusted if adjusted[:1].isdigit() else adjusted

    def _route(self, topic: str) -> str | None:
        if topic not in self._topics:
            routed = (
                self._regex.sub(self._replacement, topic, count=1)
                if self._regex.fullmatch(topic)
                else None
            )
            if len(self._topics) > 10_000:
                self._topics.clear()
            self._topics[topic] = routed
        return self._topics[topic]

    def _table_id(self, topic: str) -> str:
        if self._key_regex is not None and self._key_regex.fullmatch(topic):
            return self._key_regex.sub(self._key_replacement, topic, count=1)
        return topic

    def apply(self, record: R) -> R | None:
        new_topic = self._route(record.topic)
        if new_topic is None:
            return record
        changes: dict[str, Any] = {"topic": new_topic}
        key = record.key
        if self._unique and key is not None:
            table_id = self._table_id(record.topic)
            if isinstance(key, Struct):
                schema = self._keys.get(key.schema)
                if schema is None:
                    if key.schema.field(self._key_field) is not None:
                        raise DataError(
                            f"{self.NAME}: the key already has a field {self._key_field!r}; "
                            "set key.field.name to another name"
                        )
                    fields = [
                        *key.schema.fields,
                        Field(self._key_field, len(key.schema.fields), Schema.STRING),
                    ]
                    schema = self._keys.put(
                        key.schema,
                        copy_schema(
                            key.schema, name=self._adjust(new_topic + ".Key"), fields=fields
                        ),
                    )
                changes["key_schema"] = schema
                changes["key"] = fill_struct(schema, [*struct_values(key), table_id])
            elif isinstance(key, Mapping):
                changes["key"] = {**key, self._key_field: table_id}
        value = record.value
        if isinstance(value, Struct) and (value.schema.name or "").endswith(".Envelope"):
            schema = self._envelopes.get(value.schema)
            if schema is None:
                schema = self._envelopes.put(
                    value.schema, self._envelope_schema(value.schema, new_topic)
                )
            values = list(struct_values(value))
            for field in schema.fields:
                current = values[field.index]
                if field.name in ("before", "after") and isinstance(current, Struct):
                    values[field.index] = fill_struct(field.schema, list(struct_values(current)))
            changes["value_schema"] = schema
            changes["value"] = fill_struct(schema, values)
        return record.new_record(**changes)

    def _envelope_schema(self, schema: Schema, topic: str) -> Schema:
        row_name = self._adjust(topic + ".Value")
        fields = []
        for field in schema.fields:
            field_schema = field.schema
            if field.name in ("before", "after") and field_schema.type is Type.STRUCT:
                field_schema = copy_schema(field_schema, name=row_name, fields=field_schema.fields)
            fields.append(Field(field.name, field.index, field_schema))
        return copy_schema(schema, name=self._adjust(topic + ".Envelope"), fields=fields)
