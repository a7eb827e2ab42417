"""Kafka's JsonConverter against kconnect's, on generated schemas and values and raw JSON."""

from __future__ import annotations

import json

import pytest
from kconnect_compat.cases import Case
from kconnect_compat.generate import Gen
from kconnect_compat.runner import Differential
from kconnect_compat.runs import Run, runs

pytestmark = pytest.mark.integration

JSON = "org.apache.kafka.connect.json.JsonConverter"


def _write_cases(seed: int, per_config: int) -> list[Case]:
    cases: list[Case] = []
    for schemas in ("true", "false"):
        for decimals in ("BASE64", "NUMERIC"):
            gen = Gen(seed + len(cases))
            component = f"JsonConverter schemas.enable={schemas} decimal.format={decimals}"
            for _ in range(per_config):
                config = {"schemas.enable": schemas, "decimal.format": decimals}
                if gen.chance(0.3):
                    config["replace.null.with.default"] = gen.pick(("true", "false"))
                if gen.chance(0.7):
                    schema = (
                        gen.schema(0)
                        if gen.chance(0.5)
                        else gen.decorate(gen.struct_builder(0, min_fields=1))
                    )
                    value = gen.value(schema)
                else:
                    schema, value = None, gen.schemaless()
                cases.append(
                    Case(
                        component,
                        "toBytes",
                        JSON,
                        config,
                        is_key=gen.chance(0.3),
                        schema=schema,
                        value=value,
                    )
                )
    return cases


@pytest.mark.parametrize("run", runs(), ids=str)
def test_json_converter_writes_and_reads_back_as_kafka(
    differential: Differential, run: Run
) -> None:
    outcome = differential.run(_write_cases(run.seed, run.cases))
    assert not outcome.unexplained, outcome.report()


# Number texts Jackson and orjson may read differently: exponents, leading zeros, integers
# past int64, negative zero, tiny and huge magnitudes, too many digits for a double.
_NUMBERS = (
    "0",
    "-0",
    "0.0",
    "-0.0",
    "1",
    "-1",
    "007",
    "-007",
    "1.5",
    "1e5",
    "1E5",
    "1e-5",
    "1.0e+2",
    "2.5E-3",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "2.2250738585072014e-308",
    "0.1",
    "3.4028235e38",
    "3.5e38",
    "127",
    "128",
    "-129",
    "32768",
    "2147483648",
    "1.00000000000000000001",
    "12345678901234567.5",
    "100",
    "1.0",
    "5e-1",
    "0e0",
    "-0e-0",
)
_STRINGS = (
    '""',
    '"a"',
    '"\\u00e9"',
    '"\\uD83D\\uDE00"',
    '"\\ud800"',
    '"\\udc00x"',
    '"\\n\\t\\"\\\\"',
    '"\\/"',
    '"é"',
    '"😀"',
    '"\\u0000"',
    '"1.5"',
    '"true"',
    '"AAEC"',
    '"2020-01-01"',
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
)
_BROKEN = (
    "",
    " ",
    "\n",
    "{",
    "[1,",
    '{"a":1}x',
    "nul",
    "NaN",
    "Infinity",
    "-Infinity",
    "'a'",
    '{"a":1,}',
    "[1,]",
    "01x",
    "\x00",
    '"\x01"',
    '{"a":1}{"b":2}',
    "[1] [2]",
    "tru",
    "1 2",
    '{"a" 1}',
    "\ufeff1",
    '{"a":1',
    "/* c */ 1",
    "# c\n1",
)


def _json_text(gen: Gen, depth: int = 0) -> str:
    roll = gen.r.random()
    if depth < 3 and roll < 0.2:
        members = [
            f"{json.dumps(gen.pick(('a', 'b', 'ünï', '', 'a')))}:{gen.pick((' ', ''))}{_json_text(gen, depth + 1)}"
            for _ in range(gen.r.randint(0, 4))
        ]
        return "{" + gen.pick((",", ", ", " ,\n")).join(members) + "}"
    if depth < 3 and roll < 0.35:
        return "[" + ",".join(_json_text(gen, depth + 1) for _ in range(gen.r.randint(0, 4))) + "]"
    return gen.weighted(
        [
            (gen.pick(_NUMBERS), 4.0),
            (gen.pick(_STRINGS), 2.0),
            (json.dumps(gen.string(), ensure_ascii=gen.chance(0.5)), 1.0),
            (gen.pick(("true", "false", "null")), 1.0),
        ]
    )


