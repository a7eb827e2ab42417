"""Record headers: ordered, repeatable keys, each with an optional schema."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ._errors import DataError
from ._logical import Date, Decimal, Time, Timestamp
from ._schema import Schema, validate_value
from ._struct import Struct

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


def _header(item: Header | tuple[str, Schema | None, Any]) -> Header:
    header = item if isinstance(item, Header) else Header(*item)
    if header.schema is None and isinstance(header.value, Struct):
        # As Kafka's ConnectHeader: a Struct given without a schema has its own (a
        # schemaless HeaderFrom copies one out of a map), so a header converter can write it.
        return Header(header.key, header.value.schema, header.value)
    return header


class Headers:
    """An immutable, ordered collection of headers; a key may occur more than once.

    Every "modifying" method returns a new Headers and leaves this one as it is, so a
    record's headers can be shared safely between transforms and threads.
    """

    __slots__ = ("_items",)

    def __init__(self, headers: Iterable[Header | tuple[str, Schema | None, Any]] = ()) -> None:
        self._items: tuple[Header, ...] = tuple(map(_header, headers))

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
        """A copy with one more header at the end.

        Raises:
            DataError: ``key`` is None, or ``value`` does not fit ``schema`` (as Kafka's
                ``ConnectHeaders.add`` checks it).
        """
        if key is None:
            raise DataError("a header key must not be null")
        if schema is None and isinstance(value, Struct):
            schema = value.schema  # as Kafka's ConnectHeader: a Struct carries its schema
        if schema is not None:
            try:
                validate_value(schema, value)
            except DataError as exc:
                raise DataError(f"header {key!r}: {exc}") from exc
        return Headers((*self._items, Header(key, schema, value)))

    def _add_checked(self, key: str, value: Any, schema: Schema) -> Headers:
        return self.add(key, value, schema)

    # Typed adders, as Kafka's ConnectHeaders.addString(...) and friends: each checks the
    # value against the schema it implies and returns a new Headers.
    def add_string(self, key: str, value: str | None) -> Headers:
        """A copy with a STRING header: schema STRING, or OPTIONAL_STRING for None (as Kafka)."""
        return self._add_checked(
            key, value, Schema.OPTIONAL_STRING if value is None else Schema.STRING
        )

    def add_boolean(self, key: str, value: bool) -> Headers:
        return self._add_checked(key, value, Schema.BOOLEAN)

    def add_byte(self, key: str, value: int) -> Headers:
        """A copy with an INT8 header; raises DataError outside -128..127."""
        return self._add_checked(key, value, Schema.INT8)

    def add_short(self, key: str, value: int) -> Headers:
        return self._add_checked(key, value, Schema.INT16)

    def add_int(self, key: str, value: int) -> Headers:
        return self._add_checked(key, value, Schema.INT32)

    def add_long(self, key: str, value: int) -> Headers:
        return self._add_checked(key, value, Schema.INT64)

    def add_float(self, key: str, value: float) -> Headers:
        return self._add_checked(key, value, Schema.FLOAT32)

    def add_double(self, key: str, value: float) -> Headers:
        return self._add_checked(key, value, Schema.FLOAT64)

    def add_bytes(self, key: str, value: bytes | None) -> Headers:
        """A copy with a BYTES header: schema BYTES, or OPTIONAL_BYTES for None (as Kafka)."""
        return self._add_checked(
            key, value, Schema.OPTIONAL_BYTES if value is None else Schema.BYTES
        )

    def add_list(self, key: str, value: Sequence[Any], schema: Schema) -> Headers:
        """A copy with an ARRAY header; ``schema`` is the array schema."""
        return self._add_checked(key, value, schema)

    def add_map(self, key: str, value: Mapping[Any, Any], schema: Schema) -> Headers:
        """A copy with a MAP header; ``schema`` is the map schema."""
        return self._add_checked(key, value, schema)

    def add_struct(self, key: str, value: Any) -> Headers:
        """A copy with a STRUCT header whose schema is the struct's own."""
        if not isinstance(value, Struct):
            raise DataError(
                f"header {key!r}: add_struct needs a Struct, got {type(value).__name__}"
            )
        return self._add_checked(key, value, value.schema)

    def add_decimal(self, key: str, value: _decimal.Decimal) -> Headers:
        """A copy with a Decimal header whose scale is the value's own."""
        exponent = value.as_tuple().exponent
        if not isinstance(exponent, int):
            raise DataError(f"header {key!r}: cannot add non-finite decimal {value}")
        return self._add_checked(key, value, Decimal.schema(-exponent))

    def add_date(self, key: str, value: _dt.date) -> Headers:
        return self._add_checked(key, value, Date.SCHEMA)

    def add_time(self, key: str, value: _dt.time) -> Headers:
        return self._add_checked(key, value, Time.SCHEMA)

    def add_timestamp(self, key: str, value: _dt.datetime) -> Headers:
        return self._add_checked(key, value, Timestamp.SCHEMA)

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
