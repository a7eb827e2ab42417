"""MirrorMaker on two real Kafka clusters, run by an ordinary kconnect standalone worker with
the book's chapter 6 configs: replication, offset syncs, topic config sync, checkpoints,
and a consumer group failing over to the target without skipping a record."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, no __all__
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)
from kconnect_connector_mirror import Checkpoint, OffsetSync
from kconnect_runtime import Standalone
from runtime_harness import commit_group_offsets

pytestmark = pytest.mark.integration

BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
# Recent timestamps: the broker's retention check deletes records older than the topic's
# retention.ms (one day, then one hour here) from the source, maybe before they are copied.
BASE_TS = int(time.time() * 1000) - 60_000


def _wait(what: str, check: Callable[[], Any], timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def _read_to_end(bootstrap: str, topic: str, timeout_s: float = 60.0) -> list[Any]:
    """Every record of ``topic`` up to each partition's end now."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"r-{uuid.uuid4().hex[:6]}",
            "enable.auto.commit": False,
        }
    )
    messages: list[Any] = []
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for p in meta.partitions
        }
        left = {p for p, end in ends.items() if end > 0}
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in left])
        deadline = time.monotonic() + timeout_s
        while left and time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.5):
                if m.error() is None:
                    messages.append(m)
                    if m.offset() + 1 >= ends[m.partition()]:
                        left.discard(m.partition())
    finally:
        consumer.close()
    return messages


def _read_all(bootstrap: str, topic: str, count: int, timeout_s: float = 60.0) -> list[Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"r-{uuid.uuid4().hex[:6]}",
            "enable.auto.commit": False,
        }
    )
    messages: list[Any] = []
    try:
        meta = _wait(
            f"topic {topic}",
            lambda: (
                consumer.list_topics(topic, timeout=5).topics[topic].partitions
                and consumer.list_topics(topic, timeout=5).topics[topic]
            ),
            timeout_s,
        )
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in meta.partitions])
        deadline = time.monotonic() + timeout_s
        while len(messages) < count and time.monotonic() < deadline:
            messages += [m for m in consumer.consume(100, 0.5) if m.error() is None]
    finally:
        consumer.close()
    assert len(messages) >= count, f"{len(messages)} of {count} records in {topic}"
    return messages


def _config(name: str, cls: str, source: str, target: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": f"org.apache.kafka.connect.mirror.{cls}",
        "tasks.max": "2",
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
        "source.cluster.alias": "east",
        "target.cluster.alias": "west",
        "source.cluster.bootstrap.servers": source,
        "target.cluster.bootstrap.servers": target,
        **extra,
    }


