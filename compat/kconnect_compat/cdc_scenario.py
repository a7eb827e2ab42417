"""The CDC differential's scenario: its databases, the SQL run on them, the connector configs.

The database ``cdc`` holds a table of every column type MariaDB has a Debezium mapping for
(``types``), an order table whose columns the scenario adds, drops, renames and changes, a
table with a composite key, one without a primary key, the signaling table and a marker
table; ``cdc_aside``, which no connector captures, one table whose schema and DDL both
record by default. Rows exist before the connectors start (their snapshot); the rest
happens while both stream.

Four option sets, each run by one Debezium and one kconnect connector: ``default`` (every
mode at its default) captures the whole database with transaction metadata, heartbeats,
TRUNCATE events and the signaling table; the others capture ``types`` (and, but for ``connect``, ``long_times``), each with
another ``decimal.handling.mode``, ``time.precision.mode``,
``bigint.unsigned.handling.mode`` and ``binary.handling.mode`` (``string_hex`` with
``enable.time.adjuster=false``). Every set captures ``zero_dates``: zero dates in NOT NULL
and nullable columns, and years 0-99, snapshotted and streamed.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ASIDE",
    "DATABASE",
    "DATABASES",
    "DDL_AND_TRUNCATE",
    "DML",
    "END",
    "OPTION_SETS",
    "SETUP",
    "SIGNAL",
    "SNAPSHOT_ROWS",
    "connector_config",
]

DATABASE = "cdc"
ASIDE = "cdc_aside"
"""A database no connector captures: by default both still record its schemas and DDL."""
DATABASES = (DATABASE, ASIDE)
"""The scenario's databases (the session's server has other tests' databases too)."""

TYPES_COLUMNS = """
    id INT NOT NULL PRIMARY KEY,
    c_bool BOOLEAN, c_tinyint TINYINT, c_utinyint TINYINT UNSIGNED,
    c_smallint SMALLINT, c_usmallint SMALLINT UNSIGNED,
    c_mediumint MEDIUMINT, c_umediumint MEDIUMINT UNSIGNED,
    c_int INT, c_uint INT UNSIGNED, c_int_zf INT(6) ZEROFILL,
    c_bigint BIGINT, c_ubigint BIGINT UNSIGNED,
    c_float FLOAT, c_float_md FLOAT(7,3), c_double DOUBLE, c_real REAL,
    c_decimal DECIMAL(10,3), c_decimal0 DECIMAL(20,0), c_numeric NUMERIC(65,30),
    c_udecimal DECIMAL(8,2) UNSIGNED,
    c_bit1 BIT(1), c_bit10 BIT(10), c_bit64 BIT(64),
    c_char CHAR(3), c_varchar VARCHAR(40), c_latin1 VARCHAR(10) CHARACTER SET latin1,
    c_tinytext TINYTEXT, c_text TEXT, c_mediumtext MEDIUMTEXT, c_longtext LONGTEXT,
    c_binary BINARY(4), c_varbinary VARBINARY(8),
    c_tinyblob TINYBLOB, c_blob BLOB, c_mediumblob MEDIUMBLOB, c_longblob LONGBLOB,
    c_date DATE, c_time TIME, c_time3 TIME(3), c_time6 TIME(6),
    c_datetime DATETIME, c_datetime1 DATETIME(1), c_datetime3 DATETIME(3),
    c_datetime6 DATETIME(6),
    c_timestamp TIMESTAMP NULL, c_timestamp6 TIMESTAMP(6) NULL,
    c_year YEAR,
    c_enum ENUM('a','b','c'), c_set SET('x','y','z'),
    c_json JSON,
    c_point POINT, c_linestring LINESTRING, c_polygon POLYGON, c_multipoint MULTIPOINT,
    c_geometry GEOMETRY, c_geomcoll GEOMETRYCOLLECTION,
    c_default_int INT NOT NULL DEFAULT 42, c_default_str VARCHAR(10) DEFAULT 'dflt',
    c_default_dec DECIMAL(5,2) DEFAULT 1.50, c_default_date DATE DEFAULT '2000-01-01',
    c_default_dt DATETIME(3) DEFAULT '2001-02-03 04:05:06.789',
    c_null VARCHAR(5)
"""

