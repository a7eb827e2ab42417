"""StringConverter: text in a configurable character encoding."""

from __future__ import annotations

import codecs
import functools
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any, Final, Literal

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Headers,
    Importance,
    Schema,
    SchemaAndValue,
    record_maker,
)

from ._base import KeyValueHeaderConverter
from ._java_text import java_text

__all__ = ["StringConverter"]

ENCODING_CONFIG: Final = "converter.encoding"
ENCODING_DEFAULT: Final = "UTF-8"


_data_of: Final = itemgetter(1)  # (topic, data) -> data
_value_of: Final = itemgetter(2)  # (topic, schema, value) -> value
# Results made in C, without the NamedTuple's Python-level __new__ per record.
_make_sv: Final = record_maker(SchemaAndValue)


def _utf8_encode(text: str) -> bytes:
    return text.encode()


def _utf8_decode(data: bytes) -> str:
    return data.decode()


def _check_encoding(name: str, value: Any) -> None:
    try:
        codecs.lookup(str(value))
    except LookupError:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: unknown character encoding; "
            "use a name such as UTF-8, UTF-16 or ISO-8859-1",
            name=name,
            value=value,
        ) from None


def _java_utf16_encode(text: str, errors: str = "strict") -> bytes:
    # Java's "UTF-16" charset writes a big-endian byte order mark and big-endian units;
    # Python's "utf-16" would use the machine's byte order. No text, no mark.
    if not text:
        return b""
    return b"\xfe\xff" + text.encode("utf-16-be", errors)


def _java_utf16_decode(data: bytes) -> str:
    if data[:2] in (b"\xfe\xff", b"\xff\xfe"):
        return data.decode("utf-16")
    return data.decode("utf-16-be")


def _java_utf16_replace(data: bytes, encoding: str) -> str:
    """Malformed UTF-16 as Java's decoder reads it, each malformed sequence as one U+FFFD.

    Java differs from Python's "replace" where a high surrogate is followed by a unit that
    is not a low surrogate: Java drops both units (one sequence of four bytes), Python only
    the surrogate. A high surrogate with fewer than two bytes after it, and a last odd
    byte, are one malformed sequence each.
    """
    little = encoding == "utf-16-le"
    start = 0
    if encoding == "utf-16":  # a byte order mark chooses the order; big-endian without one
        if data[:2] == b"\xfe\xff":
            start = 2
        elif data[:2] == b"\xff\xfe":
            start, little = 2, True
    order: Literal["little", "big"] = "little" if little else "big"
    out: list[str] = []
    i, end = start, len(data)
    while end - i >= 2:
        unit = int.from_bytes(data[i : i + 2], order)
        if 0xD800 <= unit <= 0xDBFF:
            if end - i < 4:
                break  # the rest is one malformed sequence
            low = int.from_bytes(data[i + 2 : i + 4], order)
            if 0xDC00 <= low <= 0xDFFF:
                out.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
            else:
                out.append("\ufffd")
            i += 4
        elif 0xDC00 <= unit <= 0xDFFF:
            out.append("\ufffd")
            i += 2
        else:
            out.append(chr(unit))
            i += 2
    if i < end:
        out.append("\ufffd")
    return "".join(out)


