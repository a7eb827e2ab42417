"""Apache Kafka's InsertFieldTest and SetSchemaMetadataTest, method by method.

Kafka's ``SetSchemaMetadata.updateSchemaIn`` is internal; its three cases are checked
through ``apply`` (a Struct is rebuilt on the new schema, other values pass unchanged).
"""

from __future__ import annotations

import datetime as dt
from importlib.metadata import version
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Timestamp,
)
from kconnect_transforms import (
    InsertFieldKey,
    InsertFieldValue,
    SetSchemaMetadataValue,
)

UTC = dt.UTC
VERSION = version("kconnect-transforms")
ALL_FIELDS = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}
SIMPLE = (
    SchemaBuilder.struct()
    .name("name")
    .version(1)
    .doc("doc")
    .field("magic", Schema.OPTIONAL_INT64)
    .build()
)


def _value_xform(**config: Any) -> InsertFieldValue[SourceRecord]:
    xform: InsertFieldValue[SourceRecord] = InsertFieldValue()
    xform.configure(config)
    return xform


def _key_xform(**config: Any) -> InsertFieldKey[SourceRecord]:
    xform: InsertFieldKey[SourceRecord] = InsertFieldKey()
    xform.configure(config)
    return xform


# -- InsertFieldTest ------------------------------------------------------------------------


def test_insert_field_test_top_level_struct_required() -> None:
    xform = _value_xform(**{"topic.field": "topic_field"})
    with pytest.raises(DataError):
        xform.apply(SourceRecord(topic="", kafka_partition=0, value_schema=Schema.INT32, value=42))


def test_insert_field_test_copy_schema_and_insert_configured_fields() -> None:
    xform = _value_xform(**ALL_FIELDS)
    record = SourceRecord(
        topic="test",
        kafka_partition=0,
        value_schema=SIMPLE,
        value=Struct(SIMPLE).put("magic", 42),
        timestamp=789,
    )
    transformed = xform.apply(record)
    assert transformed is not None and transformed.value_schema is not None
    schema, value = transformed.value_schema, transformed.value
    assert (schema.name, schema.version, schema.doc) == ("name", 1, "doc")
    expected = {
        "magic": (Schema.OPTIONAL_INT64, 42),
        "topic_field": (Schema.STRING, "test"),
        "partition_field": (Schema.OPTIONAL_INT32, 0),
        "timestamp_field": (
            Timestamp.builder().optional().build(),
            dt.datetime(1970, 1, 1, tzinfo=UTC) + dt.timedelta(milliseconds=789),
        ),
        "instance_id": (Schema.OPTIONAL_STRING, "my-instance-id"),
    }
    for name, (field_schema, field_value) in expected.items():
        field = schema.field(name)
        assert field is not None and field.schema == field_schema, name
        assert value.get(name) == field_value, name
    again = xform.apply(
        SourceRecord(topic="test", kafka_partition=1, value_schema=SIMPLE, value=Struct(SIMPLE))
    )
    assert again is not None and again.value_schema is transformed.value_schema


def test_insert_field_test_schemaless_insert_configured_fields() -> None:
    record = SourceRecord(topic="test", kafka_partition=0, value={"magic": 42}, timestamp=123)
    transformed = _value_xform(**ALL_FIELDS).apply(record)
    assert transformed is not None
    assert transformed.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "timestamp_field": 123,
        "instance_id": "my-instance-id",
    }


def test_insert_field_test_insert_configured_fields_into_tombstone_event_without_schema_leaves_value_unchanged() -> (
    None
):
    transformed = _value_xform(**ALL_FIELDS).apply(SourceRecord(topic="test", kafka_partition=0))
    assert transformed is not None
    assert transformed.value is None and transformed.value_schema is None


def test_insert_field_test_insert_configured_fields_into_tombstone_event_with_schema_leaves_value_unchanged() -> (
    None
):
    transformed = _value_xform(**ALL_FIELDS).apply(
        SourceRecord(topic="test", kafka_partition=0, value_schema=SIMPLE)
    )
    assert transformed is not None
    assert transformed.value is None
    assert transformed.value_schema == SIMPLE


def test_insert_field_test_insert_key_fields_into_tombstone_event() -> None:
    record = SourceRecord(topic="test", kafka_partition=0, key={"magic": 42})
    transformed = _key_xform(**ALL_FIELDS).apply(record)
    assert transformed is not None
    key = transformed.key
    assert key["magic"] == 42
    assert key["topic_field"] == "test"
    assert key["partition_field"] == 0
    assert key.get("timestamp_field") is None
    assert key["instance_id"] == "my-instance-id"
    assert transformed.value is None


def test_insert_field_test_insert_into_null_key_leaves_record_unchanged() -> None:
    record = SourceRecord(topic="test", kafka_partition=0, value={"magic": 42})
    assert _key_xform(**ALL_FIELDS).apply(record) is record


def test_insert_field_test_test_insert_field_version_retrieved_from_app_info_parser() -> None:
    assert InsertFieldKey().version() == VERSION
    assert InsertFieldValue().version() == VERSION


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_insert_field_test_test_unset_optional_field(replace: bool, expected: int | None) -> None:
    magic = SchemaBuilder.int64().optional().default_value(42).build()
    schema = (
        SchemaBuilder.struct()
        .name("name")
        .version(1)
        .doc("doc")
        .field("magic_with_default", magic)
        .build()
    )
    xform = _value_xform(**ALL_FIELDS, **{"replace.null.with.default": replace})
    record = SourceRecord(
        topic="test",
        kafka_partition=0,
        value_schema=schema,
        value=Struct(schema).put("magic_with_default", None),
        timestamp=789,
    )
    transformed = xform.apply(record)
    assert transformed is not None and transformed.value_schema is not None
    assert (transformed.value_schema.name, transformed.value_schema.version) == ("name", 1)
    field = transformed.value_schema.field("magic_with_default")
    assert field is not None and field.schema == magic
    assert transformed.value.get_without_default("magic_with_default") == expected


