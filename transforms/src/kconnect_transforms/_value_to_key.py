"""ValueToKey: build the key from fields of the value."""

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

from ._field_path import field_value
from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    BaseTransform,
    R,
    SchemaCache,
    define_replace_null,
    fill_struct,
    non_empty_list,
    require_map,
    require_struct,
)

__all__ = ["ValueToKey"]


class ValueToKey(BaseTransform[R]):
    """Replace the key with a key built from value fields (``...transforms.ValueToKey``)."""

    NAME = "ValueToKey"
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef().define(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Field names on the record value to extract as the record key.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._fields: list[str] = config["fields"]
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, list[Field]]] = SchemaCache()

    def apply(self, record: R) -> R | None:
        value = record.value
        if value is None:
            return record
        if record.value_schema is None:
            original = require_map(self.NAME, value, "copying fields from value to key")
            return record.new_record(
                key_schema=None, key={f: original.get(f) for f in self._fields}
            )
        struct = require_struct(self.NAME, value, "copying fields from value to key")
        plan = self._schemas.get(struct.schema)
        if plan is None:
            sources: list[Field] = []
            fields: list[Field] = []
            for name in self._fields:
                source = struct.schema.field(name)
                if source is None:
                    raise DataError(
                        f"{self.NAME}: Field does not exist: {name!r}; the value schema has: "
                        f"{', '.join(f.name for f in struct.schema.fields)}"
                    )
                if any(f.name == name for f in fields):
                    # As Kafka's SchemaBuilder: a key struct cannot hold a field twice.
                    raise DataError(
                        f"{self.NAME}: Cannot create field because of field name duplication "
                        f"{name}; list each field once in 'fields'"
                    )
                sources.append(source)
                fields.append(Field(name, len(fields), source.schema))
            plan = self._schemas.put(struct.schema, (Schema(Type.STRUCT, fields=fields), sources))
        key_schema, sources = plan
        values = [field_value(struct, f, self._replace_null) for f in sources]
        for f, v in zip(key_schema.fields, values, strict=True):
            if v is None and not f.schema.optional:
                # Kafka puts each value into the key Struct, whose put refuses this null.
                raise DataError(
                    f"{self.NAME}: Invalid value: null used for required field: "
                    f'"{f.name}", schema type: {f.schema.type.name}'
                )
        return record.new_record(key_schema=key_schema, key=fill_struct(key_schema, values))
