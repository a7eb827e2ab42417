"""Databases: connecting, naming tables, describing result columns, streaming rows.

One dialect per database family, each answering what Confluent's dialect answers through
JDBC metadata: the JDBC type, precision, scale, signedness and nullability of each result
column, the database's current time, how identifiers are quoted and which tables exist.
Like Confluent's dialects, each also decides its columns' Connect schemas and how its
driver's values become Connect values: the generic mapping (``_mapping``), overridden
where a database's types or driver differ.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, unquote

import sqlalchemy
from kconnect_sdk import ConfigError, ConnectError, Decimal, Schema, Timestamp, Type
from kconnect_sdk.java import retry_with_backoff
from sqlalchemy.engine import URL, make_url

from ._column import SCALE_UNSET, Column, SqlType
from ._mapping import (
    NUMERIC_TYPE_SCALE_HIGH,
    Converter,
    decimal_schema,
    field_schema,
    timestamp_converter,
    value_converter,
    wrap_int8,
)

__all__ = [
    "Dialect",
    "TableId",
    "dialect_for",
]

log = logging.getLogger(__name__)


# Confluent's VALIDATE_QUERY_TIMEOUT_SECONDS.
_VALIDATE_TIMEOUT_S: Final = 60


@dataclass(frozen=True, slots=True)
class TableId:
    """A table as JDBC names it: MySQL puts the database in the catalog, PostgreSQL uses the
    schema, SQLite neither."""

    catalog: str | None
    schema: str | None
    table: str

    @property
    def fqn(self) -> str:
        """The unquoted fully qualified name: Confluent's source partition ``table``."""
        return ".".join(p for p in (self.catalog, self.schema, self.table) if p)


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """A table column from the catalog: for validation and the primary key."""

    name: str
    nullable: bool
    auto_increment: bool


_JDBC_URL = re.compile(r"^jdbc:(?P<kind>postgresql|mysql|mariadb|sqlite):(?P<rest>.*)$", re.I)


def to_sqlalchemy_url(url: str, user: str | None, password: str | None) -> URL:
    """A SQLAlchemy URL from a JDBC or SQLAlchemy URL, with ``connection.user/password``.

    The user and password keys win over those in the URL, as JDBC's DriverManager does.
    """
    match = _JDBC_URL.match(url.strip())
    if match is None:
        try:
            parsed = make_url(url.strip())
        except sqlalchemy.exc.ArgumentError as exc:
            raise ConfigError(
                f"connection.url {sanitized_url(url)!r} is neither a JDBC URL (jdbc:postgresql://, "
                "jdbc:mysql://, jdbc:mariadb://, jdbc:sqlite:) nor a SQLAlchemy URL",
                name="connection.url",
            ) from exc
    else:
        kind, rest = match["kind"].lower(), match["rest"]
        if kind == "sqlite":
            path = rest
            if path in ("", ":memory:"):
                parsed = URL.create("sqlite")
            else:
                parsed = URL.create("sqlite", database=path.split("?", 1)[0])
        else:
            if not rest.startswith("//"):
                raise ConfigError(
                    f"connection.url {sanitized_url(url)!r}: expected "
                    f"jdbc:{kind}://host[:port]/database",
                    name="connection.url",
                )
            # JDBC URLs may list several hosts; the first is used.
            authority, _, tail = rest[2:].partition("/")
            database, _, query_text = tail.partition("?")
            creds, _, hostport = authority.rpartition("@")
            hostport = hostport.split(",")[0]
            host, _, port = hostport.partition(":")
            query = dict(parse_qsl(query_text, keep_blank_values=True))
            url_user = query.pop("user", None)
            url_password = query.pop("password", None)
            if creds:
                cu, _, cp = creds.partition(":")
                url_user, url_password = unquote(cu), unquote(cp) if cp else url_password
            driver = "postgresql+psycopg" if kind == "postgresql" else "mysql+pymysql"
            parsed = URL.create(
                driver,
                username=url_user,
                password=url_password,
                host=host or "localhost",
                port=int(port) if port else None,
                database=unquote(database) or None,
            )
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() in ("mysql", "mariadb") and "+" not in parsed.drivername:
        parsed = parsed.set(drivername="mysql+pymysql")
    if user:
        parsed = parsed.set(username=user)
    if password:
        parsed = parsed.set(password=password)
    return parsed


_SECRET_QUERY: Final = re.compile(r"(?i)([?&][^=&]*password[^=&]*=)[^&]*")
_SECRET_HOST_PROPERTY: Final = re.compile(r"(?i)([(,]password=)[^,)]*")
# user:password@ after "//", or after ":" in a URL missing its "//" (shown in its error).
_SECRET_USERINFO: Final = re.compile(r"([:/][^:/@?&]+:)[^@/?&]*@")


def sanitized_url(url: str) -> str:
    """``url`` with every password in it replaced by ``****``, as Confluent's dialects log it:
    query properties whose name contains "password" (``password``, ``sslpassword``,
    ``javax.net.ssl.keyStorePassword``…), MySQL's ``(host=…,password=…)`` host properties,
    and ``user:password@``."""
    url = _SECRET_QUERY.sub(r"\1****", url)
    url = _SECRET_HOST_PROPERTY.sub(r"\1****", url)
    return _SECRET_USERINFO.sub(r"\1****@", url)


