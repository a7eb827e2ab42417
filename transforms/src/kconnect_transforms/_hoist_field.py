"""HoistField$Key / $Value: wrap the key or value in a struct (or map) of one field."""

from __future__ import annotations

from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Type,
)

from ._util import (
    KeyOrValue,
    R,
    SchemaCache,
    checked,
    fill_struct,
)

__all__ = ["HoistFieldKey", "HoistFieldValue"]


class _HoistField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "field",
        ConfigType.STRING,
        # No validator, as in Kafka: "" names the map key of a schemaless value (a struct
        # field cannot be called "", and says so when the first record comes).
        importance=Importance.MEDIUM,
        documentation="Field name for the single field that will be created in the "
        "resulting Struct or Map.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._field: str = config["field"]
        self._schemas: SchemaCache[Schema] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            return self.new_record(record, None, {self._field: value})
        if not self._field:
            raise DataError(
                f"{self.NAME}: a struct field cannot be called '' (field config); name the "
                "field to hoist the value into"
            )
        updated = self._schemas.get(schema)
        if updated is None:
            updated = self._schemas.put(
                schema, Schema(Type.STRUCT, fields=[Field(self._field, 0, schema)])
            )
        checked(self.NAME, self._field, schema, value)
        return self.new_record(record, updated, fill_struct(updated, [value]))


class HoistFieldKey(_HoistField[R]):
    """Wrap the key in a struct or map (``...transforms.HoistField$Key``)."""

    ON_KEY = True
    NAME = "HoistField$Key"


class HoistFieldValue(_HoistField[R]):
    """Wrap the value in a struct or map (``...transforms.HoistField$Value``)."""

    NAME = "HoistField$Value"
