"""Apache Kafka's DropHeadersTest, HoistFieldTest, RegexRouterTest, TimestampRouterTest
and ValueToKeyTest, method by method (``dropExistingHeader`` ->
``test_drop_headers_test_drop_existing_header``), same inputs and expectations.

Every ``test...VersionRetrievedFromAppInfoParser`` case checks the distribution's version
(Kafka reports its own AppInfoParser version).
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from kconnect_sdk import (
    ConfigError,
    DataError,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
)
from kconnect_transforms import (
    DropHeaders,
    HoistFieldKey,
    RegexRouter,
    TimestampRouter,
    ValueToKey,
)

VERSION = version("kconnect-transforms")


def _source_record(headers: Headers) -> SourceRecord:
    return SourceRecord(
        topic="topic",
        kafka_partition=0,
        key="key",
        value="value",
        timestamp=0,
        headers=headers,
        source_partition={"foo": "bar"},
        source_offset={"baz": "quxx"},
    )


def _sink(topic: str = "test", **fields: object) -> SinkRecord:
    return SinkRecord(topic=topic, kafka_partition=0, kafka_offset=0, **fields)  # type: ignore[arg-type]


def _assert_non_headers(original: SourceRecord, transformed: SourceRecord) -> None:
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
    ):
        assert getattr(transformed, attr) == getattr(original, attr), attr


# -- DropHeadersTest -----------------------------------------------------------------------


def _drop(*to_drop: str) -> DropHeaders[SourceRecord]:
    xform: DropHeaders[SourceRecord] = DropHeaders()
    xform.configure({"headers": list(to_drop)})
    return xform


@pytest.mark.parametrize(
    "extra",
    [["existing-value"], ["existing-value", "existing-other-value"], []],
    ids=[
        "drop_headers_test_drop_existing_header",
        "drop_headers_test_drop_existing_header_with_multiple_values",
        "drop_headers_test_drop_non_existing_header",
    ],
)
def test_drop_headers(extra: list[str]) -> None:
    # dropExistingHeader, dropExistingHeaderWithMultipleValues, dropNonExistingHeader
    expected = Headers().add_string("existing", "existing-value")
    headers = expected
    for value in extra:
        headers = headers.add_string("to-drop", value)
    original = _source_record(headers)
    transformed = _drop("to-drop").apply(original)
    assert transformed is not None
    _assert_non_headers(original, transformed)
    assert transformed.headers == expected


def test_drop_headers_test_config_rejects_empty_list() -> None:
    with pytest.raises(ConfigError):
        _drop()


def test_drop_headers_test_test_drop_headers_version_retrieved_from_app_info_parser() -> None:
    assert DropHeaders().version() == VERSION


# -- HoistFieldTest ------------------------------------------------------------------------


def _hoist() -> HoistFieldKey[SinkRecord]:
    xform: HoistFieldKey[SinkRecord] = HoistFieldKey()
    xform.configure({"field": "magic"})
    return xform


def test_hoist_field_test_schemaless() -> None:
    transformed = _hoist().apply(_sink(key=42))
    assert transformed is not None
    assert transformed.key_schema is None
    assert transformed.key == {"magic": 42}


def test_hoist_field_test_with_schema() -> None:
    record = _sink(key_schema=Schema.INT32, key=42)
    transformed = _hoist().apply(record)
    assert transformed is not None and transformed.key_schema is not None
    field = transformed.key_schema.field("magic")
    assert field is not None and field.schema == record.key_schema
    assert transformed.key.get("magic") == 42


def test_hoist_field_test_test_schemaless_map_is_mutable() -> None:
    transformed = _hoist().apply(_sink(key=420))
    assert transformed is not None and transformed.key_schema is None
    transformed.key["k"] = "v"  # the new map belongs to the new record
    assert transformed.key == {"k": "v", "magic": 420}


def test_hoist_field_test_test_hoist_field_version_retrieved_from_app_info_parser() -> None:
    assert HoistFieldKey().version() == VERSION


# -- RegexRouterTest -----------------------------------------------------------------------


def _route(regex: str, replacement: str, topic: str) -> str:
    router: RegexRouter[SinkRecord] = RegexRouter()
    router.configure({"regex": regex, "replacement": replacement})
    routed = router.apply(_sink(topic))
    router.close()
    assert routed is not None
    return routed.topic


@pytest.mark.parametrize(
    ("regex", "replacement", "topic", "expected"),
    [
        ("foo", "bar", "foo", "bar"),
        ("foo", "bar", "orig", "orig"),
        ("(.*)", "$1", "orig", "orig"),
        ("(.*)", "prefix-$1", "orig", "prefix-orig"),
        ("(.*)", "$1-suffix", "orig", "orig-suffix"),
        ("(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)", "$1", "index-20160117", "index"),
    ],
    ids=[
        "regex_router_test_static_replacement",
        "regex_router_test_doesnt_match",
        "regex_router_test_identity",
        "regex_router_test_add_prefix",
        "regex_router_test_add_suffix",
        "regex_router_test_slice",
    ],
)
def test_regex_router(regex: str, replacement: str, topic: str, expected: str) -> None:
    # staticReplacement, doesntMatch, identity, addPrefix, addSuffix, slice
    assert _route(regex, replacement, topic) == expected


def test_regex_router_test_test_regex_router_retrieves_version_from_app_info_parser() -> None:
    assert RegexRouter().version() == VERSION


# -- TimestampRouterTest -------------------------------------------------------------------


def test_timestamp_router_test_default_configuration() -> None:
    xform: TimestampRouter[SourceRecord] = TimestampRouter()
    xform.configure({})
    routed = xform.apply(SourceRecord(topic="test", kafka_partition=0, timestamp=1483425001864))
    assert routed is not None and routed.topic == "test-20170103"


def test_timestamp_router_test_test_timestamp_router_version_retrieved_from_app_info_parser() -> (
    None
):
    assert TimestampRouter().version() == VERSION


# -- ValueToKeyTest ------------------------------------------------------------------------


def _value_to_key(**config: object) -> ValueToKey[SinkRecord]:
    xform: ValueToKey[SinkRecord] = ValueToKey()
    xform.configure(config)
    return xform


def test_value_to_key_test_schemaless() -> None:
    transformed = _value_to_key(fields="a,b").apply(_sink("", value={"a": 1, "b": 2, "c": 3}))
    assert transformed is not None
    assert transformed.key_schema is None
    assert transformed.key == {"a": 1, "b": 2}


def test_value_to_key_test_with_schema() -> None:
    schema = (
        SchemaBuilder.struct()
        .field("a", Schema.INT32)
        .field("b", Schema.INT32)
        .field("c", Schema.INT32)
        .build()
    )
    value = Struct(schema).put("a", 1).put("b", 2).put("c", 3)
    transformed = _value_to_key(fields="a,b").apply(_sink("", value_schema=schema, value=value))
    expected_schema = (
        SchemaBuilder.struct().field("a", Schema.INT32).field("b", Schema.INT32).build()
    )
    assert transformed is not None
    assert transformed.key_schema == expected_schema
    assert transformed.key == Struct(expected_schema).put("a", 1).put("b", 2)


def test_value_to_key_test_non_existing_field() -> None:
    schema = SchemaBuilder.struct().field("a", Schema.INT32).build()
    record = _sink("", value_schema=schema, value=Struct(schema).put("a", 1))
    with pytest.raises(DataError, match="Field does not exist: 'not_exist'"):
        _value_to_key(fields="not_exist").apply(record)


def test_value_to_key_test_test_value_to_key_version_retrieved_from_app_info_parser() -> None:
    assert ValueToKey().version() == VERSION


@pytest.mark.parametrize(("replace", "expected"), [(False, None), (True, 42)])
def test_value_to_key_test_test_replace_null_with_default_config(
    replace: bool, expected: int | None
) -> None:
    schema = (
        SchemaBuilder.struct()
        .field("optional_with_default", SchemaBuilder.int32().optional().default_value(42).build())
        .build()
    )
    value = Struct(schema).put("optional_with_default", None)
    xform = _value_to_key(fields="optional_with_default", **{"replace.null.with.default": replace})
    transformed = xform.apply(_sink("", value_schema=schema, value=value))
    assert transformed is not None
    assert transformed.key.get_without_default("optional_with_default") == expected