_TYPES_NAMES = (
    "id, c_bool, c_tinyint, c_utinyint, c_smallint, c_usmallint, c_mediumint, c_umediumint,"
    " c_int, c_uint, c_int_zf, c_bigint, c_ubigint, c_float, c_float_md, c_double, c_real,"
    " c_decimal, c_decimal0, c_numeric, c_udecimal, c_bit1, c_bit10, c_bit64, c_char,"
    " c_varchar, c_latin1, c_tinytext, c_text, c_mediumtext, c_longtext, c_binary,"
    " c_varbinary, c_tinyblob, c_blob, c_mediumblob, c_longblob, c_date, c_time, c_time3,"
    " c_time6, c_datetime, c_datetime1, c_datetime3, c_datetime6, c_timestamp, c_timestamp6,"
    " c_year, c_enum, c_set, c_json, c_point, c_linestring, c_polygon, c_multipoint,"
    " c_geometry, c_geomcoll, c_null"
)


ZERO_DATES_COLUMNS = """
    id INT NOT NULL PRIMARY KEY,
    d DATE NOT NULL, d_null DATE NULL, d_dflt DATE NOT NULL DEFAULT '2000-01-01',
    d_zero_dflt DATE NOT NULL DEFAULT '0000-00-00',
    dt DATETIME NOT NULL, dt3 DATETIME(3) NOT NULL, dt6 DATETIME(6) NOT NULL,
    dt_null DATETIME(6) NULL, dt_now DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, ts6 TIMESTAMP(6) NOT NULL DEFAULT '0000-00-00 00:00:00.000000',
    ts_null TIMESTAMP NULL, y YEAR NOT NULL
"""

# (d, d_null, d_dflt, d_zero_dflt, dt, dt3, dt6, dt_null, dt_now, ts, ts6, ts_null, y)
_ZERO_DATES_ROWS = (
    "'0000-00-00', '0000-00-00', '0000-00-00', '0000-00-00', '0000-00-00 00:00:00',"
    " '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00',"
    " '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00',"
    " 1999",
    "'2021-00-05', '2021-03-00', '0000-05-05', '0000-00-00', '2021-00-05 01:02:03',"
    " '0000-05-05 01:02:03.456', '2021-03-00 00:00:00.000001', '0000-05-05 00:00:00',"
    " '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-01-01 00:00:00.5', NULL, 2000",
    "'0069-12-31', '0070-01-01', '0001-02-03', '0099-12-31', '0069-06-07 08:09:10',"
    " '0070-01-01 00:00:00.001', '0005-02-28 23:59:59.999999', '0099-12-31 23:59:59.5',"
    " '0100-01-01 00:00:00', '1970-01-01 00:00:01', '2038-01-19 03:14:07.999999', NULL, 1901",
    "'0004-02-29', '0096-02-29', '0100-02-28', '2069-01-01', '0000-01-01 00:00:00',"
    " '0072-02-29 12:00:00.000', '0068-02-29 00:00:00.000000', NULL, '1969-12-31 23:59:59',"
    " '2000-01-01 00:00:00', '2000-01-01 00:00:00.000001', '0000-00-00 00:00:00', 2155",
)


def _zero_dates_row(ident: int, values: str) -> str:
    return f"INSERT INTO zero_dates VALUES ({ident}, {values})"


def _types_row(ident: int, values: str) -> str:
    return f"INSERT INTO types ({_TYPES_NAMES}) VALUES ({ident}, {values})"


# Ordinary values.
_ROW_PLAIN = """
    TRUE, -5, 255, -300, 65535, -8388608, 16777215, -2147483648, 4294967295, 42,
    -9223372036854775808, 18446744073709551615, 1.5, 1234.567, 2.25, -0.125,
    -1234567.891, 12345678901234567890, 3.141592653589793238462643383279502884197,
    123456.78,
    b'1', b'1000000001', b'1111111111111111111111111111111111111111111111111111111111111110',
    'abc', 'Zoë 🚀 naïve', 'café',
    'tiny', 'a longer text', 'medium', 'long',
    x'01020304', x'0A0B', x'00', x'FF00FF', x'DEADBEEF', x'',
    '2018-06-20', '01:00:00', '12:34:56.789', '13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.1', '2018-06-20 13:37:03.120',
    '2018-06-20 13:37:03.123456',
    '2018-06-20 13:37:03', '2018-06-20 13:37:03.123456',
    2018, 'b', 'z,x', '{"k": [1, 2.5, "v"], "n": null}',
    ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0)'),
    ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 0))'),
    ST_GeomFromText('MULTIPOINT(1 1, 2 2)'), ST_GeomFromText('POINT(-3.5 7.25)'),
    ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 1 1))'),
    NULL
"""

