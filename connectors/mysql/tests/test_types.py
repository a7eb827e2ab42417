"""Golden events for every column type, read both by the snapshot and from the binlog.

Expected values and schema names follow Debezium's MySQL connector documentation
("How Debezium MySQL connectors map data types", default modes: precise decimals,
adaptive_time_microseconds, long unsigned BIGINT, bytes); they are written out here by
hand, not produced by this connector.
"""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from .conftest import Db, base_config, drain, payload, start_task

# Every test on both paths (binlog decoder, snapshot row reader: compiled and generated
# Python): see conftest.
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("decoder_path")]

COLUMNS = """
    id INT NOT NULL PRIMARY KEY,
    c_tinyint TINYINT, c_utinyint TINYINT UNSIGNED,
    c_smallint SMALLINT, c_usmallint SMALLINT UNSIGNED,
    c_mediumint MEDIUMINT, c_umediumint MEDIUMINT UNSIGNED,
    c_int INT, c_uint INT UNSIGNED,
    c_bigint BIGINT, c_ubigint BIGINT UNSIGNED,
    c_float FLOAT, c_double DOUBLE,
    c_decimal DECIMAL(10,3), c_decimal0 DECIMAL(20,0),
    c_bit1 BIT(1), c_bit10 BIT(10),
    c_char CHAR(3), c_varchar VARCHAR(40), c_text TEXT,
    c_binary BINARY(4), c_varbinary VARBINARY(8), c_blob BLOB,
    c_date DATE, c_time TIME, c_time6 TIME(6),
    c_datetime DATETIME, c_datetime3 DATETIME(3), c_datetime6 DATETIME(6),
    c_timestamp TIMESTAMP NULL, c_timestamp3 TIMESTAMP(3) NULL,
    c_year YEAR,
    c_enum ENUM('a','b','c'), c_set SET('x','y','z'),
    c_json JSON,
    c_point POINT, c_geometry GEOMETRY,
    c_null VARCHAR(5)
"""

VALUES = """
    %s, -5, 255, -300, 65535, -8388608, 16777215, -2147483648, 4294967295,
    -9223372036854775808, 18446744073709551615, 1.5, 2.25,
    -1234567.891, 12345678901234567890,
    b'1', b'1000000001',
    'abc', 'Zoë 🚀', 'a longer text',
    x'01020304', x'0A0B', x'FF00FF',
    '2018-06-20', '-01:00:00', '13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.120', '2018-06-20 13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.120',
    2018, 'b', 'z,x', '{"k": 1}',
    ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('LINESTRING(0 0, 1 1)'),
    NULL
"""

POINT_WKB = bytes.fromhex("0101000000000000000000f03f0000000000000040")
LINE_WKB = bytes.fromhex("010200000002000000" + "00" * 16 + "000000000000f03f000000000000f03f")

EXPECTED: dict[str, Any] = {
    "c_tinyint": -5,
    "c_utinyint": 255,
    "c_smallint": -300,
    "c_usmallint": 65535,
    "c_mediumint": -8388608,
    "c_umediumint": 16777215,
    "c_int": -2147483648,
    "c_uint": 4294967295,
    "c_bigint": -9223372036854775808,
    "c_ubigint": -1,  # bigint.unsigned.handling.mode=long wraps above 2^63-1, as documented
    "c_float": 1.5,
    "c_double": 2.25,
    "c_decimal": decimal.Decimal("-1234567.891"),
    "c_decimal0": decimal.Decimal("12345678901234567890"),
    "c_bit1": True,
    "c_bit10": bytes([0x01, 0x02]),  # 513, little-endian
    "c_char": "abc",
    "c_varchar": "Zoë 🚀",
    "c_text": "a longer text",
    "c_binary": bytes([1, 2, 3, 4]),
    "c_varbinary": bytes([0x0A, 0x0B]),
    "c_blob": bytes([0xFF, 0x00, 0xFF]),
    "c_date": 17702,  # days since 1970-01-01
    "c_time": -3_600_000_000,  # MicroTime
    "c_time6": 49_023_123_456,
    "c_datetime": 1_529_501_823_000,  # Timestamp (ms)
    "c_datetime3": 1_529_501_823_120,
    "c_datetime6": 1_529_501_823_123_456,  # MicroTimestamp
    "c_timestamp": "2018-06-20T13:37:03Z",  # ZonedTimestamp, UTC
    "c_timestamp3": "2018-06-20T13:37:03.120Z",
    "c_year": 2018,
    "c_enum": "b",
    "c_set": "x,z",
    "c_json": '{"k": 1}',  # MariaDB's JSON is LONGTEXT: the text as stored
    "c_point": {"x": 1.0, "y": 2.0, "wkb": POINT_WKB, "srid": None},  # SRID 0: none
    "c_geometry": {"wkb": LINE_WKB, "srid": None},
    "c_null": None,
}

