"""Apache Kafka's ``TimestampConverterTest``, method by method.

Java's ``java.util.Date`` values are Python ``datetime`` (Timestamp), ``date`` (Date) and
``time`` (Time) values, all UTC. A null value with a schema still gets the converted
schema, as in Kafka.
"""

from __future__ import annotations

import pytest
from kconnect_sdk import Date, Schema, SchemaBuilder, SourceRecord, Struct, Time, Timestamp
from kconnect_transforms import TimestampConverterValue

STRING_DATE_FMT = "yyyy MM dd HH:mm:ss SSS z"
OPTIONAL_TIMESTAMP = Timestamp.builder().optional().build()
OPTIONAL_DATE = Date.builder().optional().build()
OPTIONAL_TIME = Time.builder().optional().build()
SOURCES = [
    Schema.OPTIONAL_INT64,
    OPTIONAL_TIME,
    OPTIONAL_DATE,
    Schema.OPTIONAL_STRING,
    OPTIONAL_TIMESTAMP,
]
TARGETS = {
    "Timestamp": OPTIONAL_TIMESTAMP,
    "unix": Schema.OPTIONAL_INT64,
    "Time": OPTIONAL_TIME,
    "Date": OPTIONAL_DATE,
    "string": Schema.OPTIONAL_STRING,
}


def _xform(target: str, field: str | None = None) -> TimestampConverterValue[SourceRecord]:
    xform: TimestampConverterValue[SourceRecord] = TimestampConverterValue()
    config = {"target.type": target, "format": STRING_DATE_FMT}
    if field:
        config["field"] = field
    xform.configure(config)
    return xform


@pytest.mark.parametrize(
    "target",
    list(TARGETS),
    ids=[
        "test_with_schema_null_value_to_timestamp",
        "test_with_schema_null_value_to_unix",
        "test_with_schema_null_value_to_time",
        "test_with_schema_null_value_to_date",
        "test_with_schema_null_value_to_string",
    ],
)
def test_with_schema_null_value(target: str) -> None:
    for source in SOURCES:
        xform = _xform(target)
        transformed = xform.apply(SourceRecord(topic="test", value_schema=source, value=None))
        assert transformed is not None
        assert transformed.value_schema == TARGETS[target], source
        assert transformed.value is None


@pytest.mark.parametrize(
    "target",
    list(TARGETS),
    ids=[
        "test_with_schema_null_field_to_timestamp",
        "test_with_schema_null_field_to_unix",
        "test_with_schema_null_field_to_time",
        "test_with_schema_null_field_to_date",
        "test_with_schema_null_field_to_string",
    ],
)
def test_with_schema_null_field(target: str) -> None:
    for source in SOURCES:
        xform = _xform(target, "ts")
        schema = SchemaBuilder.struct().field("ts", source).field("other", Schema.STRING).build()
        expected = (
            SchemaBuilder.struct()
            .field("ts", TARGETS[target])
            .field("other", Schema.STRING)
            .build()
        )
        original = Struct(schema).put("ts", None).put("other", "test")
        transformed = xform.apply(SourceRecord(topic="test", value_schema=schema, value=original))
        assert transformed is not None
        assert transformed.value_schema == expected
        assert transformed.value.get("ts") is None
        assert transformed.value.get("other") == "test"
        # and a null value of an optional struct gets the optional converted struct schema
        optional = (
            SchemaBuilder.struct().optional().field("ts", source).field("other", Schema.STRING)
        )
        transformed = xform.apply(
            SourceRecord(topic="test", value_schema=optional.build(), value=None)
        )
        expected_optional = (
            SchemaBuilder.struct()
            .optional()
            .field("ts", TARGETS[target])
            .field("other", Schema.STRING)
            .build()
        )
        assert transformed is not None
        assert transformed.value_schema == expected_optional
        assert transformed.value is None


# -- the rest of TimestampConverterTest ------------------------------------------------------

import datetime as dt  # noqa: E402
from importlib.metadata import version  # noqa: E402
from typing import Any  # noqa: E402

from kconnect_sdk import ConfigError  # noqa: E402
from kconnect_transforms import TimestampConverterKey  # noqa: E402

UTC = dt.UTC
DATE = dt.date(1970, 1, 2)
TIME = dt.time(0, 0, 1, 234000, tzinfo=UTC)
DATE_PLUS_TIME = dt.datetime(1970, 1, 2, 0, 0, 1, 234000, tzinfo=UTC)
DATE_PLUS_TIME_UNIX = 86401234
DATE_PLUS_TIME_UNIX_MICROS = DATE_PLUS_TIME_UNIX * 1000 + 123
DATE_PLUS_TIME_UNIX_NANOS = DATE_PLUS_TIME_UNIX_MICROS * 1000 + 456
DATE_PLUS_TIME_UNIX_SECONDS = 86401
DATE_PLUS_TIME_STRING = "1970 01 02 00 00 01 234 UTC"
FMT = "yyyy MM dd HH mm ss SSS z"


