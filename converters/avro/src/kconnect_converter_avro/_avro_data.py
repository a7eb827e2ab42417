"""The Connect <-> Avro mapping of Confluent's ``io.confluent.connect.avro.AvroData``.

Avro schemas are handled as JSON-able Python data (``dict``/``list``/``str``), the form
``json.loads`` gives for an ``.avsc`` and ``fastavro.parse_schema`` accepts; Avro data is in
the form ``fastavro``'s writer takes and its reader returns. The AvroConverter and the S3
sink's Avro and Parquet formats share this module, so a Connect record becomes the same Avro
schema and datum wherever it is written.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import logging
import math
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Date,
    Decimal,
    Field,
    Importance,
    Schema,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
    Type,
    struct_maker,
    struct_values,
    validate_value,
)
from kconnect_sdk.java import EPOCH_DATE, EPOCH_DATETIME

from ._record_encoder import inline_check, record_encoder

__all__ = [
    "ANYTHING_SCHEMA",
    "AvroData",
    "AvroDataSettings",
    "avro_data_config_def",
]

NAMESPACE: Final = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME: Final = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME: Final = NAMESPACE + "." + DEFAULT_SCHEMA_NAME
MAP_ENTRY_TYPE_NAME: Final = "MapEntry"
KEY_FIELD: Final = "key"
VALUE_FIELD: Final = "value"

CONNECT_NAME_PROP: Final = "connect.name"
CONNECT_DOC_PROP: Final = "connect.doc"
CONNECT_RECORD_DOC_PROP: Final = "connect.record.doc"
CONNECT_ENUM_DOC_PROP: Final = "connect.enum.doc"
CONNECT_VERSION_PROP: Final = "connect.version"
CONNECT_DEFAULT_VALUE_PROP: Final = "connect.default"
CONNECT_PARAMETERS_PROP: Final = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME: Final = "connect.internal.type"
CONNECT_TYPE_PROP: Final = "connect.type"
AVRO_RECORD_DOC_PROP: Final = NAMESPACE + ".record.doc"
AVRO_ENUM_DOC_PREFIX_PROP: Final = NAMESPACE + ".enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP: Final = NAMESPACE + ".field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP: Final = NAMESPACE + ".field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP: Final = NAMESPACE + ".enum.default."
AVRO_TYPE_UNION: Final = NAMESPACE + ".Union"
AVRO_TYPE_ENUM: Final = NAMESPACE + ".Enum"
AVRO_TYPE_ANYTHING: Final = NAMESPACE + ".Anything"
# Confluent's format-neutral sum types (``io.confluent.connect.schema.ConnectUnion`` and
# ``ConnectEnum``): the same Connect schema whichever of Avro, Protobuf or JSON Schema wrote it.
GENERALIZED_TYPE_UNION: Final = "org.apache.kafka.connect.data.Union"
GENERALIZED_TYPE_ENUM: Final = "org.apache.kafka.connect.data.Enum"
GENERALIZED_TYPE_UNION_PREFIX: Final = "connect_union_"
GENERALIZED_TYPE_UNION_FIELD_PREFIX: Final = GENERALIZED_TYPE_UNION_PREFIX + "field_"
# Confluent's Variant (semi-structured data, as Parquet and Iceberg define it): a Connect
# struct of two byte fields, an Avro record with the ``variant`` logical type.
VARIANT_LOGICAL_NAME: Final = "org.apache.kafka.connect.data.Variant"
VARIANT_AVRO_RECORD: Final = "confluent.type.Variant"
VARIANT_AVRO_LOGICAL_TYPE: Final = "variant"
CONNECT_AVRO_FIXED_SIZE_PROP: Final = "connect.fixed.size"
CONNECT_AVRO_DECIMAL_PRECISION_PROP: Final = "connect.decimal.precision"
CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT: Final = 64

log = logging.getLogger(__name__)

_AVRO_PROP: Final = "avro"
_LOGICAL_TYPE: Final = "logicalType"

ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG: Final = "enhanced.avro.schema.support"
CONNECT_META_DATA_CONFIG: Final = "connect.meta.data"
SCRUB_INVALID_NAMES_CONFIG: Final = "scrub.invalid.names"
SCHEMAS_CACHE_SIZE_CONFIG: Final = "schemas.cache.config"
ALLOW_OPTIONAL_MAP_KEYS_CONFIG: Final = "allow.optional.map.keys"
FLATTEN_SINGLETON_UNIONS_CONFIG: Final = "flatten.singleton.unions"
DISCARD_TYPE_DOC_DEFAULT_CONFIG: Final = "discard.type.doc.default"
IGNORE_DEFAULT_FOR_NULLABLES_CONFIG: Final = "ignore.default.for.nullables"
GENERALIZED_SUM_TYPE_SUPPORT_CONFIG: Final = "generalized.sum.type.support"

_PRIMITIVE_AVRO: Final = {
    Type.INT8: "int",
    Type.INT16: "int",
    Type.INT32: "int",
    Type.INT64: "long",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
}
_AVRO_PRIMITIVES: Final = frozenset(
    ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
)
_NAMED: Final = frozenset(("record", "enum", "fixed", "error"))


def _optional_field(name: str, avro_type: Any) -> dict[str, Any]:
    return {"name": name, "type": ["null", avro_type], "default": None}


#: The Avro schema Confluent writes schemaless (null-schema) Connect data with.
ANYTHING_SCHEMA: Final[dict[str, Any]] = {
    "type": "record",
    "name": "Anything",
    "namespace": NAMESPACE,
    "fields": [
        _optional_field("boolean", "boolean"),
        _optional_field("bytes", "bytes"),
        _optional_field("double", "double"),
        _optional_field("float", "float"),
        _optional_field("int", "int"),
        _optional_field("long", "long"),
        _optional_field("string", "string"),
        _optional_field("array", {"type": "array", "items": "Anything"}),
        _optional_field(
            "map",
            {
                "type": "array",
                "items": {
                    "type": "record",
                    "name": "MapEntry",
                    "fields": [
                        {"name": "key", "type": "Anything"},
                        {"name": "value", "type": "Anything"},
                    ],
                },
            },
        ),
    ],
}


def avro_data_config_def() -> ConfigDef:
    """The settings of Confluent's ``AvroDataConfig``, with its names and defaults."""
    cd = ConfigDef()
    for name, default, doc in (
        (
            ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG,
            False,
            "Toggle for enabling/disabling enhanced avro schema support: Enum symbol "
            "preservation and Package Name awareness",
        ),
        (
            CONNECT_META_DATA_CONFIG,
            True,
            "Toggle for enabling/disabling connect converter to add its meta data to the "
            "output schema or not",
        ),
        (
            SCRUB_INVALID_NAMES_CONFIG,
            False,
            "Whether to scrub invalid names by replacing invalid characters with valid ones",
        ),
        (
            ALLOW_OPTIONAL_MAP_KEYS_CONFIG,
            False,
            "Allow optional string map key when converting from Connect Schema to Avro Schema.",
        ),
        (FLATTEN_SINGLETON_UNIONS_CONFIG, True, "Whether to flatten singleton unions"),
        (
            DISCARD_TYPE_DOC_DEFAULT_CONFIG,
            False,
            "Only use type-level doc and default values, discarding field-level ones.",
        ),
        (
            IGNORE_DEFAULT_FOR_NULLABLES_CONFIG,
            False,
            "Whether to ignore the default for nullable fields when the value is null",
        ),
        (
            GENERALIZED_SUM_TYPE_SUPPORT_CONFIG,
            False,
            "Map Avro unions and enums to Confluent's format-neutral Connect forms (structs "
            "named connect_union_<n> with fields connect_union_field_<i>; strings with "
            "org.apache.kafka.connect.data.Enum parameters), so Avro, Protobuf and JSON Schema "
            "converters agree on them",
        ),
    ):
        cd.define(name, ConfigType.BOOLEAN, default, importance=Importance.LOW, documentation=doc)
    cd.define(
        SCHEMAS_CACHE_SIZE_CONFIG,
        ConfigType.INT,
        1000,
        importance=Importance.LOW,
        documentation="Size of the converted schemas cache",
    )
    return cd


@dataclass(frozen=True, slots=True)
class AvroDataSettings:
    """The parsed ``AvroDataConfig`` one :class:`AvroData` runs with."""

    enhanced_avro_schema_support: bool = False
    connect_meta_data: bool = True
    scrub_invalid_names: bool = False
    allow_optional_map_keys: bool = False
    flatten_singleton_unions: bool = True
    discard_type_doc_default: bool = False
    ignore_default_for_nullables: bool = False
    generalized_sum_type_support: bool = False
    schemas_cache_size: int = 1000

    @classmethod
    def parse(cls, configs: Mapping[str, Any] | None) -> AvroDataSettings:
        known = avro_data_config_def()
        relevant = {k: v for k, v in (configs or {}).items() if k in known.names()}
        p = known.parse(relevant)
        return cls(
            enhanced_avro_schema_support=p[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG],
            connect_meta_data=p[CONNECT_META_DATA_CONFIG],
            scrub_invalid_names=p[SCRUB_INVALID_NAMES_CONFIG],
            allow_optional_map_keys=p[ALLOW_OPTIONAL_MAP_KEYS_CONFIG],
            flatten_singleton_unions=p[FLATTEN_SINGLETON_UNIONS_CONFIG],
            discard_type_doc_default=p[DISCARD_TYPE_DOC_DEFAULT_CONFIG],
            ignore_default_for_nullables=p[IGNORE_DEFAULT_FOR_NULLABLES_CONFIG],
            generalized_sum_type_support=p[GENERALIZED_SUM_TYPE_SUPPORT_CONFIG],
            schemas_cache_size=p[SCHEMAS_CACHE_SIZE_CONFIG],
        )


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