# Debezium's snapshot writes a TIMESTAMP without trailing fraction zeros (it reads a
# java.sql.Timestamp), its binlog reader with the column's digits.
SNAPSHOT_EXPECTED: dict[str, Any] = {"c_timestamp3": "2018-06-20T13:37:03.12Z"}

SCHEMAS: dict[str, tuple[str, str | None, dict[str, str]]] = {
    "c_tinyint": ("int16", None, {}),  # Debezium gives every TINYINT INT16
    "c_utinyint": ("int16", None, {}),
    "c_smallint": ("int16", None, {}),
    "c_usmallint": ("int32", None, {}),
    "c_mediumint": ("int32", None, {}),
    "c_umediumint": ("int32", None, {}),
    "c_int": ("int32", None, {}),
    "c_uint": ("int64", None, {}),
    "c_bigint": ("int64", None, {}),
    "c_ubigint": ("int64", None, {}),
    "c_float": ("float32", None, {}),
    "c_double": ("float64", None, {}),
    "c_decimal": (
        "bytes",
        "org.apache.kafka.connect.data.Decimal",
        {"scale": "3", "connect.decimal.precision": "10"},
    ),
    "c_bit1": ("boolean", None, {}),
    "c_bit10": ("bytes", "io.debezium.data.Bits", {"length": "10"}),
    "c_char": ("string", None, {}),
    "c_binary": ("bytes", None, {}),
    "c_blob": ("bytes", None, {}),
    "c_date": ("int32", "io.debezium.time.Date", {}),
    "c_time": ("int64", "io.debezium.time.MicroTime", {}),
    "c_datetime": ("int64", "io.debezium.time.Timestamp", {}),
    "c_datetime3": ("int64", "io.debezium.time.Timestamp", {}),
    "c_datetime6": ("int64", "io.debezium.time.MicroTimestamp", {}),
    "c_timestamp": ("string", "io.debezium.time.ZonedTimestamp", {}),
    "c_year": ("int32", "io.debezium.time.Year", {}),
    "c_enum": ("string", "io.debezium.data.Enum", {"allowed": "a,b,c"}),
    "c_set": ("string", "io.debezium.data.EnumSet", {"allowed": "x,y,z"}),
    "c_point": ("struct", "io.debezium.data.geometry.Point", {}),
    "c_geometry": ("struct", "io.debezium.data.geometry.Geometry", {}),
}


def test_every_type_in_snapshot_and_binlog(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql(f"CREATE TABLE all_types ({COLUMNS})")
    mdb.sql(f"INSERT INTO all_types VALUES ({VALUES % 1})")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        (snap,) = drain(task, 1)
        mdb.sql(f"INSERT INTO all_types VALUES ({VALUES % 2})")
        (stream,) = drain(task, 1)
    finally:
        task.stop()
    for record, op in ((snap, "r"), (stream, "c")):
        value = payload(record)
        assert value["op"] == op
        after = value["after"]
        wanted = {**EXPECTED, **SNAPSHOT_EXPECTED} if op == "r" else EXPECTED
        for column, expected in wanted.items():
            assert after[column] == expected, f"{op} {column}: {after[column]!r} != {expected!r}"
        row_schema = record.value_schema.field("after").schema
        for column, (type_, name, params) in SCHEMAS.items():
            field = row_schema.field(column).schema
            assert (field.type.value, field.name, dict(field.parameters)) == (
                type_,
                name,
                params,
            ), column
