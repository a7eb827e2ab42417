"""Values: parse strings into Connect data, format Connect data as strings, and coerce values.

Mirrors Kafka Connect's ``org.apache.kafka.connect.data.Values``, which the simple header
converter and the InsertHeader transform rely on. Python values stand for Connect values
as elsewhere in the SDK: ``int`` for the integer types, ``float``, ``bool``, ``str``,
``bytes``, ``list``, ``dict``, :class:`Struct`, and ``decimal.Decimal``,
``datetime.date``, ``datetime.time`` and ``datetime.datetime`` for the logical types.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
import math
import re
import struct as _struct
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ._errors import DataError
from ._java import EPOCH_DATE, EPOCH_ORDINAL, MILLIS_PER_DAY, double_to_string, float_to_string
from ._java_time import (
    GREGORIAN_CUTOVER_DAY,
    gregorian_epoch_day,
    java_calendar_date,
    julian_epoch_day,
)
from ._logical import Date, Decimal, Time, Timestamp
from ._schema import _INT_RANGES, Schema, SchemaAndValue, SchemaBuilder, Type
from ._struct import Struct

__all__ = ["Values"]

_TEMPORAL_NAMES: Final = frozenset({Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME})
_DELIMITERS: Final = frozenset(':,{}[]"')
_NUMBER_RE: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# Java's String.trim() removes the characters up to U+0020 and nothing else (Python's strip
# would also take U+2028, U+00A0 and the other Unicode spaces).
_JAVA_BLANK: Final = "".join(map(chr, range(0x21)))
_NUMERIC_ORDER: Final = (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64)

_NULL_REQUIRED: Final = "Unable to convert a null value to a schema that requires a value"
_ARRAY_TARGET: Final = SchemaBuilder.array(Schema.STRING).optional().build()
_MAP_TARGET: Final = SchemaBuilder.map(Schema.STRING, Schema.STRING).optional().build()
_STRUCT_TARGET: Final = SchemaBuilder.struct().optional().build()


class _Parser:
    """Kafka's ``Values.Parser``: splits text at unescaped ``: , { } [ ] "`` (each delimiter
    a token of its own), one token at a time, with a peeked token and marks to rewind to."""

    def __init__(self, original: str) -> None:
        self.original = original
        self.index = 0
        self.peeked: str | None = None

    def mark(self) -> int:
        return self.index - (len(self.peeked) if self.peeked is not None else 0)

    def rewind_to(self, position: int) -> None:
        self.index = position
        self.peeked = None

    def has_next(self) -> bool:
        return self.peeked is not None or self.index < len(self.original)

    def next(self) -> str:
        if self.peeked is not None:
            token, self.peeked = self.peeked, None
            return token
        return self._consume()

    def next_tokens(self, n: int) -> str | None:
        """The text of the next ``n`` tokens, or None (and nothing consumed) when fewer."""
        start = self.mark()
        for _ in range(n):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[start : self.index]

    def _consume(self) -> str:
        text, start = self.original, self.index
        escaped = False
        for i in range(start, len(text)):
            c = text[i]
            if c == "\\":
                escaped = not escaped
            elif c in _DELIMITERS and not escaped:
                if start < i:
                    self.index = i
                    return text[start:i]
                self.index = i + 1
                return c
            else:
                escaped = False
        self.index = len(text)
        return text[start:]

    def can_consume(self, expected: str) -> bool:
        """Whether the next token not blank is ``expected`` (blanks at its ends aside);
        consumed if so, else left peeked."""
        if self.peeked is None:
            if not self.has_next():
                return False
            self.peeked = self._consume()
        while not self.peeked.strip(_JAVA_BLANK) and self.index < len(self.original):
            self.peeked = self._consume()
        if self.peeked.strip(_JAVA_BLANK) == expected:
            self.peeked = None
            return True
        return False


class _Mixed:
    """Marks a container whose elements have no common schema."""


_MIXED: Final = _Mixed()


def _optional(schema: Schema) -> Schema:
    return schema if schema.optional else schema.replace(optional=True)


def _common_schema(
    previous: Schema | _Mixed | None, latest: Schema | None
) -> Schema | _Mixed | None:
    """The schema both elements fit, as Kafka's ``Values.mergeSchemas``; _MIXED when none.

    Nulls (``latest`` None) leave the common schema as it is. Numbers widen along INT8 <
    INT16 < INT32 < INT64 < FLOAT32 < FLOAT64; two schemas of one type merge to the later
    one (the optional one when only one is); anything else has no common schema.
    """
    if latest is None or isinstance(previous, _Mixed):
        return previous
    if previous is None:
        return latest
    if previous.type is not latest.type:
        if previous.type in _NUMERIC_ORDER and latest.type in _NUMERIC_ORDER:
            wider = max(previous.type, latest.type, key=_NUMERIC_ORDER.index)
            return previous if previous.type is wider else latest
        return _MIXED
    if previous.optional == latest.optional:
        return previous if previous.optional else latest
    return previous if previous == latest else _MIXED


def _to_float32(value: float) -> float:
    try:
        single: float = _struct.unpack("<f", _struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return single


def _float32_same(a: float, b: float) -> bool:
    try:
        return _struct.pack("<f", a) == _struct.pack("<f", b)
    except OverflowError:
        return False


def _float32_exact(value: float) -> bool:
    try:
        return bool(_struct.unpack("<f", _struct.pack("<f", value))[0] == value)
    except OverflowError:
        return False


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


# The numeric fields and literals of Kafka's three ISO 8601 patterns, as SimpleDateFormat
# reads them: yyyy-MM-dd, HH:mm:ss.SSS'Z' and yyyy-MM-dd'T'HH:mm:ss.SSS'Z'.
_DATE_FIELDS: Final = ("y", "-", "M", "-", "d")
_TIME_FIELDS: Final = ("H", ":", "m", ":", "s", ".", "S", "Z")
_TEMPORAL_PATTERNS: Final = {
    10: (Date.SCHEMA, _DATE_FIELDS),
    13: (Time.SCHEMA, _TIME_FIELDS),
    24: (Timestamp.SCHEMA, (*_DATE_FIELDS, "T", *_TIME_FIELDS)),
}
_FIELD_DIGITS: Final = re.compile(r"\d{1,9}")


def _parse_temporal(text: str) -> SchemaAndValue | None:
    """A date, time or timestamp as Kafka's ``parseAsTemporal`` reads it: picked by the
    text's length, then read by a lenient ``SimpleDateFormat`` in UTC (2020-13-01 is
    2021-01-01, digits may be fewer or more than the pattern's, text after the pattern is
    ignored, days before 1582-10-15 are Julian). None when the pattern does not match or
    the result is outside what Python's types hold."""
    text = text.replace("\\:", ":")
    found = _TEMPORAL_PATTERNS.get(_utf16_length(text))
    if found is None:
        return None
    schema, fields = found
    values = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
    pos = 0
    for field in fields:
        if field in values:
            match = _FIELD_DIGITS.match(text, pos)
            if match is None or (match.end() < len(text) and text[match.end()].isdecimal()):
                return None
            values[field] = int(match.group())
            pos = match.end()
        elif text.startswith(field, pos):
            pos += 1
        else:
            return None
    millis_of_day = ((values["H"] * 60 + values["m"]) * 60 + values["s"]) * 1000 + values["S"]
    extra_days, millis_of_day = divmod(millis_of_day, MILLIS_PER_DAY)
    year = values["y"]
    # Lenient: a month past December moves the year, a day past the month's end the month.
    month_year, month = year + (values["M"] - 1) // 12, (values["M"] - 1) % 12 + 1
    days = values["d"] - 1 + extra_days
    gregorian = gregorian_epoch_day(month_year, month, 1) + days
    # GregorianCalendar's choice: the Gregorian date from 1582 on when it falls on or after
    # the cutover, else the Julian one.
    epoch_day = (
        gregorian
        if year >= 1582 and gregorian >= GREGORIAN_CUTOVER_DAY
        else (julian_epoch_day(month_year, month, 1) + days)
    )
    if not 1 <= epoch_day + EPOCH_ORDINAL <= _dt.date.max.toordinal():
        return None
    if schema is Date.SCHEMA:
        return SchemaAndValue(schema, _dt.date.fromordinal(epoch_day + EPOCH_ORDINAL))
    millis = epoch_day * MILLIS_PER_DAY + millis_of_day
    if schema is Time.SCHEMA:
        if not 0 <= millis < MILLIS_PER_DAY:
            return None  # a java.util.Date a Python time cannot stand for
        return SchemaAndValue(schema, Time.to_logical(schema, millis))
    return SchemaAndValue(schema, Timestamp.to_logical(schema, millis))


