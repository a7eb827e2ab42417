"""The compiled snapshot row reader (kconnect-speedups' TextRows) against the generated Python one.

The same row packets of a text-protocol result set, hand-assembled and read from a real
MariaDB, must give identical results on both paths: the same rows (the same classes, float
bits, Decimal exponents), the same ``(p, seq, stopped)``, the same exception (class and
message) with the same rows appended before it. The one intended difference: a field that
runs past the end of its packet is a ValueError on the compiled path, where the generated
code reads on into the bytes that follow.
"""

from __future__ import annotations

import decimal
import functools
import json
import os
import random
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pymysql
import pymysql.cursors
import pytest
from kconnect_connector_mysql import _resultset, _snapshot_rows
from kconnect_connector_mysql._resultset import UnbufferedRows
from kconnect_speedups import _mysql as compiled

from .conftest import Db

Columns = Sequence[tuple[str | None, Callable[[Any], Any] | None]]
Then = Sequence[Callable[[Any], Any] | None]

# --- the text protocol, written out ----------------------------------------------------------


def field(value: bytes | None) -> bytes:
    """A length-coded string: its length in 1, 3 (0xFC), 4 (0xFD) or 9 (0xFE) bytes; 0xFB NULL."""
    if value is None:
        return b"\xfb"
    n = len(value)
    if n < 251:
        return bytes([n]) + value
    if n < 1 << 16:
        return b"\xfc" + n.to_bytes(2, "little") + value
    if n < 1 << 24:
        return b"\xfd" + n.to_bytes(3, "little") + value
    return b"\xfe" + n.to_bytes(8, "little") + value


def packet(seq: int, payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "little") + bytes([seq & 255]) + payload


def stream(rows: Sequence[Sequence[bytes | None]], seq: int = 0) -> bytes:
    """Row packets numbered from ``seq``."""
    return b"".join(packet(seq + i, b"".join(map(field, row))) for i, row in enumerate(rows))


EOF_PACKET = b"\xfe\x00\x00\x02\x00"  # no warnings, autocommit status
ERROR_PACKET = b"\xff\x15\x04#42000" + b"Query execution was interrupted"

# --- the comparison -----------------------------------------------------------------------------


def identity(value: Any) -> Any:
    """What must match between the paths: the class and the repr (Decimal exponents, float
    bits, -0.0, nan), recursively through lists and tuples."""
    if isinstance(value, list | tuple):
        return (type(value), [identity(v) for v in value])
    if isinstance(value, decimal.Decimal):
        return (decimal.Decimal, value.as_tuple())
    if isinstance(value, float):
        return (float, struct.pack("<d", value))
    return (type(value), repr(value))


def readers(columns: Columns, then: Then) -> dict[str, Any]:
    """The generated Python ``(read_many, read_one)`` and the compiled reader's methods."""
    native = compiled.TextRows(columns, then)
    return {
        "python": _resultset._generate(columns, then),
        "compiled": (native.read_many, native.read_one),
    }


def outcome(call: Callable[[], Any], rows: list[Any]) -> tuple[Any, ...]:
    """The rows appended, then ``"returned"`` and the return value, or ``"raised"`` and the
    exception's class and message."""
    try:
        result = call()
    except Exception as exc:  # the exception is what is compared
        return (rows, "raised", type(exc), str(exc))
    return (rows, "returned", result)


def many(
    columns: Columns, then: Then, d: bytes, p: int = 0, n: int = 1000, seq: int = 0
) -> tuple[Any, ...]:
    """``read_many`` on both paths; their outcomes, asserted identical (the Python one returned)."""
    got = {}
    for path, (read_many, _) in readers(columns, then).items():
        rows: list[Any] = []
        got[path] = outcome(functools.partial(read_many, d, p, n, seq, rows.append), rows)
    assert identity(got["compiled"]) == identity(got["python"])
    return got["python"]


def one(columns: Columns, then: Then, d: bytes) -> tuple[Any, ...]:
    got = {}
    for path, (_, read_one) in readers(columns, then).items():
        got[path] = outcome(functools.partial(read_one, d), [])
    assert identity(got["compiled"]) == identity(got["python"])
    return got["python"]


