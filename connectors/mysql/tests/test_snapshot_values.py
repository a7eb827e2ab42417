"""Snapshot rows (text protocol) and binlog rows (packed bits) convert to the same values."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Db, base_config, drain, payload, start_task, wait_streaming

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("mode", ["adaptive_time_microseconds", "adaptive", "connect"])
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
