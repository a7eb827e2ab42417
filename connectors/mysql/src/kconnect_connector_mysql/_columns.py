"""Column definitions and how Debezium maps each MySQL/MariaDB column type to Connect.

A :class:`Column` is what the schema history records about a column (Debezium's
``tableChanges`` column document); :func:`field_schema` gives the Connect schema Debezium
gives it, and :func:`value_converter` turns the natural Python value of the column (from
the snapshot query or the binlog decoder) into Debezium's representation.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from kconnect_sdk import ConnectError, Decimal, Schema, SchemaBuilder, Struct, struct_maker
from kconnect_sdk.java import (
    EPOCH_DATE,
    EPOCH_DATETIME,
    MICROS_PER_DAY,
    MILLIS_PER_DAY,
    gregorian_date,
)

from ._decoder import _civil_days

__all__ = [
    "Column",
    "Table",
    "default_expression",
    "field_schema",
    "make_struct",
    "value_converter",
]

Converter = Callable[[Any], Any]

# java.sql.Types codes, as recorded in Debezium's schema history.
_JDBC: Final = {
    "bit": -7,
    "tinyint": 5,  # Debezium's binlog connectors: SMALLINT, as its INT16 schema says
    "smallint": 5,
    "mediumint": 4,
    "int": 4,
    "integer": 4,
    "bigint": -5,
    "float": 6,
    "double": 8,
    "real": 8,
    "decimal": 3,
    "numeric": 2,
    "char": 1,
    "varchar": 12,
    "tinytext": 12,
    "text": 12,
    "mediumtext": 12,
    "longtext": 12,
    "date": 91,
    "time": 92,
    "datetime": 93,
    "timestamp": 2014,
    "year": 4,
    "binary": -2,
    "varbinary": -3,
    "tinyblob": 2004,
    "blob": 2004,
    "mediumblob": 2004,
    "longblob": 2004,
    "enum": 1,
    "set": 1,
    "json": 1111,
    "geometry": 1111,
    "point": 1111,
    "linestring": 1111,
    "polygon": 1111,
    "multipoint": 1111,
    "multilinestring": 1111,
    "multipolygon": 1111,
    "geometrycollection": 1111,
    "geomcollection": 1111,
    "boolean": 16,
}
_BINARY_TYPES: Final = frozenset(
    {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
)
_GEOMETRY_TYPES: Final = frozenset(
    {
        "geometry",
        "linestring",
        "polygon",
        "multipoint",
        "multilinestring",
        "multipolygon",
        "geometrycollection",
        "geomcollection",
    }
)
_UTC: Final = _dt.UTC


@dataclass(slots=True)
class Column:
    """One column as Debezium's schema history describes it."""

    name: str
    position: int
    data_type: str  # lower-case base type: int, varchar, decimal, enum, ...
    type_name: str  # Debezium's typeName: upper-case, with UNSIGNED / ZEROFILL
    length: int | None = None
    scale: int | None = None
    optional: bool = True
    auto_incremented: bool = False
    generated: bool = False
    charset: str | None = None
    has_default: bool = False
    default_expression: str | None = None
    enum_values: list[str] | None = None
    comment: str | None = None

    @property
    def unsigned(self) -> bool:
        return "UNSIGNED" in self.type_name

    @property
    def jdbc_type(self) -> int:
        return _JDBC.get(self.data_type, 1111)

    def to_history(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "jdbcType": self.jdbc_type,
            "typeName": self.type_name,
            "typeExpression": self.type_name,
            "charsetName": self.charset,
        }
        length = self.length
        if length is None and self.enum_values is not None:
            # Debezium's DDL parser gives an ENUM the length 1 and a SET the length of its
            # labels written out with commas between them, one character each.
            length = 1 if self.data_type == "enum" else max(0, 2 * len(self.enum_values) - 1)
        if length is not None:
            doc["length"] = length
        if self.scale is not None:
            doc["scale"] = self.scale
        doc.update(
            position=self.position,
            optional=self.optional,
            autoIncremented=self.auto_incremented,
            generated=self.generated,
            comment=self.comment,
            hasDefaultValue=self.has_default,
        )
        if self.default_expression is not None:
            doc["defaultValueExpression"] = self.default_expression
        # Debezium keeps each ENUM/SET label as the DDL writes it (quoted) and an empty
        # list for every other column.
        doc["enumValues"] = [_quoted(v) for v in self.enum_values or []]
        return doc

    @classmethod
    def from_history(cls, doc: dict[str, Any]) -> Column:
        type_name = str(doc["typeName"])
        return cls(
            name=doc["name"],
            position=int(doc.get("position", 0)),
            data_type=type_name.split(maxsplit=1)[0].lower(),
            type_name=type_name,
            length=doc.get("length"),
            scale=doc.get("scale"),
            optional=bool(doc.get("optional", True)),
            auto_incremented=bool(doc.get("autoIncremented", False)),
            generated=bool(doc.get("generated", False)),
            charset=doc.get("charsetName"),
            has_default=bool(doc.get("hasDefaultValue", False)),
            default_expression=doc.get("defaultValueExpression"),
            enum_values=_labels(doc.get("enumValues"), type_name),
            comment=doc.get("comment"),
        )


