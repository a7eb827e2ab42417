"""Java ``.properties`` parsing, as ``java.util.Properties.load`` reads the format.

``#``/``!`` comments, ``=``/``:``/whitespace separators, backslash escapes (including
``\\uXXXX``) and line continuations. Errors name the source and line so a user can fix them.
"""

from __future__ import annotations

import re

from ._errors import ConfigError

__all__ = ["parse_properties"]

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
