"""SQL access to the server: connections, prerequisites, table definitions, binlog position."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import pymysql
import pymysql.cursors
from kconnect_sdk import ConnectError, RetriableError

from ._columns import Column, Table, column_from_information_schema
from ._config import Settings, TableFilter

__all__ = ["check_prerequisites", "connect", "read_tables", "server_charset", "server_flavour"]

log = logging.getLogger(__name__)


def connect(settings: Settings, **kwargs: Any) -> Any:
    """A pymysql connection with the session settings the connector relies on."""
    try:
        conn = pymysql.connect(
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            connect_timeout=max(1, int(settings.connect_timeout_s)),
            charset="utf8mb4",
            autocommit=True,
            **kwargs,
        )
    except pymysql.err.OperationalError as exc:
        code = exc.args[0] if exc.args else None
        message = exc.args[1] if len(exc.args) > 1 else str(exc)
        # The message names user and host but never the password.
        raise RetriableError(
            f"connector {settings.name!r}: cannot connect to {settings.host}:{settings.port} as "
            f"{settings.user!r}: ({code}) {message}; check database.hostname, database.port, "
            "database.user and database.password"
        ) from None
    with conn.cursor() as cur:
        # TIMESTAMP values are read in UTC, as Debezium reports them.
        cur.execute("SET time_zone = '+00:00'")
        for statement in settings.initial_statements:
            cur.execute(statement)
    return conn


def server_flavour(conn: Any) -> str:
    """'mariadb' or 'mysql'."""
    with conn.cursor() as cur:
        cur.execute("SELECT VERSION()")
        version = str(cur.fetchone()[0])
    return "mariadb" if "mariadb" in version.lower() else "mysql"


def server_charset(conn: Any) -> str | None:
    """The server's default character set (what a database created without one gets)."""
    with conn.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.character_set_server")
        row = cur.fetchone()
    return None if row is None or row[0] is None else str(row[0]).lower()


def _variable(cur: Any, name: str) -> str | None:
    cur.execute("SHOW GLOBAL VARIABLES LIKE %s", (name,))
    row = cur.fetchone()
    return None if row is None else str(row[1])


_NEEDED_GRANTS = ("SELECT", "RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT")


def check_prerequisites(conn: Any, settings: Settings) -> list[tuple[str, str]]:
    """Problems with the server's setup as (config key, message) pairs; empty when all is well."""
    problems: list[tuple[str, str]] = []
    where = f"{settings.host}:{settings.port}"
    with conn.cursor() as cur:
        log_bin = _variable(cur, "log_bin")
        if (log_bin or "").upper() not in ("ON", "1"):
            problems.append(
                (
                    "database.hostname",
                    f"the server at {where} has no binary log (log_bin={log_bin}); start it with --log-bin",
                )
            )
        fmt = _variable(cur, "binlog_format")
        if (fmt or "").upper() != "ROW":
            problems.append(
                (
                    "database.hostname",
                    f"the server at {where} has binlog_format={fmt}; CDC needs binlog_format=ROW (SET GLOBAL binlog_format = 'ROW' or --binlog-format=ROW)",
                )
            )
        image = _variable(cur, "binlog_row_image")
        if image is not None and image.upper() != "FULL":
            problems.append(
                (
                    "database.hostname",
                    f"the server at {where} has binlog_row_image={image}; CDC needs binlog_row_image=FULL",
                )
            )
        cur.execute("SHOW GRANTS FOR CURRENT_USER()")
        grants = " ".join(str(r[0]).upper() for r in cur.fetchall())
    if "ALL PRIVILEGES ON *.*" not in grants:
        missing = [g for g in _NEEDED_GRANTS if not _has_grant(grants, g)]
        if missing:
            problems.append(
                (
                    "database.user",
                    f"user {settings.user!r} lacks the grants {', '.join(missing)} the connector needs; "
                    f"run GRANT {', '.join(_NEEDED_GRANTS)} ON *.* TO {settings.user!r}",
                )
            )
    return problems


def _has_grant(grants: str, grant: str) -> bool:
    if grant == "REPLICATION SLAVE" and "BINLOG MONITOR" in grants:
        pass
    alternatives = {
        "REPLICATION CLIENT": ("REPLICATION CLIENT", "BINLOG MONITOR"),
        "REPLICATION SLAVE": ("REPLICATION SLAVE", "REPLICATION REPLICA"),
    }.get(grant, (grant,))
    return any(f"{a}," in grants or f"{a} ON" in grants for a in alternatives)


def databases(conn: Any, filters: TableFilter) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        return [str(r[0]) for r in cur.fetchall() if filters.database(str(r[0]))]


