"""The book's chapter 5 Debezium example, run unchanged against a private MariaDB.

Expected keys and payloads are the ones the book prints (its `kafka_books` table, dates as
days since the epoch, a delete followed by a tombstone).
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import Schema

from .conftest import Db, drain, payload, quiet, start_task

pytestmark = pytest.mark.integration

BOOK_ROWS = [
    {
        "id": 1,
        "title": "Kafka Connect",
        "subtitle": "Build and Run Data Pipelines",
        "published": 19631,
    },
    {
        "id": 2,
        "title": "Kafka The Definitive Guide",
        "subtitle": "Real-time Data and Stream Processing at Scale",
        "published": 17354,
    },
]


def _create_books(mdb: Db) -> None:
    mdb.sql(
        """CREATE table kafka_books
        (
            id          INT unsigned NOT NULL AUTO_INCREMENT,
            title       VARCHAR(150) NOT NULL,
            subtitle    VARCHAR(150) NOT NULL,
            published   DATE NOT NULL,
            PRIMARY KEY (id)
        )""",
        """INSERT INTO kafka_books (title, subtitle, published) VALUES
          ('Kafka Connect', 'Build and Run Data Pipelines', '2023-10-01'),
          ('Kafka The Definitive Guide',
           'Real-time Data and Stream Processing at Scale', '2017-07-07')""",
    )


def book_config(kc_mariadb: Any, kc_kafka: str, db: str) -> dict[str, str]:
    # The book's mysql-debezium.json, with our server and database names filled in.
    return {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "tasks.max": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
        "database.hostname": kc_mariadb.host,
        "database.port": str(kc_mariadb.port),
        "database.user": kc_mariadb.user,
        "database.password": kc_mariadb.password,
        "database.server.id": "10000",
        "topic.prefix": "dbserver1",
        "database.include.list": db,
        "table.include.list": f"{db}.kafka_books",
        "schema.history.internal.kafka.bootstrap.servers": kc_kafka,
        "schema.history.internal.kafka.topic": f"dbhistory.{db}",
        "include.schema.changes": "false",
    }


def test_book_snapshot_update_delete(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    _create_books(mdb)
    task = start_task(book_config(kc_mariadb, kc_kafka, mdb.name))
    try:
        snap = drain(task, 2)
        assert [r.topic for r in snap] == [f"dbserver1.{mdb.name}.kafka_books"] * 2
        key_schema = snap[0].key_schema
        assert key_schema is not None
        assert key_schema.name == f"dbserver1.{mdb.name}.kafka_books.Key"
        assert [(f.name, f.schema) for f in key_schema.fields] == [("id", Schema.INT64)]
        assert [r.key.to_dict() for r in snap] == [{"id": 1}, {"id": 2}]
        for record, row in zip(snap, BOOK_ROWS, strict=True):
            value = payload(record)
            assert value["before"] is None
            assert value["after"] == row
            assert value["op"] == "r"
        assert [payload(r)["source"]["snapshot"] for r in snap] == ["first", "last"]
        assert snap[0].value_schema.name == f"dbserver1.{mdb.name}.kafka_books.Envelope"

        mdb.sql("UPDATE kafka_books SET published = '2022-09-23' WHERE id = 2")
        (update,) = drain(task, 1)
        value = payload(update)
        assert value["op"] == "u"
        assert value["before"] == BOOK_ROWS[1]
        assert value["after"] == {**BOOK_ROWS[1], "published": 19258}
        assert value["source"]["snapshot"] == "false"  # null in the struct, "false" by default
        assert update.key.to_dict() == {"id": 2}

        mdb.sql("DELETE FROM kafka_books WHERE id = 1")
        delete, tombstone = drain(task, 2)
        assert payload(delete)["before"] == BOOK_ROWS[0]
        assert payload(delete)["after"] is None
        assert payload(delete)["op"] == "d"
        assert tombstone.key.to_dict() == {"id": 1}
        assert tombstone.value is None and tombstone.value_schema is None
        assert quiet(task, 0.5) == []
    finally:
        task.stop()
