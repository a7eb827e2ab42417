"""JAAS login configuration files, as Java's ``java.security.auth.login.config`` names them.

The grammar is Java's default ``ConfigFile``::

    KafkaConnect {
        org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
        file="/etc/kafka/credentials.properties";
    };

One or more named sections, each a list of ``<login module class> <flag> [key=value ...];``
entries, with ``//`` and ``/* */`` comments. kconnect reads it to find the login modules of
the ``KafkaConnect`` section; it runs no Java login module itself.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kconnect_sdk import ConfigError

__all__ = [
    "JAAS_PROPERTY",
    "LoginModuleEntry",
    "jaas_file_from_java_options",
    "parse_jaas",
    "read_jaas",
]

JAAS_PROPERTY = "java.security.auth.login.config"
_FLAGS = ("required", "requisite", "sufficient", "optional")
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
    | (?P<comment>//[^\n]*|/\*.*?\*/)
    | (?P<quoted>"(?:[^"\\]|\\.)*")
    | (?P<punct>[{};=])
    | (?P<word>[^\s{};="]+)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class LoginModuleEntry:
    """One login module of a section: its class, control flag and options."""

    module: str
    flag: str
    options: Mapping[str, str] = field(default_factory=dict)


def jaas_file_from_java_options(options: str | None) -> str | None:
    """The file ``-Djava.security.auth.login.config=<file>`` names in JVM options
    (``KAFKA_OPTS``), or None. ``==<file>`` (use only this file) reads the same here."""
    if not options:
        return None
    try:
        words = shlex.split(options)
    except ValueError:
        words = options.split()
    found = None
    prefix = f"-D{JAAS_PROPERTY}="
    for word in words:
        if word.startswith(prefix):
            found = word[len(prefix) :].removeprefix("=")  # the last one wins, as in Java
    return found


def parse_jaas(text: str, *, source: str) -> dict[str, list[LoginModuleEntry]]:
    """Every section of a JAAS file, by name.

    Raises:
        ConfigError: the file does not follow the grammar; the message names ``source``,
            the line and what was expected.
    """
    tokens = _tokens(text, source)
    sections: dict[str, list[LoginModuleEntry]] = {}
    pos = 0

    def expect(kind: str, what: str) -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise _error(source, None, f"expected {what}, found the end of the file")
        line, token_kind, value = tokens[pos]
        if token_kind != kind or (kind == "punct" and value != what):
            raise _error(source, line, f"expected {what}, found {value!r}")
        pos += 1
        return value

    while pos < len(tokens):
        name = expect("word", "a section name")
        expect("punct", "{")
        entries: list[LoginModuleEntry] = []
        while pos < len(tokens) and tokens[pos][2] != "}":
            module = expect("word", "a login module class name")
            line = tokens[pos][0] if pos < len(tokens) else None
            flag = expect("word", "a control flag (required, requisite, sufficient, optional)")
            if flag.lower() not in _FLAGS:
                raise _error(source, line, f"invalid control flag {flag!r}; use one of {_FLAGS}")
            options: dict[str, str] = {}
            while pos < len(tokens) and tokens[pos][2] != ";":
                key = expect("word", "an option name or ';'")
                expect("punct", "=")
                if pos >= len(tokens):
                    raise _error(source, None, f"expected a value for option {key!r}")
                value_line, kind, value = tokens[pos]
                if kind not in ("word", "quoted"):
                    raise _error(source, value_line, f"expected a value for option {key!r}")
                options[key] = _unquote(value) if kind == "quoted" else value
                pos += 1
            expect("punct", ";")
            entries.append(LoginModuleEntry(module, flag.lower(), options))
        expect("punct", "}")
        expect("punct", ";")
        sections.setdefault(name, []).extend(entries)
    return sections


def _tokens(text: str, source: str) -> list[tuple[int, str, str]]:
    out: list[tuple[int, str, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        line = text.count("\n", 0, pos) + 1
        if match is None:
            raise _error(source, line, f"unexpected {text[pos]!r} (an unterminated quote?)")
        kind = match.lastgroup or ""
        if kind not in ("space", "comment"):
            out.append((line, kind, match.group()))
        pos = match.end()
    return out


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value[1:-1])


def _error(source: str, line: int | None, problem: str) -> ConfigError:
    where = f"{source}, line {line}" if line is not None else source
    return ConfigError(f"JAAS file {where}: {problem}", name=JAAS_PROPERTY, value=source)


def read_jaas(path: str) -> dict[str, list[LoginModuleEntry]]:
    """:func:`parse_jaas` of the file at ``path``; ConfigError names it when unreadable."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"JAAS file {path!r} (named by -D{JAAS_PROPERTY}) cannot be read: {exc}",
            name=JAAS_PROPERTY,
            value=path,
        ) from None
    return parse_jaas(text, source=path)
