"""Doubles are written exactly as a JDK 19+ ``Double.toString`` writes them, asked of Java.

kconnect writes JDK 19's digits (the shortest that read back, at least two, the closest
two when one would do); JDK 17, which the differential suite runs Kafka on, sometimes
writes more (``compat/intended-differences.toml``, jdk17-float-digits). A small Java
program prints ``Double.toString`` for tens of thousands of doubles (random bit patterns,
every magnitude, the subnormals, powers of ten and their neighbours); the schema path,
the schemaless path and the compiled writer must write the same text. Skipped when no
JDK 19 or later is installed.
"""

from __future__ import annotations

import glob
import os
import random
import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kconnect_converter_json import JsonConverter
from kconnect_sdk import SchemaBuilder
from kconnect_speedups import _json as compiled

_PROGRAM = """
import java.io.*;

public class DoubleText {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            out.append(Double.toString(Double.longBitsToDouble(Long.parseUnsignedLong(line, 16))));
            out.append('\\n');
        }
        System.out.print(out);
    }
}
"""


def _major(java: str) -> int:
    try:
        done = subprocess.run(
            [java, "-version"], check=False, capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return 0
    found = re.search(r'version "(\d+)', done.stderr)
    return int(found.group(1)) if found else 0


def _java19() -> str | None:
    """A ``java`` of JDK 19 or later: JAVA_HOME's, the one on PATH, or one in /usr/lib/jvm."""
    home = os.environ.get("JAVA_HOME")
    candidates = [os.path.join(home, "bin", "java")] if home else []
    candidates += [shutil.which("java") or ""]
    candidates += sorted(glob.glob("/usr/lib/jvm/*/bin/java"), reverse=True)
    return next((c for c in candidates if c and os.path.exists(c) and _major(c) >= 19), None)


def _doubles() -> list[float]:
    rng = random.Random(4511638)
    bits = [rng.getrandbits(64) for _ in range(20000)]
    bits += range(1, 2000)  # the smallest subnormals, one or two digits
    bits += (rng.getrandbits(52) >> rng.randrange(52) for _ in range(3000))  # subnormals
    bits += (0x0010000000000000 + d for d in range(-50, 50))  # around the smallest normal
    values = [struct.unpack("<d", struct.pack("<Q", b))[0] for b in bits]
    for e in range(-325, 309):
        p = float(f"1e{e}")
        values += [p, p * 2, p * 5, p * 9.5]
        values += [
            struct.unpack(
                "<d", struct.pack("<q", struct.unpack("<q", struct.pack("<d", p))[0] + d)
            )[0]
            for d in (-1, 1)
        ]
    values += [rng.uniform(-1e8, 1e8) for _ in range(3000)]
    values += [rng.uniform(-1e-2, 1e-2) for _ in range(3000)]
    values += [rng.randrange(-(10**9), 10**9) / 1000 for _ in range(3000)]
    values += [1e-3, 9.999999999999998e-4, 1e7, 9999999.999999998, 1e23, 2.0**63]
    return [v for v in values if v == v and abs(v) != float("inf")]


@pytest.fixture(scope="module")
def java_texts(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[float], list[bytes]]:
    java = _java19()
    if java is None:
        pytest.skip("no JDK 19 or later (its Double.toString is the oracle)")
    folder: Path = tmp_path_factory.mktemp("java-doubles")
    (folder / "DoubleText.java").write_text(_PROGRAM)
    values = _doubles()
    stdin = "".join(f"{struct.unpack('<Q', struct.pack('<d', v))[0]:x}\n" for v in values)
    done = subprocess.run(
        [java, str(folder / "DoubleText.java")],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=240,
    )
    texts = [line.encode() for line in done.stdout.splitlines()]
    assert len(texts) == len(values)
    return values, texts


def _mismatches(values: list[float], expected: list[bytes], got: list[Any]) -> list[str]:
    assert len(got) == len(expected)
    return [
        f"{v!r}: java {e!r}, kconnect {g!r}"
        for v, e, g in zip(values, expected, got, strict=True)
        if e != g
    ][:20]


def test_schema_path_writes_java_doubles(java_texts: tuple[list[float], list[bytes]]) -> None:
    values, expected = java_texts
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, False)
    schema = SchemaBuilder.array(SchemaBuilder.float64().build()).build()
    written = converter.from_connect_data("t", schema, values)
    assert written is not None
    assert _mismatches(values, expected, written[1:-1].split(b",")) == []


def test_schemaless_path_writes_java_doubles(java_texts: tuple[list[float], list[bytes]]) -> None:
    values, expected = java_texts
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, False)
    written = converter.from_connect_data("t", None, values)
    assert written is not None
    assert _mismatches(values, expected, written[1:-1].split(b",")) == []
    one_by_one = converter.from_connect_batch([("t", None, v) for v in values[:5000]])
    assert _mismatches(values[:5000], expected[:5000], one_by_one) == []


def test_compiled_writer_writes_java_doubles(java_texts: tuple[list[float], list[bytes]]) -> None:
    values, expected = java_texts
    assert _mismatches(values, expected, [compiled.format_double(v) for v in values]) == []