def values(column: tuple[str | None, Any], texts: Sequence[bytes | None]) -> list[Any]:
    """Each text alone as a one-column row on both paths: the values, or the exceptions."""
    out = []
    for text in texts:
        result = many([column], [None], stream([[text]]))
        out.append(result[0][0][0] if result[1] == "returned" else result[2:])
    return out


# pymysql's (encoding, converter) for the columns a snapshot reads (utf8mb4 connection).
INT = ("ascii", int)
FLOAT = ("ascii", float)
DECIMAL = ("ascii", decimal.Decimal)
TEXT = ("utf8", None)
BINARY: tuple[str | None, Any] = (None, None)
DATE_TEXT = ("ascii", None)  # DATE / DATETIME: the text, the snapshot's then converts it


def test_stop_codes_agree() -> None:
    assert (compiled.STOP_SPECIAL, compiled.STOP_LONG, compiled.STOP_BAD_SEQUENCE) == (
        _resultset._SPECIAL,
        _resultset._LONG,
        _resultset._BAD_SEQUENCE,
    )
    assert len({_resultset._SPECIAL, _resultset._LONG, _resultset._BAD_SEQUENCE, 0}) == 4


def test_rows_of_every_conversion() -> None:
    columns = [INT, TEXT, INT, DECIMAL, FLOAT, INT, DATE_TEXT, DATE_TEXT, INT, TEXT, BINARY]
    columns += [(None, int), ("utf8", json.loads), (None, bytes.hex), ("cp1252", None)]
    then: list[Any] = [None] * len(columns)
    then[6] = functools.partial(compiled.text_days, _snapshot_rows.text_days)
    then[7] = functools.partial(compiled.text_millis, _snapshot_rows.text_millis)
    then[9] = lambda v: ("then", v)  # called for None too
    rows: list[list[bytes | None]] = [
        [b"1", "name-1 é".encode(), b"-7", b"1234.50", b"0.5", b"1", b"2024-01-02"],
        [b"9223372036854775807", b"", b"-2147483648", b"-0.00", b"-0", b"0", b"0000-00-00"],
        [b"18446744073709551615", None, b"00042", b"1E+3", b"1e308", b"-1", b"9999-12-31"],
    ]
    rows[0] += [b"2024-01-01 00:00:01.123", b"7", b"note", b"\x00\xff", b"42", b'{"k": [1]}']
    rows[0] += [b"\x01\x02", "café €".encode("cp1252")]
    rows[1] += [b"1969-12-31 23:59:59.999", None, None, b"", b"-3", b"null", b"", b""]
    rows[2] += [b"0000-00-00 00:00:00", b"-9223372036854775808", b"x" * 250, b"y" * 251]
    rows[2] += [b"18446744073709551616", b'"\\u00e9"', b"z" * 252, None]
    result = many(columns, then, stream(rows))
    assert result[1:] == ("returned", (len(stream(rows)), 3, 0))
    got = result[0]
    assert len(got) == 3 and all(type(row) is list and len(row) == len(columns) for row in got)
    # Values written out, so that both paths cannot agree on something wrong.
    assert got[0][:8] == [
        1,
        "name-1 é",
        -7,
        decimal.Decimal("1234.50"),
        0.5,
        1,
        19724,
        1704067201123,
    ]
    assert got[0][8:] == [7, ("then", "note"), b"\x00\xff", 42, {"k": [1]}, "0102", "café €"]
    assert got[1][6:10] == [None, -1, None, ("then", None)]
    assert got[2][0] == 2**64 - 1 and got[2][11] == 2**64 and got[2][12] == "é"


