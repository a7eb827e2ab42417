"""The compiled fast paths (kconnect-speedups) give the pure-Python path's bytes and values.

Random flat struct schemas and values (every flat type, optional fields and defaults,
doubles of every size including -0.0, NaN and infinities, strings with control characters,
quotes, non-ASCII and lone surrogates, ints at and past each type's bounds, values of the
wrong class) are written by ``from_connect_batch`` on both paths: the bytes, or the error,
must be the same. Batches of valid values must be written by the compiled encoder itself,
so the comparison is not of the fallback with itself.
"""

from __future__ import annotations

import decimal
import json
import math
import os
import subprocess
import sys
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kconnect_converter_json import JsonConverter, _codec
from kconnect_sdk import (
    DataError,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Type,
)
from kconnect_speedups import _json as compiled

_BOUNDS = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}
_FLAT_TYPES = [
    Type.INT8,
    Type.INT16,
    Type.INT32,
    Type.INT64,
    Type.FLOAT64,
    Type.BOOLEAN,
    Type.STRING,
]

_texts = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x7F),
        st.characters(min_codepoint=0, max_codepoint=0x1F),
        st.sampled_from('"\\/\b\t\n\f\r\x00\x1f\x7f\u2028é☃\U0001f600\ud800'),
        st.characters(),
    ),
    max_size=12,
)
_doubles = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e7, max_value=1e7),
    st.sampled_from(
        [0.0, -0.0, 1e-3, -1e-3, 0.00099999, 1e7, 9999999.999999998, 1e16, 1e22, 1e-300, 5e-324]
    ),
    st.integers(-(10**9), 10**9).map(lambda i: i / 100),
)


def _ints(t: Type) -> st.SearchStrategy[int]:
    lo, hi = _BOUNDS[t]
    return st.one_of(
        st.integers(lo, hi), st.sampled_from([lo, hi, lo - 1, hi + 1, 2**64, -(2**70)])
    )


def _good(t: Type) -> st.SearchStrategy[Any]:
    """Values of the field's own class (a few out of range or not finite)."""
    if t in _BOUNDS:
        return _ints(t)
    if t is Type.FLOAT64:
        return _doubles
    if t is Type.BOOLEAN:
        return st.booleans()
    return _texts


_wrong = st.sampled_from([1, 1.5, True, "s", b"b", [1], None])


@st.composite
def flat_batches(draw: st.DrawFn) -> tuple[Schema, list[list[Any]]]:
    """A flat struct schema and rows of raw values (checked by no one: put into _values)."""
    builder = SchemaBuilder.struct().name("t.Random")
    kinds: list[Type] = []
    for i in range(draw(st.integers(1, 6))):
        t = draw(st.sampled_from(_FLAT_TYPES))
        field = SchemaBuilder(t)
        if draw(st.booleans()):
            field = field.optional()
        if draw(st.integers(0, 5)) == 0:
            field = field.default_value(draw(_good(t).filter(lambda v, t=t: _valid(t, v))))
        name = draw(st.sampled_from([f"f{i}", f'q"{i}', f"t\t{i}", f"é{i}", f"c\x01{i}"]))
        builder = builder.field(name, field.build())
        kinds.append(t)
    schema = builder.build()
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        row = []
        for t in kinds:
            choice = draw(st.integers(0, 9))
            if choice == 0:
                row.append(None)
            elif choice == 1:
                row.append(draw(_wrong))
            else:
                row.append(draw(_good(t)))
        rows.append(row)
    return schema, rows


def _valid(t: Type, v: Any) -> bool:
    if t in _BOUNDS:
        lo, hi = _BOUNDS[t]
        return type(v) is int and lo <= v <= hi
    if t is Type.FLOAT64:
        return type(v) is float and math.isfinite(v)
    if t is Type.BOOLEAN:
        return type(v) is bool
    return type(v) is str and not any(0xD800 <= ord(c) <= 0xDFFF for c in v)


def _struct(schema: Schema, row: list[Any]) -> Struct:
    s = Struct(schema)
    s._values = list(row)  # as a connector filling values directly: no checks
    return s


_plain_texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_decimals = st.one_of(
    st.integers(-(10**20), 10**20).map(lambda i: decimal.Decimal(i).scaleb(-2)),
    st.sampled_from(
        [decimal.Decimal("1E+3"), decimal.Decimal("1.5"), decimal.Decimal("NaN"), 1.5, "1.00"]
    ),
)
_bytes = st.one_of(st.binary(max_size=8), st.sampled_from([bytearray(b"ab"), "YQ==", 5]))


