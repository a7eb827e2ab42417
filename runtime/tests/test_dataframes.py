"""kconnect connectors as a Spark data source and sink, on local Spark with real services."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


@pytest.fixture
def spark(kc_spark: Any) -> Any:
    """The testkit's ``local[2]`` session: one for the whole run (Spark is slow to start)."""
    return kc_spark


def wait_for(check: Callable[[], Any], timeout: float = 90.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


def read_committed(spark: Any, path: Path) -> list[Any]:
    """The rows a streaming Parquet sink has committed so far (none before its first batch)."""
    from pyspark.errors import AnalysisException

    try:
        return list(spark.read.parquet(str(path)).collect())
    except AnalysisException as exc:
        if "UNABLE_TO_INFER_SCHEMA" in str(exc) or "PATH_NOT_FOUND" in str(exc):
            return []
        raise


def file_source(path: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": "lines",
        "kconnect.read.idle.ms": "1000",
        **extra,
    }


# -- FileStream ------------------------------------------------------------------------------


def test_filestream_round_trip_through_read_and_write(spark: Any, tmp_path: Path) -> None:
    lines = [f"line {i} ✓" for i in range(500)]
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    # No spark.dataSource.register call: Spark's lookup finds pyspark_kconnect.
    df = spark.read.format("kconnect").options(**file_source(source)).load()
    assert [f.name for f in df.schema.fields] == [
        "topic",
        "partition",
        "offset",
        "key",
        "value",
        "headers",
        "timestamp",
    ]
    rows = df.collect()
    assert [r.value for r in rows] == lines
    assert {r.topic for r in rows} == {"lines"}
    assert json.loads(rows[0].partition) == {"filename": str(source)}
    # Kafka's FileStreamSourceTask: the offset is the byte position after the line.
    assert json.loads(rows[-1].offset) == {"position": source.stat().st_size}

    sink = tmp_path / "out.txt"
    (
        df.coalesce(1)
        .write.format("kconnect")
        .mode("append")
        .option("connector.class", "FileStreamSink")
        .option("file", str(sink))
        .option("topics", "lines")
        .save()
    )
    assert sink.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")


def test_register_also_accepts_the_data_source(spark: Any, tmp_path: Path) -> None:
    from kconnect_runtime.dataframes import KConnectDataSource

    spark.dataSource.register(KConnectDataSource)
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n", encoding="utf-8")
    df = spark.read.format("kconnect").options(**file_source(source)).load()
    assert [r.value for r in df.collect()] == ["a", "b"]


def test_transforms_apply_on_both_sides(spark: Any, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("a 1\nb 2\n", encoding="utf-8")
    options = file_source(
        source,
        transforms="Route",
        **{
            "transforms.Route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.Route.regex": "(.*)",
            "transforms.Route.replacement": "routed-$1",
            "transforms.Route.predicate": "IsLines",
            "predicates": "IsLines",
            "predicates.IsLines.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.IsLines.pattern": "lines",
        },
    )
    rows = spark.read.format("kconnect").options(**options).load().collect()
    assert [(r.topic, r.value) for r in rows] == [("routed-lines", "a 1"), ("routed-lines", "b 2")]
    # The sink side: a HoistField transform wraps each value before FileStreamSink writes it.
    sink = tmp_path / "out.txt"
    df = spark.createDataFrame([("t", "a"), ("t", "b")], ["topic", "value"]).coalesce(1)
    (
        df.write.format("kconnect")
        .mode("append")
        .options(
            **{
                "connector.class": "FileStreamSink",
                "file": str(sink),
                "topics": "t",
                "transforms": "Hoist",
                "transforms.Hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
                "transforms.Hoist.field": "line",
            }
        )
        .save()
    )
    # FileStreamSink writes each value's text: the hoisted structs.
    written = sink.read_text(encoding="utf-8").splitlines()
    assert [w.startswith("Struct{line=") for w in written] == [True, True]
    assert ["a" in written[0], "b" in written[1]] == [True, True]


def test_filestream_stream_restarts_from_its_checkpoint(spark: Any, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("".join(f"first {i}\n" for i in range(100)), encoding="utf-8")
    out = tmp_path / "parquet"
    checkpoint = tmp_path / "checkpoint"

    def start() -> Any:
        df = spark.readStream.format("kconnect").options(**file_source(source)).load()
        return (
            df.writeStream.format("parquet")
            .option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="500 milliseconds")
            .start()
        )

    def values() -> list[str]:
        return [r.value for r in read_committed(spark, out)]

    query = start()
    try:
        wait_for(lambda: len(values()) >= 100, what="the first 100 lines")
    finally:
        query.stop()
    with source.open("a", encoding="utf-8") as f:
        f.write("".join(f"second {i}\n" for i in range(50)))
    query = start()
    try:
        wait_for(lambda: len(values()) >= 150, what="the next 50 lines")
        time.sleep(2)  # a repeated line would arrive now
    finally:
        query.stop()
    got = values()
    expected = [f"first {i}" for i in range(100)] + [f"second {i}" for i in range(50)]
    assert sorted(got) == sorted(expected)
    assert len(got) == len(set(got)) == 150


def test_missing_connector_class_is_a_clear_error(spark: Any) -> None:
    with pytest.raises(Exception, match=r'Missing required option "connector.class"'):
        spark.read.format("kconnect").option("file", "/nonexistent").load()


# -- JDBC -----------------------------------------------------------------------------------

# The full 1,000,000 rows run in bench/bench_spark_df.py; the test reads a table big enough
# to span many batches and both of Spark's cores' worth of work.
JDBC_ROWS = 200_000


def make_jdbc_table(kc_mariadb: Any, rows: int) -> tuple[str, dict[str, str]]:
    """A MariaDB table of ``rows`` generated rows, and the JDBC source config that reads it."""
    conn = kc_mariadb.connect(autocommit=True)
    table = f"df_{int(time.time() * 1000) % 10_000_000}"
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS kc_dataframes")
        cur.execute(
            f"CREATE TABLE kc_dataframes.{table} (id INT NOT NULL PRIMARY KEY, "
            "name VARCHAR(40) NOT NULL, amount DECIMAL(12, 2) NOT NULL, flag TINYINT(1) NOT NULL, "
            "created DATETIME(6) NOT NULL, note VARCHAR(60) NULL)"
        )
        cur.execute(
            f"INSERT INTO kc_dataframes.{table} SELECT seq, CONCAT('name ', seq), seq * 1.25, "
            "mod(seq, 2) = 0, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL seq SECOND, "
            f"IF(mod(seq, 7) = 0, NULL, REPEAT('x', mod(seq, 40))) FROM kc_dataframes.seq_1_to_{rows}"
        )
    conn.close()
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": f"jdbc:mysql://{kc_mariadb.host}:{kc_mariadb.port}/kc_dataframes",
        "connection.user": kc_mariadb.user,
        "mode": "bulk",
        "table.whitelist": table,
        "topic.prefix": "jdbc-",
        "batch.max.rows": "10000",
        "poll.interval.ms": "3600000",
        "kconnect.read.idle.ms": "1000",
    }
    if kc_mariadb.password:
        config["connection.password"] = kc_mariadb.password
    return table, config


def test_jdbc_bulk_read_equals_the_table(spark: Any, kc_mariadb: Any) -> None:
    from pyspark.sql import functions as F

    table, config = make_jdbc_table(kc_mariadb, JDBC_ROWS)
    df = spark.read.format("kconnect").options(**config).load()
    value_type = {f.name: f.dataType.simpleString() for f in df.schema["value"].dataType.fields}
    # The JDBC source's Connect schema (INT, VARCHAR, DECIMAL(12,2) with its precision,
    # TINYINT(1), DATETIME, nullable VARCHAR) in Spark types.
    assert value_type == {
        "id": "int",
        "name": "string",
        "amount": "decimal(12,2)",
        "flag": "tinyint",
        "created": "timestamp",
        "note": "string",
    }
    rows = df.select("topic", "value.*").cache()
    try:
        assert rows.count() == JDBC_ROWS
        assert rows.select("topic").distinct().collect()[0].topic == f"jdbc-{table}"
        # Every row is the generated row of its id, and every id is there once.
        expected_created = F.expr("timestamp'2024-01-01 00:00:00' + make_interval(0,0,0,0,0,0,id)")
        wrong = rows.filter(
            (F.col("name") != F.concat(F.lit("name "), F.col("id").cast("string")))
            | (F.col("amount") != (F.col("id") * F.lit(1.25)).cast("decimal(12,2)"))
            | (F.col("flag").cast("int") != (F.col("id") % 2 == 0).cast("int"))
            | (F.col("created") != expected_created)
            | ~F.coalesce(F.col("note") == F.expr("repeat('x', id % 40)"), (F.col("id") % 7 == 0))
        )
        assert wrong.count() == 0, wrong.limit(3).collect()
        stats = rows.agg(F.min("id"), F.max("id"), F.countDistinct("id")).collect()[0]
        assert tuple(stats) == (1, JDBC_ROWS, JDBC_ROWS)
    finally:
        rows.unpersist()


def test_a_bulk_read_ends_when_the_source_says_it_has_read_everything(
    spark: Any, kc_mariadb: Any
) -> None:
    """The JDBC task says when its pass is done (``SourceTask.finished``): the read ends
    then, not after ``kconnect.read.idle.ms`` of empty polls (here far longer than the test)."""
    _, config = make_jdbc_table(kc_mariadb, 25_000)
    config = {**config, "batch.max.rows": "4000", "kconnect.read.idle.ms": "120000"}
    df = spark.read.format("kconnect").options(**config).load()
    started = time.monotonic()
    ids = [r.id for r in df.select("value.id").collect()]
    elapsed = time.monotonic() - started
    assert sorted(ids) == list(range(1, 25_001))
    assert elapsed < 90, f"the read waited for kconnect.read.idle.ms ({elapsed:.0f} s)"


# -- S3 sink --------------------------------------------------------------------------------

S3_SCHEMA = {
    "type": "struct",
    "name": "reading",
    "optional": False,
    "fields": [
        {"field": "k", "type": "string", "optional": False},
        {"field": "i", "type": "int64", "optional": False},
    ],
}


def _bucket(kc_s3: Any) -> str:
    import uuid

    name = f"kc-df-{uuid.uuid4().hex[:10]}"
    kc_s3.client().create_bucket(Bucket=name)
    return name


def _objects(kc_s3: Any, bucket: str) -> dict[str, bytes]:
    client = kc_s3.client()
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=bucket).get("Contents", [])]
    return {k: client.get_object(Bucket=bucket, Key=k)["Body"].read() for k in sorted(keys)}


