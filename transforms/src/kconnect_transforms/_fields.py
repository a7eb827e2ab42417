"""Field-level reshaping: ReplaceField, ValueToKey, ExtractField, HoistField, MaskField,
SetSchemaMetadata."""

from __future__ import annotations

import datetime as dt
import decimal
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
    ValidString,
    non_empty_string,
)

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    BaseTransform,
    KeyOrValue,
    R,
    SchemaCache,
    checked,
    copy_schema,
    define_replace_null,
    fill_struct,
    non_empty_list,
    require_map,
    require_struct,
    struct_values,
)

__all__ = [
    "ExtractFieldKey",
    "ExtractFieldValue",
    "HoistFieldKey",
    "HoistFieldValue",
    "MaskFieldKey",
    "MaskFieldValue",
    "ReplaceFieldKey",
    "ReplaceFieldValue",
    "SetSchemaMetadataKey",
    "SetSchemaMetadataValue",
    "ValueToKey",
]


def field_value(struct: Struct, field: Field, replace_null: bool) -> Any:
    value = struct_values(struct)[field.index]
    if value is None and replace_null:
        return field.schema.default
    return value


# --------------------------------------------------------------------------- ReplaceField


def _parse_renames(name: str, value: Any) -> None:
    for mapping in value or ():
        parts = mapping.split(":")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ConfigError(
                f"Invalid value {value} for configuration {name}: Invalid rename mapping: "
                f"{mapping!r}; write old:new pairs separated by commas",
                name=name,
                value=value,
            )


class _ReplaceField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "exclude",
            ConfigType.LIST,
            "",
            importance=Importance.MEDIUM,
            documentation="Fields to exclude. This takes precedence over the fields to include.",
        )
        .define(
            "include",
            ConfigType.LIST,
            "",
            importance=Importance.MEDIUM,
            documentation="Fields to include. If specified, only these fields will be used.",
        )
        .define(
            "renames",
            ConfigType.LIST,
            "",
            _parse_renames,
            importance=Importance.MEDIUM,
            documentation="Field rename mappings, as comma-separated old:new pairs.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._exclude = frozenset(config["exclude"])
        self._include = frozenset(config["include"])
        self._renames = dict(m.split(":") for m in config["renames"])
        self._map_schemaless = self._replace
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, list[int], list[tuple[int, Any]]]] = SchemaCache()

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            original = require_map(self.NAME, value, "field replacement")
            return self.new_record(record, None, self._replace(record, original))
        struct = require_struct(self.NAME, value, "field replacement")
        plan = self._schemas.get(struct.schema)
        if plan is None:
            plan = self._schemas.put(struct.schema, self._plan(struct.schema))
        updated_schema, sources, defaults = plan
        old = struct_values(struct)
        values = [old[i] for i in sources]
        if defaults and self._replace_null:
            for index, default in defaults:
                if values[index] is None:
                    values[index] = default
        return self.new_record(record, updated_schema, fill_struct(updated_schema, values))

    def _replace(self, record: R, value: Mapping[str, Any]) -> dict[str, Any]:
        updated = dict(value)
        # Kafka builds a HashMap, so field order is not part of the contract; popping
        # from a copy is much cheaper than testing every key.
        for name in self._exclude:
            updated.pop(name, None)
        if self._include:
            updated = {k: v for k, v in updated.items() if k in self._include}
        if self._renames:
            # Pop every renamed field before re-adding so swaps (a:b,b:a) work.
            moved = {new: updated.pop(old) for old, new in self._renames.items() if old in updated}
            updated.update(moved)
        return updated

    def _plan(self, schema: Schema) -> tuple[Schema, list[int], list[tuple[int, Any]]]:
        fields: list[Field] = []
        sources: list[int] = []
        for field in schema.fields:
            if self._keep(field.name):
                new_name = self._renames.get(field.name, field.name)
                if any(f.name == new_name for f in fields):
                    raise DataError(
                        f"{self.NAME}: renaming {field.name!r} to {new_name!r} clashes with "
                        "another field of that name; fix the renames config"
                    )
                fields.append(Field(new_name, len(fields), field.schema))
                sources.append(field.index)
        defaults = [(f.index, f.schema.default) for f in fields if f.schema.default is not None]
        return copy_schema(schema, optional=False, fields=fields), sources, defaults


class ReplaceFieldKey(_ReplaceField[R]):
    """Filter or rename fields of the key (``org.apache.kafka.connect.transforms.ReplaceField$Key``)."""

    ON_KEY = True
    NAME = "ReplaceField$Key"


class ReplaceFieldValue(_ReplaceField[R]):
    """Filter or rename fields of the value (``...ReplaceField$Value``)."""

    NAME = "ReplaceField$Value"


# ----------------------------------------------------------------------------- ValueToKey


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
                sources.append(source)
                fields.append(Field(name, len(fields), source.schema))
            plan = self._schemas.put(struct.schema, (Schema(Type.STRUCT, fields=fields), sources))
        key_schema, sources = plan
        values = [field_value(struct, f, self._replace_null) for f in sources]
        return record.new_record(key_schema=key_schema, key=fill_struct(key_schema, values))