def _parse_number(token: str) -> SchemaAndValue | None:
    if not _NUMBER_RE.fullmatch(token):
        return None
    try:
        number = _decimal.Decimal(token)
    except ArithmeticError:  # an exponent past what decimal holds
        return None
    exponent = number.as_tuple().exponent
    assert isinstance(exponent, int)
    if not -(2**31) < exponent < 2**31:
        return None  # BigDecimal's scale is an int: a NumberFormatException in Kafka
    # Guard the integral test: int() of 1e999999 would build a huge integer for nothing.
    if number.adjusted() < 20 and number == number.to_integral_value():
        whole = int(number)
        for type_ in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            lo, hi = _INT_RANGES[type_]
            if lo <= whole <= hi:
                return SchemaAndValue(Schema(type_), whole)
    if exponent != 0:
        # As Kafka: FLOAT32 whenever the number is finite as a float (rounded to float
        # precision, as BigDecimal.floatValue), else FLOAT64 when finite as a double.
        as_float = float(number)
        if math.isfinite(as_float):
            try:
                single = _struct.unpack("<f", _struct.pack("<f", as_float))[0]
            except OverflowError:
                return SchemaAndValue(Schema.FLOAT64, as_float)
            return SchemaAndValue(Schema.FLOAT32, single)
    return SchemaAndValue(Decimal.schema(-exponent), number)


