"""The book's chapter 5 JDBC examples, run unchanged (but for host, port and credentials)
through a real worker and broker against MariaDB, checked against the JSON the book prints.

The book's bulk output shows the ``timestamp`` field as optional, its
timestamp+incrementing output (same table) as required; the column is ``NOT NULL``, which
Connector/J reports as ``columnNoNulls``, so Confluent's connector writes it as required.
The bulk listing evidently came from an earlier table; both checks here expect required.
Timestamps are the database's clock, so only their type is compared.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from kconnect_runtime import Standalone

pytestmark = pytest.mark.integration

PASSWORD = "b00k-s3cret-Pw"

BOOK_BULK = {
    "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
    "tasks.max": "1",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
    "connection.url": "jdbc:mysql://localhost:3306/inventory",
    "connection.user": "<USER>",
    "connection.password": "<PASSWORD>",
    "topic.prefix": "mysql-bulk-",
    "mode": "bulk",
    "table.whitelist": "kafka_books",
}
CONVERT_PUBLISHED = {
    "transforms": "timestampConverter",
    "transforms.timestampConverter.type": "org.apache.kafka.connect.transforms.TimestampConverter$Value",
    "transforms.timestampConverter.field": "published",
    "transforms.timestampConverter.format": "yyyy-MM-dd",
    "transforms.timestampConverter.target.type": "string",
}
BOOK_INC = {
    "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
    "tasks.max": "1",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
    "connection.url": "jdbc:mysql://localhost:3306/inventory",
    "connection.user": "<USER>",
    "connection.password": "<PASSWORD>",
    "topic.prefix": "mysql-inc-",
    "mode": "timestamp+incrementing",
    "incrementing.column.name": "id",
    "timestamp.column.name": "timestamp",
    "table.whitelist": "kafka_books",
    **CONVERT_PUBLISHED,
}

# The book's printed schemas (timestamp made required, see the module docstring).
BULK_SCHEMA = {
    "type": "struct",
    "fields": [
        {"type": "int64", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "title"},
        {"type": "string", "optional": False, "field": "subtitle"},
        {
            "type": "int32",
            "optional": False,
            "name": "org.apache.kafka.connect.data.Date",
            "version": 1,
            "field": "published",
        },
        {
            "type": "int64",
            "optional": False,
            "name": "org.apache.kafka.connect.data.Timestamp",
            "version": 1,
            "field": "timestamp",
        },
    ],
    "optional": False,
    "name": "kafka_books",
}
INC_SCHEMA = {
    **BULK_SCHEMA,
    "fields": [
        *BULK_SCHEMA["fields"][:3],  # type: ignore[index]
        {"type": "string", "optional": False, "field": "published"},
        BULK_SCHEMA["fields"][4],  # type: ignore[index]
    ],
}
BOOKS = [
    (1, "Kafka Connect", "Build and Run Data Pipelines", 19631),
    (2, "Kafka The Definitive Guide", "Real-time Data and Stream Processing at Scale", 17354),
]


@pytest.fixture
def book_db(kc_mariadb: Any) -> dict[str, str]:
    """The book's inventory.kafka_books, reached by a user with a password."""
    conn = kc_mariadb.connect(autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS inventory")
        cur.execute("DROP TABLE IF EXISTS inventory.kafka_books")
        cur.execute(
            """CREATE table inventory.kafka_books
            (
                id          INT unsigned NOT NULL AUTO_INCREMENT,
                title       VARCHAR(150) NOT NULL,
                subtitle    VARCHAR(150) NOT NULL,
                published   DATE NOT NULL,
                timestamp   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE
                            CURRENT_TIMESTAMP,
                PRIMARY KEY  (id)
            )"""
        )
        cur.execute(
            """INSERT INTO inventory.kafka_books ( title, subtitle, published) VALUES
              ( 'Kafka Connect', 'Build and Run Data Pipelines', '2023-10-01' ),
              ( 'Kafka The Definitive Guide',
                'Real-time Data and Stream Processing at Scale', '2017-07-07' )"""
        )
        cur.execute(f"CREATE USER IF NOT EXISTS 'bookuser'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")
        cur.execute("GRANT ALL PRIVILEGES ON inventory.* TO 'bookuser'@'127.0.0.1'")
    conn.close()
    return {
        "connection.url": f"jdbc:mysql://{kc_mariadb.host}:{kc_mariadb.port}/inventory",
        "connection.user": "bookuser",
        "connection.password": PASSWORD,
    }


def _worker(tmp_path: Path, kafka: str) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "500",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
    }


