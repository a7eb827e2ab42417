"""Apache Kafka's ReplaceFieldTest and MaskFieldTest, method by method.

Java's ``java.util.Date`` values are Python ``date``/``time``/``datetime`` here (masked to
the epoch), ``BigInteger`` is ``int`` and ``BigDecimal`` is ``decimal.Decimal``.
"""

from __future__ import annotations

import datetime as dt
import decimal
from importlib.metadata import version
from typing import Any

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Time,
    Timestamp,
)
from kconnect_transforms import MaskFieldValue, ReplaceFieldKey, ReplaceFieldValue

UTC = dt.UTC
NOW = dt.datetime(2024, 5, 17, 13, 45, 12, tzinfo=UTC)


def _sink(**fields: Any) -> SinkRecord:
    return SinkRecord(topic="test", kafka_partition=0, kafka_offset=0, **fields)


# -- ReplaceFieldTest -----------------------------------------------------------------------

_FOUR = (
    SchemaBuilder.struct()
    .field("dont", Schema.STRING)
    .field("abc", Schema.INT32)
    .field("foo", Schema.BOOLEAN)
    .field("etc", Schema.STRING)
    .build()
)


def _replace(**config: Any) -> ReplaceFieldValue[SinkRecord]:
    xform: ReplaceFieldValue[SinkRecord] = ReplaceFieldValue()
    xform.configure(config)
    return xform


def test_replace_field_test_tombstone_schemaless() -> None:
    transformed = _replace(include="abc,foo", renames="abc:xyz,foo:bar").apply(_sink())
    assert transformed is not None
    assert transformed.value is None and transformed.value_schema is None


def test_replace_field_test_tombstone_with_schema() -> None:
    transformed = _replace(include="abc,foo", renames="abc:xyz,foo:bar").apply(
        _sink(value_schema=_FOUR)
    )
    assert transformed is not None
    assert transformed.value is None
    assert transformed.value_schema == _FOUR


def test_replace_field_test_schemaless() -> None:
    value = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}
    transformed = _replace(exclude="dont", renames="abc:xyz,foo:bar").apply(_sink(value=value))
    assert transformed is not None
    assert transformed.value == {"xyz": 42, "bar": True, "etc": "etc"}


def test_replace_field_test_with_schema() -> None:
    value = Struct(_FOUR).put("dont", "whatever").put("abc", 42).put("foo", True).put("etc", "etc")
    transformed = _replace(include="abc,foo", renames="abc:xyz,foo:bar").apply(
        _sink(value_schema=_FOUR, value=value)
    )
    assert transformed is not None
    assert len(transformed.value.schema.fields) == 2
    assert transformed.value.get("xyz") == 42
    assert transformed.value.get("bar") is True


def test_replace_field_test_test_replace_field_version_retrieved_from_app_info_parser() -> None:
    assert ReplaceFieldValue().version() == version("kconnect-transforms")


_DEFAULTED = SchemaBuilder.struct().field(
    "abc", SchemaBuilder.int32().optional().default_value(42).build()
)


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_replace_field_test_test_replace_null_with_default_config_on_value(
    replace: bool, expected: int | None
) -> None:
    schema = _DEFAULTED.build()
    transformed = _replace(
        include="abc",
        renames="abc:optional_with_default",
        **{"replace.null.with.default": str(replace).lower()},
    ).apply(_sink(value_schema=schema, value=Struct(schema).put("abc", None)))
    assert transformed is not None
    assert len(transformed.value.schema.fields) == 1
    assert transformed.value.get_without_default("optional_with_default") == expected


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_replace_field_test_test_replace_null_with_default_config_on_key(
    replace: bool, expected: int | None
) -> None:
    schema = _DEFAULTED.build()
    xform: ReplaceFieldKey[SinkRecord] = ReplaceFieldKey()
    xform.configure(
        {
            "include": "abc",
            "renames": "abc:optional_with_default",
            "replace.null.with.default": str(replace).lower(),
        }
    )
    transformed = xform.apply(_sink(key_schema=schema, key=Struct(schema).put("abc", None)))
    assert transformed is not None
    assert len(transformed.key.schema.fields) == 1
    assert transformed.key.get_without_default("optional_with_default") == expected