# The edges of each type's range.
_ROW_EDGES = """
    FALSE, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 0,
    9223372036854775807, 9223372036854775808, -3.4e38, -9999.999, 1.7976931348623157e308,
    2.2250738585072014e-308,
    9999999.999, -99999999999999999999, -12345678901234567890123456789012345.123456789012345678901234567890,
    0.00,
    b'0', b'0', b'0',
    '', '', '',
    '', '', '', '',
    x'00000000', x'', x'', x'', x'', x'00',
    '1000-01-01', '23:59:59', '00:00:00.000', '00:00:00.000001',
    '1000-01-01 00:00:00', '9999-12-31 23:59:59.9', '1970-01-01 00:00:00.000',
    '9999-12-31 23:59:59.999999',
    '1970-01-01 00:00:01', '2038-01-19 03:14:07.999999',
    1901, 'a', '', '[]',
    ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('LINESTRING(-1 -1, 1 1)'),
    ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'),
    ST_GeomFromText('MULTIPOINT(0 0)'), ST_GeomFromText('POLYGON((0 0, 2 0, 2 2, 0 0))'),
    ST_GeomFromText('GEOMETRYCOLLECTION(POINT(0 0))'),
    'x'
"""

_ROW_NULLS = ", ".join(["NULL"] * 56) + ", NULL"

SETUP: tuple[str, ...] = (
    f"CREATE DATABASE {DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
    f"USE {DATABASE}",
    f"CREATE TABLE types ({TYPES_COLUMNS})",
    _types_row(1, _ROW_PLAIN),
    _types_row(2, _ROW_EDGES),
    _types_row(3, _ROW_NULLS),
    # TIME is a duration (-838:59:59 to 838:59:59), not a time of day: what Kafka Connect's
    # Time (time.precision.mode=connect) cannot hold is in this table only.
    """CREATE TABLE long_times (
        id INT PRIMARY KEY, t TIME, t3 TIME(3), t6 TIME(6)
    )""",
    """INSERT INTO long_times VALUES
        (1, '838:59:59', '-838:59:59.000', '-01:00:00.000001'),
        (2, '-01:00:00', '25:00:00.125', '-00:00:00.5'),
        (3, NULL, NULL, NULL),
        (4, '00:00:00', '23:59:59.999', '24:00:00.000000')""",
    # Zero dates (MariaDB stores them only without NO_ZERO_DATE/NO_ZERO_IN_DATE) and years
    # 0-99, which enable.time.adjuster reads as two-digit years.
    "SET SESSION sql_mode = ''",
    f"CREATE TABLE zero_dates ({ZERO_DATES_COLUMNS})",
    *(_zero_dates_row(i, row) for i, row in enumerate(_ZERO_DATES_ROWS, 1)),
    "SET SESSION sql_mode = DEFAULT",
    """CREATE TABLE orders (
        id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
        customer VARCHAR(40) NOT NULL,
        amount DECIMAL(10,2) NOT NULL DEFAULT 0.00,
        status ENUM('new','paid','shipped') NOT NULL DEFAULT 'new',
        note VARCHAR(100) NULL COMMENT 'free text',
        updated DATETIME(3) NULL
    ) COMMENT 'orders of the scenario'""",
    """INSERT INTO orders (customer, amount, status, note, updated) VALUES
        ('ann', 10.50, 'new', 'first', '2024-01-02 03:04:05.678'),
        ('bob', 99.99, 'paid', NULL, '2024-02-03 04:05:06.000'),
        ('cid', 0.01, 'shipped', 'x', NULL),
        ('dee', 1234.00, 'new', '', '2024-03-04 05:06:07.890'),
        ('eve', 5.00, 'paid', 'gift', '2024-04-05 06:07:08.900'),
        ('fay', 7.70, 'new', NULL, NULL)""",
    """CREATE TABLE order_lines (
        order_id INT NOT NULL, line_no SMALLINT UNSIGNED NOT NULL,
        sku CHAR(8) NOT NULL, qty INT UNSIGNED NOT NULL DEFAULT 1,
        PRIMARY KEY (order_id, line_no)
    )""",
    """INSERT INTO order_lines VALUES
        (1, 1, 'SKU-0001', 2), (1, 2, 'SKU-0002', 1), (2, 1, 'SKU-0003', 5)""",
    "CREATE TABLE notes (body VARCHAR(100), n INT) ENGINE=InnoDB",
    "INSERT INTO notes VALUES ('no key here', 1), ('nor here', 2)",
    """CREATE TABLE debezium_signal (
        id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL
    )""",
    "CREATE TABLE marker (id INT PRIMARY KEY, step VARCHAR(20) NOT NULL)",
    "INSERT INTO marker VALUES (0, 'snapshot')",
    f"CREATE DATABASE {ASIDE} CHARACTER SET latin1",
    f"""CREATE TABLE {ASIDE}.kept (
        id INT PRIMARY KEY, label ENUM('on','off','it''s') NOT NULL DEFAULT 'on',
        flags SET('r','w','x') DEFAULT 'r,w'
    ) COMMENT 'not captured'""",
)