class TopicReader:
    def __init__(self, kafka: str, topic: str) -> None:
        self.consumer = Consumer(
            {"bootstrap.servers": kafka, "group.id": f"book-{uuid.uuid4().hex[:6]}"}
        )
        self.topic = topic
        self.assigned = False
        self.messages: list[dict[str, Any]] = []

    def read(self, count: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            if not self.assigned:
                meta = self.consumer.list_topics(self.topic, timeout=5).topics.get(self.topic)
                if meta is None or not meta.partitions or meta.error is not None:
                    time.sleep(0.2)
                    continue
                self.consumer.assign(
                    [TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in meta.partitions]
                )
                self.assigned = True
            for m in self.consumer.consume(100, 0.2):
                value = m.value()
                if not m.error():
                    assert m.key() is None
                    assert value is not None, "a record without a value"
                    self.messages.append(json.loads(value))
        assert len(self.messages) >= count, f"{len(self.messages)} of {count} records came"
        return self.messages

    def close(self) -> None:
        self.consumer.close()


def _check_payload(
    message: dict[str, Any], book: tuple[int, str, str, Any], published: Any
) -> None:
    payload = dict(message["payload"])
    assert isinstance(payload.pop("timestamp"), int)
    assert payload == {"id": book[0], "title": book[1], "subtitle": book[2], "published": published}


def test_book_bulk_config(
    book_db: dict[str, str], kc_kafka: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    config = {**BOOK_BULK, **book_db, "name": "mysql-source-bulk"}
    app = Standalone(_worker(tmp_path, kc_kafka), [config])
    reader = TopicReader(kc_kafka, "mysql-bulk-kafka_books")
    app.start()
    try:
        # Bulk re-reads the table every poll.interval.ms: four records = two rounds.
        messages = reader.read(4)
    finally:
        app.stop()
        reader.close()
    for message in messages:
        assert message["schema"] == BULK_SCHEMA
    first_round = sorted(messages[:2], key=lambda m: m["payload"]["id"])
    for message, book in zip(first_round, BOOKS, strict=True):
        _check_payload(message, book, book[3])
    assert PASSWORD not in caplog.text


def test_book_timestamp_incrementing_config(
    book_db: dict[str, str], kc_kafka: str, tmp_path: Path, kc_mariadb: Any
) -> None:
    config = {**BOOK_INC, **book_db, "name": "mysql-source-inc", "poll.interval.ms": "500"}
    app = Standalone(_worker(tmp_path, kc_kafka), [config])
    reader = TopicReader(kc_kafka, "mysql-inc-kafka_books")
    app.start()
    try:
        messages = reader.read(2)
        conn = kc_mariadb.connect(database="inventory", autocommit=True)
        with conn.cursor() as cur:
            cur.execute(
                """INSERT INTO kafka_books ( title, subtitle, published) VALUES
                ('Mastering Kafka Streams', 'Building real-time data systems by example',
                '2021-02-26')"""
            )
        messages = reader.read(3)
        # ON UPDATE CURRENT_TIMESTAMP has one-second resolution: let the clock move on.
        time.sleep(1.1)
        with conn.cursor() as cur:
            cur.execute("UPDATE kafka_books SET published = '2022-09-23' WHERE id = 2")
        conn.close()
        messages = reader.read(4)
        time.sleep(1.5)  # nothing else may come
    finally:
        app.stop()
    messages = reader.messages
    reader.close()
    assert len(messages) == 4
    for message in messages:
        assert message["schema"] == INC_SCHEMA
    initial = sorted(messages[:2], key=lambda m: m["payload"]["id"])
    _check_payload(initial[0], BOOKS[0], "2023-10-01")
    _check_payload(initial[1], BOOKS[1], "2017-07-07")
    _check_payload(
        messages[2],
        (3, "Mastering Kafka Streams", "Building real-time data systems by example", None),
        "2021-02-26",
    )
    _check_payload(messages[3], BOOKS[1], "2022-09-23")