_TRUE: Final = SchemaAndValue(Schema.BOOLEAN, True)
_FALSE: Final = SchemaAndValue(Schema.BOOLEAN, False)

_find_delimiter: Final = re.compile(r'[:,{}\[\]"]').search
_LITERALS: Final = frozenset({"null", "true", "false"})


def _is_plain_string(text: str) -> bool:
    """Whether ``parse_string`` can read ``text`` as nothing but itself, a STRING.

    Most header values are a word (``bench``, an id, a host name). Without a delimiter the
    parser sees a single token, and a single token that is not ``null``, ``true`` or
    ``false`` once trimmed and starts with neither a digit nor a sign is the whole text
    as a STRING: the parser would try the literals, then an array or a map, then find
    it is no number and no date. Answering here skips the tokenizer for the usual header;
    anything else goes the full way.
    """
    if _find_delimiter(text) is not None:
        return False
    token = text.strip(_JAVA_BLANK)
    if not token:
        return True  # blank: the parser's blank token is the text itself
    first = token[0]
    return not (first.isdecimal() or first in "+-" or token in _LITERALS)


class _ValueParser:
    """Kafka 4.1's ``Values.ValueParser``: reads one value from the start of the text.

    At the top level what follows a value is ignored (``1,2`` is 1, ``[1] x`` the array)
    unless the value is a single-token literal (``true}`` is a string); a text that is no
    value is the whole text as a STRING. Inside arrays and maps strings may be quoted;
    their content is kept as written between the quotes (escapes included).
    """

    def __init__(self, text: str) -> None:
        self.parser = _Parser(text)

    def _single_token_literal(self, embedded: bool, literal: str) -> bool:
        parser = self.parser
        start = parser.mark()
        if parser.can_consume(literal) and (embedded or not parser.has_next()):
            return True
        parser.rewind_to(start)
        return False

    def parse(self, embedded: bool) -> SchemaAndValue | None:
        """The next value; None for the ``null`` literal or no token at all."""
        parser = self.parser
        if not parser.has_next():
            return None
        if embedded and parser.can_consume('"'):
            return self._quoted_string()
        if self._single_token_literal(embedded, "null"):
            return None
        if self._single_token_literal(embedded, "true"):
            return _TRUE
        if self._single_token_literal(embedded, "false"):
            return _FALSE
        start = parser.mark()
        try:
            if parser.can_consume("["):
                return self._array()
            if parser.can_consume("{"):
                return self._map()
        except (DataError, TypeError):  # TypeError: a list or map used as a map key
            parser.rewind_to(start)
        token = parser.next()
        if not token.strip(_JAVA_BLANK):
            return SchemaAndValue(Schema.STRING, token)
        return self._next_token(embedded, token.strip(_JAVA_BLANK))

    def _next_token(self, embedded: bool, token: str) -> SchemaAndValue:
        first_is_digit = token[0].isdecimal()
        if first_is_digit:
            temporal = self._temporal_tokens(token)
            if temporal is not None:
                return temporal
        if first_is_digit or token[0] in "+-":
            number = _parse_number(token)
            if number is not None:
                return number
        if embedded:
            raise DataError(f"cannot parse {token!r} as an embedded value")
        return SchemaAndValue(Schema.STRING, self.parser.original)

    def _temporal_tokens(self, token: str) -> SchemaAndValue | None:
        # An unescaped colon is a delimiter, so a time or timestamp arrives as five tokens.
        parser = self.parser
        position = parser.mark()
        rest = parser.next_tokens(4)
        if rest is not None:
            temporal = _parse_temporal(token + rest)
            if temporal is not None:
                return temporal
        parser.rewind_to(position)
        return _parse_temporal(token)

    def _quoted_string(self) -> SchemaAndValue:
        parser = self.parser
        parts: list[str] = []
        while parser.has_next():
            if parser.can_consume('"'):
                break
            parts.append(parser.next())
        content = "".join(parts)
        temporal = _parse_temporal(content)
        return temporal if temporal is not None else SchemaAndValue(Schema.STRING, content)

    def _array(self) -> SchemaAndValue:
        parser = self.parser
        text = parser.original
        values: list[Any] = []
        element_schema: Schema | _Mixed | None = None
        while parser.has_next():
            if parser.can_consume("]"):
                return _typed_list(values, element_schema)
            if parser.can_consume(","):
                raise DataError(f"empty array element in {text!r}")
            element = self.parse(embedded=True)
            element_schema = _common_schema(element_schema, element.schema if element else None)
            values.append(element.value if element else None)
            current = parser.mark()
            if parser.can_consume("]"):
                parser.rewind_to(current)
            elif not parser.can_consume(","):
                raise DataError(f"array elements missing ',' delimiter in {text!r}")
        raise DataError(f"array is missing its terminating ']' in {text!r}")

    def _map(self) -> SchemaAndValue:
        parser = self.parser
        text = parser.original
        result: dict[Any, Any] = {}
        key_schema: Schema | _Mixed | None = None
        value_schema: Schema | _Mixed | None = None
        while parser.has_next():
            if parser.can_consume("}"):
                # As Kafka: a MAP schema always; key and value schemas only when common.
                if not isinstance(key_schema, Schema):
                    return SchemaAndValue(Schema._untyped(Type.MAP), result)
                if not isinstance(value_schema, Schema):
                    keyed = {_align(key_schema, k): v for k, v in result.items()}
                    return SchemaAndValue(Schema._untyped(Type.MAP, key_schema=key_schema), keyed)
                aligned = {
                    _align(key_schema, k): _align(value_schema, v) for k, v in result.items()
                }
                return SchemaAndValue(SchemaBuilder.map(key_schema, value_schema).build(), aligned)
            if parser.can_consume(","):
                raise DataError(f"map entry with no key or value in {text!r}")
            key = self.parse(embedded=True)
            if key is None or key.value is None:
                raise DataError(f"map entry may not have a null key in {text!r}")
            if not parser.can_consume(":"):
                raise DataError(f"map entry is missing ':' in {text!r}")
            value = self.parse(embedded=True)
            result[key.value] = value.value if value else None
            parser.can_consume(",")
            key_schema = _common_schema(key_schema, key.schema)
            value_schema = _common_schema(value_schema, value.schema if value else None)
        raise DataError(f"map is missing its terminating '}}' in {text!r}")