class StringConverter(KeyValueHeaderConverter):
    """Strings as encoded text (Kafka's ``org.apache.kafka.connect.storage.StringConverter``).

    Writing converts any non-null value to text as Kafka's ``toString()`` does (numbers,
    booleans, lists, maps, Structs and dates as Java writes them) and encodes it; reading
    decodes the bytes and always reports an optional string schema. As Java's charsets,
    a character the encoding cannot hold is written as its replacement (``?``), and bytes
    that are not valid in the encoding read as U+FFFD.
    """

    deterministic = True  # as a header converter: a header's text depends on its bytes alone

    def __init__(self) -> None:
        self.encoding = "utf-8"
        self._encoder: Callable[[str], bytes] = _utf8_encode
        self._decoder: Callable[[bytes], str] = _utf8_decode

    def config(self) -> ConfigDef:
        return ConfigDef().define(
            ENCODING_CONFIG,
            ConfigType.STRING,
            ENCODING_DEFAULT,
            _check_encoding,
            importance=Importance.HIGH,
            documentation="The name of the character encoding used to convert between strings "
            "and bytes.",
        )

    def _configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self.config().parse(configs)
        self.encoding = codecs.lookup(parsed[ENCODING_CONFIG]).name
        if self.encoding == "utf-16":
            self._encoder, self._decoder = _java_utf16_encode, _java_utf16_decode
        elif self.encoding == "utf-8":
            self._encoder, self._decoder = _utf8_encode, _utf8_decode  # batch fast paths
        else:
            encoding = self.encoding
            self._encoder = functools.partial(str.encode, encoding=encoding)
            self._decoder = functools.partial(bytes.decode, encoding=encoding)

    def _encode(self, value: Any, schema: Schema | None = None) -> bytes:
        text = java_text(value, schema)
        try:
            return self._encoder(text)
        except UnicodeEncodeError:
            # As Java's String.getBytes: what the charset cannot hold becomes "?".
            if self.encoding == "utf-16":
                return _java_utf16_encode(text, "replace")
            return text.encode(self.encoding, "replace")

    def _decode(self, topic: str, data: bytes) -> str:
        try:
            return self._decoder(data)
        except UnicodeDecodeError:
            # As Java's new String(bytes, charset): malformed input reads as U+FFFD.
            if self.encoding in ("utf-16", "utf-16-le", "utf-16-be"):
                return _java_utf16_replace(data, self.encoding)
            return data.decode(self.encoding, "replace")

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        return None if value is None else self._encode(value, schema)

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(Schema.OPTIONAL_STRING, None)
        return SchemaAndValue(Schema.OPTIONAL_STRING, self._decode(topic, data))

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        encode = self._encoder
        if encode is _utf8_encode:
            # The usual batch (UTF-8, every value a str): one C-level pass, no Python call
            # per record.
            values = list(map(_value_of, items))
            if set(map(type, values)) == {str}:
                try:
                    return list(map(str.encode, values))
                except UnicodeEncodeError:
                    pass  # redone below, one by one, so the error names the value
        try:
            return [
                None
                if value is None
                else encode(value if value.__class__ is str else java_text(value, schema))
                for _, schema, value in items
            ]
        except UnicodeEncodeError:
            # Redo one by one so the error names the value at fault.
            return [self.from_connect_data(t, s, v) for t, s, v in items]

    def from_connect_columns(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        count = len(values)
        if self._encoder is _utf8_encode and set(map(type, values)) == {str}:
            try:
                return list(map(str.encode, values))  # one C-level pass, no item per value
            except UnicodeEncodeError:
                pass  # redone below, one by one, so the error names the value
        # Counted only now: counting None among strings costs a failed comparison each.
        if values.count(None) == count:
            return [None] * count
        return self.from_connect_batch(list(zip(repeat(topic), repeat(schema), values)))

    def to_connect_columns(
        self, topic: str, datas: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        count = len(datas)
        schemas = [Schema.OPTIONAL_STRING] * count
        data: Sequence[Any] = datas
        if self._decoder is _utf8_decode:
            # The usual batch: one C-level pass, no Python call and no pair per record. Tried
            # before counting nulls: a None (a tombstone, a keyless record) stops it at once,
            # and counting None among bytes costs a failed comparison per item.
            try:
                return schemas, list(map(bytes.decode, data))
            except (UnicodeDecodeError, TypeError):
                pass  # not all bytes, or not UTF-8: the general way below says which
        if data.count(None) == count:
            return schemas, [None] * count
        results = self.to_connect_batch(list(zip(repeat(topic), datas)))
        return schemas, [r.value for r in results]

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        schema = Schema.OPTIONAL_STRING
        decode = self._decoder
        datas = list(map(_data_of, items))
        nulls = datas.count(None)
        if nulls == len(datas):
            # e.g. the keys of records written without one: one (immutable) result for all.
            return [SchemaAndValue(schema, None)] * nulls
        if not nulls and decode is _utf8_decode:
            # The usual batch: decoded and paired in C-level passes, no Python call per record.
            try:
                texts = list(map(bytes.decode, datas))
            except (UnicodeDecodeError, TypeError):
                pass  # not all bytes, or not UTF-8: the general way below says which
            else:
                return list(map(_make_sv, zip(repeat(schema), texts)))
        try:
            return [
                SchemaAndValue(schema, None if data is None else decode(data)) for _, data in items
            ]
        except UnicodeDecodeError:
            return [self.to_connect_data(t, d) for t, d in items]