def _quoted(label: str) -> str:
    return "'" + label.replace("'", "''") + "'"


def _labels(values: list[str] | None, type_name: str) -> list[str] | None:
    """ENUM/SET labels from a history document: Debezium's are quoted as in the DDL,
    earlier kconnect versions wrote them bare; other columns have none."""
    if type_name.split(maxsplit=1)[0].upper() not in ("ENUM", "SET"):
        return None
    out = []
    for value in values or []:
        text = str(value)
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].replace(text[0] * 2, text[0])
        out.append(text)
    return out


@dataclass(slots=True)
class Table:
    """A table's columns and primary key, in the server's column order."""

    db: str
    name: str
    columns: list[Column]
    primary_key: list[str] = field(default_factory=list)
    default_charset: str | None = None
    comment: str | None = None

    @property
    def id(self) -> str:
        return f"{self.db}.{self.name}"

    def to_history(self) -> dict[str, Any]:
        return {
            "defaultCharsetName": self.default_charset,
            "primaryKeyColumnNames": list(self.primary_key),
            "columns": [c.to_history() for c in self.columns],
            "attributes": [],
        }

    @classmethod
    def from_history(
        cls, db: str, name: str, doc: dict[str, Any], comment: str | None = None
    ) -> Table:
        """A table from a ``tableChanges`` entry's ``table`` document; its COMMENT is the
        entry's ``comment`` (Debezium's history keeps it there)."""
        return cls(
            db=db,
            name=name,
            columns=[Column.from_history(c) for c in doc.get("columns", [])],
            primary_key=list(doc.get("primaryKeyColumnNames") or []),
            default_charset=doc.get("defaultCharsetName"),
            comment=comment if comment is not None else doc.get("comment"),
        )


_ENUM_ITEM: Final = re.compile(r"'((?:[^']|'')*)'")


def column_from_information_schema(row: dict[str, Any]) -> Column:
    """A Column from a row of information_schema.COLUMNS (keys upper-case)."""
    data_type = str(row["DATA_TYPE"]).lower()
    column_type = str(row["COLUMN_TYPE"])
    lowered = column_type.lower()
    type_name = data_type.upper()
    if "unsigned" in lowered:
        type_name += " UNSIGNED"
    if "zerofill" in lowered:
        type_name += " ZEROFILL"
    length: int | None = None
    scale: int | None = None
    enum_values: list[str] | None = None
    if data_type in ("enum", "set"):
        inner = column_type[column_type.index("(") + 1 : column_type.rindex(")")]
        enum_values = [m.group(1).replace("''", "'") for m in _ENUM_ITEM.finditer(inner)]
    else:
        match = re.search(r"\((\d+)(?:,(\d+))?\)", column_type)
        if match:
            length = int(match.group(1))
            if match.group(2) is not None:
                scale = int(match.group(2))
        elif data_type in ("decimal", "numeric"):
            length, scale = 10, 0
    if data_type in ("decimal", "numeric") and scale is None:
        scale = 0
    extra = str(row.get("EXTRA") or "").lower()
    default = row.get("COLUMN_DEFAULT")
    nullable = str(row["IS_NULLABLE"]).upper() == "YES"
    has_default = default is not None or nullable
    if isinstance(default, str) and default.upper() == "NULL":
        default = None
    elif isinstance(default, str) and not default.startswith("'"):
        default = default_expression(default)
    elif isinstance(default, str) and len(default) >= 2 and default[0] == default[-1] == "'":
        # MariaDB quotes a literal default; Debezium records the literal itself.
        default = default[1:-1].replace("''", "'").replace("\\\\", "\\")
    return Column(
        name=row["COLUMN_NAME"],
        position=int(row["ORDINAL_POSITION"]),
        data_type=data_type,
        type_name=type_name,
        length=length,
        scale=scale,
        optional=nullable,
        auto_incremented="auto_increment" in extra,
        # As Debezium (and the DDL parser): an AUTO_INCREMENT column counts as generated.
        generated="generated" in extra or "auto_increment" in extra,
        charset=row.get("CHARACTER_SET_NAME"),
        has_default=has_default,
        default_expression=None if default is None else str(default),
        enum_values=enum_values,
        comment=row.get("COLUMN_COMMENT") or None,
    )


