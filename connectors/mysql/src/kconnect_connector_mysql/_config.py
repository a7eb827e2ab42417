"""The connector's config keys (Debezium's names and defaults) and the filters they define."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kconnect_sdk import (
    CaseInsensitiveValidString,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    ParsedConfig,
    Password,
    Range,
)

__all__ = ["CONFIG_DEF", "Settings", "TableFilter", "parse_settings"]

_S, _I, _L, _B, _P, _LIST = (
    ConfigType.STRING,
    ConfigType.INT,
    ConfigType.LONG,
    ConfigType.BOOLEAN,
    ConfigType.PASSWORD,
    ConfigType.LIST,
)
_H, _M, _LO = Importance.HIGH, Importance.MEDIUM, Importance.LOW


def _one_of(*values: str) -> CaseInsensitiveValidString:
    return CaseInsensitiveValidString.one_of(*values)


class _TimePrecisionMode:
    """``time.precision.mode``: Debezium 3.5's binlog connectors refuse ``adaptive``, whose
    millisecond TIME overflows past 24 days; the other values as a case-insensitive list."""

    allowed = CaseInsensitiveValidString.one_of(
        "adaptive_time_microseconds", "connect", "isostring"
    )

    def __call__(self, name: str, value: Any) -> None:
        if isinstance(value, str) and value.lower() == "adaptive":
            raise ConfigError(
                f"Invalid value {value} for configuration {name}: the 'adaptive' "
                f"{name} is no longer supported (as in Debezium 3.5); use one of "
                f"(case insensitive): {', '.join(self.allowed.allowed)}",
                name=name,
                value=value,
            )
        self.allowed(name, value)

    def __str__(self) -> str:
        return str(self.allowed)


SNAPSHOT_MODES: Final = (
    "initial",
    "always",
    "initial_only",
    "no_data",
    "when_needed",
    "recovery",
    "never",
    "schema_only",
    "schema_only_recovery",
)

CONFIG_DEF: Final = (
    ConfigDef()
    .define(
        "topic.prefix",
        _S,
        importance=_H,
        documentation="Topic prefix and logical name of the database server; also source.name. Required.",
    )
    .define(
        "database.hostname",
        _S,
        importance=_H,
        documentation="Host name or address of the MySQL/MariaDB server.",
    )
    .define(
        "database.port",
        _I,
        3306,
        Range.between(1, 65535),
        importance=_H,
        documentation="Port of the server.",
    )
    .define("database.user", _S, importance=_H, documentation="User to connect as.")
    .define("database.password", _P, None, importance=_H, documentation="Password of that user.")
    .define(
        "database.server.id",
        _L,
        None,
        importance=_H,
        documentation="Numeric id this connector uses as a replica; unique among the server's replicas. Default: a random id between 5400 and 6400.",
    )
    .define(
        "database.ssl.mode",
        _S,
        "preferred",
        # MySqlConnector's values, then MariaDbConnector's (those of MariaDB's JDBC driver).
        _one_of(
            "disabled",
            "preferred",
            "required",
            "verify_ca",
            "verify_identity",
            "disable",
            "trust",
            "verify-ca",
            "verify-full",
        ),
        importance=_M,
        documentation="Whether to use an encrypted connection (MariaDbConnector: disable, trust, verify-ca or verify-full).",
    )
    .define(
        "database.initial.statements",
        _S,
        None,
        importance=_LO,
        documentation="Semicolon-separated SQL run on every new JDBC-style connection.",
    )
    .define(
        "connect.timeout.ms",
        _L,
        30000,
        Range.at_least(1),
        importance=_LO,
        documentation="How long to wait for a connection, in ms.",
    )
    .define(
        "connect.keep.alive",
        _B,
        True,
        importance=_LO,
        documentation="Reconnect to the binlog when the connection drops.",
    )
    .define(
        "connect.keep.alive.interval.ms",
        _L,
        60000,
        importance=_LO,
        documentation="How often the binlog connection is checked, in ms.",
    )
    .define(
        "database.include.list",
        _LIST,
        None,
        importance=_H,
        documentation="Regular expressions matching the names of databases to capture (anchored).",
    )
    .define(
        "database.exclude.list",
        _LIST,
        None,
        importance=_M,
        documentation="Regular expressions matching database names not to capture.",
    )
    .define(
        "table.include.list",
        _LIST,
        None,
        importance=_H,
        documentation="Regular expressions matching <db>.<table> names to capture.",
    )
    .define(
        "table.exclude.list",
        _LIST,
        None,
        importance=_M,
        documentation="Regular expressions matching <db>.<table> names not to capture.",
    )
    .define(
        "column.include.list",
        _LIST,
        None,
        importance=_M,
        documentation="Regular expressions matching <db>.<table>.<column> names to include in change events.",
    )
    .define(
        "column.exclude.list",
        _LIST,
        None,
        importance=_M,
        documentation="Regular expressions matching <db>.<table>.<column> names to leave out of change events.",
    )
    .define(
        "table.ignore.builtin",
        _B,
        True,
        importance=_LO,
        documentation="Ignore the server's own databases (mysql, sys, information_schema, performance_schema).",
    )
    .define(
        "message.key.columns",
        _S,
        None,
        importance=_M,
        documentation="Key columns per table: <db>.<table regex>:<col>,<col>;...",
    )
    .define(
        "decimal.handling.mode",
        _S,
        "precise",
        _one_of("precise", "double", "string"),
        importance=_M,
        documentation="How DECIMAL/NUMERIC values are represented: precise (Connect Decimal), double or string.",
    )
    .define(
        "time.precision.mode",
        _S,
        "adaptive_time_microseconds",
        _TimePrecisionMode(),
        importance=_M,
        documentation="How temporal values are represented: adaptive_time_microseconds, connect "
        "or isostring (adaptive is refused, as by Debezium 3.5).",
    )
    .define(
        "enable.time.adjuster",
        _B,
        True,
        importance=_M,
        documentation="Read DATE and DATETIME years 0-99 as two-digit years: 00-69 as "
        "2000-2069, 70-99 as 1970-1999.",
    )
    .define(
        "bigint.unsigned.handling.mode",
        _S,
        "long",
        _one_of("long", "precise"),
        importance=_M,
        documentation="BIGINT UNSIGNED as long (wraps above 2^63-1) or precise (Connect Decimal).",
    )
    .define(
        "binary.handling.mode",
        _S,
        "bytes",
        _one_of("bytes", "base64", "base64-url-safe", "hex"),
        importance=_LO,
        documentation="How binary columns are represented.",
    )
    .define(
        "tombstones.on.delete",
        _B,
        True,
        importance=_M,
        documentation="Whether a delete event is followed by a tombstone.",
    )
    .define(
        "include.schema.changes",
        _B,
        True,
        importance=_M,
        documentation="Whether schema changes are published to the topic named by topic.prefix.",
    )
    .define(
        "include.query",
        _B,
        False,
        importance=_LO,
        documentation="Whether the source block carries the SQL statement (needs binlog_rows_query_log_events / binlog_annotate_row_events).",
    )
    .define(
        "skipped.operations",
        _LIST,
        "t",
        importance=_LO,
        documentation="Operations not to publish: c, u, d, t, or none.",
    )
    .define(
        "provide.transaction.metadata",
        _B,
        False,
        importance=_LO,
        documentation="Whether transaction BEGIN/END events are published and events carry a transaction block.",
    )
    .define(
        "topic.transaction",
        _S,
        "transaction",
        importance=_LO,
        documentation="Suffix of the transaction metadata topic, <topic.prefix>.<topic.transaction>.",
    )
    .define(
        "topic.delimiter",
        _S,
        ".",
        importance=_LO,
        documentation="Delimiter between topic name parts.",
    )
    .define(
        "topic.heartbeat.prefix",
        _S,
        "__debezium-heartbeat",
        importance=_LO,
        documentation="Prefix of the heartbeat topic, <prefix>.<topic.prefix>.",
    )
    .define(
        "heartbeat.interval.ms",
        _I,
        0,
        Range.at_least(0),
        importance=_M,
        documentation="How often a heartbeat is emitted, in ms; 0 disables them.",
    )
    .define(
        "snapshot.mode",
        _S,
        "initial",
        _one_of(*SNAPSHOT_MODES),
        importance=_H,
        documentation="When to snapshot: initial, always, initial_only, no_data, when_needed or recovery.",
    )
    .define(
        "snapshot.locking.mode",
        _S,
        "minimal",
        _one_of("minimal", "extended", "none"),
        importance=_M,
        documentation="minimal: hold the global read lock only while reading the binlog position and schemas; extended: for the whole snapshot; none: never lock.",
    )
    .define(
        "snapshot.fetch.size",
        _I,
        None,
        importance=_M,
        documentation="Rows fetched per round trip while snapshotting.",
    )
    .define(
        "signal.data.collection",
        _S,
        None,
        importance=_LO,
        documentation="The signaling table, <db>.<table> (id VARCHAR(42) PRIMARY KEY, type "
        "VARCHAR(32), data VARCHAR(2048)); it must be captured. Its execute-snapshot rows start "
        "incremental snapshots.",
    )
    .define(
        "signal.enabled.channels",
        _LIST,
        "source",
        importance=_LO,
        documentation="Where signals are read from; only source (the signaling table) is supported.",
    )
    .define(
        "incremental.snapshot.chunk.size",
        _I,
        1024,
        importance=_M,
        documentation="Rows read per chunk of an incremental snapshot.",
    )
    .define(
        "snapshot.lock.timeout.ms",
        _L,
        10000,
        importance=_LO,
        documentation="How long to wait for the snapshot's locks, in ms.",
    )
    .define(
        "max.batch.size",
        _I,
        2048,
        Range.at_least(1),
        importance=_M,
        documentation="Most records returned by one poll.",
    )
    .define(
        "max.queue.size",
        _I,
        8192,
        Range.at_least(1),
        importance=_M,
        documentation="Most records buffered between the binlog reader and poll.",
    )
    .define(
        "poll.interval.ms",
        _L,
        500,
        Range.at_least(1),
        importance=_LO,
        documentation="How long poll waits for records, in ms.",
    )
    .define(
        "schema.history.internal.kafka.bootstrap.servers",
        _S,
        None,
        importance=_H,
        documentation="Kafka brokers of the schema history topic.",
    )
    .define(
        "schema.history.internal.kafka.topic",
        _S,
        None,
        importance=_H,
        documentation="Topic where the connector records the schema history (one partition, infinite retention).",
    )
    .define(
        "schema.history.internal.kafka.recovery.poll.interval.ms",
        _I,
        100,
        importance=_LO,
        documentation="How long one poll of the history topic waits during recovery, in ms.",
    )
    .define(
        "schema.history.internal.kafka.recovery.attempts",
        _I,
        100,
        importance=_LO,
        documentation="Empty polls of the history topic before recovery stops.",
    )
    .define(
        "schema.history.internal.kafka.query.timeout.ms",
        _L,
        3000,
        importance=_LO,
        documentation="Timeout of admin queries to the history topic's brokers, in ms.",
    )
    .define(
        "schema.history.internal.store.only.captured.tables.ddl",
        _B,
        False,
        importance=_LO,
        documentation="Record the DDL and schemas of captured tables only (by default, of "
        "every table on the server but the built-in databases).",
    )
    .define(
        "schema.history.internal.store.only.captured.databases.ddl",
        _B,
        False,
        importance=_LO,
        documentation="Record the DDL and schemas of the captured databases' tables only, "
        "captured or not.",
    )
    .define(
        "schema.history.internal.skip.unparseable.ddl",
        _B,
        False,
        importance=_LO,
        documentation="Ignore DDL that cannot be applied instead of failing.",
    )
    .define(
        "gtid.source.includes",
        _LIST,
        None,
        importance=_LO,
        documentation="GTID source ids (regular expressions) whose transactions are captured.",
    )
    .define(
        "gtid.source.excludes",
        _LIST,
        None,
        importance=_LO,
        documentation="GTID source ids (regular expressions) whose transactions are skipped.",
    )
    .define(
        "gtid.source.filter.dml.events",
        _B,
        True,
        importance=_LO,
        documentation="Skip the row changes of transactions whose GTID source the "
        "gtid.source.includes/excludes filters leave out.",
    )
    .define(
        "inconsistent.schema.handling.mode",
        _S,
        "fail",
        _one_of("fail", "warn", "skip"),
        importance=_LO,
        documentation="What to do with a change to a captured table whose schema the connector "
        "does not know: fail, warn (log and skip) or skip.",
    )
    .define(
        "event.processing.failure.handling.mode",
        _S,
        "fail",
        _one_of("fail", "warn", "skip", "ignore"),
        importance=_LO,
        documentation="What to do with an event that cannot be processed.",
    )
)

_BUILTIN_DBS: Final = frozenset({"mysql", "sys", "information_schema", "performance_schema"})


def _patterns(values: list[str] | None) -> list[re.Pattern[str]] | None:
    if not values:
        return None
    return [re.compile(v.strip(), re.IGNORECASE) for v in values if v.strip()]


def _any(patterns: list[re.Pattern[str]], text: str) -> bool:
    return any(p.fullmatch(text) for p in patterns)


@dataclass(slots=True)
class TableFilter:
    """Database, table and column include/exclude lists, as anchored regular expressions."""

    db_include: list[re.Pattern[str]] | None = None
    db_exclude: list[re.Pattern[str]] | None = None
    table_include: list[re.Pattern[str]] | None = None
    table_exclude: list[re.Pattern[str]] | None = None
    column_include: list[re.Pattern[str]] | None = None
    column_exclude: list[re.Pattern[str]] | None = None
    ignore_builtin: bool = True
    # Which tables' DDL and schemas the schema history keeps: "tables" (captured ones),
    # "databases" (every table of a captured database) or "all" (every table on the server
    # but the built-in databases'), as Debezium's store.only.captured.*.ddl settings say.
    schema_scope: str = "all"
    _cache: dict[tuple[str, str], bool] = field(default_factory=dict)

    def database(self, db: str) -> bool:
        if self.ignore_builtin and db.lower() in _BUILTIN_DBS:
            return False
        if self.db_include is not None:
            return _any(self.db_include, db)
        if self.db_exclude is not None:
            return not _any(self.db_exclude, db)
        return True

    def table(self, db: str, table: str) -> bool:
        key = (db, table)
        hit = self._cache.get(key)
        if hit is None:
            hit = self.database(db)
            if hit:
                name = f"{db}.{table}"
                if self.table_include is not None:
                    hit = _any(self.table_include, name)
                elif self.table_exclude is not None:
                    hit = not _any(self.table_exclude, name)
            self._cache[key] = hit
        return hit

    def schema_database(self, db: str) -> bool:
        """Whether the schema history keeps DDL of database ``db``."""
        if self.schema_scope == "all":
            return not (self.ignore_builtin and db.lower() in _BUILTIN_DBS)
        return self.database(db)

    def schema_table(self, db: str, table: str) -> bool:
        """Whether the schema history keeps the schema of ``db.table`` (a superset of the
        captured tables, so that DDL on the others is understood and recorded)."""
        if self.schema_scope == "tables":
            return self.table(db, table)
        return self.schema_database(db)

    def snapshot_rank(self, db: str, table: str) -> int:
        """Where a table comes in a snapshot: Debezium reads tables in the order of the
        ``table.include.list`` entry each first matches (by name within one entry)."""
        if self.table_include is None:
            return 0
        name = f"{db}.{table}"
        return next(
            (i for i, p in enumerate(self.table_include) if p.fullmatch(name)),
            len(self.table_include),
        )

    def column(self, db: str, table: str, column: str) -> bool:
        name = f"{db}.{table}.{column}"
        if self.column_include is not None:
            return _any(self.column_include, name)
        if self.column_exclude is not None:
            return not _any(self.column_exclude, name)
        return True


@dataclass(slots=True)
class Settings:
    """The parsed config, with the derived pieces the task needs."""

    name: str
    prefix: str
    host: str
    port: int
    user: str
    password: str = field(repr=False)  # never in a repr, so never in a log line
    server_id: int
    filters: TableFilter
    key_columns: list[tuple[re.Pattern[str], list[str]]]
    masks: list[tuple[re.Pattern[str], int]]
    truncations: list[tuple[re.Pattern[str], int]]
    hash_masks: list[HashMask]
    decimal_mode: str
    time_mode: str
    bigint_mode: str
    binary_mode: str
    tombstones: bool
    schema_changes: bool
    include_query: bool
    skipped: frozenset[str]
    tx_metadata: bool
    tx_topic: str
    delimiter: str
    heartbeat_topic: str
    heartbeat_ms: int
    snapshot_mode: str
    locking_mode: str
    fetch_size: int | None
    max_batch: int
    max_queue: int
    poll_ms: int
    history_servers: str | None
    history_topic: str | None
    history_poll_ms: int
    history_attempts: int
    history_timeout_ms: int
    keep_alive: bool
    connect_timeout_s: float
    initial_statements: list[str]
    gtid_includes: list[re.Pattern[str]] | None
    inconsistent_mode: str
    gtid_excludes: list[re.Pattern[str]] | None
    config: ParsedConfig
    time_adjuster: bool = True

    def key_columns_for(self, db: str, table: str) -> list[str] | None:
        name = f"{db}.{table}"
        for pattern, columns in self.key_columns:
            if pattern.fullmatch(name):
                return columns
        return None


def _column_rules(
    props: Mapping[str, str], prefix: str, suffix: str
) -> list[tuple[re.Pattern[str], int]]:
    rules: list[tuple[re.Pattern[str], int]] = []
    for key, value in props.items():
        if not (key.startswith(prefix) and key.endswith(suffix)):
            continue
        middle = key[len(prefix) : len(key) - len(suffix)]
        if not middle.isdigit():
            continue
        for item in str(value).split(","):
            if item.strip():
                rules.append((re.compile(item.strip(), re.IGNORECASE), int(middle)))
    return rules


@dataclass(frozen=True, slots=True)
class HashMask:
    """A ``column.mask.hash[.v2].<algorithm>.with.salt.<salt>`` rule."""

    pattern: re.Pattern[str]
    algorithm: str  # hashlib's name
    salt: bytes
    v2: bool


# Java's MessageDigest names (case-insensitive) -> hashlib's.
_DIGESTS: Final = {
    "MD5": "md5",
    "SHA": "sha1",
    "SHA1": "sha1",
    "SHA-1": "sha1",
    "SHA-224": "sha224",
    "SHA-256": "sha256",
    "SHA-384": "sha384",
    "SHA-512": "sha512",
    "SHA-512/224": "sha512_224",
    "SHA-512/256": "sha512_256",
    "SHA3-224": "sha3_224",
    "SHA3-256": "sha3_256",
    "SHA3-384": "sha3_384",
    "SHA3-512": "sha3_512",
}
_HASH_KEY: Final = re.compile(r"column\.mask\.hash\.(v2\.)?([^.]+)\.with\.salt\.(.+)")


def _hash_rules(props: Mapping[str, str], name: str) -> list[HashMask]:
    """Debezium's hash masks: the v2 rules first, then the v1 ones (its ColumnMappers order)."""
    v2: list[HashMask] = []
    v1: list[HashMask] = []
    for key, value in props.items():
        match = _HASH_KEY.fullmatch(key)
        if match is None:
            continue
        algorithm = _DIGESTS.get(match[2].upper())
        if algorithm is None or algorithm not in hashlib.algorithms_available:
            raise ConfigError(
                f"connector {name!r}: {key!r} names the hash algorithm {match[2]!r}, which is not "
                f"one of {', '.join(sorted(_DIGESTS))}",
                name=key,
            )
        for item in str(value).split(","):
            if item.strip():
                rule = HashMask(
                    re.compile(item.strip(), re.IGNORECASE),
                    algorithm,
                    match[3].encode("utf-8"),
                    bool(match[1]),
                )
                (v2 if rule.v2 else v1).append(rule)
    return v2 + v1


