"""Each kc_* fixture gives a real service: one small round trip per service."""

from __future__ import annotations

import re
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer


def test_kc_kafka_takes_a_running_broker_from_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No JVM is started: the fixture hands the given address on (nothing listens there).
    monkeypatch.setenv("KC_KAFKA_BOOTSTRAP_SERVERS", " 127.0.0.1:9 ")
    pytester.makepyfile("def test_address(kc_kafka):\n    assert kc_kafka == '127.0.0.1:9'\n")
    pytester.runpytest("-p", "no:cacheprovider", "-q").assert_outcomes(passed=1)


@pytest.mark.integration
def test_kc_kafka_produces_and_consumes(kc_kafka: str) -> None:
    topic = f"kc-smoke-{uuid.uuid4().hex[:8]}"
    producer = Producer({"bootstrap.servers": kc_kafka})
    producer.produce(topic, key=b"k", value=b"hello kafka")
    assert producer.flush(10) == 0
    consumer = Consumer(
        {
            "bootstrap.servers": kc_kafka,
            "group.id": f"g-{topic}",
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000,
        }
    )
    try:
        consumer.subscribe([topic])
        message = None
        for _ in range(30):
            message = consumer.poll(1.0)
            if message is not None and message.error() is None:
                break
        assert message is not None and message.error() is None
        assert (message.key(), message.value()) == (b"k", b"hello kafka")
    finally:
        consumer.close()


@pytest.mark.integration
def test_kc_mariadb_runs_with_a_row_binlog(kc_mariadb: Any) -> None:
    conn = kc_mariadb.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
            cur.execute("SHOW VARIABLES LIKE 'binlog_format'")
            assert cur.fetchone() == ("binlog_format", "ROW")
            cur.execute("CREATE DATABASE IF NOT EXISTS kc_smoke")
            cur.execute("CREATE TABLE kc_smoke.t (id INT PRIMARY KEY)")
            cur.execute("INSERT INTO kc_smoke.t VALUES (1)")
            conn.commit()
            cur.execute("SHOW MASTER STATUS")
            file, position = cur.fetchone()[:2]
        assert file.startswith("binlog.") and position > 4
    finally:
        conn.close()


@pytest.mark.integration
def test_kc_postgres_is_a_database_of_the_sessions_own(kc_postgres: Any) -> None:
    # The database is the session's own, under a name made for it (other tests of the session
    # may have filled it already, so its contents say nothing), and a test can write there.
    table = f"kc_probe_{uuid.uuid4().hex[:8]}"
    with kc_postgres.connect() as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]
        conn.execute(f"CREATE TABLE {table} (v text)")
        conn.execute(f"INSERT INTO {table} VALUES ('x')")
        assert conn.execute(f"SELECT v FROM {table}").fetchall() == [("x",)]
        conn.execute(f"DROP TABLE {table}")
    assert name == kc_postgres.dbname
    assert re.fullmatch(r"kc_test_[0-9a-f]{12}", name)


@pytest.mark.integration
def test_kc_sqlite_is_an_empty_database(kc_sqlite: Path) -> None:
    with sqlite3.connect(kc_sqlite) as conn:
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.execute("INSERT INTO t VALUES ('x')")
    with sqlite3.connect(kc_sqlite) as conn:
        assert conn.execute("SELECT v FROM t").fetchall() == [("x",)]


@pytest.mark.integration
def test_kc_s3_puts_and_gets_over_http(kc_s3: Any) -> None:
    client = kc_s3.client()
    client.put_object(Bucket=kc_s3.bucket, Key="a/b.txt", Body=b"payload")
    body = client.get_object(Bucket=kc_s3.bucket, Key="a/b.txt")["Body"].read()
    assert body == b"payload"
    assert kc_s3.bucket == "kc-test-bucket"


@pytest.mark.integration
def test_kc_spark_counts_a_dataframe(kc_spark: Any) -> None:
    frame = kc_spark.createDataFrame([(i,) for i in range(10)], ["n"])
    assert frame.filter(frame.n % 2 == 0).count() == 5
    assert kc_spark.sparkContext.master == "local[2]"


@pytest.mark.integration
def test_kc_java_connect_runs_apache_kafka_connects_worker(
    kc_java_connect: Any, kc_kafka: str, tmp_path: Path
) -> None:
    from kconnect_testkit import DEBEZIUM_VERSION, KAFKA_VERSION

    java = kc_java_connect(mode="distributed", debezium=True)
    status, root = java.request("GET", "/")
    assert status == 200 and root["version"] == KAFKA_VERSION
    _, plugins = java.request("GET", "/connector-plugins")
    versions = {p["class"]: p["version"] for p in plugins}
    assert versions["org.apache.kafka.connect.file.FileStreamSourceConnector"] == KAFKA_VERSION
    assert versions["io.debezium.connector.mysql.MySqlConnector"] == DEBEZIUM_VERSION
    assert versions["io.debezium.connector.mariadb.MariaDbConnector"] == DEBEZIUM_VERSION
    assert "org.apache.kafka.connect.mirror.MirrorSourceConnector" in versions

    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\n")
    topic = f"java-{uuid.uuid4().hex[:8]}"
    config = {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    status, _ = java.request("PUT", "/connectors/java-file/config", config)
    assert status == 201
    java.wait_running("java-file")
    consumer = Consumer(
        {
            "bootstrap.servers": kc_kafka,
            "group.id": f"g-{topic}",
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.subscribe([topic])
        values: list[bytes] = []
        for _ in range(60):
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value())
            if len(values) == 2:
                break
        assert values == [b"one", b"two"]
    finally:
        consumer.close()
