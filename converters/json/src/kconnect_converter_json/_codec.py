"""Per-schema codecs between Connect values and the Python form of Kafka's JSON.

A codec is compiled once per schema (and cached by the converter), so converting a record
costs a few dict and list operations instead of a walk over the schema. Structs are written
by a function generated per struct schema (see ``_StructFastPath``): inline class checks
and one dict display, nulls, defaults and nested structs included; only fields that need a
conversion (doubles, bytes, logical types, nested values) run more Python code.
"""

from __future__ import annotations

import binascii
import datetime as _dt
import decimal as _decimal
import math
import re
import struct
from collections.abc import Callable, Mapping
from itertools import chain, compress, repeat
from operator import attrgetter, is_, itemgetter
from typing import Any, Final

import orjson
from kconnect_sdk import (
    DataError,
    Date,
    Decimal,
    Schema,
    Struct,
    Time,
    Timestamp,
    Type,
    optional_speedups,
    struct_maker,
    struct_values,
)
from kconnect_sdk.java import double_to_string, float_to_string

from ._config import DecimalFormat, JsonConverterSettings

__all__ = [
    "Codec",
    "NeedsExactRead",
    "StructBatchDecoder",
    "StructBatchEncoder",
    "compile_codec",
    "from_schemaless",
    "has_decimal",
    "has_non_finite",
    "java_doubles",
    "maybe_scientific",
    "same_but_default",
    "schemaless_default",
    "schemaless_speedups",
]

Fn = Callable[[Any], Any]


SPEEDUPS: Any = optional_speedups("kconnect_speedups._json")
"""``kconnect_speedups._json`` when the compiled fast paths are in use, else None (the
pure-Python code runs; same bytes). Tests set it to run both paths."""

FAST_ENCODERS = True
"""Whether codecs compiled from now on write structs through generated code and decimals
from their text (the default), or field by field through ``Decimal.from_logical``: the
reference the fast encoders are tested against."""

_INT_TYPES: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}
# Python class a non-null value of each primitive type has, on the Connect and JSON sides.
_CONNECT_CLASS: Final[Mapping[Type, type]] = {
    Type.INT8: int,
    Type.INT16: int,
    Type.INT32: int,
    Type.INT64: int,
    Type.FLOAT32: float,
    Type.FLOAT64: float,
    Type.BOOLEAN: bool,
    Type.STRING: str,
    Type.BYTES: bytes,
    Type.ARRAY: list,
    Type.MAP: dict,
    Type.STRUCT: Struct,
}
_JSON_KINDS: Final[Mapping[type, str]] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    _decimal.Decimal: "number",  # a number read exactly
    bool: "boolean",
}


def _kind(value: Any) -> str:
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _b2a(value: bytes | bytearray | memoryview) -> bytes:
    return binascii.b2a_base64(value, newline=False)


def _b64(value: bytes | bytearray | memoryview) -> str:
    return binascii.b2a_base64(value, newline=False).decode("ascii")


def _decimal_text_encoder(schema: Schema, scale: int) -> Fn:
    """Encoder of a ``decimal.Decimal`` (class already checked) as base64 of its unscaled
    two's complement bytes, as ``Decimal.from_logical`` + base64 give, faster.

    The unscaled integer is read from the value's text, which shows it plainly for most
    values ("-123.45" at scale 2); text that does not (scientific notation, NaN, another
    scale) makes ``int`` or the point test fail, and ``Decimal.from_logical`` decides or
    says what is wrong.
    """
    point = -scale - 1

    def encode_decimal_bytes(value: Any) -> Any:
        text = str(value)
        try:
            if scale > 0:
                if text[point] != ".":
                    raise ValueError
                unscaled = int(text[:point] + text[point + 1 :])
            elif scale == 0:
                unscaled = int(text)  # int() refuses "1E+3", "NaN", "1.5"
            else:
                raise ValueError
        except (ValueError, IndexError):
            return _b64(Decimal.from_logical(schema, value))
        # Minimal two's complement, as BigInteger.toByteArray gives it.
        size = (unscaled + (unscaled < 0)).bit_length() // 8 + 1
        return _b2a(unscaled.to_bytes(size, "big", signed=True)).decode("ascii")

    return encode_decimal_bytes


def _unb64(value: str, what: str) -> bytes:
    # binascii's strict mode lets "=" after a whole quantum pass ("AAAA====", "SEBA="),
    # which Jackson refuses: only text of whole quanta padded at its end takes this path.
    if not len(value) & 3 and "=" not in value[:-2]:
        try:
            return binascii.a2b_base64(value, strict_mode=True)
        except (binascii.Error, ValueError):
            pass  # not plain padded base64; Jackson's reader may still take it
    try:
        return _jackson_unb64(value)
    except ValueError as exc:
        raise DataError(f"Invalid bytes for {what}: {value[:40]!r} is not base64 ({exc})") from exc


_B64_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUES: Final = {c: i for i, c in enumerate(_B64_ALPHABET)}
# Java's String.trim() and Jackson's skipping between quanta take any char up to U+0020.
_JAVA_BLANKS: Final = "".join(map(chr, range(0x21)))


def _jackson_unb64(text: str) -> bytes:
    """Base64 as Kafka reads it (Jackson's ``TextNode.binaryValue()``, MIME variant).

    Jackson trims the text, skips control characters and spaces between 4-character
    quanta (not inside one) and reads on after a padded quantum ("AA==AQID" is 1 + 3
    bytes); padding is required, and any other character is an error (``ValueError``).
    """
    s = text.strip(_JAVA_BLANKS)
    values = _B64_VALUES
    out = bytearray()
    i, n = 0, len(s)
    while True:
        while i < n and s[i] <= " ":
            i += 1
        if i >= n:
            return bytes(out)
        if i + 4 > n:
            raise ValueError("unexpected end of base64 text")
        a, b, c, d = s[i], s[i + 1], s[i + 2], s[i + 3]
        i += 4
        if a not in values or b not in values:
            raise ValueError(f"illegal character {(a if a not in values else b)!r}")
        bits = values[a] << 6 | values[b]
        if c == "=":
            if d != "=":
                raise ValueError(f"expected padding character '=', found {d!r}")
            out.append(bits >> 4)
            continue
        if c not in values:
            raise ValueError(f"illegal character {c!r}")
        bits = bits << 6 | values[c]
        if d == "=":
            out += (bits >> 2).to_bytes(2, "big")
        elif d in values:
            out += (bits << 6 | values[d]).to_bytes(3, "big")
        else:
            raise ValueError(f"illegal character {d!r}")


def schemaless_default(value: Any) -> Any:
    """orjson ``default`` hook for schemaless values: bytes become base64 text."""
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(value)
    raise TypeError


def from_schemaless(value: Any) -> Any:
    """A schemaless Connect value as JSON-ready Python, inferring types as Kafka does."""
    if isinstance(value, float):
        return value if value - value == 0.0 else _non_finite(value)
    if value is None or isinstance(value, str | int):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(value)
    if isinstance(value, list | tuple):
        return [from_schemaless(v) for v in value]
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            return {k: from_schemaless(v) for k, v in value.items()}
        return [[from_schemaless(k), from_schemaless(v)] for k, v in value.items()]
    if isinstance(value, Struct):
        raise DataError(
            "Mismatching schema: a Struct needs its schema; pass struct.schema with the value"
        )
    raise DataError(
        f"Python type {type(value).__name__} does not have a corresponding schema type; "
        "give a schema or convert the value to str, int, float, bool, bytes, list or dict"
    )


