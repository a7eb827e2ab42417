"""A small JsonPath subset for Confluent's Filter and ExtractTopic.

Paths: ``$`` (the whole document), ``$.a.b``, ``$['a b']``, ``$.items[0]``.
Filters: ``$[?(<expr>)]`` tests the document itself; ``$.path[?(<expr>)]`` tests the object
at ``path``, or each element when it is a list (true when any element matches).
Expressions: ``@.field`` paths (``@['x']``, ``@.a[0]``), string (``'x'``/``"x"``), number,
``true``/``false``/``null`` literals and ``[..]`` lists; ``== != < <= > >=``, ``=~``
with ``/regex/`` (``/i`` for case-insensitive), ``in`` and ``nin``, ``&&``, ``||``, ``!``
and parentheses. A path alone is true when the field exists and is not null/false.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kconnect_sdk import Struct

__all__ = ["JsonPathError", "MissingValue", "compile_filter", "compile_path"]

_MISSING = object()


class JsonPathError(ValueError):
    """The expression is not in the supported JsonPath subset."""


class MissingValue(LookupError):
    """A path in the expression resolved to a missing field or to null."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<regex>/(?:[^/\\]|\\.)*/[a-z]*)
    | (?P<op>==|!=|<=|>=|=~|&&|\|\||[<>!()\[\],.@$?])
    | (?P<word>[A-Za-z_][A-Za-z0-9_\-]*)
    )""",
    re.VERBOSE,
)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise JsonPathError(f"unexpected character {text[pos : pos + 10]!r} at position {pos}")
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def _plain(value: Any) -> Any:
    return value.to_dict() if isinstance(value, Struct) else value


def _step(current: Any, key: str | int) -> Any:
    current = _plain(current)
    if isinstance(key, int):
        if (
            isinstance(current, Sequence)
            and not isinstance(current, str)
            and -len(current) <= key < len(current)
        ):
            return current[key]
        return _MISSING
    if isinstance(current, Mapping):
        return current.get(key, _MISSING)
    return _MISSING


@dataclass
class _Parser:
    tokens: list[tuple[str, str]]
    pos: int = 0

    def peek(self, value: str | None = None) -> bool:
        if self.pos >= len(self.tokens):
            return False
        return value is None or self.tokens[self.pos][1] == value

    def take(self, value: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise JsonPathError("unexpected end of expression")
        token = self.tokens[self.pos]
        if value is not None and token[1] != value:
            raise JsonPathError(f"expected {value!r}, found {token[1]!r}")
        self.pos += 1
        return token

    def steps(self) -> list[str | int]:
        steps: list[str | int] = []
        while True:
            if self.peek("."):
                self.take(".")
                kind, word = self.take()
                if kind not in ("word", "num"):
                    raise JsonPathError(f"expected a field name after '.', found {word!r}")
                steps.append(word)
            elif (
                self.peek("[")
                and self.pos + 1 < len(self.tokens)
                and self.tokens[self.pos + 1][0] in ("str", "num")
            ):
                self.take("[")
                kind, text = self.take()
                steps.append(_unquote(text) if kind == "str" else int(text))
                self.take("]")
            else:
                return steps

    # expression grammar ----------------------------------------------------------------
    def expr(self) -> Callable[[Any], Any]:
        left = self.conj()
        while self.peek("||"):
            self.take()
            left = _either(left, self.conj())
        return left

    def conj(self) -> Callable[[Any], Any]:
        left = self.unary()
        while self.peek("&&"):
            self.take()
            left = _both(left, self.unary())
        return left

    def unary(self) -> Callable[[Any], Any]:
        if self.peek("!"):
            self.take()
            inner = self.unary()
            return lambda doc: not inner(doc)
        if self.peek("("):
            self.take()
            inner = self.expr()
            self.take(")")
            return inner
        return self.comparison()

    def comparison(self) -> Callable[[Any], Any]:
        left, is_path = self.operand()
        ops = ("==", "!=", "<", "<=", ">", ">=", "=~", "in", "nin")
        if not self.peek() or self.tokens[self.pos][1] not in ops:
            if is_path:
                return lambda doc: _truthy(left, doc)
            return left
        op = self.take()[1]
        if op == "=~":
            kind, text = self.take()
            if kind != "regex":
                raise JsonPathError(f"=~ needs a /regex/, found {text!r}")
            body, _, flags = text[1:].rpartition("/")
            pattern = re.compile(body, re.IGNORECASE if "i" in flags else 0)
            return lambda doc: isinstance(v := left(doc), str) and pattern.search(v) is not None
        right, _ = self.operand()
        compare = _COMPARE[op]
        return lambda doc: compare(left(doc), right(doc))

    def operand(self) -> tuple[Callable[[Any], Any], bool]:
        kind, text = self.take()
        if text == "@":
            steps = self.steps()
            where = "@" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)

            def lookup(doc: Any) -> Any:
                current = doc
                for step in steps:
                    current = _step(current, step)
                    if current is _MISSING or current is None:
                        raise MissingValue(where)
                return _plain(current)

            return lookup, True
        if kind == "str":
            value: Any = _unquote(text)
        elif kind == "num":
            value = float(text) if any(c in text for c in ".eE") else int(text)
        elif text in ("true", "false", "null"):
            value = {"true": True, "false": False, "null": None}[text]
        elif text == "[":
            items: list[Any] = []
            while not self.peek("]"):
                item, _ = self.operand()
                items.append(item(None))
                if self.peek(","):
                    self.take()
            self.take("]")
            value = items
        else:
            raise JsonPathError(f"unexpected {text!r} in filter expression")
        return (lambda doc: value), False


def _either(a: Callable[[Any], Any], b: Callable[[Any], Any]) -> Callable[[Any], bool]:
    return lambda doc: bool(a(doc)) or bool(b(doc))


def _both(a: Callable[[Any], Any], b: Callable[[Any], Any]) -> Callable[[Any], bool]:
    return lambda doc: bool(a(doc)) and bool(b(doc))


def _truthy(lookup: Callable[[Any], Any], doc: Any) -> bool:
    return lookup(doc) is not False


def _ordered(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def compare(a: Any, b: Any) -> bool:
        try:
            return op(a, b)
        except TypeError:
            return False

    return compare


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": _equal,
    "!=": lambda a, b: not _equal(a, b),
    "<": _ordered(lambda a, b: a < b),
    "<=": _ordered(lambda a, b: a <= b),
    ">": _ordered(lambda a, b: a > b),
    ">=": _ordered(lambda a, b: a >= b),
    "in": lambda a, b: isinstance(b, list) and any(_equal(a, x) for x in b),
    "nin": lambda a, b: isinstance(b, list) and not any(_equal(a, x) for x in b),
}


def compile_path(text: str) -> Callable[[Any], Any]:
    """A function from a document to the value at ``$...`` (raises MissingValue when absent)."""
    parser = _Parser(_tokenize(text))
    parser.take("$")
    steps = parser.steps()
    if parser.peek():
        raise JsonPathError(f"unexpected {parser.tokens[parser.pos][1]!r} in path {text!r}")

    def lookup(doc: Any) -> Any:
        current = doc
        for step in steps:
            current = _step(current, step)
            if current is _MISSING or current is None:
                raise MissingValue(text)
        return _plain(current)

    return lookup


def compile_filter(text: str) -> Callable[[Any], bool]:
    """A predicate over a document for ``$[?(...)]`` or ``$.path[?(...)]``."""
    parser = _Parser(_tokenize(text))
    parser.take("$")
    steps = parser.steps()
    parser.take("[")
    parser.take("?")
    parser.take("(")
    condition = parser.expr()
    parser.take(")")
    parser.take("]")
    if parser.peek():
        raise JsonPathError(f"unexpected {parser.tokens[parser.pos][1]!r} after the filter")

    def test(doc: Any) -> bool:
        current: Any = _plain(doc)
        for step in steps:
            current = _step(current, step)
            if current is _MISSING or current is None:
                raise MissingValue("$" + "".join(f".{s}" for s in steps))
            current = _plain(current)
        if isinstance(current, list):
            return any(bool(condition(item)) for item in current)
        return bool(condition(current))

    return test