def _s3_config(kc_s3: Any, bucket: str, topic: str) -> dict[str, str]:
    return {
        "name": "s3-dataframes",
        "connector.class": "io.confluent.connect.s3.S3SinkConnector",
        "topics": topic,
        "s3.bucket.name": bucket,
        "s3.region": kc_s3.region,
        "store.url": kc_s3.endpoint_url,
        "s3.path.style.access.enabled": "true",
        "aws.access.key.id": kc_s3.access_key_id,
        "aws.secret.access.key": kc_s3.secret_access_key,
        "storage.class": "io.confluent.connect.s3.storage.S3Storage",
        "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
        "flush.size": "3",
        "store.kafka.keys": "true",
        "keys.format.class": "io.confluent.connect.s3.format.json.JsonFormat",
    }


def test_s3_sink_writes_the_objects_it_writes_from_kafka(
    spark: Any, kc_kafka: str, kc_s3: Any, tmp_path: Path
) -> None:
    import uuid

    from confluent_kafka import Consumer, Producer
    from confluent_kafka import TopicPartition as KafkaTopicPartition
    from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
        AdminClient,
        NewTopic,
    )
    from kconnect_runtime import Standalone

    topic = f"kc-df-s3-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kc_kafka})
    for future in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        future.result(30)
    producer = Producer({"bootstrap.servers": kc_kafka})
    for i in range(12):
        value = {"schema": S3_SCHEMA, "payload": {"k": "abc"[i % 3], "i": i}}
        producer.produce(topic, key=f"key-{i}", value=json.dumps(value), partition=i % 2)
    assert producer.flush(30) == 0

    # Through Kafka: the S3 sink on a worker.
    via_kafka = _bucket(kc_s3)
    worker = {
        "bootstrap.servers": kc_kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "300",
        "consumer.session.timeout.ms": "6000",
        "listeners": "",
    }
    app = Standalone(worker, [_s3_config(kc_s3, via_kafka, topic)])
    app.start()
    try:
        # 6 records per partition, flush.size=3: 2 value files and 2 key files per partition.
        wait_for(lambda: len(_objects(kc_s3, via_kafka)) >= 8, what="8 objects via Kafka")
    finally:
        app.stop()
    expected = _objects(kc_s3, via_kafka)
    assert len(expected) == 8

    # The same records as a DataFrame, written through the S3 sink by the data source.
    consumer = Consumer(
        {"bootstrap.servers": kc_kafka, "group.id": f"df-{topic}", "enable.auto.commit": False}
    )
    consumer.assign([KafkaTopicPartition(topic, p, 0) for p in (0, 1)])
    messages: list[Any] = []
    deadline = time.monotonic() + 30
    while len(messages) < 12 and time.monotonic() < deadline:
        m = consumer.poll(0.5)
        if m is not None and m.error() is None:
            messages.append(m)
    consumer.close()
    rows = [(m.topic(), m.partition(), m.offset(), m.key().decode(), m.value()) for m in messages]
    df = (
        spark.createDataFrame(
            rows, "topic string, partition int, offset long, key string, value binary"
        )
        .repartition(2, "partition")
        .sortWithinPartitions("partition", "offset")
    )
    via_dataframe = _bucket(kc_s3)
    (
        df.write.format("kconnect")
        .mode("append")
        .options(**_s3_config(kc_s3, via_dataframe, topic))
        .option("value.format", "json")
        .option("key.format", "connect")
        .option("value.converter.schemas.enable", "true")
        .save()
    )
    assert _objects(kc_s3, via_dataframe) == expected