def schemaless_speedups() -> Any:
    """:data:`SPEEDUPS` when its schemaless encode and decode write and read as Kafka does
    (NaN and infinities handed back, integers beyond int64 wrapped), else None."""
    return SPEEDUPS if SPEEDUPS is not None and hasattr(SPEEDUPS, "has_non_finite") else None


_SCALARS: Final = frozenset({str, int, float, bool, type(None), bytes})


def has_non_finite(value: Any) -> bool:
    """Whether ``value`` holds a NaN or infinite float in the containers orjson writes itself
    (dicts, lists, tuples): orjson writes those floats as ``null``, Kafka (Jackson) as the
    strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``, which :func:`from_schemaless`
    gives. The pure-Python twin of ``kconnect_speedups._json.has_non_finite``.
    """
    if type(value) is dict:
        # The usual value, a flat dict, checked in C-level loops: the sum of its floats is
        # finite unless one of them is not (or the sum overflows; the walk then decides).
        values = value.values()
        kinds = set(map(type, values))
        if kinds <= _SCALARS:
            if float not in kinds:
                return False
            total = sum(compress(values, map(is_, map(type, values), repeat(float))), 0.0)
            if total - total == 0.0:
                return False
    pending = [value]
    pop, extend = pending.pop, pending.extend
    while pending:
        item = pop()
        if isinstance(item, float):
            if item - item != 0.0:  # NaN for a NaN or an infinity
                return True
        elif isinstance(item, dict):
            extend(item.values())
        elif isinstance(item, list | tuple):
            extend(item)
    return False


def any_non_finite(values: list[Any]) -> bool:
    """Whether any of ``values`` holds a NaN or an infinity (:func:`has_non_finite`); a
    batch of flat dicts is checked in one pass of C-level loops over all their values."""
    if set(map(type, values)) == {dict}:
        return has_non_finite(dict(enumerate(chain.from_iterable(map(dict.values, values)))))
    return any(map(has_non_finite, values))


class Codec:
    """Encoder and decoder for one schema.

    Attributes:
        encode: Connect value (None allowed) -> JSON-ready Python value.
        decode: parsed JSON value (None allowed) -> Connect value.
    """

    __slots__ = (
        "_batch",
        "_batch_read",
        "_compiler",
        "_native",
        "decode",
        "encode",
        "encode_value",
        "exact",
        "schema",
    )

    def __init__(
        self,
        schema: Schema,
        encode: Fn,
        decode: Fn,
        encode_value: Fn | None = None,
        compiler: _Compiler | None = None,
    ) -> None:
        self.schema = schema
        self._compiler = compiler  # for the compiled encoder: the settings' null handling
        self.encode = encode
        self.decode = decode
        # The encoder of a non-null value (``encode`` less its null check).
        self.encode_value = encode if encode_value is None else encode_value
        # Whether JSON numbers must be read exactly (as decimal.Decimal, like Jackson's
        # USE_BIG_DECIMAL_FOR_FLOATS): only schemas holding a Decimal pay for it.
        self.exact = has_decimal(schema)
        self._batch: StructBatchEncoder | bool | None = False  # False: not built yet
        self._batch_read: StructBatchDecoder | bool | None = False
        self._native: Any = False  # False: not built yet; None: none

    def native_encoder(self, escape: Callable[[bytes], bytes]) -> Any:
        """The compiled whole-batch encoder of this struct schema
        (``kconnect_speedups._json.FlatEncoder``), or None: no speedups, or a schema it
        does not write. ``escape`` gives JSON text (a field name, a default) as the
        converter writes it."""
        if SPEEDUPS is None or self._compiler is None:
            return None
        found = self._native
        if found is False:
            found = self._native = _native_struct_encoder(
                SPEEDUPS, self.schema, self._compiler, escape, {}
            )
        return found

    def batch_encoder(self) -> StructBatchEncoder | None:
        """The whole-batch encoder of this struct schema, or None when it has none."""
        found = self._batch
        if found is False:
            found = self._batch = StructBatchEncoder.build(self.schema)
        return found  # type: ignore[return-value]

    def encode_structs(self, structs: list[Any]) -> list[bytes] | None:
        """orjson's text of each Struct (all of class Struct), or None: the caller then
        writes record by record, which gives the same bytes or names the record in the
        error. Flat structs go through :class:`StructBatchEncoder`; others (nested
        structs, nulls written as defaults, logical types) through the generated
        per-schema encoder, mapped over the batch in C."""
        batch = self.batch_encoder()
        if batch is not None:
            found = batch.encode(structs)
            if found is not None:
                return found
        try:
            return list(map(orjson.dumps, map(self.encode_value, structs)))
        except Exception:  # any failure: redone record by record
            return None

    def batch_decoder(self) -> StructBatchDecoder | None:
        """The whole-batch decoder of this struct schema, or None when it has none."""
        found = self._batch_read
        if found is False:
            found = self._batch_read = StructBatchDecoder.build(self.schema)
        return found  # type: ignore[return-value]


def compile_codec(schema: Schema, settings: JsonConverterSettings) -> Codec:
    """Build the codec of ``schema`` under ``settings``."""
    compiler = _Compiler(settings)
    encode = compiler.encoder(schema)
    return Codec(
        schema,
        encode,
        compiler.decoder(schema),
        compiler.value_encoder(schema),
        # The compiled encoder is a fast encoder too: none in the reference mode.
        compiler if FAST_ENCODERS else None,
    )


def has_decimal(schema: Schema | None) -> bool:
    """Whether ``schema`` or any schema inside it is the Decimal logical type."""
    if schema is None:
        return False
    if schema.name == Decimal.LOGICAL_NAME:
        return True
    t = schema.type
    if t is Type.STRUCT:
        return any(has_decimal(f.schema) for f in schema.fields)
    if t is Type.ARRAY:
        return has_decimal(schema.value_schema)
    if t is Type.MAP:
        return has_decimal(schema.key_schema) or has_decimal(schema.value_schema)
    return False


def same_but_default(a: Schema, b: Schema) -> bool:
    """Whether two struct schemas differ at most in their own default.

    A struct schema's default is a Struct built on the schema without that default (as
    Kafka builds it on the SchemaBuilder), so such a Struct is a value of either.
    """
    return (
        a.type is b.type
        and a.optional == b.optional
        and a.name == b.name
        and a.version == b.version
        and a.doc == b.doc
        and dict(a.parameters) == dict(b.parameters)
        and a.fields == b.fields
    )


def _type_label(schema: Schema) -> str:
    return schema.type.name