# (table, rows) each connector of an option set reads in its snapshot.
SNAPSHOT_ROWS: dict[str, dict[str, int]] = {
    "default": {
        "types": 3,
        "long_times": 4,
        "zero_dates": 4,
        "orders": 6,
        "order_lines": 3,
        "notes": 2,
        "marker": 1,
    },
    "double_connect": {"types": 3, "zero_dates": 4},
    "string_hex": {"types": 3, "long_times": 4, "zero_dates": 4},
    "isostring": {"types": 3, "long_times": 4, "zero_dates": 4},
}

DML: tuple[tuple[str, ...], ...] = (
    # Single statements, each its own transaction.
    (_types_row(4, _ROW_PLAIN.replace("-5,", "-6,", 1)),),
    (_types_row(5, _ROW_EDGES),),
    (
        """UPDATE types SET c_int = c_int + 1, c_varchar = 'changed ✓', c_date = '2020-02-29',
        c_decimal = 0.001, c_blob = x'00FF', c_json = '{"updated": true}', c_null = 'now'
        WHERE id = 1""",
    ),
    ("UPDATE types SET c_double = NULL, c_time6 = '00:00:00.5', c_ubigint = 1 WHERE id = 3",),
    ("INSERT INTO long_times VALUES (5, '-00:00:01', '-00:00:00.5', '100:00:00.000001')",),
    ("UPDATE long_times SET t = '24:00:00' WHERE id = 1",),
    ("DELETE FROM types WHERE id = 2",),
    # The same zero dates and years 0-99 from the binlog.
    (
        "SET SESSION sql_mode = ''",
        *(_zero_dates_row(10 + i, row) for i, row in enumerate(_ZERO_DATES_ROWS, 1)),
        "UPDATE zero_dates SET d = '0000-00-00', dt6 = '0000-00-00 00:00:00' WHERE id = 13",
    ),
    ("INSERT INTO orders (customer, amount, status) VALUES ('gus', 12.34, 'new')",),
    ("UPDATE orders SET amount = 11.00, updated = '2024-05-06 07:08:09.100' WHERE id = 1",),
    # A new primary key: a delete (and its tombstone) and a create.
    ("UPDATE orders SET id = 30 WHERE id = 3",),
    ("DELETE FROM orders WHERE id = 5",),
    # A multi-statement transaction over two tables.
    (
        "BEGIN",
        "INSERT INTO orders (id, customer, amount) VALUES (8, 'hal', 80.00)",
        "INSERT INTO order_lines VALUES (8, 1, 'SKU-0008', 3), (8, 2, 'SKU-0009', 4)",
        "UPDATE orders SET status = 'paid' WHERE id = 1",
        "DELETE FROM order_lines WHERE order_id = 1 AND line_no = 1",
        "UPDATE order_lines SET qty = qty * 10 WHERE order_id = 2",
        "COMMIT",
    ),
    # One statement changing several rows; a table without a primary key.
    ("UPDATE orders SET note = CONCAT(IFNULL(note, ''), '!') WHERE id IN (2, 4, 6)",),
    (
        "BEGIN",
        "INSERT INTO notes VALUES ('third', 3)",
        "UPDATE notes SET n = n + 10 WHERE n < 3",
        "DELETE FROM notes WHERE n = 12",
        "COMMIT",
    ),
)

