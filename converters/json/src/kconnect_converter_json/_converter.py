"""JsonConverter: Connect data as JSON, with or without Kafka's schema envelope."""

from __future__ import annotations

import decimal as _decimal
import importlib.metadata
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import contains, is_, itemgetter
from typing import Any, Final

import orjson
from kconnect_sdk import (
    ConfigDef,
    Converter,
    DataError,
    HeaderConverter,
    Headers,
    Schema,
    SchemaAndValue,
    Struct,
    Type,
    record_maker,
)

from . import _codec
from ._codec import (
    Codec,
    NeedsExactRead,
    _Compiler,
    any_non_finite,
    compile_codec,
    from_schemaless,
    has_non_finite,
    java_doubles,
    maybe_scientific,
    schemaless_default,
    schemaless_speedups,
)
from ._config import JsonConverterSettings, json_converter_config_def
from ._schema_json import schema_from_json, schema_to_json

__all__ = ["JsonConverter"]

_ENVELOPE_START: Final = b'{"schema":'
_PAYLOAD_KEY: Final = b',"payload":'
_NULL_SCHEMA_PREFIX: Final = b'{"schema":null,"payload":'
_NOT_AN_ENVELOPE: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not '
    "contain additional fields. If you are trying to deserialize plain JSON data, set "
    "schemas.enable=false in your converter configuration."
)
_SCHEMALESS_OPTIONS: Final = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_CLOSE: Final = 0x7D  # "}"
_DECODE_SLICE: Final = 64  # envelopes parsed at a time before their payloads are decoded
_NULL: Final = SchemaAndValue(None, None)
# A result per record without the NamedTuple's Python-level __new__: decoding is the hot path.
_make_sv: Final = record_maker(SchemaAndValue)
_second: Final = itemgetter(1)
_starts_with: Final = bytes.startswith
_ends_with: Final = bytes.endswith
_third: Final = itemgetter(2)
_join: Final = b"".join
# Python errors a bad input can raise deep inside conversion; each becomes a DataError.
_INPUT_ERRORS: Final = (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError)

# A JSON string (skipped as a whole) or the leading zeros of a number: Kafka's reader
# enables Jackson's ALLOW_LEADING_ZEROS_FOR_NUMBERS, so 0012 reads as 12.
_LEADING_ZEROS: Final = re.compile(rb'"(?:[^"\\]|\\.)*"|(?<![0-9.eE+\-])(-?)0+(?=[0-9])', re.DOTALL)
# An escaped backslash (kept) or a \u00xx escape, which Jackson writes in upper case.
_LOWER_ESCAPE: Final = re.compile(rb"\\(\\|u00[0-9a-f]{2})")


def _drop_leading_zeros(data: bytes) -> bytes:
    return _LEADING_ZEROS.sub(lambda m: m.group(0) if m.group(1) is None else m.group(1), data)


def _upper_escape(match: re.Match[bytes]) -> bytes:
    text = match.group(1)
    return match.group(0) if text == b"\\" else b"\\u00" + text[3:].upper()


def _java_escapes(out: bytes) -> bytes:
    """``out`` with control characters escaped as Jackson does: upper-case hex digits."""
    # 92 is the backslash: an int membership test is a memchr, far cheaper than a
    # substring search, and JSON output without a backslash has no escape at all.
    if 92 not in out:
        return out
    return _LOWER_ESCAPE.sub(_upper_escape, out)


# A character outside the Basic Multilingual Plane (four bytes in UTF-8). Jackson writes it
# as the escaped UTF-16 surrogate pair, \uD83D\uDE00, in every string of its UTF-8 output.
_SUPPLEMENTARY: Final = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


