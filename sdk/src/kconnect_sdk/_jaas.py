"""JAAS login configurations as Kafka's Java clients read them.

``sasl.jaas.config`` holds ``<loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;``
read with the rules of Kafka's ``JaasConfig``: ``java.io.StreamTokenizer`` with every
printable character a word character except ``;``, ``=``, ``/`` (comments: ``//``, ``/*
*/``, and a lone ``/`` to the end of the line) and the quotes ``"`` and ``'``, whose strings
take Java's escapes (``\\n``, ``\\t``, octal, ``\\x`` for any other ``x``). A JAAS file names
sections, ``KafkaClient { ... };``, each a list of such entries.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = ["JaasLoginModule", "jaas_file_from_kafka_opts", "parse_jaas_config", "parse_jaas_file"]

CONTROL_FLAGS: Final = ("required", "requisite", "sufficient", "optional")

_ESCAPES: Final = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


@dataclass(frozen=True, slots=True)
class JaasLoginModule:
    """One entry of a JAAS login configuration.

    Attributes:
        class_name: the login module's class, e.g.
            ``org.apache.kafka.common.security.plain.PlainLoginModule``.
        flag: its control flag, lower case (``required``, ``requisite``, ``sufficient``,
            ``optional``).
        options: the ``name=value`` options, as written (values unquoted and unescaped).
    """

    class_name: str
    flag: str
    options: Mapping[str, str] = field(default_factory=dict)

    @property
    def simple_name(self) -> str:
        """The class name without its package: ``PlainLoginModule``."""
        return self.class_name.rsplit(".", 1)[-1]

    def __repr__(self) -> str:
        # Options hold passwords: a repr in a log line or a traceback names only the keys.
        return (
            f"JaasLoginModule({self.class_name!r}, {self.flag!r}, options={sorted(self.options)})"
        )


# Token kinds: a word or quoted string carries its text; ';', '=', '{', '}' are themselves.
_WORD: Final = "word"
_QUOTED: Final = "quoted"


def _tokens(text: str, *, braces: bool = False) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    ordinary = ";={}" if braces else ";="
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c <= " ":
            i += 1
        elif c == "/":
            if text.startswith("//", i) or not text.startswith("/*", i):
                # '//' and, as '/' is a comment character, a lone '/' too: to end of line.
                end = min(
                    (p for p in (text.find("\n", i), text.find("\r", i)) if p >= 0), default=n
                )
                i = end
            else:
                end = text.find("*/", i + 2)
                i = n if end < 0 else end + 2
        elif c in "\"'":
            quote = c
            i += 1
            value: list[str] = []
            while i < n and text[i] not in (quote, "\n", "\r"):
                ch = text[i]
                if ch == "\\" and i + 1 < n:
                    i += 1
                    ch = text[i]
                    if "0" <= ch <= "7":
                        digits = ch
                        limit = 3 if ch <= "3" else 2
                        while len(digits) < limit and i + 1 < n and "0" <= text[i + 1] <= "7":
                            i += 1
                            digits += text[i]
                        ch = chr(int(digits, 8))
                    else:
                        ch = _ESCAPES.get(ch, ch)
                value.append(ch)
                i += 1
            i += 1  # the closing quote (or the line end that ended the string)
            out.append((_QUOTED, "".join(value)))
        elif c in ordinary:
            out.append((c, c))
            i += 1
        else:
            start = i
            while i < n and text[i] > " " and text[i] not in "/\"'" and text[i] not in ordinary:
                i += 1
            out.append((_WORD, text[start:i]))
    return out


def _entries(
    tokens: list[tuple[str, str]], pos: int, *, until: str | None
) -> tuple[list[JaasLoginModule], int]:
    entries: list[JaasLoginModule] = []
    n = len(tokens)
    while pos < n and tokens[pos][0] != until:
        kind, module = tokens[pos]
        if kind not in (_WORD, _QUOTED):
            raise ValueError(f"Expected a login module class name in JAAS config, found '{module}'")
        pos += 1
        if pos >= n:
            raise ValueError("Login module control flag not specified in JAAS config")
        flag = tokens[pos][1]
        if tokens[pos][0] not in (_WORD, _QUOTED) or flag.lower() not in CONTROL_FLAGS:
            raise ValueError(f"Invalid login module control flag '{flag}' in JAAS config")
        pos += 1
        options: dict[str, str] = {}
        while pos < n and tokens[pos][0] != ";":
            kind, key = tokens[pos]
            if kind == until:
                break
            if (
                pos + 2 >= n
                or tokens[pos + 1][0] != "="
                or tokens[pos + 2][0] not in (_WORD, _QUOTED)
            ):
                raise ValueError(f"Value not specified for key '{key}' in JAAS config")
            options[key] = tokens[pos + 2][1]
            pos += 3
        if pos >= n or tokens[pos][0] != ";":
            raise ValueError("JAAS config entry not terminated by semi-colon")
        pos += 1
        entries.append(JaasLoginModule(module, flag.lower(), options))
    return entries, pos


def parse_jaas_config(text: str) -> list[JaasLoginModule]:
    """The login modules of a ``sasl.jaas.config`` value.

    Raises:
        ValueError: the value does not follow the grammar (Kafka's own messages: ``JAAS
            config entry not terminated by semi-colon``, ``Value not specified for key
            'password' in JAAS config``...).
    """
    tokens = _tokens(text)
    try:
        entries, _ = _entries(tokens, 0, until=None)
    except IndexError:
        raise ValueError("JAAS config entry not terminated by semi-colon") from None
    if not entries:
        raise ValueError("Login module not specified in JAAS config")
    return entries


_PROPERTY: Final = re.compile(r"\$\{([^}]*)\}")


def parse_jaas_file(text: str, section: str = "KafkaClient") -> list[JaasLoginModule] | None:
    """The login modules of ``section`` in a JAAS file; None when the file has no such section.

    ``${name}`` is replaced by the environment variable ``name`` (Java reads system
    properties there; a worker has none).
    """
    text = _PROPERTY.sub(lambda m: os.environ.get(m.group(1), ""), text)
    tokens = _tokens(text, braces=True)
    pos, n = 0, len(tokens)
    try:
        while pos < n:
            kind, name = tokens[pos]
            if kind not in (_WORD, _QUOTED) or pos + 1 >= n or tokens[pos + 1][0] != "{":
                raise ValueError(f"JAAS file: expected a section name and '{{', found '{name}'")
            entries, pos = _entries(tokens, pos + 2, until="}")
            if pos >= n or tokens[pos][0] != "}":
                raise ValueError(f"JAAS file: section {name} is not closed with '}}'")
            pos += 1
            if pos < n and tokens[pos][0] == ";":
                pos += 1
            if name == section:
                return entries
    except IndexError:
        raise ValueError("JAAS file: an entry is not terminated by semi-colon") from None
    return None


_LOGIN_CONFIG: Final = re.compile(
    r"""-Djava\.security\.auth\.login\.config==?(?:"([^"]*)"|'([^']*)'|(\S+))"""
)


def jaas_file_from_kafka_opts(environ: Mapping[str, str] | None = None) -> Path | None:
    """The JAAS file ``KAFKA_OPTS`` names with ``-Djava.security.auth.login.config=``, if any."""
    opts = (os.environ if environ is None else environ).get("KAFKA_OPTS", "")
    found = None
    for match in _LOGIN_CONFIG.finditer(opts):
        found = next(g for g in match.groups() if g is not None)  # the JVM keeps the last
    return Path(found) if found else None
