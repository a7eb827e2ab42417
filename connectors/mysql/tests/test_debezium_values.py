"""Values and schemas as Debezium 3.5's MariaDbConnector writes them.

Each case is one the CDC differential (compat/tests/test_cdc.py) found by running Debezium
and this connector on the same MariaDB; the expected values are Debezium's output there.
"""

from __future__ import annotations

import datetime as dt
import struct
from typing import Any

import pytest
from kconnect_connector_mysql._columns import Column, field_schema, value_converter
from kconnect_connector_mysql._config import CONFIG_DEF, TableFilter, _patterns
from kconnect_connector_mysql._events import DEBEZIUM_VERSION

MODES = {
    "decimal_mode": "precise",
    "time_mode": "adaptive_time_microseconds",
    "bigint_mode": "long",
    "binary_mode": "bytes",
}


def _column(data_type: str, **kwargs: Any) -> Column:
    type_name = kwargs.pop("type_name", data_type.upper())
    return Column(name="c", position=1, data_type=data_type, type_name=type_name, **kwargs)


def _convert(column: Column, value: Any, **modes: str) -> Any:
    settings = {**MODES, **modes}
    convert = value_converter(column, field_schema(column, **settings), **settings)
    return value if convert is None else convert(value)


def test_source_version_is_debeziums() -> None:
    assert DEBEZIUM_VERSION == "3.5.0.Final"


@pytest.mark.parametrize("type_name", ["TINYINT", "TINYINT UNSIGNED"])
def test_tinyint_is_int16(type_name: str) -> None:
    assert field_schema(_column("tinyint", type_name=type_name), **MODES).type.value == "int16"


def test_geometry_has_no_extensions_and_srid_0_is_null() -> None:
    column = _column("linestring")
    schema = field_schema(column, **MODES)
    assert (schema.name, schema.version) == ("io.debezium.data.geometry.Geometry", 1)
    assert [f.name for f in schema.fields] == ["wkb", "srid"]
    wkb = bytes.fromhex("010200000002000000" + "00" * 16 + "000000000000f03f000000000000f03f")
    value = _convert(column, b"\0\0\0\0" + wkb)
    assert (value.get("wkb"), value.get("srid")) == (wkb, None)
    assert _convert(column, struct.pack("<I", 4326) + wkb).get("srid") == 4326


def test_binary_is_padded_to_its_length() -> None:
    # The binlog drops BINARY(4)'s trailing zero bytes.
    column = _column("binary", length=4)
    assert _convert(column, b"") == b"\0\0\0\0"
    assert _convert(column, b"\x01", binary_mode="base64") == "AQAAAA=="
    assert _convert(_column("varbinary", length=4), b"\x01") == b"\x01"


def test_hex_is_lower_case() -> None:
    assert _convert(_column("blob"), b"\xde\xad", binary_mode="hex") == "dead"


@pytest.mark.parametrize(
    ("data_type", "value", "expected"),
    [
        ("date", dt.date(2018, 6, 20), "2018-06-20Z"),
        ("datetime", dt.datetime(2018, 6, 20, 13, 37, 3), "2018-06-20T13:37:03Z"),
        ("datetime", dt.datetime(2018, 6, 20, 13, 37, 3, 120000), "2018-06-20T13:37:03.12Z"),
        ("time", dt.timedelta(hours=12, microseconds=500), "12:00:00.0005Z"),
        ("time", dt.timedelta(hours=24), "00:00:00Z"),
        ("time", dt.timedelta(hours=-1), None),
        ("time", dt.timedelta(hours=838), None),
    ],
)
def test_isostring(data_type: str, value: Any, expected: Any) -> None:
    assert _convert(_column(data_type), value, time_mode="isostring") == expected


def test_float_with_scale_is_the_32_bit_value_widened() -> None:
    # FLOAT(7,3) is written as FLOAT64; the snapshot reads "1234.567" as decimal text.
    column = _column("float", length=7, scale=3)
    assert field_schema(column, **MODES).type.value == "float64"
    assert _convert(column, 1234.567) == 1234.5670166015625


def test_temporal_defaults_and_comments_are_in_the_field_schema() -> None:
    date = _column("date", has_default=True, default_expression="'2000-01-01'")
    assert field_schema(date, **MODES).default == 10957
    moment = _column(
        "datetime", length=3, has_default=True, default_expression="'2001-02-03 04:05:06.789'"
    )
    assert field_schema(moment, **MODES).default == 981173106789
    now = _column("timestamp", has_default=True, default_expression="current_timestamp()")
    assert field_schema(now, **MODES).default is None
    commented = _column("int", comment="free text")
    assert field_schema(commented, **MODES).doc == "free text"


def test_mariadb_ssl_modes_are_accepted() -> None:
    for mode in ("disable", "trust", "verify-ca", "verify-full", "disabled"):
        results = CONFIG_DEF.validate({"database.ssl.mode": mode})
        errors = [r.error_messages for r in results if r.name == "database.ssl.mode"]
        assert errors == [[]], mode


def test_snapshot_follows_the_include_list_order() -> None:
    tables = TableFilter(table_include=_patterns(["db.zeta", "db.a.*"]))
    names = sorted(["alpha", "zeta", "apple"], key=lambda n: (tables.snapshot_rank("db", n), n))
    assert names == ["zeta", "alpha", "apple"]


def test_history_gives_tinyint_smallint_and_auto_increment_generated() -> None:
    from kconnect_connector_mysql._columns import column_from_information_schema

    column = column_from_information_schema(
        {
            "COLUMN_NAME": "id",
            "ORDINAL_POSITION": 1,
            "DATA_TYPE": "tinyint",
            "COLUMN_TYPE": "tinyint(4)",
            "EXTRA": "auto_increment",
            "COLUMN_DEFAULT": None,
            "IS_NULLABLE": "NO",
        }
    )
    doc = column.to_history()
    assert (doc["jdbcType"], doc["autoIncremented"], doc["generated"]) == (5, True, True)