def test_a_sink_that_would_drop_rows_fails_the_write(spark: Any, kc_s3: Any) -> None:
    bucket = _bucket(kc_s3)
    df = spark.createDataFrame(
        [("t", 0, i, "v") for i in range(4)],
        "topic string, partition int, offset long, value string",
    ).coalesce(1)
    # flush.size=3 leaves the 4th row in the sink's buffer when the partition ends.
    with pytest.raises(
        Exception,
        match=r"t-0 durable only before offset 3, but the Spark partition has rows up to offset 3",
    ):
        df.write.format("kconnect").mode("append").options(
            **{**_s3_config(kc_s3, bucket, "t"), "store.kafka.keys": "false"}
        ).save()
    assert len(_objects(kc_s3, bucket)) == 1  # the first 3 rows' object


# -- MySQL/MariaDB CDC ----------------------------------------------------------------------


def cdc_database(kc_mariadb: Any, kc_kafka: str, table_ddl: str) -> tuple[Any, dict[str, str]]:
    """A fresh database with one table, a connection to it, and the CDC config reading it."""
    name = f"kc_df_{int(time.time() * 1000) % 10_000_000}"
    admin = kc_mariadb.connect(autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
    admin.close()
    conn = kc_mariadb.connect(autocommit=True, database=name)
    with conn.cursor() as cur:
        cur.execute(table_ddl)
    config = {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "tasks.max": "1",
        "database.hostname": kc_mariadb.host,
        "database.port": str(kc_mariadb.port),
        "database.user": kc_mariadb.user,
        "database.password": kc_mariadb.password or "",
        "database.server.id": "10042",
        "topic.prefix": "dfserver",
        "database.include.list": name,
        "table.include.list": f"{name}.items",
        "schema.history.internal.kafka.bootstrap.servers": kc_kafka,
        "schema.history.internal.kafka.topic": f"dbhistory.{name}",
        "include.schema.changes": "false",
        "poll.interval.ms": "100",
    }
    return conn, config


def sql(conn: Any, *statements: str) -> None:
    with conn.cursor() as cur:
        for statement in statements:
            cur.execute(statement)


def test_cdc_stream_to_parquet_restarts_from_its_checkpoint(
    spark: Any, kc_mariadb: Any, kc_kafka: str, tmp_path: Path
) -> None:
    conn, config = cdc_database(
        kc_mariadb,
        kc_kafka,
        "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, qty INT NULL)",
    )
    sql(conn, "INSERT INTO items VALUES (1, 'apple', 10), (2, 'pear', 20), (3, 'plum', NULL)")
    out = tmp_path / "parquet"
    checkpoint = tmp_path / "checkpoint"

    def start() -> Any:
        df = spark.readStream.format("kconnect").options(**config).load()
        return (
            df.select("topic", "offset", "key", "value")
            .writeStream.format("parquet")
            .option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="500 milliseconds")
            .start()
        )

    def events() -> list[tuple[Any, ...]]:
        rows = read_committed(spark, out)
        return [
            (
                r.key.id,
                None if r.value is None else r.value.op,
                None if r.value is None or r.value.before is None else r.value.before.name,
                None if r.value is None or r.value.after is None else r.value.after.name,
                r.offset,
            )
            for r in rows
        ]

    query = start()
    try:
        wait_for(lambda: len(events()) >= 3, what="the snapshot's 3 rows")
        sql(
            conn,
            "UPDATE items SET name = 'pear 2' WHERE id = 2",
            "DELETE FROM items WHERE id = 1",
            "INSERT INTO items VALUES (4, 'fig', 4)",
        )
        # update, delete + tombstone, insert
        wait_for(lambda: len(events()) >= 7, what="3 changes")
    finally:
        query.stop()
    sql(conn, "INSERT INTO items VALUES (5, 'kiwi', 5)", "UPDATE items SET qty = 40 WHERE id = 4")
    query = start()
    try:
        wait_for(lambda: len(events()) >= 9, what="the changes made while stopped")
        time.sleep(3)  # a repeated change would arrive now
    finally:
        query.stop()
    got = events()
    # Debezium's envelope: op r (snapshot), u, d (+ a tombstone), c. Each change exactly
    # once: a change lost or read again after the restart changes the multiset.
    assert sorted(repr(e[:4]) for e in got) == sorted(
        repr(e)
        for e in [
            (1, "r", None, "apple"),
            (2, "r", None, "pear"),
            (3, "r", None, "plum"),
            (2, "u", "pear", "pear 2"),
            (1, "d", "apple", None),
            (1, None, None, None),
            (4, "c", None, "fig"),
            (5, "c", None, "kiwi"),
            (4, "u", "fig", "fig"),
        ]
    )
    # DDL mid-stream: the next change has a wider schema, and the query fails naming it.
    query = start()
    try:
        sql(
            conn,
            "ALTER TABLE items ADD COLUMN color VARCHAR(10)",
            "INSERT INTO items VALUES (6, 'lime', 6, 'green')",
        )
        with pytest.raises(Exception, match=r"(?s)value schema changed mid-stream.*color: string"):
            query.awaitTermination(90)  # returns (no raise: the test fails) if it keeps running
    finally:
        query.stop()
        conn.close()