class _Compiler:
    def __init__(self, settings: JsonConverterSettings) -> None:
        self.replace_null = settings.replace_null_with_default
        self.numeric_decimals = settings.decimal_format is DecimalFormat.NUMERIC
        # Struct encoders built so far, by schema identity (the schema kept alive with it).
        self._structs: dict[int, tuple[Schema, Fn]] = {}

    # -- Connect -> JSON -------------------------------------------------------------
    def encoder(self, schema: Schema) -> Fn:
        inner = self.value_encoder(schema)
        if schema.default is not None and self.replace_null:
            default_json = inner(schema.default)

            def encode_or_default(value: Any) -> Any:
                return default_json if value is None else inner(value)

            return encode_or_default
        if schema.optional:

            def encode_optional(value: Any) -> Any:
                return None if value is None else inner(value)

            return encode_optional

        def encode_required(value: Any) -> Any:
            if value is None:
                raise DataError(
                    "Conversion error: null value for field that is required and has no "
                    f"default value (schema type {_type_label(schema)}); set a value or make "
                    "the schema optional"
                )
            return inner(value)

        return encode_required

    def value_encoder(self, schema: Schema) -> Fn:
        """Encoder for a non-null value of ``schema``."""
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            return self._decimal_encoder(schema)
        if name == Date.LOGICAL_NAME:
            return _logical_encoder(schema, _dt.date, Date.from_logical, "Date")
        if name == Time.LOGICAL_NAME:
            return _logical_encoder(schema, _dt.time, Time.from_logical, "Time")
        if name == Timestamp.LOGICAL_NAME:
            return _logical_encoder(schema, _dt.datetime, Timestamp.from_logical, "Timestamp")
        t = schema.type
        if t in _INT_TYPES:
            return _int_encoder(schema)
        if t is Type.FLOAT32:
            return _float32_encoder(schema)
        if t is Type.FLOAT64:
            return _float_encoder(schema)
        if t is Type.BOOLEAN:
            return _exact_encoder(schema, bool)
        if t is Type.STRING:
            return _exact_encoder(schema, str)
        if t is Type.BYTES:
            return _bytes_encoder
        if t is Type.ARRAY:
            return self._array_encoder(schema)
        if t is Type.MAP:
            return self._map_encoder(schema)
        return self._struct_encoder(schema)

    def decimal_bytes_encoder(self, schema: Schema) -> Fn | None:
        """The fast base64 encoder of a Decimal schema's values (class checked), or None
        (NUMERIC format, or a bad scale parameter, which each value's encoding reports)."""
        if self.numeric_decimals or not FAST_ENCODERS:
            return None
        try:
            return _decimal_text_encoder(schema, Decimal.scale_of(schema))
        except DataError:
            return None

    def _decimal_encoder(self, schema: Schema) -> Fn:
        numeric = self.numeric_decimals
        from_text = self.decimal_bytes_encoder(schema)

        def encode_decimal(value: Any) -> Any:
            if not isinstance(value, _decimal.Decimal):
                raise DataError(
                    f"Invalid type for Decimal, expected decimal.Decimal but was "
                    f"{type(value).__name__}"
                )
            if numeric:
                if not value.is_finite():
                    raise DataError(f"cannot write non-finite decimal {value} as a JSON number")
                # str(Decimal) follows the same plain/scientific rules as BigDecimal.toString.
                return orjson.Fragment(str(value))
            if from_text is not None and type(value) is _decimal.Decimal:  # its own str
                return from_text(value)
            return _b64(Decimal.from_logical(schema, value))

        return encode_decimal

    def _array_encoder(self, schema: Schema) -> Fn:
        assert schema.value_schema is not None
        element = self.encoder(schema.value_schema)

        def encode_array(value: Any) -> Any:
            if not isinstance(value, list | tuple):
                raise DataError(f"Invalid type for ARRAY: {type(value).__name__}")
            return [element(v) for v in value]

        return encode_array

    def _map_encoder(self, schema: Schema) -> Fn:
        assert schema.key_schema is not None and schema.value_schema is not None
        key = self.encoder(schema.key_schema)
        val = self.encoder(schema.value_schema)
        if schema.key_schema.type is Type.STRING:
            if schema.key_schema.optional:
                # Kafka names a member by the key's JSON text: a null key is "null".
                def encode_object_null_keys(value: Any) -> Any:
                    if not isinstance(value, Mapping):
                        raise DataError(f"Invalid type for MAP: {type(value).__name__}")
                    out: dict[str, Any] = {}
                    for k, v in value.items():
                        name = key(k)
                        out["null" if name is None else name] = val(v)
                    return out

                return encode_object_null_keys

            def encode_object(value: Any) -> Any:
                if not isinstance(value, Mapping):
                    raise DataError(f"Invalid type for MAP: {type(value).__name__}")
                return {key(k): val(v) for k, v in value.items()}

            return encode_object

        def encode_pairs(value: Any) -> Any:
            if not isinstance(value, Mapping):
                raise DataError(f"Invalid type for MAP: {type(value).__name__}")
            return [[key(k), val(v)] for k, v in value.items()]

        return encode_pairs

    def _struct_encoder(self, schema: Schema) -> Fn:
        # One encoder per struct schema object: Debezium's before and after share theirs.
        found = self._structs.get(id(schema))
        if found is not None and found[0] is schema:
            return found[1]
        encode = self._build_struct_encoder(schema)
        self._structs[id(schema)] = (schema, encode)
        return encode

    def _build_struct_encoder(self, schema: Schema) -> Fn:
        fields = schema.fields
        names = tuple(f.name for f in fields)
        encoders = tuple(self.encoder(f.schema) for f in fields)
        replace_null = self.replace_null

        def slow(values: list[Any]) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for field, name, encode, value in zip(fields, names, encoders, values, strict=True):
                if value is None and not replace_null:
                    if not field.schema.optional:
                        raise DataError(
                            f"Conversion error: null value for field {name!r} that is required "
                            "and replace.null.with.default is false"
                        )
                    out[name] = None
                    continue
                try:
                    out[name] = encode(value)
                except DataError as exc:
                    raise DataError(f"field {name!r}: {exc}") from exc
            return out

        def checked_values(value: Any) -> list[Any]:
            if not isinstance(value, Struct):
                raise DataError(f"Invalid type for STRUCT: {type(value).__name__}")
            if (
                value.schema is not schema
                and value.schema != schema
                and not same_but_default(value.schema, schema)
            ):
                raise DataError(
                    "Mismatching schema: the Struct's schema differs from the record's schema"
                )
            return struct_values(value)

        if not FAST_ENCODERS:

            def encode_field_by_field(value: Any) -> Any:
                return slow(checked_values(value))

            return encode_field_by_field

        fast = _StructFastPath(self, schema, slow)

        def encode_struct(value: Any) -> Any:
            return fast.values_to_json(checked_values(value))

        return fast.entry(encode_struct)

    # -- JSON -> Connect -------------------------------------------------------------
    def decoder(self, schema: Schema) -> Fn:
        return self._with_nulls(schema, self.value_decoder(schema))

    def _with_nulls(self, schema: Schema, inner: Fn) -> Fn:
        """``inner`` (the decoder of a non-null value) with the null handling of
        ``schema``."""
        default = schema.default
        nulls = self._null_handling(schema)
        if nulls == "default":

            def decode_or_default(value: Any) -> Any:
                return default if value is None else inner(value)

            return decode_or_default
        if nulls == "null":

            def decode_optional(value: Any) -> Any:
                return None if value is None else inner(value)

            return decode_optional

        def decode_required(value: Any) -> Any:
            if value is None:
                raise DataError(
                    f"Invalid null value for required {_type_label(schema)} field; the schema "
                    "says it cannot be null"
                )
            return inner(value)

        return decode_required

    def value_decoder(self, schema: Schema) -> Fn:
        """Decoder for a non-null JSON value of ``schema``."""
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            return _decimal_decoder(schema)
        if name == Date.LOGICAL_NAME:
            return _int_logical_decoder(schema, Date.to_logical, "Date", (-(2**31), 2**31 - 1))
        if name == Time.LOGICAL_NAME:
            return _int_logical_decoder(schema, Time.to_logical, "Time", (-(2**31), 2**31 - 1))
        if name == Timestamp.LOGICAL_NAME:
            return _int_logical_decoder(
                schema, Timestamp.to_logical, "Timestamp", (-(2**63), 2**63 - 1)
            )
        t = schema.type
        if t in _INT_TYPES:
            return _int_decoder(schema)
        if t is Type.FLOAT32:
            return _float32_decoder(schema)
        if t is Type.FLOAT64:
            return _float_decoder(schema)
        if t is Type.BOOLEAN:
            return _exact_decoder(schema, bool)
        if t is Type.STRING:
            return _exact_decoder(schema, str)
        if t is Type.BYTES:
            return _bytes_decoder
        if t is Type.ARRAY:
            return self._array_decoder(schema)
        if t is Type.MAP:
            return self._map_decoder(schema)
        return self._struct_decoder(schema)

    def _array_decoder(self, schema: Schema) -> Fn:
        assert schema.value_schema is not None
        element = self.decoder(schema.value_schema)

        def decode_array(value: Any) -> Any:
            if type(value) is not list:
                raise DataError(
                    f"Arrays should be encoded as JSON arrays, but found {_kind(value)}"
                )
            return [element(v) for v in value]

        return decode_array

    def _map_decoder(self, schema: Schema) -> Fn:
        assert schema.key_schema is not None and schema.value_schema is not None
        key = self.decoder(schema.key_schema)
        val = self.decoder(schema.value_schema)
        if schema.key_schema.type is Type.STRING:

            def decode_object(value: Any) -> Any:
                if type(value) is not dict:
                    raise DataError(
                        "Maps with string fields should be encoded as JSON objects, but found "
                        f"{_kind(value)}"
                    )
                return {k: val(v) for k, v in value.items()}

            return decode_object

        def decode_pairs(value: Any) -> Any:
            if type(value) is not list:
                raise DataError(
                    "Maps with non-string fields should be encoded as JSON array of tuples, but "
                    f"found {_kind(value)}"
                )
            out: dict[Any, Any] = {}
            for entry in value:
                if type(entry) is not list or len(entry) != 2:
                    raise DataError(
                        f"Found invalid map entry instead of a [key, value] array: {entry!r:.60}"
                    )
                k = key(entry[0])
                try:
                    out[k] = val(entry[1])
                except TypeError as exc:
                    raise DataError(
                        f"map key {entry[0]!r:.60} cannot be a key of a Python dict ({exc}); "
                        "maps whose keys are maps, arrays or structs cannot be read here"
                    ) from exc
            return out

        return decode_pairs

    def _struct_decoder(self, schema: Schema) -> Fn:
        fields = schema.fields
        names = tuple(f.name for f in fields)
        inners = tuple(self.value_decoder(f.schema) for f in fields)
        decoders = tuple(
            self._with_nulls(f.schema, inner) for f, inner in zip(fields, inners, strict=True)
        )

        def slow(value: dict[str, Any]) -> list[Any]:
            out: list[Any] = []
            for name, decode in zip(names, decoders, strict=True):
                try:
                    out.append(decode(value.get(name)))
                except DataError as exc:
                    raise DataError(f"field {name!r}: {exc}") from exc
            return out

        # The values were checked against the schema by their decoders.
        make = struct_maker(schema)

        def decode_slowly(value: Any) -> Any:
            return make(slow(value))

        return _generated_struct_decoder(
            schema, inners, self._null_handling, decode_slowly, self.numeric_decimals
        )

    def _null_handling(self, schema: Schema) -> str:
        """What :meth:`decoder` does with a null: "default", "null" or "raise"."""
        if schema.default is not None and self.replace_null:
            return "default"
        if schema.optional or schema.default is not None:
            return "null"
        return "raise"