# -- names -----------------------------------------------------------------------------


def _valid_name_char(ch: str) -> bool:
    return ("A" <= ch <= "Z") or ("a" <= ch <= "z") or ("0" <= ch <= "9") or ch == "_"


def scrub_name(name: str) -> str:
    """Confluent's ``doScrubName``: URL-encode, then replace what Avro names refuse by ``_``."""
    if not name:
        return name
    if all(_valid_name_char(c) for c in name) and not name[0].isdigit():
        return name
    # Java's URLEncoder: space becomes '+', and '*', '-', '.', '_' stay as they are.
    encoded = urllib.parse.quote_plus(name, safe="*-._")
    if "0" <= encoded[0] <= "9":
        encoded = "x" + encoded
    return "".join(c if _valid_name_char(c) else "_" for c in encoded)


def _split_name(full: str, scrub: bool) -> tuple[str | None, str]:
    parts = full.split(".")
    if scrub:
        parts = [scrub_name(p) for p in parts]
    if len(parts) <= 1:
        return None, parts[0]
    return ".".join(parts[:-1]), parts[-1]


def _scrub_full_name(name: str | None, scrub: bool) -> str | None:
    if name is None or not scrub:
        return name
    ns, short = _split_name(name, scrub)
    return short if ns is None else f"{ns}.{short}"


# -- rendering Avro schemas as Avro Java writes them ------------------------------------


def _full_name(node: Mapping[str, Any], space: str | None) -> str:
    name: str = node["name"]
    if "." in name:
        return name
    ns = node.get("namespace", space)
    return f"{ns}.{name}" if ns else name


def _render(node: Any, names: dict[str, Any], space: str | None) -> Any:
    """Lay out an Avro schema the way Avro Java's ``Schema.toString`` does.

    Named types are written in full at their first occurrence and by name afterwards; a
    namespace is written only where it differs from the enclosing one.
    """
    if isinstance(node, list):
        return [_render(n, names, space) for n in node]
    if isinstance(node, str):
        return node
    kind = node["type"]
    if kind in _NAMED:
        full = _full_name(node, space)
        ns, short = full.rsplit(".", 1) if "." in full else (None, full)
        if full in names:
            known = names[full]
            if known is not node and known != node and not _same_but_parameters(known, node):
                # Avro names one definition per name; Avro Java refuses the same. Definitions
                # differing only in their Connect parameters are one Avro type: the later
                # ones' parameters travel on the fields that refer to it (see _add_field).
                raise DataError(
                    f"Can't redefine: {full} (two different Connect schemas map to this Avro "
                    f"name; give them distinct names)"
                )
            return short if ns == space else full
        names[full] = node
        out: dict[str, Any] = {"type": kind, "name": short}
        if ns is not None:
            if ns != space:
                out["namespace"] = ns
        elif space is not None:
            out["namespace"] = ""
        for key, value in node.items():
            if key in ("type", "name", "namespace"):
                continue
            if key == "fields":
                out["fields"] = [
                    {k: (_render(v, names, ns) if k == "type" else v) for k, v in field.items()}
                    for field in value
                ]
            else:
                out[key] = value
        return out
    if kind == "array":
        return {k: (_render(v, names, space) if k == "items" else v) for k, v in node.items()}
    if kind == "map":
        return {k: (_render(v, names, space) if k == "values" else v) for k, v in node.items()}
    if isinstance(kind, list | dict):
        return _render(kind, names, space)
    return node


