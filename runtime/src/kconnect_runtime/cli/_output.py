"""Human tables and machine output (``-o json|yaml|name``) for the operator commands."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["FORMATS", "emit", "table", "to_yaml"]

FORMATS = ("table", "json", "yaml", "name")


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Left-aligned columns separated by two spaces (kcctl's and kubectl's look)."""
    cells = [[str(c) for c in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    )


# A plain YAML scalar needs no quotes when it cannot be read as anything but this string.
_PLAIN = re.compile(r"^[A-Za-z_./$][A-Za-z0-9_./:$@=+,-]*( [A-Za-z0-9_./:$@=+,()-]+)*$")
_RESERVED = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"})


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED and ": " not in text:
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _yaml_lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        out: list[str] = []
        for k, v in value.items():
            key = _scalar(str(k))
            if isinstance(v, dict | list) and v:
                out.append(f"{pad}{key}:")
                out.extend(_yaml_lines(v, indent + 2))
            else:
                out.append(f"{pad}{key}: {_yaml_lines(v, 0)[0]}")
        return out
    if isinstance(value, list):
        if not value:
            return [pad + "[]"]
        out = []
        for item in value:
            inner = _yaml_lines(item, indent + 2)
            out.append(f"{pad}- {inner[0].lstrip()}")
            out.extend(inner[1:])
        return out
    return [pad + _scalar(value)]


def to_yaml(value: Any) -> str:
    """``value`` (JSON-like data) as block-style YAML."""
    return "\n".join(_yaml_lines(value, 0))


def emit(
    data: Any,
    fmt: str,
    human: Callable[[Any], str],
    names: Callable[[Any], Sequence[str]] | None = None,
) -> None:
    """Print ``data`` in ``fmt``: ``table`` through ``human``, else JSON, YAML or names."""
    if fmt == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif fmt == "yaml":
        print(to_yaml(data))
    elif fmt == "name" and names is not None:
        for name in names(data):
            print(name)
    else:
        print(human(data))