def _surrogate_escape(match: re.Match[bytes]) -> bytes:
    code = ord(match.group(0).decode("utf-8")) - 0x10000
    return b"\\u%04X\\u%04X" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def _jackson_text(out: bytes | None) -> bytes | None:
    """``out`` with supplementary characters escaped as Jackson escapes them.

    Applied to every text the converter returns, whichever path (compiled or not) wrote
    it; ASCII text, the usual case, costs one ``isascii``.
    """
    if out is None or out.isascii():
        return out
    return _SUPPLEMENTARY.sub(_surrogate_escape, out)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _surrogate_string(text: str) -> Any:
    """``text`` (holding a lone surrogate) as the JSON Jackson writes: the surrogate as a
    ``\\uXXXX`` escape, everything else as orjson writes it."""
    parts = [b'"']
    start = 0
    for match in _SURROGATE.finditer(text):
        parts.append(orjson.dumps(text[start : match.start()])[1:-1])
        parts.append(b"\\u%04X" % ord(match.group(0)))
        start = match.end()
    parts.append(orjson.dumps(text[start:])[1:-1])
    parts.append(b'"')
    return orjson.Fragment(b"".join(parts))


def _escape_surrogates(node: Any) -> Any:
    if isinstance(node, str):
        return _surrogate_string(node) if _SURROGATE.search(node) else node
    if isinstance(node, dict):
        return {k: _escape_surrogates(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_escape_surrogates(v) for v in node]
    return node


def _dumps(node: Any) -> bytes:
    """``orjson.dumps(node)``; a string holding a lone surrogate (no UTF-8 form, but a
    Java string may hold one) is written as Jackson writes it, as an escape."""
    try:
        return orjson.dumps(node)
    except orjson.JSONEncodeError as exc:
        if "surrogates" not in str(exc):
            raise
        return orjson.dumps(_escape_surrogates(node))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_EXACT_DECODER: Final = json.JSONDecoder(
    parse_float=_decimal.Decimal, parse_constant=_reject_constant
)
_FLOAT_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)
_JSON_BLANK: Final = " \t\r\n"


def _jackson_loads(data: bytes, decoder: json.JSONDecoder) -> Any:
    """The first JSON value of ``data``, read as Kafka's reader (Jackson's ``readTree``)
    reads what stricter parsers refuse.

    Jackson skips a leading UTF-8 byte order mark, accepts leading zeros (Kafka enables
    ALLOW_LEADING_ZEROS_FOR_NUMBERS), reads a number too large for a double (1e400) and a
    lone surrogate escape (Java strings may hold one), and stops after the first value
    without looking at what follows. Raises ``json.JSONDecodeError`` (a ValueError) for
    anything else, and ``UnicodeDecodeError`` for bytes that are not UTF-8.
    """
    text = _drop_leading_zeros(data).decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    start = len(text) - len(text.lstrip(_JSON_BLANK))
    if start == len(text):
        return _MISSING
    value, end = decoder.raw_decode(text, start)
    if end < len(text) and not isinstance(value, dict | list | str):
        # Jackson does check what follows a number or literal at the root: a number
        # must end at a blank (01x is an error), a literal at a non-identifier character.
        follower = text[end]
        bad = (
            follower not in _JSON_BLANK
            if value is not None and not isinstance(value, bool)
            else follower.isalnum() or follower in "$_"
        )
        if bad:
            raise json.JSONDecodeError("unexpected character after a root value", text, end)
    return value


def _exact_loads(data: bytes) -> Any:
    """Parse JSON keeping every digit of non-integral numbers (as ``decimal.Decimal``)."""
    try:
        return json.loads(data, parse_float=_decimal.Decimal, parse_constant=_reject_constant)
    except json.JSONDecodeError:
        return _jackson_loads(data, _EXACT_DECODER)


def _exact_payload(data: bytes) -> Any:
    """``_exact_loads(data)``, through the compiled parser where it reads the text (the
    same values: non-integral numbers as ``decimal.Decimal`` of their text)."""
    speedups = _codec.SPEEDUPS
    if speedups is not None:
        found = speedups.parse(data, _MISSING, _decimal.Decimal)
        if found is not _MISSING:
            return found
    return _exact_loads(data)


# Every digit as 0, every other byte a space: an integer beyond int64 (2^63 has 19 digits)
# sits in a run of 19 zeros.
_DIGITS: Final = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
_DIGIT_RUN: Final = b"0" * 19
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_TWO_64: Final = 2**64


