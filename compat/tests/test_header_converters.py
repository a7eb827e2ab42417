"""Header converters: Kafka's SimpleHeaderConverter (Values' text forms), and the JSON and
string converters used for headers, against kconnect's."""

from __future__ import annotations

import pytest
from kconnect_compat.cases import Case
from kconnect_compat.generate import Gen
from kconnect_compat.runner import Differential
from kconnect_compat.runs import Run, runs

pytestmark = pytest.mark.integration


SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"

# Texts Values.parseString reads as something other than a string, and near misses.
_TEXTS = (
    "",
    " ",
    "true",
    "false",
    "TRUE",
    "null",
    "0",
    "-0",
    "1",
    "-1",
    "127",
    "128",
    "-129",
    "32767",
    "32768",
    "2147483647",
    "2147483648",
    "9223372036854775807",
    "9223372036854775808",
    "1.5",
    "1.1",
    "-0.0",
    "1e3",
    "1E-5",
    "3.4028235E38",
    "1.7976931348623157E308",
    "1e400",
    "NaN",
    "Infinity",
    "0x10",
    "+1",
    "1_000",
    ".5",
    "5.",
    "007",
    "1.50",
    "2020-01-01",
    "2020-13-01",
    "0001-01-01",
    "12:00:00.000Z",
    "23:59:59.999Z",
    "12:00:00Z",
    "2020-01-01T12:00:00.000Z",
    "2020-01-01T12:00:00Z",
    "2020-01-01 12:00:00",
    "[]",
    "[1,2,3]",
    "[1, 2, 3]",
    "[1,2.5]",
    '[1,"a"]',
    "[true,false]",
    "[null]",
    "[null,1]",
    "[[1],[2]]",
    "[1,",
    "[",
    "]",
    "{}",
    '{"a":1}',
    '{"a":1,"b":2}',
    "{a:1}",
    '{"a":[1,2]}',
    '{"a":{"b":true}}',
    "{1:2}",
    '{"a":1,}',
    "[1,]",
    '"quoted"',
    '"a\\"b"',
    "a,b",
    "a:b",
    "{",
    "}",
    "\\",
    "\\\\",
    '"',
    "'x'",
    "true false",
    "1 2",
    " 1 ",
    "[ 1 , 2 ]",
    "é",
    "😀",
    '["a","b"]',
    '{"k":"v"}',
    '[{"a":1},{"a":2}]',
    "[1,[2]]",
    '{"a":null}',
    "1.0",
    "100000000000000000000",
    "-9223372036854775809",
    "0.1",
    "1e-400",
)


def _text(gen: Gen) -> bytes | None:
    roll = gen.r.random()
    if roll < 0.03:
        return None
    if roll < 0.6:
        text = gen.pick(_TEXTS)
    elif roll < 0.8:
        text = gen.pick(_TEXTS) + gen.pick(("", " ", ",", "]", "}", "x")) + gen.pick(_TEXTS)
    else:
        text = gen.string()
    if gen.chance(0.03):
        return text.encode() + b"\xff"
    return text.encode("utf-8", "surrogatepass")


def _cases(seed: int, count: int) -> list[Case]:
    gen = Gen(seed + 23)
    cases: list[Case] = []
    for _ in range(count):
        if gen.chance(0.4):
            cases.append(
                Case("SimpleHeaderConverter read", "headerFromBytes", SIMPLE, data=_text(gen))
            )
            continue
        if gen.chance(0.75):
            schema = gen.schema(0)
            value = gen.value(schema)
        else:
            schema, value = None, gen.schemaless()
        cases.append(
            Case("SimpleHeaderConverter write", "headerToBytes", SIMPLE, schema=schema, value=value)
        )
    for _ in range(count // 2):
        config = {"schemas.enable": gen.pick(("true", "false"))}
        schema = gen.schema(0)
        cases.append(
            Case(
                "JsonConverter as header converter",
                "headerToBytes",
                JSON,
                config,
                schema=schema,
                value=gen.value(schema),
            )
        )
        cases.append(
            Case("StringConverter as header converter", "headerFromBytes", STRING, data=_text(gen))
        )
    return cases


@pytest.mark.parametrize("run", runs(), ids=str)
def test_header_converters_write_and_read_as_kafka(differential: Differential, run: Run) -> None:
    outcome = differential.run(_cases(run.seed, run.cases))
    assert not outcome.unexplained, outcome.report()
