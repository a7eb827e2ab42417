"""kconnect_speedups._mysql on its own: plans it refuses, rows read from hand-written bytes,
bounds. (The MySQL connector's tests run on this module and on its generated Python, and
compare the two on hand-assembled and real binlog rows.)"""

from __future__ import annotations

import decimal
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
