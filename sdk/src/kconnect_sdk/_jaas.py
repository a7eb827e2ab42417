"""JAAS login configurations as Java reads them: ``sasl.jaas.config`` values and JAAS files.

``sasl.jaas.config`` holds ``<loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;``
read with the rules of Kafka's ``JaasConfig``: ``java.io.StreamTokenizer`` with every
printable character a word character except ``;``, ``=``, ``/`` (comments: ``//``, ``/*
*/``, and a lone ``/`` to the end of the line) and the quotes ``"`` and ``'``, whose strings
take Java's escapes (``\\n``, ``\\t``, octal, ``\\x`` for any other ``x``) and end at the
end of their line. A JAAS file, the one ``-Djava.security.auth.login.config=`` names (Java's
``ConfigFile``), holds named sections of such entries, ``{`` and ``}`` being punctuation
there::

    KafkaConnect {
        org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
        file="/etc/kafka/credentials.properties";
    };

Every section ends with ``};`` and a name appears once, as Java requires.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

from ._errors import ConfigError

__all__ = [
    "JAAS_LOGIN_CONFIG",
    "JaasLoginModule",
    "jaas_file_from_kafka_opts",
    "parse_jaas_config",
    "parse_jaas_file",
    "read_jaas_file",
]

JAAS_LOGIN_CONFIG: Final = "java.security.auth.login.config"
"""The JVM system property naming the JAAS file (``-D`` in ``KAFKA_OPTS``)."""

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
_VALUES: Final = (_WORD, _QUOTED)


class _Token(NamedTuple):
    kind: str
    text: str
    line: int
    end: int  # offset just past the token, to look at what follows it


def _tokens(text: str, *, braces: bool = False) -> list[_Token]:
    out: list[_Token] = []
    ordinary = ";={}" if braces else ";="
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c <= " ":
            # StreamTokenizer counts "\r\n" as one line end.
            if c == "\n" or (c == "\r" and not text.startswith("\n", i + 1)):
                line += 1
            i += 1
        elif c == "/":
            if text.startswith("//", i) or not text.startswith("/*", i):
                # '//' and, as '/' is a comment character, a lone '/' too: to end of line.
                i = min((p for p in (text.find("\n", i), text.find("\r", i)) if p >= 0), default=n)
            else:
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
                comment = text[i:end]
                line += comment.count("\n") + comment.count("\r") - comment.count("\r\n")
                i = end
        elif c in "\"'":
            start_line = line
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
                        line += ch == "\n"
                        ch = _ESCAPES.get(ch, ch)
                value.append(ch)
                i += 1
            if i < n and text[i] == quote:
                i += 1  # a line end that ends the string unclosed is left for the line count
            out.append(_Token(_QUOTED, "".join(value), start_line, i))
        elif c in ordinary:
            out.append(_Token(c, c, line, i + 1))
            i += 1
        else:
            start = i
            while i < n and text[i] > " " and text[i] not in "/\"'" and text[i] not in ordinary:
                i += 1
            out.append(_Token(_WORD, text[start:i], line, i))
    return out


class _Malformed(Exception):
    """A syntax error, worded for a file (with its line) and as Kafka's ``JaasConfig`` words
    it for ``sasl.jaas.config``, whose users see Kafka's messages."""

    def __init__(self, line: int | None, problem: str, kafka: str | None = None) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem
        self.kafka = problem if kafka is None else kafka


class _Cursor:
    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token


def _found(token: _Token | None) -> str:
    return "the end of the file" if token is None else repr(token.text)


def _entries(
    cursor: _Cursor, *, until: str | None, expand: Callable[[str], str]
) -> list[JaasLoginModule]:
    entries: list[JaasLoginModule] = []
    while (token := cursor.peek()) is not None and token.kind != until:
        module = cursor.take()
        if module.kind not in _VALUES:
            raise _Malformed(
                module.line,
                f"expected a login module class name, found {_found(module)}",
                f"Expected a login module class name in JAAS config, found '{module.text}'",
            )
        flag = cursor.peek()
        if flag is None:
            raise _Malformed(
                None,
                f"expected a control flag ({', '.join(CONTROL_FLAGS)}) after {module.text}, "
                "found the end of the file",
                "Login module control flag not specified in JAAS config",
            )
        cursor.take()
        if flag.kind not in _VALUES or flag.text.lower() not in CONTROL_FLAGS:
            raise _Malformed(
                flag.line,
                f"invalid control flag {flag.text!r}; use one of {', '.join(CONTROL_FLAGS)}",
                f"Invalid login module control flag '{flag.text}' in JAAS config",
            )
        entries.append(JaasLoginModule(module.text, flag.text.lower(), _options(cursor, expand)))
    return entries


