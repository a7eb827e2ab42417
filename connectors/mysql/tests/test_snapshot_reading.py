"""The snapshot reads its result sets from the socket itself: values, packet edges, errors."""

from __future__ import annotations

import time
from typing import Any

import pymysql
import pymysql.cursors
import pytest
from kconnect_connector_mysql._resultset import UnbufferedRows

from .conftest import Db, base_config, drain, payload, start_task

# Every test on both row readers (compiled TextRows and generated Python): see conftest.
pytestmark = pytest.mark.usefixtures("decoder_path")


def _text(i: int) -> str | None:
    """Texts whose lengths take each width of the protocol's length coding (1, 2, 3 bytes)."""
    if i % 7 == 0:
        return None
    if i % 50 == 0:
        return f"{i:05d}" + "é" * 40000  # 80,005 bytes: a 3-byte length, across chunks
    if i % 5 == 0:
        return f"{i:05d}" + "ü" * 150  # 305 bytes: a 2-byte length
    return f"row {i} ö"


def test_snapshot_values_across_packet_and_chunk_edges(kc_mariadb: Any, mdb: Db) -> None:
    """Every row of a table larger than a read chunk, fetched 7 at a time, as inserted."""
    mdb.sql(
        "CREATE TABLE t (id INT PRIMARY KEY, note MEDIUMTEXT NULL, qty INT NULL, "
        "price DOUBLE NULL, tag VARCHAR(10) NOT NULL)"
    )
    count = 600
    with mdb.conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO t VALUES (%s, %s, %s, %s, %s)",
            [
                (i, _text(i), None if i % 3 == 0 else -i, i / 4, "" if i % 2 else "x")
                for i in range(1, count + 1)
            ],
        )
    props = base_config(kc_mariadb, mdb.name, **{"snapshot.fetch.size": "7"})
    task = start_task(props)
    try:
        records = drain(task, count)
    finally:
        task.stop()
    got = [payload(r)["after"] for r in records]
    assert got == [
        {
            "id": i,
            "note": _text(i),
            "qty": None if i % 3 == 0 else -i,
            "price": i / 4,
            "tag": "" if i % 2 else "x",
        }
        for i in range(1, count + 1)
    ]
    assert [r.key.to_dict() for r in records] == [{"id": i} for i in range(1, count + 1)]


def test_a_row_over_16_mb_is_read_whole(kc_mariadb: Any, mdb: Db) -> None:
    """A row longer than one protocol packet (16 MB) comes whole, and the next row after it."""
    admin = kc_mariadb.connect(autocommit=True)
    with admin.cursor() as cur:
        cur.execute("SELECT @@global.max_allowed_packet")
        (before,) = cur.fetchone()
        cur.execute("SET GLOBAL max_allowed_packet = 67108864")
    try:
        mdb.sql("CREATE TABLE big (id INT PRIMARY KEY, body LONGTEXT NOT NULL)")
        writer = kc_mariadb.connect(autocommit=True, database=mdb.name)
        try:
            with writer.cursor() as cur:
                cur.execute("INSERT INTO big VALUES (1, 'a'), (2, REPEAT('x', 17000000)), (3, 'c')")
        finally:
            writer.close()
        task = start_task(base_config(kc_mariadb, mdb.name))
        try:
            records = drain(task, 3, timeout=60)
        finally:
            task.stop()
    finally:
        with admin.cursor() as cur:
            cur.execute(f"SET GLOBAL max_allowed_packet = {int(before)}")
        admin.close()
    bodies = [payload(r)["after"]["body"] for r in records]
    assert bodies[0] == "a"
    assert len(bodies[1]) == 17_000_000 and bodies[1] == "x" * 17_000_000
    assert bodies[2] == "c"


def test_an_error_in_the_middle_of_a_result_set_is_raised(kc_mariadb: Any, mdb: Db) -> None:
    """The server's error after some rows is pymysql's error, and the connection works on."""
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    with mdb.conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(1, 2001)])
    conn = kc_mariadb.connect(autocommit=True, database=mdb.name)
    try:
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            # Row 1500's correlated subquery returns two rows: an error once rows were sent.
            cur.execute(
                "SELECT id, (SELECT u.id FROM t AS u WHERE u.id <= IF(t.id = 1500, 2, 1)) "
                "FROM t ORDER BY id"
            )
            reader = UnbufferedRows(conn, cur._result, [None, None])
            rows: list[list[Any]] = []

            def read_all() -> None:
                while batch := reader.fetch(100):
                    rows.extend(batch)

            with pytest.raises(pymysql.err.MySQLError, match="more than 1 row"):
                read_all()
        assert rows == [[i, 1] for i in range(1, len(rows) + 1)]
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM t")
            assert cur.fetchone() == (2000,)
    finally:
        conn.close()


def test_rows_and_the_end_of_the_result_set(kc_mariadb: Any, mdb: Db) -> None:
    """Batches of the size asked, the rest, then nothing; the connection runs queries after."""
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) NULL)")
    with mdb.conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO t VALUES (%s, %s)",
            [(i, None if i % 4 == 0 else f"n{i}") for i in range(1, 1001)],
        )
    conn = kc_mariadb.connect(autocommit=True, database=mdb.name)
    try:
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute("SELECT id, name FROM t ORDER BY id")
            reader = UnbufferedRows(conn, cur._result, [lambda v: v * 10, None])
            sizes = []
            rows: list[list[Any]] = []
            while batch := reader.fetch(300):
                sizes.append(len(batch))
                rows.extend(batch)
            assert reader.fetch(300) == []
        assert sizes == [300, 300, 300, 100]
        assert rows == [[i * 10, None if i % 4 == 0 else f"n{i}"] for i in range(1, 1001)]
        with conn.cursor() as cur:
            cur.execute("SELECT 41 + 1")
            assert cur.fetchone() == (42,)
    finally:
        conn.close()


def test_polls_return_at_most_max_batch_size_records_in_order(kc_mariadb: Any, mdb: Db) -> None:
    """Batches the reader made (5 rows per fetch) are split and joined to max.batch.size."""
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    with mdb.conn.cursor() as cur:
        cur.executemany("INSERT INTO t VALUES (%s)", [(i,) for i in range(1, 24)])
    props = base_config(kc_mariadb, mdb.name, **{"snapshot.fetch.size": "5", "max.batch.size": "3"})
    task = start_task(props)
    sizes: list[int] = []
    ids: list[int] = []
    try:
        deadline = time.monotonic() + 20
        while len(ids) < 23 and time.monotonic() < deadline:
            batch = task.poll() or []
            if batch:
                sizes.append(len(batch))
                ids.extend(payload(r)["after"]["id"] for r in batch)
    finally:
        task.stop()
    assert ids == list(range(1, 24))
    assert max(sizes) == 3