def _conv(**config: Any) -> TimestampConverterValue[SourceRecord]:
    xform: TimestampConverterValue[SourceRecord] = TimestampConverterValue()
    xform.configure(config)
    return xform


def _run(xform: Any, schema: Schema | None, value: Any) -> SourceRecord:
    out = xform.apply(
        SourceRecord(topic="topic", kafka_partition=0, value_schema=schema, value=value)
    )
    assert out is not None
    return out


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"target.type": "invalid"},
        {"target.type": "unix", "unix.precision": "invalid"},
        {"target.type": "string"},
        {"target.type": "string", "format": "bad-format"},
    ],
    ids=[
        "test_config_no_target_type",
        "test_config_invalid_target_type",
        "test_config_invalid_unix_precision",
        "test_config_missing_format",
        "test_config_invalid_format",
    ],
)
def test_invalid_config(config: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        _conv(**config)


def test_config_valid_unix_precision() -> None:
    _conv(**{"target.type": "unix", "unix.precision": "seconds"})


@pytest.mark.parametrize(
    ("config", "value", "expected"),
    [
        ({"target.type": "Timestamp"}, DATE_PLUS_TIME, DATE_PLUS_TIME),
        ({"target.type": "Date"}, DATE_PLUS_TIME, DATE),
        ({"target.type": "Time"}, DATE_PLUS_TIME, TIME),
        ({"target.type": "unix"}, DATE_PLUS_TIME, DATE_PLUS_TIME_UNIX),
        ({"target.type": "string", "format": FMT}, DATE_PLUS_TIME, DATE_PLUS_TIME_STRING),
        ({"target.type": "Timestamp"}, DATE, dt.datetime(1970, 1, 2, tzinfo=UTC)),
        ({"target.type": "Timestamp"}, TIME, dt.datetime(1970, 1, 1, 0, 0, 1, 234000, tzinfo=UTC)),
        ({"target.type": "Timestamp"}, DATE_PLUS_TIME_UNIX, DATE_PLUS_TIME),
        ({"target.type": "Timestamp", "format": FMT}, DATE_PLUS_TIME_STRING, DATE_PLUS_TIME),
        (
            {"target.type": "unix", "unix.precision": "microseconds", "format": FMT},
            DATE_PLUS_TIME_STRING,
            86401234000,
        ),
        (
            {"target.type": "unix", "unix.precision": "nanoseconds", "format": FMT},
            DATE_PLUS_TIME_STRING,
            86401234000000,
        ),
        (
            {"target.type": "unix", "unix.precision": "seconds", "format": FMT},
            DATE_PLUS_TIME_STRING,
            DATE_PLUS_TIME_UNIX_SECONDS,
        ),
    ],
    ids=[
        "test_schemaless_identity",
        "test_schemaless_timestamp_to_date",
        "test_schemaless_timestamp_to_time",
        "test_schemaless_timestamp_to_unix",
        "test_schemaless_timestamp_to_string",
        "test_schemaless_date_to_timestamp",
        "test_schemaless_time_to_timestamp",
        "test_schemaless_unix_to_timestamp",
        "test_schemaless_string_to_timestamp",
        "test_schemaless_string_to_unix__micros",
        "test_schemaless_string_to_unix__nanos",
        "test_schemaless_string_to_unix__seconds",
    ],
)
def test_schemaless(config: dict[str, str], value: Any, expected: Any) -> None:
    out = _run(_conv(**config), None, value)
    assert out.value_schema is None
    assert out.value == expected


@pytest.mark.parametrize(
    ("config", "schema", "value", "expected_schema", "expected"),
    [
        (
            {"target.type": "Timestamp"},
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
        ),
        ({"target.type": "Date"}, Timestamp.SCHEMA, DATE_PLUS_TIME, Date.SCHEMA, DATE),
        ({"target.type": "Time"}, Timestamp.SCHEMA, DATE_PLUS_TIME, Time.SCHEMA, TIME),
        (
            {"target.type": "unix"},
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
            Schema.INT64,
            DATE_PLUS_TIME_UNIX,
        ),
        (
            {"target.type": "string", "format": FMT},
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
            Schema.STRING,
            DATE_PLUS_TIME_STRING,
        ),
        (
            {"target.type": "Timestamp"},
            Date.SCHEMA,
            DATE,
            Timestamp.SCHEMA,
            dt.datetime(1970, 1, 2, tzinfo=UTC),
        ),
        (
            {"target.type": "Timestamp"},
            Time.SCHEMA,
            TIME,
            Timestamp.SCHEMA,
            dt.datetime(1970, 1, 1, 0, 0, 1, 234000, tzinfo=UTC),
        ),
        (
            {"target.type": "Timestamp"},
            Schema.INT64,
            DATE_PLUS_TIME_UNIX,
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
        ),
        (
            {"target.type": "Timestamp", "format": FMT},
            Schema.STRING,
            DATE_PLUS_TIME_STRING,
            Timestamp.SCHEMA,
            DATE_PLUS_TIME,
        ),
    ],
    ids=[
        "test_with_schema_identity",
        "test_with_schema_timestamp_to_date",
        "test_with_schema_timestamp_to_time",
        "test_with_schema_timestamp_to_unix",
        "test_with_schema_timestamp_to_string",
        "test_with_schema_date_to_timestamp",
        "test_with_schema_time_to_timestamp",
        "test_with_schema_unix_to_timestamp",
        "test_with_schema_string_to_timestamp",
    ],
)
def test_with_schema(
    config: dict[str, str], schema: Schema, value: Any, expected_schema: Schema, expected: Any
) -> None:
    out = _run(_conv(**config), schema, value)
    assert out.value_schema == expected_schema
    assert out.value == expected


@pytest.mark.parametrize(
    "target",
    ["string", "Date", "Timestamp", "unix", "Time"],
    ids=[
        "test_schemaless_null_value_to_string",
        "test_schemaless_null_value_to_date",
        "test_schemaless_null_value_to_timestamp",
        "test_schemaless_null_value_to_unix",
        "test_schemaless_null_value_to_time",
    ],
)
def test_schemaless_null_value(target: str) -> None:
    for field in ({}, {"field": "ts"}):
        out = _run(_conv(**{"target.type": target, "format": FMT, **field}), None, None)
        assert (out.value_schema, out.value) == (None, None)


def test_schemaless_field_conversion() -> None:
    out = _run(_conv(**{"target.type": "Date", "field": "ts"}), None, {"ts": DATE_PLUS_TIME})
    assert out.value_schema is None
    assert out.value == {"ts": DATE}


def test_with_schema_field_conversion() -> None:
    schema = SchemaBuilder.struct().field("ts", Schema.INT64).field("other", Schema.STRING).build()
    value = Struct(schema).put("ts", DATE_PLUS_TIME_UNIX).put("other", "test")
    out = _run(_conv(**{"target.type": "Timestamp", "field": "ts"}), schema, value)
    assert out.value_schema == (
        SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).field("other", Schema.STRING).build()
    )
    assert out.value.get("ts") == DATE_PLUS_TIME
    assert out.value.get("other") == "test"


