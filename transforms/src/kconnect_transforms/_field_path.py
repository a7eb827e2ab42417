"""Field paths and struct field reads shared by the field transforms."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Field,
    Importance,
    Struct,
    ValidString,
)

from ._util import (
    struct_values,
)

__all__ = ["field_value", "parse_field_path"]


def field_value(struct: Struct, field: Field, replace_null: bool) -> Any:
    value = struct_values(struct)[field.index]
    if value is None and replace_null:
        return field.schema.default
    return value


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
