"""JdbcSourceConnector and its task, configured as Confluent's io.confluent.connect.jdbc one."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import re
import threading
import time
import zoneinfo
from collections.abc import Mapping, Sequence
from typing import Any, Final

from kconnect_sdk import (
    ConfigError,
    ConfigValue,
    ConnectError,
    DataError,
    ExactlyOnceSupport,
    ParsedConfig,
    Password,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from kconnect_sdk.java import EPOCH_DATETIME

from . import _config as c
from ._dialect import Dialect, TableId, dialect_for, to_sqlalchemy_url
from ._granularity import granularity
from ._querier import (
    INCREMENTING_FIELD,
    PROTOCOL_KEY,
    PROTOCOL_V1,
    QUERY_NAME_KEY,
    TABLE_NAME_KEY,
    TIMESTAMP_FIELD,
    TIMESTAMP_NANOS_FIELD,
    Querier,
)

__all__ = ["JdbcSourceConnector", "JdbcSourceTask"]

log = logging.getLogger(__name__)


_OFFSET_KEYS = frozenset({INCREMENTING_FIELD, TIMESTAMP_FIELD, TIMESTAMP_NANOS_FIELD})

# Confluent's keys this connector does not implement, with the values that mean "off" (its
# defaults). Any other value would be silently ignored, changing what is copied or how, so it
# is refused instead.
_UNSUPPORTED: Final[dict[str, frozenset[str]]] = {
    "timestamp.columns.mapping": frozenset({""}),
    "incrementing.column.mapping": frozenset({""}),
    "transaction.isolation.mode": frozenset({"", "default"}),
    "date.calendar.system": frozenset({"", "legacy"}),
    "query.masked": frozenset({"", "false"}),
    "jdbc.credentials.provider.class": frozenset(
        {"", "io.confluent.connect.jdbc.util.defaultjdbccredentialsprovider"}
    ),
}


def _check_unsupported(props: Mapping[str, str]) -> None:
    for key, off in _UNSUPPORTED.items():
        value = props.get(key)
        if value is not None and str(value).strip().lower() not in off:
            raise ConfigError(
                f"config {key!r}={value!r} is not supported by this connector; remove it "
                f"(Confluent's default behaviour is the only one implemented)",
                name=key,
            )


def _validate_query(settings: _Settings, conn: Any, value: ConfigValue) -> None:
    dialect = settings.dialect
    try:
        dialect.validate_query(conn, settings.query)
    except Exception as exc:
        # PostgreSQL's message goes on with the statement and a caret: its first line says it.
        reason = dialect.describe_error(exc).splitlines()[0]
        value.add_error_message(
            f"query {settings.query!r:.200} is not valid on {dialect.display_url}: {reason}; "
            "check its syntax and the table and column names against the database"
        )


class _Settings:
    """The parsed config plus what follows from it (dialect, zone, lists)."""

    def __init__(self, props: Mapping[str, str]) -> None:
        _check_unsupported(props)
        cfg: ParsedConfig = c.SOURCE_CONFIG_DEF.parse(props)
        self.cfg = cfg
        self.mode: str = cfg[c.MODE]
        self.query: str = (cfg[c.QUERY] or "").strip()
        if not self.mode:
            raise ConfigError(
                f"config {c.MODE!r} is required: one of bulk, incrementing, timestamp, "
                "timestamp+incrementing",
                name=c.MODE,
            )
        whitelist = [t.strip() for t in cfg[c.TABLE_WHITELIST] if t.strip()]
        blacklist = [t.strip() for t in cfg[c.TABLE_BLACKLIST] if t.strip()]
        include = [t.strip() for t in cfg[c.TABLE_INCLUDE_LIST] if t.strip()]
        exclude = [t.strip() for t in cfg[c.TABLE_EXCLUDE_LIST] if t.strip()]
        if whitelist and blacklist:
            raise ConfigError(
                f"Only one of {c.TABLE_WHITELIST!r} or {c.TABLE_BLACKLIST!r} can be set",
                name=c.TABLE_WHITELIST,
            )
        if (include or exclude) and (whitelist or blacklist):
            raise ConfigError(
                f"{c.TABLE_INCLUDE_LIST!r}/{c.TABLE_EXCLUDE_LIST!r} cannot be combined with "
                f"{c.TABLE_WHITELIST!r}/{c.TABLE_BLACKLIST!r}",
                name=c.TABLE_INCLUDE_LIST,
            )
        if exclude and not include:
            raise ConfigError(
                f"{c.TABLE_EXCLUDE_LIST!r} needs {c.TABLE_INCLUDE_LIST!r}",
                name=c.TABLE_EXCLUDE_LIST,
            )
        self.whitelist, self.blacklist = whitelist, blacklist
        self.include = [re.compile(p) for p in include]
        self.exclude = [re.compile(p) for p in exclude]
        zone_name = cfg[c.DB_TIMEZONE]
        try:
            self.zone: dt.tzinfo = (
                dt.UTC if zone_name in ("UTC", "Z", "Etc/UTC") else zoneinfo.ZoneInfo(zone_name)
            )
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            raise ConfigError(
                f"Invalid value {zone_name} for configuration {c.DB_TIMEZONE}: not a valid "
                "time zone name (use an IANA name such as UTC or Europe/Paris)",
                name=c.DB_TIMEZONE,
            ) from exc
        password = cfg[c.CONNECTION_PASSWORD]
        self.url = to_sqlalchemy_url(
            cfg[c.CONNECTION_URL],
            cfg[c.CONNECTION_USER],
            password.value if isinstance(password, Password) else password,
        )
        quote = str(cfg[c.QUOTE_SQL_IDENTIFIERS]).lower() != "never"
        self.dialect: Dialect = dialect_for(
            self.url, cfg[c.DIALECT_NAME], quote=quote, zone=self.zone
        )
        mapping = cfg[c.NUMERIC_MAPPING]
        if mapping is None:
            mapping = "precision_only" if cfg[c.NUMERIC_PRECISION_MAPPING] else "none"
        self.numeric_mapping: str = str(mapping).lower()
        self.granularity = granularity(cfg[c.TIMESTAMP_GRANULARITY])
        self.timestamp_columns: list[str] = [
            t.strip() for t in cfg[c.TIMESTAMP_COLUMN_NAME] if t.strip()
        ]
        self.incrementing_column: str = (cfg[c.INCREMENTING_COLUMN_NAME] or "").strip()
        self.table_types: list[str] = [t.strip().upper() for t in cfg[c.TABLE_TYPES]]
        self.attempts: int = cfg[c.CONNECTION_ATTEMPTS]
        self.backoff_s: float = cfg[c.CONNECTION_BACKOFF_MS] / 1000.0
        if (
            self.mode in (c.MODE_TIMESTAMP, c.MODE_TIMESTAMP_INCREMENTING)
            and not self.timestamp_columns
        ):
            raise ConfigError(
                f"mode {self.mode!r} needs {c.TIMESTAMP_COLUMN_NAME!r}: the column(s) that "
                "change when a row is inserted or updated",
                name=c.TIMESTAMP_COLUMN_NAME,
            )
        if self.mode == c.MODE_TIMESTAMP_INCREMENTING and not self.incrementing_column:
            raise ConfigError(
                f"mode {self.mode!r} needs {c.INCREMENTING_COLUMN_NAME!r}",
                name=c.INCREMENTING_COLUMN_NAME,
            )
        if self.query and self.mode == c.MODE_INCREMENTING and not self.incrementing_column:
            raise ConfigError(
                f"query mode with mode 'incrementing' needs {c.INCREMENTING_COLUMN_NAME!r}",
                name=c.INCREMENTING_COLUMN_NAME,
            )

    @property
    def uses_incrementing(self) -> bool:
        return self.mode in (c.MODE_INCREMENTING, c.MODE_TIMESTAMP_INCREMENTING)

    @property
    def uses_timestamp(self) -> bool:
        return self.mode in (c.MODE_TIMESTAMP, c.MODE_TIMESTAMP_INCREMENTING)

    def connect(self, stopping: Any = lambda: False) -> Any:
        return self.dialect.connect(self.attempts, self.backoff_s, stopping)

    def selected(self, tables: Sequence[TableId]) -> list[TableId]:
        """The tables the filters let through, as Confluent's TableMonitorThread filters."""
        q = self.dialect

        def names(t: TableId) -> set[str]:
            quoted = ".".join(
                q.quote_char + p + q.quote_char for p in (t.catalog, t.schema, t.table) if p
            )
            return {t.fqn, quoted, t.table}

        if self.whitelist:
            wanted = set(self.whitelist)
            return [t for t in tables if names(t) & wanted]
        if self.blacklist:
            unwanted = set(self.blacklist)
            return [t for t in tables if not names(t) & unwanted]
        if self.include:
            return [
                t
                for t in tables
                if any(p.fullmatch(t.fqn) for p in self.include)
                and not any(p.fullmatch(t.fqn) for p in self.exclude)
            ]
        return list(tables)

    def check_columns(self, conn: Any, table: TableId) -> str | None:
        """The incrementing column to use for ``table`` (autodetected when not configured).

        Raises ConfigError naming the table and column when a configured column is missing,
        or nullable under ``validate.non.null``.
        """
        if self.mode == c.MODE_BULK:
            return None
        columns = self.dialect.table_columns(conn, table)
        by_name = {col.name.lower(): col for col in columns}
        incrementing = self.incrementing_column
        if self.uses_incrementing and not incrementing:
            auto = [col.name for col in columns if col.auto_increment]
            if not auto:
                raise ConfigError(
                    f"table {table.fqn!r} has no auto-increment column for mode "
                    f"{self.mode!r}; set {c.INCREMENTING_COLUMN_NAME}",
                    name=c.INCREMENTING_COLUMN_NAME,
                )
            incrementing = auto[0]
        if self.uses_incrementing and incrementing.lower() not in by_name:
            raise ConfigError(
                f"Incrementing column: {incrementing} does not exist in table '{table.fqn}'",
                name=c.INCREMENTING_COLUMN_NAME,
            )
        if self.uses_timestamp:
            missing = [t for t in self.timestamp_columns if t.lower() not in by_name]
            if missing:
                raise ConfigError(
                    f"Timestamp columns: {', '.join(missing)} do not exist in table '{table.fqn}'",
                    name=c.TIMESTAMP_COLUMN_NAME,
                )
        if self.cfg[c.VALIDATE_NON_NULL]:
            if self.uses_incrementing and by_name[incrementing.lower()].nullable:
                raise ConfigError(
                    f"Cannot make incremental queries using incrementing column {incrementing} "
                    f"on {table.fqn} because this column is nullable; make it NOT NULL or set "
                    f"{c.VALIDATE_NON_NULL}=false",
                    name=c.INCREMENTING_COLUMN_NAME,
                )
            if self.uses_timestamp and all(
                by_name[t.lower()].nullable for t in self.timestamp_columns
            ):
                raise ConfigError(
                    f"Cannot make incremental queries using timestamp columns "
                    f"{','.join(self.timestamp_columns)} on {table.fqn} because all of these columns are "
                    f"nullable; make one NOT NULL or set {c.VALIDATE_NON_NULL}=false",
                    name=c.TIMESTAMP_COLUMN_NAME,
                )
        return incrementing or None


