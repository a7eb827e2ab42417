"""Field paths and struct field reads shared by the field transforms."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigError,
    ConfigType,
    Field,
    Importance,
    Struct,
    struct_values,
)

__all__ = ["field_value", "parse_field_path"]


def field_value(struct: Struct, field: Field, replace_null: bool) -> Any:
    value = struct_values(struct)[field.index]
    if value is None and replace_null:
        return field.schema.default
    return value


def parse_field_path(path: str, *, nested: bool, name: str = "field") -> list[str]:
    """The steps of a field path, as Kafka's ``SingleFieldPath``.

    V1 (``nested`` False): the whole text is one field name. V2: dots separate steps
    (empty names included: ``a..b`` has three steps); a step that starts with a backtick
    runs to the next backtick followed by a dot or the end, so ```a.b`.c`` is ``a.b`` then
    ``c``; ``\\``` before such a backtick keeps it in the name. Other backticks are plain
    characters.

    Raises:
        ConfigError: a step's opening backtick has no closing one (Kafka's message).
    """
    if not nested:
        return [path]
    steps: list[str] = []
    i, end = 0, len(path)
    while 0 <= i < end:
        if path[i] != "`":
            dot = path.find(".", i)
            if dot < 0:
                steps.append(path[i:])
                i = end
            else:
                steps.append(path[i:dot])
                i = dot + 1
            continue
        opened = i
        i += 1
        start = i
        pieces: list[str] = []
        while True:
            i = path.find("`", i)
            if i < 0:
                raise _incomplete_backticks(path, opened, name)
            escaped = path[i - 1] == "\\"
            if i >= end - 1:  # the closing backtick ends the path
                if escaped:
                    raise _incomplete_backticks(path, opened, name)
                pieces.append(path[start:i])
                steps.append("".join(pieces))
                i += 1
                break
            if path[i + 1] != ".":  # not a closing backtick: part of the name
                i += 1
                continue
            if escaped:  # an escaped closing backtick belongs to the name
                pieces.append(path[start : i - 1] + "`")
                i += 1
                start = i
                continue
            pieces.append(path[start:i])
            steps.append("".join(pieces))
            i += 2
            break
    if path.endswith("."):
        steps.append("")
    return steps


def _incomplete_backticks(path: str, position: int, name: str) -> ConfigError:
    return ConfigError(
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before "
        f"backtick at position {position} to escape it",
        name=name,
        value=path,
    )


def _define_syntax(config: ConfigDef) -> ConfigDef:
    return config.define(
        "field.syntax.version",
        ConfigType.STRING,
        "V1",
        CaseInsensitiveValidString.one_of("V1", "V2"),  # Kafka's validator and message
        importance=Importance.HIGH,
        documentation="V1: field names are taken as they are. V2: dots separate nested "
        "field names; wrap a name containing dots in backticks.",
    )