# --- Connect schemas -------------------------------------------------------------------------


def _named(builder: SchemaBuilder, name: str, version: int = 1) -> SchemaBuilder:
    return builder.name(name).version(version)


def _time_precision(column: Column) -> int:
    return column.length or 0


def _geometry_builder() -> SchemaBuilder:
    return (
        SchemaBuilder.struct()
        .name("io.debezium.data.geometry.Geometry")
        .version(1)
        .doc("Geometry")
        .field("wkb", Schema.BYTES)
        .field("srid", Schema.OPTIONAL_INT32)
    )


def _point_builder() -> SchemaBuilder:
    return (
        SchemaBuilder.struct()
        .name("io.debezium.data.geometry.Point")
        .version(1)
        .doc("Geometry (POINT)")
        .field("x", Schema.FLOAT64)
        .field("y", Schema.FLOAT64)
        .field("wkb", Schema.OPTIONAL_BYTES)
        .field("srid", Schema.OPTIONAL_INT32)
    )


def _decimal_builder(precision: int, scale: int) -> SchemaBuilder:
    return Decimal.builder(scale).parameter("connect.decimal.precision", str(precision))


def schema_builder(
    column: Column,
    *,
    decimal_mode: str,
    time_mode: str,
    bigint_mode: str,
    binary_mode: str,
    time_adjuster: bool = True,
) -> SchemaBuilder:
    """The builder Debezium's value converters start from for ``column`` (before optional/default).

    ``time_adjuster`` (``enable.time.adjuster``) changes values only, never schemas.
    """
    t = column.data_type
    unsigned = column.unsigned
    if t == "json":
        return _named(SchemaBuilder.string(), "io.debezium.data.Json")
    if t == "point":
        return _point_builder()
    if t in _GEOMETRY_TYPES:
        return _geometry_builder()
    if t == "year":
        return _named(SchemaBuilder.int32(), "io.debezium.time.Year")
    if t == "enum":
        return _named(SchemaBuilder.string(), "io.debezium.data.Enum").parameter(
            "allowed", ",".join(column.enum_values or [])
        )
    if t == "set":
        return _named(SchemaBuilder.string(), "io.debezium.data.EnumSet").parameter(
            "allowed", ",".join(column.enum_values or [])
        )
    if t == "tinyint":
        # Debezium's binlog connectors give TINYINT, signed or not, Connect's INT16.
        return SchemaBuilder.int16()
    if t == "smallint":
        return SchemaBuilder.int32() if unsigned else SchemaBuilder.int16()
    if t in ("mediumint",):
        return SchemaBuilder.int32()
    if t in ("int", "integer"):
        return SchemaBuilder.int64() if unsigned else SchemaBuilder.int32()
    if t == "bigint":
        if unsigned and bigint_mode == "precise":
            return _decimal_builder(20, 0)
        return SchemaBuilder.int64()
    if t == "float":
        if column.scale is None and (column.length is None or column.length <= 24):
            return SchemaBuilder.float32()
        return SchemaBuilder.float64()
    if t in ("double", "real"):
        return SchemaBuilder.float64()
    if t in ("decimal", "numeric"):
        if decimal_mode == "double":
            return SchemaBuilder.float64()
        if decimal_mode == "string":
            return SchemaBuilder.string()
        return _decimal_builder(column.length or 10, column.scale or 0)
    if t == "bit":
        if (column.length or 1) > 1:
            return _named(SchemaBuilder.bytes(), "io.debezium.data.Bits").parameter(
                "length", str(column.length)
            )
        return SchemaBuilder.boolean()
    if t == "boolean":
        return SchemaBuilder.boolean()
    if t in _BINARY_TYPES:
        return SchemaBuilder.bytes() if binary_mode == "bytes" else SchemaBuilder.string()
    if t == "date":
        if time_mode == "connect":
            return _named(SchemaBuilder.int32(), "org.apache.kafka.connect.data.Date")
        if time_mode == "isostring":
            return _named(SchemaBuilder.string(), "io.debezium.time.IsoDate")
        return _named(SchemaBuilder.int32(), "io.debezium.time.Date")
    if t == "time":
        if time_mode == "connect":
            return _named(SchemaBuilder.int32(), "org.apache.kafka.connect.data.Time")
        if time_mode == "isostring":
            return _named(SchemaBuilder.string(), "io.debezium.time.IsoTime")
        return _named(SchemaBuilder.int64(), "io.debezium.time.MicroTime")
    if t == "datetime":
        if time_mode == "connect":
            return _named(SchemaBuilder.int64(), "org.apache.kafka.connect.data.Timestamp")
        if time_mode == "isostring":
            return _named(SchemaBuilder.string(), "io.debezium.time.IsoTimestamp")
        if _time_precision(column) <= 3:
            return _named(SchemaBuilder.int64(), "io.debezium.time.Timestamp")
        return _named(SchemaBuilder.int64(), "io.debezium.time.MicroTimestamp")
    if t == "timestamp":
        return _named(SchemaBuilder.string(), "io.debezium.time.ZonedTimestamp")
    # char, varchar, the text types, and anything else textual.
    return SchemaBuilder.string()