def _aware(value: dt.datetime) -> dt.datetime:
    # A naive datetime means UTC to the SDK; astimezone() would take it for the host's
    # local time.
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


class Dialect:
    """Shared behaviour; subclasses fill in what differs between databases."""

    name: str = "GenericDatabaseDialect"
    quote_char: str = '"'
    paramstyle_percent: bool = True

    def __init__(self, url: URL, *, quote: bool, zone: dt.tzinfo) -> None:
        self.url = url
        self.quote_identifiers = quote
        self.zone = zone
        self.display_url = sanitized_url(url.render_as_string(hide_password=True))

    # -- connections -----------------------------------------------------------------------

    def connect(self, attempts: int, backoff_s: float, stopping: Callable[[], bool]) -> Any:
        """A DBAPI connection, retried ``attempts`` times ``backoff_s`` apart (without the
        pauses once ``stopping()``)."""

        def failed(attempt: int, exc: BaseException, _pause: float = 0.0) -> None:
            log.warning(
                "Connecting to %s failed (attempt %d of %d): %s",
                self.display_url,
                attempt,
                attempts,
                self.describe_error(exc),
            )

        def pause(seconds: float) -> None:
            if not stopping():
                time.sleep(seconds)

        try:
            return retry_with_backoff(
                self._connect, attempts=attempts, backoff_s=backoff_s, on_retry=failed, sleep=pause
            )
        except Exception as exc:
            failed(attempts, exc)
            raise ConnectError(
                f"Could not connect to {self.display_url} after {attempts} attempt(s): "
                f"{self.describe_error(exc)}; check connection.url, connection.user and "
                "connection.password, and that the database is running"
            ) from None

    def describe_error(self, exc: BaseException | None) -> str:
        text = f"{type(exc).__name__}: {exc}"
        password = self.url.password
        if password:
            text = text.replace(str(password), "****")
        return text

    def _connect(self) -> Any:
        raise NotImplementedError

    def close(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            conn.close()

    # -- SQL text --------------------------------------------------------------------------

    def quote(self, name: str) -> str:
        if not self.quote_identifiers:
            return name
        q = self.quote_char
        return q + name.replace(q, q + q) + q

    def table_sql(self, table: TableId) -> str:
        return ".".join(self.quote(p) for p in (table.catalog, table.schema, table.table) if p)

    def placeholder(self) -> str:
        return "%s" if self.paramstyle_percent else "?"

    def escape_percent(self, sql: str) -> str:
        """``sql`` made safe to pass with parameters (a literal % must be doubled)."""
        return sql.replace("%", "%%") if self.paramstyle_percent else sql

    def timestamp_sql(self, column_sql: str) -> str:
        """The expression a timestamp column is compared and ordered by."""
        return column_sql

    uses_catalog: bool = False
    """Whether a two-part name is ``catalog.table`` (MySQL's databases) rather than
    ``schema.table``."""

    def parse_table_identifier(self, text: str) -> TableId:
        """A table named as Confluent's task configs name it: ``t``, ``s.t``, ``c.s.t``, each
        part optionally quoted with the dialect's quote (``"public"."orders"``)."""
        parts: list[str] = []
        rest = text.strip()
        q = self.quote_char
        while rest:
            if rest.startswith(q):
                end = rest.find(q, 1)
                while end >= 0 and rest[end + 1 : end + 2] == q:
                    end = rest.find(q, end + 2)
                if end < 0:
                    raise ConfigError(
                        f"table {text!r}: missing closing {q} in the qualified name",
                        name="tables",
                    )
                parts.append(rest[1:end].replace(q + q, q))
                rest = rest[end + 1 :]
            else:
                segment, _, tail = rest.partition(".")
                parts.append(segment)
                rest = "." + tail if tail else ""
            if rest.startswith("."):
                rest = rest[1:]
                if not rest:
                    raise ConfigError(
                        f"table {text!r}: the qualified name ends in '.'", name="tables"
                    )
        if not parts or len(parts) > 3 or not parts[-1]:
            raise ConfigError(f"table {text!r} is not a valid qualified name", name="tables")
        if len(parts) == 1:
            return TableId(None, None, parts[0])
        if len(parts) == 3:
            return TableId(parts[0] or None, parts[1] or None, parts[2])
        if self.uses_catalog:
            return TableId(parts[0], None, parts[1])
        return TableId(None, parts[0], parts[1])

    def is_transient(self, exc: BaseException) -> bool:
        """Whether a failed query may succeed when tried again (a lost connection, a lock
        timeout), as opposed to a statement the database will always refuse (no such table,
        bad SQL) or a fault in the connector itself."""
        # DBAPI's OperationalError/InterfaceError: the connection or the server's state.
        if any(c.__name__ in ("OperationalError", "InterfaceError") for c in type(exc).__mro__):
            return True
        return isinstance(exc, OSError)

    # -- catalog ---------------------------------------------------------------------------

    def list_tables(
        self, conn: Any, types: Sequence[str], schema_pattern: str | None, catalog: str | None
    ) -> list[TableId]:
        raise NotImplementedError

    def table_columns(self, conn: Any, table: TableId) -> list[ColumnInfo]:
        raise NotImplementedError

    def primary_key(self, conn: Any, table: TableId) -> list[str]:
        raise NotImplementedError

    def current_time(self, conn: Any) -> dt.datetime:
        """The database's current time, as an aware datetime."""
        raise NotImplementedError

    # -- results ---------------------------------------------------------------------------

    def validate_query(self, conn: Any, sql: str) -> None:
        """Have the database parse ``sql`` without running it, as Confluent's validation
        prepares a custom query and reads its metadata.

        Raises:
            Exception: the driver's error when the database refuses the query.
        """
        raise NotImplementedError

    def open_cursor(self, conn: Any, sql: str, params: Sequence[Any] | None) -> Any:
        """A cursor over ``sql`` that streams rows rather than loading them all."""
        raise NotImplementedError

    def describe(
        self,
        conn: Any,
        cursor: Any,
        table: TableId | None,
        timestamp_columns: Sequence[str] = (),
    ) -> list[Column]:
        """The result's columns; ``timestamp_columns`` are the configured timestamp columns,
        for databases whose query results do not say a column holds timestamps."""
        raise NotImplementedError

    def end_query(self, conn: Any, cursor: Any) -> None:
        """Close ``cursor`` and end its transaction, so the next query sees new rows."""
        with contextlib.suppress(Exception):
            cursor.close()
        conn.commit()

    def bind_timestamp(self, value: dt.datetime, column: Column | None) -> Any:
        """A datetime (naive means UTC) as the parameter a comparison with ``column`` needs."""
        value = _aware(value)
        if column is not None and column.instant:
            return value.astimezone(dt.UTC)
        return value.astimezone(self.zone).replace(tzinfo=None)

    # -- types -----------------------------------------------------------------------------

    def field_schema(self, column: Column, numeric_mapping: str) -> Schema | None:
        """The Connect schema of ``column`` (required; None leaves the column out)."""
        return field_schema(column, numeric_mapping)

    def value_converter(self, column: Column, schema: Schema) -> Converter | None:
        """How the driver's value of ``column`` becomes a value of ``schema``; None when it
        already is one."""
        return value_converter(column, schema, self.zone)


# --------------------------------------------------------------------------------------------
# PostgreSQL


_PG_INTEGERS: Final = frozenset({Type.INT8, Type.INT16, Type.INT32, Type.INT64})
_PG_TYPES: Final[dict[int, tuple[SqlType, str]]] = {
    16: (SqlType.BIT, "bool"),
    17: (SqlType.BINARY, "bytea"),
    18: (SqlType.VARCHAR, "char"),
    19: (SqlType.VARCHAR, "name"),
    20: (SqlType.BIGINT, "int8"),
    21: (SqlType.SMALLINT, "int2"),
    23: (SqlType.INTEGER, "int4"),
    25: (SqlType.VARCHAR, "text"),
    26: (SqlType.BIGINT, "oid"),
    114: (SqlType.OTHER, "json"),
    142: (SqlType.VARCHAR, "xml"),
    700: (SqlType.REAL, "float4"),
    701: (SqlType.DOUBLE, "float8"),
    1042: (SqlType.VARCHAR, "bpchar"),
    1043: (SqlType.VARCHAR, "varchar"),
    1082: (SqlType.DATE, "date"),
    1083: (SqlType.TIME, "time"),
    1114: (SqlType.TIMESTAMP, "timestamp"),
    1184: (SqlType.TIMESTAMP, "timestamptz"),
    1266: (SqlType.TIME, "timetz"),
    1560: (SqlType.BIT, "bit"),
    1562: (SqlType.BIT, "varbit"),
    1700: (SqlType.NUMERIC, "numeric"),
    2950: (SqlType.OTHER, "uuid"),
    3802: (SqlType.OTHER, "jsonb"),
}


class PostgreSqlDialect(Dialect):
    name = "PostgreSqlDatabaseDialect"

    def _connect(self) -> Any:
        import psycopg

        u = self.url
        kwargs: dict[str, Any] = {
            "host": u.host,
            "port": u.port,
            "user": u.username,
            "password": u.password,
            "dbname": u.database,
            "connect_timeout": 10,
        }
        kwargs.update({str(k): v for k, v in u.query.items()})
        conn = psycopg.connect(**{k: v for k, v in kwargs.items() if v is not None})
        # json/jsonb as their text, as pgjdbc's getString gives it (no parse, no re-encode).
        from psycopg.types.string import TextLoader

        for name in ("json", "jsonb"):
            conn.adapters.register_loader(name, TextLoader)
        return conn

    def list_tables(
        self, conn: Any, types: Sequence[str], schema_pattern: str | None, catalog: str | None
    ) -> list[TableId]:
        kinds = _table_kinds(types)
        with conn.cursor() as cur:
            cur.execute(
                "SELECT table_schema, table_name, table_type FROM information_schema.tables "
                "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
                "AND table_schema LIKE %s ORDER BY table_type, table_schema, table_name",
                (schema_pattern or "%",),
            )
            rows = cur.fetchall()
        conn.commit()
        return [
            TableId(None, schema, name)
            for schema, name, kind in rows
            if ("VIEW" if kind == "VIEW" else "TABLE") in kinds
        ]

    def table_columns(self, conn: Any, table: TableId) -> list[ColumnInfo]:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT column_name, is_nullable, column_default, is_identity "
                "FROM information_schema.columns WHERE table_schema = COALESCE(%s, "
                "current_schema()) AND table_name = %s ORDER BY ordinal_position",
                (table.schema, table.table),
            )
            rows = cur.fetchall()
        conn.commit()
        return [
            ColumnInfo(
                name,
                nullable == "YES",
                identity == "YES" or str(default or "").startswith("nextval("),
            )
            for name, nullable, default, identity in rows
        ]

    def primary_key(self, conn: Any, table: TableId) -> list[str]:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT k.column_name FROM information_schema.table_constraints c "
                "JOIN information_schema.key_column_usage k ON c.constraint_name = "
                "k.constraint_name AND c.table_schema = k.table_schema AND c.table_name = "
                "k.table_name WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = "
                "COALESCE(%s, current_schema()) AND c.table_name = %s ORDER BY k.ordinal_position",
                (table.schema, table.table),
            )
            rows = cur.fetchall()
        conn.commit()
        return [r[0] for r in rows]

    def current_time(self, conn: Any) -> dt.datetime:
        # In a transaction of its own, so CURRENT_TIMESTAMP is now, not a stale start time.
        with conn.cursor() as cur:
            cur.execute("SELECT CURRENT_TIMESTAMP")
            row = cur.fetchone()
        conn.commit()
        value: dt.datetime = row[0]
        return value

    def validate_query(self, conn: Any, sql: str) -> None:
        # PREPARE parses and plans without running; no parameters, so psycopg sends the
        # text as it is (a literal % stays one).
        try:
            with conn.cursor() as cur:
                cur.execute(f"SET LOCAL statement_timeout = {_VALIDATE_TIMEOUT_S * 1000}")
                cur.execute(f"PREPARE kconnect_validate AS {sql}")
                cur.execute("DEALLOCATE kconnect_validate")
        finally:
            conn.rollback()

    def open_cursor(self, conn: Any, sql: str, params: Sequence[Any] | None) -> Any:
        # A named (server-side) cursor: rows come over in fetchmany-sized chunks.
        cursor = conn.cursor(name=f"kconnect_jdbc_{id(conn):x}_{time.monotonic_ns():x}")
        cursor.itersize = 2000
        try:
            cursor.execute(sql, params)
        except BaseException:
            with contextlib.suppress(Exception):
                cursor.close()
            raise
        return cursor

    def describe(
        self,
        conn: Any,
        cursor: Any,
        table: TableId | None,
        timestamp_columns: Sequence[str] = (),
    ) -> list[Column]:
        description = cursor.description or []
        result = cursor.pgresult
        # Nullability and bit lengths come from the base table columns, as pgjdbc's
        # ResultSetMetaData finds them.
        origins: dict[tuple[int, int], tuple[bool, int]] = {}
        wanted = []
        if result is not None:
            for i in range(len(description)):
                oid, number = result.ftable(i), result.ftablecol(i)
                if oid:
                    wanted.append((oid, number))
        if wanted:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT attrelid::int8, attnum::int8, attnotnull, atttypmod FROM pg_attribute "
                    "WHERE (attrelid, attnum) IN (SELECT * FROM unnest(%s::oid[], %s::int2[]))",
                    ([w[0] for w in wanted], [w[1] for w in wanted]),
                )
                for relid, num, notnull, typmod in cur.fetchall():
                    origins[(relid, num)] = (bool(notnull), typmod)
        columns = []
        for i, d in enumerate(description):
            sql_type, type_name = _PG_TYPES.get(d.type_code, (SqlType.OTHER, str(d.type_code)))
            origin = None
            if result is not None and result.ftable(i):
                origin = origins.get((result.ftable(i), result.ftablecol(i)))
            nullable = not origin[0] if origin is not None else True
            precision = d.precision if d.precision is not None else 0
            scale = d.scale if d.scale is not None else 0
            if sql_type is SqlType.BIT:
                precision = 1 if type_name == "bool" else (origin[1] if origin else 1)
            columns.append(
                Column(
                    name=d.name,
                    sql_type=sql_type,
                    type_name=type_name,
                    precision=precision,
                    scale=scale,
                    nullable=nullable,
                    instant=type_name == "timestamptz",
                    as_text=type_name in ("json", "jsonb", "uuid"),
                )
            )
        return columns

    def field_schema(self, column: Column, numeric_mapping: str) -> Schema | None:
        t, precision = column.sql_type, column.precision
        if t is SqlType.BIT:
            # PostgreSqlDatabaseDialect: bool and bit(1) are BOOLEAN, bit(2..8) INT8, else BYTES.
            if precision <= 1:
                return Schema.BOOLEAN
            return Schema.INT8 if precision <= 8 else Schema.BYTES
        if t in (SqlType.NUMERIC, SqlType.DECIMAL) and precision == 0:
            # A NUMERIC declared without a precision holds any number: a Decimal that keeps
            # every fractional digit it can hold, whatever numeric.mapping asks for.
            unfixed = column.scale in (0, SCALE_UNSET)
            return decimal_schema(column, NUMERIC_TYPE_SCALE_HIGH if unfixed else column.scale)
        return super().field_schema(column, numeric_mapping)

    def value_converter(self, column: Column, schema: Schema) -> Converter | None:
        # psycopg gives Python's bool, int and str, and a NUMERIC(p, s) value with exactly s
        # decimals; bit strings come as text of 0s and 1s.
        t, st = column.sql_type, schema.type
        if schema.name == Decimal.LOGICAL_NAME:
            if column.precision > 0 and column.scale >= 0:
                return None
        elif schema.name is None:
            if t is SqlType.BIT:
                return _pg_bits(column, st)
            if st is Type.BOOLEAN:
                return None
            if st is Type.STRING:
                return str if column.as_text else None
            if st in _PG_INTEGERS and not (
                t in (SqlType.NUMERIC, SqlType.DECIMAL)
                or (t is SqlType.BIGINT and not column.signed)
            ):
                return None
        return super().value_converter(column, schema)


