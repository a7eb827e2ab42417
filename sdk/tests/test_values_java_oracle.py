"""Values.parse_string reads text as Kafka 4.1.1's own ``Values.parseString``, asked of Java.

Thousands of texts built from the grammar's pieces (delimiters, quotes, escapes, blanks,
literals, numbers, dates, times and timestamps, impossible and pre-1582 dates) are parsed by
Kafka's class in a JVM and by kconnect; schema type, logical name and value (dates as epoch
milliseconds, others as ``convertToString`` writes them) must be the same. Skipped unless
``java``, ``javac`` and the connect-api 4.1.1, kafka-clients 4.1.1 and slf4j-api jars are
in the local Maven repository.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import random
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kconnect_sdk import Values

_M2 = Path.home() / ".m2" / "repository"
_JARS = [
    _M2 / "org/apache/kafka/connect-api/4.1.1/connect-api-4.1.1.jar",
    _M2 / "org/apache/kafka/kafka-clients/4.1.1/kafka-clients-4.1.1.jar",
    _M2 / "org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar",
]
_PROGRAM = """
import org.apache.kafka.connect.data.*;
import java.io.*;
import java.util.*;

public class ParseStrings {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        Base64.Decoder decoder = Base64.getDecoder();
        Base64.Encoder encoder = Base64.getEncoder();
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String text = new String(decoder.decode(line), "UTF-8");
            String shown;
            try {
                SchemaAndValue sv = Values.parseString(text);
                Schema schema = sv == null ? null : sv.schema();
                Object value = sv == null ? null : sv.value();
                String type = schema == null ? "null" : schema.type() + "/" + schema.name();
                String written = value == null ? "null"
                    : value instanceof java.util.Date ? "D" + ((java.util.Date) value).getTime()
                    : Values.convertToString(schema, value);
                shown = type + "\\u0001" + written;
            } catch (Throwable e) {
                shown = "error " + e;
            }
            out.append(encoder.encodeToString(shown.getBytes("UTF-8"))).append('\\n');
        }
        System.out.print(out);
    }
}
"""
_PIECES = [
    '"',
    "\\\\",
    ",",
    ":",
    "[",
    "]",
    "{",
    "}",
    " ",
    "\\t",
    "a",
    "x y",
    "1",
    "12",
    "-3",
    "1.5",
    "2020-01-01",
    "2020-13-01",
    "12:00:00.000Z",
    "T",
    "true",
    "false",
    "null",
    "1e5",
    "0",
    "9",
    "1582-10-10",
    "1500-02-29",
    "00:00",
    ".000Z",
    "2020-01-01T00:00:00.000Z",
    "  ",
    '\\\\"',
    "\\\\\\\\",
    "é",
    "+1",
    "1e400",
    "99999999999999999999",
    "1e40099999999999",
    # one-token texts the plain-string shortcut answers, and their neighbours it must not
    "bench",
    "nul",
    "-x",
    "\u2029",
    "\u0663",
]
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _texts() -> list[str]:
    rng = random.Random(41)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 7))) for _ in range(4000)]
    return [*texts, "1,2", "[1] x", "2020-01-01T00:00:00.000Z]x", " ", '["a\\\\"b", " c "]']


def _ours(text: str) -> str:
    sv = Values.parse_string(text)
    schema, value = sv.schema, sv.value
    shown = "null" if schema is None else f"{schema.type.name}/{schema.name or 'null'}"
    if value is None:
        written = "null"
    elif isinstance(value, dt.datetime):
        written = f"D{(value - _EPOCH) // dt.timedelta(milliseconds=1)}"
    elif isinstance(value, dt.date):
        written = f"D{(value - dt.date(1970, 1, 1)).days * 86_400_000}"
    elif isinstance(value, dt.time):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        written = f"D{seconds * 1000 + value.microsecond // 1000}"
    else:
        written = Values.convert_to_string(schema, value) or ""
    return f"{shown}\u0001{written}"


def test_parse_string_reads_as_kafka(tmp_path: Path) -> None:
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no JDK (java and javac) to run Kafka's Values")
    if not all(jar.exists() for jar in _JARS):
        pytest.skip("Kafka 4.1.1's connect-api, kafka-clients and slf4j-api jars not in ~/.m2")
    classpath = ":".join(map(str, _JARS))
    (tmp_path / "ParseStrings.java").write_text(_PROGRAM)
    subprocess.run(
        ["javac", "-cp", classpath, "-d", str(tmp_path), str(tmp_path / "ParseStrings.java")],
        check=True,
        capture_output=True,
        timeout=240,
    )
    texts = _texts()
    stdin = "".join(base64.b64encode(t.encode()).decode() + "\n" for t in texts)
    done = subprocess.run(
        ["java", "-Duser.timezone=UTC", "-cp", f"{classpath}:{tmp_path}", "ParseStrings"],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=240,
    )
    java = [base64.b64decode(line).decode() for line in done.stdout.splitlines()]
    assert len(java) == len(texts)
    differing = []
    for text, expected in zip(texts, java, strict=True):
        got = _ours(text)
        # A date before 1970 inside an array or map: Kafka writes a time of day (intended,
        # compat/intended-differences.toml values-date-format-by-schema).
        if got != expected and not ("[00:00:00.000Z" in expected or ":00:00:00.000Z" in expected):
            differing.append(f"{text!r}: java {expected!r}, kconnect {got!r}")
    assert differing == []


_SHAPES_PROGRAM = """
import org.apache.kafka.connect.data.*;
import java.io.*;
import java.math.BigDecimal;
import java.util.*;