@st.composite
def nested_batches(draw: st.DrawFn) -> tuple[Schema, list[Struct], bool]:
    """A Debezium-like struct schema (flat fields, bytes, a Decimal, nested structs that
    may share one schema, defaults) and Structs of it with values right and wrong; and
    whether nulls are replaced by defaults."""
    inner, _ = draw(flat_batches())
    inner_opt = SchemaBuilder.struct().name("t.Inner").optional()
    for f in inner.fields:
        inner_opt = inner_opt.field(f.name, f.schema)
    shared = inner_opt.build()
    builder = SchemaBuilder.struct().name("t.Envelope")
    specs: list[Any] = []
    for i in range(draw(st.integers(1, 7))):
        spec = draw(
            st.sampled_from(["shared", "shared", "inner", "bytes", "decimal", *_FLAT_TYPES])
        )
        if spec == "shared":
            field = shared
        elif spec == "inner":
            field = inner
        elif spec == "bytes":
            b = SchemaBuilder.bytes()
            field = (b.optional() if draw(st.booleans()) else b).build()
        elif spec == "decimal":
            b = Decimal.builder(2)
            if draw(st.booleans()):
                b = b.optional()
            if draw(st.integers(0, 3)) == 0:
                b = b.default_value(decimal.Decimal("4.20"))
            field = b.build()
        else:
            b = SchemaBuilder(spec)
            if draw(st.booleans()):
                b = b.optional()
            if draw(st.integers(0, 2)) == 0:
                b = b.default_value(draw(_good(spec).filter(lambda v, t=spec: _valid(t, v))))
            field = b.build()
        builder = builder.field(f"n{i}", field)
        specs.append(spec)
    schema = builder.build()

    def inner_struct(child: Schema) -> Any:
        choice = draw(st.integers(0, 9))
        if choice == 0:
            return None
        if choice == 1:
            return _struct(inner if child is shared else shared, draw(flat_batches())[1][0])
        if choice == 2:
            return draw(_wrong)
        rows = draw(flat_batches())[1]  # raw values of another schema: mostly wrong ones
        good = [draw(_good(f.schema.type)) for f in child.fields]
        return _struct(child, good if choice > 4 else rows[0][: len(child.fields)])

    structs = []
    for _ in range(draw(st.integers(1, 4))):
        row: list[Any] = []
        for f, spec in zip(schema.fields, specs, strict=True):
            if spec in ("shared", "inner"):
                row.append(inner_struct(f.schema))
                continue
            choice = draw(st.integers(0, 9))
            if choice == 0:
                row.append(None)
            elif choice == 1:
                row.append(draw(_wrong))
            elif spec == "bytes":
                row.append(draw(_bytes))
            elif spec == "decimal":
                row.append(draw(_decimals))
            else:
                row.append(draw(_good(spec)))
        structs.append(_struct(schema, row))
    return schema, structs, draw(st.booleans())