def field_schema(column: Column, **modes: Any) -> Schema:
    """The Connect schema of ``column``'s field in the Value/Key structs."""
    builder = schema_builder(column, **modes)
    if column.optional:
        builder.optional()
    if column.comment:
        # Debezium documents a field with its column's COMMENT.
        builder.doc(column.comment)
    default = _default_value(column, builder, modes)
    if default is not None:
        builder.default_value(default)
    return builder.build()


def _default_value(column: Column, builder: SchemaBuilder, modes: dict[str, Any]) -> Any:
    expr = column.default_expression
    if expr is None:
        return None
    text = expr[1:-1].replace("''", "'") if len(expr) >= 2 and expr[0] == expr[-1] == "'" else expr
    t = column.data_type
    try:
        if t in ("tinyint", "smallint", "mediumint", "int", "integer", "year"):
            return int(text)
        if t == "bigint":
            if column.unsigned and modes.get("bigint_mode") == "precise":
                return decimal.Decimal(text)
            return int(text)
        if t in ("float", "double", "real"):
            return float(text)
        if t in ("decimal", "numeric"):
            value = decimal.Decimal(text)
            mode = modes.get("decimal_mode")
            if mode == "double":
                return float(value)
            if mode == "string":
                return str(value)
            return value.quantize(decimal.Decimal(1).scaleb(-(column.scale or 0)))
        if t in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"):
            return text
        if t in ("date", "datetime", "timestamp", "time"):
            return _temporal_default(column, text, modes)
    except (ValueError, ArithmeticError):
        return None
    # Other defaults (expressions) are left out.
    return None


_ZERO_DATE_PART: Final = re.compile(r"\d{4}-\d{2}-00|\d{4}-00-\d{2}|0000-\d{2}-\d{2}")
_EPOCH_TEXT: Final = "1970-01-01 00:00:00"
_CURRENT_TIMESTAMP: Final = re.compile(r"(?i)(?:current_timestamp|now)\s*(?:\(\s*\d*\s*\))?")


def default_expression(text: str | None) -> str | None:
    """A DEFAULT as Debezium's DDL parser records it: ``CURRENT_TIMESTAMP`` and ``NOW()``
    (any precision) stand for the epoch, ``1970-01-01 00:00:00``."""
    if text is not None and _CURRENT_TIMESTAMP.fullmatch(text.strip()):
        return _EPOCH_TEXT
    return text