def test_mirror_source_and_checkpoint_on_two_clusters(
    kc_kafka: str, target_kafka: str, tmp_path: Path
) -> None:
    topic = f"orders-{uuid.uuid4().hex[:6]}"
    group = f"billing-{uuid.uuid4().hex[:6]}"
    source_admin = AdminClient({"bootstrap.servers": kc_kafka})
    source_admin.create_topics(
        [
            NewTopic(
                topic, num_partitions=2, replication_factor=1, config={"retention.ms": "86400000"}
            )
        ]
    )[topic].result(30)
    producer = Producer({"bootstrap.servers": kc_kafka})
    for i in range(40):
        producer.produce(
            topic,
            key=f"k{i}".encode(),
            value=f"v{i}".encode(),
            partition=i % 2,
            timestamp=BASE_TS + i,
            headers=[("h", f"{i}".encode()), ("n", None)],
        )
    producer.flush(30)

    # A consumer group on the source has read the first 10 records of each partition.
    commit_group_offsets(
        kc_kafka, group, [TopicPartition(topic, 0, 10), TopicPartition(topic, 1, 10)]
    )

    source_config = _config(
        "east-to-west-source",
        "MirrorSourceConnector",
        kc_kafka,
        target_kafka,
        **{
            "replication.factor": "-1",
            "offset-syncs.topic.replication.factor": "-1",
            "refresh.topics.interval.seconds": "2",
            "sync.topic.configs.interval.seconds": "2",
            "sync.topic.acls.enabled": "false",
            "topics": topic,
            "offset.lag.max": "5",
            # The session's source cluster holds other tests' heartbeats topics, which
            # Kafka's connector copies whatever the topics filter says. Their hundreds of
            # records would share each task's ten in-flight offset syncs with this topic's,
            # and a held-back sync is replaced by the partition's next one (as in Kafka):
            # the early offsets this test's group committed could lose the sync that
            # translates them.
            "heartbeats.replication.enabled": "false",
        },
    )
    checkpoint_config = _config(
        "east-to-west-checkpoint",
        "MirrorCheckpointConnector",
        kc_kafka,
        target_kafka,
        **{
            "checkpoints.topic.replication.factor": "-1",
            "refresh.groups.interval.seconds": "2",
            "emit.checkpoints.interval.seconds": "1",
            "sync.group.offsets.enabled": "true",
            "sync.group.offsets.interval.seconds": "1",
            "groups": group,
            "topics": topic,
        },
    )
    worker = {
        "bootstrap.servers": target_kafka,
        "key.converter": BYTES,
        "value.converter": BYTES,
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "offset.flush.interval.ms": "500",
        "listeners": "",
    }
    app = Standalone(worker, [source_config, checkpoint_config])
    app.start()
    try:
        remote = f"east.{topic}"
        mirrored = _read_all(target_kafka, remote, 40)
        by_key = {m.key(): m for m in mirrored}
        assert len(by_key) == 40
        for i in range(40):
            m = by_key[f"k{i}".encode()]
            assert m.value() == f"v{i}".encode()
            assert m.partition() == i % 2
            assert m.timestamp()[1] == BASE_TS + i
            assert m.headers() == [("h", f"{i}".encode()), ("n", None)]

        # Offset syncs on the source, in Kafka's format, for both partitions.
        # A partition's sync may wait for the task's next offset commit (Kafka's writer sends
        # delayed syncs then), so the topic is read again until both partitions have one.
        def synced_partitions() -> set[int]:
            # The whole topic: the session's source cluster holds other tests' syncs too.
            syncs = [
                OffsetSync.deserialize(m.key(), m.value())
                for m in _read_to_end(kc_kafka, "mm2-offset-syncs.west.internal")
            ]
            return {s.topic_partition.partition for s in syncs if s.topic_partition.topic == topic}

        deadline = time.monotonic() + 90
        partitions = synced_partitions()
        while partitions != {0, 1} and time.monotonic() < deadline:
            time.sleep(1)
            partitions = synced_partitions()
        assert partitions == {0, 1}

        # Topic config sync: the remote topic got the source's retention.
        target_admin = AdminClient({"bootstrap.servers": target_kafka})

        def retention() -> bool:
            resource = ConfigResource(ConfigResource.Type.TOPIC, remote)
            entries = target_admin.describe_configs([resource])[resource].result(10)
            return entries["retention.ms"].value == "86400000"

        _wait("retention.ms on the remote topic", retention)
        source_admin.incremental_alter_configs(
            [
                ConfigResource(
                    ConfigResource.Type.TOPIC,
                    topic,
                    incremental_configs=[
                        ConfigEntry(
                            "retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET
                        )
                    ],
                )
            ]
        )[ConfigResource(ConfigResource.Type.TOPIC, topic)].result(10)
        _wait(
            "the changed retention.ms on the remote topic",
            lambda: _retention(target_admin, remote) == "3600000",
        )

        # Checkpoints in east.checkpoints.internal on the target, translated, never ahead.
        # The group is found and checkpointed within seconds on a quiet machine; the CI
        # session that runs this one also runs other two-cluster tests beside the other
        # sessions, where it has taken over a minute.
        checkpoints = [
            Checkpoint.deserialize(m.key(), m.value())
            for m in _read_all(target_kafka, "east.checkpoints.internal", 2, timeout_s=180)
        ]
        mine = {c.topic_partition.partition: c for c in checkpoints if c.consumer_group_id == group}
        assert set(mine) == {0, 1}
        for c in mine.values():
            assert c.topic_partition.topic == remote
            assert c.upstream_offset == 10
            assert 0 <= c.downstream_offset <= 10

        # Failover: the group's offsets were committed on the target; resuming there skips nothing.
        failover = Consumer(
            {
                "bootstrap.servers": target_kafka,
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "latest",
            }
        )
        committed = _wait(
            "group offsets on the target",
            lambda: (
                all(
                    tp.offset >= 0
                    for tp in failover.committed(
                        [TopicPartition(remote, 0), TopicPartition(remote, 1)], timeout=5
                    )
                )
                and failover.committed(
                    [TopicPartition(remote, 0), TopicPartition(remote, 1)], timeout=5
                )
            ),
        )
        failover.subscribe([remote])
        seen: set[bytes] = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(seen) < 30:
            seen |= {m.key() for m in failover.consume(100, 0.5) if m.error() is None}
        failover.close()
        unconsumed = {f"k{i}".encode() for i in range(20, 40)}
        assert unconsumed <= seen, f"skipped: {sorted(unconsumed - seen)}"
        assert all(tp.offset <= 10 for tp in committed)

        # Kafka's MirrorSourceMetrics and MirrorCheckpointMetrics names and tags, exported
        # through the tasks' plugin metrics.
        herder = app.herder
        assert herder is not None

        def metric(name: str, partition: int, **tags: str) -> float | None:
            for metric_name, value in herder.plugin_metric_samples():
                t = metric_name.tags
                if (
                    metric_name.name == name
                    and t.get("partition") == str(partition)
                    and all(t.get(k) == v for k, v in tags.items())
                ):
                    return value
            return None

        source_tags = {
            "connector": "east-to-west-source",
            "source": "east",
            "target": "west",
            "topic": remote,
        }
        try:
            _wait(
                "20 replicated records counted per partition",
                lambda: all(metric("record-count", p, **source_tags) == 20.0 for p in (0, 1)),
            )
        except AssertionError as exc:
            seen_metrics = [(m.name, m.tags, v) for m, v in herder.plugin_metric_samples()]
            raise AssertionError(f"{exc}; plugin metrics: {seen_metrics}") from None
        for p in (0, 1):
            sizes = [len(f"v{i}") for i in range(40) if i % 2 == p]
            assert metric("byte-count", p, **source_tags) == float(sum(sizes))
            age_min = metric("record-age-ms-min", p, **source_tags)
            latency_min = metric("replication-latency-ms-min", p, **source_tags)
            assert age_min is not None and latency_min is not None
            # The records were produced with old timestamps; a record is acknowledged after
            # it was polled, so its latency is at least its age.
            assert age_min > 0 and latency_min >= age_min
            assert metric("record-rate", p, **source_tags) > 0  # type: ignore[operator]
        checkpoint_tags = {
            "connector": "east-to-west-checkpoint",
            "source": "east",
            "target": "west",
            "group": group,
            "topic": remote,  # a checkpoint's partition is the remote topic's
        }
        _wait(
            "checkpoint latency per group and partition",
            lambda: all(
                metric("checkpoint-latency-ms-avg", p, **checkpoint_tags) is not None
                for p in (0, 1)
            ),
        )
    finally:
        app.stop()


def _retention(admin: AdminClient, topic: str) -> str:
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    return str(admin.describe_configs([resource])[resource].result(10)["retention.ms"].value)
