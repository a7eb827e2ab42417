"""The generated record encoders agree with the generic per-field encoder on every value.

The generated code only skips calls to a field's check whose answer is known; these tests
feed it the values at the edges of each inline test (int subclasses, bools in int fields,
ranges, NaN and infinities, non-ASCII and unencodable text, bytearrays, nulls) and check
that result or error is the generic encoder's.
"""

from __future__ import annotations

import enum
from typing import Any

import pytest
from kconnect_converter_avro import AvroData
from kconnect_sdk import DataError, Schema, SchemaBuilder, Struct


class _Small(enum.IntEnum):
    ONE = 1


_EDGES: list[Any] = [
    None,
    0,
    -(2**7),
    2**7,
    -(2**15) - 1,
    2**31 - 1,
    2**31,
    -(2**63),
    2**63,
    True,
    False,
    _Small.ONE,
    1.5,
    float("nan"),
    float("inf"),
    -float("inf"),
    3.5e38,
    -3.4028234663852886e38,
    "",
    "plain",
    "naïve ☃",
    "\ud800",
    b"",
    b"\x00\xff",
    bytearray(b"ab"),
    memoryview(b"cd"),
    [1],
]

_KINDS = [
    Schema.INT8,
    Schema.INT16,
    Schema.INT32,
    Schema.INT64,
    Schema.FLOAT32,
    Schema.FLOAT64,
    Schema.BOOLEAN,
    Schema.STRING,
    Schema.BYTES,
]


def _outcome(encode: Any, value: Any) -> Any:
    try:
        datum = encode(value)
    except DataError as exc:
        return ("error", str(exc))
    return ("ok", repr(datum), [type(v) for v in datum.values()])


def _schema(optional: bool, defaults: bool) -> Schema:
    builder = SchemaBuilder.struct().name("edge.Record")
    for kind in _KINDS:
        field = kind.replace(optional=True) if optional else kind
        builder.field(f"f_{kind.type.value}", field)
    if defaults:
        builder.field("with_default", SchemaBuilder.int32().default_value(7).build())
    return builder.build()


@pytest.mark.parametrize("optional", [False, True], ids=["required", "optional"])
@pytest.mark.parametrize("defaults", [False, True], ids=["plain", "defaults"])
def test_generated_encoder_matches_generic(optional: bool, defaults: bool) -> None:
    schema = _schema(optional, defaults)
    encode = AvroData().encoder(schema)
    generic = encode.__globals__["generic"]
    assert generic is not encode
    good: dict[str, Any] = {
        "int8": 1,
        "int16": 2,
        "int32": 3,
        "int64": 4,
        "float32": 1.0,
        "float64": 2.0,
    }
    good |= {"boolean": True, "string": "s", "bytes": b"b"}
    outcomes = 0
    for index, kind in enumerate(_KINDS):
        for edge in _EDGES:
            struct = Struct(schema)
            values = [good[k.type.value] for k in _KINDS] + ([None] if defaults else [])
            values[index] = edge
            struct._values = values  # past put()'s checks, as a Struct built elsewhere may be
            fast, slow = _outcome(encode, struct), _outcome(generic, struct)
            assert fast == slow, (kind.type.value, edge)
            outcomes += fast[0] == "error"
    assert outcomes > 0  # the edges do reach the error path