# -- CDC: micro-batches that end inside the snapshot -------------------------------------------


def snapshot_table(kc_mariadb: Any, kc_kafka: str, rows: int) -> tuple[Any, dict[str, str]]:
    conn, config = cdc_database(
        kc_mariadb, kc_kafka, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)"
    )
    sql(
        conn,
        f"INSERT INTO items SELECT seq, CONCAT('item ', seq) FROM seq_1_to_{rows}",
    )
    # Every snapshot row but the last carries one source offset (the snapshot's binlog
    # position): small micro-batches end inside that run of equal offsets.
    config["kconnect.stream.max.records"] = "300"
    config["max.batch.size"] = "100"  # polls of 100: a micro-batch takes 3 of them
    return conn, config


def test_cdc_stream_stopped_inside_the_snapshot_restarts_without_loss_or_repeats(
    spark: Any, kc_mariadb: Any, kc_kafka: str, tmp_path: Path
) -> None:
    rows = 1200  # 4 micro-batches of 300
    conn, config = snapshot_table(kc_mariadb, kc_kafka, rows)
    out = tmp_path / "parquet"
    checkpoint = tmp_path / "checkpoint"

    def start(trigger: str) -> Any:
        df = spark.readStream.format("kconnect").options(**config).load()
        return (
            df.select("key.id", "value.op")
            .writeStream.format("parquet")
            .option("path", str(out))
            .option("checkpointLocation", str(checkpoint))
            .trigger(processingTime=trigger)
            .start()
        )

    def ids() -> list[int]:
        return [r.id for r in read_committed(spark, out)]

    # A slow trigger leaves time to stop the query after its first batch: inside the snapshot.
    query = start("5 seconds")
    try:
        wait_for(lambda: len(ids()) >= 300, what="the first micro-batch of the snapshot")
    finally:
        query.stop()
    stopped_at = len(ids())
    query = start("200 milliseconds")
    try:
        wait_for(lambda: len(ids()) >= rows, what="the rest of the snapshot")
        time.sleep(3)  # a repeated row would arrive now
    finally:
        query.stop()
        conn.close()
    got = ids()
    assert 0 < stopped_at < rows, stopped_at  # stopped inside the snapshot
    assert sorted(got) == list(range(1, rows + 1))  # each row exactly once


