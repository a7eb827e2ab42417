"""The JDBC source against the kconnect-testkit source conformance suite (SQLite files).

The pipeline check runs each scenario through a real worker and broker.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kconnect_testkit import Scenario, SourceConnectorSuite

URL = "jdbc:sqlite:{tmp_path}/conformance.sqlite"


class TestJdbcSource(SourceConnectorSuite):
    plugin = "io.confluent.connect.jdbc.JdbcSourceConnector"
    scenarios = [
        Scenario(
            id="incrementing",
            config={
                "connection.url": URL,
                "mode": "incrementing",
                "incrementing.column.name": "id",
                "topic.prefix": "conf-",
                "poll.interval.ms": "100",
            },
            seed="seed_orders",
            expected_records=7,
        ),
        Scenario(
            id="timestamp-incrementing-small-batches",
            config={
                "connection.url": URL,
                "mode": "timestamp+incrementing",
                "incrementing.column.name": "id",
                "timestamp.column.name": "modified",
                "topic.prefix": "conf-",
                "batch.max.rows": "2",
                "poll.interval.ms": "100",
            },
            seed="seed_orders",
            expected_records=7,
        ),
        Scenario(
            id="timestamp",
            config={
                "connection.url": URL,
                "mode": "timestamp",
                "timestamp.column.name": "modified",
                "topic.prefix": "conf-",
                "poll.interval.ms": "100",
            },
            seed="seed_orders",
            expected_records=7,
        ),
        Scenario(
            id="query",
            config={
                "connection.url": URL,
                "mode": "incrementing",
                "incrementing.column.name": "id",
                "query": "SELECT id, item FROM orders",
                "topic.prefix": "conf-query",
                "poll.interval.ms": "100",
            },
            seed="seed_orders",
            expected_records=7,
        ),
    ]

    def seed_orders(self, tmp_path: Path) -> None:
        conn = sqlite3.connect(tmp_path / "conformance.sqlite")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "item TEXT NOT NULL, amount DECIMAL(10, 2), modified DATETIME NOT NULL)"
        )
        if not conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0]:
            conn.executemany(
                "INSERT INTO orders (item, amount, modified) VALUES (?, ?, ?)",
                [
                    ("apple", "1.50", "2024-01-01 10:00:00"),
                    ("pear", "2.25", "2024-01-01 10:00:01"),
                    ("Zoë 🚀", None, "2024-01-01 10:00:02"),
                    ("plum", "0.10", "2024-01-01 10:00:03"),
                    ("kiwi", "9.99", "2024-01-01 10:00:04"),
                    ("fig", "3.00", "2024-01-01 10:00:05"),
                    ("lime", "4.40", "2024-01-01 10:00:06"),
                ],
            )
        conn.commit()
        conn.close()