def _typed_list(values: list[Any], element_schema: Schema | _Mixed | None) -> SchemaAndValue:
    # As Kafka: an empty, all-null or mixed array has an ARRAY schema without an element
    # schema; otherwise every element is aligned with the common one (a null among
    # values of a required schema fails, so the text stays a string).
    if not isinstance(element_schema, Schema):
        return SchemaAndValue(Schema._untyped(Type.ARRAY), values)
    aligned = [_align(element_schema, v) for v in values]
    return SchemaAndValue(SchemaBuilder.array(element_schema).build(), aligned)


def _align(schema: Schema, value: Any) -> Any:
    """``value`` as Kafka's ``Values.convertTo(schema, null, value)`` makes it fit the
    common schema of its array or map: numbers widened (to float precision for FLOAT32),
    numbers under a Date, Time or Timestamp schema read as days or milliseconds, temporal
    values kept under a temporal schema and refused under a plain number's (then the whole
    text is a string)."""
    if value is None:
        if schema.optional:
            return None
        raise DataError("Unable to convert a null value to a schema that requires a value")
    name, type_ = schema.name, schema.type
    if isinstance(value, _dt.date | _dt.time):  # a java.util.Date in Kafka
        if name == Timestamp.LOGICAL_NAME and not isinstance(value, _dt.datetime):
            # The same instant as a Timestamp: a Date's midnight, a Time's on 1970-01-01.
            if isinstance(value, _dt.time):
                return _dt.datetime.combine(EPOCH_DATE, value.replace(tzinfo=_dt.UTC))
            return _dt.datetime(value.year, value.month, value.day, tzinfo=_dt.UTC)
        if name not in _TEMPORAL_NAMES and type_ in _NUMERIC_ORDER:
            raise DataError(f"Unable to convert {value} to a number")
        return value
    if type_ not in _NUMERIC_ORDER:
        return value
    try:
        if name == Date.LOGICAL_NAME:
            return Date.to_logical(schema, value)
        if name == Time.LOGICAL_NAME:
            return Time.to_logical(schema, value)
        if name == Timestamp.LOGICAL_NAME:
            return Timestamp.to_logical(schema, value)
    except OverflowError as exc:  # beyond the years Python's dates hold
        raise DataError(f"Unable to convert {value} to {name}: {exc}") from exc
    if type_ is Type.FLOAT32:
        # (float) of the double, as Kafka's convertToFloat: an INT64 of 10^16 becomes
        # 1.0000000272564224E16.
        return _to_float32(float(value))
    if type_ is Type.FLOAT64:
        return float(value)
    return value


