"""Apache Kafka's ExtractFieldTest, method by method. Kafka's IllegalArgumentException for an
unknown field is a DataError here (a bad record goes through errors.tolerance)."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from kconnect_sdk import DataError, Schema, SchemaBuilder, SinkRecord, Struct
from kconnect_transforms import ExtractFieldKey, ExtractFieldValue


def _key(**config: Any) -> ExtractFieldKey[SinkRecord]:
    xform: ExtractFieldKey[SinkRecord] = ExtractFieldKey()
    xform.configure(config)
    return xform


def _v2(field: str) -> ExtractFieldKey[SinkRecord]:
    return _key(field=field, **{"field.syntax.version": "V2"})


def _record(key_schema: Schema | None, key: Any) -> SinkRecord:
    return SinkRecord(
        topic="test", kafka_partition=0, kafka_offset=0, key_schema=key_schema, key=key
    )


FOO = SchemaBuilder.struct().field("foo", Schema.INT32).build()
NESTED = SchemaBuilder.struct().field("magic", FOO).build()
MAGIC = SchemaBuilder.struct().field("magic", Schema.INT32).build()


def _transformed(xform: ExtractFieldKey[SinkRecord], record: SinkRecord) -> SinkRecord:
    out = xform.apply(record)
    assert out is not None
    return out


def test_schemaless() -> None:
    out = _transformed(_key(field="magic"), _record(None, {"magic": 42}))
    assert (out.key_schema, out.key) == (None, 42)


def test_schemaless_and_nested_path() -> None:
    out = _transformed(_v2("magic.foo"), _record(None, {"magic": {"foo": 42}}))
    assert (out.key_schema, out.key) == (None, 42)


def test_null_schemaless() -> None:
    out = _transformed(_key(field="magic"), _record(None, None))
    assert (out.key_schema, out.key) == (None, None)


def test_with_schema() -> None:
    out = _transformed(_key(field="magic"), _record(MAGIC, Struct(MAGIC).put("magic", 42)))
    assert (out.key_schema, out.key) == (Schema.INT32, 42)


def test_with_schema_and_nested_path() -> None:
    key = Struct(NESTED).put("magic", Struct(FOO).put("foo", 42))
    out = _transformed(_v2("magic.foo"), _record(NESTED, key))
    assert (out.key_schema, out.key) == (Schema.INT32, 42)


def test_test_null_with_schema() -> None:
    schema = SchemaBuilder.struct().field("magic", Schema.INT32).optional().build()
    out = _transformed(_key(field="magic"), _record(schema, None))
    assert (out.key_schema, out.key) == (Schema.INT32, None)


def test_non_existent_field_schemaless_should_return_null() -> None:
    out = _transformed(_key(field="nonexistent"), _record(None, {"magic": 42}))
    assert (out.key_schema, out.key) == (None, None)


def test_non_existent_nested_field_schemaless_should_return_null() -> None:
    out = _transformed(_v2("magic.nonexistent"), _record(None, {"magic": {"foo": 42}}))
    assert (out.key_schema, out.key) == (None, None)


def test_non_existent_field_with_schema_should_fail() -> None:
    with pytest.raises(DataError, match="Unknown field: 'nonexistent'"):
        _key(field="nonexistent").apply(_record(MAGIC, Struct(MAGIC).put("magic", 42)))


def test_non_existent_nested_field_with_schema_should_fail() -> None:
    key = Struct(NESTED).put("magic", Struct(FOO).put("foo", 42))
    with pytest.raises(DataError, match=r"Unknown field: 'magic\.nonexistent'"):
        _v2("magic.nonexistent").apply(_record(NESTED, key))


def test_test_extract_field_version_retrieved_from_app_info_parser() -> None:
    assert ExtractFieldKey().version() == version("kconnect-transforms")


_DEFAULTED = SchemaBuilder.struct().field(
    "optional_with_default", SchemaBuilder.int32().optional().default_value(42).build()
)


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_test_unset_optional_key(replace: bool, expected: int | None) -> None:
    schema = _DEFAULTED.build()
    xform = _key(field="optional_with_default", **{"replace.null.with.default": replace})
    out = _transformed(xform, _record(schema, Struct(schema).put("optional_with_default", None)))
    assert out.key == expected


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_test_unset_optional_field(replace: bool, expected: int | None) -> None:
    schema = _DEFAULTED.build()
    xform: ExtractFieldValue[SinkRecord] = ExtractFieldValue()
    xform.configure({"field": "optional_with_default", "replace.null.with.default": replace})
    record = SinkRecord(
        topic="test",
        kafka_partition=0,
        kafka_offset=0,
        value_schema=schema,
        value=Struct(schema).put("optional_with_default", None),
    )
    out = xform.apply(record)
    assert out is not None and out.value == expected