def _pg_bits(column: Column, schema_type: Type) -> Converter | None:
    """A bit(n) column's text (``'0101'``) as its Connect value: BOOLEAN, INT8 or BYTES."""
    if schema_type is Type.BOOLEAN:
        if column.type_name == "bool":
            return None
        return lambda v: v == "1" if isinstance(v, str) else bool(v)
    if schema_type is Type.INT8:
        return lambda v: wrap_int8(int(v, 2))
    n = max(column.precision, 1)
    return lambda v: int(v, 2).to_bytes((n + 7) // 8, "big")


# --------------------------------------------------------------------------------------------
# MySQL / MariaDB

# pymysql.constants.FIELD_TYPE and FLAG values.
_MY_DECIMAL, _MY_TINY, _MY_SHORT, _MY_LONG, _MY_FLOAT, _MY_DOUBLE = 0, 1, 2, 3, 4, 5
_MY_NULL, _MY_TIMESTAMP, _MY_LONGLONG, _MY_INT24, _MY_DATE, _MY_TIME = 6, 7, 8, 9, 10, 11
_MY_DATETIME, _MY_YEAR, _MY_NEWDATE, _MY_VARCHAR, _MY_BIT = 12, 13, 14, 15, 16
_MY_JSON, _MY_NEWDECIMAL, _MY_ENUM, _MY_SET = 245, 246, 247, 248
_MY_BLOBS = (249, 250, 251, 252)
_MY_STRINGS = (_MY_VARCHAR, 253, 254, _MY_ENUM, _MY_SET)
_MY_GEOMETRY = 255
_FLAG_NOT_NULL, _FLAG_UNSIGNED = 1, 32
_BINARY_CHARSET = 63


class MySqlDialect(Dialect):
    name = "MySqlDatabaseDialect"
    quote_char = "`"
    uses_catalog = True

    def _connect(self) -> Any:
        import pymysql

        u = self.url
        kwargs: dict[str, Any] = {
            "host": u.host or "localhost",
            "port": u.port or 3306,
            "user": u.username or "",
            "password": u.password or "",
            "database": u.database,
            "connect_timeout": 10,
            "charset": "utf8mb4",
            "autocommit": False,
            # TIMESTAMP columns are instants: read them in UTC. DATETIME columns are
            # wall-clock values that no session time zone changes.
            "init_command": "SET time_zone = '+00:00'",
        }
        return pymysql.connect(**kwargs)

    def list_tables(
        self, conn: Any, types: Sequence[str], schema_pattern: str | None, catalog: str | None
    ) -> list[TableId]:
        kinds = _table_kinds(types)
        with conn.cursor() as cur:
            if catalog:
                cur.execute(
                    "SELECT table_schema, table_name, table_type FROM information_schema.tables "
                    "WHERE table_schema LIKE %s AND table_schema NOT IN ('mysql', "
                    "'information_schema', 'performance_schema', 'sys') "
                    "ORDER BY table_type, table_schema, table_name",
                    (catalog,),
                )
            else:
                cur.execute(
                    "SELECT table_schema, table_name, table_type FROM information_schema.tables "
                    "WHERE table_schema = DATABASE() ORDER BY table_type, table_schema, table_name"
                )
            rows = cur.fetchall()
        conn.commit()
        return [
            TableId(schema, None, name)
            for schema, name, kind in rows
            if ("VIEW" if kind == "VIEW" else "TABLE") in kinds and kind != "SEQUENCE"
        ]

    def table_columns(self, conn: Any, table: TableId) -> list[ColumnInfo]:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT column_name, is_nullable, extra FROM information_schema.columns "
                "WHERE table_schema = COALESCE(%s, DATABASE()) AND table_name = %s "
                "ORDER BY ordinal_position",
                (table.catalog, table.table),
            )
            rows = cur.fetchall()
        conn.commit()
        return [
            ColumnInfo(name, nullable == "YES", "auto_increment" in (extra or "").lower())
            for name, nullable, extra in rows
        ]

    def primary_key(self, conn: Any, table: TableId) -> list[str]:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT column_name FROM information_schema.key_column_usage WHERE "
                "constraint_name = 'PRIMARY' AND table_schema = COALESCE(%s, DATABASE()) AND "
                "table_name = %s ORDER BY ordinal_position",
                (table.catalog, table.table),
            )
            rows = cur.fetchall()
        conn.commit()
        return [r[0] for r in rows]

    def current_time(self, conn: Any) -> dt.datetime:
        with conn.cursor() as cur:
            cur.execute("SELECT UTC_TIMESTAMP(6)")
            row = cur.fetchone()
        conn.commit()
        value: dt.datetime = row[0]
        return value.replace(tzinfo=dt.UTC)

    def validate_query(self, conn: Any, sql: str) -> None:
        try:
            with conn.cursor() as cur:
                cur.execute("PREPARE kconnect_validate FROM %s", (sql,))
                cur.execute("DEALLOCATE PREPARE kconnect_validate")
        finally:
            conn.rollback()

    def open_cursor(self, conn: Any, sql: str, params: Sequence[Any] | None) -> Any:
        import pymysql.cursors

        # Unbuffered: rows are read off the socket as they are fetched.
        cursor = conn.cursor(pymysql.cursors.SSCursor)
        cursor.execute(sql, params)
        return cursor

    def end_query(self, conn: Any, cursor: Any) -> None:
        # Closing an unbuffered cursor reads (and drops) what is left of its result.
        with contextlib.suppress(Exception):
            cursor.close()
        conn.commit()

    def bind_timestamp(self, value: dt.datetime, column: Column | None) -> Any:
        value = _aware(value)
        if column is not None and column.instant:
            # The session reads and writes TIMESTAMP in UTC (see _connect).
            return value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.astimezone(self.zone).replace(tzinfo=None)

    def describe(
        self,
        conn: Any,
        cursor: Any,
        table: TableId | None,
        timestamp_columns: Sequence[str] = (),
    ) -> list[Column]:
        result = cursor._result
        fields = result.fields if result is not None else []
        return [_mysql_column(f) for f in fields]