# -- formatting --------------------------------------------------------------------------


def _java_float(value: float, float32: bool) -> str:
    """``Float.toString`` for a FLOAT32 value that is a float, else ``Double.toString``."""
    if float32 and _float32_exact(value):
        return float_to_string(value)
    return double_to_string(value)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _utc(value: _dt.datetime) -> _dt.datetime:
    return value.replace(tzinfo=_dt.UTC) if value.tzinfo is None else value.astimezone(_dt.UTC)


def _format_date(value: _dt.date) -> str:
    """yyyy-MM-dd as SimpleDateFormat writes it: days before 1582-10-15 in the Julian
    calendar."""
    year, month, day = java_calendar_date(value.toordinal() - EPOCH_ORDINAL)
    return f"{year:04d}-{month:02d}-{day:02d}"


def _format_time(value: _dt.time) -> str:
    return (
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}.{value.microsecond // 1000:03d}Z"
    )


def _append(out: list[str], schema: Schema | None, value: Any, embedded: bool) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(_java_float(value, schema is not None and schema.type is Type.FLOAT32))
    elif isinstance(value, _decimal.Decimal):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(f'"{_escape(value)}"' if embedded else value)
    elif isinstance(value, bytes | bytearray | memoryview):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, _dt.datetime):
        stamp = _utc(value)
        out.append(f"{_format_date(stamp)}T{_format_time(stamp.time())}")
    elif isinstance(value, _dt.date):
        out.append(_format_date(value))
    elif isinstance(value, _dt.time):
        if value.utcoffset():
            raise DataError(f"cannot format time {value}: Connect Time values must be in UTC")
        out.append(_format_time(value))
    elif isinstance(value, list | tuple):
        element = schema.value_schema if schema is not None and schema.type is Type.ARRAY else None
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, element, item, True)
        out.append("]")
    elif isinstance(value, Mapping):
        is_map = schema is not None and schema.type is Type.MAP
        key_schema = schema.key_schema if is_map and schema is not None else None
        value_schema = schema.value_schema if is_map and schema is not None else None
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, key_schema, k, True)
            out.append(":")
            _append(out, value_schema, v, True)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, field in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, None, field.name, True)
            out.append(":")
            _append(out, field.schema, value.get(field), True)
        out.append("}")
    else:
        raise DataError(
            f"cannot format a value of type {type(value).__name__} ({value!r:.60}) as a string; "
            "use Connect data types (int, float, bool, str, bytes, list, dict, Struct, "
            "decimal.Decimal, date, time, datetime)"
        )


