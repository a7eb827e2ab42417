"""A 1,000,000-row table is copied with memory bounded by batch.max.rows, not by its size.

Each copy runs in a fresh process that reports its peak RSS; a copy of a 1,000-row table
is the baseline. A driver that loaded the whole result would hold hundreds of megabytes
of rows (about 1 GB of Python tuples for this table).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.integration

ROWS = 1_000_000
SMALL = 1_000
# Peak RSS may grow this much over the small copy (driver buffers, allocator slack).
ALLOWED_GROWTH_MB = 60

COPY = r"""
import json, resource, sys
from kconnect_connector_jdbc import JdbcSourceConnector, JdbcSourceTask
from kconnect_testkit import ScriptedSourceContext

props = json.loads(sys.argv[1])
expected = int(sys.argv[2])
connector = JdbcSourceConnector()
connector.start(props)
task_props = {**props, **connector.task_configs(1)[0]}
connector.stop()
task = JdbcSourceTask()
task.initialize(ScriptedSourceContext(task_props))
task.start(task_props)
count = last = 0
while count < expected:
    batch = task.poll()
    if batch:
        count += len(batch)
        last = batch[-1].value.get("id")
task.stop()
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"count": count, "last": last, "peak_mb": peak_kb / 1024}))
"""


def _copy(props: dict[str, str], expected: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", COPY, json.dumps(props), str(expected)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _fill(db: Any, table: str, rows: int) -> None:
    columns = "id, name, amount, flag, created, note"
    if db.kind == "postgres":
        db.execute(
            f"INSERT INTO {table} ({columns}) SELECT g, 'name ' || g, g * 1.25, mod(g, 2) = 0, "
            "TIMESTAMP '2024-01-01' + g * INTERVAL '1 second', repeat('x', 40) "
            "FROM generate_series(1, ?::int) g",
            (rows,),
        )
    elif db.kind == "mariadb":
        db.execute(
            f"INSERT INTO {table} ({columns}) SELECT seq, CONCAT('name ', seq), seq * 1.25, "
            "mod(seq, 2) = 0, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND, REPEAT('x', 40) "
            f"FROM seq_1_to_{rows}"
        )
    else:
        db.execute(
            f"WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {rows}) "
            f"INSERT INTO {table} ({columns}) SELECT g, 'name ' || g, g * 1.25, g % 2 = 0, "
            "datetime('2024-01-01', '+' || g || ' seconds'), printf('%.40c', 'x') FROM s"
        )


def test_a_million_rows_with_bounded_memory(db: Any, config_for: Any) -> None:
    peaks = {}
    for rows in (SMALL, ROWS):
        table = db.table("big")
        boolean = "BOOLEAN" if db.kind != "mariadb" else "TINYINT(1)"
        db.execute(
            f"CREATE TABLE {table} (id INT NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, "
            f"amount DECIMAL(12, 2) NOT NULL, flag {boolean} NOT NULL, created {db.ts} NOT NULL, "
            "note VARCHAR(60) NOT NULL)"
        )
        _fill(db, table, rows)
        props = config_for(
            db,
            **{
                "mode": "incrementing",
                "incrementing.column.name": "id",
                "table.whitelist": table,
                "topic.prefix": "big-",
                "batch.max.rows": "1000",
            },
        )
        result = _copy(props, rows)
        assert (result["count"], result["last"]) == (rows, rows)
        peaks[rows] = result["peak_mb"]
        db.execute(f"DROP TABLE {table}")
    growth = peaks[ROWS] - peaks[SMALL]
    print(
        f"{db.kind}: peak RSS {peaks[SMALL]:.0f} MB for {SMALL} rows, {peaks[ROWS]:.0f} MB for {ROWS}"
    )
    assert growth < ALLOWED_GROWTH_MB, (
        f"copying {ROWS} rows took {growth:.0f} MB more than copying {SMALL}: rows are not streamed"
    )
