"""Long work shows progress: a JDBC bulk load's rows done of the table's row count.

Issue 24: a snapshot or bulk load said nothing until it ended. A source task reports
``report_progress(done, total)``; the runtime shows it in the task's status (a kconnect-only
``progress`` field next to Kafka's ``state``/``worker_id``), in ``/metrics``, in a log line
at most every 10 s and when the work is done.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime.cli._ops import _rows_text, _state_rows
from kconnect_runtime.metrics import SOURCE_METRICS
from kconnect_runtime.tasks._runner import describe_progress
from kconnect_sdk import SourceRecord, SourceTask
from runtime_harness import standalone, worker_props

pytestmark = pytest.mark.integration

ROWS = 2500


def test_jdbc_bulk_load_reports_rows_done_of_the_total(
    tmp_path: Path, kafka: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "progress.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
        conn.executemany(
            "INSERT INTO items (id, name) VALUES (?, ?)", [(i, f"item {i}") for i in range(ROWS)]
        )
    config = {
        "name": "bulk",
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": f"jdbc:sqlite:{db}",
        "mode": "bulk",
        "table.whitelist": "items",
        "topic.prefix": "progress-",
        "batch.max.rows": "500",
        "poll.interval.ms": "600000",  # one bulk pass
    }
    with (
        caplog.at_level(logging.INFO, logger="kconnect.task"),
        standalone(worker_props(tmp_path, kafka)) as app,
    ):
        worker = app.herder
        assert worker is not None
        worker.create_connector(config)
        deadline = time.monotonic() + 60
        while True:
            task = worker.connector_status("bulk")["tasks"][0]
            if task.get("progress", {}).get("done") == ROWS:
                break
            assert time.monotonic() < deadline, task
            time.sleep(0.1)
        # Kafka's fields are untouched; progress is an extra field.
        assert task["state"] == "RUNNING" and "worker_id" in task
        assert task["progress"] == {"done": ROWS, "total": ROWS}
        # `kconnect status` shows it in a PROGRESS column (only when a task reports progress).
        shown = _rows_text(_state_rows({"bulk": worker.connector_status("bulk")}))
        assert "PROGRESS" in shown and f"{ROWS} of about {ROWS} rows (100 %)" in shown, shown
        ((_, _, _, metrics, _),) = [v for v in worker.task_metrics() if v[0] == "bulk"]
        values = {name: get(metrics) for _, name, _, _, get in SOURCE_METRICS}
        assert values["progress-done"] == ROWS
        assert values["progress-total"] == ROWS
    lines = [r.getMessage() for r in caplog.records if "progress:" in r.getMessage()]
    assert f"task bulk-0 progress: {ROWS} of about {ROWS} rows (100 %)" in lines, lines
    # Not one line per batch: the first batch and the end (10 s apart at most).
    assert len(lines) <= 3, lines


def test_progress_is_a_no_op_on_a_context_without_it() -> None:
    class Task(SourceTask):
        def version(self) -> str:
            return "1"

        def start(self, props: dict[str, str]) -> None:
            pass

        def poll(self) -> list[SourceRecord] | None:
            return None

        def stop(self) -> None:
            pass

    task = Task()
    task.report_progress(1, 10)  # before initialize: nothing to tell

    class OldContext:  # a runtime written before report_progress
        configs: dict[str, str] = {}
        offset_storage_reader = None

        def transaction_context(self) -> None:
            return None

    task.initialize(OldContext())  # type: ignore[arg-type]
    task.report_progress(5, 10)  # no AttributeError


def test_progress_is_described_for_operators() -> None:
    assert describe_progress(250, 1000) == "250 of about 1000 rows (25 %)"
    assert describe_progress(1200, 1000) == "1200 of about 1000 rows (100 %)"
    assert describe_progress(42, None) == "42 rows"


def test_mysql_snapshot_reports_rows_done_of_the_information_schema_estimate(
    kc_mariadb: Any, kc_kafka: str
) -> None:
    from kconnect_connector_mysql import MySqlSourceTask
    from kconnect_testkit import InMemoryOffsetStore, ScriptedSourceContext

    name = f"kc_progress_{int(time.time() * 1000) % 100000}"
    admin = kc_mariadb.connect(autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
        cur.execute(f"CREATE TABLE `{name}`.t (id INT PRIMARY KEY)")
        cur.execute(f"INSERT INTO `{name}`.t VALUES " + ", ".join(f"({i})" for i in range(1, 301)))
        cur.execute(f"ANALYZE TABLE `{name}`.t")
    props = {
        "name": f"progress-{name}",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": kc_mariadb.host,
        "database.port": str(kc_mariadb.port),
        "database.user": kc_mariadb.user,
        "database.password": kc_mariadb.password,
        "database.server.id": "10001",
        "topic.prefix": "progress",
        "database.include.list": name,
        "include.schema.changes": "false",
        "snapshot.fetch.size": "100",
        "schema.history.internal.kafka.bootstrap.servers": kc_kafka,
        "schema.history.internal.kafka.topic": f"dbhistory.{name}",
    }
    reports: list[tuple[int, int | None]] = []

    class Context(ScriptedSourceContext):
        def report_progress(self, done: int, total: int | None = None) -> None:
            reports.append((done, total))

    task = MySqlSourceTask()
    task.initialize(Context(props, InMemoryOffsetStore()))
    task.start(props)
    try:
        deadline = time.monotonic() + 60
        while not task.streaming.is_set():
            assert time.monotonic() < deadline, reports
            task.poll()
    finally:
        task.stop()
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE `{name}`")
        admin.close()
    assert [done for done, _ in reports] == [100, 200, 300], reports
    assert all(total is not None and total >= done for done, total in reports), reports
    assert reports[-1][1] == 300, reports  # ANALYZE TABLE made the estimate exact
