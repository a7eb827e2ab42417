"""kconnect_speedups._mysql on its own: plans it refuses, rows read from hand-written bytes,
bounds; TextRows' columns and arguments it refuses, its rows and its references. (The MySQL
connector's tests run on this module and on its generated Python, and compare the two on
hand-assembled and real binlog rows and result sets.)"""

from __future__ import annotations

import decimal
import gc
import sys
import weakref
from typing import Any

import pytest
from kconnect_speedups import _mysql as m


def column(kind: int, size: int = 0, param: int = 0, mode: int = 0, **kw: Any) -> tuple[Any, ...]:
    return (
        kind,
        size,
        param,
        mode,
        kw.get("codec"),
        kw.get("table"),
        kw.get("extra"),
        kw.get("slot", 0),
        kw.get("convert"),
        kw.get("name", "c"),
    )


def decoder(*columns: tuple[Any, ...], width: int | None = None) -> m.RowDecoder:
    return m.RowDecoder(
        tuple(columns),
        sum(1 for c in columns if c[7] >= 0) if width is None else width,
        decimal.Decimal,
        "table db.t",
    )


def test_rows_in_slot_order_converted_with_skipped_columns() -> None:
    dec = decoder(
        column(m.INT, 4, 1, slot=1, name="id"),
        column(m.STRING, 1, codec="utf-8", slot=0, name="name", convert=repr),
        column(m.DECIMAL, 5, 10, 2, extra=str, slot=-1, name="price"),  # read past, not made
        column(m.INT, 8, 0, slot=2, name="big"),
    )
    price = (0x80000005).to_bytes(4, "big") + b"\x00"
    row = b"\x00" + (-7).to_bytes(4, "little", signed=True) + b"\x03h\xc3\xa9" + price
    row += (2**64 - 1).to_bytes(8, "little")
    nulls = b"\x0b" + price  # id, name and big NULL: only the price's bytes follow
    data = row + nulls
    # Converters see NULLs too (None), as the generated Python calls them.
    assert dec(data, 0, len(data)) == [["'hé'", -7, 2**64 - 1], ["None", None, None]]
    assert dec(data, len(row), len(data)) == [["None", None, None]]


def test_decimal_text_keeps_the_scale() -> None:
    dec = decoder(column(m.DECIMAL, 5, 10, 2, extra=lambda raw: "fallback"))
    # DECIMAL(10,2): 8 integral digits (4 bytes), 2 fraction digits (1 byte); sign bit set.
    five = (0x80000005).to_bytes(4, "big") + b"\x00"
    minus_zero = bytes(~b & 0xFF for b in (0x80000000).to_bytes(4, "big") + b"\x00")
    corrupt = (0x80000005).to_bytes(4, "big") + b"\xff"  # 255 is no 2-digit group
    data = b"\x00" + five + b"\x00" + minus_zero + b"\x00" + corrupt
    values = [row[0] for row in dec(data, 0, len(data))]
    assert values[0].as_tuple() == decimal.Decimal("5.00").as_tuple()
    assert values[1].as_tuple() == decimal.Decimal("-0.00").as_tuple()
    assert values[2] == "fallback"  # the caller's reader decides


def test_reads_stop_at_the_end_given() -> None:
    dec = decoder(column(m.STRING, 2, codec=None, name="blob"))
    data = b"\x00" + (5).to_bytes(2, "little") + b"abcde" + b"trailing"
    assert dec(data, 0, 8) == [[b"abcde"]]
    with pytest.raises(ValueError, match=r"column 'blob' \(#0\) needs 7 bytes at byte 1"):
        dec(data, 0, 7)
    with pytest.raises(ValueError, match=r"column 'blob' .* needs 2 bytes at byte 9"):
        dec(data, 0, 9)  # "t" read as a null bitmap, then no room for the length
    with pytest.raises(ValueError, match=r"null bitmap needs 1 bytes at byte 8, .* end at byte 8"):
        dec(data[:8], 0, 9)  # the range runs past the bytes
    with pytest.raises(ValueError, match="truncated"):
        dec(data[:6], 0, 8)
    with pytest.raises(TypeError, match="bytes"):
        dec(memoryview(data), 0, 8)  # type: ignore[arg-type]  # the wrong type on purpose