def _payload_for(gen: Gen, schema_json: dict[str, object]) -> str:
    """A payload for a schema JSON: mostly the right JSON type, sometimes not."""
    kind = schema_json.get("type")
    if gen.chance(0.2):
        return _json_text(gen, 2)
    if gen.chance(0.1) and schema_json.get("optional"):
        return "null"
    if kind in ("int8", "int16", "int32", "int64", "float", "double"):
        return gen.pick(_NUMBERS)
    if kind == "boolean":
        return gen.pick(("true", "false", "1", '"true"'))
    if kind in ("string", "bytes"):
        if schema_json.get("name") == "org.apache.kafka.connect.data.Decimal":
            return gen.pick((*_NUMBERS, '"AJw="', '"/2Q="', '""', '"AA=="'))
        return gen.pick(_STRINGS)
    if kind == "array":
        items = schema_json["items"]
        assert isinstance(items, dict)
        return "[" + ",".join(_payload_for(gen, items) for _ in range(gen.r.randint(0, 3))) + "]"
    if kind == "map":
        keys, values = schema_json["keys"], schema_json["values"]
        assert isinstance(keys, dict) and isinstance(values, dict)
        if keys.get("type") == "string" and gen.chance(0.8):
            return (
                "{"
                + ",".join(
                    f"{gen.pick(_STRINGS)}:{_payload_for(gen, values)}"
                    for _ in range(gen.r.randint(0, 3))
                )
                + "}"
            )
        return (
            "["
            + ",".join(
                f"[{_payload_for(gen, keys)},{_payload_for(gen, values)}]"
                for _ in range(gen.r.randint(0, 3))
            )
            + "]"
        )
    if kind == "struct":
        fields = schema_json.get("fields")
        assert isinstance(fields, list)
        members = [
            f"{json.dumps(f['field'])}:{_payload_for(gen, f)}"
            for f in fields
            if isinstance(f, dict) and not gen.chance(0.1)
        ]
        if gen.chance(0.1):
            members.append('"extra":1')
        gen.r.shuffle(members)
        return "{" + ",".join(members) + "}"
    return _json_text(gen)


def _envelope(gen: Gen, writer: object) -> bytes:
    """An envelope whose schema JSON kconnect wrote, with a generated payload."""
    from kconnect_converter_json import JsonConverter

    assert isinstance(writer, JsonConverter)
    schema = gen.schema(0) if gen.chance(0.6) else gen.decorate(gen.struct_builder(0, min_fields=1))
    written = writer.from_connect_data("topic", schema, gen.value(schema))
    assert written is not None
    schema_json = json.loads(written)["schema"]
    payload = _payload_for(gen, schema_json)
    if gen.chance(0.05):
        return ('{"payload":' + payload + ',"schema":' + json.dumps(schema_json) + "}").encode()
    if gen.chance(0.05):
        return ('{"schema":' + json.dumps(schema_json) + "}").encode()
    return ('{"schema":' + json.dumps(schema_json) + ',"payload":' + payload + "}").encode()


def _read_cases(seed: int, per_config: int) -> list[Case]:
    from kconnect_converter_json import JsonConverter

    gen = Gen(seed + 7)
    writer = JsonConverter()
    writer.configure({"schemas.enable": "true"}, False)
    cases: list[Case] = []
    for _ in range(per_config):
        text = gen.pick(_BROKEN) if gen.chance(0.1) else _json_text(gen)
        data = text.encode("utf-8", "surrogatepass")
        config = {"schemas.enable": "false"}
        cases.append(
            Case("JsonConverter read schemas.enable=false", "fromBytes", JSON, config, data=data)
        )
    for _ in range(per_config):
        config = {"schemas.enable": "true", "decimal.format": gen.pick(("BASE64", "NUMERIC"))}
        if gen.chance(0.1):
            data = (
                gen.pick(_BROKEN)
                if gen.chance(0.5)
                else '{"schema":null,"payload":' + _json_text(gen) + "}"
            ).encode()
        else:
            data = _envelope(gen, writer)
        cases.append(
            Case("JsonConverter read schemas.enable=true", "fromBytes", JSON, config, data=data)
        )
    return cases


@pytest.mark.parametrize("run", runs(), ids=str)
def test_json_converter_reads_json_as_kafka(differential: Differential, run: Run) -> None:
    outcome = differential.run(_read_cases(run.seed, run.cases))
    assert not outcome.unexplained, outcome.report()
