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

from ._config import S3SinkSettings
from ._joda import compile_pattern

__all__ = ["Partitioner", "TimestampExtractor", "new_partitioner"]

_NUMERIC: Final = re.compile(r"^-?[0-9]{1,19}$")
_DAY_MS: Final = 24 * 3600 * 1000
_HOUR_MS: Final = 3600 * 1000

TimestampExtractor = Callable[[SinkRecord, int], "int | None"]
"""``(record, now_ms) -> epoch milliseconds`` (None when the record carries no time)."""


class PartitionError(DataError):
    """A record the partitioner cannot place (Java's ``PartitionException``)."""


def _nested(value: Any, schema: Schema | None, path: str) -> tuple[Any, Schema | None, bool]:
    """(value, schema, found) of the dotted ``path`` inside a Struct or Map value."""
    current, current_schema = value, schema
    for part in path.split("."):
        if isinstance(current, Struct):
            field = current.schema.field(part)
            if field is None:
                return None, None, False
            current, current_schema = current.get(part), field.schema
        elif isinstance(current, Mapping):
            if part not in current:
                return None, None, False
            current, current_schema = current[part], None
        else:
            return None, None, False
    return current, current_schema, True


def _parse_iso(text: str) -> int:
    if _NUMERIC.match(text):
        return int(text)
    try:
        parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise PartitionError(f"cannot read a timestamp from the string {text!r}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return int(parsed.timestamp() * 1000)


def _as_millis(value: Any, schema: Schema | None, field: str) -> int:
    if (
        schema is not None
        and schema.name == Timestamp.LOGICAL_NAME
        and isinstance(value, dt.datetime)
    ):
        return Timestamp.from_logical(schema, value)
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return int(aware.timestamp() * 1000)
    if isinstance(value, bool):
        raise PartitionError(f"unsupported type bool for timestamp field {field!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and schema is None:
        return int(value)
    if isinstance(value, str):
        return _parse_iso(value)
    raise PartitionError(
        f"Error extracting timestamp from record field: {field} "
        f"(unsupported type {type(value).__name__})"
    )


def new_extractor(name: str, field: str) -> TimestampExtractor:
    """Wallclock, Record or RecordField (``timestamp.field``)."""
    if name == "Wallclock":
        return lambda record, now: now
    if name == "Record":
        return lambda record, now: record.timestamp

    def record_field(record: SinkRecord, now: int) -> int | None:
        value = record.value
        if not isinstance(value, Struct | Mapping):
            raise PartitionError(
                "RecordField timestamp extractor: the record value is not a Struct or Map "
                f"(topic {record.topic}, partition {record.kafka_partition}, offset "
                f"{record.kafka_offset})"
            )
        found, schema, present = _nested(value, record.value_schema, field)
        if not present or found is None:
            raise PartitionError(
                f"RecordField timestamp extractor: field {field!r} is missing or null in the "
                f"record at offset {record.kafka_offset} of {record.topic}-"
                f"{record.kafka_partition}"
            )
        return _as_millis(found, schema, field)

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
        self.fields = [str(f) for f in settings.raw["partition.field.name"] or []]
        if not self.fields:
            raise ConfigError(
                "S3 sink: FieldPartitioner needs config 'partition.field.name' (one or more "
                "value fields, nested with '.')",
                name="partition.field.name",
            )

    def encode(self, record: SinkRecord, now: int) -> str:
        value = record.value
        if not isinstance(value, Struct):
            raise PartitionError(
                "FieldPartitioner: the record value is not a Struct (it needs a schema); "
                f"record at offset {record.kafka_offset} of {record.topic}-"
                f"{record.kafka_partition}"
            )
        parts = []
        for name in self.fields:
            found, schema, present = _nested(value, value.schema, name)
            if not present:
                raise DataError(f"Field '{name}' is not present in the schema.")
            if found is None:
                parts.append(f"{name}=null")
                continue
            if schema is None or schema.type not in _FIELD_TYPES:
                raise PartitionError(
                    f"FieldPartitioner: field {name!r} has type "
                    f"{schema.type if schema else 'unknown'}; only INT8-INT64, STRING and "
                    "BOOLEAN can partition"
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
                "S3 sink: config 'partition.duration.ms' must be >= 0 for TimeBasedPartitioner, "
                f"got {self.duration_ms}",
                name="partition.duration.ms",
                value=self.duration_ms,
            )
        if not path_format.strip() or path_format == self.delim:
            raise ConfigError(
                "S3 sink: config 'path.format' cannot be empty for a time-based partitioner; "
                "e.g. 'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
                name="path.format",
                value=path_format,
            )
        if self.delim.strip() and path_format.endswith(self.delim):
            path_format = path_format[: -len(self.delim)]
        if not str(raw["locale"] or "").strip():
            raise ConfigError(
                "S3 sink: config 'locale' cannot be empty for a time-based partitioner; e.g. en-US",
                name="locale",
            )
        if settings.zone is None:
            raise ConfigError(
                "S3 sink: config 'timezone' cannot be empty for a time-based partitioner; e.g. UTC",
                name="timezone",
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
        wall = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=local)
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
        return _DAY_MS, f"'year'=YYYY{d}'month'=MM{d}'day'=dd"


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