def _generated_struct_decoder(
    schema: Schema,
    inners: tuple[Fn, ...],
    null_handling: Callable[[Schema], str],
    slow: Fn,
    numeric_decimals: bool,
) -> Fn:
    """The decoder of a JSON object to a Struct of ``schema``: one generated function.

    It takes every field's value with one ``itemgetter`` call, checks the fields whose
    JSON value is their Connect value (ints in their type's range, booleans, strings) by
    class inline, handles nulls inline (the field's default, None, or a null in a
    required field sent to ``slow``), and calls the decoder of a non-null value
    (``inners``) for the others (doubles, decimals, bytes, logical types, nested structs,
    arrays, maps), in one list display. A missing field, a value of another class or a
    decoder's DataError sends the object to ``slow`` (field by field, reading a missing
    field as null), which gives the same Struct or raises the error naming the field.
    """
    fields = schema.fields
    namespace: dict[str, Any] = {
        "_DataError": DataError,
        "_kind": _kind,
        "_slow": slow,
        # Each value was fitted to its field by its decoder or the inline class checks.
        "_make": struct_maker(schema),
    }
    checks: list[str] = []
    items: list[str] = []
    for f in fields:
        i = f.index
        value = f"v{i}"
        nulls = null_handling(f.schema)
        if nulls == "default":
            namespace[f"_d{i}"] = f.schema.default
        if _passes_through_as_json(f.schema):
            namespace[f"_c{i}"] = _json_class(f.schema, numeric_decimals)
            test = f"type({value}) is _c{i}"
            if f.schema.type in _INT_TYPES:  # INT64 too: the JSON may hold up to 2**64 - 1
                lo, hi = _INT_TYPES[f.schema.type]
                test = f"({test} and {lo} <= {value} <= {hi})"
            read = value
        else:
            namespace[f"_f{i}"] = inners[i]
            test = ""
            read = f"_f{i}({value})"
        if nulls == "raise":
            checks.append(test or f"{value} is not None")
            items.append(read)
        else:
            if test:
                checks.append(f"({value} is None or {test})")
            if_null = f"_d{i}" if nulls == "default" else "None"
            items.append(
                read
                if read == value and if_null == "None"
                else f"({if_null} if {value} is None else {read})"
            )
    lines = [
        "def decode_struct(value):",
        "    if type(value) is not dict:",
        "        raise _DataError(",
        '            "Structs should be encoded as JSON objects, but found " + _kind(value)',
        "        )",
    ]
    if fields:
        namespace["_pick"] = (
            itemgetter(*(f.name for f in fields)) if len(fields) > 1 else _one_tuple(fields[0].name)
        )
        lines += [
            "    try:",
            f"        {', '.join(f'v{f.index}' for f in fields)}, = _pick(value)",
            "    except KeyError:",
            "        return _slow(value)",
        ]
        if checks:
            lines += [f"    if not ({' and '.join(checks)}):", "        return _slow(value)"]
        lines += [
            "    try:",
            f"        values = [{', '.join(items)}]",
            "    except _DataError:",
            "        return _slow(value)",
        ]
    else:
        lines.append("    values = []")
    lines.append("    return _make(values)")
    exec(  # the source is built above from field indexes only
        compile("\n".join(lines) + "\n", f"<json decoder of {schema.name or 'struct'}>", "exec"),
        namespace,
    )
    decode: Fn = namespace["decode_struct"]
    return decode