public class ParseShapes {
    static String schema(Schema s) {
        if (s == null) return "null";
        String name = s.name() == null ? "" : "/" + s.name();
        switch (s.type()) {
            case ARRAY: return "ARRAY<" + schema(s.valueSchema()) + ">";
            case MAP: return "MAP<" + schema(s.keySchema()) + "," + schema(s.valueSchema()) + ">";
            default: return s.type() + name;
        }
    }
    static String value(Object v) {
        if (v == null) return "null";
        if (v instanceof java.util.Date) return "D" + ((java.util.Date) v).getTime();
        if (v instanceof Float || v instanceof Double)
            return "F" + Long.toHexString(Double.doubleToLongBits(((Number) v).doubleValue()));
        if (v instanceof BigDecimal) return "N" + ((BigDecimal) v).toPlainString();
        if (v instanceof Number) return "I" + v;
        if (v instanceof List) {
            StringBuilder b = new StringBuilder("[");
            for (Object o : (List<?>) v) b.append(value(o)).append(",");
            return b.append("]").toString();
        }
        if (v instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet())
                b.append(value(e.getKey())).append("=").append(value(e.getValue())).append(",");
            return b.append("}").toString();
        }
        return v.getClass().getSimpleName().charAt(0) + v.toString();
    }
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String shown;
            try {
                SchemaAndValue sv = Values.parseString(line);
                shown = schema(sv.schema()) + " " + value(sv.value());
            } catch (Throwable e) {
                shown = "error " + e;
            }
            out.append(shown).append('\\n');
        }
        System.out.print(out);
    }
}
"""
# Atoms whose common schema inside an array or map is a wider number, a float or a logical
# type: Kafka's SchemaMerger merges by type alone and converts every element to the result.
_ATOMS = [
    "14",
    "-3",
    "300",
    "70000",
    "3000000000",
    "-7.2515E7",
    "1.0E16",
    "1.5",
    "2.5E-3",
    "1e5",
    "-2.8809E27",
    "1e40",
    "2020-01-01",
    "1969-12-31",
    "12:00:00.000Z",
    "2020-01-01T00:00:01.000Z",
    "null",
    "true",
    '"a"',
]


def _container(rng: random.Random, depth: int = 0) -> str:
    items = [
        _container(rng, depth + 1) if depth < 1 and rng.random() < 0.15 else rng.choice(_ATOMS)
        for _ in range(rng.randint(1, 4))
    ]
    if rng.random() < 0.5:
        return "[" + ",".join(items) + "]"
    keys = [rng.choice(('"k"', '"a"', "1", "2", "2020-01-01")) for _ in items]
    return "{" + ",".join(f"{k}:{v}" for k, v in zip(keys, items, strict=True)) + "}"


def _schema_shape(schema: Any) -> str:
    if schema is None:
        return "null"
    if schema.type.name == "ARRAY":
        return f"ARRAY<{_schema_shape(schema.value_schema)}>"
    if schema.type.name == "MAP":
        return f"MAP<{_schema_shape(schema.key_schema)},{_schema_shape(schema.value_schema)}>"
    return schema.type.name + (f"/{schema.name}" if schema.name else "")


def _value_shape(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"B{str(value).lower()}"
    if isinstance(value, dt.datetime):
        return f"D{(value - _EPOCH) // dt.timedelta(milliseconds=1)}"
    if isinstance(value, dt.date):
        return f"D{(value - dt.date(1970, 1, 1)).days * 86_400_000}"
    if isinstance(value, dt.time):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        return f"D{seconds * 1000 + value.microsecond // 1000}"
    if isinstance(value, float):
        return "F" + format(struct.unpack(">q", struct.pack(">d", value))[0] & (2**64 - 1), "x")
    if isinstance(value, decimal.Decimal):
        return f"N{value:f}"
    if isinstance(value, int):
        return f"I{value}"
    if isinstance(value, list):
        return "[" + "".join(_value_shape(v) + "," for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + "".join(f"{_value_shape(k)}={_value_shape(v)}," for k, v in value.items()) + "}"
        )
    return f"S{value}"


def test_containers_convert_to_their_common_schema_as_kafka(tmp_path: Path) -> None:
    if shutil.which("java") is None or shutil.which("javac") is None:
        pytest.skip("no JDK (java and javac) to run Kafka's Values")
    if not all(jar.exists() for jar in _JARS):
        pytest.skip("Kafka 4.1.1's connect-api, kafka-clients and slf4j-api jars not in ~/.m2")
    classpath = ":".join(map(str, _JARS))
    (tmp_path / "ParseShapes.java").write_text(_SHAPES_PROGRAM)
    subprocess.run(
        ["javac", "-cp", classpath, "-d", str(tmp_path), str(tmp_path / "ParseShapes.java")],
        check=True,
        capture_output=True,
        timeout=240,
    )
    rng = random.Random(43)
    texts = [_container(rng) for _ in range(3000)]
    done = subprocess.run(
        ["java", "-Duser.timezone=UTC", "-cp", f"{classpath}:{tmp_path}", "ParseShapes"],
        input="".join(t + "\n" for t in texts),
        capture_output=True,
        text=True,
        check=True,
        timeout=240,
    )
    java = done.stdout.splitlines()
    assert len(java) == len(texts)
    differing = []
    for text, expected in zip(texts, java, strict=True):
        parsed = Values.parse_string(text)
        got = f"{_schema_shape(parsed.schema)} {_value_shape(parsed.value)}"
        if got != expected and not _beyond_python_dates(expected):
            differing.append(f"{text!r}: java {expected!r}, kconnect {got!r}")
    assert differing == [], "\n".join(differing)


# The instants Python's datetime holds (years 1 to 9999); a java.util.Date reaches further,
# and kconnect keeps such a text as a STRING (-7.2515E7 as a Date is 196,000 years BC).
_PYTHON_DATES = range(-62_135_596_800_000, 253_402_300_800_000)


def _beyond_python_dates(shape: str) -> bool:
    return any(int(ms) not in _PYTHON_DATES for ms in re.findall(r"D(-?[0-9]+)", shape))