# -- SetSchemaMetadataTest -------------------------------------------------------------------


def _metadata(**config: Any) -> SetSchemaMetadataValue[SinkRecord]:
    xform: SetSchemaMetadataValue[SinkRecord] = SetSchemaMetadataValue()
    xform.configure(config)
    return xform


def _sink(schema: Schema | None, value: Any) -> SinkRecord:
    return SinkRecord(topic="", kafka_partition=0, kafka_offset=0, value_schema=schema, value=value)


def _assert_matching_schema(value: Struct, schema: Schema) -> None:
    assert value.schema is schema
    for field in schema.fields:
        own = value.schema.field(field.name)
        assert own is not None and own.index == field.index and own.schema is field.schema


def test_set_schema_metadata_test_schema_name_update() -> None:
    updated = _metadata(**{"schema.name": "foo"}).apply(_sink(SchemaBuilder.struct().build(), None))
    assert updated is not None and updated.value_schema is not None
    assert updated.value_schema.name == "foo"


def test_set_schema_metadata_test_schema_version_update() -> None:
    updated = _metadata(**{"schema.version": 42}).apply(_sink(SchemaBuilder.struct().build(), None))
    assert updated is not None and updated.value_schema is not None
    assert updated.value_schema.version == 42


def test_set_schema_metadata_test_schema_name_and_version_update() -> None:
    xform = _metadata(**{"schema.name": "foo", "schema.version": "42"})
    updated = xform.apply(_sink(SchemaBuilder.struct().build(), None))
    assert updated is not None and updated.value_schema is not None
    assert (updated.value_schema.name, updated.value_schema.version) == ("foo", 42)


def _two_fields(first: Schema = Schema.STRING) -> Schema:
    return (
        SchemaBuilder.struct()
        .name("my.orig.SchemaDefn")
        .field("f1", first)
        .field("f2", Schema.INT32)
        .build()
    )


def test_set_schema_metadata_test_schema_name_and_version_update_with_struct() -> None:
    schema = _two_fields()
    value = Struct(schema).put("f1", "value1").put("f2", 1)
    updated = _metadata(**{"schema.name": "foo", "schema.version": "42"}).apply(
        _sink(schema, value)
    )
    assert updated is not None and updated.value_schema is not None
    assert (updated.value_schema.name, updated.value_schema.version) == ("foo", 42)
    _assert_matching_schema(updated.value, updated.value_schema)


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, "default")])
def test_set_schema_metadata_test_schema_name_and_version_update_with_struct_and_null_field(
    replace: bool, expected: str | None
) -> None:
    schema = _two_fields(SchemaBuilder.string().default_value("default").optional().build())
    value = Struct(schema).put("f1", None).put("f2", 1)
    xform = _metadata(
        **{"schema.name": "foo", "schema.version": "42", "replace.null.with.default": replace}
    )
    updated = xform.apply(_sink(schema, value))
    assert updated is not None and updated.value_schema is not None
    assert (updated.value_schema.name, updated.value_schema.version) == ("foo", 42)
    _assert_matching_schema(updated.value, updated.value_schema)
    assert updated.value.get_without_default("f1") == expected


def test_set_schema_metadata_test_value_schema_required() -> None:
    with pytest.raises(DataError):
        _metadata(**{"schema.version": "1"}).apply(_sink(None, 42))


def test_set_schema_metadata_test_needs_a_name_or_a_version() -> None:
    # Kafka 4.1 refuses the config at configure (found by compat/).
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        _metadata()


def test_set_schema_metadata_test_ignore_record_with_null_value() -> None:
    updated = _metadata(**{"schema.version": "1"}).apply(_sink(None, None))
    assert updated is not None
    assert (updated.key, updated.key_schema, updated.value, updated.value_schema) == (None,) * 4


def test_set_schema_metadata_test_update_schema_of_struct() -> None:
    schema = _two_fields()
    value = Struct(schema).put("f1", "value1").put("f2", 1)
    updated = _metadata(**{"schema.name": "my.updated.SchemaDefn"}).apply(_sink(schema, value))
    assert updated is not None and updated.value_schema is not None
    assert updated.value_schema.name == "my.updated.SchemaDefn"
    _assert_matching_schema(updated.value, updated.value_schema)


def test_set_schema_metadata_test_update_schema_of_non_struct() -> None:
    value = 1
    updated = _metadata(**{"schema.name": "n"}).apply(_sink(Schema.INT32, value))
    assert updated is not None and updated.value is value


def test_set_schema_metadata_test_update_schema_of_null() -> None:
    updated = _metadata(**{"schema.name": "n"}).apply(_sink(Schema.OPTIONAL_INT32, None))
    assert updated is not None and updated.value is None


def test_set_schema_metadata_test_test_schema_metadata_version_retrieved_from_app_info_parser() -> (
    None
):
    assert SetSchemaMetadataValue().version() == VERSION