def _mutually_exclusive(config: ParsedConfig, a: str, b: str, name: str) -> None:
    if config[a] and config[b]:
        raise ConfigError(
            f"connector {name!r}: '{a}' and '{b}' cannot both be set; use one of them", name=b
        )


def parse_settings(props: Mapping[str, str]) -> Settings:
    """Parse and check the connector config; raises ConfigError naming the bad key."""
    config = CONFIG_DEF.parse(props)
    name = props.get("name", "mysql-connector")
    for required in ("topic.prefix", "database.hostname", "database.user"):
        if not config[required]:
            raise ConfigError(f"connector {name!r}: config {required!r} is required", name=required)
    _mutually_exclusive(config, "database.include.list", "database.exclude.list", name)
    _mutually_exclusive(config, "table.include.list", "table.exclude.list", name)
    _mutually_exclusive(config, "column.include.list", "column.exclude.list", name)
    filters = TableFilter(
        db_include=_patterns(config["database.include.list"]),
        db_exclude=_patterns(config["database.exclude.list"]),
        table_include=_patterns(config["table.include.list"]),
        table_exclude=_patterns(config["table.exclude.list"]),
        column_include=_patterns(config["column.include.list"]),
        column_exclude=_patterns(config["column.exclude.list"]),
        ignore_builtin=config["table.ignore.builtin"],
        schema_scope=(
            "tables"
            if config["schema.history.internal.store.only.captured.tables.ddl"]
            else "databases"
            if config["schema.history.internal.store.only.captured.databases.ddl"]
            else "all"
        ),
    )
    key_columns: list[tuple[re.Pattern[str], list[str]]] = []
    for entry in (config["message.key.columns"] or "").split(";"):
        if not entry.strip():
            continue
        table, sep, cols = entry.rpartition(":")
        columns = [c.strip() for c in cols.split(",") if c.strip()]
        if not sep or not table.strip() or not columns:
            raise ConfigError(
                f"connector {name!r}: 'message.key.columns' entry {entry!r} is not "
                "<db>.<table>:<column>[,<column>...]",
                name="message.key.columns",
            )
        key_columns.append((re.compile(table.strip(), re.IGNORECASE), columns))
    skipped = frozenset(s.strip().lower() for s in config["skipped.operations"] or [] if s.strip())
    unknown = skipped - {"c", "u", "d", "t", "none"}
    if unknown:
        raise ConfigError(
            f"connector {name!r}: 'skipped.operations' has unknown operations {sorted(unknown)}; "
            "use c, u, d, t or none",
            name="skipped.operations",
        )
    server_id = config["database.server.id"]
    if server_id is None:
        import random

        server_id = random.randint(5400, 6400)
    password = config["database.password"]
    servers = config["schema.history.internal.kafka.bootstrap.servers"]
    topic = config["schema.history.internal.kafka.topic"]
    statements = [
        s.strip() for s in (config["database.initial.statements"] or "").split(";") if s.strip()
    ]
    return Settings(
        name=name,
        prefix=config["topic.prefix"],
        host=config["database.hostname"],
        port=config["database.port"],
        user=config["database.user"],
        password=password.value if isinstance(password, Password) else (password or ""),
        server_id=int(server_id),
        filters=filters,
        key_columns=key_columns,
        masks=_column_rules(props, "column.mask.with.", ".chars"),
        hash_masks=_hash_rules(props, name),
        truncations=_column_rules(props, "column.truncate.to.", ".chars"),
        decimal_mode=config["decimal.handling.mode"].lower(),
        time_mode=config["time.precision.mode"].lower(),
        bigint_mode=config["bigint.unsigned.handling.mode"].lower(),
        binary_mode=config["binary.handling.mode"].lower(),
        tombstones=config["tombstones.on.delete"],
        schema_changes=config["include.schema.changes"],
        include_query=config["include.query"],
        skipped=frozenset() if "none" in skipped else skipped,
        tx_metadata=config["provide.transaction.metadata"],
        tx_topic=config["topic.transaction"],
        delimiter=config["topic.delimiter"],
        heartbeat_topic=config["topic.heartbeat.prefix"],
        heartbeat_ms=config["heartbeat.interval.ms"],
        snapshot_mode={"schema_only": "no_data", "schema_only_recovery": "recovery"}.get(
            config["snapshot.mode"].lower(), config["snapshot.mode"].lower()
        ),
        locking_mode=config["snapshot.locking.mode"].lower(),
        fetch_size=config["snapshot.fetch.size"],
        max_batch=config["max.batch.size"],
        max_queue=config["max.queue.size"],
        poll_ms=config["poll.interval.ms"],
        history_servers=servers,
        history_topic=topic,
        history_poll_ms=config["schema.history.internal.kafka.recovery.poll.interval.ms"],
        history_attempts=config["schema.history.internal.kafka.recovery.attempts"],
        history_timeout_ms=config["schema.history.internal.kafka.query.timeout.ms"],
        keep_alive=config["connect.keep.alive"],
        connect_timeout_s=config["connect.timeout.ms"] / 1000.0,
        initial_statements=statements,
        gtid_includes=_patterns(config["gtid.source.includes"]),
        inconsistent_mode=config["inconsistent.schema.handling.mode"].lower(),
        gtid_excludes=_patterns(config["gtid.source.excludes"]),
        config=config,
        time_adjuster=config["enable.time.adjuster"],
    )
