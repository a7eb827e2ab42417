"""SetSchemaMetadata$Key / $Value: set the schema's name and version."""

from __future__ import annotations

from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    Schema,
    Struct,
)

from ._field_path import field_value
from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    copy_schema,
    define_replace_null,
    fill_struct,
)

__all__ = ["SetSchemaMetadataKey", "SetSchemaMetadataValue"]


class _SetSchemaMetadata(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "schema.name",
            ConfigType.STRING,
            None,
            importance=Importance.HIGH,
            documentation="Schema name to set.",
        )
        .define(
            "schema.version",
            ConfigType.INT,
            None,
            importance=Importance.HIGH,
            documentation="Schema version to set.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._name: str | None = config["schema.name"]
        self._version: int | None = config["schema.version"]
        if self._name is None and self._version is None:
            raise ConfigError(
                "Neither schema name nor version configured: set schema.name, schema.version "
                "or both"
            )
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[Schema] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if schema is None:
            if value is None:
                return record
            raise DataError(
                f"{self.NAME}: Schema required for [updating schema metadata]; the record's "
                f"{self.side} has no schema (use a converter with schemas enabled)"
            )
        updated = self._schemas.get(schema)
        if updated is None:
            updated = self._schemas.put(
                schema,
                copy_schema(
                    schema,
                    name=self._name,
                    version=self._version,
                    fields=schema.fields,
                    keep_default=True,
                ),
            )
        if isinstance(value, Struct):
            values = [field_value(value, f, self._replace_null) for f in value.schema.fields]
            for f, v in zip(value.schema.fields, values, strict=True):
                if v is None and not f.schema.optional:
                    # Kafka puts each value into the new Struct, whose put refuses a null
                    # for a required field (left null when replace.null.with.default=false).
                    raise DataError(
                        f"{self.NAME}: Invalid value: null used for required field: "
                        f'"{f.name}", schema type: {f.schema.type.name}'
                    )
            value = fill_struct(updated, values)
        return self.new_record(record, updated, value)


class SetSchemaMetadataKey(_SetSchemaMetadata[R]):
    """Set the key schema's name and/or version (``...transforms.SetSchemaMetadata$Key``)."""

    ON_KEY = True
    NAME = "SetSchemaMetadata$Key"


class SetSchemaMetadataValue(_SetSchemaMetadata[R]):
    """Set the value schema's name and/or version (``...SetSchemaMetadata$Value``)."""

    NAME = "SetSchemaMetadata$Value"
