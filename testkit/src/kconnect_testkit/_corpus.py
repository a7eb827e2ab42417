"""The canonical converter corpus and hypothesis strategies for Connect values."""

from __future__ import annotations

import datetime as dt
import decimal
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from kconnect_sdk import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp, Type

__all__ = ["CORPUS", "CorpusCase", "values_for"]


@dataclass(frozen=True, slots=True)
class CorpusCase:
    """One value and its schema that a converter must round-trip."""

    name: str
    schema: Schema | None
    value: Any


_ADDRESS = (
    SchemaBuilder.struct()
    .name("kc.test.Address")
    .field("street", Schema.STRING)
    .field("zip", Schema.OPTIONAL_STRING)
    .build()
)
_PERSON = (
    SchemaBuilder.struct()
    .name("kc.test.Person")
    .field("id", Schema.INT64)
    .field("name", Schema.STRING)
    .field("address", _ADDRESS)
    .field("tags", SchemaBuilder.array(Schema.STRING).build())
    .build()
)
_UTC = dt.UTC


def _cases() -> dict[str, CorpusCase]:
    person = (
        Struct(_PERSON)
        .put("id", 42)
        .put("name", "Ada")
        .put("address", Struct(_ADDRESS).put("street", "Main St 1").put("zip", None))
        .put("tags", ["a", "b"])
    )
    cases = [
        CorpusCase("tombstone", None, None),
        CorpusCase("null_optional", Schema.OPTIONAL_STRING, None),
        CorpusCase("string", Schema.STRING, "hello"),
        CorpusCase("unicode", Schema.STRING, 'Grüße, 世界 🚀 \u00a0\t"quoted"'),
        CorpusCase("int8", Schema.INT8, -128),
        CorpusCase("int16", Schema.INT16, 32767),
        CorpusCase("int32", Schema.INT32, -2147483648),
        CorpusCase("int64", Schema.INT64, 9007199254740993),
        CorpusCase("float32", Schema.FLOAT32, 1.5),
        CorpusCase("float64", Schema.FLOAT64, -0.1),
        CorpusCase("boolean", Schema.BOOLEAN, True),
        CorpusCase("bytes", Schema.BYTES, b"\x00\x01\xfe\xff"),
        CorpusCase("array", SchemaBuilder.array(Schema.INT32).build(), [1, 2, 3]),
        CorpusCase("map", SchemaBuilder.map(Schema.STRING, Schema.INT64).build(), {"a": 1, "b": 2}),
        CorpusCase("nested_struct", _PERSON, person),
        CorpusCase("decimal", Decimal.schema(2), decimal.Decimal("-1234.56")),
        CorpusCase("timestamp", Timestamp.SCHEMA, dt.datetime(2024, 2, 29, 12, 30, 1, 5000, _UTC)),
        CorpusCase("date", Date.SCHEMA, dt.date(1999, 12, 31)),
        CorpusCase("time", Time.SCHEMA, dt.time(23, 59, 59, 999000, tzinfo=_UTC)),
    ]
    return {case.name: case for case in cases}


CORPUS: dict[str, CorpusCase] = _cases()
"""Every shipped case by name: nulls, tombstones, every primitive, nested structs,
decimals, timestamps, dates, times and unicode."""

_PRIMITIVES: dict[Type, st.SearchStrategy[Any]] = {
    Type.INT8: st.integers(-(2**7), 2**7 - 1),
    Type.INT16: st.integers(-(2**15), 2**15 - 1),
    Type.INT32: st.integers(-(2**31), 2**31 - 1),
    Type.INT64: st.integers(-(2**63), 2**63 - 1),
    Type.FLOAT32: st.floats(width=32, allow_nan=False, allow_infinity=False),
    Type.FLOAT64: st.floats(allow_nan=False, allow_infinity=False),
    Type.BOOLEAN: st.booleans(),
    Type.STRING: st.text(max_size=40),
    Type.BYTES: st.binary(max_size=40),
}


def values_for(schema: Schema) -> st.SearchStrategy[Any] | None:
    """A strategy for values of ``schema`` (unnamed primitives, arrays and maps of them), or None."""
    if schema.name is not None:
        return None
    if schema.type in _PRIMITIVES:
        inner = _PRIMITIVES[schema.type]
    elif schema.type is Type.ARRAY and schema.value_schema is not None:
        item = values_for(schema.value_schema)
        if item is None:
            return None
        inner = st.lists(item, max_size=5)
    elif (
        schema.type is Type.MAP
        and schema.key_schema is not None
        and schema.key_schema.type is Type.STRING
        and schema.value_schema is not None
    ):
        item = values_for(schema.value_schema)
        if item is None:
            return None
        inner = st.dictionaries(st.text(max_size=10), item, max_size=5)
    else:
        return None
    return st.none() | inner if schema.optional else inner
