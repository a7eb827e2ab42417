"""Transaction metadata and schema change events as Debezium 3.5's MariaDbConnector writes
them, found by the CDC differential (compat/tests/test_cdc.py) on the same MariaDB."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Db, base_config, drain, payload, quiet, start_task, wait_streaming

pytestmark = pytest.mark.integration


def test_key_change_ddl_and_truncate_in_transaction_metadata(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
    config = base_config(
        kc_mariadb,
        mdb.name,
        kc_kafka,
        **{
            "provide.transaction.metadata": "true",
            "skipped.operations": "none",
            "include.schema.changes": "true",
        },
    )
    task = start_task(config)
    try:
        wait_streaming(task)
        # A new primary key: delete, tombstone and create, two events of the transaction.
        mdb.sql("UPDATE t SET id = 2 WHERE id = 1")
        begin, delete, _tombstone, create, end = drain(task, 5)
        # DDL and TRUNCATE are transactions of their own: a BEGIN, no END.
        mdb.sql("ALTER TABLE t ADD COLUMN w INT", "TRUNCATE TABLE t")
        records = drain(task, 4)
        records += quiet(task, 1.0)
    finally:
        task.stop()
    blocks = [payload(r)["transaction"] for r in (delete, create)]
    assert [(b["total_order"], b["data_collection_order"]) for b in blocks] == [(1, 1), (2, 2)]
    assert payload(end)["event_count"] == 2
    assert payload(begin)["status"] == "BEGIN"
    tx = [payload(r)["status"] for r in records if r.topic == "dbserver1.transaction"]
    assert tx == ["BEGIN", "BEGIN"]
    change = next(r for r in records if r.topic == "dbserver1")
    assert payload(change)["source"]["table"] == "t"
    truncate = next(r for r in records if r.topic == f"dbserver1.{mdb.name}.t")
    assert payload(truncate)["op"] == "t"
    assert (
        payload(truncate)["transaction"]["total_order"],
        payload(truncate)["transaction"]["data_collection_order"],
    ) == (1, 1)