def _mysql_column(f: Any) -> Column:
    code, flags, length, scale = f.type_code, f.flags, f.length, f.scale
    name = f.name
    signed = not flags & _FLAG_UNSIGNED
    nullable = not flags & _FLAG_NOT_NULL
    binary = f.charsetnr == _BINARY_CHARSET

    def col(sql_type: SqlType, type_name: str, **kw: Any) -> Column:
        return Column(name, sql_type, type_name, signed=signed, nullable=nullable, **kw)

    if code == _MY_TINY:
        # Connector/J's tinyInt1isBit: TINYINT(1) is reported as BIT.
        if length == 1:
            return col(SqlType.BIT, "TINYINT", precision=1)
        return col(SqlType.TINYINT, "TINYINT")
    if code == _MY_SHORT:
        return col(SqlType.SMALLINT, "SMALLINT")
    if code in (_MY_LONG, _MY_INT24):
        return col(SqlType.INTEGER, "INT")
    if code == _MY_LONGLONG:
        return col(SqlType.BIGINT, "BIGINT")
    if code == _MY_FLOAT:
        return col(SqlType.REAL, "FLOAT")
    if code == _MY_DOUBLE:
        return col(SqlType.DOUBLE, "DOUBLE")
    if code in (_MY_DECIMAL, _MY_NEWDECIMAL):
        precision = length - (1 if scale > 0 else 0) - (1 if signed else 0)
        return col(SqlType.DECIMAL, "DECIMAL", precision=max(precision, 0), scale=scale)
    if code in (_MY_DATE, _MY_NEWDATE):
        return col(SqlType.DATE, "DATE")
    if code == _MY_YEAR:
        # Connector/J's yearIsDateType: YEAR reads as the DATE of January 1st.
        return col(SqlType.DATE, "YEAR")
    if code == _MY_TIME:
        return col(SqlType.TIME, "TIME")
    if code == _MY_DATETIME:
        return col(SqlType.TIMESTAMP, "DATETIME")
    if code == _MY_TIMESTAMP:
        return col(SqlType.TIMESTAMP, "TIMESTAMP", instant=True)
    if code == _MY_BIT:
        return col(SqlType.BIT, "BIT", precision=length)
    if code in _MY_STRINGS or code == _MY_JSON or code in _MY_BLOBS:
        if binary and code != _MY_JSON:
            return col(SqlType.BINARY, "BLOB" if code in _MY_BLOBS else "VARBINARY")
        return col(SqlType.VARCHAR, "VARCHAR")
    if code == _MY_GEOMETRY:
        return col(SqlType.BINARY, "GEOMETRY")
    return col(SqlType.OTHER, f"type {code}")