def _may_hold_long_int(data: bytes | bytearray | memoryview) -> bool:
    """Whether JSON text may hold an integer beyond int64 (a screen: one C-level pass)."""
    return _DIGIT_RUN in bytes(data).translate(_DIGITS)


def _beyond_int64(node: Any) -> bool:
    """Whether a parsed value holds an int beyond int64 or a double of 2^63 or more, which
    orjson makes of an integer past 2^64 - 1."""
    pending = [node]
    pop, extend = pending.pop, pending.extend
    while pending:
        item = pop()
        if type(item) is int:
            if not _INT64_MIN <= item <= _INT64_MAX:
                return True
        elif type(item) is float:
            if abs(item) >= 9.223372036854775808e18:
                return True
        elif type(item) is dict:
            extend(item.values())
        elif type(item) is list:
            extend(item)
    return False


def _long_value(text: str) -> int:
    """A JSON integer as Kafka reads it without a schema: ``BigInteger.longValue``, the
    two's complement low 64 bits (2^64 is 0, 2^63 is -2^63)."""
    digits = text.lstrip("-")
    value = 0
    # In slices: int() refuses texts of more than 4300 digits.
    for start in range(0, len(digits), 4000):
        chunk = digits[start : start + 4000]
        value = (value * 10 ** len(chunk) + int(chunk)) % _TWO_64
    if text.startswith("-"):
        value = -value % _TWO_64
    return value - _TWO_64 if value > _INT64_MAX else value


_LONG_DECODER: Final = json.JSONDecoder(parse_int=_long_value, parse_constant=_reject_constant)


def _schemaless_node(data: bytes | bytearray | memoryview, node: Any) -> Any:
    """``node``, read from ``data`` by orjson or the lenient path, with every integer beyond
    int64 as Kafka reads it without a schema (its low 64 bits); the text is read again,
    exactly, only when it holds such an integer."""
    if not _may_hold_long_int(data) or not _beyond_int64(node):
        return node
    return _jackson_loads(bytes(data), _LONG_DECODER)


def _schemaless_loads(data: bytes | bytearray | memoryview) -> Any:
    """``orjson.loads(data)`` with integers beyond int64 as Kafka reads them."""
    return _schemaless_node(data, orjson.loads(data))


def _long_ints_as_kafka(
    datas: list[bytes | None], read: list[SchemaAndValue]
) -> list[SchemaAndValue]:
    """Schemaless values ``read`` by orjson from ``datas``, with integers beyond int64 as
    Kafka reads them; one screen over the batch's text first."""
    if _may_hold_long_int(b"\n".join(filter(None, datas))):
        for i, data in enumerate(datas):
            if data is not None:
                value = _schemaless_node(data, read[i][1])
                if value is not read[i][1]:
                    read[i] = SchemaAndValue(None, value)
    return read


class _Missing:
    """A document with no value at all (zero-length or blank): Jackson's MissingNode."""


_MISSING: Final = _Missing()


def _lenient_loads(data: bytes | memoryview, error: orjson.JSONDecodeError) -> Any:
    """What Kafka's reader makes of bytes orjson refused (blank, leading zeros, a byte
    order mark, huge numbers, lone surrogates, content after the value); raises
    ``error`` for anything it refuses too."""
    raw = bytes(data)
    if not raw.strip():
        return _MISSING
    try:
        return _jackson_loads(raw, _FLOAT_DECODER)
    except ValueError:  # also JSONDecodeError and UnicodeDecodeError
        raise error from None


def _schema_key(schema_node: Any) -> bytes:
    """The cache key of a parsed schema: its JSON with sorted keys."""
    try:
        # default=str: a schema read exactly holds decimal.Decimal defaults.
        return orjson.dumps(schema_node, option=orjson.OPT_SORT_KEYS, default=str)
    except orjson.JSONEncodeError:
        # A Decimal default read exactly may be an integer past 64 bits, which orjson
        # cannot write (a NUMERIC default of 2**64).
        return json.dumps(schema_node, sort_keys=True, default=str).encode()


