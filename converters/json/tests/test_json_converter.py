"""Behaviour users rely on beyond the golden bytes: errors, inference, config, round trips."""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kconnect_converter_json import JsonConverter
from kconnect_sdk import (
    ConfigError,
    DataError,
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Timestamp,
    Type,
    Values,
)


def _converter(**config: str) -> JsonConverter:
    converter = JsonConverter()
    converter.configure(config, False)
    return converter


def test_plain_json_with_schemas_enabled_says_to_disable_them() -> None:
    converter = _converter()
    with pytest.raises(DataError, match=r"set schemas\.enable=false") as info:
        converter.to_connect_data("orders", b'{"id": 1}')
    assert "'orders'" in str(info.value)
    with pytest.raises(DataError, match=r"schemas\.enable=false"):
        converter.to_connect_batch([("orders", b'{"schema":null,"payload":1,"extra":2}')])


def test_invalid_json_names_the_topic() -> None:
    with pytest.raises(DataError, match="'orders'"):
        _converter(**{"schemas.enable": "false"}).to_connect_data("orders", b"{not json")


def test_schemaless_reading_infers_kafka_types() -> None:
    converter = _converter(**{"schemas.enable": "false"})
    result = converter.to_connect_data("t", b'{"i":1,"f":1.5,"s":"x","b":false,"n":null,"l":[1]}')
    assert result.schema is None
    assert result.value == {"i": 1, "f": 1.5, "s": "x", "b": False, "n": None, "l": [1]}
    assert type(result.value["i"]) is int
    assert type(result.value["f"]) is float


def test_tombstones_pass_through() -> None:
    for converter in (_converter(), _converter(**{"schemas.enable": "false"})):
        assert converter.from_connect_data("t", None, None) is None
        assert converter.to_connect_data("t", None) == SchemaAndValue(None, None)
        assert converter.from_connect_batch([("t", None, None)]) == [None]
        assert converter.to_connect_batch([("t", None)]) == [SchemaAndValue(None, None)]


def test_required_null_is_refused_both_ways() -> None:
    converter = _converter()
    with pytest.raises(DataError, match="null value for field that is required") as info:
        converter.from_connect_data("orders", Schema.INT32, None)
    assert "'orders'" in str(info.value)
    with pytest.raises(DataError, match="Invalid null value for required INT32"):
        converter.to_connect_data(
            "t", b'{"schema":{"type":"int32","optional":false},"payload":null}'
        )


def test_unset_required_struct_field_names_the_field() -> None:
    schema = SchemaBuilder.struct().field("id", Schema.INT64).field("n", Schema.STRING).build()
    with pytest.raises(DataError, match="field 'n'"):
        _converter().from_connect_data("t", schema, Struct(schema).put("id", 1))


def test_wrong_json_type_in_struct_names_the_field() -> None:
    data = (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"age"}],'
        b'"optional":false},"payload":{"age":"ten"}}'
    )
    with pytest.raises(DataError, match=r"field 'age'.*found string"):
        _converter().to_connect_data("people", data)


def test_decimal_reader_accepts_numbers_and_base64_in_either_format() -> None:
    schema_json = (
        b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
        b'"version":1,"parameters":{"scale":"2"}}'
    )
    converter = _converter()
    for payload in (b"12.30", b"12.3", b'"BM4="'):  # 1230 = 0x04CE
        result = converter.to_connect_data(
            "t", b'{"schema":' + schema_json + b',"payload":' + payload + b"}"
        )
        assert result.value == decimal.Decimal("12.30")
        assert result.value.as_tuple().exponent == -2


def test_decimal_format_is_validated() -> None:
    with pytest.raises(ConfigError, match=r"decimal\.format"):
        _converter(**{"decimal.format": "HEX"})


def test_schema_cache_size_zero_still_converts() -> None:
    converter = _converter(**{"schemas.cache.size": "0"})
    data = converter.from_connect_data("t", Schema.INT64, 5)
    assert data == b'{"schema":{"type":"int64","optional":false},"payload":5}'
    assert converter.to_connect_data("t", data) == SchemaAndValue(Schema.INT64, 5)


def test_float_fields_holding_ints_are_written_as_floats() -> None:
    schema = SchemaBuilder.struct().field("x", Schema.FLOAT64).build()
    out = _converter(**{"schemas.enable": "false"}).from_connect_data(
        "t", schema, Struct(schema).put("x", 3)
    )
    assert out == b'{"x":3.0}'


def test_mixed_schemas_in_one_batch_keep_their_own_schema() -> None:
    converter = _converter()
    a = SchemaBuilder.struct().field("a", Schema.INT32).build()
    b = SchemaBuilder.struct().field("b", Schema.STRING).build()
    items = [("t", a, Struct(a).put("a", 1)), ("t", b, Struct(b).put("b", "x"))] * 2
    encoded = converter.from_connect_batch(items)
    decoded = _converter().to_connect_batch([("t", d) for d in encoded])
    assert [r.value for r in decoded] == [v for _, _, v in items]
    assert [r.schema for r in decoded] == [s for _, s, _ in items]


