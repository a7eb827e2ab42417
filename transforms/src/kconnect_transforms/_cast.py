"""Cast: change the type of fields, or of the whole key/value, to another primitive type."""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import re
import struct as _struct
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Date,
    Decimal,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Time,
    Timestamp,
    Type,
    struct_values,
)
from kconnect_sdk.java import double_to_string

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    define_replace_null,
    fill_struct,
    require_map,
    require_struct,
)

__all__ = ["CastKey", "CastValue"]

_OUTPUT_TYPES = (
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT32,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
)
_INPUT_TYPES = (*_OUTPUT_TYPES, Type.BYTES)
_BITS = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}
_LOGICAL = {Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME, Decimal.LOGICAL_NAME}


def _parse_type(name: str, text: str) -> Type:
    try:
        target = Type(text.strip().lower())
    except ValueError:
        raise ConfigError(
            f"Invalid value {text} for configuration {name}: Invalid type found in casting "
            f"spec: {text}; use one of {', '.join(t.value for t in _OUTPUT_TYPES)}",
            name=name,
            value=text,
        ) from None
    if target not in _OUTPUT_TYPES:
        raise ConfigError(
            f"Invalid value {text} for configuration {name}: Cast transformation does not "
            f"support casting to {target.value.upper()}; use one of "
            f"{', '.join(t.value for t in _OUTPUT_TYPES)}",
            name=name,
            value=text,
        )
    return target


def _parse_spec(name: str, value: Any) -> tuple[Type | None, dict[str, Type]]:
    whole: Type | None = None
    casts: dict[str, Type] = {}
    for item in value:
        field, sep, type_text = item.rpartition(":")
        if not sep:
            whole = _parse_type(name, item)
        elif not field:
            raise ConfigError(
                f"Invalid value {item} for configuration {name}: Invalid cast spec: a field "
                "name is missing before ':'",
                name=name,
                value=value,
            )
        else:
            casts[field] = _parse_type(name, type_text)
    if whole is not None and (casts or len(value) > 1):
        raise ConfigError(
            f"Invalid value {','.join(value)} for configuration {name}: Cast transformations "
            "that specify a type to cast to for the entire value cannot also specify field "
            "casts",
            name=name,
            value=value,
        )
    return whole, casts


def _check_spec(name: str, value: Any) -> None:
    if not value:  # Kafka's Cast says it in these words, without the key
        raise ConfigError("Must specify at least one field to cast.", name=name, value=value)
    _parse_spec(name, value)


