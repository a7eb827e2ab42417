"""DDL applied at its binlog position: several changes while the connector is down, then replay."""

from __future__ import annotations

import decimal
from typing import Any

import pytest
from kconnect_connector_mysql._database import connect, read_tables
from kconnect_connector_mysql._events import EventSchemas
from kconnect_sdk import Schema
from kconnect_testkit import InMemoryOffsetStore

from .conftest import Db, base_config, drain, payload, quiet, start_task, wait_streaming

pytestmark = pytest.mark.integration


def _fields(schema: Schema | None) -> dict[str, tuple[str, bool, Any, str | None]]:
    """field -> (type, optional, default, logical name) of a Value or Key struct schema."""
    if schema is None:
        return {}
    return {
        f.name: (f.schema.type.value, f.schema.optional, f.schema.default, f.schema.name)
        for f in schema.fields
    }


def _event(record: Any) -> tuple[str, str, Any, Any, dict[str, Any], dict[str, Any]]:
    """(table, op, key, after, after's field schemas, key's field schemas) of a data record."""
    value = payload(record)
    after_schema = record.value_schema.field("after").schema
    return (
        record.topic.rsplit(".", 1)[1],
        value["op"],
        None if record.key is None else record.key.to_dict(),
        value["after"],
        _fields(after_schema),
        _fields(record.key_schema),
    )


I32 = ("int32", False, None, None)
OPT_STR = ("string", True, None, None)

# The changes made while the connector is stopped, each followed by a row written under it.
_WHILE_DOWN = [
    "INSERT INTO t VALUES (3, 'z')",
    "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 7 AFTER id",
    "INSERT INTO t VALUES (4, 8, 'w')",
    "ALTER TABLE t CHANGE a a2 VARCHAR(20) NULL DEFAULT 'q', MODIFY b BIGINT UNSIGNED NOT NULL DEFAULT 7",
    "INSERT INTO t VALUES (5, 18446744073709551615, 'v')",
    "ALTER TABLE t DROP COLUMN a2, ADD COLUMN d DECIMAL(6,2) DEFAULT 1.50",
    "UPDATE t SET d = 2.25 WHERE id = 5",
    "RENAME TABLE t TO t2",
    "INSERT INTO t2 VALUES (6, 10, 3.5)",
    "ALTER TABLE t2 DROP PRIMARY KEY, ADD PRIMARY KEY (id, b)",
    "INSERT INTO t2 VALUES (7, 11, 4.5)",
    "CREATE TABLE t3 (k CHAR(2) PRIMARY KEY, e ENUM('x','y') NOT NULL)",
    "INSERT INTO t3 VALUES ('kk', 'y')",
    "DROP TABLE t3",
    "DROP TABLE t2",
    "CREATE TABLE t2 (z TEXT)",
    "INSERT INTO t2 VALUES ('last')",
]


def _expected() -> list[tuple[Any, ...]]:
    """What each event must carry: the schema in force where its row is in the binlog."""
    b_int = ("int32", False, 7, None)
    b_big = ("int64", False, 7, None)  # bigint.unsigned.handling.mode=long
    dec = ("bytes", True, decimal.Decimal("1.50"), "org.apache.kafka.connect.data.Decimal")
    return [
        ("t", "c", {"id": 3}, {"id": 3, "a": "z"}, {"id": I32, "a": OPT_STR}, {"id": I32}),
        (
            "t",
            "c",
            {"id": 4},
            {"id": 4, "b": 8, "a": "w"},
            {"id": I32, "b": b_int, "a": OPT_STR},
            {"id": I32},
        ),
        (
            "t",
            "c",
            {"id": 5},
            {"id": 5, "b": -1, "a2": "v"},
            {"id": I32, "b": b_big, "a2": ("string", True, "q", None)},
            {"id": I32},
        ),
        (
            "t",
            "u",
            {"id": 5},
            {"id": 5, "b": -1, "d": decimal.Decimal("2.25")},
            {"id": I32, "b": b_big, "d": dec},
            {"id": I32},
        ),
        (
            "t2",
            "c",
            {"id": 6},
            {"id": 6, "b": 10, "d": decimal.Decimal("3.50")},
            {"id": I32, "b": b_big, "d": dec},
            {"id": I32},
        ),
        (
            "t2",
            "c",
            {"id": 7, "b": 11},
            {"id": 7, "b": 11, "d": decimal.Decimal("4.50")},
            {"id": I32, "b": b_big, "d": dec},
            {"id": I32, "b": b_big},
        ),
        (
            "t3",
            "c",
            {"k": "kk"},
            {"k": "kk", "e": "y"},
            {
                "k": ("string", False, None, None),
                "e": ("string", False, None, "io.debezium.data.Enum"),
            },
            {"k": ("string", False, None, None)},
        ),
        ("t2", "c", None, {"z": "last"}, {"z": OPT_STR}, {}),
    ]


