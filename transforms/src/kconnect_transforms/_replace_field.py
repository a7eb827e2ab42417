"""ReplaceField$Key / $Value: keep, drop and rename fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
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
    struct_maker,
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
    require_map,
    require_struct,
)

__all__ = ["ReplaceFieldKey", "ReplaceFieldValue"]


_MISSING = object()


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
        self._map_schemaless = self._compile_replace()
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, list[int], list[tuple[int, Any]]]] = SchemaCache()
        self._map_struct = self._replace_struct
        # The last struct schema seen and its plan: a batch mostly holds one schema.
        self._last: tuple[Schema | None, Any] = (None, None)

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

    def _replace_struct(self, record: R, struct: Struct) -> tuple[Schema, Struct]:
        """``apply``'s struct path for ``apply_batch`` (same result, fewer lookups)."""
        last_schema, plan = self._last
        if struct.schema is not last_schema:
            plan = self._schemas.get(struct.schema)
            if plan is None:
                plan = self._schemas.put(struct.schema, self._plan(struct.schema))
            updated_schema, sources, defaults = plan
            pick = itemgetter(*sources) if len(sources) > 1 else None
            plan = (updated_schema, sources, defaults, pick, struct_maker(updated_schema))
            self._last = (struct.schema, plan)
        updated_schema, sources, defaults, pick, make = plan
        old = struct_values(struct)
        values = list(pick(old)) if pick is not None else [old[i] for i in sources]
        if defaults and self._replace_null:
            for index, default in defaults:
                if values[index] is None:
                    values[index] = default
        return updated_schema, make(values)

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

    def _replace_lines(self) -> tuple[list[str], dict[str, Any]]:
        """``_replace``'s work on ``value`` (giving ``d``) as straight-line code."""
        lines = ["d = dict(value)"]
        lines += [f"d.pop({name!r}, None)" for name in sorted(self._exclude)]
        if self._include:
            lines.append("d = {k: v for k, v in d.items() if k in _include}")
        renames = list(self._renames.items())
        # Pop every renamed field before re-adding so swaps (a:b,b:a) work.
        lines += [f"m{i} = d.pop({old!r}, _MISSING)" for i, (old, _) in enumerate(renames)]
        lines += [
            f"if m{i} is not _MISSING: d[{new!r}] = m{i}" for i, (_, new) in enumerate(renames)
        ]
        return lines, {"_include": self._include, "_MISSING": _MISSING}

    def _compile_replace(self) -> Callable[[R, dict[str, Any]], dict[str, Any]]:
        """``_replace`` for this config as straight-line code, generated once (same result;
        the loops over the config's sets cost more than the work itself)."""
        body, namespace = self._replace_lines()
        lines = ["def replace(record, value):"] + ["    " + line for line in body]
        lines.append("    return d")
        exec("\n".join(lines), namespace)
        generated: Callable[[R, dict[str, Any]], dict[str, Any]] = namespace["replace"]
        return generated

    def _schemaless_lines(self, cls: type) -> tuple[list[str], dict[str, Any]] | None:
        return self._replace_lines()

    def _struct_lines(self, cls: type, schema: Schema) -> tuple[list[str], dict[str, Any]] | None:
        plan = self._schemas.get(schema)
        if plan is None:
            plan = self._schemas.put(schema, self._plan(schema))
        updated_schema, sources, defaults = plan
        if defaults and self._replace_null:
            return None  # nulls to replace with defaults: record by record
        names: dict[str, Any] = {"_OUT_SCHEMA": updated_schema}
        if len(sources) > 1:
            names["_pick"] = itemgetter(*sources)
            line = "out_values = list(_pick(in_values))"
        else:
            line = f"out_values = [{', '.join(f'in_values[{i}]' for i in sources)}]"
        return [line], names

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