_NONE_TYPE: Final = type(None)


class _StructFastPath:
    """The generated encoder of one struct schema: a dict display per value, no loop.

    One generated function unpacks a Struct's values, checks each one's class inline
    (``type(a) is int``; ``a is None or ...`` where the field takes a null: optional, or
    a default to write instead) and builds the JSON-ready dict with constant keys,
    converting only fields that need it (doubles, bytes, logical types, defaults, nested
    structs through their own generated encoder). So a Debezium envelope (``before`` or
    ``after`` null, nullable columns and source fields) takes it like any other value.
    Anything else (other classes, a required field holding None, a conversion that
    fails) goes to ``slow``, the field-by-field encoder, which gives the same bytes or
    the same error.
    """

    __slots__ = ("_body", "_namespace", "_schema", "values_to_json")

    def __init__(self, compiler: _Compiler, schema: Schema, slow: Callable[[list[Any]], Any]):
        fields = schema.fields
        replace_null = compiler.replace_null
        namespace: dict[str, Any] = {
            "_slow": slow,
            "_java_double": java_double,
            "_java_float": java_float,
        }
        items: list[str] = []
        checks: list[str] = []
        for i, f in enumerate(fields):
            fs = f.schema
            arg = f"a{i}"
            namespace[f"_k{i}"] = _connect_class(fs)
            check = f"type({arg}) is _k{i}"
            if fs.type in _INT_TYPES and namespace[f"_k{i}"] is int:
                # The range check the field-by-field encoder makes (Struct.put makes it
                # too, but a connector may fill a Struct's values directly).
                lo, hi = _INT_TYPES[fs.type]
                check = f"{check} and {lo} <= {arg} <= {hi}"
            if _passes_through_as_json(fs):
                expr = arg
            elif fs.type is Type.FLOAT64 and fs.name is None:
                # The class check made it a float; Python's and Java's text agree in
                # [1e-3, 1e7), so only other values take the call.
                expr = (
                    f"({arg} if 0.001 <= {arg} < 1e7 or -1e7 < {arg} <= -0.001 "
                    f"else _java_double({arg}))"
                )
            elif fs.type is Type.FLOAT32 and fs.name is None:
                expr = f"_java_float({arg})"
            elif fs.name == Decimal.LOGICAL_NAME and compiler.decimal_bytes_encoder(fs):
                namespace[f"_c{i}"] = compiler.decimal_bytes_encoder(fs)
                expr = f"_c{i}({arg})"
            else:
                namespace[f"_c{i}"] = compiler.value_encoder(fs)
                expr = f"_c{i}({arg})"
            if replace_null and fs.default is not None:
                # As the field-by-field encoder: a null is written as the default.
                namespace[f"_d{i}"] = compiler.value_encoder(fs)(fs.default)
                expr = f"(_d{i} if {arg} is None else {expr})"
                check = f"({arg} is None or ({check}))"
            elif fs.optional:
                if expr != arg:
                    expr = f"(None if {arg} is None else {expr})"
                check = f"({arg} is None or ({check}))"
            items.append(f"{f.name!r}: {expr}")
            checks.append(check)
        self._schema = schema
        self._namespace = namespace
        unpack = "".join(f"a{i}," for i in range(len(fields))) or "()"
        # The shared body of both generated functions, given ``values``.
        self._body = (
            "try:\n"
            f"    {unpack} = values\n"
            "except ValueError:\n"
            "    return _slow(values)\n"
            f"if {' and '.join(checks) or 'True'}:\n"
            "    try:\n"
            f"        return {{{', '.join(items)}}}\n"
            "    except Exception:\n"
            "        pass  # the field-by-field encoder gives the same output or the error\n"
            "return _slow(values)\n"
        )
        self.values_to_json: Callable[[list[Any]], Any] = self._generate(
            "values_to_json", "values", ""
        )

    def _generate(self, name: str, param: str, head: str, indent: str = "    ") -> Any:
        body = "".join(indent + line + "\n" for line in self._body.splitlines())
        source = f"def {name}({param}):\n{head}{body}"
        if head:
            source += "    return _general(value)\n"
        exec(
            compile(source, f"<json encoder of {self._schema.name or 'struct'}>", "exec"),
            self._namespace,
        )
        return self._namespace[name]

    def entry(self, general: Fn) -> Fn:
        """The struct encoder: the generated body inline for a Struct of this very schema;
        ``general`` (every check, any error) for anything else."""
        self._namespace.update(
            _Struct=Struct, _SCHEMA=self._schema, _general=general, _struct_values=struct_values
        )
        head = (
            "    if type(value) is _Struct and value.schema is _SCHEMA:\n"
            "        values = _struct_values(value)\n"
        )
        encode: Fn = self._generate("encode_struct", "value", head, " " * 8)
        return encode


_schema_of: Final = attrgetter("schema")
_FLAT_TYPES: Final[Mapping[Type, type]] = {
    Type.INT8: int,
    Type.INT16: int,
    Type.INT32: int,
    Type.INT64: int,
    Type.FLOAT64: float,
    Type.BOOLEAN: bool,
    Type.STRING: str,
}
_LOGICAL_NAMES: Final = frozenset(
    (Decimal.LOGICAL_NAME, Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME)
)


class StructBatchEncoder:
    """JSON text of many Structs of one flat schema, with no Python code run per record.

    For a struct whose fields are all ints, doubles, booleans or strings, the checks the
    per-record encoder makes (the Struct's schema, every value's class, doubles Java would
    write in scientific notation) run over the whole batch at once in C (``map``, list
    comparisons, ``min``/``max`` of each double column), and one generated comprehension
    builds each record's dict with constant keys and hands it to orjson. Whenever a check
    fails (a None in a required field, a double outside [1e-3, 1e7), an int in a double
    field, a value orjson refuses) :meth:`encode` returns None and the caller takes the
    exact per-record path, so the bytes are always the per-record encoder's bytes.
    """

    __slots__ = (
        "_build",
        "_double_columns",
        "_expected",
        "_int_columns",
        "_none_ok",
        "_schema",
        "_width",
    )

    def __init__(
        self,
        schema: Schema,
        build: Callable[[list[list[Any]]], list[bytes]],
        expected: list[type],
        none_ok: tuple[bool, ...],
        double_columns: tuple[int, ...],
    ) -> None:
        self._schema = schema
        self._build = build
        self._expected = expected
        self._none_ok = none_ok
        self._double_columns = double_columns
        # Each int field's index and range: a connector that fills a Struct's values
        # directly can hold an int its type cannot, which the per-record encoder refuses.
        self._int_columns = tuple(
            (f.index, *_INT_TYPES[f.schema.type])
            for f in schema.fields
            if f.schema.type in _INT_TYPES
        )
        self._width = len(expected)

    @classmethod
    def build(cls, schema: Schema) -> StructBatchEncoder | None:
        """The batch encoder of ``schema``, or None when its fields are not all flat."""
        flat = _flat_fields(schema)
        if flat is None:
            return None
        expected, none_ok = flat
        args = "".join(f"a{i}," for i in range(len(expected)))
        body = ",".join(f"{f.name!r}:a{i}" for i, f in enumerate(schema.fields))
        source = f"def build(rows):\n    return [dumps({{{body}}}) for {args} in rows]\n"
        namespace: dict[str, Any] = {"dumps": orjson.dumps}
        exec(
            compile(source, f"<json batch encoder of {schema.name or 'struct'}>", "exec"), namespace
        )
        doubles = tuple(i for i, c in enumerate(expected) if c is float)
        return cls(schema, namespace["build"], expected, tuple(none_ok), doubles)

    def encode(self, structs: list[Any]) -> list[bytes] | None:
        """orjson's text of each Struct (all of class Struct), or None: use the slow path."""
        n = len(structs)
        schema = self._schema
        if not all(map(is_, map(_schema_of, structs), repeat(schema))):
            return None
        rows: list[list[Any]] = list(map(struct_values, structs))
        flat = list(chain.from_iterable(rows))
        width = self._width
        if len(flat) != width * n:
            return None
        if not _classes_match(list(map(type, flat)), self._expected, self._none_ok, n):
            return None
        for i, lo, hi in self._int_columns:
            column = list(filter(None, flat[i::width]))  # nulls (and zeros) dropped
            if column and (min(column) < lo or max(column) > hi):
                return None
        for i in self._double_columns:
            # Zeros (and nulls) dropped: the rest must be where Python's and Java's text
            # agree; NaN fails the comparisons and so takes the exact path too.
            magnitudes = list(map(abs, filter(None, flat[i::width])))
            if magnitudes and not (min(magnitudes) >= 1e-3 and max(magnitudes) < 1e7):
                return None
        try:
            return self._build(rows)
        except (orjson.JSONEncodeError, ValueError):
            return None