def test_ddl_while_stopped_applies_at_each_position_and_replays_from_history(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(5))", "INSERT INTO t VALUES (1, 'x')")
    props = base_config(kc_mariadb, mdb.name, kc_kafka, **{"include.schema.changes": "true"})
    store = InMemoryOffsetStore()
    task = start_task(props, store)
    try:
        snapshot = drain(task, 2)  # the table's schema change event, then its row
        wait_streaming(task)
        mdb.sql("INSERT INTO t VALUES (2, 'y')")
        live = drain(task, 1)
    finally:
        task.stop()
    store.commit_records(snapshot + live)
    # The runtime would have committed up to here; everything below happens while it is down.
    mdb.sql(*_WHILE_DOWN)

    again = start_task(props, store)
    try:
        records = drain(again, 8 + 9)  # 8 row events and 9 schema change events
        records += quiet(again, 1.0)
    finally:
        again.stop()
    data = [r for r in records if r.topic != "dbserver1"]
    changes = [r for r in records if r.topic == "dbserver1"]
    assert [_event(r) for r in data] == _expected()
    # MariaDB writes DROP TABLE to the binlog in its own words.
    ddl = [
        f"DROP TABLE `{q.split()[2]}` /* generated by server */" if q.startswith("DROP") else q
        for q in _WHILE_DOWN
        if not q.startswith(("INSERT", "UPDATE"))
    ]
    assert [payload(r)["ddl"] for r in changes] == ddl
    assert [[(c["type"], c["id"]) for c in payload(r)["tableChanges"]] for r in changes] == [
        [("ALTER", f'"{mdb.name}"."t"')],
        [("ALTER", f'"{mdb.name}"."t"')],
        [("ALTER", f'"{mdb.name}"."t"')],
        [("ALTER", f'"{mdb.name}"."t2"')],  # the rename, as Debezium reports it
        [("ALTER", f'"{mdb.name}"."t2"')],
        [("CREATE", f'"{mdb.name}"."t3"')],
        [("DROP", f'"{mdb.name}"."t3"')],
        [("DROP", f'"{mdb.name}"."t2"')],
        [("CREATE", f'"{mdb.name}"."t2"')],
    ]

    # A restart from the same offsets again: the schema history recorded by the previous run
    # now describes these DDL statements, and replaying it gives the same events.
    replay = start_task(props, store)
    try:
        replayed = drain(replay, 8 + 9)
        replayed += quiet(replay, 1.0)
    finally:
        replay.stop()
    assert [_event(r) for r in replayed if r.topic != "dbserver1"] == _expected()


_TYPES_DDL = """CREATE TABLE wide (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  i1 TINYINT(1) DEFAULT 1, i2 SMALLINT UNSIGNED NOT NULL DEFAULT 5, i3 MEDIUMINT,
  i4 INTEGER(11) UNSIGNED ZEROFILL, f1 FLOAT, f2 FLOAT(30), f3 DOUBLE PRECISION, f4 REAL,
  n1 NUMERIC(12, 4) DEFAULT '3.5', n2 DEC, n3 FIXED(7),
  c1 CHAR, c2 NATIONAL CHAR(3), c3 VARCHAR(40) CHARACTER SET latin1 COLLATE latin1_bin
    NOT NULL DEFAULT 'a''b', c4 CHARACTER VARYING(9) COLLATE utf8mb4_bin,
  t1 TINYTEXT, t2 MEDIUMTEXT CHARSET ascii, t3 LONGTEXT, t4 TEXT,
  b1 BINARY(4), b2 VARBINARY(10), b3 BLOB, b4 LONGBLOB,
  e1 ENUM('a', 'b,c', 'd''e') DEFAULT 'a', s1 SET('x', 'y') NOT NULL,
  d1 DATE, d2 DATETIME(3), d3 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6), d4 TIME(2),
  d5 TIMESTAMP NULL DEFAULT NULL, d6 YEAR,
  bt BIT(5), bt1 BIT, bo BOOLEAN NOT NULL DEFAULT FALSE, j JSON,
  g GEOMETRY, p POINT,
  gen INT AS (i3 + 1) VIRTUAL,
  PRIMARY KEY (id), UNIQUE KEY uk (c1), KEY ix (i2, c4(2) DESC),
  CONSTRAINT fk CHECK (i2 > 0)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='many types'"""