def _temporal_default(column: Column, text: str, modes: dict[str, Any]) -> Any:
    """A literal DATE/DATETIME/TIMESTAMP/TIME default as the column's values are written;
    None for other expressions (raises ValueError on those).

    As Debezium's default value converter: a zero date (a zero year, month or day) is no
    default of a nullable column and the epoch of a NOT NULL one; a TIMESTAMP defaulting to
    the epoch (``CURRENT_TIMESTAMP``) is no default when nullable and
    ``1970-01-01T00:00:00Z`` (no fraction) when NOT NULL.
    """
    t = column.data_type
    natural: Any
    if t in ("date", "datetime", "timestamp"):
        text = text.strip()
        zero = text == "0" or _ZERO_DATE_PART.match(text) is not None
        if t == "timestamp" and (zero or text == _EPOCH_TEXT):
            return None if column.optional else _ZONED_EPOCH
        if zero:
            if column.optional:
                return None
            text = _EPOCH_TEXT
        if t == "date":
            natural = _dt.date.fromisoformat(text[:10])
        else:
            natural = _dt.datetime.fromisoformat(text)
    else:
        sign = -1 if text.startswith("-") else 1
        hours, minutes, seconds = text.lstrip("-").split(":")
        natural = sign * _dt.timedelta(
            hours=int(hours), minutes=int(minutes), seconds=float(seconds)
        )
    schema = schema_builder(column, **modes).build()
    convert = value_converter(column, schema, **modes)
    return natural if convert is None else convert(natural)


# --- values ------------------------------------------------------------------------------------


def make_struct(schema: Schema, values: list[Any]) -> Struct:
    """A Struct over ``values`` already in field order and already of the right types.

    Skips Struct.put's per-field checks: every value comes from a converter built for its
    field's schema, and checking them again would cost more than decoding them. For the
    occasional struct; code that makes one per row keeps a ``struct_maker`` of its schema.
    """
    return struct_maker(schema)(values)


def _days(value: Any) -> Any:
    if isinstance(value, _dt.date):
        return (
            (value - EPOCH_DATE).days
            if not isinstance(value, _dt.datetime)
            else (value.date() - EPOCH_DATE).days
        )
    return None  # zero dates ('0000-00-00') have no day number


