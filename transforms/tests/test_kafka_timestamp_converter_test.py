"""Apache Kafka's ``TimestampConverterTest``: its null-value and null-field methods.

(The other methods are covered case by case in ``test_apache_transforms.py``.) A null
value with a schema still gets the converted schema, as in Kafka.
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