def test_parsed_definitions_give_the_schemas_the_server_reports(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    """A table created mid-stream gets, from the DDL alone, what information_schema says."""
    props = base_config(kc_mariadb, mdb.name, kc_kafka)
    task = start_task(props)
    try:
        wait_streaming(task)
        mdb.sql(
            _TYPES_DDL, "ALTER TABLE wide MODIFY i3 INT NOT NULL DEFAULT 0, ADD x VARCHAR(3) FIRST"
        )
        mdb.sql("INSERT INTO wide (s1, i3) VALUES ('x', 1)")
        (record,) = drain(task, 1)
        parsed = task._tables[(mdb.name, "wide")]
    finally:
        task.stop()
    assert task._settings is not None
    conn = connect(task._settings)
    try:
        server = read_tables(conn, task._settings.filters, [mdb.name])[(mdb.name, "wide")]
    finally:
        conn.close()
    reported = EventSchemas(task._settings, "mysql").table_schema(server)
    assert [c.name for c in parsed.table.columns] == [c.name for c in server.columns]
    for ours, theirs in zip(parsed.table.columns, server.columns, strict=True):
        assert (ours.name, ours.data_type, ours.type_name, ours.optional, ours.enum_values) == (
            theirs.name,
            theirs.data_type,
            theirs.type_name,
            theirs.optional,
            theirs.enum_values,
        )
        if ours.data_type in ("char", "varchar", "text", "tinytext", "mediumtext", "longtext"):
            assert ours.charset == theirs.charset, ours.name
    assert _fields(parsed.value_schema) == _fields(reported.value_schema)
    assert _fields(parsed.key_schema) == _fields(reported.key_schema)
    assert payload(record)["after"]["s1"] == "x"


def test_unparseable_ddl_fails_or_is_skipped_as_configured(
    kc_mariadb: Any, kc_kafka: str, mdb: Db
) -> None:
    mdb.sql("CREATE TABLE t (id INT PRIMARY KEY)")
    # A column type the parser does not know: statement-based CREATE TABLE ... SELECT has no
    # column list, so it is the simplest statement the server accepts and the parser cannot follow.
    bad = "CREATE TABLE t_copy SELECT * FROM t"
    props = base_config(kc_mariadb, mdb.name, kc_kafka)
    task = start_task(props)
    try:
        wait_streaming(task)
        mdb.sql("SET SESSION binlog_format = 'STATEMENT'", bad, "SET SESSION binlog_format = 'ROW'")
        with pytest.raises(Exception, match="cannot parse the DDL statement") as failure:
            drain(task, 1, timeout=10)
        assert "schema.history.internal.skip.unparseable.ddl" in str(failure.value)
    finally:
        task.stop()

    skipping = base_config(
        kc_mariadb,
        mdb.name,
        kc_kafka,
        **{"schema.history.internal.skip.unparseable.ddl": "true", "database.server.id": "10001"},
    )
    skipping["schema.history.internal.kafka.topic"] += ".skip"
    task = start_task(skipping)
    try:
        wait_streaming(task)
        mdb.sql("SET SESSION binlog_format = 'STATEMENT'", "DROP TABLE t_copy", bad)
        mdb.sql("SET SESSION binlog_format = 'ROW'", "INSERT INTO t VALUES (1)")
        (record,) = drain(task, 1)
        assert payload(record)["after"] == {"id": 1}
    finally:
        task.stop()
