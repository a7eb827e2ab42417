"""Config keys of the JDBC source, named and defaulted as Confluent's JdbcSourceConnectorConfig."""

from __future__ import annotations

from typing import Any, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    Range,
    ValidString,
    lambda_validator,
)

from ._granularity import GRANULARITIES

__all__ = ["SOURCE_CONFIG_DEF"]

CONNECTION_URL: Final = "connection.url"
CONNECTION_USER: Final = "connection.user"
CONNECTION_PASSWORD: Final = "connection.password"
CONNECTION_ATTEMPTS: Final = "connection.attempts"
CONNECTION_BACKOFF_MS: Final = "connection.backoff.ms"
DIALECT_NAME: Final = "dialect.name"
POLL_INTERVAL_MS: Final = "poll.interval.ms"
BATCH_MAX_ROWS: Final = "batch.max.rows"
NUMERIC_MAPPING: Final = "numeric.mapping"
NUMERIC_PRECISION_MAPPING: Final = "numeric.precision.mapping"
MODE: Final = "mode"
INCREMENTING_COLUMN_NAME: Final = "incrementing.column.name"
TIMESTAMP_COLUMN_NAME: Final = "timestamp.column.name"
TIMESTAMP_INITIAL: Final = "timestamp.initial"
TIMESTAMP_DELAY_INTERVAL_MS: Final = "timestamp.delay.interval.ms"
TIMESTAMP_GRANULARITY: Final = "timestamp.granularity"
TABLE_POLL_INTERVAL_MS: Final = "table.poll.interval.ms"
TABLE_WHITELIST: Final = "table.whitelist"
TABLE_BLACKLIST: Final = "table.blacklist"
TABLE_INCLUDE_LIST: Final = "table.include.list"
TABLE_EXCLUDE_LIST: Final = "table.exclude.list"
SCHEMA_PATTERN: Final = "schema.pattern"
CATALOG_PATTERN: Final = "catalog.pattern"
TABLE_TYPES: Final = "table.types"
QUERY: Final = "query"
QUERY_SUFFIX: Final = "query.suffix"
QUERY_RETRY_ATTEMPTS: Final = "query.retry.attempts"
TOPIC_PREFIX: Final = "topic.prefix"
VALIDATE_NON_NULL: Final = "validate.non.null"
DB_TIMEZONE: Final = "db.timezone"
QUOTE_SQL_IDENTIFIERS: Final = "quote.sql.identifiers"
RECORD_KEY_MODE: Final = "record.key.mode"

MODE_BULK: Final = "bulk"
MODE_INCREMENTING: Final = "incrementing"
MODE_TIMESTAMP: Final = "timestamp"
MODE_TIMESTAMP_INCREMENTING: Final = "timestamp+incrementing"

# Confluent's TIMESTAMP_INITIAL_CURRENT: start from the database's current time.
TIMESTAMP_INITIAL_CURRENT: Final = -1

# Task-only keys, as Confluent's JdbcSourceTaskConfig names them.
TABLES: Final = "tables"
TABLES_FETCHED: Final = "tables.fetched"

NUMERIC_MAPPINGS: Final = ("none", "precision_only", "best_fit", "best_fit_eager_double")


def _check_numeric_mapping(name: str, value: Any) -> None:
    # Unset (null) is allowed and means "none" unless numeric.precision.mapping is set.
    if value is not None and str(value).lower() not in NUMERIC_MAPPINGS:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: must be one of "
            f"{', '.join(NUMERIC_MAPPINGS)}"
        )


def _check_granularity(name: str, value: Any) -> None:
    if str(value or "").strip().lower() not in ("", *GRANULARITIES):
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: must be one of "
            f"{', '.join(GRANULARITIES)}"
        )


_CONNECTION = "Database"
_MODE = "Mode"
_CONNECTOR = "Connector"

