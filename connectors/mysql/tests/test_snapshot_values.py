"""Snapshot rows (text protocol) and binlog rows (packed bits) convert to the same values."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pytest

from .conftest import Db, base_config, drain, payload, start_task, wait_streaming

# Every test on both paths (binlog decoder, snapshot row reader: compiled and generated
# Python): see conftest.
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("decoder_path")]


@pytest.mark.parametrize("mode", ["adaptive_time_microseconds", "isostring", "connect"])
def test_snapshot_and_binlog_give_the_same_temporal_values(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, mode: str
) -> None:
    """The snapshot reads DATE/DATETIME as text and the binlog as packed bits: same values."""
    mdb.sql(
        "CREATE TABLE d (id INT PRIMARY KEY, a DATE, b DATETIME, c DATETIME(3), e DATETIME(6), "
        "z DATE NULL)"
    )
    row = "'1969-12-31', '2024-02-29 23:59:59', '1000-01-01 00:00:00.125', '9999-12-31 23:59:59.999999', NULL"
    mdb.sql(f"INSERT INTO d VALUES (1, {row})")
    props = base_config(
        kc_mariadb,
        mdb.name,
        kc_kafka,
        **{"time.precision.mode": mode, "database.server.id": "10002"},
    )
    task = start_task(props)
    try:
        (snap,) = drain(task, 1)
        wait_streaming(task)
        mdb.sql(f"INSERT INTO d VALUES (2, {row})")
        (streamed,) = drain(task, 1)
    finally:
        task.stop()
    assert payload(snap)["op"] == "r" and payload(streamed)["op"] == "c"
    first, second = payload(snap)["after"], payload(streamed)["after"]
    assert {**first, "id": 2} == second
    if mode == "adaptive_time_microseconds":
        # io.debezium.time.Date / Timestamp / MicroTimestamp, from Debezium's documentation.
        assert second == {
            "id": 2,
            "a": -1,
            "b": 1709251199000,
            "c": -30610223999875,
            "e": 253402300799999999,
            "z": None,
        }


def test_connect_precision_mode_gives_kafka_connects_logical_types(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    """time.precision.mode=connect: Connect's Date/Time/Timestamp, millisecond precision.

    As Debezium's documentation says: TIME and DATETIME use Kafka Connect's built-in Time and
    Timestamp whatever the column's precision (microseconds are cut); TIMESTAMP stays
    io.debezium.time.ZonedTimestamp and YEAR io.debezium.time.Year.
    """
    mdb.sql(
        "CREATE TABLE d (id INT PRIMARY KEY, a DATE, t TIME(3), u TIME(6), b DATETIME, "
        "e DATETIME(6), y YEAR, z TIME NULL)"
    )
    row = (
        "'1969-12-31', '13:14:15.678', '01:02:03.456789', '2024-02-29 23:59:59', "
        "'9999-12-31 23:59:59.999999', 2024, NULL"
    )
    mdb.sql(f"INSERT INTO d VALUES (1, {row})")
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"time.precision.mode": "connect"})
    task = start_task(props)
    try:
        (snap,) = drain(task, 1)
        wait_streaming(task)
        mdb.sql(f"INSERT INTO d VALUES (2, {row})")
        (streamed,) = drain(task, 1)
    finally:
        task.stop()
    utc = _dt.UTC
    expected = {
        "a": _dt.date(1969, 12, 31),
        "t": _dt.time(13, 14, 15, 678000),
        "u": _dt.time(1, 2, 3, 456000),
        "b": _dt.datetime(2024, 2, 29, 23, 59, 59, tzinfo=utc),
        "e": _dt.datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=utc),
        "y": 2024,
        "z": None,
    }
    assert payload(snap)["after"] == {"id": 1, **expected}
    assert payload(streamed)["after"] == {"id": 2, **expected}
    fields = {f.name: f.schema for f in streamed.value_schema.field("after").schema.fields}
    assert {name: fields[name].name for name in expected} == {
        "a": "org.apache.kafka.connect.data.Date",
        "t": "org.apache.kafka.connect.data.Time",
        "u": "org.apache.kafka.connect.data.Time",
        "b": "org.apache.kafka.connect.data.Timestamp",
        "e": "org.apache.kafka.connect.data.Timestamp",
        "y": "io.debezium.time.Year",
        "z": "org.apache.kafka.connect.data.Time",
    }


def test_connect_precision_mode_refuses_a_time_that_is_not_a_time_of_day() -> None:
    from kconnect_connector_mysql._columns import _connect_time
    from kconnect_sdk import ConnectError

    convert = _connect_time("t")
    assert convert(_dt.timedelta(hours=23, minutes=59, microseconds=999999)) == _dt.time(
        23, 59, 0, 999000
    )
    for bad in (_dt.timedelta(hours=25), _dt.timedelta(seconds=-1)):
        with pytest.raises(ConnectError, match=r"column 't': TIME value .* adaptive_time"):
            convert(bad)


def test_snapshot_markers_across_tables_and_fetches(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    """Debezium's markers, with rows fetched two at a time (one source block per fetch)."""
    mdb.sql(
        "CREATE TABLE a (id INT PRIMARY KEY)",
        "CREATE TABLE b (id INT PRIMARY KEY)",
        "INSERT INTO a VALUES (1), (2), (3), (4), (5)",
        "INSERT INTO b VALUES (1), (2), (3)",
    )
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"snapshot.fetch.size": "2"})
    task = start_task(props)
    try:
        records = drain(task, 8)
    finally:
        task.stop()
    marks = [(r.topic.rsplit(".", 1)[1], payload(r)["source"]["snapshot"]) for r in records]
    assert marks == [
        ("a", "first"),
        ("a", "true"),
        ("a", "true"),
        ("a", "true"),
        ("a", "last_in_data_collection"),
        ("b", "first_in_data_collection"),
        ("b", "true"),
        ("b", "last"),
    ]