def _micro_time(value: Any) -> Any:
    if isinstance(value, _dt.timedelta):
        return (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    return value if isinstance(value, int) else None


def _iso_clock(seconds: int, fraction: int) -> str:
    """A time of day as java.time's ISO formatters write it: seconds always, the fraction
    (microseconds) without trailing zeros."""
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if fraction:
        text += "." + f"{fraction:06d}".rstrip("0")
    return text


def _iso_time(value: Any) -> Any:
    """TIME as Debezium's IsoTime (ISO_OFFSET_TIME, ``Z``). Only a time of day: Debezium
    emits null for a negative TIME or one past 24:00:00, as for any value it cannot
    convert."""
    micros = _micro_time(value)
    if micros is None or not 0 <= micros <= MICROS_PER_DAY:
        return None
    seconds, fraction = divmod(micros % MICROS_PER_DAY, 1_000_000)
    return _iso_clock(seconds, fraction) + "Z"


def _iso_timestamp(value: Any) -> Any:
    """DATETIME as Debezium's IsoTimestamp: the instant at UTC, ISO_INSTANT's form."""
    if not isinstance(value, _dt.datetime):
        return None
    clock = _iso_clock(value.hour * 3600 + value.minute * 60 + value.second, value.microsecond)
    return f"{value.date().isoformat()}T{clock}Z"


def _epoch_micros(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        delta = value.replace(tzinfo=_UTC) - EPOCH_DATETIME
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, _dt.date):
        return (value - EPOCH_DATE).days * MICROS_PER_DAY
    return None


def _epoch_millis(value: Any) -> Any:
    micros = _epoch_micros(value)
    return None if micros is None else micros // 1000


def _iso_date(value: Any) -> Any:
    """DATE as Debezium's IsoDate: the date at UTC, ISO_OFFSET_DATE (``2018-06-20Z``)."""
    return value.isoformat() + "Z" if isinstance(value, _dt.date) else None


def _connect_date(value: Any) -> Any:
    return value if isinstance(value, _dt.date) else None


def _connect_timestamp(value: Any) -> Any:
    """DATETIME as Connect's Timestamp, which has millisecond precision: microseconds cut."""
    if not isinstance(value, _dt.datetime):
        return None
    return value.replace(microsecond=value.microsecond // 1000 * 1000, tzinfo=_UTC)


def _zoned(precision: int) -> Converter:
    def convert(value: Any) -> Any:
        if not isinstance(value, _dt.datetime):
            return None
        base = value.strftime("%Y-%m-%dT%H:%M:%S")
        if precision > 0:
            base += "." + f"{value.microsecond:06d}"[:precision]
        elif value.microsecond:
            base += "." + f"{value.microsecond:06d}".rstrip("0")
        return base + "Z"

    return convert


def _float32(value: Any) -> Any:
    if value is None:
        return None
    # The shortest decimal that is the same 32-bit float, as Java's Float.toString gives.
    packed = struct.pack("<f", value)
    for digits in range(6, 10):
        candidate = float(f"{value:.{digits}g}")
        if struct.pack("<f", candidate) == packed:
            return candidate
    return float(value)


def _widened_float32(value: Any) -> Any:
    if value is None:
        return None
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _binary(mode: str, pad_to: int | None = None) -> Converter | None:
    if pad_to:
        # BINARY(n) is fixed-length: the binlog drops its trailing zero bytes, Debezium puts
        # them back (the snapshot reads the value whole).
        encode = _binary(mode) or (lambda v: v)
        return lambda v: None if v is None else encode(bytes(v).ljust(pad_to, b"\0"))
    if mode == "base64":
        return lambda v: None if v is None else base64.b64encode(bytes(v)).decode("ascii")
    if mode == "base64-url-safe":
        return lambda v: None if v is None else base64.urlsafe_b64encode(bytes(v)).decode("ascii")
    if mode == "hex":
        return lambda v: None if v is None else bytes(v).hex()
    return None


def _bits(length: int) -> Converter:
    nbytes = (length + 7) // 8

    def convert(value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, int):
            return value.to_bytes(nbytes, "little")
        # The server sends BIT values big-endian; Debezium's Bits are little-endian.
        return int.from_bytes(bytes(value), "big").to_bytes(nbytes, "little")

    return convert


def _bit1(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, int):
        return bool(value)
    return any(bytes(value))


def _geometry(point: bool, schema: Schema) -> Converter:
    make = struct_maker(schema)

    def convert(value: Any) -> Any:
        if value is None:
            return None
        raw = bytes(value)
        # MySQL stores a geometry as a 4-byte little-endian SRID followed by its WKB.
        # Debezium reads an SRID of 0 (none given) as no SRID.
        srid = struct.unpack_from("<I", raw, 0)[0] or None
        wkb = raw[4:]
        if point:
            order = "<" if wkb[0] == 1 else ">"
            x, y = struct.unpack_from(order + "dd", wkb, 5)
            return make([x, y, wkb, srid])
        return make([wkb, srid])

    return convert


def _json_text(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8")
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _connect_time(name: str) -> Callable[[Any], Any]:
    """TIME as Connect's Time: a time of day with millisecond precision (microseconds cut)."""
    day = _dt.timedelta(days=1)

    def convert(v: Any) -> Any:
        if not isinstance(v, _dt.timedelta):
            return None
        if not _dt.timedelta(0) <= v < day:
            raise ConnectError(
                f"column {name!r}: TIME value {v} is not a time of day, so it cannot be Kafka "
                "Connect's Time under time.precision.mode=connect; use adaptive_time_microseconds"
            )
        return (_dt.datetime.min + v).time().replace(microsecond=v.microseconds // 1000 * 1000)

    return convert


_YEAR_100: Final = -683_003  # days from 1970-01-01 back to 0100-01-01
_ZONED_EPOCH: Final = "1970-01-01T00:00:00Z"


def _two_digit_year(year: int) -> int:
    """MySQL's reading of a two-digit year (Debezium's ``adjustTemporal``): 00-69 are
    2000-2069, 70-99 are 1970-1999. Neither shift changes whether the year is a leap year,
    so no day needs clamping."""
    if 0 <= year <= 69:
        return year + 2000
    if 70 <= year <= 99:
        return year + 1900
    return year


def _adjusted(convert: Converter) -> Converter:
    """``convert`` after the two-digit-year adjustment of a date or datetime."""

    def adjusted(v: Any) -> Any:
        if isinstance(v, _dt.date) and v.year < 100:
            v = v.replace(year=_two_digit_year(v.year))
        return convert(v)

    return adjusted


def _fast_fix(unit: int, adjust: bool, fallback: Any) -> Converter:
    """What follows the decoders' direct path (days, or epoch ms/us, of a DATE/DATETIME;
    None for a zero date) to give Debezium's value: the fallback for a zero date, and years
    0-99 as Debezium reads them (a zero year is a zero date; others adjusted or kept)."""
    limit = _YEAR_100 * unit

    def fix(v: Any) -> Any:
        if v is None:
            return fallback
        if v >= limit:
            return v
        days, rest = divmod(v, unit)
        year, month, day = gregorian_date(days)
        if year < 1:
            return fallback
        if adjust:
            year = _two_digit_year(year)
        return _civil_days(year, month, day) * unit + rest

    return fix


def _fallback(column: Column, schema: Schema, time_mode: str, connect: Any, iso: Any) -> Any:
    """Debezium's value for a NOT NULL temporal column that has none (a zero date): the
    field's default, else the epoch in the field's representation; None when nullable."""
    if column.optional:
        return None
    if schema.default is not None:
        return schema.default
    if column.data_type == "timestamp":
        return _ZONED_EPOCH
    if time_mode == "connect":
        return connect
    if time_mode == "isostring":
        return iso
    return 0


def _temporal(column: Column, schema: Schema, time_mode: str, adjust: bool) -> Converter:
    """DATE, TIME, DATETIME or TIMESTAMP values as Debezium writes them under ``time_mode``."""
    t = column.data_type
    precision = _time_precision(column)
    convert: Converter
    fast: str | None = None
    connect_epoch: Any = None
    iso_epoch = ""
    if t == "date":
        connect_epoch, iso_epoch = EPOCH_DATE, "1970-01-01Z"
        if time_mode == "isostring":
            convert = _iso_date
        elif time_mode == "connect":
            convert = _connect_date
        else:
            convert, fast = _days, "date_days"
    elif t == "time":
        connect_epoch, iso_epoch = _dt.time(0), "00:00:00Z"
        if time_mode == "connect":
            convert = _connect_time(column.name)
        elif time_mode == "isostring":
            convert = _iso_time
        else:
            convert = _micro_time
    elif t == "datetime":
        connect_epoch, iso_epoch = EPOCH_DATETIME, "1970-01-01T00:00:00Z"
        if time_mode == "isostring":
            convert = _iso_timestamp
        elif time_mode == "connect":
            convert = _connect_timestamp
        elif precision <= 3:
            convert, fast = _epoch_millis, "datetime_ms"
        else:
            convert, fast = _epoch_micros, "datetime_us"
    else:
        convert = _zoned(precision)
    if adjust and t in ("date", "datetime"):
        convert = _adjusted(convert)
    fallback = _fallback(column, schema, time_mode, connect_epoch, iso_epoch)
    out = _column_converter(convert, fallback)
    if t == "timestamp":
        # Debezium's snapshot reads a TIMESTAMP as a java.sql.Timestamp, which it writes with
        # ISO_OFFSET_DATE_TIME (no trailing zeros), the binlog's with the column's digits.
        out.kc_snapshot = _column_converter(_iso_timestamp, fallback)  # type: ignore[attr-defined]  # a plain function attribute
        return out
    if t == "time":
        return out
    out.kc_year_zero = _snapshot_year_zero(t, out, adjust, fallback, time_mode)  # type: ignore[attr-defined]  # a plain function attribute
    if fast is not None:
        # The decoders' direct path for this converter (see ``_decoder``), and what
        # finishes its number (zero dates, years 0-99).
        unit = {"date_days": 1, "datetime_ms": MILLIS_PER_DAY, "datetime_us": MICROS_PER_DAY}[fast]
        out.kc_fast = fast  # type: ignore[attr-defined]  # a plain function attribute
        out.kc_after_fast = _fast_fix(unit, adjust, fallback)  # type: ignore[attr-defined]  # a plain function attribute
    return out


def _column_converter(convert: Converter, fallback: Any) -> Converter:
    """``convert`` as a function of the column's own (it carries the column's attributes),
    giving ``fallback`` where ``convert`` has no value."""

    def column_converter(v: Any) -> Any:
        out = convert(v)
        return fallback if out is None else out

    return column_converter


_YEAR_ZERO_TEXT: Final = re.compile(r"0000-(\d\d)-(\d\d)(?: (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?")


def _snapshot_year_zero(
    t: str, convert: Converter, adjust: bool, fallback: Any, time_mode: str
) -> Converter:
    """Debezium's snapshot reading of a DATE/DATETIME text with year 0000 and a month and
    day (the binlog has no value for it): a DATE is year 0 (then adjusted to 2000), a
    DATETIME year 1 (the java.sql.Timestamp it is read through has no year 0; then 2001)."""

    def read(text: Any) -> Any:
        match = _YEAR_ZERO_TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None or match[1] == "00" or match[2] == "00":
            return fallback
        month, day = int(match[1]), int(match[2])
        try:
            if t == "datetime":
                hour, minute, second = (int(match[i] or 0) for i in (3, 4, 5))
                micros = int((match[6] or "").ljust(6, "0"))
                return convert(_dt.datetime(1, month, day, hour, minute, second, micros))
            if adjust:
                return convert(_dt.date(2000, month, day))
            _dt.date(4, month, day)  # a real day of a leap year, as year 0 is
        except ValueError:
            return fallback
        if time_mode == "isostring":
            return f"0000-{month:02d}-{day:02d}Z"
        if time_mode == "connect":
            return fallback  # Connect's Date, a Python date here, has no year 0
        return _civil_days(0, month, day)

    return read


def value_converter(
    column: Column,
    schema: Schema,
    *,
    decimal_mode: str,
    time_mode: str,
    bigint_mode: str,
    binary_mode: str,
    time_adjuster: bool = True,
) -> Converter | None:
    """Turns the column's natural Python value into Debezium's; None where it is already that.

    Natural values: int for integers and YEAR (unsigned as unsigned), float, decimal.Decimal,
    str for text/ENUM/SET labels, bytes for binary, BIT and geometry, datetime.date,
    datetime.datetime (naive; TIMESTAMP in UTC), datetime.timedelta for TIME; None for NULL
    and for a zero date (one with a zero year, month or day), which has no value.

    ``time_adjuster`` is ``enable.time.adjuster``: DATE and DATETIME years 0-99 as
    MySQL reads two-digit years.
    """
    t = column.data_type
    if t == "bigint" and column.unsigned:
        if bigint_mode == "precise":
            return lambda v: None if v is None else decimal.Decimal(v)
        return lambda v: v - (1 << 64) if v is not None and v >= 1 << 63 else v
    if t == "float" and schema.type.value == "float32":
        return _float32
    if t == "float":
        # FLOAT(M,D) is a 32-bit float written as FLOAT64: the float's own value, widened (the
        # snapshot reads it as decimal text, which is not always that value).
        return _widened_float32
    if t in ("decimal", "numeric"):
        if decimal_mode == "double":
            return lambda v: None if v is None else float(v)
        if decimal_mode == "string":
            return lambda v: None if v is None else format(v, "f")
        return None
    if t == "bit":
        return _bits(column.length or 1) if (column.length or 1) > 1 else _bit1
    if t in _BINARY_TYPES:
        return _binary(binary_mode, column.length if t == "binary" else None)
    if t == "json":
        return _json_text
    if t == "point":
        return _geometry(True, schema)
    if t in _GEOMETRY_TYPES:
        return _geometry(False, schema)
    if t == "set":
        return lambda v: (
            ",".join(sorted(v, key=(column.enum_values or []).index)) if isinstance(v, set) else v
        )
    if t in ("date", "time", "datetime", "timestamp"):
        return _temporal(column, schema, time_mode, time_adjuster)
    return None