# -- MaskFieldTest --------------------------------------------------------------------------

SCHEMA = (
    SchemaBuilder.struct()
    .field("magic", Schema.INT32)
    .field("bool", Schema.BOOLEAN)
    .field("byte", Schema.INT8)
    .field("short", Schema.INT16)
    .field("int", Schema.INT32)
    .field("long", Schema.INT64)
    .field("float", Schema.FLOAT32)
    .field("double", Schema.FLOAT64)
    .field("string", Schema.STRING)
    .field("date", Date.SCHEMA)
    .field("time", Time.SCHEMA)
    .field("timestamp", Timestamp.SCHEMA)
    .field("decimal", Decimal.schema(0))
    .field("array", SchemaBuilder.array(Schema.INT32).build())
    .field("map", SchemaBuilder.map(Schema.STRING, Schema.STRING).build())
    .field("withDefault", SchemaBuilder.string().optional().default_value("default").build())
    .build()
)
VALUES: dict[str, Any] = {
    "magic": 42,
    "bool": True,
    "byte": 42,
    "short": 42,
    "int": 42,
    "long": 42,
    "float": 42.0,
    "double": 42.0,
    "string": "55.121.20.20",
    "date": NOW,
    "bigint": 42,
    "bigdec": decimal.Decimal("42.0"),
    "list": [42],
    "map": {"key": "value"},
}
VALUES_WITH_SCHEMA = (
    Struct(SCHEMA)
    .put("magic", 42)
    .put("bool", True)
    .put("byte", 42)
    .put("short", 42)
    .put("int", 42)
    .put("long", 42)
    .put("float", 42.0)
    .put("double", 42.0)
    .put("string", "hmm")
    .put("date", NOW.date())
    .put("time", NOW.timetz())
    .put("timestamp", NOW)
    .put("decimal", decimal.Decimal(42))
    .put("array", [1, 2, 3])
    .put("map", {"what": "what"})
    .put("withDefault", None)
)


def _mask(fields: list[str], replacement: str | None) -> MaskFieldValue[SinkRecord]:
    xform: MaskFieldValue[SinkRecord] = MaskFieldValue()
    xform.configure(
        {"fields": fields, "replacement": replacement, "replace.null.with.default": False}
    )
    return xform


def _masked_schemaless(fields: list[str], replacement: Any) -> dict[str, Any]:
    transformed = _mask(fields, str(replacement)).apply(_sink(value=dict(VALUES)))
    assert transformed is not None
    return dict(transformed.value)


def _masked_with_schema(field: str, replacement: Any) -> Any:
    transformed = _mask([field], str(replacement)).apply(
        _sink(value_schema=SCHEMA, value=VALUES_WITH_SCHEMA)
    )
    assert transformed is not None
    return transformed.value.get(field)


def test_mask_field_test_test_schemaless() -> None:
    fields = [k for k in VALUES if k != "magic"]
    transformed = _mask(fields, None).apply(_sink(value=dict(VALUES)))
    assert transformed is not None
    assert transformed.value == {
        "magic": 42,
        "bool": False,
        "byte": 0,
        "short": 0,
        "int": 0,
        "long": 0,
        "float": 0.0,
        "double": 0.0,
        "string": "",
        "date": dt.datetime(1970, 1, 1, tzinfo=UTC),
        "bigint": 0,
        "bigdec": decimal.Decimal(0),
        "list": [],
        "map": {},
    }


