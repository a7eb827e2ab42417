"""Seeded generators of Connect schemas, values and records, weighted towards edge cases.

Every generator draws from its own ``random.Random(seed)``, so a run is the same every
time (``KC_COMPAT_SEED`` picks another seed to explore). Values always fit their schemas
as both Kafka and kconnect define them: the interesting part is what each side does next.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
import string
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from kconnect_sdk import (
    Date,
    Decimal,
    Header,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
    TimestampType,
    Type,
)

__all__ = ["Gen"]

T = TypeVar("T")

_INT_BOUNDS: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}

_F64_EDGES: Final = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.5,
    1.5,
    12.34,
    100.0,
    1e7,
    1e-3,
    9.999999e6,
    1.0e-4,
    123456789.0,
    1e16,
    1e21,
    1e22,
    1e-7,
    2.0**53,
    2.0**53 + 2,
    2.0**63,
    -(2.0**63),
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    float("inf"),
    float("-inf"),
    float("nan"),
    3.141592653589793,
    1 / 3,
    2.5e-5,
    4.35,
    0.3,
)
_F32_EDGES: Final = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    0.1,
    12.34,
    3.4028234663852886e38,
    1.401298464324817e-45,
    1.1754943508222875e-38,
    16777216.0,
    16777217.0,
    1e7,
    1e-3,
    float("inf"),
    float("-inf"),
    float("nan"),
    2.0**31,
)

# Pieces strings are built from: plain words, JSON/regex/format metacharacters, control
# characters (incl. DEL and the separators JavaScript treats as newlines), accented and CJK
# letters, and characters outside the Basic Multilingual Plane (surrogate pairs in Java).
_STRING_PIECES: Final = (
    "a",
    "abc",
    "topic",
    "Hello",
    "x.y",
    "0",
    "42",
    "-7",
    "1.5",
    "1e3",
    "true",
    "null",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\x00",
    "\x01",
    "\x1f",
    "\x7f",
    "\x80",
    "\u2028",
    "\u2029",
    '"',
    "\\",
    "/",
    "'",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "=",
    "$",
    "$1",
    "%",
    "é",
    "ß",
    "ü",
    "中文",
    "日本",
    "€",
    "\ufeff",
    "\ufffd",
    "😀",
    "𝄞",
    "\U0010ffff",
    "a" * 40,
)
_FIELD_NAMES: Final = (
    "id",
    "name",
    "a",
    "b",
    "c",
    "ts",
    "amount",
    "nested",
    "tags",
    "x_y",
    "CamelCase",
    "with space",
    "dotted.name",
    "ünï",
    "n0",
    "n1",
    "n2",
    "value",
    "key",
)
_SCHEMA_NAMES: Final = (
    "com.example.Record",
    "Order",
    "io.kconnect.Value",
    "a.b.C",
    "Ünïcode.Name",
)
_MIN_DATE_DAYS: Final = (dt.date(1, 1, 1) - dt.date(1970, 1, 1)).days
_MAX_DATE_DAYS: Final = (dt.date(9999, 12, 31) - dt.date(1970, 1, 1)).days
_MIN_TS_MS: Final = _MIN_DATE_DAYS * 86_400_000
_MAX_TS_MS: Final = (_MAX_DATE_DAYS + 1) * 86_400_000 - 1
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

PRIMITIVES: Final = (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
    Type.BYTES,
)
LOGICAL: Final = ("decimal", "date", "time", "timestamp")


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest float32, as Java's ``(float)`` cast does."""
    try:
        return float(struct.unpack(">f", struct.pack(">f", value))[0])
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


