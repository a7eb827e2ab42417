"""Both directions against golden bytes in tests/golden (worked out by hand, not generated)."""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp

GOLDEN = Path(__file__).parent / "golden"
ENVELOPES: dict[str, str] = json.loads((GOLDEN / "envelopes.json").read_text("utf-8"))
PLAIN: dict[str, str] = json.loads((GOLDEN / "plain.json").read_text("utf-8"))

_FLAGS = SchemaBuilder.struct()
for _name, _s in [
    ("field1", Schema.BOOLEAN),
    ("field2", Schema.STRING),
    ("field3", Schema.STRING),
    ("field4", Schema.BOOLEAN),
]:
    _FLAGS.field(_name, _s)
FLAGS = _FLAGS.build()
ADDRESS = (
    SchemaBuilder.struct()
    .name("com.example.Address")
    .version(2)
    .doc("where")
    .optional()
    .field("city", Schema.STRING)
    .field("zip", Schema.OPTIONAL_INT32)
    .build()
)
CUSTOMER = (
    SchemaBuilder.struct()
    .name("com.example.Customer")
    .parameter("source", "crm")
    .field("id", Schema.INT64)
    .field("address", ADDRESS)
    .build()
)
QTY = SchemaBuilder.struct().field("qty", SchemaBuilder.int32().optional().default_value(7)).build()
INT_MAP = SchemaBuilder.map(Schema.INT32, Schema.INT32).build()
DEC2 = Decimal.schema(2)

# name -> (config, schema, value written, value read back)
CASES: dict[str, tuple[dict[str, str], Schema | None, Any, Any]] = {
    "boolean": ({}, Schema.BOOLEAN, True, True),
    "int8": ({}, Schema.INT8, 12, 12),
    "int16": ({}, Schema.INT16, 12, 12),
    "int32": ({}, Schema.INT32, 12, 12),
    "int64": ({}, Schema.INT64, 4398046511104, 4398046511104),
    # Kafka reads a FLOAT32 as a Java float (floatValue()): 12.34f is exactly this double.
    "float32": ({}, Schema.FLOAT32, 12.34, 12.340000152587890625),
    "float64": ({}, Schema.FLOAT64, 12.34, 12.34),
    "bytes": ({}, Schema.BYTES, b"test-string", b"test-string"),
    "string": ({}, Schema.STRING, "test-string", "test-string"),
    "optional_null": ({}, Schema.OPTIONAL_STRING, None, None),
    "array": ({}, SchemaBuilder.array(Schema.INT32).build(), [1, 2, 3], [1, 2, 3]),
    "map_string_keys": (
        {},
        SchemaBuilder.map(Schema.STRING, Schema.INT32).build(),
        {"key1": 12, "key2": 15},
        {"key1": 12, "key2": 15},
    ),
    "map_int_keys": ({}, INT_MAP, {1: 12, 2: 15}, {1: 12, 2: 15}),
    "struct": (
        {},
        FLAGS,
        Struct(FLAGS)
        .put("field1", True)
        .put("field2", "string2")
        .put("field3", "string3")
        .put("field4", False),
        None,
    ),
    "nested_struct": (
        {},
        CUSTOMER,
        Struct(CUSTOMER).put("id", 7).put("address", Struct(ADDRESS).put("city", "Oslo")),
        None,
    ),
    "default_replaced": ({}, QTY, Struct(QTY), Struct(QTY).put("qty", 7)),
    "default_kept_null": ({"replace.null.with.default": "false"}, QTY, Struct(QTY), Struct(QTY)),
    # 1.56 at scale 2 is unscaled 156 = 0x9C; a sign byte makes 00 9C, base64 "AJw=".
    "decimal_base64": ({}, DEC2, decimal.Decimal("1.56"), decimal.Decimal("1.56")),
    # -156 in two's complement is FF 64, base64 "/2Q=".
    "decimal_base64_negative": ({}, DEC2, decimal.Decimal("-1.56"), decimal.Decimal("-1.56")),
    "decimal_numeric": (
        {"decimal.format": "NUMERIC"},
        DEC2,
        decimal.Decimal("1.56"),
        decimal.Decimal("1.56"),
    ),
    "decimal_numeric_default": (
        {"decimal.format": "numeric"},
        Decimal.builder(2).optional().default_value(decimal.Decimal("1.56")).build(),
        None,
        decimal.Decimal("1.56"),
    ),
    # 10000 days after 1970-01-01 is 1997-05-19.
    "date": ({}, Date.SCHEMA, dt.date(1997, 5, 19), dt.date(1997, 5, 19)),
    # 14,400,000 ms after midnight is 04:00.
    "time": ({}, Time.SCHEMA, dt.time(4, 0, tzinfo=dt.UTC), dt.time(4, 0, tzinfo=dt.UTC)),
    # 4,000,000 s = 46 days 7 h 6 min 40 s after the epoch.
    "timestamp": (
        {},
        Timestamp.SCHEMA,
        dt.datetime(1970, 2, 16, 7, 6, 40, tzinfo=dt.UTC),
        dt.datetime(1970, 2, 16, 7, 6, 40, tzinfo=dt.UTC),
    ),
    "schemaless_in_envelope": ({}, None, {"a": 1, "b": [True, None]}, {"a": 1, "b": [True, None]}),
    "schemaless_int_keys_in_envelope": ({}, None, {1: "a", 2: "b"}, [[1, "a"], [2, "b"]]),
}