_NATIVE_KINDS: Final[Mapping[Type, int]] = {
    Type.INT8: 0,
    Type.INT16: 1,
    Type.INT32: 2,
    Type.INT64: 3,
    Type.FLOAT64: 4,
    Type.BOOLEAN: 5,
    Type.STRING: 6,
}


def _native_struct_encoder(
    speedups: Any,
    schema: Schema,
    compiler: _Compiler,
    escape: Callable[[bytes], bytes],
    memo: dict[int, Any],
) -> Any:
    """A ``FlatEncoder`` writing Structs of ``schema`` as the Python encoders do, or None
    when a field is of a kind it does not write (arrays, maps, FLOAT32, Connect's logical
    types but Decimal in base64).

    Ints, doubles, booleans and strings are written in C; a nested struct by its own
    encoder (one per schema object: Debezium's ``before`` and ``after`` share it); bytes,
    and Decimals whose text is plain digits at their scale, as base64 in C too (with an
    older kconnect-speedups, and for other Decimals, by the Python function that gives
    their base64 text). A null is written
    as the field's default where the Python encoder writes the default
    (``replace.null.with.default`` and a default), as ``null`` where it writes null (an
    optional field), and anything else hands the batch back to Python.
    """
    if schema.type is not Type.STRUCT or not schema.fields:
        return None
    found = memo.get(id(schema))
    if found is not None:
        return found[1]
    native_base64 = getattr(speedups, "FIELD_KINDS", 9) >= 11  # K_BYTES and K_DECIMAL
    keys: list[bytes] = []
    kinds: list[int] = []
    nullable: list[bool] = []
    defaults: list[bytes | None] = []
    extras: list[Any] = []
    for i, f in enumerate(schema.fields):
        fs = f.schema
        keys.append((b"{" if i == 0 else b",") + escape(orjson.dumps(f.name)) + b":")
        extra: Any = None
        if fs.name == Decimal.LOGICAL_NAME:
            from_text = compiler.decimal_bytes_encoder(fs)
            if from_text is None:
                return None
            if native_base64:
                kind, extra = 10, (_decimal.Decimal, Decimal.scale_of(fs), from_text)
            else:
                kind, extra = 8, (_decimal.Decimal, from_text)
        elif fs.name in _LOGICAL_NAMES:
            return None
        elif fs.type is Type.BYTES:
            kind, extra = (9, None) if native_base64 else (8, (bytes, _b64))
        elif fs.type is Type.STRUCT:
            extra = _native_struct_encoder(speedups, fs, compiler, escape, memo)
            if extra is None:
                return None
            kind = 7
        elif fs.type in _NATIVE_KINDS:
            kind = _NATIVE_KINDS[fs.type]
        else:
            return None
        default: bytes | None = None
        if compiler.replace_null and fs.default is not None:
            try:
                default = escape(orjson.dumps(compiler.value_encoder(fs)(fs.default)))
            except (DataError, orjson.JSONEncodeError, TypeError, ValueError):
                return None
        kinds.append(kind)
        nullable.append(fs.optional)
        defaults.append(default)
        extras.append(extra)
    encoder = speedups.FlatEncoder(
        schema, tuple(keys), tuple(kinds), tuple(nullable), Struct, tuple(defaults), tuple(extras)
    )
    memo[id(schema)] = (schema, encoder)  # the schema kept alive with its id
    return encoder


def _flat_fields(schema: Schema) -> tuple[list[type], list[bool]] | None:
    """The class of each field and whether it may hold null, for a struct of flat fields."""
    if schema.type is not Type.STRUCT or not schema.fields:
        return None
    classes: list[type] = []
    none_ok: list[bool] = []
    for f in schema.fields:
        fs = f.schema
        cls_ = _FLAT_TYPES.get(fs.type)
        if cls_ is None or fs.name in _LOGICAL_NAMES:
            return None
        classes.append(cls_)
        # A null stands for itself only when there is no default to use instead.
        none_ok.append(fs.optional and fs.default is None)
    return classes, none_ok


def _classes_match(
    types: list[type], classes: list[type], none_ok: tuple[bool, ...], n: int
) -> bool:
    """Whether ``types`` (n rows of the fields' classes, flattened) fit the fields."""
    if types == classes * n:
        return True
    width = len(classes)
    for i, (cls_, nullable) in enumerate(zip(classes, none_ok, strict=True)):
        column = types[i::width]
        found = column.count(cls_)
        if found != n and not (nullable and found + column.count(_NONE_TYPE) == n):
            return False
    return True


class StructBatchDecoder:
    """Structs of one flat schema from many parsed JSON objects, checked batch-wide in C.

    The counterpart of :class:`StructBatchEncoder`: every object's field values are read
    with one ``itemgetter`` call, their classes compared with the schema's for the whole
    batch at once, the narrow ints' columns range-checked with ``min``/``max``, and a
    generated loop builds the Structs. Any other input (a missing field, an int in a
    double field, a null in a required one, a value out of range) gives None: the caller
    decodes record by record, which converts or raises as before.
    """

    __slots__ = ("_classes", "_make", "_narrow", "_none_ok", "_pick", "_width")

    def __init__(
        self,
        schema: Schema,
        classes: list[type],
        none_ok: tuple[bool, ...],
        narrow: tuple[tuple[int, int, int], ...],
    ) -> None:
        names = [f.name for f in schema.fields]
        self._width = len(names)
        self._pick: Callable[[Any], tuple[Any, ...]] = (
            itemgetter(*names) if len(names) > 1 else _one_tuple(names[0])
        )
        self._classes = classes
        self._none_ok = none_ok
        self._narrow = narrow
        # The rows' values passed the class and range checks of ``decode``.
        self._make = struct_maker(schema)

    @classmethod
    def build(cls, schema: Schema) -> StructBatchDecoder | None:
        """The batch decoder of ``schema``, or None when its fields are not all flat."""
        flat = _flat_fields(schema)
        if flat is None:
            return None
        classes, none_ok = flat
        narrow = tuple(
            (f.index, *_INT_TYPES[f.schema.type])
            for f in schema.fields
            if f.schema.type in _INT_TYPES  # INT64 too: the JSON may hold up to 2**64 - 1
        )
        return cls(schema, classes, tuple(none_ok), narrow)

    def decode(self, objects: list[Any]) -> list[Struct] | None:
        """A Struct for each parsed JSON object, or None: decode record by record."""
        n = len(objects)
        if not all(map(is_, map(type, objects), repeat(dict))):
            return None
        try:
            rows = list(map(self._pick, objects))
        except KeyError:
            return None
        flat = list(chain.from_iterable(rows))
        width = self._width
        if len(flat) != width * n:
            return None
        if not _classes_match(list(map(type, flat)), self._classes, self._none_ok, n):
            return None
        for i, lo, hi in self._narrow:
            # Nulls (and zeros, in range anyway) dropped by filter(None, ...).
            column = list(filter(None, flat[i::width]))
            if column and (min(column) < lo or max(column) > hi):
                return None
        return list(map(self._make, map(list, rows)))