def test_long_fields_take_two_three_and_eight_byte_lengths() -> None:
    texts = [b"a" * n for n in (0, 1, 250, 251, 252, 65535, 65536, 70000)]
    data = stream([[t, t] for t in texts])
    assert field(texts[2])[:1] == b"\xfa" and field(texts[3])[:3] == b"\xfc\xfb\x00"
    assert field(texts[6])[:4] == b"\xfd\x00\x00\x01"  # 65,536 bytes: a 3-byte length
    result = many([TEXT, BINARY], [None, None], data)
    assert result[1] == "returned" and result[0] == [[t.decode(), t] for t in texts]
    # An 8-byte length (0xFE, a packet of 9 bytes or more: not an EOF packet) and 0xFF,
    # which the generated reader also reads as an 8-byte length after the first field.
    eight = b"\xfe" + (3).to_bytes(8, "little") + b"abc"
    ff = b"\xff" + (2).to_bytes(8, "little") + b"de"
    result = many([TEXT, TEXT], [None, None], packet(0, eight + ff) + packet(1, b"\x01x" + ff))
    assert result[0] == [["abc", "de"], ["x", "de"]]
    assert result[1:] == ("returned", (len(eight + ff) + len(b"\x01x" + ff) + 8, 2, 0))


@pytest.mark.parametrize("converter_encoding", ["ascii", None])
def test_int_texts(converter_encoding: str | None) -> None:
    texts: list[bytes | None] = [
        None,
        b"0",
        b"-0",
        b"7",
        b"-7",
        b"00042",
        b"9223372036854775807",
        b"9223372036854775808",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"18446744073709551615",
        b"18446744073709551616",
        b"99999999999999999999",
        b"-99999999999999999999",
        b"123456789012345678901234567890",
        b"0" * 25 + b"1",
        b"1" * 5000,  # past int's digit limit: its ValueError
    ]
    odd = [b" 5", b"5 ", b"+5", b"1_0", b"\t-3\n", b"", b"-", b"--5", b"5-", b"0x10", b"1.0"]
    odd += [b"\xd9\xa3", b"\xef\xbc\x95", b"1e3", b"5\x00", b"_1"]
    got = values((converter_encoding, int), texts + odd)
    assert got[: len(texts)] == [None if t is None else int(t) for t in texts[:-1]] + [
        (ValueError, got[len(texts) - 1][1])
    ]
    assert "digits" in got[len(texts) - 1][1]
    assert got[len(texts) : len(texts) + 5] == [5, 5, 5, 10, -3]  # int()'s own reading
    assert all(v[0] is ValueError for v in got[len(texts) + 5 :])


def test_float_texts() -> None:
    texts: list[bytes | None] = [
        None,
        b"0",
        b"-0",
        b"1.5",
        b"-2.25",
        b"1e308",
        b"1e309",
        b"-1e309",
        b"4.9e-324",
        b"1e-400",
        b"1.7976931348623157e308",
        b"2.2250738585072014e-308",
        b"0.1",
        b"32.989999999999995",
        b".5",
        b"5.",
        b"+.5E-3",
        b"1" * 70,
        b"0." + b"3" * 80,
        b"-1",
    ]
    odd = [b"inf", b"-inf", b"nan", b"Infinity", b"-NaN", b" 1.5", b"1.5\n", b"1_0.5"]
    bad = [b"", b"-", b".", b"e5", b"1e", b"1e+", b"1.5.", b"++1", b"0x1p3", b"1,5", b"\xd9\xa1"]
    bad += [b"1.5\x00", b"1__0", b"nan1"]
    got = values(FLOAT, texts + odd + bad)
    expected = [None if t is None else float(t) for t in texts + odd]
    assert [identity(v) for v in got[: len(expected)]] == [identity(v) for v in expected]
    assert struct.pack("<d", got[2]) == struct.pack("<d", -0.0)
    assert got[6] == float("inf") and got[5] == 1e308
    assert all(v[0] is ValueError and "could not convert" in v[1] for v in got[len(expected) :])