def test_mask_field_test_test_with_schema() -> None:
    fields = [f.name for f in SCHEMA.fields if f.name != "magic"]
    transformed = _mask(fields, None).apply(_sink(value_schema=SCHEMA, value=VALUES_WITH_SCHEMA))
    assert transformed is not None
    value = transformed.value
    expected = {
        "magic": 42,
        "bool": False,
        "byte": 0,
        "short": 0,
        "int": 0,
        "long": 0,
        "float": 0.0,
        "double": 0.0,
        "string": "",
        "date": dt.date(1970, 1, 1),
        "time": dt.time(0, tzinfo=UTC),
        "timestamp": dt.datetime(1970, 1, 1, tzinfo=UTC),
        "decimal": decimal.Decimal(0),
        "array": [],
        "map": {},
    }
    for name, masked in expected.items():
        assert value.get(name) == masked, name
    assert value.get_without_default("withDefault") is None


@pytest.mark.parametrize(
    ("field", "replacement"),
    [
        ("short", 123),
        ("byte", 123),
        ("int", 123),
        ("long", 123),
        ("float", 123.0),
        ("double", 123.0),
        ("string", "123"),
        ("bigint", 123),
        ("bigdec", decimal.Decimal("123.0")),
    ],
)
def test_mask_field_test_test_schemaless_with_replacement(field: str, replacement: Any) -> None:
    assert _masked_schemaless([field], replacement)[field] == replacement


@pytest.mark.parametrize(
    ("fields", "replacement"),
    [
        (["date"], NOW),
        (["int", "date"], NOW),
        (["bool"], False),
        (["list"], ["123"]),
        (["map"], {"123": "321"}),
    ],
)
def test_mask_field_test_test_schemaless_unsupported_replacement_type(
    fields: list[str], replacement: Any
) -> None:
    with pytest.raises(DataError):
        _masked_schemaless(fields, replacement)


@pytest.mark.parametrize(
    ("field", "replacement"),
    [
        ("short", 123),
        ("byte", 123),
        ("int", 123),
        ("long", 123),
        ("float", 123.0),
        ("double", 123.0),
        ("string", "123"),
        ("decimal", decimal.Decimal("123.0")),
    ],
)
def test_mask_field_test_test_with_schema_and_replacement(field: str, replacement: Any) -> None:
    assert _masked_with_schema(field, replacement) == replacement


@pytest.mark.parametrize(
    ("field", "replacement"), [("time", NOW), ("timestamp", NOW), ("array", [123])]
)
def test_mask_field_test_test_with_schema_unsupported_replacement_type(
    field: str, replacement: Any
) -> None:
    with pytest.raises(DataError):
        _masked_with_schema(field, replacement)


@pytest.mark.parametrize(
    ("fields", "replacement"),
    [
        (["byte"], "foo"),
        (["short"], "foo"),
        (["int"], "foo"),
        (["long"], "foo"),
        (["float"], "foo"),
        (["double"], "foo"),
        (["bigint"], "foo"),
        (["bigdec"], "foo"),
        (["int"], NOW),
        (["int"], object()),
        (["string", "int"], "foo"),
    ],
)
def test_mask_field_test_test_replacement_type_mismatch(
    fields: list[str], replacement: Any
) -> None:
    with pytest.raises(DataError):
        _masked_schemaless(fields, replacement)


def test_mask_field_test_test_empty_string_replacement_value() -> None:
    with pytest.raises(ConfigError, match="String must be non-empty"):
        _masked_schemaless(["short"], "")


def test_mask_field_test_test_null_list_and_map_replacements_are_mutable() -> None:
    transformed = _mask(["array", "map"], None).apply(
        _sink(value_schema=SCHEMA, value=VALUES_WITH_SCHEMA)
    )
    assert transformed is not None
    masked_list = transformed.value.get("array")
    assert masked_list == []
    masked_list.append(0)
    assert masked_list == [0]
    masked_map = transformed.value.get("map")
    assert masked_map == {}
    masked_map["k"] = "v"
    assert masked_map == {"k": "v"}


def test_mask_field_test_test_mask_field_returns_version_from_app_info_parser() -> None:
    assert MaskFieldValue().version() == version("kconnect-transforms")