def _discover(settings: _Settings, conn: Any) -> list[TableId]:
    tables = settings.dialect.list_tables(
        conn,
        settings.table_types,
        settings.cfg[c.SCHEMA_PATTERN],
        settings.cfg[c.CATALOG_PATTERN],
    )
    return settings.selected(tables)


def _group(items: Sequence[str], groups: int) -> list[list[str]]:
    """Contiguous groups of near-equal size, as Kafka's ConnectorUtils.groupPartitions."""
    per, extra = divmod(len(items), groups)
    out: list[list[str]] = []
    start = 0
    for i in range(groups):
        size = per + (1 if i < extra else 0)
        out.append(list(items[start : start + size]))
        start += size
    return out


class JdbcSourceConnector(SourceConnector):
    """Copies tables (or a query's result) from PostgreSQL, MySQL/MariaDB or SQLite.

    Tables are found at start and every ``table.poll.interval.ms``; when the set changes,
    the connector asks the runtime to reconfigure its tasks.
    """

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._settings: _Settings | None = None
        self._tables: list[TableId] = []
        self._monitor: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()

    def config(self) -> Any:
        return c.SOURCE_CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = c.SOURCE_CONFIG_DEF.validate(props)
        if any(v.error_messages for v in values):
            return values
        by_name = {v.name: v for v in values}
        try:
            settings = _Settings(props)
        except ConfigError as exc:
            target = by_name.get(getattr(exc, "name", None) or c.MODE) or by_name[c.MODE]
            target.add_error_message(str(exc))
            return values
        if settings.mode == c.MODE_BULK and not settings.query:
            return values
        try:
            conn = settings.dialect.connect(1, 0.0, lambda: True)
        except ConnectError as exc:
            by_name[c.CONNECTION_URL].add_error_message(str(exc))
            return values
        try:
            if settings.query:
                _validate_query(settings, conn, by_name[c.QUERY])
                return values
            for table in _discover(settings, conn):
                try:
                    settings.check_columns(conn, table)
                except ConfigError as exc:
                    key = getattr(exc, "name", None) or c.MODE
                    by_name.get(key, by_name[c.MODE]).add_error_message(str(exc))
        finally:
            settings.dialect.close(conn)
        return values

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        settings = _Settings(props)
        self._settings = settings
        self._stopping.clear()
        log.info(
            "Starting JDBC source connector on %s (%s, mode %s)",
            settings.dialect.display_url,
            settings.dialect.name,
            settings.mode,
        )
        if settings.query:
            self._tables = []
            return
        conn = settings.connect(self._stopping.is_set)
        try:
            tables = _discover(settings, conn)
            for table in tables:
                settings.check_columns(conn, table)
        finally:
            settings.dialect.close(conn)
        self._tables = tables
        log.info("Tables to copy: %s", [t.fqn for t in tables])
        self._monitor = threading.Thread(
            target=self._watch_tables, name="kconnect-jdbc table monitor", daemon=True
        )
        self._monitor.start()

    def _watch_tables(self) -> None:
        settings = self._settings
        assert settings is not None
        interval = settings.cfg[c.TABLE_POLL_INTERVAL_MS] / 1000.0
        while not self._stopping.wait(interval):
            try:
                conn = settings.dialect.connect(1, 0.0, self._stopping.is_set)
                try:
                    tables = _discover(settings, conn)
                finally:
                    settings.dialect.close(conn)
            except Exception as exc:
                log.warning("Looking for new or dropped tables failed: %s", exc)
                continue
            with self._lock:
                changed = tables != self._tables
                if changed:
                    log.info(
                        "Tables changed from %s to %s; reconfiguring tasks",
                        [t.fqn for t in self._tables],
                        [t.fqn for t in tables],
                    )
                    self._tables = tables
            if changed and not self._stopping.is_set():
                try:
                    self.context.request_task_reconfiguration()
                except Exception as exc:
                    log.warning("Could not request task reconfiguration: %s", exc)

    def task_class(self) -> type[JdbcSourceTask]:
        return JdbcSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        settings = self._settings
        if settings is None:
            raise ConnectError("JdbcSourceConnector.task_configs called before start")
        if settings.query:
            return [{**self._props, c.TABLES: "[]", c.TABLES_FETCHED: "true"}]
        with self._lock:
            names = [json.dumps([t.catalog, t.schema, t.table]) for t in self._tables]
        if not names:
            # One task with no table, marked as waiting: it idles until the table monitor
            # finds a table and asks for new task configs (Confluent's task would fail).
            log.warning("No tables to copy yet; the task waits for tables to appear")
            return [{**self._props, c.TABLES: "[]", c.TABLES_FETCHED: "false"}]
        groups = _group(names, min(len(names), max_tasks))
        return [
            {**self._props, c.TABLES: "[" + ",".join(g) + "]", c.TABLES_FETCHED: "true"}
            for g in groups
        ]

    def stop(self) -> None:
        self._stopping.set()
        monitor, self._monitor = self._monitor, None
        if monitor is not None:
            monitor.join(10)

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        # With exactly-once, a row's offset commits in the same transaction as the
        # row, and incrementing and timestamp+incrementing queries resume strictly after the
        # committed (timestamp, id): no row is read twice. bulk re-reads whole tables and
        # timestamp alone cannot tell rows of one timestamp apart, so neither can promise it.
        mode = str(props.get(c.MODE, "")).strip()
        if mode in (c.MODE_INCREMENTING, c.MODE_TIMESTAMP_INCREMENTING):
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        for partition, offset in offsets:
            if not partition or not (TABLE_NAME_KEY in partition or QUERY_NAME_KEY in partition):
                raise ConnectError(
                    f"Partition {partition!r} is not a JDBC source partition: expected "
                    f'{{"{TABLE_NAME_KEY}": "<db.table>", "{PROTOCOL_KEY}": "{PROTOCOL_V1}"}} '
                    f'or {{"{QUERY_NAME_KEY}": "query"}}'
                )
            if offset is None:
                continue
            unknown = set(offset) - _OFFSET_KEYS
            if unknown:
                raise ConnectError(
                    f"Offset {dict(offset)!r} for partition {dict(partition)!r} has unknown "
                    f"key(s) {sorted(unknown)}: a JDBC source offset has only "
                    f"{sorted(_OFFSET_KEYS)}"
                )
            for key in sorted(_OFFSET_KEYS):
                value = offset.get(key)
                if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                    raise ConnectError(
                        f"Offset {key!r} for partition {dict(partition)!r} must be an integer, "
                        f"got {value!r}"
                    )
        return True


