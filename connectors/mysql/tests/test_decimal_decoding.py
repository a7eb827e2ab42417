"""DECIMAL binlog values, against the MySQL manual's worked example of the storage format."""

from __future__ import annotations

import decimal
from types import SimpleNamespace

import pytest
from kconnect_connector_mysql._decoder import NEWDECIMAL, _decimal_reader, build_decoder

# On both binlog decoders (compiled and generated Python): see conftest.
pytestmark = pytest.mark.usefixtures("decoder_path")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # "Precision Math: DECIMAL Data Type Characteristics": DECIMAL(14,4) 1234567890.1234 is
        # stored as 81 0D FB 38 D2 04 D2, and -1234567890.1234 as 7E F2 04 C7 2D FB 2D.
        (bytes.fromhex("810DFB38D204D2"), decimal.Decimal("1234567890.1234")),
        (bytes.fromhex("7EF204C72DFB2D"), decimal.Decimal("-1234567890.1234")),
    ],
)
def test_decimal_decoder_reads_the_manuals_example(raw: bytes, expected: decimal.Decimal) -> None:
    wire = SimpleNamespace(type=NEWDECIMAL, precision=14, decimals=4)
    semantic = SimpleNamespace(unsigned=False, data_type="decimal")
    decode = build_decoder([wire], [semantic], [0], [None])
    data = b"\x00" + raw  # the row's null bitmap, then the value
    ((value,),) = decode(data, 0, len(data))
    assert value.as_tuple() == expected.as_tuple()  # digits and exponent, not just equal
    # The reference reader, which both decoders follow, agrees.
    size, read = _decimal_reader(14, 4)
    assert size == len(raw) and read(raw).as_tuple() == expected.as_tuple()
