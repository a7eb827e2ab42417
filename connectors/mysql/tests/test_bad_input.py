"""Bad input: server settings, grants, passwords, purged binlogs, lost connections."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from kconnect_connector_mysql import MySqlConnector
from kconnect_sdk import ConfigError, ConnectError, RetriableError
from kconnect_testkit import InMemoryOffsetStore

from .conftest import Db, base_config, drain, make_user, payload, quiet, start_task, wait_streaming

pytestmark = pytest.mark.integration


def _errors(props: dict[str, str]) -> dict[str, list[str]]:
    return {v.name: v.error_messages for v in MySqlConnector().validate(props) if v.error_messages}


def _set_global(server: Any, name: str, value: str) -> None:
    admin = server.connect(autocommit=True)
    try:
        with admin.cursor() as cur:
            cur.execute(f"SET GLOBAL {name} = %s", (value,))
    finally:
        admin.close()


@pytest.mark.parametrize(
    ("variable", "bad"), [("binlog_format", "STATEMENT"), ("binlog_row_image", "MINIMAL")]
)
def test_server_without_row_binlog_is_a_validation_error(
    kc_mariadb: Any, mdb: Db, variable: str, bad: str
) -> None:
    props = base_config(kc_mariadb, mdb.name)
    assert _errors(props) == {}
    _set_global(kc_mariadb, variable, bad)
    try:
        errors = _errors(props)
        with pytest.raises(ConfigError, match=variable):
            start_task(props)
    finally:
        _set_global(kc_mariadb, variable, "ROW" if variable == "binlog_format" else "FULL")
    assert list(errors) == ["database.hostname"]
    assert f"{variable}={bad}" in errors["database.hostname"][0]


def test_missing_grants_are_named(kc_mariadb: Any, mdb: Db) -> None:
    make_user(kc_mariadb, "weak", "weak-pw", "SELECT")
    props = base_config(
        kc_mariadb, mdb.name, **{"database.user": "weak", "database.password": "weak-pw"}
    )
    errors = _errors(props)
    assert list(errors) == ["database.user"]
    for grant in ("RELOAD", "REPLICATION SLAVE", "REPLICATION CLIENT"):
        assert grant in errors["database.user"][0]


def test_password_never_in_errors_or_logs(
    kc_mariadb: Any, mdb: Db, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "Wr0ng-Secret-Password"
    props = base_config(kc_mariadb, mdb.name, **{"database.password": secret})
    errors = _errors(props)
    assert "database.hostname" in errors and "database.password" in errors["database.hostname"][0]
    with pytest.raises(RetriableError) as raised:
        start_task(props)
    assert secret not in str(raised.value)
    assert all(secret not in m for ms in errors.values() for m in ms)
    assert secret not in caplog.text


def test_purged_binlog_is_an_error_or_a_new_snapshot(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)")
    props = base_config(kc_mariadb, mdb.name, kc_kafka)
    store = InMemoryOffsetStore()
    task = start_task(props, store)
    try:
        store.commit_records(drain(task, 1))
    finally:
        task.stop()
    # A change the connector has not seen goes into the binlog that is then purged (by file
    # and by GTID, the connector cannot resume after it).
    mdb.sql("INSERT INTO t VALUES (2)", "FLUSH BINARY LOGS")
    (last,) = mdb.query("SHOW BINARY LOGS")[-1:]
    # MariaDB keeps a binlog until InnoDB's checkpoint of it is written: retry briefly.
    deadline = time.monotonic() + 20
    while [r[0] for r in mdb.query("SHOW BINARY LOGS")] != [
        last[0]
    ] and time.monotonic() < deadline:
        mdb.sql(f"PURGE BINARY LOGS TO '{last[0]}'")
        time.sleep(0.2)
    assert [r[0] for r in mdb.query("SHOW BINARY LOGS")] == [last[0]]
    mdb.sql("INSERT INTO t VALUES (3)")
    with pytest.raises(
        ConnectError, match=r"no longer available on the server.*snapshot.mode=when_needed"
    ):
        start_task(props, store)
    again = start_task({**props, "snapshot.mode": "when_needed"}, store)
    try:
        records = drain(again, 3)
    finally:
        again.stop()
    assert [(payload(r)["op"], r.key.to_dict()["id"]) for r in records] == [
        ("r", 1),
        ("r", 2),
        ("r", 3),
    ]


def test_lost_connection_reconnects_without_loss(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        wait_streaming(task)
        mdb.sql(
            "INSERT INTO t VALUES (1)",
            "BEGIN",
            "INSERT INTO t VALUES (2)",
            "INSERT INTO t VALUES (3)",
            "COMMIT",
        )
        got = drain(task, 3)
        admin = kc_mariadb.connect(autocommit=True)
        try:
            with admin.cursor() as cur:
                cur.execute(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'"
                )
                dumps = [r[0] for r in cur.fetchall()]
                assert dumps, "no binlog dump connection to kill"
                for ident in dumps:
                    cur.execute(f"KILL {ident}")
        finally:
            admin.close()
        time.sleep(0.5)
        mdb.sql(
            "INSERT INTO t VALUES (4)",
            "BEGIN",
            "INSERT INTO t VALUES (5)",
            "INSERT INTO t VALUES (6)",
            "COMMIT",
        )
        got += drain(task, 3)
        got += quiet(task, 1.0)
    finally:
        task.stop()
    assert [r.key.to_dict()["id"] for r in got] == [1, 2, 3, 4, 5, 6]


def test_gtids_in_offsets(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        wait_streaming(task)
        mdb.sql("INSERT INTO t VALUES (1)")
        (first,) = drain(task, 1)
        mdb.sql("INSERT INTO t VALUES (2)")
        (second,) = drain(task, 1)
    finally:
        task.stop()
    (server_pos,) = mdb.query("SELECT @@GLOBAL.gtid_binlog_pos")[0]
    gtid1, gtid2 = payload(first)["source"]["gtid"], payload(second)["source"]["gtid"]
    # domain-server-sequence of the last transaction (other domains may exist: test_gtid.py)
    assert gtid2 in str(server_pos).split(",")
    assert int(gtid2.rsplit("-", 1)[1]) == int(gtid1.rsplit("-", 1)[1]) + 1
    # The offset's GTID set is the one completed before the record's transaction.
    domain = gtid1.split("-", 1)[0] + "-"
    offset_gtids = second.source_offset["gtids"].split(",")
    assert [g for g in offset_gtids if g.startswith(domain)] == [gtid1]


@pytest.mark.usefixtures("decoder_path")
def test_truncated_rows_event_fails_the_task_naming_table_and_position(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kconnect_connector_mysql import _task

    real = _task.build_decoder

    def cut_short(*args: Any, **kw: Any) -> Any:
        decode = real(*args, **kw)
        # The event as if its last byte were lost: the row image runs past its end.
        return lambda data, p, end: decode(data[: end - 1], p, end - 1)

    monkeypatch.setattr(_task, "build_decoder", cut_short)
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
    task = start_task(base_config(kc_mariadb, mdb.name, kc_kafka))
    try:
        wait_streaming(task)
        mdb.sql("INSERT INTO t VALUES (1, 'abc')")
        with pytest.raises(ConnectError) as raised:
            drain(task, 1, timeout=10)
    finally:
        task.stop()
    message = str(raised.value)
    assert f"for table {mdb.name}.t: row image of" in message
    assert "truncated" in message and "snapshot.mode=recovery" in message
    assert ":" in message.split(" at ", 1)[1].split(" ", 1)[0]  # binlog file:position