DDL_AND_TRUNCATE: tuple[tuple[str, ...], ...] = (
    ("ALTER TABLE orders ADD COLUMN priority TINYINT NOT NULL DEFAULT 0 AFTER status",),
    ("INSERT INTO orders (id, customer, amount, priority) VALUES (9, 'ida', 9.90, 2)",),
    ("ALTER TABLE orders DROP COLUMN note",),
    ("UPDATE orders SET priority = 1 WHERE id = 9",),
    ("ALTER TABLE orders RENAME COLUMN customer TO client",),
    ("INSERT INTO orders (id, client, amount) VALUES (10, 'jon', 10.00)",),
    ("ALTER TABLE orders CHANGE COLUMN amount total DECIMAL(12,3) NOT NULL DEFAULT 0",),
    ("INSERT INTO orders (id, client, total) VALUES (11, 'kim', 11.125)",),
    (
        "ALTER TABLE orders MODIFY status ENUM('new','paid','shipped','returned') NOT NULL DEFAULT 'new'",
    ),
    ("UPDATE orders SET status = 'returned' WHERE id = 11",),
    (
        """CREATE TABLE late (
            id BIGINT UNSIGNED NOT NULL PRIMARY KEY, v DOUBLE, t TIME(3), d DATETIME(6),
            b VARBINARY(4), m DECIMAL(30,10), e ENUM('p','q') DEFAULT 'q'
        )""",
    ),
    (
        """INSERT INTO late VALUES
            (18446744073709551615, 0.1, '10:00:00.5', '2025-01-01 00:00:00.000001', x'CAFE',
             -0.0000000001, 'p')""",
    ),
    ("RENAME TABLE late TO late_renamed",),
    ("UPDATE late_renamed SET v = -0.5 WHERE id = 18446744073709551615",),
    (f"ALTER TABLE {ASIDE}.kept ADD COLUMN extra VARCHAR(8) DEFAULT 'x' COMMENT 'added'",),
    ("TRUNCATE TABLE notes",),
    ("INSERT INTO notes VALUES ('after truncate', 4)",),
)

SIGNAL = (
    "INSERT INTO debezium_signal VALUES ('incremental-orders', 'execute-snapshot',"
    ' \'{"data-collections": ["cdc.orders"], "type": "incremental"}\')'
)

# The last change every connector sees: once both sides have it, both have all before it.
END: tuple[str, ...] = (
    "INSERT INTO marker VALUES (1, 'end')",
    "UPDATE types SET c_varchar = 'end' WHERE id = 1",
)

OPTION_SETS: dict[str, dict[str, str]] = {
    "default": {
        "decimal.handling.mode": "precise",
        "time.precision.mode": "adaptive_time_microseconds",
        "bigint.unsigned.handling.mode": "long",
        "binary.handling.mode": "bytes",
        "provide.transaction.metadata": "true",
        "heartbeat.interval.ms": "1000",
        "signal.data.collection": f"{DATABASE}.debezium_signal",
        "incremental.snapshot.chunk.size": "3",
        "skipped.operations": "none",
    },
    "double_connect": {
        "decimal.handling.mode": "double",
        "time.precision.mode": "connect",
        "bigint.unsigned.handling.mode": "precise",
        "binary.handling.mode": "base64",
        "table.include.list": f"{DATABASE}.types,{DATABASE}.zero_dates",
    },
    # Debezium 3.5 refuses time.precision.mode=adaptive ("no longer supported").
    "string_hex": {
        "decimal.handling.mode": "string",
        "time.precision.mode": "adaptive_time_microseconds",
        "bigint.unsigned.handling.mode": "long",
        "binary.handling.mode": "hex",
        "enable.time.adjuster": "false",
        "table.include.list": f"{DATABASE}.types,{DATABASE}.long_times,{DATABASE}.zero_dates",
    },
    "isostring": {
        "decimal.handling.mode": "precise",
        "time.precision.mode": "isostring",
        "bigint.unsigned.handling.mode": "precise",
        "binary.handling.mode": "base64-url-safe",
        "table.include.list": f"{DATABASE}.types,{DATABASE}.long_times,{DATABASE}.zero_dates",
    },
}


def connector_config(
    server: Any, kafka: str, option_set: str, *, prefix: str, server_id: int
) -> dict[str, str]:
    """One connector's config: the option set's, with this side's prefix, replica id and
    schema history topic (the only keys that differ between the two sides)."""
    config = {
        "name": prefix,
        "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        "tasks.max": "1",
        "database.hostname": server.host,
        "database.port": str(server.port),
        "database.user": server.user,
        "database.server.id": str(server_id),
        "topic.prefix": prefix,
        "database.include.list": DATABASE,
        "snapshot.mode": "initial",
        "include.schema.changes": "true",
        "schema.history.internal.kafka.bootstrap.servers": kafka,
        "schema.history.internal.kafka.topic": f"history.{prefix}",
        "poll.interval.ms": "200",
    }
    if server.password:
        config["database.password"] = server.password
    config.update(OPTION_SETS[option_set])
    return config
