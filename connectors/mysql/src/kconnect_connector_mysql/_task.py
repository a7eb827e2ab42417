"""The source task: a consistent snapshot, then the binlog, as Debezium's change events."""

from __future__ import annotations

import collections
import contextlib
import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import pymysql
import pymysql.cursors
from kconnect_sdk import (
    ConfigError,
    ConnectError,
    Headers,
    Schema,
    SourceRecord,
    SourceTask,
    Struct,
    record_maker,
    struct_values,
)
from kconnect_sdk.java import retry_with_backoff

from . import _database as db
from . import _decoder
from ._columns import Table, make_struct
from ._config import Settings, parse_settings
from ._ddl import DdlParseError, SchemaState, TableChange
from ._decoder import RowDecoder, build_decoder
from ._events import EventSchemas, TableSchema, processing_time, quoted_id
from ._gtid import (
    MariaDbGtidSet,
    MySqlGtidSet,
    is_mariadb_gtid_text,
    mariadb_purged_before,
    restart_set,
)
from ._history import SchemaHistory
from ._incremental import OFFSET_KEY as INCREMENTAL_OFFSET_KEY
from ._incremental import IncrementalSnapshot
from ._resultset import UnbufferedRows
from ._snapshot_rows import column_converters
from ._version import package_version

__all__ = ["MySqlSourceTask"]

log = logging.getLogger(__name__)

_MakeStruct = Callable[[list[Any]], Struct]  # a struct_maker's function


class _RowMetadataAdvice(logging.Filter):
    """Drops mysql-replication's warning, at every binlog connection to a server without
    ``binlog_row_metadata=FULL``, that the variable should be set: this connector names
    columns from its own schema history, as Debezium does, and needs no such setting."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "BINLOG_ROW_METADATA" not in record.getMessage()


_replication_log = logging.getLogger("pymysqlreplication")

_REPLICATION_IMPORT = threading.Lock()


def _table_of(quoted: str) -> str:
    """The table name of a ``"db"."table"`` id of a table change."""
    match = re.search(r'"([^"]*)"$', quoted)
    return match.group(1) if match else quoted


def _import_replication() -> None:
    """Import mysql-replication once, under a lock: its modules import each other, and two
    connectors' tasks starting at once could otherwise each see the other's half-imported
    ``pymysqlreplication.row_event`` (an AttributeError naming a circular import)."""
    with _REPLICATION_IMPORT:
        import pymysqlreplication.event
        import pymysqlreplication.row_event  # noqa: F401 - imported for its side effect


if not any(isinstance(f, _RowMetadataAdvice) for f in _replication_log.filters):
    _replication_log.addFilter(_RowMetadataAdvice())

_DDL: Final = re.compile(
    # MariaDB's "SET STATEMENT var=value FOR <statement>" prefix included.
    r"^\s*(?:/\*.*?\*/\s*)*(?:SET\s+STATEMENT\s.*?\sFOR\s+)?(CREATE|ALTER|DROP|RENAME|TRUNCATE)\b",
    re.IGNORECASE | re.DOTALL,
)
_TRUNCATE: Final = re.compile(
    r"^\s*TRUNCATE\s+(?:TABLE\s+)?`?([^`\s.;]+)`?(?:\.`?([^`\s;]+)`?)?", re.IGNORECASE
)
_SNAPSHOT_KEY: Final = "snapshot"
# A statement about a database (its name is the database the history records it under).
_DATABASE_DDL: Final = re.compile(
    r"^\s*(?:CREATE|ALTER|DROP)\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"(`(?:[^`]|``)+`|[^\s;`]+)",
    re.IGNORECASE,
)

_TABLE_DDL: Final = re.compile(
    r"^\s*(?:/\*.*?\*/\s*)*(?:SET\s+STATEMENT\s.*?\sFOR\s+)?"
    r"(?:(?:CREATE|ALTER|DROP|RENAME|TRUNCATE)\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?"
    r"(?:ONLINE\s+)?(?:IGNORE\s+)?TABLES?|(?:CREATE|DROP)\s+(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?INDEX)\b",
    re.IGNORECASE | re.DOTALL,
)


def _unquoted(name: str) -> str:
    if len(name) >= 2 and name[0] == name[-1] == "`":
        return name[1:-1].replace("``", "`")
    return name


class _Stopped(Exception):
    """The task was stopped while the worker thread was working."""


class _NeedSnapshot(Exception):
    """The binlog the offset needs is gone and ``snapshot.mode=when_needed``."""


def _gtid_filter(s: Settings) -> Callable[[str], bool] | None:
    """Debezium's GTID source filter: includes win over excludes; ids match in full."""
    includes, excludes = s.gtid_includes, s.gtid_excludes
    if includes:
        return lambda source: any(p.fullmatch(source) for p in includes)
    if excludes:
        return lambda source: not any(p.fullmatch(source) for p in excludes)
    return None