@pytest.mark.parametrize(
    ("columns", "width", "error"),
    [
        ((column(99),), 1, "unknown kind"),
        ((column(m.INT, 5),), 1, "integer size"),
        ((column(m.INT, 4), column(m.INT, 4)), 1, "slot already taken"),
        ((column(m.INT, 4, slot=-1),), 1, "no column fills slot 0"),
        ((column(m.INT, 4, slot=3),), 1, "slot out of range"),
        ((column(m.DECIMAL, 4, 10, 2, extra=str),), 1, "does not match"),
        ((column(m.DECIMAL, 5, 10, 2),), 1, "fallback reader"),
        ((column(m.ENUM, 1, extra=["a"]),), 1, "labels as a tuple"),
        ((column(m.STRING, 1, table="abc"),), 1, "256 characters"),
        ((column(m.DATETIME2, 5, 7),), 1, "fsp"),
        ((column(m.INT, 4),), 2, "width"),
    ],
)
def test_bad_plans_are_refused(columns: tuple[Any, ...], width: int, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        m.RowDecoder(columns, width, decimal.Decimal, "table db.t")


# --- TextRows: the rows of a text-protocol result set ------------------------------------


def text_packet(seq: int, *fields: bytes | None) -> bytes:
    payload = b"".join(b"\xfb" if f is None else bytes([len(f)]) + f for f in fields)
    return len(payload).to_bytes(3, "little") + bytes([seq]) + payload


def test_text_rows_read_packets_into_converted_values() -> None:
    rows = m.TextRows(
        [
            ("ascii", int),
            ("utf8", None),
            ("ascii", float),
            (None, None),
            ("ascii", decimal.Decimal),
        ],
        [None, lambda v: v and v.upper(), None, None, lambda v: ("then", v)],
    )
    data = text_packet(7, b"-42", "é".encode(), b"2.5", b"\x00", b"1.10")
    data += text_packet(8, None, None, None, None, None)
    data += b"\x05\x00\x00\x09\xfe\x00\x00\x02\x00"  # EOF
    got: list[Any] = []
    assert rows.read_many(data, 0, 10, 7, got.append) == (len(data) - 9, 9, m.STOP_SPECIAL)
    assert got[0] == [-42, "É", 2.5, b"\x00", ("then", decimal.Decimal("1.10"))]
    assert got[1][4] == ("then", None)
    upper = m.TextRows([("utf8", None)], [str.upper])
    with pytest.raises(TypeError, match=r"'upper' .* 'NoneType'"):  # then sees NULLs too
        upper.read_many(text_packet(0, None), 0, 1, 0, got.append)
    got.clear()
    assert rows.read_many(data, 0, 1, 7, got.append) == (len(data) - 18, 8, 0)
    assert rows.read_many(data, 0, 1, 6, got.append) == (0, 6, m.STOP_BAD_SEQUENCE)
    assert rows.read_many(data, 3, 0, 6, got.append) == (3, 6, 0)
    assert rows.read_many(data, len(data) + 5, 1, 6, got.append) == (len(data) + 5, 6, 0)
    assert rows.read_many(data[:10], 0, 1, 7, got.append) == (0, 7, 0)  # incomplete
    long = b"\xff\xff\xff\x00" + b"\x00" * 0xFFFFFF
    assert rows.read_many(long, 0, 1, 0, got.append) == (0, 0, m.STOP_LONG)
    assert len(got) == 1
    assert rows.read_one(data[4:22]) == got[0]
    assert repr(rows) == "<TextRows: 5 columns>"


@pytest.mark.parametrize(
    ("columns", "then", "error", "match"),
    [
        (5, [], TypeError, "sequence of"),
        ([("ascii", int)], 5, TypeError, "then must be a sequence"),
        ([("ascii", int)], [], ValueError, "1 columns but 0 then"),
        ([("ascii",)], [None], TypeError, r"column #0 must be an \(encoding, converter\) pair"),
        (["ab"], [None], TypeError, "converter must be callable or None, not str"),
        ([5], [None], TypeError, "pair"),
        ([(b"ascii", int)], [None], TypeError, "encoding must be a str or None, not bytes"),
        ([("asc\x00ii", int)], [None], ValueError, "holds a NUL"),
        ([("ascii", None), ("ascii", 5)], [None, None], TypeError, "column #1: converter"),
        ([("ascii", int)], ["upper"], TypeError, "then #0 must be callable"),
    ],
)
def test_text_rows_refuse_what_is_not_columns(
    columns: Any, then: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        m.TextRows(columns, then)


def test_text_rows_refuse_bad_arguments() -> None:
    rows = m.TextRows([("ascii", int)], [None])
    data = text_packet(0, b"1")
    out: list[Any] = []
    bad: list[tuple[tuple[Any, ...], type[Exception], str]] = [
        ((data, 0, 1, 0), TypeError, r"takes \(d, p, n, seq, append\), 4 arguments given"),
        ((bytearray(data), 0, 1, 0, out.append), TypeError, "bytes, not bytearray"),
        ((memoryview(data), 0, 1, 0, out.append), TypeError, "bytes"),
        ((data, "0", 1, 0, out.append), TypeError, "integer"),
        ((data, 0, 1.0, 0, out.append), TypeError, "integer"),
        ((data, -1, 1, 0, out.append), ValueError, "p=-1"),
        ((data, 0, -1, 0, out.append), ValueError, "n=-1"),
        ((data, 0, 1, 256, out.append), ValueError, "seq=256"),
        ((data, 0, 1, -1, out.append), ValueError, "seq 0 to 255"),
        ((data, 0, 1, 0, None), TypeError, "append must be callable"),
        ((data, 2**70, 1, 0, out.append), OverflowError, "too large"),
    ]
    for args, error, match in bad:
        with pytest.raises(error, match=match):
            rows.read_many(*args)
    assert out == []
    with pytest.raises(TypeError, match="read_one: d must be bytes, not str"):
        rows.read_one("\x011")  # type: ignore[arg-type]  # the wrong type on purpose
    with pytest.raises(TypeError):
        rows.read_one()  # type: ignore[call-arg]  # no argument on purpose
    with pytest.raises(TypeError):
        m.TextRows([("ascii", int)])  # type: ignore[call-arg]  # no then on purpose


def test_text_rows_fields_end_inside_their_packet() -> None:
    rows = m.TextRows([("utf8", None), ("utf8", None)], [None, None])
    data = text_packet(0, b"ab") + text_packet(1, b"cd", b"ef")
    out: list[Any] = []
    with pytest.raises(ValueError, match=r"column #1's field \(1 bytes from byte 7\) runs past"):
        rows.read_many(data, 0, 2, 0, out.append)
    assert out == []
    with pytest.raises(ValueError, match=r"column #0's value \(250 bytes from byte 1\)"):
        rows.read_one(b"\xfa" + b"x" * 249)


def test_text_rows_hold_their_references_and_release_them() -> None:
    class Then:
        def __call__(self, v: Any) -> Any:
            return v

    convert = decimal.Decimal
    then = Then()
    before = sys.getrefcount(convert), sys.getrefcount(then)
    rows = m.TextRows([("ascii", convert), ("ascii", int)], [then, then])
    data = b"".join(text_packet(i, b"1.5", str(2**40 + i).encode()) for i in range(50))
    out: list[Any] = []
    for _ in range(20):
        out.clear()
        assert rows.read_many(data, 0, 100, 0, out.append)[0] == len(data)
    value = out[-1][1]
    assert sys.getrefcount(value) == 3  # the row's, value's and the argument's
    with pytest.raises(ValueError, match="malformed"):
        rows.read_many(data + b"\x06\x00\x00\x32\x031.5\x0512", 0, 100, 0, out.append)
    del rows
    assert (sys.getrefcount(convert), sys.getrefcount(then)) == before
    # A cycle through a then (the reader held by its own converter) is collected.
    then.reader = m.TextRows([("ascii", None)], [then])  # type: ignore[attr-defined]
    gone = weakref.ref(then)
    del then
    gc.collect()
    assert gone() is None