# -- coercion ----------------------------------------------------------------------------


def _describe(value: Any) -> str:
    return f"{value!r:.80} ({type(value).__name__})"


def _as_long(value: Any, target: str) -> int:
    if isinstance(value, bool):
        raise DataError(
            f"unable to convert {_describe(value)} to {target}: booleans are not numbers"
        )
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise DataError(f"unable to convert {_describe(value)} to {target}")
        return int(value)  # truncates toward zero, as Java's longValue()
    if isinstance(value, _decimal.Decimal):
        if not value.is_finite():
            raise DataError(f"unable to convert {_describe(value)} to {target}")
        return int(value)
    if isinstance(value, str):
        if _NUMBER_RE.fullmatch(value.strip(_JAVA_BLANK)):
            return int(_decimal.Decimal(value.strip(_JAVA_BLANK)))
        raise DataError(f"unable to convert {_describe(value)} to {target}: not a number")
    if isinstance(value, _dt.datetime):
        return Timestamp.from_logical(Timestamp.SCHEMA, value)
    if isinstance(value, _dt.date):
        return Date.from_logical(Date.SCHEMA, value)
    if isinstance(value, _dt.time):
        return Time.from_logical(Time.SCHEMA, value)
    raise DataError(f"unable to convert {_describe(value)} to {target}")


def _as_double(value: Any, target: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, _decimal.Decimal) or (
        isinstance(value, int) and not isinstance(value, bool)
    ):
        return float(value)
    if isinstance(value, str) and _NUMBER_RE.fullmatch(value.strip(_JAVA_BLANK)):
        return float(_decimal.Decimal(value.strip(_JAVA_BLANK)))
    return float(_as_long(value, target))


def _ranged(value: Any, type_: Type) -> int:
    number = _as_long(value, type_.value)
    lo, hi = _INT_RANGES[type_]
    if not lo <= number <= hi:
        raise DataError(
            f"unable to convert {_describe(value)} to {type_.value}: {number} is outside "
            f"[{lo}, {hi}]; convert to a wider type instead"
        )
    return number


def _parsed_if_string(value: Any) -> Any:
    return Values.parse_string(value).value if isinstance(value, str) else value


