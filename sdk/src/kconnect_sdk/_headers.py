"""Record headers: ordered, repeatable keys, each with an optional schema."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ._schema import Schema

__all__ = ["Header", "Headers"]


class Header(NamedTuple):
    """One header: key, schema (may be None) and value."""

    key: str
    schema: Schema | None
    value: Any

    def with_value(self, schema: Schema | None, value: Any) -> Header:
        return Header(self.key, schema, value)

    def rename(self, key: str) -> Header:
        return Header(key, self.schema, self.value)


class Headers:
    """An immutable, ordered collection of headers; a key may occur more than once.

    Every "modifying" method returns a new Headers and leaves this one as it is, so a
    record's headers can be shared safely between transforms and threads.
    """

    __slots__ = ("_items",)

    def __init__(self, headers: Iterable[Header | tuple[str, Schema | None, Any]] = ()) -> None:
        self._items: tuple[Header, ...] = tuple(
            h if isinstance(h, Header) else Header(*h) for h in headers
        )

    EMPTY: Headers  # assigned below

    def __iter__(self) -> Iterator[Header]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Headers):
            return NotImplemented
        return self._items == other._items

    def __hash__(self) -> int:
        return hash(tuple((h.key, repr(h.value)) for h in self._items))

    def __repr__(self) -> str:
        return f"Headers({list(self._items)!r})"

    def add(self, key: str, value: Any, schema: Schema | None = None) -> Headers:
        """A copy with one more header at the end."""
        return Headers((*self._items, Header(key, schema, value)))

    def add_all(self, headers: Iterable[Header]) -> Headers:
        return Headers((*self._items, *headers))

    def all_with_name(self, key: str) -> list[Header]:
        return [h for h in self._items if h.key == key]

    def last_with_name(self, key: str) -> Header | None:
        found: Header | None = None
        for h in self._items:
            if h.key == key:
                found = h
        return found

    def remove(self, key: str) -> Headers:
        """A copy without any header called ``key``."""
        return Headers(h for h in self._items if h.key != key)

    def retain_latest(self, key: str | None = None) -> Headers:
        """A copy keeping only the last header of ``key`` (of every key when None)."""
        seen: set[str] = set()
        kept: list[Header] = []
        for h in reversed(self._items):
            if (key is None or h.key == key) and h.key in seen:
                continue
            seen.add(h.key)
            kept.append(h)
        kept.reverse()
        return Headers(kept)

    def apply(
        self, transform: Callable[[Header], Header | None], key: str | None = None
    ) -> Headers:
        """A copy with ``transform`` applied to each header (of ``key`` only, when given).

        A transform that returns None removes that header.
        """
        out: list[Header] = []
        for h in self._items:
            if key is None or h.key == key:
                new = transform(h)
                if new is not None:
                    out.append(new)
            else:
                out.append(h)
        return Headers(out)

    def duplicate(self) -> Headers:
        return Headers(self._items)

    def to_list(self) -> list[Header]:
        return list(self._items)


Headers.EMPTY = Headers()