def _one_tuple(name: str) -> Callable[[Any], tuple[Any, ...]]:
    def pick(d: Any) -> tuple[Any, ...]:
        return (d[name],)

    return pick


def _connect_class(schema: Schema) -> type:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return _decimal.Decimal
    if name == Date.LOGICAL_NAME:
        return _dt.date
    if name == Time.LOGICAL_NAME:
        return _dt.time
    if name == Timestamp.LOGICAL_NAME:
        return _dt.datetime
    return _CONNECT_CLASS[schema.type]


def _json_class(schema: Schema, numeric_decimals: bool) -> type:
    name = schema.name
    if name == Decimal.LOGICAL_NAME:
        return float if numeric_decimals else str
    if name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
        return int
    t = schema.type
    if t is Type.BYTES:
        return str
    if t is Type.STRUCT:
        return dict
    if t is Type.MAP:
        assert schema.key_schema is not None
        return dict if schema.key_schema.type is Type.STRING else list
    return _CONNECT_CLASS[t]


def _passes_through_as_json(schema: Schema) -> bool:
    """True when a non-null value of the schema's usual class is its own JSON form."""
    if schema.name in (
        Decimal.LOGICAL_NAME,
        Date.LOGICAL_NAME,
        Time.LOGICAL_NAME,
        Timestamp.LOGICAL_NAME,
    ):
        return False
    # Floats are rewritten too: Java writes large and small ones as 1.0E7 / 1.5E-5.
    return schema.type.is_primitive and schema.type not in (Type.BYTES, Type.FLOAT32, Type.FLOAT64)


# -- leaf encoders ---------------------------------------------------------------------
def _int_encoder(schema: Schema) -> Fn:
    lo, hi = _INT_TYPES[schema.type]

    def encode_int(value: Any) -> Any:
        if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
            raise DataError(f"Invalid type for {_type_label(schema)}: {type(value).__name__}")
        if not lo <= value <= hi:
            raise DataError(f"{value} is out of range for {_type_label(schema)}")
        return int(value)

    return encode_int


def java_double(value: float) -> Any:
    """``value`` as Java's ``Double.toString`` (and so Jackson) writes it.

    Inside [1e-3, 1e7) Python's shortest form is Java's; outside it Java uses scientific
    notation with a fraction part (``1.0E7``, ``1.5E-5``), which orjson would write as
    ``10000000.0`` or ``1.5e-05``: those few values become a raw JSON fragment.
    """
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7 or magnitude == 0.0:
        return value
    if not math.isfinite(magnitude):
        return _non_finite(value)
    return orjson.Fragment(_scientific(value))


# Jackson quotes what JSON has no number for (``QUOTE_NON_NUMERIC_NUMBERS``, on by default in
# the ObjectMapper Kafka's JsonSerializer uses): a NaN or infinite FLOAT32/FLOAT64 is written
# as the string ``Double.toString`` gives, where orjson would write ``null``.
_NAN: Final = orjson.Fragment(b'"NaN"')
_INFINITY: Final = orjson.Fragment(b'"Infinity"')
_MINUS_INFINITY: Final = orjson.Fragment(b'"-Infinity"')


_NON_FINITE_TEXT: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _non_finite(value: float) -> Any:
    if math.isnan(value):
        return _NAN
    return _INFINITY if value > 0 else _MINUS_INFINITY


def _scientific(value: float) -> bytes:
    """Java's ``d.dddEn`` form of a finite, non-zero double outside [1e-3, 1e7)."""
    return double_to_string(value).encode()


# A JSON string (kept whole) or a number token.
_STRING_OR_NUMBER: Final = re.compile(rb'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+\-]*', re.DOTALL)


# Every digit as 0, "." and "e" kept, every other byte a space: then four substring tests
# find every double orjson writes outside [1e-3, 1e7).
_SCREEN: Final = bytes(48 if 48 <= b <= 57 else b if b in b".e" else 32 for b in range(256))


def maybe_scientific(out: bytes) -> bool:
    """Whether orjson's text ``out`` may hold a double Java writes in scientific notation.

    orjson writes such a double with an exponent (``1e+20``, ``1e-7``: a digit then
    ``e``), with eight or more integer digits (``123456789.0``) or as ``0.000…``
    (``0.00001``, a number that starts with ``0.000``). Strings can hold the same bytes,
    so this is a screen (a false hit only costs the exact pass); one ``translate`` and a
    few substring tests run in C and cost a fraction of walking the value in Python.
    """
    text = out.translate(_SCREEN)
    return b"0e" in text or b"00000000." in text or b" 0.000" in text or text.startswith(b"0.000")


def _rewrite_number(match: re.Match[bytes]) -> bytes:
    token = match.group(0)
    if token[0] == 0x22 or (b"." not in token and b"e" not in token):  # a string, an int
        return token
    value = float(token)
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7 or magnitude == 0.0:
        return token
    return _scientific(value)


def java_doubles(out: bytes) -> bytes:
    """orjson's JSON text ``out`` with every double written as ``Double.toString`` does.

    For schemaless values, which orjson writes in one call with no per-value hook: inside
    [1e-3, 1e7) both write the same text, so only text that may hold a double outside that
    range is scanned again, number by number.
    """
    if not maybe_scientific(out):
        return out
    return _STRING_OR_NUMBER.sub(_rewrite_number, out)


_pack_f32 = struct.Struct("<f").pack
_unpack_f32 = struct.Struct("<f").unpack
_FLOAT32_TEXT: dict[float, Any] = {}


def java_float(value: float) -> Any:
    """``value`` as a Java ``float`` that Jackson writes with ``Float.toString``.

    The value is first rounded to float precision (a FLOAT32 holds a Java float), then
    written with the fewest digits that read back as that float: 12.34 stays ``12.34``
    even when the Python value is the float's exact double 12.340000152587890625.
    """
    found = _FLOAT32_TEXT.get(value)
    if found is not None:
        return found
    try:
        single: float = _unpack_f32(_pack_f32(value))[0]
    except OverflowError as exc:
        raise DataError(f"{value!r} is out of range for FLOAT32") from exc
    if single == 0.0:
        return single
    if not math.isfinite(single):
        return _non_finite(single)
    result = orjson.Fragment(float_to_string(single).encode())
    if len(_FLOAT32_TEXT) < 4096:  # the same readings repeat; bound the memory
        _FLOAT32_TEXT[value] = result
    return result


