"""Java ``.properties`` parsing, and loading connector configs from .properties or JSON files.

Follows ``java.util.Properties.load``: ``#``/``!`` comments, ``=``/``:``/whitespace
separators, backslash escapes (including ``\\uXXXX``) and line continuations. Errors name the
file and line so an operator can fix them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kconnect_sdk import ConfigError

__all__ = ["load_connector_config", "load_properties", "parse_properties"]

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_UNICODE = re.compile(r"[0-9a-fA-F]{4}")


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Join continuation lines; return (first line number, logical line) pairs."""
    out: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start = i + 1
        line = lines[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue
        while _ends_with_odd_backslashes(line) and i < len(lines):
            line = line[:-1] + lines[i].lstrip(" \t\f")
            i += 1
        if _ends_with_odd_backslashes(line):
            line = line[:-1]
        out.append((start, line))
    return out


def _ends_with_odd_backslashes(line: str) -> bool:
    count = len(line) - len(line.rstrip("\\"))
    return count % 2 == 1


def _unescape(raw: str, where: str) -> str:
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        i += 1
        if i >= len(raw):
            break
        nxt = raw[i]
        if nxt == "u":
            hex_digits = raw[i + 1 : i + 5]
            if not _UNICODE.fullmatch(hex_digits):
                raise ConfigError(f"{where}: malformed \\uxxxx escape {raw[i - 1 : i + 5]!r}")
            out.append(chr(int(hex_digits, 16)))
            i += 5
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 1
    return "".join(out)


def _split(line: str) -> tuple[str, str]:
    """Split a logical line into raw key and raw value at the first unescaped separator."""
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "=: \t\f":
            break
        i += 1
    key = line[:i]
    rest = line[i:]
    # Whitespace, then at most one '=' or ':', then whitespace, separate key from value.
    rest = rest.lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def parse_properties(text: str, *, source: str = "<properties>") -> dict[str, str]:
    """Parse the text of a Java .properties file. Later duplicates win, as in Java."""
    props: dict[str, str] = {}
    for lineno, line in _logical_lines(text):
        where = f"{source}:{lineno}"
        raw_key, raw_value = _split(line)
        key = _unescape(raw_key, where)
        if not key:
            raise ConfigError(f"{where}: line {line!r} has a value but no key; expected key=value")
        props[key] = _unescape(raw_value, where)
    return props


def load_properties(path: str | Path) -> dict[str, str]:
    """Read and parse a .properties file; errors name the file (and line)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {str(p)!r}: {exc}") from None
    return parse_properties(text, source=str(p))


def load_connector_config(path: str | Path) -> dict[str, str]:
    """Load a connector config from ``.properties`` or Kafka Connect JSON.

    JSON may be the body of ``POST /connectors`` (``{"name": ..., "config": {...}}``) or of
    ``PUT /connectors/{name}/config`` (a flat map with ``name``), as Kafka's standalone mode accepts.
    """
    p = Path(path)
    if p.suffix.lower() != ".json":
        return load_properties(p)
    try:
        data: Any = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"connector config file {str(p)!r} does not exist") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a JSON object with 'name' and 'config'")
    if "config" in data:
        config = data["config"]
        if not isinstance(config, dict):
            raise ConfigError(f"{p}: 'config' must be a JSON object of string values")
        config = dict(config)
        if "name" in data:
            if "name" in config and config["name"] != data["name"]:
                raise ConfigError(
                    f"{p}: connector name {data['name']!r} differs from config name {config['name']!r}"
                )
            config["name"] = data["name"]
    else:
        config = dict(data)
    bad = [k for k, v in config.items() if not isinstance(v, str | int | float | bool) or v is None]
    if bad:
        raise ConfigError(f"{p}: config values must be strings; bad keys: {', '.join(bad)}")
    return {k: _jsonish_to_str(v) for k, v in config.items()}


def _jsonish_to_str(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