def _same_but_parameters(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    def rest(node: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in node.items() if k != CONNECT_PARAMETERS_PROP}

    return rest(first) == rest(second)


def render_avro_schema(node: Any) -> Any:
    """Public form of :func:`_render` for a whole schema."""
    return _render(node, {}, None)


# -- logical-type helpers ---------------------------------------------------------------

_LOGICAL_TO_AVRO: Final[Mapping[str, Callable[[Schema, Any], Any]]] = {
    Decimal.LOGICAL_NAME: Decimal.from_logical,
    Date.LOGICAL_NAME: Date.from_logical,
    Time.LOGICAL_NAME: Time.from_logical,
    Timestamp.LOGICAL_NAME: Timestamp.from_logical,
}


def _decimal_to_connect(schema: Schema, value: Any) -> Any:
    if isinstance(value, _decimal.Decimal):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return Decimal.to_logical(schema, bytes(value))
    raise DataError(
        f"Invalid type for Decimal, underlying representation should be bytes but was "
        f"{type(value).__name__}"
    )


def _date_to_connect(schema: Schema, value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if type(value) is int:
        try:
            return EPOCH_DATE + _dt.timedelta(days=value)
        except OverflowError:
            raise DataError(
                f"Date value {value} (days since 1970-01-01) is outside the years 1-9999 "
                f"Python dates can hold"
            ) from None
    raise DataError(
        f"Invalid type for Date, underlying representation should be int32 but was "
        f"{type(value).__name__}"
    )


def _time_to_connect(schema: Schema, value: Any) -> Any:
    if isinstance(value, _dt.time):
        return value if value.tzinfo is not None else value.replace(tzinfo=_dt.UTC)
    if type(value) is int:
        return Time.to_logical(schema, value)
    raise DataError(
        f"Invalid type for Time, underlying representation should be int32 but was "
        f"{type(value).__name__}"
    )


def _timestamp_to_connect(schema: Schema, value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=_dt.UTC)
    if type(value) is int:
        try:
            return EPOCH_DATETIME + _dt.timedelta(milliseconds=value)
        except OverflowError:
            raise DataError(
                f"Timestamp value {value} (ms since the epoch) is outside the years 1-9999 "
                f"Python datetimes can hold"
            ) from None
    raise DataError(
        f"Invalid type for Timestamp, underlying representation should be int64 but was "
        f"{type(value).__name__}"
    )


_LOGICAL_TO_CONNECT: Final[Mapping[str, Callable[[Schema, Any], Any]]] = {
    Decimal.LOGICAL_NAME: _decimal_to_connect,
    Date.LOGICAL_NAME: _date_to_connect,
    Time.LOGICAL_NAME: _time_to_connect,
    Timestamp.LOGICAL_NAME: _timestamp_to_connect,
}


def _identity(value: Any) -> Any:
    return value


def _untagged(datum: Any) -> Any:
    # fastavro reads a union member of a named type as (name, datum) when asked to.
    return datum[1] if datum.__class__ is tuple else datum


def _required_identity(value: Any) -> Any:
    # A required primitive: the value passes through; only null is refused.
    if value is None:
        raise DataError("Found null value for non-optional schema")
    return value


_PLAIN: Final = (_identity, _required_identity)


# -- checking Connect values against their schema on the way to Avro ---------------------
#
# Avro's binary encoding carries no types: an int32 field given 2**40 would be written as a
# varint no Avro reader accepts, and 12 in a boolean field as ``true``. Every value is
# checked against its Connect schema before it is written, as Java's casts check it.


class _FieldError(DataError):
    """A value that does not fit its schema, with the path of the field that holds it."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"field {path!r}: {reason}")
        self.path = path
        self.reason = reason


def _nested(exc: DataError, segment: str) -> _FieldError:
    """``exc`` raised inside ``segment`` (a field name or ``[index]``), its path extended."""
    if isinstance(exc, _FieldError):
        joiner = "" if exc.path.startswith("[") else "."
        return _FieldError(segment + joiner + exc.path, exc.reason)
    return _FieldError(segment, str(exc))


def _fails(check: Callable[[Any], Any], value: Any) -> bool:
    try:
        check(value)
    except DataError:
        return True
    return False


def _wrong_type(what: str, expected: str, value: Any) -> DataError:
    return DataError(
        f"Invalid type for {what}: expected {expected}, got {type(value).__name__} ({value!r:.60})"
    )


def _int_check(what: str, bits: int) -> Callable[[Any], Any]:
    lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def check(value: Any) -> Any:
        if value.__class__ is int and lo <= value <= hi:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            if lo <= value <= hi:
                return int(value)
            raise DataError(f"{what} value {value} is out of range [{lo}, {hi}]")
        raise _wrong_type(what, "an int", value)

    return check


_FLOAT32_MAX: Final = 3.4028234663852886e38


def _float_check(what: str, limit: float) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value.__class__ is float:
            if -limit <= value <= limit or math.isnan(value) or math.isinf(value):
                return value
            raise DataError(f"{what} value {value} is out of range")
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                as_float = float(value)
            except OverflowError:
                raise DataError(f"{what} value {value} is out of range") from None
            return check(as_float)
        raise _wrong_type(what, "a float", value)

    return check


_INF: Final = float("inf")


def _boolean_check(value: Any) -> Any:
    if value is True or value is False:
        return value
    raise _wrong_type("boolean", "a bool", value)


def _string_check(value: Any) -> Any:
    if value.__class__ is str and value.isascii():
        return value
    if not isinstance(value, str):
        raise _wrong_type("string", "a str", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise DataError(f"string value is not valid Unicode text: {exc.reason}") from None
    return str(value)


def _bytes_check(value: Any) -> Any:
    if type(value) is bytes:
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise _wrong_type("bytes", "bytes", value)


def _fixed_check(size: int) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        data = _bytes_check(value)
        if len(data) != size:
            raise DataError(f"fixed value has {len(data)} bytes, its schema needs {size}")
        return data

    return check


def _enum_check(symbols: frozenset[str], name: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value.__class__ is str and value in symbols:
            return value
        if not isinstance(value, str):
            raise _wrong_type("enum", "a str", value)
        raise DataError(f"{value!r} is not a symbol of enum {name} ({', '.join(sorted(symbols))})")

    return check


_PRIMITIVE_CHECKS: Final[Mapping[Type, Callable[[Any], Any]]] = {
    Type.INT8: _int_check("int8", 8),
    Type.INT16: _int_check("int16", 16),
    Type.INT32: _int_check("int32", 32),
    Type.INT64: _int_check("int64", 64),
    Type.FLOAT32: _float_check("float32", _FLOAT32_MAX),
    Type.FLOAT64: _float_check("float64", _INF),
    Type.BOOLEAN: _boolean_check,
    Type.STRING: _string_check,
    Type.BYTES: _bytes_check,
}

# The checks whose passing test the generated record encoders write inline.
_INLINE_KINDS: Final[Mapping[Callable[[Any], Any], Type]] = {
    check: kind for kind, check in _PRIMITIVE_CHECKS.items()
}

_LOGICAL_PYTHON: Final[Mapping[str, tuple[type, ...]]] = {
    Decimal.LOGICAL_NAME: (_decimal.Decimal,),
    Date.LOGICAL_NAME: (_dt.date,),
    Time.LOGICAL_NAME: (_dt.time,),
    Timestamp.LOGICAL_NAME: (_dt.datetime,),
}
_LOGICAL_RANGE: Final[Mapping[str, Callable[[Any], Any]]] = {
    Date.LOGICAL_NAME: _PRIMITIVE_CHECKS[Type.INT32],
    Time.LOGICAL_NAME: _PRIMITIVE_CHECKS[Type.INT32],
    Timestamp.LOGICAL_NAME: _PRIMITIVE_CHECKS[Type.INT64],
}


def _logical_encoder(schema: Schema, logical: Callable[[Schema, Any], Any]) -> Callable[[Any], Any]:
    name = schema.name or ""
    classes = _LOGICAL_PYTHON[name]
    short = name.rsplit(".", 1)[-1]
    in_range = _LOGICAL_RANGE.get(name, _identity)
    size = (
        int(schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP]) if _is_fixed_schema(schema) else None
    )

    def encode(value: Any) -> Any:
        if not isinstance(value, classes):
            raise _wrong_type(short, classes[0].__module__ + "." + classes[0].__name__, value)
        raw = in_range(logical(schema, value))
        if size is None:
            return raw
        if len(raw) > size:
            raise DataError(
                f"Unscaled value byte array length {len(raw)} is greater than fixed size {size}"
            )
        # Avro fixed values are exactly `size` bytes: sign-extend the two's complement.
        pad = b"\xff" if raw and raw[0] & 0x80 else b"\x00"
        return pad * (size - len(raw)) + raw

    return encode


def _is_union_schema(schema: Schema) -> bool:
    return schema.name == AVRO_TYPE_UNION or (
        schema.type is Type.STRUCT and GENERALIZED_TYPE_UNION in schema.parameters
    )


def _is_enum_schema(schema: Schema) -> bool:
    params = schema.parameters
    return schema.type is Type.STRING and (
        AVRO_TYPE_ENUM in params or GENERALIZED_TYPE_ENUM in params
    )


def _enum_symbols(schema: Schema) -> frozenset[str]:
    """The symbols an enum-annotated string schema allows (either annotation)."""
    params = schema.parameters
    key = GENERALIZED_TYPE_ENUM if GENERALIZED_TYPE_ENUM in params else AVRO_TYPE_ENUM
    prefix = key + "."
    return frozenset(k[len(prefix) :] for k in params if k.startswith(prefix))


def _enum_name(schema: Schema) -> str | None:
    params = schema.parameters
    return params.get(GENERALIZED_TYPE_ENUM, params.get(AVRO_TYPE_ENUM))


def _is_variant_schema(schema: Schema) -> bool:
    return schema.type is Type.STRUCT and schema.name == VARIANT_LOGICAL_NAME


def _is_variant_record(node: Any) -> bool:
    if not isinstance(node, dict) or node.get(_LOGICAL_TYPE) != VARIANT_AVRO_LOGICAL_TYPE:
        return False
    fields = node.get("fields") or []
    types = {f.get("name"): f.get("type") for f in fields if isinstance(f, dict)}
    return len(fields) == 2 and types.get("metadata") == "bytes" and types.get("value") == "bytes"


def _is_fixed_schema(schema: Schema) -> bool:
    return (
        schema.type is Type.BYTES
        and schema.name is not None
        and CONNECT_AVRO_FIXED_SIZE_PROP in schema.parameters
    )


def _non_optional(schema: Schema) -> Schema:
    return schema.replace(optional=False) if schema.optional else schema


def _with_optional(schema: Schema) -> Schema:
    return schema if schema.optional else schema.replace(optional=True)


class _FromContext:
    __slots__ = ("name_index", "schema_map", "seen_named")

    def __init__(self) -> None:
        self.schema_map: dict[Schema, Any] = {}
        self.seen_named: set[str] = set()
        self.name_index = 0


class _AvroNames:
    """Named Avro types met while walking a schema, for resolving references by name."""

    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}

    def resolve(self, node: Any, space: str | None) -> tuple[Any, str | None]:
        """The schema ``node`` stands for (following a name) and the namespace inside it."""
        if isinstance(node, str):
            if node in _AVRO_PRIMITIVES:
                return node, space
            full = node if "." in node or not space else f"{space}.{node}"
            found = self.types.get(full) or self.types.get(node)
            if found is None:
                raise DataError(f"Avro schema refers to unknown type {node!r}")
            return found, found["_space"]
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, list | dict) or (
                isinstance(kind, str) and kind not in _NAMED and kind not in ("array", "map")
            ):
                if isinstance(kind, str) and kind in _AVRO_PRIMITIVES:
                    return node, space
                if isinstance(kind, str):
                    return self.resolve(kind, space)
                return self.resolve(kind, space)
            if kind in _NAMED and "_space" not in node:
                full = _full_name(node, space)
                node = dict(node)
                node["_full"] = full
                node["_space"] = full.rsplit(".", 1)[0] if "." in full else None
                self.types[full] = node
                return node, node["_space"]
            if kind in _NAMED:
                return node, node["_space"]
        return node, space


def _avro_type(node: Any) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, list):
        return "union"
    return str(node["type"])


def _avro_props(node: Any) -> Mapping[str, Any]:
    return node if isinstance(node, dict) else {}


def _avro_equal_null(node: Any) -> bool:
    return node == "null" or (
        isinstance(node, dict) and node.get("type") == "null" and len(node) == 1
    )


class AvroData:
    """Converts Connect schemas and values to Avro and back, as Confluent's ``AvroData``.

    Config keys are those of Confluent's ``AvroDataConfig``: ``enhanced.avro.schema.support``
    (false), ``connect.meta.data`` (true), ``scrub.invalid.names`` (false),
    ``schemas.cache.config`` (1000), ``allow.optional.map.keys`` (false),
    ``flatten.singleton.unions`` (true), ``discard.type.doc.default`` (false),
    ``ignore.default.for.nullables`` (false). Unknown keys are ignored, so a whole converter
    config may be passed.

    Converted schemas and the per-schema value converters are cached (an LRU bounded by
    ``schemas.cache.config``). The caches are not locked: use one instance per task (per
    thread), as converters do.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.settings = AvroDataSettings.parse(config)
        size = self.settings.schemas_cache_size
        self._from_schema_cache = _LRU(size)
        self._to_schema_cache = _LRU(size)
        self._encoders = _LRU(size)
        self._decoders = _LRU(size)
        self._union_index = 0

    # ===================================================================================
    # Connect schema -> Avro schema
    # ===================================================================================
    def from_connect_schema(self, schema: Schema | None) -> Any:
        """The Avro schema for a Connect schema, as ``AvroData.fromConnectSchema`` builds it.

        Args:
            schema: a Connect schema; None (schemaless data) gives Confluent's ``Anything``
                record.

        Returns:
            JSON-able Python data (``dict``, ``list`` for a union, or ``str`` for a plain
            primitive) laid out as Avro Java prints it: named types defined once and then
            referenced by name, namespaces written only where they change. ``json.dumps`` of
            it is the schema text Confluent's converter registers (up to whitespace).

        Raises:
            DataError: for a schema Avro cannot express (e.g. a bad Decimal scale parameter).
        """
        if schema is None:
            return ANYTHING_SCHEMA
        cached = self._from_schema_cache.lookup(schema)
        if cached is not None:
            return cached
        built = self._from_schema(schema, _FromContext(), ignore_optional=False)
        rendered = render_avro_schema(built)
        self._from_schema_cache.store(schema, rendered)
        return rendered

    def _name_or_default(self, ctx: _FromContext, name: str | None) -> tuple[str | None, str]:
        if name is not None:
            return _split_name(name, self.settings.scrub_invalid_names)
        ctx.name_index += 1
        return NAMESPACE, DEFAULT_SCHEMA_NAME + (str(ctx.name_index) if ctx.name_index > 1 else "")

    def _string_map_keys(self, schema: Schema) -> bool:
        key = schema.key_schema
        assert key is not None
        return key.type is Type.STRING and (
            not key.optional or self.settings.allow_optional_map_keys
        )

    def _from_schema(self, schema: Schema, ctx: _FromContext, ignore_optional: bool) -> Any:
        st = self.settings
        if not _is_union_schema(schema) and not schema.optional:
            cached = ctx.schema_map.get(schema)
            if cached is not None:
                return cached
        params = schema.parameters
        connect_type: str | None = None
        base: Any
        kind = schema.type
        if kind is Type.INT8:
            connect_type, base = "int8", {"type": "int"}
        elif kind is Type.INT16:
            connect_type, base = "int16", {"type": "int"}
        elif kind is Type.STRING:
            if (
                st.enhanced_avro_schema_support or st.generalized_sum_type_support
            ) and _is_enum_schema(schema):
                key = (
                    GENERALIZED_TYPE_ENUM
                    if st.generalized_sum_type_support and GENERALIZED_TYPE_ENUM in params
                    else AVRO_TYPE_ENUM
                    if AVRO_TYPE_ENUM in params
                    else GENERALIZED_TYPE_ENUM
                )
                prefix = key + "."
                symbols = [k[len(prefix) :] for k in params if k.startswith(prefix)]
                _, name = self._name_or_default(ctx, schema.name)
                enum_full = params[key]
                base = {"type": "enum", "name": enum_full, "namespace": None}
                if st.discard_type_doc_default:
                    if params.get(CONNECT_ENUM_DOC_PROP) is not None:
                        base["doc"] = params[CONNECT_ENUM_DOC_PROP]
                    base["symbols"] = symbols
                else:
                    doc = params.get(AVRO_ENUM_DOC_PREFIX_PROP + name)
                    if doc is not None:
                        base["doc"] = doc
                    base["symbols"] = symbols
                    default = params.get(AVRO_ENUM_DEFAULT_PREFIX_PROP + name)
                    if default is not None:
                        base["default"] = default
            else:
                base = {"type": "string"}
        elif kind is Type.BYTES:
            if _is_fixed_schema(schema):
                ns, name = self._name_or_default(ctx, schema.name)
                base = {"type": "fixed", "name": f"{ns}.{name}" if ns else name, "namespace": None}
                base["size"] = int(params[CONNECT_AVRO_FIXED_SIZE_PROP])
            else:
                base = {"type": "bytes"}
            if schema.name == Decimal.LOGICAL_NAME:
                base["scale"] = int(params.get(Decimal.SCALE_FIELD, "0"))
                base["precision"] = int(
                    params.get(
                        CONNECT_AVRO_DECIMAL_PRECISION_PROP, CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT
                    )
                )
        elif kind in _PRIMITIVE_AVRO:
            base = {"type": _PRIMITIVE_AVRO[kind]}
        elif kind is Type.ARRAY:
            assert schema.value_schema is not None
            base = {"type": "array", "items": self._from_schema(schema.value_schema, ctx, False)}
        elif kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if self._string_map_keys(schema):
                base = {"type": "map", "values": self._from_schema(schema.value_schema, ctx, False)}
            else:
                if schema.name is None:
                    entry: dict[str, Any] = {
                        "type": "record",
                        "name": f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}",
                    }
                else:
                    ns, name = self._name_or_default(ctx, schema.name)
                    entry = {
                        "type": "record",
                        "name": f"{ns}.{name}" if ns else name,
                        "namespace": None,
                    }
                fields: list[dict[str, Any]] = []
                self._add_field(fields, KEY_FIELD, schema.key_schema, None, ctx)
                self._add_field(fields, VALUE_FIELD, schema.value_schema, None, ctx)
                entry["fields"] = fields
                if schema.name is not None:
                    entry[CONNECT_INTERNAL_TYPE_NAME] = MAP_ENTRY_TYPE_NAME
                base = {"type": "array", "items": entry}
        elif kind is Type.STRUCT:
            if _is_variant_schema(schema) and not schema.optional:
                base = {
                    "type": "record",
                    "name": VARIANT_AVRO_RECORD,
                    "namespace": None,
                    "fields": [
                        {"name": "metadata", "type": "bytes"},
                        {"name": "value", "type": "bytes"},
                    ],
                    _LOGICAL_TYPE: VARIANT_AVRO_LOGICAL_TYPE,
                }
            elif _is_union_schema(schema):
                members: list[Any] = ["null"] if schema.optional else []
                for field in schema.fields:
                    members.append(self._from_schema(_non_optional(field.schema), ctx, True))
                if not schema.optional:
                    ctx.schema_map[schema] = members
                return members
            elif schema.optional:
                inner = self._from_schema(_non_optional(schema), ctx, False)
                union = [inner, "null"] if schema.default is not None else ["null", inner]
                return union
            else:
                base = self._record_from_struct(schema, ctx)
        else:  # pragma: no cover - every Type is handled above
            raise DataError(f"Unknown schema type: {kind}")
        return self._finish_from_schema(schema, base, connect_type, ctx, ignore_optional)

    def _record_from_struct(self, schema: Schema, ctx: _FromContext) -> dict[str, Any]:
        st = self.settings
        params = schema.parameters
        ns, name = self._name_or_default(ctx, schema.name)
        # "namespace": None marks a name without one (not inherited), for _render.
        base: dict[str, Any] = {
            "type": "record",
            "name": f"{ns}.{name}" if ns else name,
            "namespace": None,
        }
        doc_key = CONNECT_RECORD_DOC_PROP if st.discard_type_doc_default else AVRO_RECORD_DOC_PROP
        if params.get(doc_key) is not None:
            base["doc"] = params[doc_key]
        fields: list[dict[str, Any]] = []
        for field in schema.fields:
            field_doc = None
            if not st.discard_type_doc_default:
                field_doc = params.get(AVRO_FIELD_DOC_PREFIX_PROP + field.name)
            self._add_field(
                fields,
                scrub_name(field.name) if st.scrub_invalid_names else field.name,
                field.schema,
                field_doc,
                ctx,
            )
        base["fields"] = fields
        return base

    def _finish_from_schema(
        self,
        schema: Schema,
        base: Any,
        connect_type: str | None,
        ctx: _FromContext,
        ignore_optional: bool,
    ) -> Any:
        st = self.settings
        params = schema.parameters
        if st.connect_meta_data:
            if schema.doc is not None:
                base[CONNECT_DOC_PROP] = schema.doc
            if schema.version is not None:
                base[CONNECT_VERSION_PROP] = schema.version
            cparams = self._parameters_from_connect(params)
            if cparams:
                base[CONNECT_PARAMETERS_PROP] = cparams
            if schema.default is not None and (
                st.discard_type_doc_default or AVRO_FIELD_DEFAULT_FLAG_PROP not in params
            ):
                base[CONNECT_DEFAULT_VALUE_PROP] = self._checked_default(
                    schema, f"schema {schema.name or schema.type.value!r}"
                )
            if schema.name is not None:
                base[CONNECT_NAME_PROP] = schema.name
            if connect_type is not None:
                base[CONNECT_TYPE_PROP] = connect_type
        logical_name = schema.name
        if logical_name is not None:
            name = logical_name
            if name == Decimal.LOGICAL_NAME:
                # Avro refuses a scale outside [0, precision]; Confluent then keeps only its
                # legacy logicalType property, which the next block adds.
                base.setdefault(_LOGICAL_TYPE, "decimal")
            elif name == Time.LOGICAL_NAME:
                base[_LOGICAL_TYPE] = "time-millis"
            elif name == Timestamp.LOGICAL_NAME:
                base[_LOGICAL_TYPE] = "timestamp-millis"
            elif name == Date.LOGICAL_NAME:
                base[_LOGICAL_TYPE] = "date"
        for key, value in params.items():
            if key.startswith(_AVRO_PROP):
                base[key] = value
        result = base
        if len(base) == 1 and base["type"] in _AVRO_PRIMITIVES:
            result = base["type"]
        if not ignore_optional and schema.optional:
            result = [result, "null"] if schema.default is not None else ["null", result]
        if not schema.optional:
            ctx.schema_map[schema] = result
        return result

    def _parameters_from_connect(self, params: Mapping[str, str]) -> dict[str, str]:
        discard = self.settings.discard_type_doc_default
        return {k: v for k, v in params.items() if discard or k != AVRO_FIELD_DEFAULT_FLAG_PROP}

    def _add_field(
        self,
        fields: list[dict[str, Any]],
        name: str,
        schema: Schema,
        doc: str | None,
        ctx: _FromContext,
    ) -> None:
        st = self.settings
        scrubbed = _scrub_full_name(schema.name, st.scrub_invalid_names)
        already_seen = scrubbed is not None and scrubbed in ctx.seen_named
        if scrubbed is not None:
            ctx.seen_named.add(scrubbed)
        avro = self._from_schema(schema, ctx, False)
        field: dict[str, Any] = {"name": name, "type": avro}
        field_doc = schema.doc if st.discard_type_doc_default else doc
        if field_doc is not None:
            field["doc"] = field_doc
        if schema.default is not None:
            field["default"] = self._checked_default(schema, f"field {name!r}")
        elif schema.optional:
            field["default"] = None
        if st.connect_meta_data and already_seen and schema.parameters and _has_named_branch(avro):
            fparams = self._parameters_from_connect(schema.parameters)
            if fparams:
                field[CONNECT_PARAMETERS_PROP] = fparams
        fields.append(field)

    def _checked_default(self, schema: Schema, where: str) -> Any:
        try:
            validate_value(schema, schema.default)
            return self._default_from_connect(schema, schema.default)
        except DataError as exc:
            raise DataError(
                f"{where}: the default value {schema.default!r:.80} does not fit its schema: {exc}"
            ) from None
        except Exception as exc:
            raise DataError(
                f"{where}: the default value {schema.default!r:.80} cannot be written as Avro: "
                f"{type(exc).__name__}: {exc}"
            ) from None

    def _default_from_connect(self, schema: Schema, value: Any) -> Any:
        if value is None:
            return None
        convert = _LOGICAL_TO_AVRO.get(schema.name or "")
        if convert is not None:
            value = convert(schema, value)
        kind = schema.type
        if kind in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            return int(value)
        if kind in (Type.FLOAT32, Type.FLOAT64):
            return float(value)
        if kind in (Type.BOOLEAN, Type.STRING):
            return value
        if kind is Type.BYTES:
            return bytes(value).decode("latin-1")
        if kind is Type.ARRAY:
            assert schema.value_schema is not None
            return [self._default_from_connect(schema.value_schema, v) for v in value]
        if kind is Type.MAP:
            assert schema.value_schema is not None and schema.key_schema is not None
            if self._string_map_keys(schema):
                return {
                    k: self._default_from_connect(schema.value_schema, v) for k, v in value.items()
                }
            return [
                [
                    self._default_from_connect(schema.key_schema, k),
                    self._default_from_connect(schema.value_schema, v),
                ]
                for k, v in value.items()
            ]
        # STRUCT
        out: dict[str, Any] = {}
        for field in schema.fields:
            field_default = self._default_from_connect(field.schema, value.get(field))
            if _is_union_schema(schema):
                return field_default
            name = scrub_name(field.name) if self.settings.scrub_invalid_names else field.name
            out[name] = field_default
        return out

    # ===================================================================================
    # Connect value -> Avro datum
    # ===================================================================================
    def from_connect_data(self, schema: Schema | None, value: Any) -> Any:
        """The Avro datum for a Connect value, as ``AvroData.fromConnectData`` builds it.

        Args:
            schema: the value's Connect schema, or None for schemaless data.
            value: the Connect value (Struct, list, dict, Python logical-type objects...).

        Returns:
            A datum ``fastavro.schemaless_writer`` accepts with
            ``from_connect_schema(schema)``: records as dicts keyed by (scrubbed) field name,
            logical types in their underlying Avro form (Decimal as bytes, Date as days...),
            maps with non-string keys as lists of ``{"key", "value"}`` records, and members of
            unions of named types as ``(name, datum)`` tuples.

        Raises:
            DataError: when the value does not fit the schema (null for a required schema, a
                wrong Python type, a Struct of another schema).
        """
        return self.encoder(schema)(value)

    def encoder(self, schema: Schema | None) -> Callable[[Any], Any]:
        """A prepared ``value -> datum`` function for one schema (cached)."""
        if schema is None:
            return self._schemaless_top
        found: Callable[[Any], Any] | None = self._encoders.lookup(schema)
        if found is None:
            avro = self.from_connect_schema(schema)
            found = self._compile_encoder(schema, avro, _AvroNames(), None, top=True)
            self._encoders.store(schema, found)
        return found

    def _schemaless_top(self, value: Any) -> Any:
        if value is None:
            return None
        return _to_anything(value)

    def _compile_encoder(
        self, schema: Schema, avro: Any, names: _AvroNames, space: str | None, *, top: bool = False
    ) -> Callable[[Any], Any]:
        return self._compile_field_encoder(schema, avro, names, space)[0]

    def _compile_field_encoder(
        self, schema: Schema, avro: Any, names: _AvroNames, space: str | None
    ) -> tuple[Callable[[Any], Any], str | None]:
        """The encoder of ``schema``'s values and, for a plain primitive, its inline test."""
        avro, space = names.resolve(avro, space)
        optional = schema.optional
        if isinstance(avro, list) and not _is_union_schema(schema):
            # An optional schema: [null, T] or [T, null]. Pick T's node.
            member = next(m for m in avro if not _avro_equal_null(m))
            avro, space = names.resolve(member, space)
        inner = self._compile_encoder_inner(schema, avro, names, space)
        kind = _INLINE_KINDS.get(inner)
        test = None if kind is None else inline_check(kind)
        what = schema.type.value
        if optional:

            def opt(value: Any) -> Any:
                return None if value is None else inner(value)

            return opt, None if test is None else "({v} is None or " + test + ")"
        if schema.type is Type.STRUCT and not _is_union_schema(schema):
            return inner, None  # refuses null itself, saving a call per record

        def required(value: Any) -> Any:
            if value is None:
                raise DataError(f"Found null value for non-optional schema ({what})")
            return inner(value)

        return required, test

    def _compile_encoder_inner(
        self, schema: Schema, avro: Any, names: _AvroNames, space: str | None
    ) -> Callable[[Any], Any]:
        st = self.settings
        logical = _LOGICAL_TO_AVRO.get(schema.name or "")
        kind = schema.type
        if logical is not None:
            return _logical_encoder(schema, logical)
        if kind is Type.BYTES:
            if _is_fixed_schema(schema):
                return _fixed_check(int(schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP]))
            return _bytes_check
        if kind is Type.STRING:
            if isinstance(avro, dict) and avro.get("type") == "enum":
                return _enum_check(frozenset(avro["symbols"]), str(avro["_full"]))
            return _string_check
        if kind.is_primitive:
            return _PRIMITIVE_CHECKS[kind]
        if kind is Type.ARRAY:
            assert schema.value_schema is not None
            item = self._compile_encoder(schema.value_schema, avro["items"], names, space)

            def array(value: Any) -> Any:
                if not isinstance(value, list | tuple):
                    raise _wrong_type("array", "a list", value)
                try:
                    return [item(v) for v in value]
                except DataError as exc:
                    index = next(i for i, v in enumerate(value) if _fails(item, v))
                    raise _nested(exc, f"[{index}]") from exc.__cause__

            return array
        if kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if isinstance(avro, dict) and avro.get("type") == "map":
                val = self._compile_encoder(schema.value_schema, avro["values"], names, space)
                key_check = self._compile_encoder(schema.key_schema, "string", names, space)

                def string_map(value: Any) -> Any:
                    if not isinstance(value, Mapping):
                        raise _wrong_type("map", "a dict", value)
                    try:
                        return {key_check(k): val(v) for k, v in value.items()}
                    except DataError as exc:
                        k = next(
                            k for k, v in value.items() if _fails(key_check, k) or _fails(val, v)
                        )
                        raise _nested(exc, f"[{k!r}]") from exc.__cause__

                return string_map
            entry, espace = names.resolve(avro["items"], space)
            ftypes = {f["name"]: f["type"] for f in entry["fields"]}
            key = self._compile_encoder(schema.key_schema, ftypes[KEY_FIELD], names, espace)
            val = self._compile_encoder(schema.value_schema, ftypes[VALUE_FIELD], names, espace)

            def entry_map(value: Any) -> Any:
                if not isinstance(value, Mapping):
                    raise _wrong_type("map", "a dict", value)
                try:
                    return [{"key": key(k), "value": val(v)} for k, v in value.items()]
                except DataError as exc:
                    k = next(k for k, v in value.items() if _fails(key, k) or _fails(val, v))
                    raise _nested(exc, f"[{k!r}]") from exc.__cause__

            return entry_map
        # STRUCT
        if _is_union_schema(schema):
            return self._compile_union_encoder(schema, avro, names, space)
        avro_fields = {f["name"]: f["type"] for f in avro["fields"]}
        names_out: list[str] = []
        convs: list[Callable[[Any], Any]] = []
        tests: list[str | None] = []
        for field in schema.fields:
            fname = scrub_name(field.name) if st.scrub_invalid_names else field.name
            names_out.append(fname)
            conv, test = self._compile_field_encoder(field.schema, avro_fields[fname], names, space)
            convs.append(conv)
            tests.append(test)
        defaults = [f.schema.default for f in schema.fields]
        has_defaults = any(d is not None for d in defaults) and not st.ignore_default_for_nullables
        names_t = tuple(names_out)
        convs_t = tuple(convs)
        field_names = tuple(f.name for f in schema.fields)
        struct_schema = schema

        def struct_to_record(value: Any) -> Any:
            if type(value) is not Struct and not isinstance(value, Struct):
                if value is None:
                    raise DataError("Found null value for non-optional schema (struct)")
                raise _wrong_type("struct", "a Struct", value)
            if value.schema is not struct_schema and value.schema != struct_schema:
                raise DataError("Mismatching struct schema")
            values = struct_values(value)
            if has_defaults:
                # Lengths match by construction (one value per field); strict zips cost more.
                values = [d if v is None else v for v, d in zip(values, defaults, strict=False)]
            try:
                return {n: c(v) for n, c, v in zip(names_t, convs_t, values, strict=False)}
            except DataError as exc:
                for name, conv, v in zip(field_names, convs_t, values, strict=True):
                    if _fails(conv, v):
                        raise _nested(exc, name) from exc.__cause__
                raise

        return record_encoder(
            schema,
            names=names_out,
            convs=convs,
            tests=tests,
            defaults=defaults if has_defaults else None,
            generic=struct_to_record,
        )

    def _compile_union_encoder(
        self, schema: Schema, avro: Any, names: _AvroNames, space: str | None
    ) -> Callable[[Any], Any]:
        members = [m for m in avro if not _avro_equal_null(m)]
        plans: list[tuple[Field, Callable[[Any], Any], str | None]] = []
        for field, member in zip(schema.fields, members, strict=False):
            node, mspace = names.resolve(member, space)
            conv = self._compile_encoder(field.schema, node, names, mspace)
            tag = node["_full"] if isinstance(node, dict) and "_full" in node else None
            plans.append((field, conv, tag))
        ignore = self.settings.ignore_default_for_nullables
        optional = schema.optional

        def union(value: Any) -> Any:
            if not isinstance(value, Struct):
                raise _wrong_type("union", "a Struct", value)
            if value.schema != schema:
                raise DataError("Mismatching struct schema")
            for field, conv, tag in plans:
                item = value.get_without_default(field) if ignore else value.get(field)
                if item is not None:
                    try:
                        datum = conv(item)
                    except DataError as exc:
                        raise _nested(exc, field.name) from exc.__cause__
                    return (tag, datum) if tag is not None else datum
            if not optional:
                raise DataError("Found null value for non-optional union: no member is set")
            return None

        return union

    # ===================================================================================
    # Avro schema -> Connect schema
    # ===================================================================================
    def to_connect_schema(self, avro_schema: Any, version: int | None = None) -> Schema:
        """The Connect schema for an Avro schema, as ``AvroData.toConnectSchema`` builds it.

        Args:
            avro_schema: the Avro schema as JSON-able data (or its JSON text).
            version: the registry version to use when the schema has no ``connect.version``.

        Returns:
            The Connect schema: ``connect.*`` properties restore names, docs, versions,
            parameters, defaults and int8/int16; Avro logical types become Connect's;
            ``[null, T]`` unions become optional T; other unions become structs named
            ``io.confluent.connect.avro.Union``; enums become strings with
            ``io.confluent.connect.avro.Enum`` parameters; arrays of ``MapEntry`` become maps.

        Raises:
            DataError: for schemas Connect cannot express (a standalone null, recursion).
        """
        import json

        if isinstance(avro_schema, str) and avro_schema.lstrip().startswith(("{", "[", '"')):
            avro_schema = json.loads(avro_schema)
        key = (json.dumps(avro_schema, sort_keys=True), version)
        cached: Schema | None = self._to_schema_cache.lookup(key)
        if cached is not None:
            return cached
        if avro_schema == ANYTHING_SCHEMA or (
            isinstance(avro_schema, dict)
            and avro_schema.get("type") == "record"
            and _full_name(avro_schema, None) == AVRO_TYPE_ANYTHING
        ):
            raise DataError(
                "the Anything schema stands for schemaless data; it has no Connect schema"
            )
        result = self._to_schema(avro_schema, _AvroNames(), None, False, None, None, version, set())
        self._to_schema_cache.store(key, result)
        return result

    def _to_schema(  # noqa: PLR0917  (the parameters of Confluent's toConnectSchema)
        self,
        node: Any,
        names: _AvroNames,
        space: str | None,
        force_optional: bool,
        field_default: Any,
        doc_default: str | None,
        version: int | None,
        stack: set[str],
        field_default_set: bool = False,
    ) -> Schema:
        st = self.settings
        node, space = names.resolve(node, space)
        kind = _avro_type(node)
        props = _avro_props(node)
        connect_type = props.get(CONNECT_TYPE_PROP)
        logical = props.get(_LOGICAL_TYPE)
        builder: SchemaBuilder
        if kind == "boolean":
            builder = SchemaBuilder.boolean()
        elif kind in ("bytes", "fixed"):
            if isinstance(logical, str) and logical.lower() == "decimal":
                scale = props.get("scale")
                builder = Decimal.builder(scale if isinstance(scale, int) else 0)
                precision = props.get("precision")
                if precision is not None:
                    if not isinstance(precision, int) or isinstance(precision, bool):
                        raise DataError(
                            "precision property must be a JSON Integer. "
                            "https://avro.apache.org/docs/1.9.1/spec.html#Decimal"
                        )
                    if precision != CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT:
                        builder.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP, str(precision))
            else:
                builder = SchemaBuilder.bytes()
            if kind == "fixed":
                builder.parameter(CONNECT_AVRO_FIXED_SIZE_PROP, str(node["size"]))
        elif kind == "double":
            builder = SchemaBuilder.float64()
        elif kind == "float":
            builder = SchemaBuilder.float32()
        elif kind == "int":
            if connect_type is None and logical is None:
                builder = SchemaBuilder.int32()
            elif logical is not None:
                lt = str(logical).lower()
                if lt == "date":
                    builder = Date.builder()
                elif lt == "time-millis":
                    builder = Time.builder()
                else:
                    builder = SchemaBuilder.int32()
            elif connect_type == "int8":
                builder = SchemaBuilder.int8()
            elif connect_type == "int16":
                builder = SchemaBuilder.int16()
            else:
                raise DataError("Connect type annotation for Avro int field is null")
        elif kind == "long":
            if isinstance(logical, str) and logical.lower() == "timestamp-millis":
                builder = Timestamp.builder()
            else:
                builder = SchemaBuilder.int64()
        elif kind == "string":
            builder = SchemaBuilder.string()
        elif kind == "array":
            items, ispace = names.resolve(node["items"], space)
            if self._is_map_entry(items):
                if items["_full"] in stack:
                    raise DataError(
                        f"recursive Avro schema {items['_full']!r}: kconnect does not map cyclic "
                        f"schemas yet"
                    )
                stack = stack | {items["_full"]}
                fdict = {f["name"]: f["type"] for f in items["fields"]}
                if len(items["fields"]) != 2 or KEY_FIELD not in fdict or VALUE_FIELD not in fdict:
                    raise DataError(
                        "Found map encoded as array of key-value pairs, but array elements do not "
                        "match the expected format."
                    )
                builder = SchemaBuilder.map(
                    self._to_schema(
                        fdict[KEY_FIELD], names, ispace, False, None, None, None, stack
                    ),
                    self._to_schema(
                        fdict[VALUE_FIELD], names, ispace, False, None, None, None, stack
                    ),
                )
            else:
                builder = SchemaBuilder.array(
                    self._to_schema(items, names, ispace, False, None, None, None, stack)
                )
        elif kind == "map":
            builder = SchemaBuilder.map(
                Schema.STRING,
                self._to_schema(node["values"], names, space, False, None, None, None, stack),
            )
        elif kind in ("record", "error") and _is_variant_record(node):
            builder = (
                SchemaBuilder.struct()
                .name(VARIANT_LOGICAL_NAME)
                .field("metadata", Schema.BYTES)
                .field("value", Schema.BYTES)
            )
        elif kind in ("record", "error"):
            full = node["_full"]
            if full in stack:
                raise DataError(
                    f"recursive Avro schema {full!r}: kconnect does not map cyclic schemas yet"
                )
            stack = stack | {full}
            builder = SchemaBuilder.struct()
            if (
                not st.discard_type_doc_default
                and st.connect_meta_data
                and node.get("doc") is not None
            ):
                builder.parameter(AVRO_RECORD_DOC_PROP, node["doc"])
            for field in node["fields"]:
                fdoc = field.get("doc")
                if not st.discard_type_doc_default and st.connect_meta_data and fdoc is not None:
                    builder.parameter(AVRO_FIELD_DOC_PREFIX_PROP + field["name"], fdoc)
                fschema = self._to_schema(
                    field["type"],
                    names,
                    space,
                    False,
                    field.get("default"),
                    fdoc,
                    None,
                    stack,
                    field_default_set="default" in field,
                )
                fparams = field.get(CONNECT_PARAMETERS_PROP)
                if st.connect_meta_data and isinstance(fparams, dict):
                    fschema = _apply_field_params(fschema, fparams)
                builder.field(field["name"], fschema)
        elif kind == "enum":
            builder = SchemaBuilder.string()
            short = node["_full"].rsplit(".", 1)[-1]
            if st.connect_meta_data:
                if node.get("doc") is not None:
                    builder.parameter(
                        CONNECT_ENUM_DOC_PROP
                        if st.discard_type_doc_default
                        else AVRO_ENUM_DOC_PREFIX_PROP + short,
                        node["doc"],
                    )
                if not st.discard_type_doc_default and node.get("default") is not None:
                    builder.parameter(AVRO_ENUM_DEFAULT_PREFIX_PROP + short, node["default"])
            if st.generalized_sum_type_support:
                builder.parameter(GENERALIZED_TYPE_ENUM, node["_full"])
                for index, symbol in enumerate(node["symbols"]):
                    builder.parameter(f"{GENERALIZED_TYPE_ENUM}.{symbol}", str(index))
            else:
                builder.parameter(AVRO_TYPE_ENUM, node["_full"])
                for symbol in node["symbols"]:
                    builder.parameter(f"{AVRO_TYPE_ENUM}.{symbol}", symbol)
        elif kind == "union":
            members: list[Any] = node
            if len(members) == 1 and st.flatten_singleton_unions:
                return self._to_schema(
                    members[0], names, space, False, None, doc_default, None, stack
                )
            if len(members) == 2 and any(_avro_equal_null(m) for m in members):
                other = next(m for m in members if not _avro_equal_null(m))
                return self._to_schema(other, names, space, True, None, doc_default, None, stack)
            if st.generalized_sum_type_support:
                # Numbered per AvroData, as Confluent's converter numbers them.
                union_name = f"{GENERALIZED_TYPE_UNION_PREFIX}{self._union_index}"
                self._union_index += 1
                builder = SchemaBuilder.struct().name(union_name)
                builder.parameter(GENERALIZED_TYPE_UNION, union_name)
            else:
                builder = SchemaBuilder.struct().name(AVRO_TYPE_UNION)
            seen: set[str] = set()
            for index, member in enumerate(members):
                if _avro_equal_null(member):
                    builder.optional()
                    continue
                resolved, mspace = names.resolve(member, space)
                fname = self._union_member_name(resolved, index)
                if fname in seen:
                    raise DataError("Multiple union schemas map to the Connect union field name")
                seen.add(fname)
                builder.field(
                    fname, self._to_schema(resolved, names, mspace, True, None, None, None, stack)
                )
            schema = builder.build()
            if field_default_set and field_default is not None:
                first, fspace = names.resolve(members[0], space)
                if not _avro_equal_null(first):
                    fname = self._union_member_name(first, 0)
                    member_schema = schema.field(fname)
                    assert member_schema is not None
                    try:
                        member_default = self._default_from_avro(
                            member_schema.schema, first, field_default, names, fspace
                        )
                        schema = _rebuild(schema, default=Struct(schema).put(fname, member_default))
                    except Exception as exc:
                        log.warning("Ignoring invalid default for union %s: %s", fname, exc)
            return _with_optional(schema) if force_optional else schema
        elif kind == "null":
            raise DataError("Standalone null schemas are not supported by this converter")
        else:
            raise DataError(f"Couldn't translate unsupported schema type {kind}.")

        if st.discard_type_doc_default:
            doc_val = (
                doc_default
                if doc_default is not None
                else (
                    props.get("doc")
                    if props.get("doc") is not None
                    else props.get(CONNECT_DOC_PROP)
                )
            )
            if doc_val is not None:
                builder.doc(doc_val)
            if st.connect_meta_data and props.get("doc") is not None:
                builder.parameter(CONNECT_RECORD_DOC_PROP, props["doc"])
        else:
            doc_val = props.get(CONNECT_DOC_PROP)
            if st.connect_meta_data and doc_val is not None:
                builder.doc(doc_val)

        version_node = props.get(CONNECT_VERSION_PROP)
        version_int = -1
        if version_node is not None:
            if not isinstance(version_node, int) or isinstance(version_node, bool):
                raise DataError(f"Invalid Connect version found: {version_node}")
            version_int = version_node
        elif version is not None:
            version_int = version
        if version_int >= 0:
            current = builder._version
            if current is not None and current != version_int:
                raise DataError(
                    f"Mismatched versions: version already added to SchemaBuilder ({current}) "
                    f"differs from version in source schema ({version_int})"
                )
            if current is None:
                builder.version(version_int)

        cparams = props.get(CONNECT_PARAMETERS_PROP)
        if st.connect_meta_data and cparams is not None:
            if not isinstance(cparams, dict):
                raise DataError(f"Expected JSON object for schema parameters but found: {cparams}")
            for k, v in cparams.items():
                if not isinstance(v, str):
                    raise DataError(
                        f"Expected schema parameter values to be strings but found: {v}"
                    )
                builder.parameter(k, v)
        for k, v in props.items():
            if k.startswith(_AVRO_PROP):
                builder.parameter(k, v if isinstance(v, str) else _json_text(v))

        connect_default = props.get(CONNECT_DEFAULT_VALUE_PROP)
        default_json: Any = field_default
        has_default = field_default_set
        if not field_default_set:
            default_json = connect_default
            has_default = connect_default is not None
        elif not st.discard_type_doc_default and st.connect_meta_data and connect_default is None:
            builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, "true")
        name: str | None = None
        cname = props.get(CONNECT_NAME_PROP)
        if cname is not None:
            if not isinstance(cname, str):
                raise DataError(f"Invalid schema name: {cname}")
            name = cname
        elif (kind in ("record", "error", "enum") and builder._name != VARIANT_LOGICAL_NAME) or (
            kind == "fixed" and builder._name != Decimal.LOGICAL_NAME
        ):
            name = node["_full"]
        if name is not None and not name.startswith(DEFAULT_SCHEMA_FULL_NAME):
            if builder._name is not None:
                if builder._name != name:
                    raise DataError(
                        f"Mismatched names: name already added to SchemaBuilder ({builder._name}) "
                        f"differs from name in source schema ({name})"
                    )
            else:
                builder.name(name)
        if force_optional:
            builder.optional()
        built = builder.build()
        if has_default and default_json is not None:
            try:
                default = self._default_from_avro(built, node, default_json, names, space)
                built = _rebuild(built, default=default)
            except Exception as exc:
                # Like Confluent: the schema is still usable, without that default.
                log.warning("Ignoring invalid default for schema %s: %s", name or kind, exc)
        return built

    def _is_map_entry(self, node: Any) -> bool:
        if not isinstance(node, dict) or node.get("type") != "record":
            return False
        if node["_full"] == f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}":
            return True
        return bool(node.get(CONNECT_INTERNAL_TYPE_NAME) == MAP_ENTRY_TYPE_NAME)

    def _union_member_name(self, node: Any, index: int) -> str:
        if self.settings.generalized_sum_type_support:
            return f"{GENERALIZED_TYPE_UNION_FIELD_PREFIX}{index}"
        kind = _avro_type(node)
        if kind in _NAMED:
            full: str = node["_full"]
            if self.settings.enhanced_avro_schema_support:
                return full
            return full.rsplit(".", 1)[-1]
        return kind

    def _default_from_avro(
        self, schema: Schema, node: Any, value: Any, names: _AvroNames, space: str | None
    ) -> Any:
        raw = self._default_from_avro_raw(schema, node, value, names, space)
        convert = _LOGICAL_TO_CONNECT.get(schema.name or "")
        if convert is not None and raw is not None:
            return convert(schema, raw)
        return raw

    def _default_from_avro_raw(
        self, schema: Schema, node: Any, value: Any, names: _AvroNames, space: str | None
    ) -> Any:
        if value is None:
            return None
        node, space = names.resolve(node, space)
        kind = _avro_type(node)
        if kind == "int":
            return int(value)
        if kind == "long":
            return int(value)
        if kind in ("float", "double"):
            return float(value)
        if kind == "boolean":
            return bool(value)
        if kind in ("string", "enum"):
            return str(value)
        if kind in ("bytes", "fixed"):
            return str(value).encode("latin-1")
        if kind == "array":
            if schema.type is Type.MAP:
                assert schema.key_schema is not None and schema.value_schema is not None
                entry, espace = names.resolve(node["items"], space)
                ft = {f["name"]: f["type"] for f in entry["fields"]}
                out_map: dict[Any, Any] = {}
                for item in value:
                    k, v = (
                        (item[0], item[1])
                        if isinstance(item, list)
                        else (item["key"], item["value"])
                    )
                    out_map[
                        self._default_from_avro(schema.key_schema, ft["key"], k, names, espace)
                    ] = self._default_from_avro(schema.value_schema, ft["value"], v, names, espace)
                return out_map
            assert schema.value_schema is not None
            return [
                self._default_from_avro(schema.value_schema, node["items"], v, names, space)
                for v in value
            ]
        if kind == "map":
            assert schema.value_schema is not None
            return {
                k: self._default_from_avro(schema.value_schema, node["values"], v, names, space)
                for k, v in value.items()
            }
        if kind in ("record", "error"):
            struct = Struct(schema)
            for afield in node["fields"]:
                field = schema.field(afield["name"])
                assert field is not None
                fvalue = value.get(afield["name"], afield.get("default"))
                struct.put(
                    afield["name"],
                    self._default_from_avro(field.schema, afield["type"], fvalue, names, space),
                )
            return struct
        if kind == "union":
            first, fspace = names.resolve(node[0], space)
            if _avro_equal_null(first):
                return None
            if _is_union_schema(schema):
                fname = self._union_member_name(first, 0)
                member = schema.field(fname)
                assert member is not None
                return self._default_from_avro(member.schema, first, value, names, fspace)
            return self._default_from_avro(schema, first, value, names, fspace)
        return None

    # ===================================================================================
    # Avro datum -> Connect value
    # ===================================================================================
    def to_connect_data(self, schema: Schema | None, datum: Any) -> Any:
        """The Connect value for an Avro datum, as ``AvroData.toConnectData`` builds it.

        Args:
            schema: the Connect schema of the datum (from :meth:`to_connect_schema`), or None
                for data written with the ``Anything`` schema.
            datum: the datum as ``fastavro``'s readers return it, with or without logical
                type conversion (``datetime.date`` or days, ``decimal.Decimal`` or bytes...).
                Union members may be plain or ``(name, datum)`` tuples.

        Returns:
            Structs for records, dicts for maps, lists for arrays, Python logical types for
            Connect's logical types (Decimal, date, UTC time, UTC datetime).

        Raises:
            DataError: when the datum does not fit the schema.
        """
        try:
            if schema is None:
                return _from_anything(datum)
            names_of = scrub_name if self.settings.scrub_invalid_names else _identity
            _check_datum(schema, datum, names_of)
            return self.decoder(schema)(datum)
        except DataError:
            raise
        except Exception as exc:
            raise DataError(
                f"Avro data does not fit its Connect schema: {type(exc).__name__}: {exc}"
            ) from exc

    def decoder(self, schema: Schema) -> Callable[[Any], Any]:
        """A prepared ``datum -> value`` function for one Connect schema (cached)."""
        found: Callable[[Any], Any] | None = self._decoders.lookup(schema)
        if found is None:
            found = self._compile_decoder(schema)
            self._decoders.store(schema, found)
        return found

    def _compile_decoder(self, schema: Schema) -> Callable[[Any], Any]:
        inner = self._compile_decoder_inner(schema)
        if inner is _identity and not schema.optional:
            return _required_identity
        if schema.optional:
            if inner is _identity:
                return _identity

            def opt(datum: Any) -> Any:
                return None if datum is None else inner(datum)

            return opt
        what = schema.type.value

        def required(datum: Any) -> Any:
            if datum is None:
                raise DataError(f"Found null value for non-optional schema ({what})")
            return inner(datum)

        return required

    def _compile_decoder_inner(self, schema: Schema) -> Callable[[Any], Any]:
        st = self.settings
        logical = _LOGICAL_TO_CONNECT.get(schema.name or "")
        named = _is_enum_schema(schema) or _is_fixed_schema(schema)
        if logical is not None:
            if named:
                return lambda datum: logical(schema, _untagged(datum))
            return lambda datum: logical(schema, datum)
        kind = schema.type
        if named:
            # An Avro enum or fixed: a member of a union read with its type's name.
            if kind is Type.BYTES:
                return lambda datum: bytes(_untagged(datum))
            return _untagged
        if kind is Type.BYTES:
            return lambda datum: bytes(datum) if type(datum) is not bytes else datum
        if kind.is_primitive:
            return _identity
        if kind is Type.ARRAY:
            assert schema.value_schema is not None
            item = self._compile_decoder(schema.value_schema)
            if item is _identity:
                return list
            return lambda datum: [item(v) for v in datum]
        if kind is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            val = self._compile_decoder(schema.value_schema)
            if schema.key_schema.type is Type.STRING and not schema.key_schema.optional:

                def string_map(datum: Any) -> Any:
                    if isinstance(datum, list):
                        return {e["key"]: val(e["value"]) for e in datum}
                    return {k: val(v) for k, v in datum.items()}

                return string_map
            key = self._compile_decoder(schema.key_schema)
            return lambda datum: {key(e["key"]): val(e["value"]) for e in datum}
        if _is_union_schema(schema):
            return self._compile_union_decoder(schema)
        fields = schema.fields
        names_t = tuple(scrub_name(f.name) if st.scrub_invalid_names else f.name for f in fields)
        convs = tuple(self._compile_decoder(f.schema) for f in fields)
        all_plain = all(c in _PLAIN for c in convs)
        # Values as fastavro read them for the field schemas: no per-value checks.
        make_struct = struct_maker(schema)
        required = tuple(
            (i, n)
            for i, (n, f) in enumerate(zip(names_t, fields, strict=True))
            if not f.schema.optional
        )

        def record_to_struct(datum: Any) -> Any:
            if type(datum) is tuple:
                datum = datum[1]
            if all_plain:
                values = list(map(datum.get, names_t))
                if required and None in values:
                    for i, name in required:
                        if values[i] is None:
                            raise DataError(f"Found null value for non-optional field {name!r}")
            else:
                get = datum.get
                values = [c(get(n)) for n, c in zip(names_t, convs, strict=False)]
            return make_struct(values)

        if not all_plain or len(names_t) < 2:
            return record_to_struct
        # The usual record: every field read as it comes. fastavro's dict holds every
        # field, so one itemgetter call reads them all; anything else (a missing key, a
        # null in a required field, a named-union tuple) takes record_to_struct.
        pick = itemgetter(*names_t)
        null_forbidden = bool(required)

        def plain_record_to_struct(datum: Any) -> Any:
            try:
                values = list(pick(datum))
            except (KeyError, TypeError):
                return record_to_struct(datum)
            if null_forbidden and None in values:
                return record_to_struct(datum)
            return make_struct(values)

        return plain_record_to_struct

    def _compile_union_decoder(self, schema: Schema) -> Callable[[Any], Any]:
        plans: list[tuple[str, Schema, Callable[[Any], Any]]] = [
            (f.name, f.schema, self._compile_decoder(f.schema)) for f in schema.fields
        ]
        # fastavro tags a member of a union of named types with the type's full name; the
        # field holding it is named after the type (short or full) or, under
        # generalized.sum.type.support, numbered, with the type's name on its schema.
        by_tag: dict[str, tuple[str, Callable[[Any], Any]]] = {}
        for name, fschema, conv in reversed(plans):
            for tag in (fschema.name, _enum_name(fschema) if _is_enum_schema(fschema) else None):
                if tag:
                    by_tag[tag] = (name, conv)
                    by_tag.setdefault(tag.rsplit(".", 1)[-1], (name, conv))
            by_tag[name] = (name, conv)
            by_tag.setdefault(name.rsplit(".", 1)[-1], (name, conv))

        def union(datum: Any) -> Any:
            if isinstance(datum, tuple) and len(datum) == 2 and isinstance(datum[0], str):
                tag, inner = datum
                found = by_tag.get(tag) or by_tag.get(tag.rsplit(".", 1)[-1])
                if found is None:
                    raise DataError(f"Did not find matching union field for data of type {tag!r}")
                return Struct(schema).put(found[0], found[1](inner))
            for name, fschema, conv in plans:
                if _matches(fschema, datum):
                    return Struct(schema).put(name, conv(datum))
            raise DataError(
                f"Did not find matching union field for data of type {type(datum).__name__}"
            )

        return union