def _float32_encoder(schema: Schema) -> Fn:
    def encode_float32(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DataError(f"Invalid type for {_type_label(schema)}: {type(value).__name__}")
        return java_float(float(value))

    return encode_float32


def _float_encoder(schema: Schema) -> Fn:
    def encode_float(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DataError(f"Invalid type for {_type_label(schema)}: {type(value).__name__}")
        # Java writes a float or double with a fraction part (1.0), never as an integer.
        return java_double(float(value))

    return encode_float


def _exact_encoder(schema: Schema, cls: type) -> Fn:
    def encode_exact(value: Any) -> Any:
        if not isinstance(value, cls):
            raise DataError(f"Invalid type for {_type_label(schema)}: {type(value).__name__}")
        return value

    return encode_exact


def _bytes_encoder(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(value)
    raise DataError(f"Invalid type for bytes type: {type(value).__name__}")


def _logical_encoder(
    schema: Schema, cls: type, from_logical: Callable[[Schema, Any], int], label: str
) -> Fn:
    def encode_logical(value: Any) -> Any:
        if not isinstance(value, cls) or (cls is _dt.date and isinstance(value, _dt.datetime)):
            raise DataError(
                f"Invalid type for {label}, expected {cls.__module__}.{cls.__name__} but was "
                f"{type(value).__name__}"
            )
        return from_logical(schema, value)

    return encode_logical


# -- leaf decoders ---------------------------------------------------------------------
_TWO_53: Final = 2.0**53


class NeedsExactRead(Exception):
    """An integer field met a double of 2**53 or more, which may have lost digits of
    its JSON text (12345678901234567.5 parses as ...568.0, 1e19 past int64): the reader
    parses the document again keeping every digit and decodes that instead."""


def _int_decoder(schema: Schema) -> Fn:
    lo, hi = _INT_TYPES[schema.type]

    def decode_int(value: Any) -> Any:
        if type(value) is float and value.is_integer():
            if not -_TWO_53 <= value <= _TWO_53:
                raise NeedsExactRead
            value = int(value)
        elif (
            type(value) is _decimal.Decimal
            and value.adjusted() < 20  # int() of 1E+999999 would build a huge number
            and value == value.to_integral_value()
        ):
            value = int(value)
        if type(value) is not int:
            raise DataError(
                f"Invalid value for {_type_label(schema)}: expected an integral JSON number, "
                f"found {_kind(value)}"
            )
        if not lo <= value <= hi:
            raise DataError(f"{value} is out of range for {_type_label(schema)}")
        return value

    return decode_int


def _float_decoder(schema: Schema) -> Fn:
    def decode_float(value: Any) -> Any:
        if type(value) is float:
            return value
        if type(value) is int or type(value) is _decimal.Decimal:
            # float(Decimal) rounds correctly, as parsing the text as a double would.
            return float(value)
        if type(value) is str and value in _NON_FINITE_TEXT:
            # What the encoder (and Jackson) writes for a NaN or infinite double. Kafka's
            # converter reads any string in a number field as 0.0 (JsonNode.doubleValue());
            # these three read back as the value they stand for, any other string is an error.
            return _NON_FINITE_TEXT[value]
        raise DataError(
            f"Invalid value for {_type_label(schema)}: expected a JSON number, found {_kind(value)}"
        )

    return decode_float


def _float32_decoder(schema: Schema) -> Fn:
    as_double = _float_decoder(schema)

    def decode_float32(value: Any) -> Any:
        # As Jackson's floatValue(): the number rounded to float precision.
        number = as_double(value)
        try:
            return _unpack_f32(_pack_f32(number))[0]
        except OverflowError:
            return math.copysign(math.inf, number)

    return decode_float32


def _exact_decoder(schema: Schema, cls: type) -> Fn:
    def decode_exact(value: Any) -> Any:
        if type(value) is not cls:
            raise DataError(
                f"Invalid value for {_type_label(schema)}: expected a JSON {_JSON_KINDS[cls]}, "
                f"found {_kind(value)}"
            )
        return value

    return decode_exact


def _bytes_decoder(value: Any) -> Any:
    if type(value) is not str:
        raise DataError(f"Invalid value for BYTES: expected base64 text, found {_kind(value)}")
    return _unb64(value, "bytes field")


def _decimal_decoder(schema: Schema) -> Fn:
    scale = Decimal.scale_of(schema)
    exponent_text = f"E{-scale}"
    from_bytes = int.from_bytes

    def decode_decimal(value: Any) -> Any:
        if type(value) is str:
            # Decimal.to_logical with the scale read once: the unscaled two's-complement
            # int and the exponent as text (exact at any precision).
            raw = _unb64(value, "Decimal field")
            if not raw:
                # As Kafka (a BigInteger needs at least one byte): no bytes is no number.
                raise DataError("Invalid bytes for Decimal field: no bytes (empty base64 text)")
            unscaled = from_bytes(raw, "big", signed=True)
            return _decimal.Decimal(f"{unscaled}{exponent_text}")
        if type(value) is _decimal.Decimal:
            # Read exactly from the JSON text (the converter parses numbers as Decimal
            # when the schema holds one), so no digit is lost to a double.
            result = value
        elif type(value) is int:
            result = _decimal.Decimal(value)
        elif type(value) is float:
            # repr gives the shortest text that reads back as the same double.
            result = _decimal.Decimal(repr(value))
        else:
            raise DataError(
                "Invalid type for Decimal, underlying representation should be numeric or bytes "
                f"but was {_kind(value)}"
            )
        sign, digits, exponent = result.as_tuple()
        if not isinstance(exponent, int):
            raise DataError(f"Invalid Decimal value {value!r:.40}: not a finite number")
        if -exponent < scale:
            # JSON drops trailing zeros of 12.30; restore the schema's scale by appending
            # zeros (exact at any precision, unlike quantize under a 28-digit context).
            result = _decimal.Decimal((sign, digits + (0,) * (scale + exponent), -scale))
        return result

    return decode_decimal


def _int_logical_decoder(
    schema: Schema, to_logical: Callable[[Schema, int], Any], label: str, bounds: tuple[int, int]
) -> Fn:
    lo, hi = bounds

    def decode_logical(value: Any) -> Any:
        if type(value) is float and value.is_integer() and not -_TWO_53 <= value <= _TWO_53:
            raise NeedsExactRead  # an integer past 2**53 (orjson's double past 2**64)
        if type(value) is int and not lo <= value <= hi:
            # Kafka keeps the low bits (longValue); as for the other integer types, kconnect
            # refuses rather than read another instant.
            raise DataError(f"{value} is out of range for {schema.type.name} ({label})")
        if type(value) is not int:
            raise DataError(
                f"Invalid type for {label}, underlying representation should be an integer but "
                f"was {value!r:.40}"
            )
        try:
            return to_logical(schema, value)
        except (OverflowError, ValueError) as exc:
            # Java's Date reaches far wider than Python's datetime (years 1 to 9999).
            raise DataError(
                f"{label} value {value} is outside the range Python's datetime can hold "
                f"(years 1 to 9999): {exc}"
            ) from exc

    return decode_logical
