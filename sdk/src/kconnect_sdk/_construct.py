"""Building structs and records in bulk: for decoders, row mappers, converters and transforms.

``Struct(schema).put(...)`` and ``SourceRecord(topic=..., ...)`` check every value and take
keywords: right for a connector that makes a few records, too slow for code that makes
millions from values it has already fitted to a schema (a converter decoding bytes, a
database row mapped by its column types, a transform copying a struct with one field
changed). These constructors check once, when they are made, and then build without
per-value checks. They are the layout every fast path of kconnect's packages uses, the
compiled ones included (``LAYOUT_VERSION``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final, TypeVar

from ._errors import DataError
from ._records import SinkRecord, SourceRecord
from ._schema import Schema, SchemaAndValue, Type
from ._struct import Struct

__all__ = ["LAYOUT_VERSION", "record_maker", "struct_maker", "struct_values"]

#: The layout the constructors below build and compiled code may rely on: a Struct's values
#: are one list in field order, records are tuples in their classes' ``_fields`` order.
#: Compiled extensions compare it with the version they were built for and refuse to load
#: on a difference (the pure-Python paths then run).
LAYOUT_VERSION: Final = 1

R = TypeVar("R", SourceRecord, SinkRecord, SchemaAndValue)

_new_struct = Struct.__new__


def struct_maker(schema: Schema) -> Callable[[list[Any]], Struct]:
    """A function making Structs of ``schema`` from lists of values in field order.

    The schema is checked here, once; the values are not (``Struct.validate()`` checks one
    on demand): give it values of the fields' types, one per field. The struct takes the
    list without copying it, so the caller hands it over and keeps no other use of it.

    Raises:
        DataError: ``schema`` is not a struct schema.
    """
    if schema.type is not Type.STRUCT:
        raise DataError(f"a Struct needs a struct schema, got {schema.type.value}")

    def make(values: list[Any]) -> Struct:
        struct = _new_struct(Struct)
        struct.schema = schema
        struct._values = values
        return struct

    return make


def struct_values(struct: Struct) -> list[Any]:
    """The struct's values in field order (unset fields are None, defaults not applied).

    This is the struct's own list, for reading in bulk: change a field with ``put``, or
    build a changed copy with :func:`struct_maker` from a copy of the list.
    """
    return struct._values


def record_maker(cls: type[R]) -> Callable[[Sequence[Any]], R]:
    """A function making records of ``cls`` from a tuple of every field in ``cls._fields``
    order (``SourceRecord``: topic, kafka_partition, key_schema, key, value_schema, value,
    timestamp, headers, source_partition, source_offset). ``SchemaAndValue`` (a
    converter's result) is made the same way.

    Nothing is checked or defaulted: the fast way to build records field by field, or to
    make a changed copy from a slice of a record (``make(record[:5] + (value,) + record[6:])``).
    """
    if not issubclass(cls, (SourceRecord, SinkRecord, SchemaAndValue)):
        raise TypeError(
            f"record_maker builds SourceRecord, SinkRecord or SchemaAndValue, not {cls.__name__}"
        )
    return partial(tuple.__new__, cls)