# --------------------------------------------------------------------------------------------
# SQLite

_DECLARED = re.compile(r"^\s*([A-Za-z ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$")


def _sqlite_type(declared: str) -> tuple[SqlType, int, int]:
    match = _DECLARED.match(declared or "")
    base = (match[1] if match else declared or "").upper().strip()
    precision = int(match[2]) if match and match[2] else 0
    scale = int(match[3]) if match and match[3] else 0
    if base in ("BOOLEAN", "BOOL"):
        return SqlType.BOOLEAN, precision, scale
    if base == "TINYINT":
        return SqlType.TINYINT, precision, scale
    if base in ("SMALLINT", "INT2"):
        return SqlType.SMALLINT, precision, scale
    if base in ("BIGINT", "INT8", "UNSIGNED BIG INT"):
        return SqlType.BIGINT, precision, scale
    if "INT" in base:
        return SqlType.INTEGER, precision, scale
    if base in ("DOUBLE", "DOUBLE PRECISION"):
        return SqlType.DOUBLE, precision, scale
    if base == "FLOAT":
        return SqlType.FLOAT, precision, scale
    if base == "REAL":
        return SqlType.REAL, precision, scale
    if base == "DECIMAL":
        return SqlType.DECIMAL, precision, scale
    if base == "NUMERIC":
        return SqlType.NUMERIC, precision, scale
    if base == "DATE":
        return SqlType.DATE, precision, scale
    if base in ("DATETIME", "TIMESTAMP"):
        return SqlType.TIMESTAMP, precision, scale
    if base == "TIME":
        return SqlType.TIME, precision, scale
    if "BLOB" in base or "BINARY" in base:
        return SqlType.BINARY, precision, scale
    return SqlType.VARCHAR, precision, scale