class _LRU(OrderedDict[Any, Any]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def lookup(self, key: Any) -> Any:
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        return found

    def store(self, key: Any, value: Any) -> None:
        if self.size <= 0:
            return
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)


class _Encoding:
    """What writing one schema needs: its codec and the envelope bytes before the payload."""

    __slots__ = ("codec", "prefix", "schema")

    def __init__(self, schema: Schema, codec: Codec, prefix: bytes) -> None:
        self.schema = schema
        self.codec = codec
        self.prefix = prefix


def _non_finite_as_kafka(
    out: list[bytes], values: list[Any], non_finite: Callable[[Any], bool]
) -> list[bytes]:
    """orjson's texts ``out`` of schemaless ``values``, each value holding a NaN or an
    infinity (orjson's null) written again with Kafka's "NaN", "Infinity", "-Infinity"."""
    return [
        _dumps(from_schemaless(v)) if b"null" in o and non_finite(v) else o
        for o, v in zip(out, values, strict=True)
    ]


class JsonConverter(Converter, HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.json.JsonConverter``, byte for byte.

    With ``schemas.enable=true`` (the default) each value is written as
    ``{"schema":<schema JSON>,"payload":<value>}`` and read back with its schema; with
    ``false`` only the value is written, and reading infers a schemaless value (integers as
    int64, other numbers as float64, objects as maps, arrays as lists).
    """

    def __init__(self) -> None:
        self.settings = JsonConverterSettings()
        self._reset()

    def _reset(self) -> None:
        size = self.settings.schemas_cache_size
        self._encodings = _LRU(size)
        self._decodings = _LRU(size)
        self._last_encoding: _Encoding | None = None
        # (raw envelope prefix as read, schema, decode function) of the last schema read.
        self._last_codec: Codec | None = None  # the codec of _last_decoding
        self._last_decoding: tuple[bytes, Schema, Any, bool] = (
            b"\x00",
            Schema.STRING,
            None,
            False,
        )

    def config(self) -> ConfigDef:
        return json_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Apply ``schemas.enable``, ``schemas.cache.size``, ``decimal.format`` and
        ``replace.null.with.default``; ``is_key`` is False for header use."""
        self.is_key = is_key
        self.settings = JsonConverterSettings.parse(configs)
        self._reset()

    def version(self) -> str:
        try:
            return importlib.metadata.version("kconnect-converter-json")
        except importlib.metadata.PackageNotFoundError:
            return super().version()

    # -- schema caches ---------------------------------------------------------------
    def _encoding(self, schema: Schema) -> _Encoding:
        last = self._last_encoding
        if last is not None and last.schema is schema:
            return last
        found: _Encoding | None = self._encodings.lookup(schema)
        if found is None:
            codec = compile_codec(schema, self.settings)
            prefix = b""
            if self.settings.schemas_enable:
                # Only the envelope holds the schema (and its defaults): without it Kafka
                # never converts them, so a default it could not write is no error.
                compiler = _Compiler(self.settings)
                schema_json = _dumps(
                    schema_to_json(schema, lambda s: compiler.value_encoder(s)(s.default))
                )
                prefix = _ENVELOPE_START + _java_escapes(schema_json) + _PAYLOAD_KEY
            found = _Encoding(schema, codec, prefix)
            self._encodings.store(schema, found)
        self._last_encoding = found
        return found

    def _decoding(self, schema_node: Any) -> Codec:
        key = _schema_key(schema_node)
        found: Codec | None = self._decodings.lookup(key)
        if found is None:
            compiler = _Compiler(self.settings)
            schema = schema_from_json(schema_node, lambda s, v: compiler.value_decoder(s)(v))
            found = compile_codec(schema, self.settings)
            self._decodings.store(key, found)
        return found

    # -- Connect -> bytes ------------------------------------------------------------
    def _payload(self, schema: Schema | None, value: Any, doubles: bool = True) -> bytes:
        if schema is None:
            try:
                out = orjson.dumps(value, default=schemaless_default, option=_SCHEMALESS_OPTIONS)
                if b"null" in out and has_non_finite(value):
                    # orjson writes a NaN or an infinity as null; Kafka as "NaN", ...
                    out = _dumps(from_schemaless(value))
            except TypeError:
                # orjson refuses non-string map keys and unknown classes; the slow path
                # writes key/value pairs like Kafka, or says which value has no JSON form.
                out = _dumps(from_schemaless(value))
            # doubles=False: the caller rewrites doubles itself (a whole batch at once).
            return _java_escapes(java_doubles(out) if doubles else out)
        return _java_escapes(_dumps(self._encoding(schema).codec.encode(value)))

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialise one value; a null value without a schema is a tombstone (None)."""
        return _jackson_text(self._write(topic, schema, value, True))

    def _write(self, topic: str, schema: Schema | None, value: Any, doubles: bool) -> bytes | None:
        if schema is None and value is None:
            return None
        try:
            if schema is not None and type(value) is Struct and _codec.SPEEDUPS is not None:
                encoding = self._encoding(schema)
                native = encoding.codec.native_encoder(_java_escapes)
                if native is not None:
                    found = native.encode(
                        (value,), encoding.prefix if self.settings.schemas_enable else None
                    )
                    if found is not None:
                        return found[0]  # type: ignore[no-any-return]
            if not self.settings.schemas_enable:
                return self._payload(schema, value, doubles)
            if schema is None:
                return _NULL_SCHEMA_PREFIX + self._payload(None, value, doubles) + b"}"
            encoding = self._encoding(schema)
            payload = _java_escapes(_dumps(encoding.codec.encode(value)))
            # One copy of the (often kilobytes of) schema text, where + would make two.
            return _join((encoding.prefix, payload, b"}"))
        except DataError as exc:
            raise DataError(
                f"JsonConverter cannot write a value for topic {topic!r}: {exc}"
            ) from exc
        except orjson.JSONEncodeError as exc:
            raise DataError(
                f"Converting Kafka Connect data to byte[] failed due to serialization error "
                f"for topic {topic!r}: {exc}"
            ) from exc
        except _INPUT_ERRORS as exc:
            raise DataError(
                f"JsonConverter cannot write a value for topic {topic!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialise many ``(topic, schema, value)``; same bytes as one by one."""
        out = self._write_batch(items)
        # One C-level pass over the batch's text: the usual batch is all ASCII and needs
        # no escape added (about 2 % of writing it).
        if b"".join(filter(None, out)).isascii():
            return out
        return list(map(_jackson_text, out))

    def _write_batch(self, items: Sequence[tuple[str, Schema | None, Any]]) -> list[bytes | None]:
        if items:
            # The usual batch: one schema (or none) for every record; written whole.
            schema = items[0][1]
            compiled = schemaless_speedups() if schema is None else None
            if compiled is not None:
                # Compiled loop of orjson.dumps over schemaless values, screens included;
                # None when a value holds a NaN or an infinity (or the loop cannot go on).
                dumped = compiled.encode_schemaless(
                    items, orjson.dumps, schemaless_default, _SCHEMALESS_OPTIONS
                )
                if dumped is not None:
                    return self._schemaless_texts(dumped[0], dumped[1])
            if _codec.SPEEDUPS is not None:
                # Compiled: every check, Java's escapes and the envelope join in C; the
                # batch may hold tombstones (no schema, no value), as Debezium's does.
                first = schema
                if first is None and items[0][2] is None and len(items) > 1:
                    first = items[1][1]  # a batch that starts with a tombstone
                native = None if first is None else self._native_encoder(first)
                if native is not None and first is not None:
                    written: list[Any] | None = native.encode_items(
                        items,
                        self._encoding(first).prefix if self.settings.schemas_enable else None,
                    )
                    if written is not None:
                        return written
            if all(map(is_, map(_second, items), repeat(schema))):
                whole = self._same_schema_batch(schema, list(map(_third, items)))
                if whole is not None:
                    return whole
        out: list[bytes | None] = []
        append = out.append
        dumps = orjson.dumps
        schemas_enable = self.settings.schemas_enable
        last_schema: Schema | None = None
        prefix = b""
        encode: Any = None
        write = self._write
        schemaless: list[int] = []  # positions of schemaless values, doubles not yet Java's
        try:
            for topic, schema, value in items:
                if schema is None or schema is not last_schema:
                    if schema is None:
                        if value is not None:
                            schemaless.append(len(out))
                        append(write(topic, schema, value, False))
                        continue
                    encoding = self._encoding(schema)
                    last_schema, prefix, encode = schema, encoding.prefix, encoding.codec.encode
                out_bytes = dumps(encode(value))
                if 92 in out_bytes:  # a backslash: there may be a \u00xx escape to fix
                    out_bytes = _java_escapes(out_bytes)
                append(_join((prefix, out_bytes, b"}")) if schemas_enable else out_bytes)
        except (DataError, orjson.JSONEncodeError, *_INPUT_ERRORS):
            # Write the batch again record by record: the record one call cannot write
            # raises naming its topic, and one it can (a string with a lone surrogate)
            # takes the path that writes it.
            return [self._write(t, s, v, True) for t, s, v in items]
        if schemaless:
            # One screen over the batch's schemaless text, in C, instead of one per value;
            # only on a hit is each value's text screened and rewritten.
            joined = b"\n".join([out[i] for i in schemaless])  # type: ignore[misc]
            if maybe_scientific(joined):
                for i in schemaless:
                    out[i] = java_doubles(out[i])  # type: ignore[arg-type]
        return out

    def _native_encoder(self, schema: Schema) -> Any:
        """The compiled batch encoder of ``schema`` (a flat struct), or None."""
        try:
            encoding = self._encoding(schema)
        except (DataError, orjson.JSONEncodeError, *_INPUT_ERRORS):
            return None  # the per-record path raises it, naming the topic
        return encoding.codec.native_encoder(_java_escapes)

    def _schemaless_texts(self, out: list[bytes], flags: int) -> list[Any]:
        """orjson's texts of schemaless values, with the compiled screens' ``flags``
        (1: a double Java writes in scientific notation may be there, 2: a backslash), as
        the converter writes them."""
        if flags & 1:
            out = list(map(java_doubles, out))
        if flags & 2:
            out = list(map(_java_escapes, out))
        if self.settings.schemas_enable:
            return list(map(b"".join, zip(repeat(_NULL_SCHEMA_PREFIX), out, repeat(b"}"))))
        return out

    def _same_schema_batch(self, schema: Schema | None, values: list[Any]) -> list[Any] | None:
        """The bytes of ``values`` (all of ``schema``) when the batch can be written whole.

        None when it cannot (a tombstone, a value orjson refuses, a struct that is not flat
        or holds a double Java writes in scientific notation): the caller then writes
        record by record, which also names the record in any error.
        """
        if schema is None:
            if any(map(is_, values, repeat(None))):
                return None
            dumps, options = orjson.dumps, _SCHEMALESS_OPTIONS
            try:
                # Keywords passed in the call: a partial with keywords merges a dict per call.
                out = [dumps(v, default=schemaless_default, option=options) for v in values]
            except TypeError:  # also orjson.JSONEncodeError
                return None
            speedups = schemaless_speedups()
            if speedups is not None:
                # The screens in one compiled pass over the texts, no joined copy.
                flags = speedups.screen(out)
                if flags & 4:
                    out = _non_finite_as_kafka(out, values, speedups.has_non_finite)
                return self._schemaless_texts(out, flags)
            joined = b"\n".join(out)
            if b"null" in joined and any_non_finite(values):
                out = _non_finite_as_kafka(out, values, has_non_finite)
            if maybe_scientific(joined):
                out = list(map(java_doubles, out))
            prefix = _NULL_SCHEMA_PREFIX
        else:
            try:
                encoding = self._encoding(schema)
            except (DataError, orjson.JSONEncodeError, *_INPUT_ERRORS):
                return None  # the per-record path raises it, naming the topic
            if schema.type is not Type.STRUCT or not all(
                map(is_, map(type, values), repeat(Struct))
            ):
                return None
            found = encoding.codec.encode_structs(values)
            if found is None:
                return None
            out = found
            prefix = encoding.prefix
        if any(map(contains, out, repeat(92))):  # a backslash: maybe a \u00xx escape
            out = list(map(_java_escapes, out))
        if self.settings.schemas_enable:
            return list(map(b"".join, zip(repeat(prefix), out, repeat(b"}"))))
        return out

    # -- bytes -> Connect ------------------------------------------------------------
    def _read(self, topic: str, data: bytes) -> SchemaAndValue:
        try:
            try:
                node = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                node = _lenient_loads(data, exc)
        except orjson.JSONDecodeError as exc:
            raise DataError(
                f"Converting byte[] to Kafka Connect data failed due to serialization error for "
                f"topic {topic!r}: {exc}; check that the topic holds JSON"
            ) from exc
        if not self.settings.schemas_enable:
            # Kafka reads a zero-length (or blank) value as null when schemas are off.
            if node is _MISSING:
                return _NULL
            return SchemaAndValue(None, _schemaless_node(data, node))
        if (
            type(node) is not dict
            or len(node) != 2
            or "schema" not in node
            or "payload" not in node
        ):
            raise DataError(f"{_NOT_AN_ENVELOPE} (topic {topic!r})")
        schema_node = node["schema"]
        if schema_node is None:
            return SchemaAndValue(None, _schemaless_node(data, node)["payload"])
        try:
            try:
                codec = self._decoding(schema_node)
                if not codec.exact:
                    value = codec.decode(node["payload"])
            except NeedsExactRead:
                codec = None
            if codec is None or codec.exact:
                # Read again keeping every digit (of the payload and of the defaults):
                # the schema holds a Decimal, or an integer field met a large double.
                exact = _exact_loads(bytes(data))
                codec = self._decoding(exact["schema"])
                value = codec.decode(exact["payload"])
            prefix = _ENVELOPE_START + orjson.dumps(schema_node) + _PAYLOAD_KEY
        except DataError as exc:
            raise DataError(
                f"JsonConverter cannot read a value from topic {topic!r}: {exc}"
            ) from exc
        except _INPUT_ERRORS as exc:
            raise DataError(
                f"JsonConverter cannot read a value from topic {topic!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        # Remember the envelope's opening bytes: later records with the same schema text
        # skip parsing and rebuilding the schema.
        if data.startswith(prefix):
            self._last_decoding = (prefix, codec.schema, codec.decode, codec.exact)
            self._last_codec = codec
        return SchemaAndValue(codec.schema, value)

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialise one value; None bytes (a tombstone) give a null schema and value."""
        if data is None:
            return _NULL
        if self.settings.schemas_enable:
            prefix, schema, decode, exact = self._last_decoding
            if data.startswith(prefix) and data[-1] == _CLOSE:
                try:
                    body = memoryview(data)[len(prefix) : -1]
                    payload = _exact_payload(bytes(body)) if exact else orjson.loads(body)
                except ValueError:  # also orjson.JSONDecodeError
                    return self._read(topic, data)
                try:
                    return SchemaAndValue(schema, decode(payload))
                except NeedsExactRead:
                    return self._read(topic, data)
                except (DataError, *_INPUT_ERRORS) as exc:
                    raise DataError(
                        f"JsonConverter cannot read a value from topic {topic!r}: {exc}"
                    ) from exc
        return self._read(topic, data)

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        """Deserialise many ``(topic, data)``; same results as one by one."""
        loads = orjson.loads
        if not self.settings.schemas_enable:
            speedups = schemaless_speedups()
            if speedups is not None:
                try:
                    # One compiled loop: loads and the SchemaAndValue per record, tombstones
                    # included; a record orjson refuses takes the paths below.
                    found: list[SchemaAndValue] = speedups.decode_schemaless(
                        items, loads, SchemaAndValue, _NULL, _schemaless_loads
                    )
                    return found
                except orjson.JSONDecodeError:
                    pass
            datas = list(map(_second, items))
            try:
                # All in C: no Python code per record (a tombstone makes loads raise).
                values = list(map(_make_sv, zip(repeat(None), map(loads, datas))))
                return _long_ints_as_kafka(datas, values)
            except orjson.JSONDecodeError:
                pass
            try:
                values = [
                    _NULL if data is None else _make_sv((None, loads(data))) for data in datas
                ]
                return _long_ints_as_kafka(datas, values)
            except orjson.JSONDecodeError:
                return [self.to_connect_data(topic, data) for topic, data in items]
        whole = self._read_whole_batch(items)
        if whole is not None:
            return whole
        out: list[SchemaAndValue] = []
        append = out.append
        read = self.to_connect_data
        for topic, data in items:
            prefix, schema, decode, exact = self._last_decoding
            if not exact and data is not None and data.startswith(prefix) and data[-1] == _CLOSE:
                try:
                    payload = loads(memoryview(data)[len(prefix) : -1])
                    append(_make_sv((schema, decode(payload))))
                    continue
                except (
                    DataError,
                    NeedsExactRead,
                    *_INPUT_ERRORS,
                ):  # JSONDecodeError is a ValueError
                    pass
            append(read(topic, data))
        return out

    def _read_whole_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[Any] | None:
        """The batch's values when every record has the envelope of the last schema read
        and a flat struct payload, or (with kconnect-speedups) any payload; None otherwise
        (then record by record, as before, which also names a failing record)."""
        codec = self._last_codec
        if codec is None or not items:
            return None
        speedups = _codec.SPEEDUPS
        decoder = None if codec.exact else codec.batch_decoder()
        if decoder is None and speedups is None:
            return None
        prefix = self._last_decoding[0]
        datas = list(map(_second, items))
        if speedups is not None:
            # The same checks and reads in one compiled loop, payloads read in place;
            # exactly (Decimal for non-integral numbers) where the schema holds a Decimal.
            loads, parse_float = (
                (_exact_loads, _decimal.Decimal) if codec.exact else (orjson.loads, None)
            )
            if decoder is not None:
                payloads = speedups.read_payloads(datas, prefix, loads, parse_float)
                structs = None if payloads is None else decoder.decode(payloads)
                if structs is not None:
                    return list(map(_make_sv, zip(repeat(codec.schema), structs)))
            # Other payloads (nested structs, a null, exact numbers; tombstones between
            # them, as in Debezium's topics) through the codec's decoder, a slice at a
            # time: a whole batch of parsed payloads alive at once made the collector's
            # passes during decoding cost more than the batch saved.
            out: list[SchemaAndValue] = []
            decode, schema = codec.decode, codec.schema
            for start in range(0, len(datas), _DECODE_SLICE):
                payloads = speedups.read_payloads(
                    datas[start : start + _DECODE_SLICE], prefix, loads, parse_float, _MISSING
                )
                if payloads is None:
                    return None
                try:
                    out += [
                        _NULL if p is _MISSING else _make_sv((schema, decode(p))) for p in payloads
                    ]
                except (DataError, NeedsExactRead, *_INPUT_ERRORS):
                    return None
            return out
        assert decoder is not None
        try:
            if not (
                all(map(_starts_with, datas, repeat(prefix)))
                and all(map(_ends_with, datas, repeat(b"}")))
            ):
                return None
            payloads = list(map(orjson.loads, map(itemgetter(slice(len(prefix), -1)), datas)))
        except (TypeError, ValueError):  # a tombstone, a bytearray; JSONDecodeError
            return None
        structs = decoder.decode(payloads)
        if structs is None:
            return None
        return list(map(_make_sv, zip(repeat(codec.schema), structs)))

    # -- headers ---------------------------------------------------------------------
    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def close(self) -> None:
        """Drop the schema caches."""
        self._reset()