# --------------------------------------------------------------------------- ExtractField


def parse_field_path(path: str, *, nested: bool, name: str = "field") -> list[str]:
    """Split a V2 field path (``a.b``, with ```a.b`.c`` quoting a dotted name) into names."""
    if not nested:
        return [path]
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "`" and not quoted and not current:
            quoted = True
        elif ch == "`" and quoted and (i + 1 == len(path) or path[i + 1] == "."):
            quoted = False
        elif ch == "\\" and quoted and i + 1 < len(path) and path[i + 1] == "`":
            current.append("`")
            i += 1
        elif ch == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    if quoted or any(not p for p in parts):
        raise ConfigError(
            f"Invalid value {path} for configuration {name}: not a valid V2 field path; "
            "separate names with '.' and wrap names containing dots in backticks",
            name=name,
            value=path,
        )
    return parts


def _define_syntax(config: ConfigDef) -> ConfigDef:
    return config.define(
        "field.syntax.version",
        ConfigType.STRING,
        "V1",
        ValidString.one_of("V1", "V2", case_insensitive=True),
        importance=Importance.HIGH,
        documentation="V1: field names are taken as they are. V2: dots separate nested "
        "field names; wrap a name containing dots in backticks.",
    )


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


# ----------------------------------------------------------------------------- HoistField


class _HoistField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "field",
        ConfigType.STRING,
        validator=non_empty_string,
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


# ------------------------------------------------------------------------------ MaskField

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


_UNMASKABLE = object()


def _null_equivalent(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, str):
        return ""
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(0)
    if isinstance(value, dt.datetime):
        return _EPOCH
    if isinstance(value, dt.date):
        return dt.date(1970, 1, 1)
    if isinstance(value, dt.time):
        return dt.time(0, tzinfo=dt.UTC)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    return _UNMASKABLE


class _MaskField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Names of fields to mask.",
        )
        .define(
            "replacement",
            ConfigType.STRING,
            None,
            non_empty_string,
            importance=Importance.LOW,
            documentation="Custom value replacement, applied to all 'fields' values (numeric "
            "or non-empty string values only).",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._fields = frozenset(config["fields"])
        self._replacement: str | None = config["replacement"]
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]

    def _masked(self, field: str, value: Any) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            masked = _null_equivalent(value)
            if masked is _UNMASKABLE:
                raise DataError(
                    f"{self.NAME}: cannot mask field {field!r} of type {type(value).__name__}; "
                    "only numbers, strings, booleans, dates, lists and maps can be masked"
                )
            return masked
        text = self._replacement
        try:
            if isinstance(value, str):
                return text
            if isinstance(value, int) and not isinstance(value, bool):
                return int(text)
            if isinstance(value, float):
                return float(text)
            if isinstance(value, decimal.Decimal):
                return decimal.Decimal(text)
        except (ValueError, decimal.InvalidOperation):
            raise DataError(
                f"{self.NAME}: cannot mask field {field!r}: replacement {text!r} is not a "
                f"valid {type(value).__name__}; choose a numeric replacement"
            ) from None
        raise DataError(
            f"{self.NAME}: cannot mask field {field!r} of type {type(value).__name__} with a "
            "custom replacement; only numbers and strings can be replaced (drop 'replacement' "
            "to mask with the type's empty value)"
        )

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            updated = dict(require_map(self.NAME, value, "masking fields"))
            for name in self._fields:
                updated[name] = self._masked(name, updated.get(name))
            return self.new_record(record, None, updated)
        struct = require_struct(self.NAME, value, "masking fields")
        values = list(struct_values(struct))
        for field in struct.schema.fields:
            current = field_value(struct, field, self._replace_null)
            if field.name in self._fields:
                current = checked(
                    self.NAME, field.name, field.schema, self._masked(field.name, current)
                )
            values[field.index] = current
        return self.new_record(record, schema, fill_struct(struct.schema, values))


class MaskFieldKey(_MaskField[R]):
    """Mask key fields (``...transforms.MaskField$Key``)."""

    ON_KEY = True
    NAME = "MaskField$Key"


class MaskFieldValue(_MaskField[R]):
    """Mask value fields with their type's empty value (``...transforms.MaskField$Value``)."""

    NAME = "MaskField$Value"


# ---------------------------------------------------------------------- SetSchemaMetadata


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
            value = fill_struct(updated, values)
        return self.new_record(record, updated, value)


class SetSchemaMetadataKey(_SetSchemaMetadata[R]):
    """Set the key schema's name and/or version (``...transforms.SetSchemaMetadata$Key``)."""

    ON_KEY = True
    NAME = "SetSchemaMetadata$Key"


class SetSchemaMetadataValue(_SetSchemaMetadata[R]):
    """Set the value schema's name and/or version (``...SetSchemaMetadata$Value``)."""

    NAME = "SetSchemaMetadata$Value"