class Values:
    """Static helpers mirroring Kafka Connect's ``Values``.

    Every ``convert_to_*`` returns None for a None value and raises :class:`DataError`
    when the value cannot be converted. ``schema`` is the schema of the value given (it
    may be None); it matters for logical types.

    Example:
        >>> Values.parse_string("[1, 2, 300]")
        SchemaAndValue(schema=Schema(ARRAY), value=[1, 2, 300])
        >>> Values.convert_to_string(None, {"a": [1, True]})
        '{"a":[1,true]}'
    """

    @staticmethod
    def parse_string(text: str | None) -> SchemaAndValue:
        """Parse a string into a value and an inferred schema, as Kafka's ``parseString``.

        ``null`` gives ``SchemaAndValue(None, None)``; ``true``/``false`` BOOLEAN;
        ``[...]`` an ARRAY and ``{k:v}`` a MAP (schema None when the elements have no
        common schema); ``yyyy-MM-dd``, ``HH:mm:ss.SSSZ`` and ``yyyy-MM-ddTHH:mm:ss.SSSZ``
        Date, Time and Timestamp; numbers the narrowest of INT8, INT16, INT32, INT64, then
        FLOAT32 when exactly representable, FLOAT64, else a Decimal. Anything else,
        including the empty string, is returned as a STRING unchanged.
        """
        if text is None:
            return SchemaAndValue(None, None)
        if not text:
            return SchemaAndValue(Schema.STRING, text)
        if _is_plain_string(text):
            return tuple.__new__(SchemaAndValue, (Schema.STRING, text))
        try:
            parsed = _ValueParser(text).parse(embedded=False)
        except RecursionError:  # absurdly deep nesting
            return SchemaAndValue(Schema.STRING, text)
        return SchemaAndValue(None, None) if parsed is None else parsed

    @staticmethod
    def convert_to_string(schema: Schema | None, value: Any) -> str | None:
        """Format a value as Kafka does (``parse_string`` reads it back).

        Strings inside containers are quoted with ``\\`` and ``"`` escaped, bytes are
        base64, floats print as Java prints them (``1.0E7``), dates as ``yyyy-MM-dd``,
        times as ``HH:mm:ss.SSSZ``, datetimes as ``yyyy-MM-ddTHH:mm:ss.SSSZ`` in UTC, and
        structs as a map of field names to values.
        """
        if value is None:
            return None
        if type(value) is str:
            return value  # a top-level string is written as it is (a header's usual value)
        out: list[str] = []
        _append(out, schema, value, False)
        return "".join(out)

    @staticmethod
    def infer_schema(value: Any) -> Schema | None:
        """A schema for ``value``, or None when there is no single one.

        Python has one ``int``, so integers infer INT64 and floats FLOAT64; logical values
        infer their logical schema. Lists and dicts infer when non-empty and every element
        has the same schema (optional when some are None).
        """
        if value is None:
            return None
        if isinstance(value, bool):
            return Schema.BOOLEAN
        if isinstance(value, int):
            lo, hi = _INT_RANGES[Type.INT64]
            return Schema.INT64 if lo <= value <= hi else None
        if isinstance(value, float):
            return Schema.FLOAT64
        if isinstance(value, str):
            return Schema.STRING
        if isinstance(value, bytes | bytearray | memoryview):
            return Schema.BYTES
        if isinstance(value, _decimal.Decimal):
            exponent = value.as_tuple().exponent
            return Decimal.schema(-exponent) if isinstance(exponent, int) else None
        if isinstance(value, _dt.datetime):
            return Timestamp.SCHEMA
        if isinstance(value, _dt.date):
            return Date.SCHEMA
        if isinstance(value, _dt.time):
            return Time.SCHEMA
        if isinstance(value, Struct):
            return value.schema
        if isinstance(value, list | tuple):
            element = _uniform_schema(value)
            return SchemaBuilder.array(element).build() if element is not None else None
        if isinstance(value, Mapping):
            key = _uniform_schema(list(value.keys()))
            item = _uniform_schema(list(value.values()))
            if key is None or item is None:
                return None
            return SchemaBuilder.map(key, item).build()
        return None

    @staticmethod
    def convert_to_boolean(schema: Schema | None, value: Any) -> bool | None:
        """``True``/``False``, "true"/"false", or a number (zero is false)."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            parsed = Values.parse_string(value).value
            if isinstance(parsed, bool):
                return parsed
        return _as_long(value, "boolean") != 0

    @staticmethod
    def convert_to_byte(schema: Schema | None, value: Any) -> int | None:
        """An INT8 value. Unlike Java, an out-of-range number raises instead of wrapping."""
        return None if value is None else _ranged(value, Type.INT8)

    @staticmethod
    def convert_to_short(schema: Schema | None, value: Any) -> int | None:
        """An INT16 value (out-of-range numbers raise)."""
        return None if value is None else _ranged(value, Type.INT16)

    @staticmethod
    def convert_to_integer(schema: Schema | None, value: Any) -> int | None:
        """An INT32 value (out-of-range numbers raise)."""
        return None if value is None else _ranged(value, Type.INT32)

    @staticmethod
    def convert_to_long(schema: Schema | None, value: Any) -> int | None:
        """An INT64 value; dates, times and datetimes give their Connect encodings."""
        return None if value is None else _ranged(value, Type.INT64)

    @staticmethod
    def convert_to_float(schema: Schema | None, value: Any) -> float | None:
        """A FLOAT32 value (a Python float), rounded to float precision as Java's
        ``(float)`` cast rounds the double (``9e99`` is infinite)."""
        return None if value is None else _to_float32(_as_double(value, "float32"))

    @staticmethod
    def convert_to_double(schema: Schema | None, value: Any) -> float | None:
        """A FLOAT64 value."""
        return None if value is None else _as_double(value, "float64")

    @staticmethod
    def convert_to_list(schema: Schema | None, value: Any) -> list[Any] | None:
        """A list: lists pass through, strings are parsed (``"[1,2]"``)."""
        if value is None:
            return None
        parsed = _parsed_if_string(value)
        if isinstance(parsed, list | tuple):
            return list(parsed)
        raise DataError(f"unable to convert {_describe(value)} to {_ARRAY_TARGET.type.value}")

    @staticmethod
    def convert_to_map(schema: Schema | None, value: Any) -> dict[Any, Any] | None:
        """A dict: mappings pass through, strings are parsed (``"{a:1}"``)."""
        if value is None:
            return None
        parsed = _parsed_if_string(value)
        if isinstance(parsed, Mapping):
            return dict(parsed)
        raise DataError(f"unable to convert {_describe(value)} to {_MAP_TARGET.type.value}")

    @staticmethod
    def convert_to_struct(schema: Schema | None, value: Any) -> Struct:
        """The value itself when it is a Struct; nothing else converts to one.

        Raises:
            DataError: for None too, as Kafka (the target schema requires a value).
        """
        if value is None:
            raise DataError(_NULL_REQUIRED)
        if isinstance(value, Struct):
            return value
        raise DataError(
            f"unable to convert {_describe(value)} to {_STRUCT_TARGET.type.value}: only a "
            "Struct is a struct"
        )

    @staticmethod
    def convert_to_date(schema: Schema | None, value: Any) -> _dt.date:
        """A date: dates pass through, datetimes give their UTC date, strings are parsed
        and numbers count days since the epoch."""
        if value is None:
            raise DataError(_NULL_REQUIRED)
        parsed = _parsed_if_string(value)
        if isinstance(parsed, _dt.datetime):
            return _utc(parsed).date()
        if isinstance(parsed, _dt.date):
            return parsed
        if isinstance(parsed, _dt.time):
            raise DataError(f"unable to convert time {_describe(value)} to a date")
        return Date.to_logical(Date.SCHEMA, _as_long(parsed, "Date"))

    @staticmethod
    def convert_to_time(schema: Schema | None, value: Any) -> _dt.time:
        """A time of day (UTC): datetimes give their time, numbers count milliseconds."""
        if value is None:
            raise DataError(_NULL_REQUIRED)
        parsed = _parsed_if_string(value)
        if isinstance(parsed, _dt.datetime):
            return _utc(parsed).time().replace(tzinfo=_dt.UTC)
        if isinstance(parsed, _dt.time):
            return parsed
        if isinstance(parsed, _dt.date):
            raise DataError(f"unable to convert date {_describe(value)} to a time of day")
        return Time.to_logical(Time.SCHEMA, _as_long(parsed, "Time"))

    @staticmethod
    def convert_to_timestamp(schema: Schema | None, value: Any) -> _dt.datetime:
        """A UTC datetime: dates become midnight, times fall on 1970-01-01, numbers are
        milliseconds since the epoch."""
        if value is None:
            raise DataError(_NULL_REQUIRED)
        parsed = _parsed_if_string(value)
        if isinstance(parsed, _dt.datetime):
            return _utc(parsed)
        if isinstance(parsed, _dt.date):
            return _dt.datetime(parsed.year, parsed.month, parsed.day, tzinfo=_dt.UTC)
        return Timestamp.to_logical(Timestamp.SCHEMA, _as_long(parsed, "Timestamp"))

    @staticmethod
    def convert_to_decimal(schema: Schema | None, value: Any, scale: int) -> _decimal.Decimal:
        """A ``decimal.Decimal``: Decimal encodings (bytes) are decoded with ``scale``.

        Raises:
            DataError: for None too, as Kafka (the target schema requires a value).
        """
        if value is None:
            raise DataError(_NULL_REQUIRED)
        if isinstance(value, _decimal.Decimal):
            return value
        if isinstance(value, bytes | bytearray | memoryview):
            return Decimal.to_logical(Decimal.schema(scale), bytes(value))
        if isinstance(value, bool):
            raise DataError(f"unable to convert {_describe(value)} to a decimal")
        if isinstance(value, int):
            return _decimal.Decimal(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise DataError(f"unable to convert {_describe(value)} to a decimal")
            return _decimal.Decimal(repr(value))
        if isinstance(value, str) and _NUMBER_RE.fullmatch(value.strip(_JAVA_BLANK)):
            return _decimal.Decimal(value.strip(_JAVA_BLANK))
        raise DataError(f"unable to convert {_describe(value)} to a decimal with scale {scale}")


def _uniform_schema(values: Iterable[Any]) -> Schema | None:
    found: Schema | None = None
    saw_null = False
    for item in values:
        if item is None:
            saw_null = True
            continue
        schema = Values.infer_schema(item)
        if schema is None:
            return None
        if found is None:
            found = schema
        elif found != schema:
            return None
    if found is None:
        return None
    return _optional(found) if saw_null else found