class MySqlSourceTask(SourceTask):
    """Snapshots the captured tables, then streams their changes from the binlog.

    A worker thread does the reading and decoding and hands batches of records to
    ``poll`` through a bounded buffer (``max.queue.size``); ``poll`` returns at most
    ``max.batch.size`` records and waits at most ``poll.interval.ms`` for them.
    """

    kafka_class_name = "io.debezium.connector.mysql.MySqlConnectorTask"

    connector_name: str = "mysql"

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._schemas: EventSchemas | None = None
        self._partition: dict[str, str] = {}
        # Batches as the reader thread made them (poll joins or splits them), and their sum.
        self._buffer: collections.deque[list[SourceRecord]] = collections.deque()
        self._buffered = 0
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self.streaming = threading.Event()
        """Set once the task reads the binlog (the snapshot, if any, is done)."""
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._stream: Any = None
        self._tables: dict[tuple[str, str], TableSchema] = {}
        self._history: SchemaHistory | None = None
        # History records past the resume position, by the (file, position, event) they
        # were recorded at.
        self._replay: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
        # The definitions the binlog's DDL is applied to (see _ddl.py).
        self._ddl = SchemaState(captured=lambda _db, _table: False)
        self._flavour = "mysql"

    def version(self) -> str:
        return package_version()

    # --- lifecycle -----------------------------------------------------------------------------

    def start(self, props: Mapping[str, str]) -> None:
        settings = parse_settings(props)
        self._settings = settings
        self._schemas = EventSchemas(settings, self.connector_name)
        self._partition = {"server": settings.prefix}
        self._buffer.clear()
        self._buffered = 0
        self._error = None
        self._stopping.clear()
        self.streaming.clear()
        self._tables = {}
        self._replay = {}
        if settings.history_servers and settings.history_topic:
            self._history = SchemaHistory(
                servers=settings.history_servers,
                topic=settings.history_topic,
                prefix=settings.prefix,
                timeout_ms=settings.history_timeout_ms,
                poll_ms=settings.history_poll_ms,
                attempts=settings.history_attempts,
                client_props=props,
            )
        offset = self.context.offset_storage_reader.offset(self._partition)
        conn = db.connect(settings)
        try:
            problems = db.check_prerequisites(conn, settings)
            if problems:
                key, message = problems[0]
                raise ConfigError(f"connector {settings.name!r}: {message}", name=key)
            flavour = db.server_flavour(conn)
            self._flavour = flavour
            # The server's default charset is what CREATE DATABASE without one gets.
            self._ddl = SchemaState(
                captured=settings.filters.schema_table,
                mariadb=flavour == "mariadb",
                server_charset=db.server_charset(conn),
            )
            plan = self._plan(conn, dict(offset) if offset else None)
        finally:
            conn.close()
        self._thread = threading.Thread(
            target=self._run, args=(plan,), name=f"kconnect-mysql-{settings.prefix}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        with self._cond:
            self._cond.notify_all()
        # The binlog reader wakes at least every second (the server's heartbeat) and sees
        # the flag; closing its socket from here would only make the library reconnect.
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(10)
        self._thread = None
        if self._history is not None:
            self._history.close()

    def poll(self) -> list[SourceRecord] | None:
        settings = self._settings
        assert settings is not None
        deadline = time.monotonic() + settings.poll_ms / 1000.0
        with self._cond:
            while not self._buffer:
                if self._error is not None:
                    error, self._error = self._error, None
                    if isinstance(error, ConnectError):
                        raise error
                    raise ConnectError(
                        f"connector {settings.name!r}: reading the binlog failed: {error!r}"
                    ) from error
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stopping.is_set():
                    return None
                self._cond.wait(remaining)
            batch = self._take(settings.max_batch)
            self._cond.notify_all()
        return batch

    def _take(self, n: int) -> list[SourceRecord]:
        """Up to ``n`` buffered records, oldest first (the caller holds the lock)."""
        buffer = self._buffer
        batch = buffer[0]
        if len(batch) > n:
            batch, buffer[0] = batch[:n], batch[n:]
        else:
            buffer.popleft()
            while buffer and len(batch) < n:
                room = n - len(batch)
                following = buffer[0]
                if len(following) <= room:
                    batch += buffer.popleft()
                else:
                    batch += following[:room]
                    buffer[0] = following[room:]
        self._buffered -= len(batch)
        return batch

    def _put(self, records: list[SourceRecord]) -> None:
        if not records:
            return
        settings = self._settings
        assert settings is not None
        with self._cond:
            while self._buffered >= settings.max_queue:
                if self._stopping.is_set():
                    raise _Stopped
                self._cond.wait(0.5)
            # The list is the buffer's from now on: callers hand it over and start a new one.
            self._buffer.append(records)
            self._buffered += len(records)
            self._cond.notify_all()

    def _run(self, plan: dict[str, Any]) -> None:
        try:
            if plan["snapshot"]:
                start = self._snapshot(plan)
                if start is None:
                    return
                plan.update(start)
            if plan.get("stream", True) and not self._stopping.is_set():
                self._streaming(plan)
        except _Stopped:
            pass
        except BaseException as exc:
            if not self._stopping.is_set():
                log.error(
                    "connector %r failed: %s", self._settings.name if self._settings else "?", exc
                )
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()

    # --- startup decisions ---------------------------------------------------------------------

    def _plan(self, conn: Any, offset: dict[str, Any] | None) -> dict[str, Any]:
        s = self._settings
        assert s is not None
        mode = s.snapshot_mode
        completed = offset is not None and _SNAPSHOT_KEY not in offset
        if offset is None or not completed:
            if mode in ("no_data", "never", "recovery") and offset is None:
                return {"snapshot": True, "data": False}
            return {"snapshot": True, "data": True, "stream": mode != "initial_only"}
        # A completed snapshot (or streaming) offset exists.
        if mode == "always":
            return {"snapshot": True, "data": True}
        if mode == "initial_only":
            return {"snapshot": False, "stream": False}
        file = str(offset.get("file"))
        available = db.binlog_files(conn)
        try:
            gtids = self._restart_gtids(conn, offset)
        except _NeedSnapshot:
            log.warning(
                "connector %r: the binlogs after GTID set %s are no longer on the server; "
                "snapshot.mode=when_needed, so taking a new snapshot",
                s.name,
                offset.get("gtids"),
            )
            return {"snapshot": True, "data": True}
        if gtids is not None:
            # Resumes by GTID set: the file named in the offset need not exist any more.
            file = file if file in available else (available[-1] if available else file)
        elif file not in available:
            if mode == "when_needed":
                log.warning(
                    "connector %r: binlog %s is no longer on the server; snapshot.mode=when_needed, so taking a new snapshot",
                    s.name,
                    file,
                )
                return {"snapshot": True, "data": True}
            raise ConnectError(
                f"connector {s.name!r}: the connector is trying to read binlog starting at file {file!r}, "
                f"position {offset.get('pos')}, but this is no longer available on the server "
                f"(it has {', '.join(available[:3])}{'...' if len(available) > 3 else ''}). Reconfigure the "
                "connector to use a snapshot when needed (snapshot.mode=when_needed) or reset its offsets."
            )
        if mode == "recovery":
            self._load_tables(db.read_tables(conn, s.filters, schemas=True))
            self._write_schema_snapshot(conn, offset, emit=False)
        else:
            self._recover_history(offset, by_gtid=gtids is not None and file != offset.get("file"))
        return {
            "snapshot": False,
            "file": file,
            "pos": int(offset.get("pos", 4)),
            "gtids": gtids if gtids is not None else offset.get("gtids"),
            "by_gtid": gtids is not None,
            "skip_events": int(offset.get("event", 0)),
            "skip_rows": int(offset.get("row", 0)),
            "incremental": offset.get(INCREMENTAL_OFFSET_KEY),
        }

    def _restart_gtids(self, conn: Any, offset: Mapping[str, Any]) -> str | None:
        """The GTID set to resume from, or None to resume by ``file``/``pos``.

        As Debezium: when the server writes GTIDs and the offset has a GTID set, the binlog
        is read from that set merged with the server's (see ``_gtid.restart_set``); a set
        whose transactions were purged from the server is an error, or a new snapshot under
        ``snapshot.mode=when_needed``.
        """
        s = self._settings
        assert s is not None
        text = str(offset.get("gtids") or "").strip()
        if not text or not db.gtid_mode(conn, self._flavour):
            if "file" not in offset:
                raise ConnectError(
                    f"connector {s.name!r}: the offset {dict(offset)!r} has neither a binlog file "
                    "nor a GTID set the server can resume from (gtid_mode is off); reset the "
                    "connector's offsets to take a new snapshot"
                )
            return None
        available, purged = db.gtid_sets(conn, self._flavour)
        try:
            merged = restart_set(text, available, purged, _gtid_filter(s))
            lost: list[str] = []
            if isinstance(merged, MariaDbGtidSet):
                lost = mariadb_purged_before(merged, purged)
            elif not MySqlGtidSet.parse(purged).is_contained_within(merged):
                lost = [f"server purged {purged}, the connector has seen {merged}"]
        except ValueError as exc:
            raise ConnectError(
                f"connector {s.name!r}: the offset's GTID set {text!r} cannot be read: {exc}; "
                "reset the connector's offsets"
            ) from exc
        if lost:
            if s.snapshot_mode == "when_needed":
                raise _NeedSnapshot
            raise ConnectError(
                f"connector {s.name!r}: the connector is trying to resume from GTID set {text!r}, "
                "but the binlogs with the transactions that follow it are no longer available on "
                f"the server ({'; '.join(lost)}). Reconfigure the connector to use a snapshot when needed "
                "(snapshot.mode=when_needed) or reset its offsets."
            )
        log.info(
            "connector %r: resuming by GTID set %s (offset %s, server %s, purged %s)",
            s.name,
            merged,
            text,
            available or "''",
            purged or "''",
        )
        return str(merged)

    def _recover_history(self, offset: Mapping[str, Any], *, by_gtid: bool = False) -> None:
        s = self._settings
        assert s is not None
        if self._history is None:
            raise ConfigError(
                f"connector {s.name!r}: schema.history.internal.kafka.bootstrap.servers and "
                "schema.history.internal.kafka.topic are required to resume from offsets",
                name="schema.history.internal.kafka.topic",
            )
        records = self._history.recover()
        if not records:
            raise ConnectError(
                f"connector {s.name!r}: the schema history topic {s.history_topic!r} is missing or empty "
                "although the connector has offsets; restore it, or set snapshot.mode=recovery to rebuild "
                "it from the database's current schemas"
            )
        tables: dict[tuple[str, str], Table] = {}
        for record in records:
            if record.get("source", {}).get("server") != s.prefix:
                continue
            position = record.get("position") or {}
            where = (
                str(position.get("file")),
                int(position.get("pos", 0)),
                int(position.get("event", 0)),
            )
            if by_gtid:
                # The offset's file is unknown here: order by GTID set, as Debezium's history
                # comparator does. A DDL recorded with the offset's own set belongs to the
                # transaction in flight or a later one, so it is met again while streaming.
                # The snapshot's records always precede the offset.
                later = not position.get(_SNAPSHOT_KEY) and not _gtids_before(
                    str(position.get("gtids") or ""), str(offset["gtids"])
                )
            else:
                later = _recorded_after(position, offset)
            if later:
                # Streaming will meet this DDL again: apply what was recorded then.
                self._replay.setdefault(where, []).append(record)
                continue
            if not record.get("tableChanges"):
                # Database-level DDL (CREATE DATABASE ...): keeps the databases' charsets.
                self._apply_database_ddl(record)
            _apply_table_changes(tables, record)
        self._load_tables(tables)

    def _apply_database_ddl(self, record: Mapping[str, Any]) -> None:
        ddl = str(record.get("ddl") or "")
        if re.match(r"\s*(CREATE|ALTER|DROP)\s+(DATABASE|SCHEMA)\b", ddl, re.IGNORECASE):
            with contextlib.suppress(DdlParseError):
                self._ddl.apply(ddl, str(record.get("databaseName") or "") or None)

    def _load_tables(self, tables: Mapping[tuple[str, str], Table]) -> None:
        """Keep ``tables`` (every table whose schema the history keeps) for the DDL, and
        the event schemas of the captured ones."""
        s, schemas = self._settings, self._schemas
        assert s is not None and schemas is not None
        self._tables = {
            key: schemas.table_schema(t) for key, t in tables.items() if s.filters.table(*key)
        }
        self._ddl.tables = dict(tables)

    # --- snapshot ------------------------------------------------------------------------------

    def _snapshot(self, plan: dict[str, Any]) -> dict[str, Any] | None:
        s, schemas = self._settings, self._schemas
        assert s is not None and schemas is not None
        conn = db.connect(s)
        locked = False
        try:
            with conn.cursor() as cur:
                cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                if s.locking_mode in ("minimal", "extended"):
                    cur.execute("FLUSH TABLES WITH READ LOCK")
                    locked = True
                cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
                file, pos, gtids = db.binlog_position(conn)
                if not locked:
                    # MariaDB reports the binlog position matching the consistent snapshot.
                    try:
                        cur.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")
                        status = {str(k).lower(): str(v) for k, v in cur.fetchall()}
                        if "binlog_snapshot_file" in status:
                            file, pos = (
                                status["binlog_snapshot_file"],
                                int(status["binlog_snapshot_position"]),
                            )
                            # The GTID state at that very position (a restart resumes by it).
                            cur.execute("SELECT BINLOG_GTID_POS(%s, %s)", (file, pos))
                            found = cur.fetchone()
                            if found is not None and found[0] is not None:
                                gtids = str(found[0]) or None
                    except pymysql.err.Error:
                        pass
            log.info(
                "connector %r: snapshot at binlog %s:%d, gtids %s", s.name, file, pos, gtids or "''"
            )
            offset = {"file": file, "pos": pos}
            if gtids:
                offset["gtids"] = gtids
            self._load_tables(db.read_tables(conn, s.filters, schemas=True))
            records = self._write_schema_snapshot(conn, offset, emit=s.schema_changes)
            if locked and s.locking_mode == "minimal":
                with conn.cursor() as cur:
                    cur.execute("UNLOCK TABLES")
                locked = False
            ts_sec = int(time.time())
            if plan.get("data", True):
                records = self._snapshot_rows(conn, offset, ts_sec, records)
            # The last snapshot record carries the streaming offset: a restart then streams.
            if records:
                last = records[-1]
                final = dict(last.source_offset or {})
                final.pop(_SNAPSHOT_KEY, None)
                value = last.value
                if (
                    isinstance(value, Struct)
                    and value.schema.field("source") is not None
                    and value.schema.field("op") is not None
                ):
                    _own_source(value)[_SOURCE_SNAPSHOT] = "last"
                records[-1] = last.new_record(source_offset=final)
            else:
                records = []
            self._put(records)
            with conn.cursor() as cur:
                cur.execute("COMMIT")
                if locked:
                    cur.execute("UNLOCK TABLES")
            log.info("connector %r: snapshot completed", s.name)
            if plan.get("stream", True) is False:
                return None
            return {"file": file, "pos": pos, "gtids": gtids, "skip_events": 0, "skip_rows": 0}
        finally:
            conn.close()

    def _write_schema_snapshot(
        self, conn: Any, offset: Mapping[str, Any], *, emit: bool
    ) -> list[SourceRecord]:
        """Record the schemas the snapshot starts from, statement by statement as Debezium's
        snapshot does: the server's charset variables, a DROP TABLE IF EXISTS for every
        table the history keeps, then per database DROP DATABASE IF EXISTS, CREATE DATABASE,
        USE and each table's SHOW CREATE TABLE, in the schema history and (with ``emit``)
        on the schema change topic."""
        s, schemas = self._settings, self._schemas
        assert s is not None and schemas is not None
        history: list[dict[str, Any]] = []
        records: list[SourceRecord] = []
        now = int(time.time() * 1000)
        position = {"ts_sec": now // 1000, **offset, _SNAPSHOT_KEY: "INITIAL"}
        record_offset = {**offset, _SNAPSHOT_KEY: "INITIAL", "ts_sec": now // 1000}

        def add(dbname: str, ddl: str, table: str | None, changes: list[dict[str, Any]]) -> None:
            history.append(
                {
                    "source": {"server": s.prefix},
                    "position": position,
                    "ts_ms": now,
                    "databaseName": dbname,
                    "ddl": ddl,
                    "tableChanges": changes,
                }
            )
            if not emit:
                return
            source_values = schemas.source_values(
                ts_ms=now,
                snapshot="true",
                db=dbname,
                table=table,
                server_id=0,
                gtid=None,
                file=str(offset["file"]),
                pos=int(offset["pos"]),
                row=0,
                thread=None,
                query=None,
            )
            ks, key, vs, value = schemas.schema_change(
                schemas.make_source(source_values), dbname, ddl, changes
            )
            records.append(
                SourceRecord(
                    topic=s.prefix,
                    key_schema=ks,
                    key=key,
                    value_schema=vs,
                    value=value,
                    source_partition=self._partition,
                    source_offset=record_offset,
                )
            )

        variables = db.charset_variables(conn)
        add("", _set_statement(variables), None, [])
        if "character_set_server" in variables:
            self._ddl.server_charset = variables["character_set_server"].lower() or None
        kept = sorted(self._ddl.tables)
        for dbname, name in kept:
            add(
                dbname,
                f"DROP TABLE IF EXISTS {_backquoted(dbname)}.{_backquoted(name)}",
                name,
                [{"type": "DROP", "id": quoted_id(dbname, name)}],
            )
        locales = db.database_locales(conn)
        for dbname in sorted({d for d, _ in kept}):
            add(dbname, f"DROP DATABASE IF EXISTS {_backquoted(dbname)}", None, [])
            create = f"CREATE DATABASE {_backquoted(dbname)}"
            charset, collation = locales.get(dbname, (None, None))
            if charset is not None:
                create += f" CHARSET {charset}"
            if collation is not None:
                create += f" COLLATE {collation}"
            add(dbname, create, None, [])
            self._apply_database_ddl(history[-1])
            add(dbname, f"USE {_backquoted(dbname)}", None, [])
            for key in (k for k in kept if k[0] == dbname):
                table = self._ddl.tables[key]
                change = {
                    "type": "CREATE",
                    "id": quoted_id(*key),
                    "table": table.to_history(),
                    "comment": table.comment,
                }
                add(dbname, db.show_create(conn, *key), key[1], [change])
        if self._history is not None:
            self._history.ensure_topic()
            self._history.store(history)
        return records

    def _snapshot_rows(
        self, conn: Any, offset: Mapping[str, Any], ts_sec: int, records: list[SourceRecord]
    ) -> list[SourceRecord]:
        s, schemas = self._settings, self._schemas
        assert s is not None and schemas is not None
        fetch = s.fetch_size or 10000
        tables = sorted(
            self._tables.items(), key=lambda item: (s.filters.snapshot_rank(*item[0]), item[0])
        )
        partition = self._partition
        snap_offset = {**offset, _SNAPSHOT_KEY: "INITIAL", "ts_sec": ts_sec}
        file, pos = str(offset["file"]), int(offset["pos"])
        pending: SourceRecord | None = None
        first_overall = True
        # DATE and DATETIME values come as their text, which the row converter turns into
        # Debezium's numbers directly (pymysql would build date/datetime objects first).
        conn.decoders = {
            k: v
            for k, v in conn.decoders.items()
            if k not in (pymysql.constants.FIELD_TYPE.DATE, pymysql.constants.FIELD_TYPE.DATETIME)
        }
        # The reported progress: rows read of the server's estimate for these tables.
        done, total = 0, _estimated_rows(conn, [k for k, _ in tables])
        for (dbname, name), ts in tables:
            cols = ", ".join(
                f"`{ts.table.columns[i].name.replace('`', '``')}`" for i in ts.positions
            )
            then = column_converters(
                ts.converters, [ts.table.columns[i].data_type for i in ts.positions]
            )
            env_schema, topic = ts.envelope_schema, ts.topic
            ts_ms = int(time.time() * 1000)
            source_values = schemas.source_values(
                ts_ms=ts_ms,
                snapshot="true",
                db=dbname,
                table=name,
                server_id=0,
                gtid=None,
                file=file,
                pos=pos,
                row=0,
                thread=None,
                query=None,
            )
            make_source = schemas.make_source
            with conn.cursor(pymysql.cursors.SSCursor) as cur:
                cur.execute(
                    f"SELECT {cols} FROM `{dbname.replace('`', '``')}`.`{name.replace('`', '``')}`"
                )
                # The rows straight from the socket, converted to Debezium's values as read.
                reader = UnbufferedRows(conn, cur._result, then)
                first_in_table = True
                key_schema, key_indexes = ts.key_schema, ts.key_indexes
                make_after, make_envelope, make_key = ts.make_value, ts.make_envelope, ts.make_key
                value_count = ts.value_count
                whole = value_count == len(ts.positions)
                make_record = _make_source_record
                no_headers = Headers.EMPTY
                k0 = key_indexes[0] if key_schema is not None and len(key_indexes) == 1 else None
                while True:
                    if self._stopping.is_set():
                        reader.abort()
                        raise _Stopped
                    try:
                        rows = reader.fetch(fetch)
                    except BaseException:
                        reader.abort()
                        raise
                    if not rows:
                        break
                    done += len(rows)
                    self.report_progress(done, max(total, done) if total is not None else None)
                    # One processing time per fetched batch; Structs and records made without
                    # per-value checks (see _plain_creates): this loop is the snapshot's
                    # per-row cost.
                    ms, us, ns = processing_time()
                    # The source block is the same for every row of the batch (snapshot "true"):
                    # one Struct, shared; a record whose marker changes gets its own copy
                    # (_own_source).
                    source = make_source(source_values.copy())
                    batch: list[SourceRecord] = []
                    append = batch.append
                    for row in rows:
                        after = make_after(row if whole else row[:value_count])
                        envelope = make_envelope([None, after, source, None, "r", ms, us, ns])
                        key = None
                        if make_key is not None:
                            key = make_key(
                                [row[k0]] if k0 is not None else [row[k] for k in key_indexes]
                            )
                        append(
                            make_record(
                                (
                                    topic,
                                    None,
                                    key_schema,
                                    key,
                                    env_schema,
                                    envelope,
                                    None,
                                    no_headers,
                                    partition,
                                    snap_offset,
                                ),
                            )
                        )
                    if first_in_table:
                        _own_source(batch[0].value)[_SOURCE_SNAPSHOT] = (
                            "first" if first_overall else "first_in_data_collection"
                        )
                        first_overall = first_in_table = False
                    if pending is not None:
                        records.append(pending)
                    pending = batch.pop()
                    records.extend(batch)
                    if len(records) >= 1024:
                        self._put(records)
                        records = []
            # The table's last record is last_in_data_collection (unless it is the first of the
            # whole snapshot); the snapshot's very last record becomes "last" afterwards.
            if (
                pending is not None
                and not first_in_table
                and struct_values(struct_values(pending.value)[2])[_SOURCE_SNAPSHOT] != "first"
            ):
                _own_source(pending.value)[_SOURCE_SNAPSHOT] = "last_in_data_collection"
        if pending is not None:
            records.append(pending)
        return records

    # --- streaming -----------------------------------------------------------------------------

    def _streaming(self, plan: dict[str, Any]) -> None:
        _Streamer(self, plan).run()


_make_source_record: Final = record_maker(SourceRecord)
_SOURCE_SNAPSHOT: Final = 4  # the source block's "snapshot" field
_SOURCE_ROW: Final = 14  # the source block's "row" field


@functools.cache
def _compiled_creates(speedups: Any) -> Any:
    """kconnect-speedups' loop of :func:`_plain_creates`, or None (not installed or off)."""
    make = getattr(speedups, "PlainCreates", None)
    return None if make is None else make(Struct, SourceRecord, Headers.EMPTY, _SOURCE_ROW)


def _plain_creates(
    out: list[SourceRecord],
    *,
    rows: list[list[Any]],
    start: int,
    n: int,
    base_off: dict[str, Any],
    base_source: list[Any],
    schemas: tuple[Schema, Schema, Schema, Schema],
    makers: tuple[_MakeStruct, _MakeStruct, _MakeStruct, _MakeStruct],
    key_index: int,
    topic: str,
    partition: dict[str, str],
    now: tuple[int, int, int],
) -> None:
    """The records of inserted rows with a one-column key: the hot loop of streaming.

    ``schemas`` are the source block's, the value's, the envelope's and the key's;
    ``makers`` their ``struct_maker``s. Values go in unchecked: every one already has its
    field's type (see ``_decoder``), and this loop is most of the connector's per-row cost.
    With kconnect-speedups (see ``_decoder``), the same loop in C makes the same objects.
    """
    compiled = _compiled_creates(_decoder.SPEEDUPS)
    if compiled is not None:
        compiled(
            out, rows, start, n, base_off, base_source, schemas, key_index, topic, partition, now
        )
        return
    env_schema, key_schema = schemas[2], schemas[3]
    make_source, make_after, make_envelope, make_key = makers
    make_record = _make_source_record
    ms, us, ns = now
    append = out.append
    no_headers = Headers.EMPTY
    for i in range(start, n):
        row = rows[i]
        values = base_source.copy()
        values[14] = i
        after = make_after(row)
        envelope = make_envelope([None, after, make_source(values), None, "c", ms, us, ns])
        off = base_off.copy()
        off["row"] = i + 1
        # SourceRecord's fields in their declared order (what its keyword __new__ builds).
        append(
            make_record(
                (
                    topic,
                    None,
                    key_schema,
                    make_key([row[key_index]]),
                    env_schema,
                    envelope,
                    None,
                    no_headers,
                    partition,
                    off,
                ),
            )
        )


def _own_source(envelope: Struct) -> list[Any]:
    """Give a snapshot envelope its own copy of its (batch-shared) source block; return the
    copy's values, for the caller to set the block's snapshot marker in.

    The task made the envelope and the copy with ``struct_maker`` and holds the copy's list,
    so it may change both in place: the records are not handed on yet.
    """
    envelope_values = struct_values(envelope)
    shared = envelope_values[2]
    own = list(struct_values(shared))
    envelope_values[2] = make_struct(shared.schema, own)
    return own


_DROPPED_TABLE: Final[dict[str, Any]] = {
    "defaultCharsetName": None,
    "primaryKeyColumnNames": [],
    "columns": [],
    "attributes": [],
}


def _change_doc(state: SchemaState, change: TableChange) -> dict[str, Any]:
    """Debezium's ``tableChanges`` entry: a dropped table has a definition with no columns."""
    doc: dict[str, Any] = {"type": change.type, "id": quoted_id(*change.key)}
    if change.previous is not None:
        doc["previousId"] = quoted_id(*change.previous)
    if change.type == "DROP":
        # Debezium's change for a dropped table names it and has no definition.
        return doc
    table = state.tables.get(change.key)
    doc["table"] = table.to_history() if table is not None else dict(_DROPPED_TABLE)
    doc["comment"] = table.comment if table is not None else None
    return doc


def _backquoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _set_statement(variables: Mapping[str, str]) -> str:
    """Debezium's record of the server's charset variables: ``SET name=value, ...`` by
    name, a value with a comma or semicolon in quotes."""
    parts = []
    for name in sorted(variables):
        value = variables[name]
        if "," in value or ";" in value:
            value = f"'{value}'"
        parts.append(f"{name}={value}")
    return "SET " + ", ".join(parts)


def _binlog_file_order(name: str) -> tuple[str, int, str]:
    """A binlog file name ordered as Debezium orders it: base name, then the numeric extension
    (``mysql-bin.999999`` before ``mysql-bin.1000000``); the text where there is no number."""
    base, _, extension = name.rpartition(".")
    if base and extension.isdigit():
        return base, int(extension), ""
    return name, -1, name


def _recorded_after(recorded: Mapping[str, Any], offset: Mapping[str, Any]) -> bool:
    """Whether a schema history position is after the offset, by binlog coordinates (the
    comparison Debezium's history comparator makes for positions without GTIDs): positions of
    different servers by their ``ts_sec``, else by file (numeric extension), position, events
    and rows."""
    recorded_server, offset_server = recorded.get("server_id"), offset.get("server_id")
    if (
        recorded_server is not None
        and offset_server is not None
        and int(recorded_server) != int(offset_server)
    ):
        # Binlog coordinates of two servers do not compare: the servers' clocks do.
        return int(recorded.get("ts_sec") or 0) > int(offset.get("ts_sec") or 0)
    mine = _binlog_file_order(str(recorded.get("file")))
    theirs = _binlog_file_order(str(offset.get("file")))
    if mine != theirs:
        return mine > theirs
    for key in ("pos", "event", "row"):
        a, b = int(recorded.get(key) or 0), int(offset.get(key) or 0)
        if a != b:
            return a > b
    # A statement recorded at the offset itself, inside its transaction (Debezium's
    # positions, and this connector's): streaming from the offset reads it again.
    return int(recorded.get("event") or 0) > 0


def _gtids_before(recorded: str, offset: str) -> bool:
    """Whether a GTID set recorded in the history precedes (is strictly within) the offset's."""
    if not recorded.strip():
        return True
    try:
        if is_mariadb_gtid_text(offset):
            mine, theirs = MariaDbGtidSet.parse(recorded), MariaDbGtidSet.parse(offset)
            if mine.streams == theirs.streams:
                return False
            return all(theirs.streams.get(k, -1) >= v for k, v in mine.streams.items())
        a, b = MySqlGtidSet.parse(recorded), MySqlGtidSet.parse(offset)
        return a.sources != b.sources and a.is_contained_within(b)
    except ValueError:
        return False


def _apply_table_changes(tables: dict[tuple[str, str], Table], record: Mapping[str, Any]) -> None:
    """Apply a history record's ``tableChanges`` (full definitions) to ``tables``."""
    for change in record.get("tableChanges") or []:
        ident = _parse_id(str(change.get("id", "")))
        if ident is None:
            continue
        previous = change.get("previousId")
        if previous:
            old = _parse_id(str(previous))
            if old is not None:
                tables.pop(old, None)
        if change.get("type") == "DROP":
            tables.pop(ident, None)
        elif change.get("table") is not None:
            tables[ident] = Table.from_history(
                ident[0], ident[1], change["table"], change.get("comment")
            )


def _parse_id(text: str) -> tuple[str, str] | None:
    match = re.fullmatch(r'"((?:[^"]|"")*)"\."((?:[^"]|"")*)"', text)
    if match is None:
        parts = text.split(".")
        return (parts[0], parts[1]) if len(parts) == 2 else None
    return match.group(1).replace('""', '"'), match.group(2).replace('""', '"')


class _Streamer:
    """The binlog reading loop; its position bookkeeping follows Debezium's BinlogOffsetContext."""

    def __init__(self, task: MySqlSourceTask, plan: dict[str, Any]) -> None:
        s = task._settings
        schemas = task._schemas
        assert s is not None and schemas is not None
        self.task = task
        self.s = s
        self.schemas = schemas
        self.partition = task._partition
        self.file: str = plan["file"]
        self.restart_file: str = plan["file"]
        self.restart_pos: int = int(plan["pos"])
        self.start_pos: int = int(plan["pos"])
        self.restart_gtids: str | None = plan.get("gtids") or None
        self.by_gtid = bool(plan.get("by_gtid")) and bool(self.restart_gtids)
        self.mariadb = task._flavour == "mariadb"
        # The completed GTID set, in the notation of the offset's (see _gtid.py).
        self.gtid_set: MariaDbGtidSet | MySqlGtidSet | None = None
        if self.restart_gtids:
            with contextlib.suppress(ValueError):
                self.gtid_set = (
                    MariaDbGtidSet.parse(self.restart_gtids)
                    if is_mariadb_gtid_text(self.restart_gtids)
                    else MySqlGtidSet.parse(self.restart_gtids)
                )
        self.gtid_filter = _gtid_filter(s) if s.config["gtid.source.filter.dml.events"] else None
        self.incremental: IncrementalSnapshot | None = None
        signal = s.config["signal.data.collection"]
        if signal:
            sdb, _, stable = str(signal).strip().partition(".")
            self.incremental = IncrementalSnapshot(
                self, (sdb, stable), s.config["incremental.snapshot.chunk.size"]
            )
            if plan.get("incremental"):
                self.incremental.resume(str(plan["incremental"]))
        # Debezium's gtid.source.filter.dml.events: rows of filtered-out sources are skipped.
        self.ignore_dml = False
        self.skip_events = int(plan.get("skip_events", 0))
        self.skip_rows = int(plan.get("skip_rows", 0))
        self.skipping = False
        self.events = 0
        self.in_txn = False
        self.standalone = False
        self.current_gtid: str | None = None
        self.thread_id: int | None = None
        self.ts_sec = 0
        self.decoders: dict[int, tuple[TableSchema, RowDecoder]] = {}
        self.out: list[SourceRecord] = []
        self.tx_id: str | None = None
        self.tx_total = 0
        self.tx_counts: dict[str, int] = {}
        self.tx_begun = False
        self.last_heartbeat = time.monotonic()
        self.ctl: Any = None
        self.unknown: set[tuple[str, str]] = set()

    # The runtime stores offsets as JSON: only plain values.
    def offset(self, rows: int) -> dict[str, Any]:
        off: dict[str, Any] = {
            "transaction_id": self.tx_id if self.s.tx_metadata and self.in_txn else None,
            "ts_sec": self.ts_sec,
            "file": self.restart_file,
            "pos": self.restart_pos,
        }
        if self.restart_gtids:
            off["gtids"] = self.restart_gtids
        if self.events:
            off["event"] = self.events
        if rows:
            off["row"] = rows
        if self.server_id:
            off["server_id"] = self.server_id
        if self.incremental is not None and self.incremental.state is not None:
            off[INCREMENTAL_OFFSET_KEY] = self.incremental.state
        return off

    server_id = 0

    def _open(self) -> Any:
        _import_replication()
        from pymysqlreplication import BinLogStreamReader
        from pymysqlreplication.event import (
            GtidEvent,
            HeartbeatLogEvent,
            MariadbGtidEvent,
            QueryEvent,
            RotateEvent,
            XidEvent,
        )
        from pymysqlreplication.row_event import (
            DeleteRowsEvent,
            TableMapEvent,
            UpdateRowsEvent,
            WriteRowsEvent,
        )

        s = self.s
        position: dict[str, Any] = {"log_file": self.restart_file, "log_pos": self.restart_pos}
        if self.by_gtid and self.gtid_set:
            # Resume by GTID set: the server sends the transactions after it, whatever its
            # binlog files are called now (MariaDB: one position per domain).
            position = {
                "auto_position": self.gtid_set.connect_state()
                if isinstance(self.gtid_set, MariaDbGtidSet)
                else str(self.gtid_set),
                "is_mariadb": self.mariadb,
            }
        else:
            position["is_mariadb"] = False
        return BinLogStreamReader(
            connection_settings={
                "host": s.host,
                "port": s.port,
                "user": s.user,
                "password": s.password,
                "connect_timeout": max(1, int(s.connect_timeout_s)),
            },
            server_id=s.server_id,
            resume_stream=True,
            blocking=True,
            **position,
            only_events=[
                RotateEvent,
                MariadbGtidEvent,
                GtidEvent,
                QueryEvent,
                XidEvent,
                TableMapEvent,
                WriteRowsEvent,
                UpdateRowsEvent,
                DeleteRowsEvent,
                HeartbeatLogEvent,
            ],
            slave_heartbeat=1,
            use_column_name_cache=True,
            enable_logging=False,
        )

    def run(self) -> None:
        _import_replication()
        from pymysqlreplication.event import (
            GtidEvent,
            HeartbeatLogEvent,
            MariadbGtidEvent,
            QueryEvent,
            RotateEvent,
            XidEvent,
        )
        from pymysqlreplication.row_event import (
            DeleteRowsEvent,
            TableMapEvent,
            UpdateRowsEvent,
            WriteRowsEvent,
        )

        task, s = self.task, self.s
        self.ctl = db.connect(s)
        log.info(
            "connector %r: streaming from binlog %s:%d (skipping %d events, %d rows)",
            s.name,
            self.restart_file,
            self.restart_pos,
            self.skip_events,
            self.skip_rows,
        )
        stream = self._open()
        task._stream = stream
        task.streaming.set()
        if self.incremental is not None:
            self.incremental.start()
        try:
            for event in self._events(stream):
                if task._stopping.is_set():
                    break
                kind = type(event)
                packet = event.packet
                if kind is RotateEvent:
                    self.file = event.next_binlog
                    if not self.in_txn:
                        self.restart_file, self.restart_pos = self.file, event.position
                    self.decoders.clear()
                    continue
                if kind is HeartbeatLogEvent:
                    self._maybe_heartbeat()
                    self._flush()
                    continue
                size = packet.event_size
                position = packet.log_pos - size
                self.ts_sec = event.timestamp
                self.server_id = packet.server_id
                if not self.in_txn:
                    self.restart_file = self.file
                    self.restart_pos = position + size
                    self.events = 0
                if kind is MariadbGtidEvent or kind is GtidEvent:
                    self._gtid(event.gtid)
                if kind is MariadbGtidEvent:
                    self.standalone = bool(event.flags & 1)
                    self._begin(position, event.gtid)
                elif kind is GtidEvent:
                    pass
                elif kind is QueryEvent:
                    query = event.query
                    if query == "BEGIN":
                        if not self.in_txn:
                            self.thread_id = event.slave_proxy_id
                            self._begin(position, self.current_gtid)
                        else:
                            self.thread_id = event.slave_proxy_id
                    elif query == "COMMIT":
                        self._commit(position, size)
                        continue
                    else:
                        if self.standalone and self.s.tx_metadata and not self.tx_begun:
                            # A statement logged as a transaction of its own (DDL,
                            # TRUNCATE): Debezium opens it with a BEGIN and, with no
                            # commit to end it, writes no END.
                            self._emit_tx("BEGIN")
                            self.tx_begun = True
                        self._query(event, position, size)
                        if self.standalone or not self.in_txn:
                            self._commit(position, size)
                            continue
                elif kind is XidEvent:
                    self._commit(position, size)
                    continue
                elif kind is TableMapEvent:
                    pass
                elif kind is WriteRowsEvent:
                    self._rows(event, "c", position)
                elif kind is UpdateRowsEvent:
                    self._rows(event, "u", position)
                elif kind is DeleteRowsEvent:
                    self._rows(event, "d", position)
                # completeEvent
                if self.in_txn:
                    self.events += 1
                if self.skipping:
                    self.skip_events -= 1
                    self.skipping = self.skip_events > 0
                if len(self.out) >= 1024:
                    self._flush()
        finally:
            task._stream = None
            with contextlib.suppress(Exception):  # closing a dead socket may fail; nothing to do
                stream.close()
            if self.ctl is not None:
                self.ctl.close()
            if self.incremental is not None:
                self.incremental.close()

    def _events(self, stream: Any) -> Iterator[Any]:
        """The stream's events; on a lost connection, reconnect at the transaction start.

        With ``connect.keep.alive`` a lost connection is opened again after a pause growing
        by 0.2 s (at most 5 s), up to ten times in a row; otherwise it fails the task.
        """
        task, s = self.task, self.s
        lost = (pymysql.err.OperationalError, pymysql.err.InterfaceError, OSError, struct_error)
        failures = 0  # in a row, since the last event

        def on_lost(attempt: int, exc: BaseException, pause: float) -> None:
            nonlocal failures
            failures += 1
            log.warning(
                "connector %r: binlog connection lost (%s); reconnecting at %s:%d",
                s.name,
                exc,
                self.restart_file,
                self.restart_pos,
            )
            self._flush()
            with contextlib.suppress(Exception):  # the old connection is gone anyway
                stream.close()

        def reconnect_after(pause: float) -> None:
            nonlocal stream
            time.sleep(pause)
            # Resume at the start of the open transaction and skip what was emitted.
            self.skip_events = self.events if self.in_txn else 0
            self.skip_rows = 0
            self.in_txn = False
            self.events = 0
            self.file = self.restart_file
            self.decoders.clear()
            stream = self._open()
            task._stream = stream

        def fetch() -> Any:
            return stream.fetchone()  # the stream of the latest reconnection

        while not task._stopping.is_set():
            try:
                event = retry_with_backoff(
                    fetch,
                    attempts=11 - failures if s.keep_alive else 1,
                    backoff_s=0.2 * (failures + 1),
                    increment_s=0.2,
                    max_backoff_s=5.0,
                    retry_on=lost,
                    retry_if=lambda _: not task._stopping.is_set(),
                    on_retry=on_lost,
                    sleep=reconnect_after,
                )
            except lost as exc:
                if task._stopping.is_set():
                    return
                raise ConnectError(
                    f"connector {s.name!r}: lost the binlog connection: {exc}"
                ) from exc
            if event is None:
                self._flush()
                continue
            failures = 0
            yield event
        self._flush()

    def _flush(self) -> None:
        if self.out:
            out, self.out = self.out, []
            self.task._put(out)

    def _gtid(self, gtid: str) -> None:
        self.current_gtid = gtid
        keep = self.gtid_filter
        if keep is not None:
            # The source id: MySQL's uuid, MariaDB's domain-server.
            source = gtid.partition(":")[0] if ":" in gtid else gtid.rsplit("-", 1)[0]
            self.ignore_dml = not keep(source)

    def _begin(self, position: int, gtid: str | None) -> None:
        self.in_txn = True
        self.restart_file = self.file
        self.restart_pos = position
        self.events = 0
        self.tx_id = gtid or f"file={self.file},pos={position}"
        self.tx_total = 0
        self.tx_counts = {}
        self.tx_begun = False
        if self.skip_events:
            self.skipping = True

    def _commit(self, position: int, size: int) -> None:
        if self.s.tx_metadata and self.tx_begun and self.tx_id is not None and not self.standalone:
            self._emit_tx("END")
        gtid = self.current_gtid
        if gtid:
            mariadb_gtid = ":" not in gtid
            if self.gtid_set is None or isinstance(self.gtid_set, MariaDbGtidSet) != mariadb_gtid:
                self.gtid_set = MariaDbGtidSet() if mariadb_gtid else MySqlGtidSet()
            self.gtid_set.add(gtid)
            self.restart_gtids = str(self.gtid_set)
        self.in_txn = False
        self.standalone = False
        self.restart_file = self.file
        self.restart_pos = position + size
        self.events = 0
        self.skipping = False
        self.skip_events = 0
        self.skip_rows = 0
        self.tx_id = None
        self._maybe_heartbeat()
        self._flush()

    def _maybe_heartbeat(self) -> None:
        s = self.s
        if s.heartbeat_ms <= 0:
            return
        now = time.monotonic()
        if (now - self.last_heartbeat) * 1000 < s.heartbeat_ms:
            return
        self.last_heartbeat = now
        ks, key, vs, value = self.schemas.heartbeat()
        self.out.append(
            SourceRecord(
                topic=self.schemas.heartbeat_topic,
                key_schema=ks,
                key=key,
                value_schema=vs,
                value=value,
                source_partition=self.partition,
                source_offset=self.offset(0),
            )
        )

    def _emit_tx(self, status: str) -> None:
        assert self.tx_id is not None
        counts = self.tx_counts if status == "END" else None
        ks, key, vs, value = self.schemas.tx_event(status, self.tx_id, self.ts_sec * 1000, counts)
        self.out.append(
            SourceRecord(
                topic=self.schemas.tx_topic,
                key_schema=ks,
                key=key,
                value_schema=vs,
                value=value,
                source_partition=self.partition,
                source_offset=self.offset(0),
            )
        )

    def _source(
        self, dbname: str, table: str | None, position: int, row: int, query: str | None = None
    ) -> Struct:
        return self.schemas.make_source(self._source_values(dbname, table, position, row, query))

    def _source_values(
        self, dbname: str, table: str | None, position: int, row: int, query: str | None = None
    ) -> list[Any]:
        return self.schemas.source_values(
            ts_ms=self.ts_sec * 1000,
            snapshot=None,
            db=dbname,
            table=table,
            server_id=self.server_id,
            gtid=self.current_gtid,
            file=self.file,
            pos=position,
            row=row,
            thread=self.thread_id,
            query=query,
        )

    def _decoder(self, event: Any, ts: TableSchema) -> RowDecoder:
        cached = self.decoders.get(event.table_id)
        if cached is not None and cached[0] is ts:
            return cached[1]
        wire = event.columns
        if len(wire) != len(ts.table.columns):
            raise ConnectError(
                f"connector {self.s.name!r}: table {ts.table.id} has {len(wire)} columns in the binlog at "
                f"{self.file}:{event.packet.log_pos} but {len(ts.table.columns)} in the connector's schema; "
                "the schema history is out of step with the binlog (restart with snapshot.mode=recovery "
                "or take a new snapshot)"
            )
        decoder = build_decoder(
            wire, ts.table.columns, ts.positions, ts.converters, table=ts.table.id
        )
        self.decoders[event.table_id] = (ts, decoder)
        return decoder

    def _rows(self, event: Any, op: str, position: int) -> None:
        if self.skipping or self.ignore_dml:
            return
        if not getattr(event, "complete", True) or not getattr(event, "_processed", True):
            return
        key = (event.schema, event.table)
        ts = self.task._tables.get(key)
        if ts is None:
            if self.s.filters.table(*key) and self.s.inconsistent_mode == "fail":
                raise ConnectError(
                    f"connector {self.s.name!r}: change event at {self.file}:{position} for table "
                    f"{key[0]}.{key[1]}, whose schema is not known to the connector (the schema "
                    "history lacks it); restart with snapshot.mode=recovery, or set "
                    "inconsistent.schema.handling.mode=warn to skip such changes"
                )
            if (
                self.s.filters.table(*key)
                and self.s.inconsistent_mode == "warn"
                and key not in self.unknown
            ):
                self.unknown.add(key)
                log.warning(
                    "connector %r: change to %s.%s, a table the connector has no schema for, skipped",
                    self.s.name,
                    *key,
                )
            return
        packet = event.packet
        raw = packet.read(event.event_size - packet.read_bytes)
        decode = self._decoder(event, ts)
        try:
            rows = decode(raw, 0, len(raw))
        except (ValueError, IndexError, struct_error) as exc:
            raise ConnectError(
                f"connector {self.s.name!r}: cannot decode the rows event at {self.file}:{position} "
                f"for table {ts.table.id}: {exc}; the event is damaged or the schema history is "
                "out of step with the binlog (restart with snapshot.mode=recovery or take a new "
                "snapshot)"
            ) from exc
        inc = self.incremental
        if inc is None:
            self._emit_rows(ts, rows, op, position)
            return
        start = self.skip_rows
        inc.on_change(ts, rows, op)
        self._emit_rows(ts, rows, op, position)
        if op == "c" and key == inc.signal_table:
            inc.on_signal(ts, rows[start:], position)

    def _emit_rows(self, ts: TableSchema, rows: list[list[Any]], op: str, position: int) -> None:
        skipped = self.s.skipped
        start = self.skip_rows
        self.skip_rows = 0
        n = len(rows) // 2 if op == "u" else len(rows)
        if start >= n or op in skipped:
            return
        schemas, out, partition = self.schemas, self.out, self.partition
        env_schema, topic, key_schema = ts.envelope_schema, ts.topic, ts.key_schema
        tombstones = self.s.tombstones
        tx = self.s.tx_metadata
        table_name = ts.table.id
        if tx and not self.tx_begun and self.tx_id is not None:
            self._emit_tx("BEGIN")
            self.tx_begun = True
        base_source = self._source_values(ts.table.db, ts.table.name, position, 0)
        make_source, make_envelope = schemas.make_source, ts.make_envelope
        make_value, make_key = ts.make_value, ts.make_key
        plain = ts.value_count == len(ts.positions) and len(ts.key_indexes) <= 1
        key_index = ts.key_indexes[0] if ts.key_indexes else None
        # Per event, not per row: the offset's fixed part and the processing time.
        base_off = self.offset(0)
        now = processing_time()
        if (
            op == "c"
            and plain
            and not tx
            and key_index is not None
            and key_schema is not None
            and make_key is not None
        ):
            _plain_creates(
                out,
                rows=rows,
                start=start,
                n=n,
                base_off=base_off,
                base_source=base_source,
                schemas=(schemas.source_schema, ts.value_schema, env_schema, key_schema),
                makers=(make_source, make_value, make_envelope, make_key),
                key_index=key_index,
                topic=topic,
                partition=partition,
                now=now,
            )
            return
        for i in range(start, n):
            off = {**base_off, "row": i + 1}
            src_values = base_source.copy()
            src_values[14] = i
            source = make_source(src_values)
            tx_block = None
            if tx:
                self.tx_total += 1
                self.tx_counts[table_name] = self.tx_counts.get(table_name, 0) + 1
                tx_block = schemas.tx_block(
                    self.tx_id or "", self.tx_total, self.tx_counts[table_name]
                )
            if op == "c" and plain:
                # The common case inline: the decoded row is the value, one key column.
                row = rows[i]
                k = None if make_key is None or key_index is None else make_key([row[key_index]])
                out.append(
                    SourceRecord(
                        topic=topic,
                        key_schema=key_schema,
                        key=k,
                        value_schema=env_schema,
                        value=make_envelope([None, make_value(row), source, tx_block, "c", *now]),
                        source_partition=partition,
                        source_offset=off,
                    )
                )
            elif op == "c":
                after, k = ts.split(rows[i])
                out.append(
                    SourceRecord(
                        topic=topic,
                        key_schema=key_schema,
                        key=k,
                        value_schema=env_schema,
                        value=make_envelope([None, after, source, tx_block, "c", *now]),
                        source_partition=partition,
                        source_offset=off,
                    )
                )
            elif op == "d":
                before, k = ts.split(rows[i])
                out.append(
                    SourceRecord(
                        topic=topic,
                        key_schema=key_schema,
                        key=k,
                        value_schema=env_schema,
                        value=make_envelope([before, None, source, tx_block, "d", *now]),
                        source_partition=partition,
                        source_offset=off,
                    )
                )
                if tombstones:
                    out.append(
                        SourceRecord(
                            topic=topic,
                            key_schema=key_schema,
                            key=k,
                            value_schema=None,
                            value=None,
                            source_partition=partition,
                            source_offset=off,
                        )
                    )
            else:
                before, old_key = ts.split(rows[2 * i])
                after, new_key = ts.split(rows[2 * i + 1])
                if key_schema is not None and old_key != new_key:
                    # A primary-key change is a delete of the old key and a create of the new one.
                    headers = Headers().add("__debezium.newkey", new_key, key_schema)
                    out.append(
                        SourceRecord(
                            topic=topic,
                            key_schema=key_schema,
                            key=old_key,
                            value_schema=env_schema,
                            value=make_envelope([before, None, source, tx_block, "d", *now]),
                            headers=headers,
                            source_partition=partition,
                            source_offset=off,
                        )
                    )
                    if tombstones:
                        out.append(
                            SourceRecord(
                                topic=topic,
                                key_schema=key_schema,
                                key=old_key,
                                value_schema=None,
                                value=None,
                                headers=headers,
                                source_partition=partition,
                                source_offset=off,
                            )
                        )
                    if tx:
                        # The create is an event of the transaction of its own, as in
                        # Debezium: it counts in total_order and the END's event counts.
                        self.tx_total += 1
                        self.tx_counts[table_name] += 1
                        tx_block = schemas.tx_block(
                            self.tx_id or "", self.tx_total, self.tx_counts[table_name]
                        )
                    out.append(
                        SourceRecord(
                            topic=topic,
                            key_schema=key_schema,
                            key=new_key,
                            value_schema=env_schema,
                            value=make_envelope([None, after, source, tx_block, "c", *now]),
                            headers=Headers().add("__debezium.oldkey", old_key, key_schema),
                            source_partition=partition,
                            source_offset=off,
                        )
                    )
                else:
                    out.append(
                        SourceRecord(
                            topic=topic,
                            key_schema=key_schema,
                            key=new_key,
                            value_schema=env_schema,
                            value=make_envelope([before, after, source, tx_block, "u", *now]),
                            source_partition=partition,
                            source_offset=off,
                        )
                    )

    def _query(self, event: Any, position: int, size: int) -> None:
        """A statement other than BEGIN/COMMIT: DDL changes the schemas from here on."""
        query: str = event.query
        match = _DDL.match(query)
        if match is None or self.skipping:
            return
        schema = event.schema
        dbname = (
            schema.decode("utf-8", "replace")
            if isinstance(schema, bytes | bytearray)
            else str(schema or "")
        )
        verb = match.group(1).upper()
        s, task = self.s, self.task
        changes: list[dict[str, Any]]
        if verb == "TRUNCATE":
            truncated = _TRUNCATE.match(query)
            if truncated is None:
                return
            tdb, tname = (
                (truncated.group(1), truncated.group(2))
                if truncated.group(2)
                else (dbname, truncated.group(1))
            )
            ts = task._tables.get((tdb, tname))
            if ts is None or "t" in s.skipped:
                return
            source = self._source(tdb, tname, position, 0)
            tx_block = None
            if s.tx_metadata and self.tx_begun and self.tx_id is not None:
                self.tx_total += 1
                self.tx_counts[ts.table.id] = self.tx_counts.get(ts.table.id, 0) + 1
                tx_block = self.schemas.tx_block(
                    self.tx_id, self.tx_total, self.tx_counts[ts.table.id]
                )
            self.out.append(
                SourceRecord(
                    topic=ts.topic,
                    key_schema=None,
                    key=None,
                    value_schema=ts.envelope_schema,
                    value=self.schemas.envelope(ts, "t", None, None, source, tx=tx_block),
                    source_partition=self.partition,
                    source_offset=self.offset(0),
                )
            )
            return
        # The schema change record's offset is after the statement, so that a restart from
        # it does not apply the statement twice.
        position_doc: dict[str, Any] = {
            "transaction_id": None,
            "ts_sec": self.ts_sec,
            "file": self.file,
            "pos": position + size,
            "server_id": self.server_id,
        }
        if self.restart_gtids:
            position_doc["gtids"] = self.restart_gtids
        # The history records the offset as Debezium does: the statement's transaction
        # start (its GTID event) and the events of it already read.
        recorded_at = self._history_position()
        replayed = task._replay.pop((self.restart_file, self.restart_pos, self.events), None)
        if replayed is None:
            # Recorded by an earlier version, at the position after the statement.
            replayed = task._replay.pop((self.file, position + size, 0), None)
        if replayed is not None:
            # Met again after a restart: the schema history says what this DDL did.
            for record in replayed:
                if not record.get("tableChanges"):
                    task._apply_database_ddl(record)
                changes = list(record.get("tableChanges") or [])
                _apply_table_changes(task._ddl.tables, record)
                keys = set()
                for doc in changes:
                    for text in (doc.get("id"), doc.get("previousId")):
                        ident = _parse_id(str(text)) if text else None
                        if ident is not None:
                            keys.add(ident)
                self._sync_tables(keys)
                if s.schema_changes:
                    self._schema_change_event(
                        str(record.get("databaseName") or dbname),
                        str(record.get("ddl") or query),
                        changes,
                        position,
                        dict(record.get("position") or position_doc),
                    )
            return
        # New DDL: applied to the in-memory definitions, as at this very position.
        try:
            parsed = task._ddl.apply(query, dbname or None)
        except DdlParseError as exc:
            if not s.config["schema.history.internal.skip.unparseable.ddl"]:
                raise ConnectError(
                    f"connector {s.name!r}: cannot parse the DDL statement at {self.file}:{position} "
                    f"({exc}): {query!r}; set schema.history.internal.skip.unparseable.ddl=true to "
                    "skip such statements (later events of the tables it changes may then fail)"
                ) from exc
            log.warning(
                "connector %r: ignoring unparseable DDL statement at %s:%d (%s): %s",
                s.name,
                self.file,
                position,
                exc,
                query,
            )
            return
        parsed = [c for c in parsed if c.type != "TRUNCATE"]
        self._sync_tables({c.key for c in parsed} | {c.previous for c in parsed if c.previous})
        records: list[dict[str, Any]] = []
        for change in parsed:
            records.append(
                {
                    "source": {"server": s.prefix},
                    "position": recorded_at,
                    "ts_ms": self.ts_sec * 1000,
                    "databaseName": change.key[0],
                    "ddl": query,
                    "tableChanges": [_change_doc(task._ddl, change)],
                }
            )
        named = _DATABASE_DDL.match(query)
        target = _unquoted(named.group(1)) if named is not None else dbname
        scope = s.filters.schema_scope
        if (
            not records
            and s.filters.schema_database(target)
            and (target or scope == "all")
            # With captured tables' DDL only, a statement on another table is left out.
            and not (scope == "tables" and _TABLE_DDL.match(query))
        ):
            records.append(
                {
                    "source": {"server": s.prefix},
                    "position": recorded_at,
                    "ts_ms": self.ts_sec * 1000,
                    "databaseName": target,
                    "ddl": query,
                    "tableChanges": [],
                }
            )
        if not records:
            return
        if task._history is not None:
            task._history.store(records)
        if s.schema_changes:
            for record in records:
                self._schema_change_event(
                    record["databaseName"], query, record["tableChanges"], position, position_doc
                )

    def _history_position(self) -> dict[str, Any]:
        off = self.offset(0)
        if not self.s.tx_metadata:
            # Debezium's offsets carry a transaction id only with transaction metadata.
            off.pop("transaction_id", None)
        return off

    def _sync_tables(self, keys: set[tuple[str, str]]) -> None:
        """Rebuild the event schemas of the tables whose definitions changed."""
        task = self.task
        for key in keys:
            table = task._ddl.tables.get(key)
            if table is None or not self.s.filters.table(*key):
                task._tables.pop(key, None)
            else:
                task._tables[key] = self.schemas.table_schema(table)
        if keys:
            self.decoders.clear()

    def _schema_change_event(
        self,
        dbname: str,
        ddl: str,
        changes: list[dict[str, Any]],
        position: int,
        offset: dict[str, Any],
    ) -> None:
        # Debezium names the table the statement changed in the event's source block.
        table = _table_of(changes[0]["id"]) if changes else None
        source = self._source(dbname, table, position, 0)
        ks, key, vs, value = self.schemas.schema_change(source, dbname, ddl, changes)
        self.out.append(
            SourceRecord(
                topic=self.s.prefix,
                key_schema=ks,
                key=key,
                value_schema=vs,
                value=value,
                source_partition=self.partition,
                source_offset=offset,
            )
        )


from struct import error as struct_error  # noqa: E402 - kept next to its one use above

_ = Schema  # re-exported type used in annotations of callers


def _estimated_rows(conn: Any, tables: list[tuple[str, str]]) -> int | None:
    """The snapshot's rows as information_schema estimates them, for the reported progress
    (InnoDB's figure is approximate); None if unknown."""
    if not tables:
        return None
    where = " OR ".join(["(TABLE_SCHEMA = %s AND TABLE_NAME = %s)"] * len(tables))
    try:
        with conn.cursor() as cur:
            cur.execute(
                f"SELECT SUM(TABLE_ROWS) FROM information_schema.TABLES WHERE {where}",
                [v for t in tables for v in t],
            )
            row = cur.fetchone()
    except Exception:  # progress is a nicety: the snapshot goes on without an estimate
        return None
    return None if not row or row[0] is None else int(row[0])