def _takes_it(schema: Schema, value: Any, replace_null: bool) -> bool:
    """Whether the compiled encoder writes ``value`` itself (no hand-back)."""
    if value is None:
        return (replace_null and schema.default is not None) or schema.optional
    t = schema.type
    if schema.name == Decimal.LOGICAL_NAME:
        return type(value) is decimal.Decimal and value.as_tuple().exponent == -2
    if t is Type.BYTES:
        return type(value) is bytes
    if t is Type.STRUCT:
        return (
            type(value) is Struct
            and value.schema is schema
            and len(value._values) == len(schema.fields)
            and all(
                _takes_it(f.schema, v, replace_null)
                for f, v in zip(schema.fields, value._values, strict=True)
            )
        )
    return _valid(t, value)


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@pytest.mark.parametrize("enable", ["true", "false"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=nested_batches())
def test_compiled_nested_bytes_are_the_python_bytes(
    speedups: str, enable: str, batch: tuple[Schema, list[Struct], bool]
) -> None:
    schema, structs, replace_null = batch
    config = {"replace.null.with.default": str(replace_null).lower()}
    items = [("t", schema, s) for s in structs]
    assert _write(enable, compiled, items, config) == _write(enable, None, items, config)
    # Debezium's stream: a tombstone after a record, and one first.
    mixed: list[tuple[str, Any, Any]] = [("t", None, None)]
    for item in items:
        mixed += [item, ("t", None, None)]
    assert _write(enable, compiled, mixed, config) == _write(enable, None, mixed, config)
    # One by one (from_connect_data), each record's bytes or error.
    for item in items:
        assert _write(enable, compiled, [item], config, single=True) == _write(
            enable, None, [item], config, single=True
        )
    if all(_takes_it(schema, s, replace_null) for s in structs):
        c = JsonConverter()
        c.configure({"schemas.enable": enable, **config}, False)
        native = c._native_encoder(schema)
        assert native is not None
        assert native.encode_items(items) is not None


def _write(
    enable: str,
    path: Any,
    items: list[tuple[str, Any, Any]],
    config: dict[str, str] | None = None,
    single: bool = False,
) -> Any:
    """The batch's bytes (or one record's, ``single``), or the error, on one path."""
    saved = _codec.SPEEDUPS
    _codec.SPEEDUPS = path
    try:
        c = JsonConverter()
        c.configure({"schemas.enable": enable, **(config or {})}, False)
        try:
            if single:
                return c.from_connect_data(*items[0])
            return c.from_connect_batch(items)
        except DataError as exc:
            return ("DataError", str(exc))
    finally:
        _codec.SPEEDUPS = saved


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@pytest.mark.parametrize("enable", ["true", "false"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=flat_batches())
def test_compiled_bytes_are_the_python_bytes(
    speedups: str, enable: str, batch: tuple[Schema, list[list[Any]]]
) -> None:
    schema, rows = batch
    items = [("t", schema, _struct(schema, row)) for row in rows]
    assert _write(enable, compiled, items) == _write(enable, None, items)
    all_valid = all(
        (v is None and f.schema.optional and f.schema.default is None)
        or (v is not None and _valid(f.schema.type, v))
        for row in rows
        for f, v in zip(schema.fields, row, strict=True)
    )
    if all_valid:
        # Such a batch is the compiled encoder's own: it must not hand it back.
        c = JsonConverter()
        c.configure({"schemas.enable": enable}, False)
        native = c._native_encoder(schema)
        assert native is not None
        assert native.encode_items(items) is not None


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@settings(max_examples=300, deadline=None)
@given(
    datas=st.lists(
        st.one_of(
            st.none(),
            st.just(b""),
            st.just(b"  "),
            st.just(b"0012"),
            st.just(b"{bad"),
            # Texts of JSON's characters: whitespace, numbers of every form, syntax errors
            # (the compiled parser reads what it can and hands the rest to orjson).
            st.text(alphabet='{}[]",: 0123456789.eE+-truefalsn\\\t\n\xe9', max_size=24).map(
                str.encode
            ),
            st.sampled_from([b"18446744073709551616", b"1e400", b"118.99000000000001", b"-0"]),
            st.recursive(
                st.none()
                | st.booleans()
                | st.integers(-(2**63), 2**63 - 1)
                | st.floats()
                | _plain_texts,
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3)
                ),
                max_leaves=6,
            ).map(orjson.dumps),
        ),
        max_size=6,
    )
)
def test_compiled_schemaless_decode_reads_as_python(
    speedups: str, datas: list[bytes | None]
) -> None:
    items = [("t", d) for d in datas]

    def read(path: Any) -> Any:
        saved = _codec.SPEEDUPS
        _codec.SPEEDUPS = path
        try:
            c = JsonConverter()
            c.configure({"schemas.enable": "false"}, False)
            try:
                return c.to_connect_batch(items)
            except DataError as exc:
                return ("DataError", str(exc))
        finally:
            _codec.SPEEDUPS = saved

    fast, slow = read(compiled), read(None)
    assert fast == slow
    if not isinstance(fast, tuple):
        assert all(type(sv) is SchemaAndValue for sv in fast)


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
def test_env_var_turns_the_compiled_path_off(speedups: str) -> None:
    code = "from kconnect_converter_json import _codec; print(_codec.SPEEDUPS is not None)"
    env = {k: v for k, v in os.environ.items() if k != "KCONNECT_SPEEDUPS"}
    on = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    env["KCONNECT_SPEEDUPS"] = "0"
    off = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    assert (on.stdout.strip(), off.stdout.strip()) == (b"True", b"False")


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@settings(max_examples=2000, deadline=None)
@given(
    texts=st.lists(
        st.binary(max_size=24)
        | st.text(alphabet='0123456789.eE-+ \\"ax', max_size=24).map(str.encode),
        max_size=4,
    )
)
def test_compiled_screen_is_the_python_screen(speedups: str, texts: list[bytes]) -> None:
    flags = compiled.screen(texts)
    assert bool(flags & 1) == any(_codec.maybe_scientific(t) for t in texts)
    assert bool(flags & 2) == any(92 in t for t in texts)
    assert bool(flags & 4) == any(b"null" in t for t in texts)