def _matches(schema: Schema, datum: Any) -> bool:
    kind = schema.type
    if _is_enum_schema(schema):
        return isinstance(datum, str) and datum in _enum_symbols(schema)
    if kind is Type.BOOLEAN:
        return type(datum) is bool
    if kind in (Type.INT8, Type.INT16, Type.INT32):
        return type(datum) is int and -(2**31) <= datum < 2**31
    if kind is Type.INT64:
        return type(datum) is int
    if kind in (Type.FLOAT32, Type.FLOAT64):
        return type(datum) is float
    if kind is Type.STRING:
        return isinstance(datum, str)
    if kind is Type.BYTES:
        if not isinstance(datum, bytes | bytearray):
            return False
        if _is_fixed_schema(schema):
            return len(datum) == int(schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP])
        return True
    if kind is Type.ARRAY:
        return isinstance(datum, list)
    if kind is Type.MAP:
        return isinstance(datum, dict)
    # STRUCT
    return isinstance(datum, dict) and all(f.name in datum for f in schema.fields)


# -- checking Avro data against a Connect schema on the way in ----------------------------


def _check_datum(schema: Schema, datum: Any, names_of: Callable[[str], str]) -> None:
    """Refuse an Avro datum that does not fit ``schema``, naming the field that holds it.

    Data fastavro read with the Avro schema a Connect schema came from always fits; this
    guards :meth:`AvroData.to_connect_data`, which also takes data built by hand.
    """
    if datum is None:
        if schema.optional:
            return
        raise DataError(f"Found null value for non-optional schema ({schema.type.value})")
    name = schema.name or ""
    kind = schema.type
    if (
        datum.__class__ is tuple
        and len(datum) == 2
        and isinstance(datum[0], str)
        and (
            (kind is Type.STRUCT and not _is_union_schema(schema))
            or _is_enum_schema(schema)
            or _is_fixed_schema(schema)
        )
    ):
        datum = datum[1]  # a member of a union of named types, with its type's name
    if name in _LOGICAL_PYTHON:
        if isinstance(datum, _LOGICAL_PYTHON[name]):
            return
        if name == Decimal.LOGICAL_NAME:
            _bytes_check(datum)
            return
        _PRIMITIVE_CHECKS[kind](datum)
        return
    if kind is Type.STRING and _is_enum_schema(schema):
        symbols = _enum_symbols(schema)
        _enum_check(symbols, _enum_name(schema) or "")(datum)
        return
    if kind is Type.BYTES and _is_fixed_schema(schema):
        _fixed_check(int(schema.parameters[CONNECT_AVRO_FIXED_SIZE_PROP]))(datum)
        return
    if kind.is_primitive:
        _PRIMITIVE_CHECKS[kind](datum)
        return
    if kind is Type.ARRAY:
        assert schema.value_schema is not None
        if not isinstance(datum, list | tuple):
            raise _wrong_type("array", "a list", datum)
        for index, item in enumerate(datum):
            try:
                _check_datum(schema.value_schema, item, names_of)
            except DataError as exc:
                raise _nested(exc, f"[{index}]") from None
        return
    if kind is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        if isinstance(datum, Mapping):
            entries = list(datum.items())
        elif isinstance(datum, list | tuple) and all(
            isinstance(e, Mapping) and KEY_FIELD in e and VALUE_FIELD in e for e in datum
        ):
            entries = [(e[KEY_FIELD], e[VALUE_FIELD]) for e in datum]
        else:
            raise _wrong_type("map", "a dict or a list of key/value records", datum)
        for key, value in entries:
            try:
                _check_datum(schema.key_schema, key, names_of)
                _check_datum(schema.value_schema, value, names_of)
            except DataError as exc:
                raise _nested(exc, f"[{key!r}]") from None
        return
    if _is_union_schema(schema):
        return  # the union decoder finds the member or refuses the datum itself
    if not isinstance(datum, Mapping):
        raise _wrong_type("record", "a dict", datum)
    for field in schema.fields:
        try:
            _check_datum(field.schema, datum.get(names_of(field.name)), names_of)
        except DataError as exc:
            raise _nested(exc, field.name) from None


