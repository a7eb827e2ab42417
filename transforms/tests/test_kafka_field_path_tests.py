"""Apache Kafka's FieldPathNotationTest, FieldSyntaxVersionTest, SingleFieldPathTest and
NonEmptyListValidatorTest, method by method.

kconnect's equivalents of Kafka's helper classes are ``parse_field_path`` (SingleFieldPath's
parser), the ``field.syntax.version`` key every field transform defines, ExtractField's
lookups (``fieldFrom``/``valueFrom``: Kafka's ExtractField, like ours, fails on a path the
schema lacks) and the ``non_empty_list`` validator.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    DataError,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
)
from kconnect_transforms import ExtractFieldValue
from kconnect_transforms._field_path import _define_syntax, parse_field_path
from kconnect_transforms._util import non_empty_list


def v2(path: str) -> list[str]:
    return parse_field_path(path, nested=True)


# -- FieldPathNotationTest ------------------------------------------------------------------


def test_should_build_v1_with_dots_and_backtick_pair() -> None:
    for path in ("foo.bar.baz", "foo`bar`", "foo.`bar.baz`"):
        assert parse_field_path(path, nested=False) == [path]


def test_should_include_empty_field_names() -> None:
    assert v2("..") == ["", "", ""]
    assert v2("foo..") == ["foo", "", ""]
    assert v2(".bar.") == ["", "bar", ""]
    assert v2("..baz") == ["", "", "baz"]


def test_should_build_v2_with_empty_path() -> None:
    assert v2("") == []


def test_should_build_v2_without_dots() -> None:
    assert v2("foobarbaz") == ["foobarbaz"]


def test_should_build_v2_when_includes_dots() -> None:
    assert v2("foo.bar.baz") == ["foo", "bar", "baz"]


def test_should_build_v2_without_wrapping_backticks() -> None:
    assert v2("foo`bar`baz") == ["foo`bar`baz"]


def test_should_build_v2_when_includes_dots_and_backtick_pair() -> None:
    assert v2("`foo.bar.baz`") == ["foo.bar.baz"]
    assert v2("foo.`bar.baz`") == ["foo", "bar.baz"]
    assert v2("`foo.bar`.baz") == ["foo.bar", "baz"]
    assert v2("foo.`bar`.baz") == ["foo", "bar", "baz"]


def test_should_build_v2_and_ignore_backticks_that_are_not_wrapping() -> None:
    assert v2("foo.``bar.baz`") == ["foo", "`bar.baz"]
    assert v2("foo.`bar.baz``") == ["foo", "bar.baz`"]
    assert v2("foo.`ba`r.baz`") == ["foo", "ba`r.baz"]
    assert v2("foo.ba`r.baz") == ["foo", "ba`r", "baz"]
    assert v2("foo.``bar``.baz") == ["foo", "`bar`", "baz"]
    assert v2("``foo.bar.baz``") == ["`foo.bar.baz`"]


def test_should_build_v2_and_escape_backticks() -> None:
    assert v2("foo.`bar\\`.baz`") == ["foo", "bar`.baz"]
    assert v2("foo.`bar.`baz`") == ["foo", "bar.`baz"]
    assert v2("foo.`bar\\`.`baz`") == ["foo", "bar`.`baz"]
    assert v2("foo.`bar\\\\`.\\`baz`") == ["foo", "bar\\`.\\`baz"]


@pytest.mark.parametrize(
    ("path", "position"),
    [("`foo.bar.baz", 0), ("foo.`bar.baz", 4), ("foo.bar.`baz", 8), ("foo.bar.`baz\\`", 8)],
)
def test_should_fail_v2_when_incomplete_backticks(path: str, position: int) -> None:
    with pytest.raises(ConfigError) as info:
        v2(path)
    assert str(info.value) == (
        f"Incomplete backtick pair in path: [{path}], consider adding a backslash before "
        f"backtick at position {position} to escape it"
    )


# -- FieldSyntaxVersionTest -----------------------------------------------------------------


def test_should_append_config_to_def() -> None:
    definition = _define_syntax(ConfigDef())
    assert definition.parse({})["field.syntax.version"] == "V1"
    assert list(definition.parse({})) == ["field.syntax.version"]


def test_should_fail_when_append_config_to_def_again() -> None:
    definition = _define_syntax(ConfigDef())
    with pytest.raises(ConfigError, match=r"field\.syntax\.version"):
        _define_syntax(definition)


@pytest.mark.parametrize(
    ("text", "expected"), [("v1", "V1"), ("v2", "V2"), ("V1", "V1"), ("V2", "V2")]
)
def test_should_get_version_from_config(text: str, expected: str) -> None:
    parsed = _define_syntax(ConfigDef()).parse({"field.syntax.version": text})
    assert parsed["field.syntax.version"].upper() == expected


@pytest.mark.parametrize("text", ["v3", "V 1", "v", "V 2", "2", "1"])
def test_should_fail_when_wrong_version_is_passed(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        _define_syntax(ConfigDef()).parse({"field.syntax.version": text})
    assert str(info.value) == (
        f"Invalid value {text} for configuration field.syntax.version: "
        "String must be one of (case insensitive): V1, V2"
    )


# -- SingleFieldPathTest (through ExtractField, which uses the same lookups) ---------------

BAR = SchemaBuilder.struct().field("bar", Schema.INT32).build()
FOO = SchemaBuilder.struct().field("foo", BAR).build()
BAZ = SchemaBuilder.struct().field("inner", Schema.STRING).optional().build()
BAR_BAZ = SchemaBuilder.struct().field("bar", Schema.INT32).field("baz", BAZ).build()
FOO_BAZ = SchemaBuilder.struct().field("foo", BAR_BAZ).build()


def _extract(path: str, schema: Schema | None, value: Any) -> SinkRecord:
    xform: ExtractFieldValue[SinkRecord] = ExtractFieldValue()
    xform.configure({"field": path, "field.syntax.version": "V2"})
    out = xform.apply(
        SinkRecord(topic="t", kafka_partition=0, kafka_offset=0, value_schema=schema, value=value)
    )
    assert out is not None
    return out


def test_should_find_field() -> None:
    value = Struct(FOO).put("foo", Struct(BAR).put("bar", 1))
    assert _extract("foo.bar", FOO, value).value_schema == Schema.INT32
    assert _extract("foo", FOO, value).value_schema == BAR


def test_should_return_null_field_when_field_not_found() -> None:
    value = Struct(FOO).put("foo", Struct(BAR).put("bar", 1))
    for path in ("un.known", "foo.unknown", "unknown"):
        with pytest.raises(DataError, match="Unknown field"):
            _extract(path, FOO, value)


MAP = {"foo": {"bar": 42, "baz": None}}


def test_should_find_value_in_map() -> None:
    assert _extract("foo.bar", None, MAP).value == 42
    assert _extract("foo.baz", None, MAP).value is None


def test_should_return_null_value_when_field_not_found_in_map() -> None:
    for path in ("un.known", "foo.unknown", "unknown", "foo.baz.inner"):
        assert _extract(path, None, MAP).value is None


def _foo_baz() -> Struct:
    return Struct(FOO_BAZ).put("foo", Struct(BAR_BAZ).put("bar", 42).put("baz", None))


def test_should_find_value_in_struct() -> None:
    assert _extract("foo.bar", FOO_BAZ, _foo_baz()).value == 42
    assert _extract("foo.baz", FOO_BAZ, _foo_baz()).value is None


def test_should_return_null_value_when_field_not_found_in_struct() -> None:
    assert _extract("foo.baz.inner", FOO_BAZ, _foo_baz()).value is None
    for path in ("un.known", "foo.unknown", "unknown"):
        with pytest.raises(DataError, match="Unknown field"):
            _extract(path, FOO_BAZ, _foo_baz())


# -- NonEmptyListValidatorTest --------------------------------------------------------------


def test_test_null_list() -> None:
    with pytest.raises(ConfigError):
        non_empty_list("foo", None)


def test_test_empty_list() -> None:
    with pytest.raises(ConfigError):
        non_empty_list("foo", [])


def test_test_valid_list() -> None:
    non_empty_list("foo", ["foo"])