def _converter(config: dict[str, str]) -> JsonConverter:
    converter = JsonConverter()
    converter.configure(config, False)
    return converter


def test_every_golden_case_is_exercised() -> None:
    assert set(ENVELOPES) - {"_comment"} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_writes_kafka_bytes(name: str) -> None:
    config, schema, value, _ = CASES[name]
    expected = ENVELOPES[name].encode()
    converter = _converter(config)
    assert converter.from_connect_data("topic", schema, value) == expected
    assert converter.from_connect_batch([("topic", schema, value)] * 2) == [expected, expected]


@pytest.mark.parametrize("name", sorted(CASES))
def test_reads_kafka_bytes(name: str) -> None:
    config, schema, written, read = CASES[name]
    expected_value = written if read is None else read
    data = ENVELOPES[name].encode()
    for reader in (_converter(config).to_connect_data, _batch_reader(config)):
        # twice: the first read learns the schema, the second takes the cached path
        for _ in range(2):
            result = reader("topic", data)
            assert result.schema == schema
            assert result.value == expected_value


def _batch_reader(config: dict[str, str]) -> Callable[[str, bytes], Any]:
    converter = _converter(config)
    return lambda topic, data: converter.to_connect_batch([(topic, data)])[0]


PLAIN_CASES: dict[str, tuple[Schema | None, Any, Any]] = {
    "struct": (
        FLAGS,
        CASES["struct"][2],
        {"field1": True, "field2": "string2", "field3": "string3", "field4": False},
    ),
    "map_int_keys": (INT_MAP, {1: 12, 2: 15}, [[1, 12], [2, 15]]),
    "decimal_base64": (DEC2, decimal.Decimal("1.56"), "AJw="),
    "optional_null": (Schema.OPTIONAL_STRING, None, None),
    "schemaless_map": (None, {"a": 1, "b": [True, None]}, {"a": 1, "b": [True, None]}),
    "schemaless_bytes": (None, b"test-string", "dGVzdC1zdHJpbmc="),
}


@pytest.mark.parametrize("name", sorted(PLAIN_CASES))
def test_schemas_disabled_writes_payload_only_and_reads_schemaless(name: str) -> None:
    schema, value, read_back = PLAIN_CASES[name]
    converter = _converter({"schemas.enable": "false"})
    data = PLAIN[name].encode()
    assert converter.from_connect_data("topic", schema, value) == data
    assert converter.to_connect_data("topic", data) == (None, read_back)
    assert converter.to_connect_batch([("topic", data)]) == [(None, read_back)]
