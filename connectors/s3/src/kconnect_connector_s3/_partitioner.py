"""Partitioners and timestamp extractors of Confluent's storage-common, in Python.

A partitioner maps a record to its *encoded partition* (``partition=3``, ``id=2``,
``year=2026/month=08``), which becomes the directory of the object the record goes to.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from kconnect_sdk import ConfigError, DataError, Schema, SinkRecord, Struct, Timestamp, Type
from kconnect_sdk.java import EPOCH_DATETIME, MILLIS_PER_DAY

from ._config import S3SinkSettings
from ._joda import compile_pattern

__all__ = ["Partitioner", "TimestampExtractor", "new_partitioner"]

_NUMERIC: Final = re.compile(r"^-?[0-9]{1,19}$")
_HOUR_MS: Final = 3600 * 1000

TimestampExtractor = Callable[[SinkRecord, int], "int | None"]
"""``(record, now_ms) -> epoch milliseconds`` (None when the record carries no time)."""


class PartitionError(DataError):
    """A record the partitioner cannot place (Java's ``PartitionException``)."""


_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1


def _schema_field(schema: Schema | None, path: str) -> Schema | None:
    """The schema of the dotted ``path`` inside a struct schema; None when it has no such
    field (Confluent's ``DataUtils.getNestedField``)."""
    current = schema
    for part in path.split("."):
        if current is None or current.type is not Type.STRUCT:
            return None
        field = current.field(part)
        if field is None:
            return None
        current = field.schema
    return current


def _field_value(value: Any, path: str) -> Any:
    """The value at the dotted ``path`` through Structs and Maps (Confluent's
    ``DataUtils.getNestedFieldValue``): a missing or null step is an error."""
    current = value
    for part in path.split("."):
        if isinstance(current, Struct):
            current = None if current.schema.field(part) is None else current.get(part)
        elif isinstance(current, Mapping):
            current = current.get(part)
        else:
            current = None
        if current is None:
            raise PartitionError(f"The field '{path}' does not exist.")
    return current


def _parse_time_string(text: str) -> int:
    """Epoch milliseconds as digits, or an ISO-8601 date-time (Joda's dateTimeParser)."""
    if _NUMERIC.match(text) and _LONG_MIN <= int(text) <= _LONG_MAX:
        return int(text)
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise PartitionError(f'Invalid format: "{text}"') from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return int(parsed.timestamp() * 1000)


def _datetime_millis(value: dt.datetime) -> int:
    aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    return int(aware.timestamp() * 1000)


def _struct_time(found: Any, schema: Schema, field: str) -> int:
    if schema.name == Timestamp.LOGICAL_NAME and isinstance(found, dt.datetime):
        return Timestamp.from_logical(schema, found)
    if schema.type in (Type.INT32, Type.INT64) and isinstance(found, int):
        return int(found)
    if schema.type is Type.STRING and isinstance(found, str):
        return _parse_time_string(found)
    raise PartitionError(f"Error extracting timestamp from record field: {field}")


def _map_time(found: Any, field: str) -> int:
    if isinstance(found, bool):
        raise PartitionError(f"Error extracting timestamp from record field: {field}")
    if isinstance(found, int | float):
        return int(found)
    if isinstance(found, str):
        return _parse_time_string(found)
    if isinstance(found, dt.datetime):
        return _datetime_millis(found)
    raise PartitionError(f"Error extracting timestamp from record field: {field}")


def new_extractor(name: str, field: str) -> TimestampExtractor:
    """Wallclock, Record or RecordField (``timestamp.field``)."""
    if name == "Wallclock":
        return lambda record, now: now
    if name == "Record":
        return lambda record, now: record.timestamp

    def record_field(record: SinkRecord, now: int) -> int | None:
        value = record.value
        if isinstance(value, Struct):
            found = _field_value(value, field)
            schema = _schema_field(record.value_schema or value.schema, field)
            if schema is None:
                raise PartitionError(f"The field '{field}' does not exist.")
            return _struct_time(found, schema, field)
        if isinstance(value, Mapping):
            return _map_time(_field_value(value, field), field)
        raise PartitionError(
            "Error encoding partition. RecordField timestamp extractor: the record value is "
            f"not a Struct or Map (topic {record.topic}, partition {record.kafka_partition}, "
            f"offset {record.kafka_offset})"
        )

    return record_field


class Partitioner:
    """``DefaultPartitioner``: ``partition=<kafka partition>``."""

    extractor: TimestampExtractor | None = None

    def __init__(self, settings: S3SinkSettings) -> None:
        self.delim = settings.dir_delim

    def encode(self, record: SinkRecord, now: int) -> str:
        return f"partition={record.kafka_partition}"

    def path(self, topic: str, encoded: str) -> str:
        return topic + self.delim + encoded


_FIELD_TYPES: Final = {Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.STRING, Type.BOOLEAN}


class FieldPartitioner(Partitioner):
    """``<field>=<value>`` per ``partition.field.name`` entry, joined by ``directory.delim``."""

    def __init__(self, settings: S3SinkSettings) -> None:
        super().__init__(settings)
        self.fields = [str(f) for f in settings.raw["partition.field.name"] or [] if str(f)]
        if not self.fields:
            raise ConfigError(
                "Partition field name cannot be null or empty when using FieldPartitioner. "
                "Set 'partition.field.name' to one or more value fields (nested with '.').",
                name="partition.field.name",
            )

    def encode(self, record: SinkRecord, now: int) -> str:
        value = record.value
        if not isinstance(value, Struct):
            raise PartitionError(
                "Error encoding partition. FieldPartitioner: the record value is not a Struct "
                f"(it needs a schema); record at offset {record.kafka_offset} of "
                f"{record.topic}-{record.kafka_partition}"
            )
        parts = []
        for name in self.fields:
            schema = _schema_field(record.value_schema or value.schema, name)
            if schema is None:
                raise DataError(f"Field '{name}' is not present in the schema.")
            try:
                found = _field_value(value, name)
            except PartitionError:
                # A null anywhere on the path (the field or a struct above it) is the
                # ``null`` partition, as in Confluent's FieldPartitioner.
                found = None
            if found is None:
                parts.append(f"{name}=null")
                continue
            if schema.type not in _FIELD_TYPES:
                raise PartitionError(
                    f"Error encoding partition. FieldPartitioner: field {name!r} has type "
                    f"{schema.type.value}; only INT8-INT64, STRING and BOOLEAN can partition"
                )
            if schema.type is Type.BOOLEAN:
                parts.append(f"{name}={'true' if found else 'false'}")
            else:
                parts.append(f"{name}={found}")
        return self.delim.join(parts)


def _java_floor_div(a: int, b: int) -> int:
    # Java's integer division truncates toward zero; Joda's bucket maths relies on it.
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class TimeBasedPartitioner(Partitioner):
    """Buckets of ``partition.duration.ms`` in ``timezone``, named by ``path.format``."""

    duration_ms: int
    path_format: str

    def __init__(self, settings: S3SinkSettings) -> None:
        super().__init__(settings)
        raw = settings.raw
        self.duration_ms, path_format = self._shape(settings)
        if self.duration_ms < 0:
            raise ConfigError(
                f"Invalid value {self.duration_ms} for configuration partition.duration.ms: "
                "Partition duration needs to be a positive. Set it to the length of a "
                "partition in milliseconds, e.g. 3600000 for hourly directories.",
                name="partition.duration.ms",
                value=self.duration_ms,
            )
        if not path_format.strip() or path_format == self.delim:
            raise ConfigError(
                f"Invalid value {path_format} for configuration path.format: Path format "
                "cannot be empty. E.g. 'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
                name="path.format",
                value=path_format,
            )
        if self.delim.strip() and path_format.endswith(self.delim):
            path_format = path_format[: -len(self.delim)]
        locale = str(raw["locale"] or "")
        if not locale.strip():
            raise ConfigError(
                f"Invalid value {locale} for configuration locale: Locale cannot be empty. "
                "E.g. en-US",
                name="locale",
                value=locale,
            )
        if settings.zone is None:
            zone = str(raw["timezone"] or "")
            raise ConfigError(
                f"Invalid value {zone} for configuration timezone: Timezone cannot be empty. "
                "E.g. UTC",
                name="timezone",
                value=zone,
            )
        self.path_format = path_format
        self.zone = settings.zone
        self.format = compile_pattern(path_format)
        self.extractor = new_extractor(settings.extractor, str(raw["timestamp.field"]))

    def _shape(self, settings: S3SinkSettings) -> tuple[int, str]:
        return int(settings.raw["partition.duration.ms"]), str(settings.raw["path.format"])

    def bucket(self, timestamp: int) -> dt.datetime:
        """The start of the bucket holding ``timestamp``, as Joda computes it in the zone."""
        instant = dt.datetime.fromtimestamp(timestamp / 1000, dt.UTC)
        offset = instant.astimezone(self.zone).utcoffset() or dt.timedelta(0)
        local = timestamp + int(offset.total_seconds() * 1000)
        if self.duration_ms > 0:
            local = _java_floor_div(local, self.duration_ms) * self.duration_ms
        wall = EPOCH_DATETIME + dt.timedelta(milliseconds=local)
        return wall.replace(tzinfo=self.zone).astimezone(self.zone)

    def encode(self, record: SinkRecord, now: int) -> str:
        assert self.extractor is not None
        timestamp = self.extractor(record, now)
        if timestamp is None:
            raise PartitionError(
                "Unable to determine timestamp using timestamp.extractor for record at "
                f"offset {record.kafka_offset} of {record.topic}-{record.kafka_partition}"
            )
        return self.format(self.bucket(timestamp))


class DailyPartitioner(TimeBasedPartitioner):
    def _shape(self, settings: S3SinkSettings) -> tuple[int, str]:
        d = settings.dir_delim
        return MILLIS_PER_DAY, f"'year'=YYYY{d}'month'=MM{d}'day'=dd"


class HourlyPartitioner(TimeBasedPartitioner):
    def _shape(self, settings: S3SinkSettings) -> tuple[int, str]:
        d = settings.dir_delim
        return _HOUR_MS, f"'year'=YYYY{d}'month'=MM{d}'day'=dd{d}'hour'=HH"


_CLASSES: Final[dict[str, type[Partitioner]]] = {
    "DefaultPartitioner": Partitioner,
    "FieldPartitioner": FieldPartitioner,
    "TimeBasedPartitioner": TimeBasedPartitioner,
    "DailyPartitioner": DailyPartitioner,
    "HourlyPartitioner": HourlyPartitioner,
}


def new_partitioner(settings: S3SinkSettings) -> Partitioner:
    """The partitioner ``partitioner.class`` names, configured."""
    return _CLASSES[settings.partitioner](settings)