def test_header_conversion_matches_value_conversion() -> None:
    converter = JsonConverter()
    converter.configure({})
    data = converter.from_connect_header("t", "h", Schema.STRING, "v")
    assert data == b'{"schema":{"type":"string","optional":false},"payload":"v"}'
    assert converter.to_connect_header("t", "h", data) == SchemaAndValue(Schema.STRING, "v")


# -- round trips over random schemas -----------------------------------------------------
_PRIMITIVES: dict[Type, st.SearchStrategy[Any]] = {
    Type.INT8: st.integers(-(2**7), 2**7 - 1),
    Type.INT16: st.integers(-(2**15), 2**15 - 1),
    Type.INT32: st.integers(-(2**31), 2**31 - 1),
    Type.INT64: st.integers(-(2**63), 2**63 - 1),
    Type.FLOAT32: st.floats(allow_nan=False, allow_infinity=False, width=32),
    Type.FLOAT64: st.floats(allow_nan=False, allow_infinity=False),
    Type.BOOLEAN: st.booleans(),
    Type.STRING: st.text(max_size=8),
    Type.BYTES: st.binary(max_size=8),
}
_LOGICAL: list[tuple[Schema, st.SearchStrategy[Any]]] = [
    (Decimal.schema(3), st.decimals(places=3, min_value=-(10**6), max_value=10**6)),
    (Date.SCHEMA, st.dates(min_value=dt.date(1, 1, 1))),
    (
        Timestamp.SCHEMA,
        st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1)).map(
            lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=dt.UTC)
        ),
    ),
]


def _optional(schema: Schema) -> Schema:
    return Schema(
        schema.type,
        optional=True,
        name=schema.name,
        version=schema.version,
        parameters=schema.parameters,
        fields=schema.fields,
        key_schema=schema.key_schema,
        value_schema=schema.value_schema,
    )


def _leaf() -> st.SearchStrategy[tuple[Schema, st.SearchStrategy[Any]]]:
    prims = [(Schema(t), s) for t, s in _PRIMITIVES.items()]
    return st.sampled_from(prims + _LOGICAL)


def _extend(
    inner: st.SearchStrategy[tuple[Schema, st.SearchStrategy[Any]]],
) -> st.SearchStrategy[tuple[Schema, st.SearchStrategy[Any]]]:
    def array(pair: tuple[Schema, st.SearchStrategy[Any]]) -> Any:
        schema, values = pair
        return SchemaBuilder.array(schema).build(), st.lists(values, max_size=3)

    def string_map(pair: tuple[Schema, st.SearchStrategy[Any]]) -> Any:
        schema, values = pair
        return (
            SchemaBuilder.map(Schema.STRING, schema).build(),
            st.dictionaries(st.text(max_size=4), values, max_size=3),
        )

    def int_map(pair: tuple[Schema, st.SearchStrategy[Any]]) -> Any:
        schema, values = pair
        return (
            SchemaBuilder.map(Schema.INT32, schema).build(),
            st.dictionaries(_PRIMITIVES[Type.INT32], values, max_size=3),
        )

    def struct(pairs: list[tuple[Schema, st.SearchStrategy[Any]]]) -> Any:
        builder = SchemaBuilder.struct().name("rt.S")
        strategies = {}
        for i, (schema, values) in enumerate(pairs):
            # Odd fields are optional (a Struct value carries its own schema, so not structs).
            optional = i % 2 == 1 and schema.type is not Type.STRUCT
            builder.field(f"f{i}", _optional(schema) if optional else schema)
            strategies[f"f{i}"] = st.none() | values if optional else values
        built = builder.build()

        def make(field_values: dict[str, Any]) -> Struct:
            result = Struct(built)
            for name, value in field_values.items():
                result.put(name, value)
            return result

        return built, st.fixed_dictionaries(strategies).map(make)

    return st.one_of(
        inner.map(array),
        inner.map(string_map),
        inner.map(int_map),
        st.lists(inner, min_size=1, max_size=4).map(struct),
    )


_SCHEMAS = st.recursive(_leaf(), _extend, max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), pair=_SCHEMAS, numeric=st.booleans())
def test_round_trip_schema_and_value(
    data: st.DataObject, pair: tuple[Schema, st.SearchStrategy[Any]], numeric: bool
) -> None:
    schema, values = pair
    value = data.draw(values)
    config = {"decimal.format": "NUMERIC"} if numeric else {}
    writer, reader = _converter(**config), _converter(**config)
    encoded = writer.from_connect_data("t", schema, value)
    result = reader.to_connect_data("t", encoded)
    assert result.schema == schema
    assert result.value == value
    assert reader.to_connect_batch([("t", encoded)]) == [result]
    assert writer.from_connect_batch([("t", schema, value)]) == [encoded]