class JdbcSourceTask(SourceTask):
    """Polls its tables (or the query) in turn, each every ``poll.interval.ms``.

    ``poll`` returns up to ``batch.max.rows`` records of one table; ``stop`` may be called
    from another thread and makes a waiting ``poll`` return.
    """

    kafka_class_name = "io.confluent.connect.jdbc.source.JdbcSourceTask"

    def __init__(self) -> None:
        # By querier: the rows its bulk pass has read, and the table's COUNT(*) at its start.
        self._progress: dict[int, list[Any]] = {}
        self._read_through: set[int] = set()  # queriers that have read to their end once
        self._settings: _Settings | None = None
        self._queriers: list[Querier] = []
        self._conns: dict[int, Any] = {}
        self._stopping = threading.Event()
        self._poll_interval = 5.0
        self._batch = 1000
        self._retries = -1
        self._failures = 0
        self._tolerate = False
        self._lock = threading.Lock()

    def start(self, props: Mapping[str, str]) -> None:
        self._stopping.clear()
        self._read_through = set()
        self._queriers = []
        if c.TABLES not in props:
            raise ConfigError(
                f"Missing required configuration {c.TABLES!r}: a JDBC source task is given its "
                "tables by its connector",
                name=c.TABLES,
            )
        tables_text = str(props.get(c.TABLES) or "").strip()
        has_query = bool(str(props.get(c.QUERY) or "").strip())
        has_tables = tables_text not in ("", "[]")
        fetched = str(props.get(c.TABLES_FETCHED, "false")).strip().lower() == "true"
        if not has_tables and not has_query:
            if not fetched:
                # The connector has no table for this task yet: idle (before even reading the
                # rest of the config) until it reconfigures its tasks.
                log.info("Started JDBC source task; waiting for the connector to assign tables")
                return
            raise ConfigError(
                "Task is being killed because it was not assigned a table nor a query to "
                "execute. If run in table mode please make sure that the tables exist on the "
                "database; if a table does exist, use its fully qualified name.",
                name=c.TABLES,
            )
        if has_tables and has_query:
            raise ConfigError(
                f"Invalid configuration: a JdbcSourceTask cannot have both a table and a query "
                f"assigned to it (set {c.QUERY!r} or let the connector assign tables)",
                name=c.QUERY,
            )
        settings = _Settings(props)
        self._settings = settings
        cfg = settings.cfg
        self._poll_interval = cfg[c.POLL_INTERVAL_MS] / 1000.0
        self._batch = cfg[c.BATCH_MAX_ROWS]
        self._retries = cfg[c.QUERY_RETRY_ATTEMPTS]
        self._tolerate = str(props.get("errors.tolerance", "none")).lower() == "all"
        self._failures = 0
        tables = _assigned_tables(tables_text, settings.dialect) if has_tables else []
        conn = settings.connect(self._stopping.is_set)
        try:
            key_mode = cfg[c.RECORD_KEY_MODE]
            reader = self.context.offset_storage_reader
            if settings.query:
                offset = None
                if settings.mode != c.MODE_BULK:
                    offset = reader.offset({QUERY_NAME_KEY: "query"})
                self._queriers.append(
                    self._querier(
                        settings, None, settings.incrementing_column or None, offset, None
                    )
                )
            for table in tables:
                incrementing = settings.check_columns(conn, table)
                offset = None
                if settings.mode != c.MODE_BULK:
                    # Protocol 1 first, then the unqualified name of protocol 0.
                    offset = reader.offset(
                        {TABLE_NAME_KEY: table.fqn, PROTOCOL_KEY: PROTOCOL_V1}
                    ) or reader.offset({TABLE_NAME_KEY: table.table})
                    if offset:
                        log.info("Found offset %s for %s", dict(offset), table.fqn)
                key_columns = None
                if key_mode == "primary_key":
                    key_columns = settings.dialect.primary_key(conn, table) or None
                    if key_columns is None:
                        log.warning(
                            "Table %s has no primary key: its records have no key", table.fqn
                        )
                self._queriers.append(
                    self._querier(settings, table, incrementing, offset, key_columns)
                )
            initial = cfg[c.TIMESTAMP_INITIAL]
            if initial is not None and settings.uses_timestamp:
                if initial == c.TIMESTAMP_INITIAL_CURRENT:
                    now = settings.dialect.current_time(conn)
                    initial = int(now.timestamp() * 1000)
                for q in self._queriers:
                    if q.last_timestamp is None:
                        q.last_timestamp = EPOCH_DATETIME + dt.timedelta(milliseconds=initial)
                        q._committable = q.last_timestamp
        finally:
            settings.dialect.close(conn)
        log.info("Started JDBC source task for %s", [q.name for q in self._queriers])

    def _querier(
        self,
        settings: _Settings,
        table: TableId | None,
        incrementing: str | None,
        offset: Mapping[str, Any] | None,
        key_columns: list[str] | None,
    ) -> Querier:
        return Querier(
            dialect=settings.dialect,
            mode=settings.mode,
            table=table,
            query=settings.query or None,
            topic_prefix=settings.cfg[c.TOPIC_PREFIX],
            suffix=(settings.cfg[c.QUERY_SUFFIX] or "").strip(),
            timestamp_columns=settings.timestamp_columns if settings.uses_timestamp else [],
            incrementing_column=incrementing if settings.uses_incrementing else None,
            offset=offset,
            delay_ms=settings.cfg[c.TIMESTAMP_DELAY_INTERVAL_MS],
            numeric_mapping=settings.numeric_mapping,
            key_columns=key_columns,
            tolerate_errors=self._tolerate,
            granularity=settings.granularity,
        )

    def _connection(self, querier: Querier) -> Any:
        key = id(querier)
        conn = self._conns.get(key)
        if conn is None:
            assert self._settings is not None
            conn = self._settings.connect(self._stopping.is_set)
            self._conns[key] = conn
        return conn

    def _drop_connection(self, querier: Querier) -> None:
        conn = self._conns.pop(id(querier), None)
        if conn is not None and self._settings is not None:
            self._settings.dialect.close(conn)

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.is_set() or not self._queriers:
            self._stopping.wait(1.0)
            return None
        with self._lock:
            if self._stopping.is_set():
                return None
            querier = min(self._queriers, key=lambda q: q.next_run)
            wait = querier.next_run - time.monotonic()
            if wait > 0:
                # Wait outside the lock so stop() is never held up.
                pass
            else:
                return self._read(querier)
        self._stopping.wait(min(wait, 1.0))
        return None

    def _read(self, querier: Querier) -> list[SourceRecord] | None:
        try:
            if querier.cursor is None:
                conn = self._connection(querier)
                self._progress[id(querier)] = [0, _bulk_total(querier, conn)]
                querier.start_query(conn)
            records = querier.read(self._batch)
            progress = self._progress.get(id(querier))
            if progress is not None and progress[1] is not None:
                # A bulk pass: rows read of the table's COUNT(*) at its start.
                progress[0] += len(records or ())
                total = progress[0] if querier.exhausted else max(progress[1], progress[0])
                self.report_progress(progress[0], total)
            if querier.exhausted:
                self._read_through.add(id(querier))
                querier.end_query()
                querier.next_run = time.monotonic() + self._poll_interval
            self._failures = 0
            return records or None
        except DataError:
            self._fail_query(querier)
            raise
        except ConnectError:
            self._fail_query(querier)
            raise
        except Exception as exc:
            self._fail_query(querier)
            assert self._settings is not None
            reason = self._settings.dialect.describe_error(exc)
            if not self._settings.dialect.is_transient(exc):
                # A statement the database will always refuse (no such table, bad SQL), or a
                # fault of our own: retrying cannot help.
                raise ConnectError(f"Querying {querier.name} failed: {reason}") from exc
            # A lost connection or a busy database: start over from the offset the query
            # began at, on a new connection.
            self._failures += 1
            if 0 <= self._retries < self._failures:
                raise ConnectError(
                    f"Querying {querier.name} failed {self._failures} time(s), more than "
                    f"{c.QUERY_RETRY_ATTEMPTS}={self._retries}: {reason}"
                ) from None
            log.warning(
                "Querying %s failed (%s); retrying in %g s",
                querier.name,
                reason,
                self._settings.backoff_s,
            )
            querier.next_run = time.monotonic() + self._settings.backoff_s
            return None

    def finished(self) -> bool:
        """True once each table (or the query) has been read through once since ``start``.

        A DataFrame batch read (``spark.read.format("kconnect")``) of a bulk table ends
        there instead of after ``kconnect.read.idle.ms``; the Kafka pipeline never asks.
        """
        return bool(self._queriers) and len(self._read_through) >= len(self._queriers)

    def _fail_query(self, querier: Querier) -> None:
        querier.close_cursor()
        querier.reset()
        self._drop_connection(querier)

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for querier in self._queriers:
                querier.close_cursor()
                self._drop_connection(querier)
            self._conns.clear()