def read_tables(
    conn: Any, filters: TableFilter, dbs: Iterable[str] | None = None, *, schemas: bool = False
) -> dict[tuple[str, str], Table]:
    """The captured tables' definitions from information_schema; with ``schemas``, those of
    every table whose schema the schema history keeps (see ``TableFilter.schema_table``)."""
    database = filters.schema_database if schemas else filters.database
    table = filters.schema_table if schemas else filters.table
    if dbs is None:
        with conn.cursor() as cur:
            cur.execute("SHOW DATABASES")
            dbs = [str(r[0]) for r in cur.fetchall()]
    names = [d for d in dbs if database(d)]
    if not names:
        return {}
    marks = ",".join(["%s"] * len(names))
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_COLLATION, TABLE_COMMENT FROM information_schema.TABLES "
            f"WHERE TABLE_SCHEMA IN ({marks}) AND TABLE_TYPE = 'BASE TABLE'",
            names,
        )
        meta = {(r["TABLE_SCHEMA"], r["TABLE_NAME"]): r for r in cur.fetchall()}
        cur.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, "
            "DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, EXTRA, COLUMN_COMMENT, COLUMN_KEY "
            f"FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ({marks}) "
            "ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION",
            names,
        )
        columns: dict[tuple[str, str], list[Column]] = {}
        for row in cur.fetchall():
            key = (row["TABLE_SCHEMA"], row["TABLE_NAME"])
            if key in meta and table(*key):
                columns.setdefault(key, []).append(column_from_information_schema(row))
        cur.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
            f"WHERE TABLE_SCHEMA IN ({marks}) AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
            names,
        )
        keys: dict[tuple[str, str], list[str]] = {}
        for row in cur.fetchall():
            keys.setdefault((row["TABLE_SCHEMA"], row["TABLE_NAME"]), []).append(row["COLUMN_NAME"])
    tables: dict[tuple[str, str], Table] = {}
    for key, cols in columns.items():
        collation = str(meta[key].get("TABLE_COLLATION") or "")
        tables[key] = Table(
            db=key[0],
            name=key[1],
            columns=cols,
            primary_key=keys.get(key, []),
            default_charset=collation.split("_", maxsplit=1)[0] if collation else None,
            comment=meta[key].get("TABLE_COMMENT") or None,
        )
    return tables


def charset_variables(conn: Any) -> dict[str, str]:
    """The server's character_set_server and collation_server, which Debezium's snapshot
    records first so that DDL without a charset is read as the server would."""
    with conn.cursor() as cur:
        cur.execute(
            "SHOW VARIABLES WHERE Variable_name IN ('character_set_server','collation_server')"
        )
        return {str(r[0]): "" if r[1] is None else str(r[1]) for r in cur.fetchall()}


def database_locales(conn: Any) -> dict[str, tuple[str | None, str | None]]:
    """Each database's default (charset, collation)."""
    with conn.cursor() as cur:
        cur.execute(
            "SELECT schema_name, default_character_set_name, default_collation_name "
            "FROM information_schema.schemata"
        )
        return {
            str(r[0]): (None if r[1] is None else str(r[1]), None if r[2] is None else str(r[2]))
            for r in cur.fetchall()
            if r[0] is not None
        }


def show_create(conn: Any, db: str, table: str) -> str:
    with conn.cursor() as cur:
        cur.execute(f"SHOW CREATE TABLE `{db.replace('`', '``')}`.`{table.replace('`', '``')}`")
        return str(cur.fetchone()[1])


def show_create_database(conn: Any, db: str) -> str:
    with conn.cursor() as cur:
        cur.execute(f"SHOW CREATE DATABASE `{db.replace('`', '``')}`")
        return str(cur.fetchone()[1])


def binlog_position(conn: Any) -> tuple[str, int, str | None]:
    """(file, position, GTID position or None) of the server's binlog now."""
    with conn.cursor() as cur:
        try:
            cur.execute("SHOW MASTER STATUS")
        except pymysql.err.Error:
            cur.execute("SHOW BINARY LOG STATUS")
        row = cur.fetchone()
        if row is None:
            raise ConnectError(
                "the server reports no binary log position (SHOW MASTER STATUS is empty); is log_bin on?"
            )
        file, pos = str(row[0]), int(row[1])
        gtids: str | None = None
        try:
            cur.execute("SELECT @@GLOBAL.gtid_binlog_pos")
            value = cur.fetchone()[0]
            gtids = str(value) if value else None
        except pymysql.err.Error:
            executed = row[4] if len(row) > 4 else None
            gtids = str(executed).replace("\n", "") if executed else None
    return file, pos, gtids


def binlog_files(conn: Any) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SHOW BINARY LOGS")
        return [str(r[0]) for r in cur.fetchall()]


def gtid_mode(conn: Any, flavour: str) -> bool:
    """Whether the server writes GTIDs: MariaDB always does; MySQL when ``gtid_mode`` is ON."""
    if flavour == "mariadb":
        return True
    with conn.cursor() as cur:
        try:
            cur.execute("SELECT @@GLOBAL.gtid_mode")
        except pymysql.err.Error:
            return False
        row = cur.fetchone()
    return row is not None and str(row[0]).upper() == "ON"


def gtid_sets(conn: Any, flavour: str) -> tuple[str, str]:
    """(GTIDs the server's binlogs know, GTIDs already purged from them).

    MySQL: ``gtid_executed`` and ``gtid_purged``. MariaDB: ``gtid_binlog_pos`` and the GTID
    state at the start of the oldest binlog file (everything up to it was purged).
    """
    with conn.cursor() as cur:
        if flavour == "mariadb":
            cur.execute("SELECT @@GLOBAL.gtid_binlog_pos")
            available = str(cur.fetchone()[0] or "")
            files = binlog_files(conn)
            purged = ""
            if files:
                cur.execute("SELECT BINLOG_GTID_POS(%s, 4)", (files[0],))
                row = cur.fetchone()
                purged = str(row[0] or "") if row else ""
            return available, purged
        cur.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")
        row = cur.fetchone()
        return (str(row[0] or "").replace("\n", ""), str(row[1] or "").replace("\n", ""))
