"""Flatten: turn nested structs and maps into one level with delimited field names."""

from __future__ import annotations

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
    KeyOrValue,
    R,
    SchemaCache,
    copy_schema,
    fill_struct,
    require_map,
    require_struct,
)

__all__ = ["FlattenKey", "FlattenValue"]

_LEAF_TYPES = (bool, int, float, str, bytes, bytearray, memoryview, list, tuple)

# The way to one flat field's value: at each level, the field's index and its own default.
_Path = tuple[tuple[int, Any], ...]


def _check_delimiter(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: give a string such as '.' or '_'",
            name=name,
            value=value,
        )


class _Flatten(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "delimiter",
        ConfigType.STRING,
        ".",
        _check_delimiter,
        importance=Importance.MEDIUM,
        documentation="Delimiter to insert between field names from the input record "
        "when generating field names for the output record.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._delimiter: str = config["delimiter"]
        # Per input schema: the flat schema and, per output field, the path to it: each
        # step's field index and that field's own default.
        self._schemas: SchemaCache[tuple[Schema, list[_Path]]] = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self._delimiter + name

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            flat: dict[str, Any] = {}
            self._flatten_map(require_map(self.NAME, value, "flattening"), "", flat)
            return self.new_record(record, None, flat)
        struct = require_struct(self.NAME, value, "flattening")
        plan = self._schemas.get(struct.schema)
        if plan is None:
            plan = self._schemas.put(struct.schema, self._plan(struct.schema))
        flat_schema, paths = plan
        values: list[Any] = []
        for field, path in zip(flat_schema.fields, paths, strict=True):
            # As Kafka: nested structs are read raw (Struct.getStruct applies no default),
            # so below a null struct the flat field is null (the defaults it inherits from
            # its parents are only in its schema); a leaf is read with Struct.get, its own
            # default taking its null.
            current: Any = struct
            last = len(path) - 1
            for depth, (index, default) in enumerate(path):
                current = struct_values(current)[index]
                if current is None:
                    if depth == last:
                        current = default
                    break
            if current is None and not field.schema.optional:
                raise DataError(
                    f"{self.NAME}: Invalid value: null used for required field: "
                    f"{field.name!r}, schema type: {field.schema.type.name}"
                )
            values.append(current)
        return self.new_record(record, flat_schema, fill_struct(flat_schema, values))

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            if key is not None and not isinstance(key, str):
                # Kafka casts each key to a String (a ClassCastException).
                raise DataError(
                    f"{self.NAME}: Flatten transformation needs string map keys for records "
                    f"without schemas; found {type(key).__name__} key {key!r}"
                )
            # Java's string concatenation writes a null key as "null" under a prefix.
            name = (
                key if not prefix else prefix + self._delimiter + ("null" if key is None else key)
            )
            if item is None or isinstance(item, _LEAF_TYPES):
                out[name] = item
            elif isinstance(item, Mapping):
                if name is None:  # Kafka fails on the null prefix (a NullPointerException)
                    raise DataError(f"{self.NAME}: a map under a null key cannot be flattened")
                self._flatten_map(item, name, out)
            else:
                raise DataError(
                    f"{self.NAME}: Flatten transformation does not support "
                    f"{type(item).__name__} for record without schemas (for field {name!r})"
                )

    def _plan(self, schema: Schema) -> tuple[Schema, list[_Path]]:
        fields: list[Field] = []
        paths: list[_Path] = []

        def walk(current: Schema, prefix: str, path: _Path, optional: bool, parent: Any) -> None:
            for field in current.fields:
                name = self._name(prefix, field.name)
                field_optional = optional or field.schema.optional
                default = field.schema.default
                if default is None and isinstance(parent, Struct):
                    default = parent.get(field)
                step = (*path, (field.index, field.schema.default))
                if field.schema.type is Type.STRUCT:
                    walk(field.schema, name, step, field_optional, default)
                    continue
                if field.schema.type is Type.MAP:
                    # As Kafka: a map's keys are not known from its schema, so it cannot
                    # become fields.
                    raise DataError(
                        f"{self.NAME}: Flatten transformation does not support MAP for record "
                        f"with schemas (for field {name!r})"
                    )
                if any(f.name == name for f in fields):
                    raise DataError(
                        f"{self.NAME}: flattening gives two fields named {name!r}; choose "
                        "another delimiter"
                    )
                flat = copy_schema(field.schema, optional=field_optional, default=default)
                fields.append(Field(name, len(fields), flat))
                paths.append(step)

        walk(schema, "", (), schema.optional, schema.default)
        return copy_schema(schema, optional=False, fields=fields), paths


class FlattenKey(_Flatten[R]):
    """Flatten a nested key (``org.apache.kafka.connect.transforms.Flatten$Key``)."""

    ON_KEY = True
    NAME = "Flatten$Key"


class FlattenValue(_Flatten[R]):
    """Flatten a nested value (``org.apache.kafka.connect.transforms.Flatten$Value``).

    Example:
        ``{"a": {"b": 1}}`` becomes ``{"a.b": 1}`` with the default ``delimiter=.``.
    """

    NAME = "Flatten$Value"
