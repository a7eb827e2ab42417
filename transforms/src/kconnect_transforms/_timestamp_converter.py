"""TimestampConverter: convert timestamps between strings, Unix epochs and the logical types."""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Date,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Struct,
    Time,
    Timestamp,
    Type,
    struct_values,
)
from kconnect_sdk.java import MILLIS_PER_DAY, JavaDateFormat

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    copy_schema,
    define_replace_null,
    fill_struct,
    one_of_ci,
    require_map,
    require_struct,
)

__all__ = ["TimestampConverterKey", "TimestampConverterValue"]

_STRING, _UNIX, _DATE, _TIME, _TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
_TYPES = (_STRING, _UNIX, _DATE, _TIME, _TIMESTAMP)
_PER_MS = {"seconds": 1 / 1000, "milliseconds": 1, "microseconds": 1000, "nanoseconds": 1_000_000}


def _check_format(name: str, value: Any) -> None:
    if value:
        JavaDateFormat(value, name=name)


def _trunc_div(a: int, b: int) -> int:
    """Division rounding toward zero, as Java's ``TimeUnit`` conversions do."""
    q = abs(a) // b
    return q if a >= 0 else -q


class _TimestampConverter(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "field",
            ConfigType.STRING,
            "",
            importance=Importance.HIGH,
            documentation="The field containing the timestamp, or empty if the entire value "
            "is a timestamp.",
        )
        .define(
            "target.type",
            ConfigType.STRING,
            validator=one_of_ci(*_TYPES),
            importance=Importance.HIGH,
            documentation="The desired timestamp representation: string, unix, Date, Time, "
            "or Timestamp.",
        )
        .define(
            "format",
            ConfigType.STRING,
            "",
            _check_format,
            importance=Importance.MEDIUM,
            documentation="A SimpleDateFormat-compatible format for the timestamp. Used to "
            "generate the output when type=string or used to parse the input if the input is "
            "a string.",
        )
        .define(
            "unix.precision",
            ConfigType.STRING,
            "milliseconds",
            one_of_ci(*_PER_MS),
            importance=Importance.LOW,
            documentation="The desired Unix precision for the timestamp: seconds, "
            "milliseconds, microseconds, or nanoseconds. Used to generate the output when "
            "type=unix or used to parse the input if the input is a Long.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._field: str = config["field"]
        target = config["target.type"]
        self._target = next(t for t in _TYPES if t.lower() == target.lower())
        pattern: str = config["format"]
        self._format = JavaDateFormat(pattern, name="format") if pattern.strip() else None
        if self._target == _STRING and self._format is None:
            raise ConfigError(
                "Invalid value  for configuration format: TimestampConverter requires format "
                "option to be specified when using string timestamps",
                name="format",
                value=pattern,
            )
        self._precision: str = config["unix.precision"].lower()
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, str | Schema]] = SchemaCache()

    # -- conversion through milliseconds since the epoch ----------------------------------
    def _where(self) -> str:
        return f"{self.NAME}: {self.side}" + (f" field {self._field!r}" if self._field else "")

    def _to_millis(self, value: Any, kind: str) -> int:
        if kind == _STRING:
            if self._format is None:
                raise DataError(
                    f"{self._where()}: TimestampConverter requires format option to be "
                    "specified when using string timestamps"
                )
            try:
                return self._format.parse_millis(value)
            except DataError as exc:
                raise DataError(f"{self._where()}: {exc}") from None
        if kind == _UNIX:
            if self._precision == "seconds":
                return int(value) * 1000
            if self._precision == "milliseconds":
                return int(value)
            return _trunc_div(int(value), int(_PER_MS[self._precision]))
        if kind == _DATE:
            return Date.from_logical(Date.SCHEMA, value) * MILLIS_PER_DAY
        if kind == _TIME:
            return Time.from_logical(Time.SCHEMA, value)
        return Timestamp.from_logical(Timestamp.SCHEMA, value)

    def _from_millis(self, millis: int) -> Any:
        target = self._target
        if target == _STRING:
            assert self._format is not None
            return self._format.format_millis(millis)
        if target == _UNIX:
            if self._precision == "seconds":
                return _trunc_div(millis, 1000)
            return millis * int(_PER_MS[self._precision])
        if target == _DATE:
            return Date.to_logical(Date.SCHEMA, millis // MILLIS_PER_DAY)
        if target == _TIME:
            return Time.to_logical(Time.SCHEMA, millis % MILLIS_PER_DAY)
        return Timestamp.to_logical(Timestamp.SCHEMA, millis)

    def _convert(self, value: Any, kind: str | Schema) -> Any:
        """``value`` converted from ``kind``; a schema stands for a kind not known, an
        error once a value of it is converted (even a null one, as in Kafka)."""
        if isinstance(kind, Schema):
            kind = self._kind_of_schema(kind)
        if value is None:
            return None
        millis = self._to_millis(value, kind)
        try:
            return self._from_millis(millis)
        except (OverflowError, ValueError) as exc:
            # A java.util.Date reaches far past the years Python's datetime holds.
            raise DataError(
                f"{self._where()}: {millis} ms since the epoch is outside the years Python's "
                f"datetime holds (1 to 9999): {exc}"
            ) from None

    def _target_schema(self, optional: bool) -> Schema:
        base = {
            _STRING: Schema.STRING,
            _UNIX: Schema.INT64,
            _DATE: Date.SCHEMA,
            _TIME: Time.SCHEMA,
            _TIMESTAMP: Timestamp.SCHEMA,
        }[self._target]
        return copy_schema(base, optional=optional) if optional else base

    def _kind_of_schema(self, schema: Schema) -> str:
        if schema.name == Timestamp.LOGICAL_NAME:
            return _TIMESTAMP
        if schema.name == Date.LOGICAL_NAME:
            return _DATE
        if schema.name == Time.LOGICAL_NAME:
            return _TIME
        if schema.type is Type.STRING:
            return _STRING
        if schema.type is Type.INT64:
            return _UNIX
        raise DataError(
            f"{self._where()}: schema {schema!r} does not correspond to a known timestamp "
            "type format; expected a string, an int64 or a Date/Time/Timestamp logical type"
        )

    def _kind_of_value(self, value: Any) -> str:
        if isinstance(value, dt.datetime):
            return _TIMESTAMP
        if isinstance(value, dt.date):
            return _DATE
        if isinstance(value, dt.time):
            return _TIME
        if isinstance(value, int) and not isinstance(value, bool):
            return _UNIX
        if isinstance(value, str):
            return _STRING
        raise DataError(
            f"{self._where()}: TimestampConverter does not support {type(value).__name__} "
            "values for records without schemas; expected a datetime, an int or a string"
        )

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        field = self._field
        if value is None:
            if schema is None:
                return record
            # As Kafka: a null value with a schema still gets the converted schema, and a
            # whole value's schema must still be one it knows.
            if not field:
                self._kind_of_schema(schema)
                return self.new_record(record, self._target_schema(schema.optional), None)
            plan = self._schemas.get(schema)
            if plan is None:
                plan = self._schemas.put(schema, self._plan(schema))
            return self.new_record(record, plan[0], None)
        if schema is None:
            if not field:
                return self.new_record(
                    record, None, self._convert(value, self._kind_of_value(value))
                )
            updated = dict(require_map(self.NAME, value, "converting timestamp formats"))
            current = updated.get(field)
            if current is not None:
                updated[field] = self._convert(current, self._kind_of_value(current))
            elif field in updated:
                updated[field] = None
            return self.new_record(record, None, updated)
        if not field:
            kind = self._kind_of_schema(schema)
            return self.new_record(
                record, self._target_schema(schema.optional), self._convert(value, kind)
            )
        struct = require_struct(self.NAME, value, "converting timestamp formats")
        plan = self._schemas.get(struct.schema)
        if plan is None:
            plan = self._schemas.put(struct.schema, self._plan(struct.schema))
        updated_schema, field_kind = plan
        values = list(struct_values(struct))
        if self._replace_null:
            for f in struct.schema.fields:
                if values[f.index] is None:
                    values[f.index] = f.schema.default
        target = updated_schema.field(field)
        assert target is not None
        values[target.index] = self._convert(values[target.index], field_kind)
        return self.new_record(record, updated_schema, fill_struct(updated_schema, values))

    def _plan(self, schema: Schema) -> tuple[Schema, str | Schema]:
        source = schema.field(self._field)
        if source is None:
            raise DataError(
                f"{self._where()}: the field is not in the {self.side} schema (fields: "
                f"{', '.join(f.name for f in schema.fields)}); fix the 'field' config"
            )
        # Kafka builds the new schema whatever the field's type; converting the field of
        # a struct of it fails (a null record value is never converted).
        kind: str | Schema = source.schema
        with contextlib.suppress(DataError):
            kind = self._kind_of_schema(source.schema)
        fields = [
            f
            if f.name != self._field
            else Field(f.name, f.index, self._target_schema(f.schema.optional))
            for f in schema.fields
        ]
        # As Kafka: the struct keeps its optionality, and its default gets the field converted.
        updated = copy_schema(schema, fields=fields)
        if isinstance(schema.default, Struct):
            values = list(struct_values(schema.default))
            if self._replace_null:  # read as a record's fields are, defaults applied
                for f in schema.fields:
                    if values[f.index] is None:
                        values[f.index] = f.schema.default
            values[source.index] = self._convert(values[source.index], kind)
            updated = copy_schema(schema, fields=fields, default=fill_struct(updated, values))
        return updated, kind


class TimestampConverterKey(_TimestampConverter[R]):
    """Convert a timestamp in the key (``...transforms.TimestampConverter$Key``)."""

    ON_KEY = True
    NAME = "TimestampConverter$Key"


class TimestampConverterValue(_TimestampConverter[R]):
    """Convert a timestamp in the value (``...transforms.TimestampConverter$Value``).

    Example:
        ``field=published``, ``target.type=string``, ``format=yyyy-MM-dd``.
    """

    NAME = "TimestampConverter$Value"
