"""HeaderFrom$Key / $Value: copy or move fields into headers."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Field,
    Header,
    Importance,
    ParsedConfig,
    Schema,
    struct_values,
)

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    copy_schema,
    define_replace_null,
    fill_struct,
    non_empty_list,
    one_of_ci,
    require_map,
    require_struct,
)

__all__ = ["HeaderFromKey", "HeaderFromValue"]


class _HeaderFrom(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Field names in the record whose values are to be copied or moved "
            "to headers.",
        )
        .define(
            "headers",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Header names, in the same order as the field names listed in the "
            "fields configuration property.",
        )
        .define(
            "operation",
            ConfigType.STRING,
            validator=one_of_ci("move", "copy"),
            importance=Importance.HIGH,
            documentation="Either move if the fields are to be moved to the headers (removed "
            "from the key/value), or copy if the fields are to be copied to the headers "
            "(retained in the key/value).",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._fields: list[str] = config["fields"]
        self._headers: list[str] = config["headers"]
        if len(self._fields) != len(self._headers):
            raise ConfigError(
                f"Invalid value {','.join(self._headers)} for configuration headers: 'fields' "
                "config must have the same number of elements as 'headers' config "
                f"({len(self._fields)} fields, {len(self._headers)} headers)",
                name="headers",
                value=self._headers,
            )
        self._move = config["operation"].lower() == "move"
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, list[Field], list[int]]] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        added: list[Header] = []
        if schema is None:
            original = require_map(self.NAME, value, f"header {'move' if self._move else 'copy'}")
            for field, header in zip(self._fields, self._headers, strict=True):
                added.append(Header(header, None, original.get(field)))
            updated: Any = value
            if self._move:
                moved = set(self._fields)
                updated = {k: v for k, v in original.items() if k not in moved}
            return self._with(record, None, updated, added)
        struct = require_struct(self.NAME, value, f"header {'move' if self._move else 'copy'}")
        plan = self._schemas.get(struct.schema)
        if plan is None:
            plan = self._schemas.put(struct.schema, self._plan(struct.schema))
        kept_schema, sources, kept = plan
        values = struct_values(struct)
        for source, header in zip(sources, self._headers, strict=True):
            current = values[source.index]
            if current is None and self._replace_null:
                current = source.schema.default
            added.append(Header(header, source.schema, current))
        if not self._move:
            return self._with(record, schema, value, added)
        # As Kafka, the kept fields are put into a new Struct read as the headers are
        # (defaults applied when replace.null.with.default), and put refuses a null for a
        # required field.
        kept_values = []
        for i, kept_field in zip(kept, kept_schema.fields, strict=True):
            current = values[i]
            if current is None and self._replace_null:
                current = struct.schema.fields[i].schema.default
            if current is None and not kept_field.schema.optional:
                raise DataError(
                    f"{self.NAME}: Invalid value: null used for required field: "
                    f'"{kept_field.name}", schema type: {kept_field.schema.type.name}'
                )
            kept_values.append(current)
        return self._with(record, kept_schema, fill_struct(kept_schema, kept_values), added)

    def _with(self, record: R, schema: Schema | None, value: Any, added: list[Header]) -> R:
        headers = record.headers.add_all(added)
        if self.ON_KEY:
            return record.new_record(key_schema=schema, key=value, headers=headers)
        return record.new_record(value_schema=schema, value=value, headers=headers)

    def _plan(self, schema: Schema) -> tuple[Schema, list[Field], list[int]]:
        sources: list[Field] = []
        for name in self._fields:
            field = schema.field(name)
            if field is None:
                raise DataError(
                    f"{self.NAME}: field {name!r} is not in the {self.side} schema (fields: "
                    f"{', '.join(f.name for f in schema.fields)}); fix the 'fields' config"
                )
            sources.append(field)
        moved = set(self._fields)
        kept = [f.index for f in schema.fields if f.name not in moved]
        fields = [
            Field(schema.fields[i].name, n, schema.fields[i].schema) for n, i in enumerate(kept)
        ]
        return copy_schema(schema, optional=False, fields=fields), sources, kept


class HeaderFromKey(_HeaderFrom[R]):
    """Copy or move key fields into headers (``...transforms.HeaderFrom$Key``)."""

    ON_KEY = True
    NAME = "HeaderFrom$Key"


class HeaderFromValue(_HeaderFrom[R]):
    """Copy or move value fields into headers (``...transforms.HeaderFrom$Value``)."""

    NAME = "HeaderFrom$Value"