SOURCE_CONFIG_DEF: Final = (
    ConfigDef()
    .define(
        CONNECTION_URL,
        ConfigType.STRING,
        importance=Importance.HIGH,
        group=_CONNECTION,
        documentation="JDBC connection URL (jdbc:postgresql://, jdbc:mysql://, jdbc:mariadb://, "
        "jdbc:sqlite:) or a SQLAlchemy URL (postgresql+psycopg://, mysql+pymysql://, sqlite:///).",
    )
    .define(
        CONNECTION_USER,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        group=_CONNECTION,
        documentation="JDBC connection user.",
    )
    .define(
        CONNECTION_PASSWORD,
        ConfigType.PASSWORD,
        None,
        importance=Importance.HIGH,
        group=_CONNECTION,
        documentation="JDBC connection password.",
    )
    .define(
        CONNECTION_ATTEMPTS,
        ConfigType.INT,
        3,
        Range.at_least(1),
        importance=Importance.LOW,
        group=_CONNECTION,
        documentation="Maximum number of attempts to retrieve a valid JDBC connection.",
    )
    .define(
        CONNECTION_BACKOFF_MS,
        ConfigType.LONG,
        10000,
        importance=Importance.LOW,
        group=_CONNECTION,
        documentation="Backoff time in milliseconds between connection attempts.",
    )
    .define(
        DIALECT_NAME,
        ConfigType.STRING,
        "",
        ValidString.one_of(
            "",
            "PostgreSqlDatabaseDialect",
            "MySqlDatabaseDialect",
            "SqliteDatabaseDialect",
        ),
        importance=Importance.LOW,
        group=_CONNECTION,
        documentation="The database dialect; empty picks it from the connection URL.",
    )
    .define(
        CATALOG_PATTERN,
        ConfigType.STRING,
        None,
        importance=Importance.MEDIUM,
        group=_CONNECTION,
        documentation="Catalog pattern (SQL LIKE) to fetch table metadata from the database; "
        "on MySQL/MariaDB the catalog is the database. Empty uses the URL's database.",
    )
    .define(
        TABLE_WHITELIST,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        group=_CONNECTION,
        documentation="List of tables to include in copying. Use a comma-separated list to "
        'specify multiple tables (for example, table.whitelist: "User, Address, Email").',
    )
    .define(
        TABLE_BLACKLIST,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        group=_CONNECTION,
        documentation="List of tables to exclude from copying.",
    )
    .define(
        TABLE_INCLUDE_LIST,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        group=_CONNECTION,
        documentation="Regular expressions matching fully qualified table names to copy "
        "(for example db.orders_.*). Cannot be combined with table.whitelist/blacklist.",
    )
    .define(
        TABLE_EXCLUDE_LIST,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        group=_CONNECTION,
        documentation="Regular expressions matching fully qualified table names to leave out "
        "of table.include.list's matches.",
    )
    .define(
        SCHEMA_PATTERN,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        group=_CONNECTION,
        documentation="Schema pattern (SQL LIKE) to fetch table metadata from the database.",
    )
    .define(
        NUMERIC_PRECISION_MAPPING,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_CONNECTION,
        documentation="Deprecated: use numeric.mapping=precision_only.",
    )
    .define(
        NUMERIC_MAPPING,
        ConfigType.STRING,
        None,
        lambda_validator(
            _check_numeric_mapping, "[none, precision_only, best_fit, best_fit_eager_double]"
        ),
        importance=Importance.LOW,
        group=_CONNECTION,
        documentation="Map NUMERIC values by precision and optionally scale to integral or "
        "decimal types: none, precision_only, best_fit or best_fit_eager_double.",
    )
    .define(
        MODE,
        ConfigType.STRING,
        "",
        ValidString.one_of(
            "", MODE_BULK, MODE_TIMESTAMP, MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING
        ),
        importance=Importance.HIGH,
        group=_MODE,
        documentation="The mode for updating a table each time it is polled: bulk, "
        "incrementing, timestamp or timestamp+incrementing.",
    )
    .define(
        INCREMENTING_COLUMN_NAME,
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        group=_MODE,
        documentation="The name of the strictly incrementing column to detect new rows. Empty "
        "looks for an auto-increment column.",
    )
    .define(
        TIMESTAMP_COLUMN_NAME,
        ConfigType.LIST,
        "",
        importance=Importance.MEDIUM,
        group=_MODE,
        documentation="Comma-separated list of timestamp columns to detect new or modified "
        "rows; the first non-null one of each row counts (COALESCE).",
    )
    .define(
        TIMESTAMP_INITIAL,
        ConfigType.LONG,
        None,
        importance=Importance.LOW,
        group=_MODE,
        documentation="Epoch milliseconds of the first timestamp to query from when there is "
        "no offset; -1 means the database's current time; unset starts at the epoch.",
    )
    .define(
        VALIDATE_NON_NULL,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_MODE,
        documentation="Fail when the incrementing or timestamp columns are nullable.",
    )
    .define(
        QUERY,
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        group=_MODE,
        documentation="Copy the result of this query instead of whole tables; its records go to "
        "topic.prefix. Incremental modes append a WHERE clause, so wrap a query that has one "
        "as a subquery.",
    )
    .define(
        QUOTE_SQL_IDENTIFIERS,
        ConfigType.STRING,
        "always",
        ValidString.one_of("always", "never", case_insensitive=True),
        importance=Importance.MEDIUM,
        group=_MODE,
        documentation="When to quote table names, column names and other identifiers.",
    )
    .define(
        QUERY_SUFFIX,
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        group=_MODE,
        documentation="Suffix appended at the end of the generated query (e.g. LIMIT 100).",
    )
    .define(
        QUERY_RETRY_ATTEMPTS,
        ConfigType.INT,
        -1,
        importance=Importance.LOW,
        group=_MODE,
        documentation="Number of times to retry a failed query before failing the task; -1 "
        "retries forever.",
    )
    .define(
        TABLE_TYPES,
        ConfigType.LIST,
        "TABLE",
        importance=Importance.LOW,
        group=_CONNECTOR,
        documentation="Table types to copy: TABLE, VIEW, or both.",
    )
    .define(
        POLL_INTERVAL_MS,
        ConfigType.INT,
        5000,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="Frequency in ms to poll for new data in each table.",
    )
    .define(
        BATCH_MAX_ROWS,
        ConfigType.INT,
        1000,
        Range.at_least(1),
        importance=Importance.LOW,
        group=_CONNECTOR,
        documentation="Maximum number of rows in one batch of one poll; also bounds the rows "
        "held in memory per table, since results are streamed.",
    )
    .define(
        TABLE_POLL_INTERVAL_MS,
        ConfigType.LONG,
        60000,
        importance=Importance.LOW,
        group=_CONNECTOR,
        documentation="Frequency in ms to poll for new or removed tables, which may result "
        "in updated task configurations to start polling for data in added tables.",
    )
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="Prefix to prepend to table names to generate the topic name; in query "
        "mode, the topic name itself.",
    )
    .define(
        TIMESTAMP_DELAY_INTERVAL_MS,
        ConfigType.LONG,
        0,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="How long to wait after a row with a certain timestamp appears before "
        "including it, so that transactions with earlier timestamps can complete.",
    )
    .define(
        DB_TIMEZONE,
        ConfigType.STRING,
        "UTC",
        importance=Importance.MEDIUM,
        group=_CONNECTOR,
        documentation="Name of the time zone (IANA) the connector uses for time-based "
        "criteria and for reading timestamps without a time zone.",
    )
    .define(
        TIMESTAMP_GRANULARITY,
        ConfigType.STRING,
        "connect_logical",
        lambda_validator(_check_granularity, f"[{', '.join(GRANULARITIES)}]"),
        importance=Importance.LOW,
        group=_CONNECTOR,
        documentation="How TIMESTAMP columns are written: connect_logical (Connect's "
        "Timestamp, milliseconds), micros_long/nanos_long (epoch count, INT64), "
        "micros_string/nanos_string (the same as text), micros_iso_datetime_string/"
        "nanos_iso_datetime_string (yyyy-MM-ddTHH:mm:ss with 6/9 fraction digits, in "
        "db.timezone).",
    )
    .define(
        RECORD_KEY_MODE,
        ConfigType.STRING,
        "none",
        ValidString.one_of("none", "primary_key"),
        importance=Importance.MEDIUM,
        group=_CONNECTOR,
        documentation="kconnect only: 'primary_key' keys each record by a struct of the "
        "table's primary-key columns (what ValueToKey on those columns gives); 'none' "
        "writes no key, as Confluent's connector does.",
    )
    .define(
        TABLES,
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        internal=True,
        documentation="Task only: JSON list of the tables this task copies.",
    )
    .define(
        TABLES_FETCHED,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        internal=True,
        documentation="Task only: whether the table list has been fetched.",
    )
)
