"""Apache Kafka's HeaderFromTest: its ``schemaless`` and ``withSchema`` methods over the same
eight cases (each for the key and the value) and the three invalid-config methods."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import ConfigError, Headers, Schema, SchemaBuilder, SourceRecord, Struct
from kconnect_transforms import HeaderFromKey, HeaderFromValue

S = Schema.STRING
FOO = SchemaBuilder.struct().field("foo", Schema.STRING).build()
FOO_VALUE = Struct(FOO).put("foo", "foo-value")


def _defaulted() -> Schema:
    return SchemaBuilder.string().default_value("default").optional().build()


Field = tuple[str, Schema, Any]
Head = tuple[str, Schema, Any]

# (description, fields, headers, transform fields, header names, operation, replace null,
#  expected fields, expected headers)
CASES: list[
    tuple[str, list[Field], list[Head], list[str], list[str], str, bool, list[Field], list[Head]]
] = [
    (
        "basic copy",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "copy",
        True,
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("header1", S, "existing-value"), ("inserted1", S, "field1-value")],
    ),
    (
        "basic move",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "move",
        True,
        [("field2", S, "field2-value")],
        [("header1", S, "existing-value"), ("inserted1", S, "field1-value")],
    ),
    (
        "copy with preexisting header",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("inserted1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "copy",
        True,
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("inserted1", S, "existing-value"), ("inserted1", S, "field1-value")],
    ),
    (
        "move with preexisting header",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("inserted1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "move",
        True,
        [("field2", S, "field2-value")],
        [("inserted1", S, "existing-value"), ("inserted1", S, "field1-value")],
    ),
    (
        "copy with struct value",
        [("field1", FOO, FOO_VALUE), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "copy",
        True,
        [("field1", FOO, FOO_VALUE), ("field2", S, "field2-value")],
        [("header1", S, "existing-value"), ("inserted1", FOO, FOO_VALUE)],
    ),
    (
        "move with struct value",
        [("field1", FOO, FOO_VALUE), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1"],
        ["inserted1"],
        "move",
        True,
        [("field2", S, "field2-value")],
        [("header1", S, "existing-value"), ("inserted1", FOO, FOO_VALUE)],
    ),
    (
        "two headers from same field",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1", "field1"],
        ["inserted1", "inserted2"],
        "move",
        True,
        [("field2", S, "field2-value")],
        [
            ("header1", S, "existing-value"),
            ("inserted1", S, "field1-value"),
            ("inserted2", S, "field1-value"),
        ],
    ),
    (
        "two fields to same header",
        [("field1", S, "field1-value"), ("field2", S, "field2-value")],
        [("header1", S, "existing-value")],
        ["field1", "field2"],
        ["inserted1", "inserted1"],
        "move",
        True,
        [],
        [
            ("header1", S, "existing-value"),
            ("inserted1", S, "field1-value"),
            ("inserted1", S, "field2-value"),
        ],
    ),
    (
        "Copy null field without default",
        [("field1", _defaulted(), "field1-value"), ("field2", _defaulted(), None)],
        [("header1", S, "existing-value")],
        ["field1", "field2"],
        ["inserted1", "inserted2"],
        "copy",
        False,
        [("field1", _defaulted(), "field1-value"), ("field2", _defaulted(), None)],
        [
            ("header1", S, "existing-value"),
            ("inserted1", _defaulted(), "field1-value"),
            ("inserted2", _defaulted(), None),
        ],
    ),
    (
        "Move null field without default",
        [("field1", _defaulted(), "field1-value"), ("field2", _defaulted(), None)],
        [("header1", S, "existing-value")],
        ["field1", "field2"],
        ["inserted1", "inserted2"],
        "move",
        False,
        [],
        [
            ("header1", S, "existing-value"),
            ("inserted1", _defaulted(), "field1-value"),
            ("inserted2", _defaulted(), None),
        ],
    ),
]
PARAMS = [
    pytest.param(key, *case, id=f"{'key' if key else 'value'}-{case[0]}")
    for key in (True, False)
    for case in CASES
]
NAMES = "key,description,fields,headers,transform_fields,names,operation,replace,expected_fields,expected_headers"


def _xform(key: bool, config: dict[str, Any]) -> Any:
    xform = HeaderFromKey() if key else HeaderFromValue()
    xform.configure(config)
    return xform


def _config(names: list[str], fields: list[str], operation: str, replace: bool) -> dict[str, Any]:
    return {
        "headers": names,
        "fields": fields,
        "operation": operation,
        "replace.null.with.default": replace,
    }


def _record(key: bool, schema: Schema | None, operand: Any, headers: Headers) -> SourceRecord:
    return SourceRecord(
        topic="topic",
        kafka_partition=0,
        key_schema=schema if key else None,
        key=operand if key else "key",
        value_schema=None if key else schema,
        value="value" if key else operand,
        timestamp=0,
        headers=headers,
        source_partition={"foo": "bar"},
        source_offset={"baz": "quxx"},
    )


def _headers(items: list[Head], schemaless: bool) -> Headers:
    return Headers([(k, None if schemaless else s, v) for k, s, v in items])


def _schemaless(key: bool, fields: list[Field], headers: list[Head]) -> SourceRecord:
    return _record(key, None, {n: v for n, _, v in fields}, _headers(headers, True))


def _with_schema(key: bool, fields: list[Field], headers: list[Head]) -> SourceRecord:
    builder = SchemaBuilder.struct()
    for name, schema, _ in fields:
        builder.field(name, schema)
    schema = builder.build()
    struct = Struct(schema)
    for name, _, value in fields:
        struct.put(name, value)
    return _record(key, schema, struct, _headers(headers, False))


def _assert_same_record(expected: SourceRecord, actual: SourceRecord | None) -> None:
    assert actual is not None
    for attr in (
        "source_partition",
        "source_offset",
        "topic",
        "kafka_partition",
        "key_schema",
        "key",
        "value_schema",
        "value",
        "timestamp",
        "headers",
    ):
        assert getattr(actual, attr) == getattr(expected, attr), attr


@pytest.mark.parametrize(NAMES, PARAMS)
def test_schemaless(
    key: bool,
    description: str,
    fields: list[Field],
    headers: list[Head],
    transform_fields: list[str],
    names: list[str],
    operation: str,
    replace: bool,
    expected_fields: list[Field],
    expected_headers: list[Head],
) -> None:
    xform = _xform(key, _config(names, transform_fields, operation, replace))
    actual = xform.apply(_schemaless(key, fields, headers))
    _assert_same_record(_schemaless(key, expected_fields, expected_headers), actual)


@pytest.mark.parametrize(NAMES, PARAMS)
def test_with_schema(
    key: bool,
    description: str,
    fields: list[Field],
    headers: list[Head],
    transform_fields: list[str],
    names: list[str],
    operation: str,
    replace: bool,
    expected_fields: list[Field],
    expected_headers: list[Head],
) -> None:
    xform = _xform(key, _config(names, transform_fields, operation, replace))
    actual = xform.apply(_with_schema(key, fields, headers))
    _assert_same_record(_with_schema(key, expected_fields, expected_headers), actual)


@pytest.mark.parametrize("key", [True, False])
def test_invalid_config_extra_header_config(key: bool) -> None:
    with pytest.raises(ConfigError):
        _xform(key, _config(["foo"], ["foo", "bar"], "copy", True))


@pytest.mark.parametrize("key", [True, False])
def test_invalid_config_extra_field_config(key: bool) -> None:
    with pytest.raises(ConfigError):
        _xform(key, _config(["foo", "bar"], ["foo"], "copy", True))


@pytest.mark.parametrize("key", [True, False])
def test_invalid_config_empty_headers_and_fields_config(key: bool) -> None:
    with pytest.raises(ConfigError):
        _xform(key, _config([], [], "copy", True))


@pytest.mark.parametrize("operation", ["copy", "move"])
def test_schemaless_struct_header_has_the_structs_schema_for_a_header_converter(
    operation: str,
) -> None:
    """As Kafka's ConnectHeader, a Struct copied out of a schemaless map carries its own
    schema, so the JsonConverter header converter writes it (it refuses a schemaless
    Struct). The bytes are what Kafka 4.1's HeaderFrom$Value and JsonConverter give."""
    from kconnect_converter_json import JsonConverter

    xform = _xform(False, _config(["inserted1"], ["field1"], operation, True))
    record = _schemaless(False, [("field1", FOO, FOO_VALUE), ("field2", S, "field2-value")], [])
    out = xform.apply(record)
    assert out is not None
    [header] = list(out.headers)
    assert header.schema == FOO
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    written = converter.from_connect_header("topic", header.key, header.schema, header.value)
    assert written == (
        b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,'
        b'"field":"foo"}],"optional":false},"payload":{"foo":"foo-value"}}'
    )