def test_a_micro_batch_inside_the_snapshot_replays_exactly_its_rows(
    kc_mariadb: Any, kc_kafka: str
) -> None:
    """A replay (a planned batch Spark runs again after a restart) that starts and ends
    inside the snapshot: the restarted task snapshots again, and the replay skips to the
    batch's start and stops at its end, by the count of records at the equal offset."""
    from kconnect_runtime.dataframes import plan_connector, source_schema
    from kconnect_runtime.dataframes._plan import SourceRun
    from kconnect_runtime.dataframes._source import StreamPartition, _Runs, read_stream_partition
    from kconnect_sdk import PluginKind

    conn, config = snapshot_table(kc_mariadb, kc_kafka, 3000)
    conn.close()
    config["kconnect.replay.timeout.ms"] = "60000"
    plan = plan_connector(config, PluginKind.SOURCE)
    target = source_schema(plan)
    # The live read: positions after 1000 and after 2500 snapshot rows.
    run = SourceRun(plan, 0, [])
    runs = _Runs({})
    seen: list[int] = []
    marks: dict[int, list[Any]] = {}
    try:
        while len(seen) < 2500:
            polled, _ = run.poll()
            for record in polled:  # one at a time: the position as of each record
                for r in runs.select([record]):
                    seen.append(r.key.get("id"))
                    if len(seen) in (1000, 2500):
                        marks[len(seen)] = list(next(iter(runs.position.values())))
    finally:
        run.stop()
    start, end = marks[1000], marks[2500]
    assert start[1] == end[1] and end[1].get("snapshot")  # both inside the snapshot's run
    replayed = [
        row["key"]["id"]
        for batch in read_stream_partition(plan, target, StreamPartition(0, [start], [end], None))
        for row in batch.to_pylist()
    ]
    assert replayed == seen[1000:2500]
