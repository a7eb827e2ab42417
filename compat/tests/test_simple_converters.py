"""Kafka's StringConverter, ByteArrayConverter and number/boolean converters against kconnect's."""

from __future__ import annotations

import pytest
from kconnect_compat.cases import Case
from kconnect_compat.generate import Gen
from kconnect_compat.runner import Differential
from kconnect_compat.runs import Run, runs
from kconnect_sdk import Schema, SchemaBuilder, Type

pytestmark = pytest.mark.integration


STRING = "org.apache.kafka.connect.storage.StringConverter"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
NUMBERS = {
    "org.apache.kafka.connect.converters.ShortConverter": Type.INT16,
    "org.apache.kafka.connect.converters.IntegerConverter": Type.INT32,
    "org.apache.kafka.connect.converters.LongConverter": Type.INT64,
    "org.apache.kafka.connect.converters.FloatConverter": Type.FLOAT32,
    "org.apache.kafka.connect.converters.DoubleConverter": Type.FLOAT64,
    "org.apache.kafka.connect.converters.BooleanConverter": Type.BOOLEAN,
}
ENCODINGS = (
    "UTF-8",
    "UTF-8",
    "UTF-16",
    "UTF-16LE",
    "UTF-16BE",
    "ISO-8859-1",
    "US-ASCII",
    "windows-1252",
)


def _holds_bytes(schema: Schema | None) -> bool:
    """Whether a value of ``schema`` may hold a byte[], whose Java toString is an identity hash."""
    if schema is None:
        return False
    if schema.type is Type.BYTES:
        return schema.name != "org.apache.kafka.connect.data.Decimal"
    inner = [f.schema for f in schema.fields] + [schema.key_schema, schema.value_schema]
    return any(_holds_bytes(s) for s in inner)


def _random_bytes(gen: Gen) -> bytes | None:
    if gen.chance(0.05):
        return None
    if gen.chance(0.4):
        return gen.string().encode("utf-8", "surrogatepass")
    return bytes(gen.r.getrandbits(8) for _ in range(gen.r.randint(0, 10)))


def _string_cases(gen: Gen, per_converter: int) -> list[Case]:
    cases: list[Case] = []
    for _ in range(per_converter):
        config = {"converter.encoding": gen.pick(ENCODINGS)} if gen.chance(0.6) else {}
        component = f"StringConverter {config.get('converter.encoding', 'UTF-8')}"
        if gen.chance(0.3):
            cases.append(Case(component, "fromBytes", STRING, config, data=_random_bytes(gen)))
            continue
        roll = gen.r.random()
        if roll < 0.5:
            schema: Schema | None = gen.pick((None, Schema.STRING, Schema.OPTIONAL_STRING))
            value = gen.string()
        elif roll < 0.9:
            # Kafka writes any other value with its Java toString().
            schema = gen.primitive_schema().build()
            if schema.type is Type.BYTES and schema.name is None:
                schema = Schema.STRING  # byte[].toString() is an identity hash
            value = gen.value(schema)
        else:
            schema = gen.schema(1)
            if _holds_bytes(schema):
                schema = SchemaBuilder.array(Schema.INT32).build()
            value = gen.value(schema)
        cases.append(
            Case(
                component,
                "toBytes",
                STRING,
                config,
                is_key=gen.chance(0.5),
                schema=schema,
                value=value,
            )
        )
    return cases


def _bytes_cases(gen: Gen, per_converter: int) -> list[Case]:
    cases: list[Case] = []
    for _ in range(per_converter):
        if gen.chance(0.3):
            cases.append(Case("ByteArrayConverter", "fromBytes", BYTES, data=_random_bytes(gen)))
            continue
        schema: Schema | None = gen.pick((None, Schema.BYTES, Schema.OPTIONAL_BYTES, Schema.STRING))
        value = gen.bytes_value() if gen.chance(0.8) else gen.schemaless()
        if schema is Schema.STRING:
            value = gen.string()
        cases.append(Case("ByteArrayConverter", "toBytes", BYTES, schema=schema, value=value))
    return cases


def _number_cases(gen: Gen, per_converter: int) -> list[Case]:
    cases: list[Case] = []
    for cls, typ in NUMBERS.items():
        component = cls.rsplit(".", 1)[-1]
        for _ in range(per_converter // 2):
            if gen.chance(0.35):
                width = {Type.INT16: 2, Type.INT32: 4, Type.INT64: 8, Type.FLOAT32: 4}.get(typ, 8)
                if typ is Type.BOOLEAN:
                    width = 1
                size = width if gen.chance(0.7) else gen.r.randint(0, 10)
                data = (
                    None if gen.chance(0.05) else bytes(gen.r.getrandbits(8) for _ in range(size))
                )
                cases.append(Case(component, "fromBytes", cls, data=data))
                continue
            own = SchemaBuilder(typ).build()
            schema = gen.pick(
                (None, own, own.replace(optional=True), gen.primitive_schema(logical=False).build())
            )
            value = gen.value(schema if schema is not None else own)
            if gen.chance(0.1):
                value = gen.schemaless()
            cases.append(
                Case(
                    component,
                    "toBytes",
                    cls,
                    is_key=gen.chance(0.5),
                    schema=schema,
                    value=value,
                    java_type=own,
                )
            )
    return cases


def _cases(seed: int, cases: int) -> list[Case]:
    gen = Gen(seed + 11)
    per = cases // 2
    return _string_cases(gen, per) + _bytes_cases(gen, per) + _number_cases(gen, per)


@pytest.mark.parametrize("run", runs(), ids=str)
def test_simple_converters_write_and_read_as_kafka(differential: Differential, run: Run) -> None:
    outcome = differential.run(_cases(run.seed, run.cases))
    assert not outcome.unexplained, outcome.report()
