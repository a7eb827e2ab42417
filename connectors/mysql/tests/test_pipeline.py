"""The book's configuration through a real worker and broker, JSON with schemas on the wire."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime import Standalone

from .conftest import Db, make_user, read_topic
from .test_book import BOOK_ROWS, _create_books, book_config

pytestmark = pytest.mark.integration

PASSWORD = "S3cret-Pw-for-cdc"


def test_book_config_through_worker_and_broker(
    kc_mariadb: Any, kc_kafka: str, mdb: Db, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    make_user(
        kc_mariadb,
        "cdc",
        PASSWORD,
        "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT",
    )
    _create_books(mdb)
    connector = {
        "name": "mysql-debezium",
        **book_config(kc_mariadb, kc_kafka, mdb.name),
        "database.user": "cdc",
        "database.password": PASSWORD,
    }
    worker = {
        "bootstrap.servers": kc_kafka,
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "200",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }
    topic = f"dbserver1.{mdb.name}.kafka_books"
    app = Standalone(worker, [connector])
    app.start()
    try:
        snapshot = read_topic(kc_kafka, topic, 2)
        mdb.sql(
            "UPDATE kafka_books SET published = '2022-09-23' WHERE id = 2",
            "DELETE FROM kafka_books WHERE id = 1",
        )
        messages = read_topic(kc_kafka, topic, 5)
    finally:
        app.stop()
    keys = [json.loads(k) if k else None for k, _ in messages]
    values = [json.loads(v) if v else None for _, v in messages]
    # The key exactly as the book prints it.
    assert keys[0]["schema"] == {
        "type": "struct",
        "fields": [{"type": "int64", "optional": False, "field": "id"}],
        "optional": False,
        "name": f"dbserver1.{mdb.name}.kafka_books.Key",
    }
    # The topic may have several partitions: order holds per key.
    per_key: dict[int, list[Any]] = {}
    for key, value in zip(keys, values, strict=True):
        per_key.setdefault(key["payload"]["id"], []).append(value["payload"] if value else None)
    assert [
        (p["op"], p["before"], p["after"], p["source"]["snapshot"]) for p in per_key[1][:2]
    ] == [
        ("r", None, BOOK_ROWS[0], "first"),
        ("d", BOOK_ROWS[0], None, "false"),
    ]
    assert per_key[1][2] is None  # the tombstone
    assert [(p["op"], p["before"], p["after"], p["source"]["snapshot"]) for p in per_key[2]] == [
        ("r", None, BOOK_ROWS[1], "last"),
        ("u", BOOK_ROWS[1], {**BOOK_ROWS[1], "published": 19258}, "false"),
    ]
    assert len(snapshot) == 2
    schema = next(v for v in values if v)["schema"]
    assert schema["name"] == f"dbserver1.{mdb.name}.kafka_books.Envelope"
    assert [f["field"] for f in schema["fields"]] == [
        "before",
        "after",
        "source",
        "transaction",
        "op",
        "ts_ms",
        "ts_us",
        "ts_ns",
    ]
    published = next(f for f in schema["fields"][0]["fields"] if f["field"] == "published")
    assert published == {
        "type": "int32",
        "optional": False,
        "name": "io.debezium.time.Date",
        "version": 1,
        "field": "published",
    }
    # Offsets as Debezium stores them: partition {"server": prefix}, binlog coordinates.
    stored = json.loads((tmp_path / "offsets.json").read_text())
    text = json.dumps(stored)
    assert '"server": "dbserver1"' in text and '"file"' in text and '"pos"' in text
    assert PASSWORD not in caplog.text