def _options(cursor: _Cursor, expand: Callable[[str], str]) -> dict[str, str]:
    options: dict[str, str] = {}
    while (key := cursor.peek()) is None or key.kind != ";":
        if key is None or key.kind not in _VALUES:
            raise _Malformed(
                None if key is None else key.line,
                f"expected an option name or ';', found {_found(key)}",
                "JAAS config entry not terminated by semi-colon"
                if key is None
                else f"Value not specified for key '{key.text}' in JAAS config",
            )
        cursor.take()
        equals = cursor.peek()
        value = cursor.tokens[cursor.pos + 1] if cursor.pos + 1 < len(cursor.tokens) else None
        if equals is None or equals.kind != "=":
            raise _Malformed(
                (equals or key).line,
                f"expected '=' after option {key.text!r}, found {_found(equals)}",
                f"Value not specified for key '{key.text}' in JAAS config",
            )
        if value is None or value.kind not in _VALUES:
            hint = ""
            if cursor.text[equals.end :].lstrip(" \t").startswith("/"):
                hint = f"; '/' starts a comment: quote the value, {key.text}=\"/...\""
            raise _Malformed(
                (value or equals).line,
                f"expected a value for option {key.text!r}, found {_found(value)}{hint}",
                f"Value not specified for key '{key.text}' in JAAS config",
            )
        cursor.pos += 2
        options[key.text] = expand(value.text)
    cursor.take()
    return options


def parse_jaas_config(text: str) -> list[JaasLoginModule]:
    """The login modules of a ``sasl.jaas.config`` value.

    Raises:
        ValueError: the value does not follow the grammar (Kafka's own messages: ``JAAS
            config entry not terminated by semi-colon``, ``Value not specified for key
            'password' in JAAS config``...).
    """
    try:
        entries = _entries(_Cursor(text, _tokens(text)), until=None, expand=str)
    except _Malformed as exc:
        raise ValueError(exc.kafka) from None
    if not entries:
        raise ValueError("Login module not specified in JAAS config")
    return entries


_PROPERTY: Final = re.compile(r"\$\{([^}]*)\}")


def _sections(text: str, source: str) -> dict[str, list[JaasLoginModule]]:
    cursor = _Cursor(text, _tokens(text, braces=True))
    sections: dict[str, list[JaasLoginModule]] = {}
    first_lines: dict[str, int] = {}
    try:
        while (name := cursor.peek()) is not None:
            cursor.take()
            if name.kind not in _VALUES:
                raise _Malformed(name.line, f"expected a section name, found {_found(name)}")
            brace = cursor.peek()
            if brace is None or brace.kind != "{":
                line = name.line if brace is None else brace.line
                raise _Malformed(line, f"expected '{{' after {name.text}, found {_found(brace)}")
            cursor.take()
            entries = _entries(cursor, until="}", expand=_expand)
            if cursor.peek() is None:
                raise _Malformed(None, f"section {name.text} is not closed with '}};'")
            cursor.take()
            semicolon = cursor.peek()
            if semicolon is None or semicolon.kind != ";":
                raise _Malformed(
                    None if semicolon is None else semicolon.line,
                    f"expected ';' after the '}}' of section {name.text}, "
                    f"found {_found(semicolon)}",
                )
            cursor.take()
            if name.text in sections:
                raise _Malformed(
                    name.line,
                    f"section {name.text} appears twice (first on line "
                    f"{first_lines[name.text]}); Java refuses that: make it one section",
                )
            first_lines[name.text] = name.line
            sections[name.text] = entries
    except _Malformed as exc:
        where = source if exc.line is None else f"{source}, line {exc.line}"
        raise ConfigError(
            f"JAAS file {where}: {exc.problem}", name=JAAS_LOGIN_CONFIG, value=source
        ) from None
    return sections


def _expand(value: str) -> str:
    # Java expands ${property} in a JAAS file's option values; a worker has environment
    # variables instead.
    return _PROPERTY.sub(lambda m: os.environ.get(m.group(1), ""), value)


def parse_jaas_file(
    text: str, section: str = "KafkaClient", *, source: str = "<text>"
) -> list[JaasLoginModule] | None:
    """The login modules of ``section`` in a JAAS file; None when the file has no such section.

    ``${name}`` in an option value is replaced by the environment variable ``name`` (Java
    reads system properties there; a worker has none).

    Raises:
        ConfigError: the text does not follow the grammar; the message names ``source``, the
            line and what was expected.
    """
    return _sections(text, source).get(section)


def read_jaas_file(path: str | os.PathLike[str]) -> dict[str, list[JaasLoginModule]]:
    """Every section of the JAAS file at ``path``, by name, read as :func:`parse_jaas_file`
    reads one.

    Raises:
        ConfigError: the file cannot be read or does not parse; the message names it (and
            the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(
            f"JAAS file {os.fspath(path)!r} (named by -D{JAAS_LOGIN_CONFIG}) cannot be read: "
            f"{reason}",
            name=JAAS_LOGIN_CONFIG,
            value=os.fspath(path),
        ) from None
    return _sections(text, os.fspath(path))


def jaas_file_from_kafka_opts(environ: Mapping[str, str] | None = None) -> Path | None:
    """The JAAS file ``KAFKA_OPTS`` names with ``-Djava.security.auth.login.config=``, if any.

    ``==<file>`` (Java's "this file only") reads the same; when the option appears twice the
    last wins, as in the JVM.
    """
    opts = (os.environ if environ is None else environ).get("KAFKA_OPTS", "")
    try:
        words = shlex.split(opts)
    except ValueError:  # an unbalanced quote: split as the shell script's $KAFKA_OPTS does
        words = opts.split()
    prefix = f"-D{JAAS_LOGIN_CONFIG}="
    found = None
    for word in words:
        if word.startswith(prefix):
            found = word[len(prefix) :].removeprefix("=")
    return Path(found) if found else None