_DATE = '{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1}'
_TS = (
    '{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1}'
)
_MAP_KEYS = (
    '{"type":"map","keys":{"type":"map","keys":{"type":"string","optional":false},'
    '"values":{"type":"int32","optional":false},"optional":false},'
    '"values":{"type":"int32","optional":false},"optional":false}'
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"schema":' + _DATE.encode() + b',"payload":2147483647}', "years 1 to 9999"),
        (b'{"schema":' + _TS.encode() + b',"payload":9223372036854775807}', "years 1 to 9999"),
        (b'{"schema":' + _MAP_KEYS.encode() + b',"payload":[[{"a":1},2]]}', "map key"),
        (
            b'{"schema":'
            + b'{"type":"array","optional":true,"items":' * 255
            + b'{"type":"int32","optional":false}'
            + b"}" * 255
            + b',"payload":null}',
            "Recursion limit",
        ),
        (b"", 'requires "schema" and "payload"'),
        (b"{", "serialization error"),
    ],
    ids=[
        "date-beyond-9999",
        "timestamp-beyond-9999",
        "map-keys-are-maps",
        "nested-255",
        "empty",
        "bad",
    ],
)
def test_every_read_failure_is_a_data_error_naming_the_problem(data: bytes, message: str) -> None:
    # Kafka's converter raises DataException for all of these; a Python TypeError or
    # OverflowError would bypass errors.tolerance and the dead letter queue.
    converter = _converter()
    with pytest.raises(DataError, match=message):
        converter.to_connect_data("orders", data)
    with pytest.raises(DataError, match=message):
        converter.to_connect_batch([("orders", data)])


def test_schemas_nested_255_deep_fail_to_write_with_a_data_error() -> None:
    schema = Schema.INT32
    for _ in range(255):
        schema = SchemaBuilder.array(schema).build()
    with pytest.raises(DataError, match="Recursion limit"):
        _converter().from_connect_data("orders", schema, None)


@pytest.mark.parametrize("data", [b"", b"  \n"])
def test_schemaless_empty_value_reads_as_null(data: bytes) -> None:
    converter = _converter(**{"schemas.enable": "false"})
    assert converter.to_connect_data("t", data) == SchemaAndValue(None, None)
    assert converter.to_connect_batch([("t", data)]) == [SchemaAndValue(None, None)]


def test_leading_zeros_read_in_batches_and_strings_keep_them() -> None:
    converter = _converter(**{"schemas.enable": "false"})
    got = converter.to_connect_batch([("t", b'{"a": 0012, "b": "0012", "c": -007.5, "d": 0.5}')])
    assert got[0].value == {"a": 12, "b": "0012", "c": -7.5, "d": 0.5}


def test_a_header_literal_parsed_by_values_is_written_as_kafkas_float() -> None:
    # InsertHeader value.literal=1.1 parses (as Kafka's Values.parseString) to FLOAT32, so
    # the JSON header bytes say "float" and 1.1, as Kafka's do.
    parsed = Values.parse_string("1.1")
    data = _converter().from_connect_header("t", "h", parsed.schema, parsed.value)
    assert data == b'{"schema":{"type":"float","optional":false},"payload":1.1}'


@pytest.mark.parametrize(
    ("value", "text"),
    [(float("nan"), b'"NaN"'), (float("inf"), b'"Infinity"'), (float("-inf"), b'"-Infinity"')],
)
def test_non_finite_doubles_are_written_as_jacksons_strings(value: float, text: bytes) -> None:
    """Jackson (``QUOTE_NON_NUMERIC_NUMBERS``, on by default) writes ``Double.toString`` in
    quotes for what JSON has no number for; orjson alone would write ``null``."""
    schema = (
        SchemaBuilder.struct()
        .field("d", Schema.FLOAT64)
        .field("f", Schema.FLOAT32)
        .field("o", Schema.OPTIONAL_FLOAT64)
        .build()
    )
    struct = Struct(schema).put("d", value).put("f", value).put("o", value)
    conv = _converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data("t", Schema.FLOAT64, value) == text
    assert conv.from_connect_data("t", Schema.FLOAT32, value) == text
    expected = b'{"d":%s,"f":%s,"o":%s}' % (text, text, text)
    assert conv.from_connect_data("t", schema, struct) == expected
    assert conv.from_connect_batch([("t", schema, struct)] * 3) == [expected] * 3
    # ... and read back as the value they stand for, one by one and in a batch.
    back = _converter()
    written = _converter().from_connect_data("t", schema, struct)
    for sv in [back.to_connect_data("t", written), *back.to_connect_batch([("t", written)] * 2)]:
        got = [sv.value.get(name) for name in ("d", "f", "o")]
        assert [repr(v) for v in got] == [repr(value)] * 3


def test_a_string_in_a_double_field_is_still_an_error() -> None:
    data = b'{"schema":{"type":"double","optional":false},"payload":"nan"}'
    with pytest.raises(DataError, match="expected a JSON number, found string"):
        _converter().to_connect_data("t", data)
