"""Which schema history records precede a restart offset: the binlog-coordinate comparison
of Debezium's history comparator (positions without GTIDs)."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_connector_mysql._task import _recorded_after


def _pos(file: str, pos: int, **extra: Any) -> dict[str, Any]:
    return {"file": file, "pos": pos, "server_id": 1, "ts_sec": 100, **extra}


@pytest.mark.parametrize(
    ("recorded", "offset", "after"),
    [
        (_pos("mysql-bin.000003", 100), _pos("mysql-bin.000003", 200), False),
        (_pos("mysql-bin.000003", 300), _pos("mysql-bin.000003", 200), True),
        (_pos("mysql-bin.000003", 200), _pos("mysql-bin.000003", 200), False),
        (_pos("mysql-bin.000002", 900), _pos("mysql-bin.000003", 4), False),
        (_pos("mysql-bin.000004", 4), _pos("mysql-bin.000003", 900), True),
        # Past the sixth digit the extension grows: numbers, not texts, are compared.
        (_pos("mysql-bin.1000000", 4), _pos("mysql-bin.999999", 900), True),
        (_pos("mysql-bin.999999", 900), _pos("mysql-bin.1000000", 4), False),
        # The same position: the events and rows already completed there decide.
        (_pos("mysql-bin.000003", 200, event=3), _pos("mysql-bin.000003", 200, event=2), True),
        (_pos("mysql-bin.000003", 200, event=1), _pos("mysql-bin.000003", 200, event=2), False),
        (
            _pos("mysql-bin.000003", 200, event=2, row=5),
            _pos("mysql-bin.000003", 200, event=2, row=4),
            True,
        ),
    ],
)
def test_binlog_coordinates(recorded: dict[str, Any], offset: dict[str, Any], after: bool) -> None:
    assert _recorded_after(recorded, offset) is after


def test_positions_of_two_servers_compare_by_their_timestamps() -> None:
    # After a failover without GTIDs the file names of the two servers are unrelated.
    recorded = {"file": "mysql-bin.000009", "pos": 900, "server_id": 1, "ts_sec": 100}
    offset = {"file": "mysql-bin.000001", "pos": 4, "server_id": 2, "ts_sec": 200}
    assert _recorded_after(recorded, offset) is False
    assert _recorded_after({**recorded, "ts_sec": 300}, offset) is True