def _assigned_tables(text: str, dialect: Dialect) -> list[TableId]:
    """The ``tables`` of a task config: this connector's JSON list of [catalog, schema, table]
    triples, or the comma-separated qualified names Confluent's connector writes
    (``"inventory"."orders"``), so tasks a Java worker configured run here unchanged."""
    if text.startswith("[["):
        try:
            return [TableId(*t) for t in json.loads(text)]
        except (ValueError, TypeError) as exc:
            raise ConfigError(
                f"config {c.TABLES!r} is not a JSON list of [catalog, schema, table]: {text!r}",
                name=c.TABLES,
            ) from exc
    names: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in text:
        if ch == dialect.quote_char:
            quoted = not quoted
        if ch == "," and not quoted:
            names.append("".join(current))
            current = []
        else:
            current.append(ch)
    names.append("".join(current))
    return [dialect.parse_table_identifier(n) for n in names if n.strip()]


def _bulk_total(querier: Querier, conn: Any) -> int | None:
    """Rows in a bulk-mode table now (``SELECT COUNT(*)``), for progress; None otherwise."""
    if querier.mode != c.MODE_BULK or querier.table is None:
        return None
    try:
        cursor = conn.cursor()
        try:
            cursor.execute(f"SELECT COUNT(*) FROM {querier.dialect.table_sql(querier.table)}")
            row = cursor.fetchone()
        finally:
            cursor.close()
        return int(row[0]) if row else None
    except Exception as exc:  # progress is a nicety: never fail the read for it
        log.debug("%s: cannot count rows for progress: %s", querier.name, exc)
        with contextlib.suppress(Exception):
            conn.rollback()
        return None