def test_text_decoding_and_its_errors() -> None:
    assert values(TEXT, [b"", "é🚀".encode(), b"\xff", b"ab\xc3", b"\xed\xa0\x80"])[:2] == [
        "",
        "é🚀",
    ]
    for column, texts in [
        (TEXT, [b"\xffx", b"abc\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]),
        (("utf-8", None), [b"\x80", b"ok"]),
        (("ascii", None), [b"\x80", b"plain"]),
        (("latin1", None), [b"\xe9\xff"]),
        (("cp1252", None), [b"\x81", b"\x80"]),
        (("koi8_r", None), ["привет".encode("koi8_r")]),
        (("utf16", None), [b"\xff\xfea\x00", b"a"]),
        (("no-such-codec", None), [b"", b"x"]),  # "" without a lookup, then LookupError
        (("ascii", decimal.Decimal), [b"1.5", b"\xb5", b"x"]),
        (("utf8", json.loads), [b'{"a": 1}', b"{", b"\xff"]),
    ]:
        got = values(column, texts)
        assert len(got) == len(texts)
    got = values(TEXT, [b"\xffx"])
    assert got == [(UnicodeDecodeError, got[0][1])] and "'utf-8' codec" in got[0][1]
    assert values(("no-such-codec", None), [b"", b"x"])[0] == ""
    assert values(("no-such-codec", None), [b"x"])[0][0] is LookupError


def test_random_rows() -> None:
    """Seeded random texts, tricky ones mixed in, in every kind of column: each packet read
    alone (an exception stops a read) on both paths."""
    rnd = random.Random(2024)
    columns = [INT, FLOAT, TEXT, BINARY, DECIMAL, ("ascii", None), (None, int), ("cp1252", None)]
    then: list[Any] = [None, None, None, len, None, None, None, None]
    tricky = [b"", b"-", b"0", b"-0", b" 1", b"1_000", b"+2", b"1e5", b"nan", b"\xff", b"\xc3\xa9"]
    tricky += [b"9" * 19, b"9" * 20, b"-" + b"9" * 19, b"18446744073709551615", b"1.5e-7", b"."]
    alphabet = [b"0", b"9", b"-", b"+", b".", b"e", b"E", b" ", b"_", b"x", b"\x00", "é".encode()]

    def typical(k: int) -> bytes:
        if k in (0, 6):  # an integer, of up to 66 bits
            return str(rnd.randint(-(2 ** rnd.randint(1, 66)), 2 ** rnd.randint(1, 66))).encode()
        if k == 1:
            x = rnd.choice([rnd.uniform(-1e6, 1e6), rnd.random() * 10.0 ** rnd.randint(-320, 308)])
            return repr(x).encode()
        if k == 4:
            return f"{rnd.randint(-(10**12), 10**12)}.{rnd.randint(0, 99):02d}".encode()
        size = rnd.choice([0, 1, 2, 3, 5, 8, 25, 250, 251, 300])
        return b"".join(rnd.choice(alphabet) for _ in range(size))

    rows = []
    for _ in range(1500):
        row: list[bytes | None] = []
        for k in range(len(columns)):
            roll = rnd.random()
            row.append(None if roll < 0.1 else rnd.choice(tricky) if roll < 0.14 else typical(k))
        rows.append(row)
    data = stream(rows)
    p, raised = 0, 0
    for i in range(len(rows)):
        result = many(columns, then, data, p=p, n=1, seq=i & 255)
        raised += result[1] == "raised"
        p += 4 + int.from_bytes(data[p : p + 3], "little")
    assert 100 < raised < 1000  # both values and errors were compared


def test_an_exception_midway_keeps_the_rows_before_it() -> None:
    calls: dict[str, list[Any]] = {"python": [], "compiled": []}
    rows = [[str(i).encode(), f"r{i}".encode()] for i in range(6)]
    data = stream(rows)
    got = {}
    for path in ("python", "compiled"):

        def then(v: Any, path: str = path) -> Any:
            calls[path].append(v)
            if v == "r3":
                raise RuntimeError(f"no {v}")
            return v

        read_many = readers([INT, TEXT], [None, then])[path][0]
        out: list[Any] = []
        got[path] = outcome(functools.partial(read_many, data, 0, 100, 0, out.append), out)
    assert identity(got["compiled"]) == identity(got["python"])
    assert got["python"] == ([[0, "r0"], [1, "r1"], [2, "r2"]], "raised", RuntimeError, "no r3")
    assert calls["compiled"] == calls["python"] == ["r0", "r1", "r2", "r3"]
    # An exception of pymysql's converter, and of a then on a NULL.
    assert many([INT, TEXT], [None, None], stream([[b"1", b"a"], [b"x", b"b"]]))[2] is ValueError
    result = many([TEXT], [lambda v: v.upper()], stream([[b"a"], [None]]))
    assert result[0] == [["A"]] and result[2] is AttributeError


def test_n_and_the_sequence_numbers() -> None:
    rows = [[str(i).encode(), None] for i in range(300)]
    data = stream(rows, seq=250)  # numbers wrap at 256
    lengths = [4 + len(field(r[0])) + 1 for r in rows]
    for n in (0, 1, 2, 5, 299, 300, 301):
        result = many([INT, TEXT], [None, None], data, n=n, seq=250)
        done = min(n, 300)
        assert result[0] == [[i, None] for i in range(done)]
        assert result[1:] == ("returned", (sum(lengths[:done]), (250 + done) & 255, 0))
    # From the middle, with the middle's number; a wrong number stops before that packet.
    middle = sum(lengths[:10])
    result = many([INT, TEXT], [None, None], data, p=middle, n=3, seq=4)
    assert result == ([[10, None], [11, None], [12, None]], "returned", (sum(lengths[:13]), 7, 0))
    bad = many([INT, TEXT], [None, None], data, p=middle, n=3, seq=5)
    assert bad == ([], "returned", (middle, 5, _resultset._BAD_SEQUENCE))
    wrong = stream(rows[:3]) + packet(9, b"\x01\x33\xfb") + stream(rows[3:6], seq=4)
    result = many([INT, TEXT], [None, None], wrong)
    assert result[0] == [[0, None], [1, None], [2, None]]
    assert result[2] == (sum(lengths[:3]), 3, _resultset._BAD_SEQUENCE)


def test_every_cut_of_a_buffer() -> None:
    """Rows cut at every byte (an incomplete packet at the end), then an EOF packet."""
    rows: list[list[bytes | None]] = [
        [b"1", b"a", None],
        [b"-2", b"", b"1.5"],
        [None, b"b" * 250, b"-0"],
        [b"4", b"c" * 251, None],
        [b"5", b"d" * 300, b"1e308"],
    ]
    data = stream(rows) + packet(5, EOF_PACKET)
    for cut in range(len(data) + 1):
        for n in (1000, 2):
            result = many([INT, TEXT, FLOAT], [None, repr, None], data[:cut], n=n)
            assert result[1] == "returned"
    assert many([INT, TEXT, FLOAT], [None, None, None], data)[2] == (
        len(data) - 9,
        5,
        _resultset._SPECIAL,
    )
    # A row of 65,536+ bytes (a 3-byte length): cuts around its packet's edges.
    big = stream([[b"1", b"x" * 70000, None], [b"2", b"y", b"2.5"]])
    edges = [*range(0, 16), *range(70000 - 8, 70000 + 24), *range(len(big) - 12, len(big) + 1)]
    for cut in edges:
        assert many([INT, TEXT, FLOAT], [None, len, None], big[:cut])[1] == "returned"


def test_eof_and_error_packets_and_a_long_row() -> None:
    rows = stream([[b"1"], [b"2"]])
    # (0xFE alone: the EOF packet of the protocol before 4.1)
    for end, offset in ((EOF_PACKET, 0), (ERROR_PACKET, 0), (EOF_PACKET, 3), (b"\xfe", 0)):
        data = rows + packet(2, end) + b"\x00" * offset
        result = many([INT], [None], data)
        assert result == ([[1], [2]], "returned", (len(rows), 2, _resultset._SPECIAL))
    # 0xFE with 9 bytes or more is a row (its first field has an 8-byte length).
    row = packet(0, b"\xfe" + (0).to_bytes(8, "little"))
    assert many([TEXT], [None], row)[0] == [[""]]
    # A packet of 0xFFFFFF bytes: the row continues in the next packet (read_one's).
    payload = field(b"z" * (0xFFFFFF + 10)) + field(b"-5")
    assert payload[0] == 0xFE
    prefix = stream([[b"a", b"1"]])
    data = prefix + packet(1, payload[:0xFFFFFF]) + packet(2, payload[0xFFFFFF:])
    assert many([TEXT, INT], [len, None], data[: len(prefix) + 100])[2] == (len(prefix), 1, 0)
    result = many([TEXT, INT], [len, None], data)
    assert result == ([[1, 1]], "returned", (len(prefix), 1, _resultset._LONG))
    assert one([TEXT, INT], [len, None], payload) == ([], "returned", [0xFFFFFF + 10, -5])


def test_fields_past_their_packet_are_a_value_error_on_the_compiled_path() -> None:
    """The intended difference: the generated reader reads past a packet's end (into the
    next packet, or short at the end of the bytes); the compiled one refuses."""
    columns, then = [INT, TEXT, TEXT], [None, None, None]
    python_many, python_one = readers(columns, then)["python"]
    native = compiled.TextRows(columns, then)
    first = stream([[b"7", b"x", b"8"]])
    after = packet(2, b"\x019\x02yz\x010")
    for payload, column, what, offset, packet_end in [
        (b"\x011\x05ab", 1, "value (5 bytes", 7, 9),  # "ab" said to be 5 bytes
        (b"\x011\x02ab", 2, "field (1 bytes", 9, 9),  # no third field
        (b"\x011\xfc\x01", 1, "length (2 bytes", 7, 8),  # a 2-byte length cut after a byte
        (b"", 0, "field (1 bytes", 4, 4),  # an empty packet
    ]:
        data = first + packet(1, payload) + after
        rows: list[Any] = []
        with pytest.raises(ValueError, match="malformed row packet") as info:
            native.read_many(data, 0, 10, 0, rows.append)
        message = str(info.value)
        at, end = len(first) + offset, len(first) + packet_end
        assert f"column #{column}'s {what} from byte {at}) runs past its packet's end " in message
        assert f"at byte {end} (corrupt data from the server" in message
        assert rows == [[7, "x", "8"]]
        python = outcome(functools.partial(python_many, data, 0, 10, 0, rows.clear), [])
        assert "malformed" not in str(python)
    # A row short of a field: the generated reader takes the next packet's header as the
    # field, silently, and goes on.
    rows = []
    data = first + packet(1, b"\x011\x02ab") + after
    assert python_many(data, 0, 10, 0, rows.append) == (len(data), 3, 0)
    assert rows == [[7, "x", "8"], [1, "ab", "\x00\x00\x02\x019\x02y"], [9, "yz", "0"]]
    # read_one: the payload's end is the packet's.
    with pytest.raises(ValueError, match=r"column #2's field \(1 bytes from byte 5\) runs past"):
        native.read_one(b"\x011\x02ab")
    assert python_one(b"\x011\x02ab\x011") == [1, "ab", "1"]
    assert native.read_one(b"\x011\x02ab\x011") == [1, "ab", "1"]
    with pytest.raises(ValueError, match=r"column #1's length \(8 bytes from byte 3\)"):
        native.read_one(b"\x011\xfe\x01\x00\x00\x00\x00\x00\x00")
    with pytest.raises(ValueError, match=r"#1's value \(18446744073709551615 bytes from byte 11"):
        native.read_one(b"\x011\xfe" + b"\xff" * 8 + b"abc")


def test_the_reader_is_chosen_by_speedups(monkeypatch: pytest.MonkeyPatch) -> None:
    class Conn:
        _next_seq_id = 3

    class Result:
        unbuffered_active = True
        converters = [INT, TEXT]

    monkeypatch.setattr(_resultset, "SPEEDUPS", compiled)
    reader = UnbufferedRows(Conn(), Result(), [None, None])
    assert type(reader._read_many.__self__) is compiled.TextRows
    monkeypatch.setattr(_resultset, "SPEEDUPS", None)
    reader = UnbufferedRows(Conn(), Result(), [None, None])
    assert reader._read_many.__name__ == "read_many"
    assert not hasattr(reader._read_many, "__self__")
    # KCONNECT_SPEEDUPS=0 at import: the generated reader.
    code = "from kconnect_connector_mysql import _resultset as r; print(r.SPEEDUPS)"
    for setting, expected in (("0", "None"), ("1", "kconnect_speedups._mysql")):
        env = {**os.environ, "KCONNECT_SPEEDUPS": setting}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert expected in out.stdout


# --- real result sets -----------------------------------------------------------------------------

EVERY_TYPE = """
    id INT NOT NULL PRIMARY KEY,
    c_tinyint TINYINT, c_utinyint TINYINT UNSIGNED, c_bool TINYINT(1),
    c_smallint SMALLINT, c_usmallint SMALLINT UNSIGNED,
    c_mediumint MEDIUMINT, c_umediumint MEDIUMINT UNSIGNED,
    c_int INT, c_uint INT UNSIGNED,
    c_bigint BIGINT, c_ubigint BIGINT UNSIGNED,
    c_float FLOAT, c_double DOUBLE,
    c_decimal DECIMAL(10,3), c_decimal0 DECIMAL(20,0), c_decimal65 DECIMAL(65,30),
    c_bit1 BIT(1), c_bit10 BIT(10), c_bit64 BIT(64),
    c_char CHAR(3), c_varchar VARCHAR(40), c_text TEXT, c_mediumtext MEDIUMTEXT,
    c_latin VARCHAR(20) CHARACTER SET latin1,
    c_binary BINARY(4), c_varbinary VARBINARY(8), c_blob BLOB, c_mediumblob MEDIUMBLOB,
    c_date DATE, c_time TIME, c_time6 TIME(6),
    c_datetime DATETIME, c_datetime3 DATETIME(3), c_datetime6 DATETIME(6),
    c_timestamp TIMESTAMP NULL, c_timestamp3 TIMESTAMP(3) NULL,
    c_year YEAR,
    c_enum ENUM('a','b','c'), c_set SET('x','y','z'),
    c_json JSON,
    c_point POINT, c_geometry GEOMETRY
"""

EVERY_TYPE_ROWS = [
    """1, -5, 255, 1, -300, 65535, -8388608, 16777215, -2147483648, 4294967295,
    -9223372036854775808, 18446744073709551615, 1.5, 2.25,
    -1234567.891, 12345678901234567890,
    -12345678901234567890123456789012345.123456789012345678901234567890,
    b'1', b'1000000001', b'1111111111111111111111111111111111111111111111111111111111111111',
    'abc', 'Zoë 🚀', 'a longer text', REPEAT('é', 40000), 'café €',
    x'01020304', x'0A0B', x'FF00FF', REPEAT(x'FF', 70000),
    '2018-06-20', '-838:59:59', '13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.120', '2018-06-20 13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.120',
    2018, 'b', 'z,x', '{"k": [1, "é"]}',
    ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('LINESTRING(0 0, 1 1)')""",
    "2" + ", NULL" * 42,
    """3, 127, 0, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0,
    -3.4e38, -1.7976931348623157e308, 0, -0.5, 0, b'0', b'0', b'0',
    '', '', '', '', '', x'00000000', x'', x'', x'', '1000-01-01', '00:00:00', '-00:00:00.5',
    '1000-01-01 00:00:00', '9999-12-31 23:59:59.999', '1970-01-01 00:00:00',
    '2000-01-01 00:00:00', '2030-01-01 00:00:00.5', 1901, 'a', '', '[]',
    ST_GeomFromText('POINT(-1.5 1e300)'), ST_GeomFromText('POINT(0 0)')""",
    """4, -128, 1, 0, -32768, 1, -8388608, 1, -1, 1, -1, 1,
    1.17549e-38, 5e-324, 0.001, 1, 0.000000000000000000000000000001, b'1', b'0111111111',
    b'0', 'a b', 'tab\there', 'new\nline', 'quote''s', 'x', x'FFFFFFFF', x'00', x'00', x'00',
    '9999-12-31', '838:59:59', '838:59:59.999999', '2024-02-29 23:59:59',
    '2024-02-29 23:59:59.500', '2024-02-29 23:59:59.000001', NULL, NULL, 2155, 'c', 'x,y,z',
    '{"deep": {"a": [true, false, null, 1.5e300]}}', NULL, NULL""",
]


def _read_all(
    db: Db, server: Any, query: str, then: Any, path: Any, fetch: int, **connect: Any
) -> list[list[Any]]:
    conn = server.connect(autocommit=True, database=db.name, charset="utf8mb4", **connect)
    saved = _resultset.SPEEDUPS
    _resultset.SPEEDUPS = path
    try:
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute(query)
            reader = UnbufferedRows(
                conn, cur._result, then(cur._result) if callable(then) else then
            )
            rows: list[list[Any]] = []
            try:
                while batch := reader.fetch(fetch):
                    rows.extend(batch)
            except BaseException:
                reader.abort()  # the socket is mid-result: pymysql must not read on
                raise
        with conn.cursor() as cur:  # the connection is fine after the result set
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
        return rows
    finally:
        _resultset.SPEEDUPS = saved
        conn.close()


def test_real_result_sets_of_every_type(kc_mariadb: Any, mdb: Db) -> None:
    mdb.sql(f"CREATE TABLE t ({EVERY_TYPE})", "SET SESSION sql_mode = ''")
    for row in EVERY_TYPE_ROWS:
        mdb.sql(f"INSERT INTO t VALUES ({row})")
    query = "SELECT * FROM t ORDER BY id"
    # pymysql's own reading (its unbuffered cursor) is what the generated reader gives.
    conn = kc_mariadb.connect(autocommit=True, database=mdb.name, charset="utf8mb4")
    try:
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute(query)
            reference = [list(r) for r in cur.fetchall()]
    finally:
        conn.close()
    width = len(reference[0])

    def text_then(result: Any) -> list[Any]:
        """repr() of each text column's value (None included): a then on some columns."""
        out: list[Any] = []
        for encoding, converter in result.converters:
            out.append(repr if converter is None and encoding == "utf8" else None)
        return out

    for then, fetch in [([None] * width, 1000), ([None] * width, 1), (text_then, 3)]:
        python = _read_all(mdb, kc_mariadb, query, then, None, fetch)
        native = _read_all(mdb, kc_mariadb, query, then, compiled, fetch)
        assert identity(native) == identity(python)
        assert len(python) == len(EVERY_TYPE_ROWS)
        if then != text_then:
            assert identity(python) == identity(reference)
    # The snapshot's own converters (DATE and DATETIME as text, then Debezium's numbers).
    dates = "SELECT c_date, c_datetime, c_datetime3, c_datetime6 FROM t ORDER BY id"
    conv = [functools.partial(compiled.text_days, _snapshot_rows.text_days)]
    conv += [functools.partial(compiled.text_millis, _snapshot_rows.text_millis)] * 2
    conv += [functools.partial(compiled.text_micros, _snapshot_rows.text_micros)]
    kept = {
        k: v
        for k, v in pymysql.converters.conversions.items()
        if k not in (pymysql.constants.FIELD_TYPE.DATE, pymysql.constants.FIELD_TYPE.DATETIME)
    }
    got = [_read_all(mdb, kc_mariadb, dates, conv, path, 2, conv=kept) for path in (None, compiled)]
    assert identity(got[0]) == identity(got[1])
    assert got[0][0] == [17702, 1_529_501_823_000, 1_529_501_823_120, 1_529_501_823_123_456]


def test_real_result_set_across_chunks(kc_mariadb: Any, mdb: Db) -> None:
    """A result set of several 256 KB chunks: fields of every length coding cut anywhere."""
    mdb.sql(
        "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(300) NULL, b MEDIUMTEXT NULL, "
        "d DOUBLE NULL, m DECIMAL(30,10) NULL)"
    )
    rows = [
        (
            i,
            None if i % 11 == 0 else "ä" * (i % 300),
            None if i % 5 else "b" * (i * 997 % 90000),
            None if i % 7 == 0 else i / 3,
            None if i % 4 == 0 else decimal.Decimal(i) / 7,
        )
        for i in range(1, 1501)
    ]
    with mdb.conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s, %s, %s, %s, %s)", rows)
    query = "SELECT * FROM t ORDER BY id"
    then: list[Any] = [None, None, lambda v: None if v is None else len(v), None, None]
    python = _read_all(mdb, kc_mariadb, query, then, None, 97)
    native = _read_all(mdb, kc_mariadb, query, then, compiled, 97)
    assert len(native) == 1500 and identity(native) == identity(python)
    assert native[4] == [5, "ä" * 5, 4985, 5 / 3, decimal.Decimal("0.7142857143")]