class Gen:
    """Random Connect data from a fixed seed."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    # -- small helpers ---------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, options: Sequence[T]) -> T:
        return options[self.r.randrange(len(options))]

    def weighted(self, options: Sequence[tuple[T, float]]) -> T:
        total = sum(w for _, w in options)
        x = self.r.random() * total
        for option, weight in options:
            x -= weight
            if x < 0:
                return option
        return options[-1][0]

    def string(self, *, max_pieces: int = 4, ascii_only: bool = False) -> str:
        if self.chance(0.05):
            return ""
        pieces = [self.pick(_STRING_PIECES) for _ in range(self.r.randint(1, max_pieces))]
        if self.chance(0.3):
            pieces.append(
                "".join(self.pick(string.ascii_letters) for _ in range(self.r.randint(1, 8)))
            )
        text = "".join(pieces)
        if ascii_only:
            text = "".join(c for c in text if " " <= c < "\x7f") or "a"
        return text

    def word(self) -> str:
        return "".join(self.pick(string.ascii_lowercase) for _ in range(self.r.randint(1, 6)))

    # -- primitive values --------------------------------------------------------------
    def int_of(self, typ: Type) -> int:
        lo, hi = _INT_BOUNDS[typ]
        roll = self.r.random()
        if roll < 0.3:
            return self.pick((0, 1, -1, lo, hi, lo + 1, hi - 1, 2, 10, 100, -100, 127, -128, 255))
        if roll < 0.6:
            return self.r.randint(-1000, 1000) if hi > 1000 else self.r.randint(lo, hi)
        bits = self.r.randint(1, hi.bit_length())
        magnitude = self.r.getrandbits(bits)
        return max(lo, min(hi, -magnitude if self.chance(0.4) else magnitude))

    def int_clamped(self, typ: Type) -> int:
        lo, hi = _INT_BOUNDS[typ]
        return max(lo, min(hi, self.int_of(typ)))

    def float64(self) -> float:
        roll = self.r.random()
        if roll < 0.4:
            return self.pick(_F64_EDGES)
        if roll < 0.7:
            # "Round" decimals: what Java prints plainly and what in scientific notation.
            mantissa = self.r.randint(-99999, 99999)
            return float(f"{mantissa}e{self.r.randint(-12, 25)}")
        while True:
            value = float(struct.unpack(">d", self.r.getrandbits(64).to_bytes(8, "big"))[0])
            if math.isfinite(value):
                return value

    def float32(self) -> float:
        roll = self.r.random()
        if roll < 0.4:
            return to_float32(self.pick(_F32_EDGES))
        if roll < 0.7:
            return to_float32(float(f"{self.r.randint(-99999, 99999)}e{self.r.randint(-10, 12)}"))
        while True:
            value = float(struct.unpack(">f", self.r.getrandbits(32).to_bytes(4, "big"))[0])
            if math.isfinite(value):
                return value

    def bytes_value(self) -> bytes:
        if self.chance(0.1):
            return b""
        if self.chance(0.2):
            return self.string().encode("utf-8", "surrogatepass")
        return bytes(self.r.getrandbits(8) for _ in range(self.r.randint(1, 24)))

    def decimal_value(self, scale: int) -> decimal.Decimal:
        roll = self.r.random()
        if roll < 0.3:
            unscaled = self.pick(
                (0, 1, -1, 127, 128, -128, -129, 255, 256, 2**63 - 1, -(2**63), 2**64)
            )
        elif roll < 0.7:
            unscaled = self.r.randint(-(10**6), 10**6)
        else:
            unscaled = self.r.getrandbits(self.r.randint(1, 130)) * self.pick((1, -1))
        return decimal.Decimal(unscaled).scaleb(-scale, decimal.Context(prec=200))

    def date_value(self) -> dt.date:
        if self.chance(0.3):
            days = self.pick(
                (0, 1, -1, 10_000, 18_000, 19_000, -719_162, 2_932_896, -141_427, -141_428)
            )
        else:
            days = self.r.randint(-50_000, 60_000)
        return dt.date(1970, 1, 1) + dt.timedelta(
            days=max(_MIN_DATE_DAYS, min(_MAX_DATE_DAYS, days))
        )

    def time_value(self) -> dt.time:
        ms = (
            self.pick((0, 1, 999, 1000, 86_399_999, 43_200_000))
            if self.chance(0.3)
            else self.r.randrange(86_400_000)
        )
        seconds, millis = divmod(ms, 1000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        return dt.time(hour, minute, second, millis * 1000, tzinfo=dt.UTC)

    def timestamp_millis(self) -> int:
        if self.chance(0.3):
            return self.pick(
                (
                    0,
                    1,
                    -1,
                    999,
                    1000,
                    1_600_000_000_000,
                    1_700_000_000_123,
                    -12_219_292_800_000,
                    -12_219_292_800_001,
                    _MIN_TS_MS,
                    _MAX_TS_MS,
                    253_402_300_799_000,
                    -62_135_596_800_000,
                )
            )
        return self.r.randint(-(2**41), 2**42)

    def timestamp_value(self) -> dt.datetime:
        ms = max(_MIN_TS_MS, min(_MAX_TS_MS, self.timestamp_millis()))
        return _EPOCH + dt.timedelta(milliseconds=ms)

    # -- schemas ----------------------------------------------------------------------------
    def primitive_schema(self, *, logical: bool = True) -> SchemaBuilder:
        if logical and self.chance(0.2):
            kind = self.pick(LOGICAL)
            if kind == "decimal":
                return Decimal.builder(self.pick((0, 0, 1, 2, 2, 3, 5, 10, 18, -2)))
            return {"date": Date.builder, "time": Time.builder, "timestamp": Timestamp.builder}[
                kind
            ]()
        return SchemaBuilder(self.pick(PRIMITIVES))

    def schema(self, depth: int = 0, *, max_depth: int = 3, logical: bool = True) -> Schema:
        """Any schema: primitives, logical types, arrays, maps and nested structs."""
        roll = self.r.random()
        if depth >= max_depth or roll < 0.55:
            builder = self.primitive_schema(logical=logical)
        elif roll < 0.7:
            builder = SchemaBuilder.array(
                self.schema(depth + 1, max_depth=max_depth, logical=logical)
            )
        elif roll < 0.8:
            builder = SchemaBuilder.map(
                self.key_schema(), self.schema(depth + 1, max_depth=max_depth, logical=logical)
            )
        else:
            builder = self.struct_builder(depth, max_depth=max_depth, logical=logical)
        return self.decorate(builder)

    def key_schema(self) -> Schema:
        """A map key schema; Python dict keys must be hashable, so no arrays or maps."""
        roll = self.r.random()
        if roll < 0.5:
            builder = SchemaBuilder.string()
        elif roll < 0.9:
            builder = self.primitive_schema()
        else:
            builder = self.struct_builder(2, max_depth=3)
        if self.chance(0.15):
            builder.optional()
        return builder.build()

    def struct_builder(
        self, depth: int = 0, *, max_depth: int = 3, logical: bool = True, min_fields: int = 0
    ) -> SchemaBuilder:
        builder = SchemaBuilder.struct()
        names = self.r.sample(_FIELD_NAMES, self.r.randint(max(min_fields, 0), 6))
        if len(names) < min_fields:
            names = list(_FIELD_NAMES[:min_fields])
        for name in names:
            builder.field(name, self.schema(depth + 1, max_depth=max_depth, logical=logical))
        return builder

    def decorate(self, builder: SchemaBuilder) -> Schema:
        """Optional, name, version, doc, parameters and a default, each now and then."""
        logical = builder.build().name is not None
        if self.chance(0.4):
            builder.optional()
        if not logical and self.chance(0.1):
            builder.name(self.pick(_SCHEMA_NAMES))
        if not logical and self.chance(0.08):
            builder.version(self.r.randint(1, 5))
        if self.chance(0.08):
            builder.doc(self.string(max_pieces=2))
        if not logical and self.chance(0.06):
            builder.parameter(self.word(), self.string(max_pieces=2))
        plain = builder.build()
        # Struct defaults rarely: Kafka's JsonConverter cannot write them (see
        # intended-differences.toml), which would hide everything else in their cases.
        if self.chance(0.03 if plain.type is Type.STRUCT else 0.12):
            if plain.type is Type.STRUCT:
                default: Any = self.struct_value(plain, on=builder)
            else:
                default = self.value(plain, nulls=False)
            if default is not None:
                builder.default_value(default)
        return builder.build()

    # -- values -------------------------------------------------------------------------
    def value(self, schema: Schema, *, nulls: bool = True, unset: bool = False) -> Any:
        """A value of ``schema``; None now and then where the schema allows it.

        ``unset``: the value of a struct field, which may also be None (left unset) when
        the field has a default. Elsewhere Kafka allows null only in optional schemas.
        """
        allowed = schema.optional or (unset and schema.default is not None)
        if nulls and allowed and self.chance(0.15):
            return None
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            return self.decimal_value(Decimal.scale_of(schema))
        if name == Date.LOGICAL_NAME:
            return self.date_value()
        if name == Time.LOGICAL_NAME:
            return self.time_value()
        if name == Timestamp.LOGICAL_NAME:
            return self.timestamp_value()
        typ = schema.type
        if typ in _INT_BOUNDS:
            return self.int_clamped(typ)
        if typ is Type.FLOAT32:
            return self.float32()
        if typ is Type.FLOAT64:
            return self.float64()
        if typ is Type.BOOLEAN:
            return self.chance(0.5)
        if typ is Type.STRING:
            return self.string()
        if typ is Type.BYTES:
            return self.bytes_value()
        if typ is Type.ARRAY:
            assert schema.value_schema is not None
            return [self.value(schema.value_schema) for _ in range(self.r.randint(0, 4))]
        if typ is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            out: dict[Any, Any] = {}
            for _ in range(self.r.randint(0, 4)):
                key = self.value(schema.key_schema)
                if isinstance(key, float) and math.isnan(key):
                    continue  # Java's HashMap and Python's dict disagree on a NaN's identity
                if key in out:
                    continue
                if isinstance(key, float) and key == 0.0:
                    key = 0.0  # -0.0 equals 0.0 in a dict, not in a HashMap
                out[key] = self.value(schema.value_schema)
            return out
        return self.struct_value(schema)

    def struct_value(self, schema: Schema, *, on: SchemaBuilder | None = None) -> Struct:
        """A Struct of ``schema`` (built on ``on``, as a struct schema's default is)."""
        struct_ = Struct(on if on is not None else schema)
        for field in schema.fields:
            struct_.put(field.name, self.value(field.schema, unset=True))
        return struct_

    def schemaless(self, depth: int = 0, *, max_depth: int = 3, maps: bool = True) -> Any:
        """A value with no schema: what JSON holds, plus bytes and non-string map keys."""
        roll = self.r.random()
        if depth < max_depth and roll < 0.2 and maps:
            out: dict[Any, Any] = {}
            string_keys = self.chance(0.85)
            for _ in range(self.r.randint(0, 4)):
                key: Any = (
                    self.pick(_FIELD_NAMES)
                    if string_keys
                    else self.schemaless(max_depth, maps=False)
                )
                if key is None or isinstance(key, float | list) or key in out:
                    continue
                out[key] = self.schemaless(depth + 1, max_depth=max_depth)
            return out
        if depth < max_depth and roll < 0.3:
            return [
                self.schemaless(depth + 1, max_depth=max_depth) for _ in range(self.r.randint(0, 3))
            ]
        return self.weighted(
            [
                (None, 0.5),
                (self.chance(0.5), 1.0),
                (self.int_clamped(Type.INT64), 2.0),
                (self.int_clamped(Type.INT32), 1.0),
                (self.float64(), 1.5),
                (self.string(), 2.0),
                (self.bytes_value(), 0.4),
            ]
        )

    # -- records --------------------------------------------------------------------------
    def side(self) -> tuple[Schema | None, Any]:
        """A key or a value with its schema: mostly structs, else anything."""
        roll = self.r.random()
        if roll < 0.55:
            schema = self.decorate(self.struct_builder(0, max_depth=3, min_fields=1))
            value = None if (schema.optional and self.chance(0.05)) else self.struct_value(schema)
            return schema, value
        if roll < 0.7:
            schema = self.schema(1)
            return schema, self.value(schema)
        if roll < 0.9:
            return None, {
                self.pick(_FIELD_NAMES): self.schemaless(1) for _ in range(self.r.randint(1, 5))
            }
        if roll < 0.95:
            return None, self.schemaless()
        return None, None

    def headers(self) -> Headers:
        headers: list[Header] = []
        for _ in range(self.r.randint(0, 3)):
            key = self.pick(("h", "a", "b", "trace", "ünï", "x.y", ""))
            if self.chance(0.4):
                headers.append(Header(key, None, self.schemaless(1)))
            else:
                schema = self.schema(1)
                headers.append(Header(key, schema, self.value(schema)))
        return Headers(headers)

    def record(self, *, sink: bool | None = None) -> SourceRecord | SinkRecord:
        key_schema, key = self.side()
        value_schema, value = self.side()
        topic = self.pick(("topic", "orders", "orders-raw", "a.b-c_d", "TOPIC", "t1", "ünï"))
        partition = self.pick((None, 0, 3)) if self.chance(0.5) else 0
        timestamp = self.pick((None, self.timestamp_millis(), 1_700_000_000_000))
        headers = self.headers()
        if sink if sink is not None else self.chance(0.3):
            return SinkRecord(
                topic=topic,
                kafka_partition=partition if partition is not None else 0,
                key_schema=key_schema,
                key=key,
                value_schema=value_schema,
                value=value,
                timestamp=timestamp,
                headers=headers,
                kafka_offset=self.r.randint(0, 10**6),
                timestamp_type=TimestampType.CREATE_TIME,
            )
        return SourceRecord(
            topic=topic,
            kafka_partition=partition,
            key_schema=key_schema,
            key=key,
            value_schema=value_schema,
            value=value,
            timestamp=timestamp,
            headers=headers,
        )

    def many(self, count: int, make: Callable[[], T]) -> list[T]:
        return [make() for _ in range(count)]