def _wrap(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return ((value + half) % (1 << bits)) - half


def _to_float32(value: float) -> float:
    """``(float) d``: the nearest float, infinite past the float range."""
    try:
        result: float = _struct.unpack("f", _struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return result


def _java_long(value: float, bits: int) -> int:
    """Java's narrowing of a double to a 32- or 64-bit integer: NaN is 0, values past the
    range saturate at its ends, others are truncated toward zero."""
    if math.isnan(value):
        return 0
    top = 1 << (bits - 1)
    if value >= top:
        return top - 1
    if value <= -top:
        return -top
    return int(value)


def _finite(value: decimal.Decimal) -> decimal.Decimal:
    if not value.is_finite():
        raise ValueError(f"{value} is not a number")
    return value


# 2^128 - 2^103: halfway between the largest float and 2^128; from here on a float is infinite.
_FLOAT32_OVERFLOW = decimal.Decimal(2**128 - 2**103)


def _float32_of(number: decimal.Decimal) -> float:
    """The float nearest ``number`` (ties to even), rounded once, as Java's
    ``BigDecimal.floatValue()`` and ``Float.parseFloat`` give it; rounding through a
    double first can land on the other float of a near tie."""
    if abs(number) >= _FLOAT32_OVERFLOW:
        return math.copysign(math.inf, number)
    guess = _to_float32(float(number))
    bits = _struct.unpack("<i", _struct.pack("<f", guess))[0]
    digits = len(number.as_tuple().digits) + 160  # exact for any float's decimal digits
    with decimal.localcontext(decimal.Context(prec=digits)):
        best, best_gap = guess, abs(number - decimal.Decimal(guess))
        for step in (-1, 1):
            try:
                other = _struct.unpack("<f", _struct.pack("<i", bits + step))[0]
            except _struct.error:
                continue
            if not math.isfinite(other):
                continue
            gap = abs(number - decimal.Decimal(other))
            even = not (bits + step) & 1
            if gap < best_gap or (gap == best_gap and even):
                best, best_gap = other, gap
    return math.copysign(best, number) if best == 0 else best


_JAVA_INT_TEXT = re.compile(r"[+-]?\d+")
_JAVA_FLOAT_TEXT = re.compile(
    r"([+-]?)(?:(NaN)|(Infinity)|((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?)"
)
_JAVA_BLANKS = "".join(map(chr, range(0x21)))


def _parse_java_int(text: str, bits: int) -> int:
    """``Byte/Short/Integer/Long.parseX``: a sign and digits only, in range."""
    if not _JAVA_INT_TEXT.fullmatch(text):
        raise ValueError(f"For input string: {text!r}")
    parsed = int(text)
    top = 1 << (bits - 1)
    if not -top <= parsed < top:
        raise ValueError(f"Value out of range. Value:{text!r} Radix:10")
    return parsed


def _java_float_text(text: str) -> tuple[str, str | None]:
    """The sign and the number of a ``Double.parseDouble`` text, or its NaN/Infinity word."""
    found = _JAVA_FLOAT_TEXT.fullmatch(text.strip(_JAVA_BLANKS))
    if found is None:
        raise ValueError(f"For input string: {text!r}")
    sign, nan, infinity, number = found.groups()
    if nan:
        return sign, None
    return sign, "Infinity" if infinity else number


def _parse_java_double(text: str) -> float:
    sign, number = _java_float_text(text)
    if number is None:
        return math.nan
    return float(sign + ("inf" if number == "Infinity" else number))


def _parse_java_float(text: str) -> float:
    sign, number = _java_float_text(text)
    if number is None:
        return math.nan
    if number == "Infinity":
        return -math.inf if sign == "-" else math.inf
    return _float32_of(decimal.Decimal(sign + number))


def _infer(value: Any) -> Type | None:
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64
    if isinstance(value, float):
        return Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, bytes | bytearray | memoryview):
        return Type.BYTES
    return None


def _logical_to_string(schema: Schema | None, value: Any) -> str | None:
    if isinstance(value, dt.datetime):
        moment = value.astimezone(dt.UTC) if value.tzinfo else value
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.strftime("%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    return None


def _encode_logical(schema: Schema, value: Any) -> Any:
    if schema.name == Date.LOGICAL_NAME and isinstance(value, dt.date):
        return Date.from_logical(schema, value)
    if schema.name == Time.LOGICAL_NAME and isinstance(value, dt.time):
        return Time.from_logical(schema, value)
    if schema.name == Timestamp.LOGICAL_NAME and isinstance(value, dt.datetime):
        return Timestamp.from_logical(schema, value)
    return value  # a Decimal stays a BigDecimal, narrowed exactly by the cast


def cast_value(schema: Schema | None, value: Any, target: Type, *, where: str) -> Any:
    """Cast one value as Kafka's Cast does; ``where`` names the field for errors."""
    if value is None:
        return None
    source = schema.type if schema is not None else _infer(value)
    if source is None or source not in _INPUT_TYPES:
        found = source.value if source is not None else type(value).__name__
        raise DataError(
            f"Cast: {where}: Cast transformation does not support casting from {found}; "
            "only primitive values can be cast"
        )
    if target is Type.STRING:
        text = _logical_to_string(schema, value)
        if text is not None:
            return text
        if isinstance(value, bytes | bytearray | memoryview):
            return base64.b64encode(bytes(value)).decode("ascii")
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return double_to_string(value)
        return str(value)
    if schema is not None and schema.name in _LOGICAL:
        value = _encode_logical(schema, value)
    try:
        if target in _BITS:
            bits = _BITS[target]
            if isinstance(value, bool):
                return int(value)
            if isinstance(value, str):
                return _parse_java_int(value, bits)
            if isinstance(value, float):
                # Java's Double.byteValue() and shortValue() narrow (int) d, which
                # saturates: 1e52 is Integer.MAX_VALUE, so -1 as a short.
                return _wrap(_java_long(value, max(bits, 32)), bits)
            if isinstance(value, decimal.Decimal):
                # BigDecimal.longValue(): the integer part's low bits.
                return _wrap(int(_finite(value)), bits)
            if isinstance(value, int):
                return _wrap(value, bits)
        elif target is Type.FLOAT64:
            if isinstance(value, str):
                return _parse_java_double(value)
            return float(value)
        elif target is Type.FLOAT32:
            if isinstance(value, str):
                return _parse_java_float(value)
            if isinstance(value, decimal.Decimal):
                return _float32_of(_finite(value))  # BigDecimal.floatValue(), rounded once
            return _to_float32(float(value))
        elif target is Type.BOOLEAN:
            if isinstance(value, str):
                return value.lower() == "true"
            # Java compares Number.longValue() with 0, so 0.5 is false.
            if isinstance(value, float):
                return _java_long(value, 64) != 0
            if isinstance(value, decimal.Decimal):
                return _wrap(int(_finite(value)), 64) != 0
            if isinstance(value, int):
                return value != 0
    except (ValueError, OverflowError, ArithmeticError) as exc:
        raise DataError(f"Cast: {where}: cannot cast {value!r} to {target.value}: {exc}") from None
    raise DataError(
        f"Cast: {where}: unexpected type {type(value).__name__} found while casting to "
        f"{target.value}"
    )


def _target_schema(original: Schema, target: Type, *, whole: bool) -> Schema:
    """The schema of a cast value: as Kafka, a cast field's schema is only its new type,
    optionality and cast default; a whole value's keeps its name, version, doc and
    parameters too (but not a logical type's name, which would claim a Date of a string)."""
    default = original.default
    if default is not None:
        default = cast_value(original, default, target, where="default value")
    if not whole:
        return Schema(target, optional=original.optional, default=default)
    logical = original.name in _LOGICAL
    return Schema(
        target,
        optional=original.optional,
        default=default,
        name=None if logical else original.name,
        version=None if logical else original.version,
        doc=original.doc,
        parameters=None if logical else original.parameters,
    )


class _Cast(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef().define(
            "spec",
            ConfigType.LIST,
            validator=_check_spec,
            importance=Importance.HIGH,
            documentation="List of fields and the type to cast them to of the form "
            "field1:type,field2:type to cast fields of Maps or Structs. A single type to cast "
            "the entire value. Valid types are int8, int16, int32, int64, float32, float64, "
            "boolean, and string.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._whole, self._casts = _parse_spec("spec", config["spec"])
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[Schema] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        where = f"{self.NAME} {self.side}"
        if self._whole is not None:
            if schema is None:
                return self.new_record(
                    record, None, cast_value(None, value, self._whole, where=where)
                )
            # As Kafka, the schema is built whatever its type: only a value that is not a
            # primitive (nor null) is refused, when it is cast.
            updated = self._schemas.get(schema) or self._schemas.put(
                schema, _target_schema(schema, self._whole, whole=True)
            )
            return self.new_record(
                record, updated, cast_value(schema, value, self._whole, where=where)
            )
        if schema is None:
            original = require_map(self.NAME, value, "cast types")
            updated_map = dict(original)
            for name, target in self._casts.items():
                updated_map[name] = cast_value(
                    None, original.get(name), target, where=f"{where} field {name!r}"
                )
            return self.new_record(record, None, updated_map)
        struct = require_struct(self.NAME, value, "cast types")
        updated_schema = self._schemas.get(struct.schema)
        if updated_schema is None:
            updated_schema = self._schemas.put(struct.schema, self._struct_schema(struct.schema))
        values = list(struct_values(struct))
        for field in struct.schema.fields:
            current = values[field.index]
            if current is None and self._replace_null:
                current = field.schema.default
            cast_to = self._casts.get(field.name)
            if cast_to is not None:
                current = cast_value(
                    field.schema, current, cast_to, where=f"{where} field {field.name!r}"
                )
            values[field.index] = current
        return self.new_record(record, updated_schema, fill_struct(updated_schema, values))

    def _struct_schema(self, schema: Schema) -> Schema:
        fields = []
        for field in schema.fields:
            target = self._casts.get(field.name)
            # A struct, array or map field is given the new type too; its values are
            # refused when cast, unless null (Kafka casts a null to null).
            field_schema = (
                field.schema
                if target is None
                else _target_schema(field.schema, target, whole=False)
            )
            fields.append(Field(field.name, field.index, field_schema))
        return Schema(
            Type.STRUCT,
            optional=schema.optional,
            name=schema.name,
            version=schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            fields=fields,
        )


class CastKey(_Cast[R]):
    """Cast key fields or the whole key (``org.apache.kafka.connect.transforms.Cast$Key``)."""

    ON_KEY = True
    NAME = "Cast$Key"


class CastValue(_Cast[R]):
    """Cast value fields or the whole value (``org.apache.kafka.connect.transforms.Cast$Value``).

    Example:
        ``spec=age:int32,score:float64`` or ``spec=string`` for the whole value.
    """

    NAME = "Cast$Value"