@pytest.mark.parametrize("replace", [False, True])
def test_with_schema_null_field_with_default_conversion(replace: bool) -> None:
    # Kafka's test configures replace.null.with.default=false in both of its cases.
    schema = (
        SchemaBuilder.struct()
        .field("ts", SchemaBuilder.int64().optional().default_value(0).build())
        .field("other", Schema.STRING)
        .build()
    )
    xform = _conv(
        **{"target.type": "Timestamp", "field": "ts", "replace.null.with.default": "false"}
    )
    out = _run(xform, schema, Struct(schema).put("ts", None).put("other", "test"))
    assert out.value_schema == (
        SchemaBuilder.struct()
        .field("ts", Timestamp.builder().optional().build())
        .field("other", Schema.STRING)
        .build()
    )
    assert out.value.get("ts") is None
    assert out.value.get("other") == "test"


@pytest.mark.parametrize(
    ("precision", "value", "expected"),
    [
        ("microseconds", DATE_PLUS_TIME_UNIX_MICROS, DATE_PLUS_TIME),
        ("nanoseconds", DATE_PLUS_TIME_UNIX_NANOS, DATE_PLUS_TIME),
        ("seconds", DATE_PLUS_TIME_UNIX_SECONDS, dt.datetime(1970, 1, 2, 0, 0, 1, tzinfo=UTC)),
    ],
    ids=[
        "test_with_schema_field_conversion__micros",
        "test_with_schema_field_conversion__nanos",
        "test_with_schema_field_conversion__seconds",
    ],
)
def test_with_schema_field_conversion_precision(precision: str, value: int, expected: Any) -> None:
    schema = SchemaBuilder.struct().field("ts", Schema.INT64).build()
    xform = _conv(**{"target.type": "Timestamp", "field": "ts", "unix.precision": precision})
    out = _run(xform, schema, Struct(schema).put("ts", value))
    assert out.value_schema == SchemaBuilder.struct().field("ts", Timestamp.SCHEMA).build()
    assert out.value.get("ts") == expected


def test_key() -> None:
    xform: TimestampConverterKey[SourceRecord] = TimestampConverterKey()
    xform.configure({"target.type": "Timestamp"})
    out = xform.apply(SourceRecord(topic="topic", kafka_partition=0, key=DATE_PLUS_TIME))
    assert out is not None
    assert out.key_schema is None
    assert out.key == DATE_PLUS_TIME


def test_timestamp_converter_version_retrieved_from_app_info_parser() -> None:
    assert TimestampConverterKey().version() == version("kconnect-transforms")
    assert TimestampConverterValue().version() == TimestampConverterKey().version()
