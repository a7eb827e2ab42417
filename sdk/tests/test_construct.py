"""The construction API: what a decoder builds with it is what the checked constructors build."""

from __future__ import annotations

import pytest
from kconnect_sdk import (
    DataError,
    Headers,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    record_maker,
    struct_maker,
    struct_values,
)

PERSON = (
    SchemaBuilder.struct()
    .name("person")
    .field("id", Schema.INT64)
    .field("name", Schema.OPTIONAL_STRING)
    .build()
)


def test_a_made_struct_equals_one_put_field_by_field() -> None:
    make = struct_maker(PERSON)
    made = make([7, "ada"])
    assert made == Struct(PERSON).put("id", 7).put("name", "ada")
    assert made.get("name") == "ada"
    assert struct_values(made) == [7, "ada"]
    made.validate()


def test_the_maker_checks_the_schema_once_and_the_values_on_demand() -> None:
    with pytest.raises(DataError, match="struct schema"):
        struct_maker(Schema.INT32)
    wrong = struct_maker(PERSON)(["seven", None])  # not checked while building
    with pytest.raises(DataError, match="id"):
        wrong.validate()


def test_records_are_made_from_fields_in_declared_order() -> None:
    make_source = record_maker(SourceRecord)
    fields = ("t", 0, None, b"k", None, b"v", 5, Headers.EMPTY, {"p": 1}, {"o": 2})
    assert make_source(fields) == SourceRecord(
        topic="t",
        kafka_partition=0,
        key=b"k",
        value=b"v",
        timestamp=5,
        source_partition={"p": 1},
        source_offset={"o": 2},
    )
    sink = SinkRecord(topic="t", kafka_partition=1, value=1, kafka_offset=9)
    moved = record_maker(SinkRecord)(("u", *sink[1:]))
    assert moved.topic == "u" and moved.original_topic == "t" and moved.kafka_offset == 9
    assert record_maker(SchemaAndValue)((Schema.STRING, "x")) == SchemaAndValue(Schema.STRING, "x")


def test_record_maker_refuses_other_tuples() -> None:
    with pytest.raises(TypeError, match="SourceRecord, SinkRecord or SchemaAndValue"):
        record_maker(tuple)  # type: ignore[type-var]