_schemaless_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | _doubles
    | _texts
    | st.binary(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(_texts, inner, max_size=3)
        | st.dictionaries(st.integers(0, 3), inner, max_size=2)
    ),
    max_leaves=8,
)


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@settings(max_examples=1000, deadline=None)
@given(value=_schemaless_values | st.tuples(_schemaless_values, _doubles))
def test_compiled_non_finite_walk_is_the_python_walk(speedups: str, value: Any) -> None:
    found = compiled.has_non_finite(value)
    assert _codec.has_non_finite(value) is found
    assert _codec.any_non_finite([value, {"x": 1.5}]) is found
    if isinstance(value, dict):  # a batch of dicts: one pass over all their values
        assert _codec.any_non_finite([{"x": 1.5}, value]) is found


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(
        st.recursive(
            st.none()
            | st.integers(-(2**70), 2**70)
            | st.sampled_from([2**63, -(2**63) - 1, 2**64, 2**64 - 1, 10**30, -(10**25)])
            | _doubles.filter(math.isfinite)
            | _texts,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
            max_leaves=6,
        ),
        min_size=1,
        max_size=5,
    ),
    escape=st.booleans(),
)
def test_compiled_schemaless_reads_are_the_python_reads(
    speedups: str, values: list[Any], escape: bool
) -> None:
    """Integers of any size (Kafka keeps the low 64 bits of those beyond int64), read by
    the compiled parser, or handed back (an escape) to orjson or the exact reader."""
    datas = [json.dumps(v).encode() for v in values]
    if escape:
        datas = [b'{"\\n":' + d + b"}" for d in datas]
    items: list[tuple[str, bytes | None]] = [("t", d) for d in datas] + [("t", None)]
    results = {}
    saved = _codec.SPEEDUPS
    try:
        for path in (compiled, None):
            _codec.SPEEDUPS = path
            c = JsonConverter()
            c.configure({"schemas.enable": "false"}, False)
            results[path is None] = (
                [sv.value for sv in c.to_connect_batch(items)],
                [c.to_connect_data("t", d).value for _, d in items],
            )
    finally:
        _codec.SPEEDUPS = saved
    assert results[True] == results[False]
    wrapped = [_wrap(v) for v in values]
    expected = [{"\n": w} for w in wrapped] if escape else wrapped
    assert results[True][0] == [*expected, None]


def _wrap(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | list | dict):
        return value
    if isinstance(value, int):
        return ((value + 2**63) % 2**64) - 2**63
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return {k: _wrap(v) for k, v in value.items()}


@pytest.mark.parametrize("speedups", ["both"], indirect=False)
@pytest.mark.parametrize("enable", ["true", "false"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(_schemaless_values, min_size=1, max_size=5))
def test_compiled_schemaless_bytes_are_the_python_bytes(
    speedups: str, enable: str, values: list[Any]
) -> None:
    """Values with no schema (None ones are tombstones): compiled and pure write alike."""
    items = [("t", None, v) for v in values]
    assert _write(enable, compiled, items) == _write(enable, None, items)


_DECIMAL_ROW = (
    SchemaBuilder.struct()
    .name("row")
    .field("id", Schema.INT64)
    .field("amount", Decimal.schema(2))
    .field("price", Schema.OPTIONAL_FLOAT64)
    .field("note", Schema.OPTIONAL_STRING)
    .build()
)


@pytest.mark.parametrize(
    ("payload", "amount", "price"),
    [
        (b'{"id":7,"amount":"BNI=","price":null,"note":"x"}', "12.34", None),
        (b'{ "id" : 7 , "amount" : 1234 , "price" : 3 , "note" : "x" }', "1234.00", 3.0),
        (
            b'{"id":7,"amount":12.345678901234567890,"price":0.1,"note":"x"}',
            "12.345678901234567890",
            0.1,
        ),
        (b'{"id":7,"amount":1.5E+1,"price":1e-7,"note":"x"}', "15.00", 1e-7),
        (b'{"id":7,"amount":00012,"price":null,"note":"x"}', "12.00", None),
    ],
)
def test_decimal_schemas_read_numbers_exactly(
    speedups: str, payload: bytes, amount: str, price: float | None
) -> None:
    """A schema with a Decimal reads every digit of a numeric decimal (Jackson's
    USE_BIG_DECIMAL_FOR_FLOATS), also when the payload has no fractions at all (the
    compiled parser reads that one) and when it has leading zeros."""
    converter = JsonConverter()
    converter.configure({}, False)
    data = converter.from_connect_data(
        "t", _DECIMAL_ROW, Struct(_DECIMAL_ROW).put("id", 1).put("amount", decimal.Decimal("0.00"))
    )
    assert data is not None
    prefix = data[: data.index(b',"payload":') + len(b',"payload":')]
    for _ in range(2):  # the second time through the remembered envelope prefix
        value = converter.to_connect_data("t", prefix + payload + b"}").value
        assert value.get("id") == 7 and value.get("note") == "x"
        assert str(value.get("amount")) == amount
        assert value.get("price") == price
