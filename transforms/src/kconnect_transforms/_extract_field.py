"""ExtractField$Key / $Value: replace the key or value by one of its fields."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Type,
    non_empty_string,
)

from ._field_path import _define_syntax, field_value, parse_field_path
from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    define_replace_null,
    require_map,
    require_struct,
)

__all__ = ["ExtractFieldKey", "ExtractFieldValue"]


class _ExtractField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        _define_syntax(
            ConfigDef().define(
                "field",
                ConfigType.STRING,
                validator=non_empty_string,
                importance=Importance.MEDIUM,
                documentation="Field name to extract.",
            )
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._field: str = config["field"]
        nested = config["field.syntax.version"].upper() == "V2"
        self._path = parse_field_path(self._field, nested=nested)
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[list[Field]] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if schema is None:
            current: Any = value
            for name in self._path:
                if current is None:
                    break
                current = require_map(self.NAME, current, "field extraction").get(name)
            return self.new_record(record, None, current)
        fields = self._schemas.get(schema)
        if fields is None:
            fields = self._schemas.put(schema, self._resolve(schema))
        if value is None:
            return self.new_record(record, fields[-1].schema, None)
        current = require_struct(self.NAME, value, "field extraction")
        for field in fields:
            if current is None:
                break
            current = field_value(current, field, self._replace_null)
        return self.new_record(record, fields[-1].schema, current)

    def _resolve(self, schema: Schema) -> list[Field]:
        fields: list[Field] = []
        current = schema
        for name in self._path:
            found = current.field(name) if current.type is Type.STRUCT else None
            if found is None:
                raise DataError(
                    f"{self.NAME}: Unknown field: {self._field!r} is not in the {self.side} "
                    f"schema (fields: {', '.join(f.name for f in schema.fields)})"
                )
            fields.append(found)
            current = found.schema
        return fields


class ExtractFieldKey(_ExtractField[R]):
    """Replace the key with one of its fields (``...transforms.ExtractField$Key``)."""

    ON_KEY = True
    NAME = "ExtractField$Key"


class ExtractFieldValue(_ExtractField[R]):
    """Replace the value with one of its fields (``...transforms.ExtractField$Value``)."""

    NAME = "ExtractField$Value"