class SqliteDialect(Dialect):
    name = "SqliteDatabaseDialect"
    paramstyle_percent = False

    def _connect(self) -> Any:
        database = self.url.database or ":memory:"
        if database != ":memory:" and not database.startswith("file:"):
            import os

            if not os.path.exists(database):
                raise ConnectError(f"SQLite database file {database!r} does not exist")
        conn = sqlite3.connect(database, check_same_thread=False, timeout=30)
        return conn

    def list_tables(
        self, conn: Any, types: Sequence[str], schema_pattern: str | None, catalog: str | None
    ) -> list[TableId]:
        kinds = _table_kinds(types)
        rows = conn.execute(
            "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
        conn.commit()
        return [TableId(None, None, name) for name, kind in rows if kind.upper() in kinds]

    def table_columns(self, conn: Any, table: TableId) -> list[ColumnInfo]:
        rows = conn.execute(f"PRAGMA table_info({self._q(table.table)})").fetchall()
        sql_row = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (table.table,)
        ).fetchone()
        conn.commit()
        autoinc = bool(sql_row and sql_row[0] and "AUTOINCREMENT" in sql_row[0].upper())
        return [
            ColumnInfo(name, not notnull and not pk, bool(pk) and autoinc)
            for _, name, _, notnull, _, pk in rows
        ]

    def primary_key(self, conn: Any, table: TableId) -> list[str]:
        rows = conn.execute(f"PRAGMA table_info({self._q(table.table)})").fetchall()
        conn.commit()
        return [r[1] for r in sorted((r for r in rows if r[5]), key=lambda r: r[5])]

    def _q(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def _declared_by_name(self, conn: Any, names: Sequence[str]) -> dict[str, str]:
        """Declared types of a query's columns, looked up by name in the database's tables.

        sqlite3 does not give a result column's declared type (sqlite-jdbc does, through
        sqlite3_column_decltype); a name declared with one type in every table that has it
        is taken to be that column. Names declared differently stay undeclared.
        """
        wanted = set(names)
        found: dict[str, set[str]] = {}
        tables = conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        ).fetchall()
        for (table_name,) in tables:
            for _, name, decl, *_ in conn.execute(f"PRAGMA table_info({self._q(table_name)})"):
                if name in wanted and decl:
                    found.setdefault(name, set()).add(decl.upper())
        return {name: decls.pop() for name, decls in found.items() if len(decls) == 1}

    def current_time(self, conn: Any) -> dt.datetime:
        row = conn.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')").fetchone()
        conn.commit()
        return dt.datetime.fromisoformat(row[0]).replace(tzinfo=dt.UTC)

    def validate_query(self, conn: Any, sql: str) -> None:
        # EXPLAIN compiles the statement (tables and columns resolved) without running it.
        try:
            conn.execute(f"EXPLAIN {sql}").close()
        finally:
            conn.rollback()

    def open_cursor(self, conn: Any, sql: str, params: Sequence[Any] | None) -> Any:
        # sqlite3 steps the statement as rows are fetched: it streams by nature.
        return _PeekingCursor(conn.execute(sql, params or ()))

    def timestamp_sql(self, column_sql: str) -> str:
        # SQLite keeps timestamps as text, and text compares character by character:
        # '...00.010' sorts after '...00.01' and '...00' before '...00.000', though each pair
        # is one instant. Compare a fixed-width form instead, 'YYYY-MM-DD HH:MM:SS.ffffff'
        # (an ISO 'T' read as a space, the fraction padded to microseconds), so every way of
        # writing an instant compares as that instant.
        return (
            f"(substr(replace({column_sql},'T',' '),1,19)||'.'||"
            f"substr(substr({column_sql},21)||'000000',1,6))"
        )

    def bind_timestamp(self, value: dt.datetime, column: Column | None) -> Any:
        # The fixed-width text timestamp_sql compares with.
        local = _aware(value).astimezone(self.zone).replace(tzinfo=None)
        return local.strftime("%Y-%m-%d %H:%M:%S") + f".{local.microsecond:06d}"

    def is_transient(self, exc: BaseException) -> bool:
        # sqlite3 reports a missing table or bad SQL as OperationalError too; only a busy or
        # locked database file is worth another try.
        if isinstance(exc, sqlite3.OperationalError):
            text = str(exc).lower()
            return "locked" in text or "busy" in text or "unable to open" in text
        return super().is_transient(exc)

    def describe(
        self,
        conn: Any,
        cursor: Any,
        table: TableId | None,
        timestamp_columns: Sequence[str] = (),
    ) -> list[Column]:
        names = [d[0] for d in cursor.description or []]
        declared: dict[str, tuple[str, bool]] = {}
        if table is not None:
            for _, name, decl, notnull, _, pk in conn.execute(
                f"PRAGMA table_info({self._q(table.table)})"
            ).fetchall():
                # An INTEGER PRIMARY KEY is the rowid: never null.
                declared[name] = (decl or "", not notnull and not pk)
        else:
            declared = {n: (d, True) for n, d in self._declared_by_name(conn, names).items()}
        columns = []
        first = cursor.peek() if table is None else None
        wanted_ts = {t.lower() for t in timestamp_columns}
        for i, name in enumerate(names):
            decl, nullable = declared.get(name, ("", True))
            if not decl and first is not None:
                # No declared type (a query's expression): go by the first row's value, as
                # sqlite-jdbc's metadata does.
                decl = _VALUE_TYPES.get(type(first[i]), "")
            if name.lower() in wanted_ts and _sqlite_type(decl)[0] is SqlType.VARCHAR:
                # The configured timestamp column of a query, kept as text: it holds
                # timestamps, whatever the expression it comes from declares.
                decl = "TIMESTAMP"
            sql_type, precision, scale = _sqlite_type(decl)
            columns.append(Column(name, sql_type, decl or "TEXT", precision, scale, True, nullable))
        return columns

    def value_converter(self, column: Column, schema: Schema) -> Converter | None:
        if schema.name == Timestamp.LOGICAL_NAME:
            # sqlite3 gives timestamps as the text they were stored as.
            return timestamp_converter(dt.UTC if column.instant else self.zone)
        return super().value_converter(column, schema)


