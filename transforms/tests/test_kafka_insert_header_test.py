"""Apache Kafka's ``InsertHeaderTest``, method by method, plus the literal types it infers."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from kconnect_sdk import ConfigError, Headers, Schema, SourceRecord
from kconnect_transforms import InsertHeader


def _config(header: str | None, literal: str | None) -> dict[str, str | None]:
    return {"header": header, "value.literal": literal}


def _record(headers: Headers) -> SourceRecord:
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


@pytest.mark.parametrize(
    ("header", "literal", "existing", "expect_added"),
    [
        (
            "inserted",
            "inserted-value",
            "existing-value",
            ("inserted", Schema.STRING, "inserted-value"),
        ),
        (
            "existing",
            "inserted-value",
            "preexisting-value",
            ("existing", Schema.STRING, "inserted-value"),
        ),
        ("inserted", "1", "existing-value", ("inserted", Schema.INT8, 1)),
    ],
    ids=[
        "insertion_with_existing_other_header",
        "insertion_with_existing_same_header",
        "insertion_with_byte_header",
    ],
)
def test_insertion(
    header: str, literal: str, existing: str, expect_added: tuple[str, Schema, object]
) -> None:
    # insertionWithExistingOtherHeader, insertionWithExistingSameHeader, insertionWithByteHeader
    xform: InsertHeader[SourceRecord] = InsertHeader()
    xform.configure(_config(header, literal))
    headers = Headers().add_string("existing", existing)
    key, schema, value = expect_added
    expected = headers.add(key, value, schema)
    original = _record(headers)
    transformed = xform.apply(original)
    assert transformed is not None
    _assert_non_headers(original, transformed)
    assert transformed.headers == expected


def test_config_rejects_null_header_key() -> None:
    with pytest.raises(ConfigError):
        InsertHeader().configure(_config(None, "1"))


def test_config_rejects_null_header_value() -> None:
    with pytest.raises(ConfigError, match=r"value\.literal"):
        InsertHeader().configure(_config("inserted", None))


def test_test_insert_header_version_retrieved_from_app_info_parser() -> None:
    # Kafka reports its AppInfoParser version; kconnect the distribution's.
    assert InsertHeader().version() == version("kconnect-transforms")


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("1.1", Schema.FLOAT32, 1.100000023841858),  # Kafka's parseString: FLOAT32
        ("[1, null]", Schema.STRING, "[1, null]"),  # Kafka keeps it a string
    ],
)
def test_literals_parse_as_kafkas_values_parse_string(
    literal: str, schema: Schema, value: object
) -> None:
    xform: InsertHeader[SourceRecord] = InsertHeader()
    xform.configure(_config("h", literal))
    transformed = xform.apply(_record(Headers()))
    assert transformed is not None
    header = transformed.headers.last_with_name("h")
    assert header is not None
    assert (header.schema, header.value) == (schema, value)