def _has_named_branch(node: Any) -> bool:
    if isinstance(node, dict):
        return node.get("type") in _NAMED
    if isinstance(node, list):
        return any(isinstance(m, dict) and m.get("type") in _NAMED for m in node)
    return isinstance(node, str) and node not in _AVRO_PRIMITIVES


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


def _rebuild(schema: Schema, **changes: Any) -> Schema:
    args: dict[str, Any] = {
        "optional": schema.optional,
        "default": schema.default,
        "name": schema.name,
        "version": schema.version,
        "doc": schema.doc,
        "parameters": schema.parameters,
        "fields": schema.fields,
        "key_schema": schema.key_schema,
        "value_schema": schema.value_schema,
    }
    args.update(changes)
    return Schema(schema.type, **args)


def _apply_field_params(schema: Schema, params: Mapping[str, Any]) -> Schema:
    if all(str(v) == schema.parameters.get(str(k)) for k, v in params.items()):
        return schema
    merged = dict(schema.parameters)
    merged.update({str(k): str(v) for k, v in params.items()})
    return _rebuild(schema, parameters=merged)


# -- schemaless data (the Anything record) ----------------------------------------------


def _to_anything(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": bytes(value)}
    if isinstance(value, float):
        return {"double": value}
    if isinstance(value, int):
        # Python ints carry no width; like a Java Long when it does not fit an Integer.
        return {"int": value} if -(2**31) <= value < 2**31 else {"long": value}
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, list | tuple):
        return {"array": [_to_anything(v) for v in value]}
    if isinstance(value, Mapping):
        return {
            "map": [{"key": _to_anything(k), "value": _to_anything(v)} for k, v in value.items()]
        }
    raise DataError(f"Unknown Java type for schemaless data: {type(value).__name__}")


def _from_anything(datum: Any) -> Any:
    if datum is None:
        return None
    if isinstance(datum, tuple):
        datum = datum[1]
    if not isinstance(datum, dict):
        raise DataError("Invalid Avro data for schemaless Connect data")
    for key in ("boolean", "bytes", "double", "float", "int", "long", "string"):
        if datum.get(key) is not None:
            return datum[key]
    if datum.get("array") is not None:
        return [_from_anything(v) for v in datum["array"]]
    if datum.get("map") is not None:
        return {_from_anything(e["key"]): _from_anything(e["value"]) for e in datum["map"]}
    return None