_VALUE_TYPES: Final[dict[type, str]] = {int: "BIGINT", float: "DOUBLE", bytes: "BLOB", str: "TEXT"}


class _PeekingCursor:
    """A sqlite3 cursor whose first row can be looked at before it is fetched."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor
        self._peeked: list[Any] = []
        self.description = cursor.description

    def peek(self) -> Any:
        if not self._peeked:
            row = self._cursor.fetchone()
            if row is None:
                return None
            self._peeked.append(row)
        return self._peeked[0]

    def fetchmany(self, size: int) -> list[Any]:
        if self._peeked:
            rows = self._peeked + (self._cursor.fetchmany(size - 1) if size > 1 else [])
            self._peeked = []
            return rows
        return self._cursor.fetchmany(size)

    def close(self) -> None:
        self._cursor.close()


def _table_kinds(types: Sequence[str]) -> set[str]:
    return {t.strip().upper() for t in types if t.strip()} or {"TABLE"}


_DIALECTS: Final[dict[str, type[Dialect]]] = {
    "postgresql": PostgreSqlDialect,
    "mysql": MySqlDialect,
    "mariadb": MySqlDialect,
    "sqlite": SqliteDialect,
}
_BY_NAME: Final[dict[str, type[Dialect]]] = {
    "PostgreSqlDatabaseDialect": PostgreSqlDialect,
    "MySqlDatabaseDialect": MySqlDialect,
    "SqliteDatabaseDialect": SqliteDialect,
}


def dialect_for(url: URL, dialect_name: str, *, quote: bool, zone: dt.tzinfo) -> Dialect:
    """The dialect named by ``dialect.name``, else the one for the URL's database."""
    if dialect_name:
        cls = _BY_NAME[dialect_name]
    else:
        backend = url.get_backend_name()
        found = _DIALECTS.get(backend)
        if found is None:
            raise ConfigError(
                f"connection.url names a {backend!r} database; this connector supports "
                "PostgreSQL, MySQL/MariaDB and SQLite",
                name="connection.url",
            )
        cls = found
    return cls(url, quote=quote, zone=zone)


def iter_chunks(cursor: Any, size: int) -> Iterator[list[Any]]:
    while True:
        rows = cursor.fetchmany(size)
        if not rows:
            return
        yield rows
