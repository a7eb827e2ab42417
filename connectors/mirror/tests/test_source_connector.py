"""MirrorSourceConnector's decisions: Kafka's MirrorSourceConnectorTest and MirrorSourceTaskTest
cases that need no broker, with an in-memory admin standing in for both clusters."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from kconnect_connector_mirror import (
    DefaultConfigPropertyFilter,
    DefaultReplicationPolicy,
    DefaultTopicFilter,
    IdentityReplicationPolicy,
    MirrorSourceConnector,
    MirrorSourceTask,
    TopicFilter,
)
from kconnect_connector_mirror._config import SOURCE_CONFIG_DEF, MirrorConfig
from kconnect_connector_mirror._kafka import TopicConfigEntry
from kconnect_connector_mirror._source import TopicPlanner, round_robin
from kconnect_sdk import ConnectError, Schema, TopicPartition


class Everything(TopicFilter):
    def should_replicate_topic(self, topic: str) -> bool:
        return True


class Nothing(TopicFilter):
    def should_replicate_topic(self, topic: str) -> bool:
        return False


def _planner(
    policy: Any = None, topics: TopicFilter | None = None, *, heartbeats: bool = True
) -> TopicPlanner:
    return TopicPlanner(
        "source",
        "target",
        policy or DefaultReplicationPolicy(),
        topics or DefaultTopicFilter(),
        DefaultConfigPropertyFilter(),
        heartbeats_replication_enabled=heartbeats,
    )


def test_replicates_heartbeats_by_default_and_despite_the_filter() -> None:
    for topics in (DefaultTopicFilter(), Nothing()):
        planner = _planner(topics=topics)
        assert planner.should_replicate_topic("heartbeats")
        assert planner.should_replicate_topic("us-west.heartbeats")
    policy = DefaultReplicationPolicy()
    policy.configure({"replication.policy.separator": "_"})
    planner = _planner(policy, Nothing())
    assert planner.should_replicate_topic("heartbeats")
    assert not planner.should_replicate_topic("us-west.heartbeats")


def test_heartbeats_replication_disabled() -> None:
    # Kafka's test uses an unconfigured DefaultTopicFilter, which matches nothing.
    planner = _planner(topics=Nothing(), heartbeats=False)
    assert not planner.should_replicate_topic("heartbeats")
    assert not planner.should_replicate_topic("us-west.heartbeats")
    planner = _planner(topics=Everything(), heartbeats=False)
    assert planner.should_replicate_topic("heartbeats")
    assert planner.should_replicate_topic("us-west.heartbeats")


def test_no_cycles() -> None:
    planner = _planner(topics=Everything())
    for topic in (
        "target.topic1",
        "target.source.topic1",
        "source.target.topic1",
        "target.source.target.topic1",
        "source.target.source.topic1",
    ):
        assert not planner.should_replicate_topic(topic), topic
    assert planner.should_replicate_topic("topic1")
    assert planner.should_replicate_topic("source.topic1")


def test_identity_replication() -> None:
    planner = _planner(IdentityReplicationPolicy(), Everything())
    for topic in (
        "target.topic1",
        "target.source.topic1",
        "source.target.topic1",
        "target.source.target.topic1",
        "source.target.source.topic1",
        "topic1",
        "othersource.topic1",
        "heartbeats",
        "othersource.heartbeats",
    ):
        assert planner.should_replicate_topic(topic), topic
    for topic in (
        "target.heartbeats",
        "target.source.heartbeats",
        "source.target.heartbeats",
        "target.source.target.heartbeats",
        "source.target.source.heartbeats",
    ):
        assert not planner.should_replicate_topic(topic), topic


def test_config_property_filtering() -> None:
    planner = _planner()
    entries = [
        TopicConfigEntry("name-1", "value-1"),
        TopicConfigEntry("name-2", "value-2", is_default=True),
        TopicConfigEntry("min.insync.replicas", "2"),
        TopicConfigEntry("secret", "x", is_sensitive=True),
        TopicConfigEntry("ro", "x", is_read_only=True),
        TopicConfigEntry("static", "x", is_static_broker_config=True),
    ]
    # Creating a topic: defaults and excluded/sensitive/read-only/static ones left out.
    assert planner.target_config(entries, incremental=False) == {"name-1": "value-1"}
    # Syncing: a source default is deleted on the target (use.defaults.from=target).
    assert planner.target_config(entries, incremental=True) == {"name-1": "value-1", "name-2": None}
    source_defaults = DefaultConfigPropertyFilter()
    source_defaults.configure({"use.defaults.from": "source"})
    planner.properties = source_defaults
    assert planner.target_config(entries, incremental=True) == {
        "name-1": "value-1",
        "name-2": "value-2",
    }
    assert planner.target_config(entries, incremental=False) == {
        "name-1": "value-1",
        "name-2": "value-2",
    }
    excluding = DefaultConfigPropertyFilter()
    excluding.configure({"config.properties.exclude": "name-1, min.*"})
    planner.properties = excluding
    assert planner.target_config(entries, incremental=True) == {"name-2": None}


def test_task_configs_deal_partitions_round_robin() -> None:
    # Kafka's example: 3 tasks for topics of 8, 2 and 2 partitions.
    partitions = [TopicPartition("t0", p) for p in range(8)] + [
        TopicPartition("t1", 0),
        TopicPartition("t1", 1),
        TopicPartition("t2", 0),
        TopicPartition("t2", 1),
    ]
    tasks = round_robin(partitions, 3)
    assert [[str(tp) for tp in task] for task in tasks] == [
        ["t0-0", "t0-3", "t0-6", "t1-1"],
        ["t0-1", "t0-4", "t0-7", "t2-0"],
        ["t0-2", "t0-5", "t1-0", "t2-1"],
    ]


class FakeAdmin:
    """One cluster's topics and configs in memory."""

    def __init__(
        self, topics: Mapping[str, int], configs: Mapping[str, list[TopicConfigEntry]] | None = None
    ) -> None:
        self.topics = dict(topics)
        self.configs = dict(configs or {})
        self.created: dict[str, tuple[int, int, Mapping[str, str]]] = {}
        self.grown: dict[str, int] = {}
        self.altered: dict[str, Mapping[str, str | None]] = {}

    def topic_partition_counts(self) -> dict[str, int]:
        return dict(self.topics)

    def describe_topic_configs(self, topics: Iterable[str]) -> dict[str, list[TopicConfigEntry]]:
        return {t: self.configs.get(t, []) for t in topics}

    def create_topics(self, topics: Mapping[str, tuple[int, int, Mapping[str, str]]]) -> None:
        self.created.update(topics)
        self.topics.update({t: spec[0] for t, spec in topics.items()})

    def create_partitions(self, counts: Mapping[str, int]) -> None:
        self.grown.update(counts)
        self.topics.update(counts)

    def incremental_alter_configs(self, changes: Mapping[str, Mapping[str, str | None]]) -> None:
        self.altered.update(changes)

    def close(self) -> None:
        pass


class Context:
    def __init__(self) -> None:
        self.reconfigurations = 0

    def request_task_reconfiguration(self) -> None:
        self.reconfigurations += 1

    def raise_error(self, error: BaseException) -> None:
        raise error

    offset_storage_reader = None


def _connector(
    source: FakeAdmin, target: FakeAdmin, **props: str
) -> tuple[MirrorSourceConnector, Context]:
    connector = MirrorSourceConnector()
    config = {
        "name": "mirror",
        "source.cluster.alias": "source",
        "target.cluster.alias": "target",
        "replication.factor": "1",
        **props,
    }
    connector._config = MirrorConfig(SOURCE_CONFIG_DEF, config)
    connector.planner = _planner(topics=DefaultTopicFilter())
    connector.source_admin, connector.target_admin = source, target  # type: ignore[assignment]
    context = Context()
    connector.initialize(context)  # type: ignore[arg-type]
    return connector, context


def test_remote_topics_created_grown_and_synced() -> None:
    source = FakeAdmin(
        {
            "orders": 3,
            "target.loop": 1,
            "__consumer_offsets": 50,
            "mm2-offset-syncs.target.internal": 1,
        },
        {
            "orders": [
                TopicConfigEntry("retention.ms", "1000"),
                TopicConfigEntry("segment.ms", "1", is_default=True),
            ]
        },
    )
    target = FakeAdmin({})
    connector, context = _connector(source, target)
    connector.load_topic_partitions()
    connector.compute_and_create_topic_partitions()
    assert target.created == {"source.orders": (3, 1, {"retention.ms": "1000"})}
    assert [t["task.assigned.partitions"] for t in connector.task_configs(2)] == [
        "orders-0,orders-2",
        "orders-1",
    ]
    # The source grows a partition and a topic.
    source.topics.update({"orders": 4, "payments": 1})
    connector.refresh_topic_partitions()
    assert target.grown == {"source.orders": 4}
    assert "source.payments" in target.created
    assert context.reconfigurations == 1
    connector.refresh_topic_partitions()
    assert context.reconfigurations == 1  # nothing changed
    connector.sync_topic_configs()
    assert target.altered["source.orders"] == {"retention.ms": "1000", "segment.ms": None}


def test_alter_offsets_validates_kafkas_format() -> None:
    connector = MirrorSourceConnector()
    good = {"cluster": "a", "topic": "t", "partition": 1}
    assert connector.alter_offsets({}, [(good, {"offset": 5}), ({"junk": 1}, None)])
    with pytest.raises(ConnectError, match="'cluster' key, which is required"):
        connector.alter_offsets({}, [({"topic": "t", "partition": 0}, {"offset": 1})])
    with pytest.raises(ConnectError, match="'partition' key, which cannot be negative"):
        connector.alter_offsets({}, [({**good, "partition": -1}, {"offset": 1})])
    with pytest.raises(ConnectError, match="'offset' key, which cannot be negative"):
        connector.alter_offsets({}, [(good, {"offset": -1})])


def test_validate_refuses_offset_sync_settings_without_offset_syncs() -> None:
    props = {
        "source.cluster.alias": "a",
        "emit.offset-syncs.enabled": "false",
        "offset-syncs.topic.location": "target",
    }
    errors = {v.name: v.error_messages for v in MirrorSourceConnector().validate(props)}
    assert any("can't setup offset-syncs" in e for e in errors["emit.offset-syncs.enabled"])


def test_convert_record_keeps_everything() -> None:
    # MirrorSourceTaskTest.testSerde
    task = MirrorSourceTask()
    task.source_alias = "cluster7"
    task.policy = DefaultReplicationPolicy()
    record = task.convert_record(
        topic="topic1",
        partition=2,
        offset=3,
        key=b"key",
        value=b"value",
        timestamp=4,
        headers=[("header1", b"abc"), ("header2", b"")],
    )
    assert record.topic == "cluster7.topic1"
    assert record.kafka_partition == 2
    assert record.source_partition == {"cluster": "cluster7", "partition": 2, "topic": "topic1"}
    # Keys in the order Kafka's worker writes them, for byte-identical offset records.
    assert list(record.source_partition) == ["cluster", "partition", "topic"]
    assert record.source_offset == {"offset": 3}
    assert record.timestamp == 4
    assert (record.key, record.value) == (b"key", b"value")
    assert (record.key_schema, record.value_schema) == (Schema.OPTIONAL_BYTES, Schema.BYTES)
    header1 = record.headers.last_with_name("header1")
    header2 = record.headers.last_with_name("header2")
    assert header1 is not None and header1.value == b"abc"
    assert header2 is not None and header2.value == b""


def test_partitions_without_offsets_start_where_auto_offset_reset_says() -> None:
    # Kafka's replication consumer has no group and never fetches committed offsets: a
    # partition without a Connect offset starts at auto.offset.reset. librdkafka's consumer
    # has a group.id, so the start is given as a logical offset instead of being looked up
    # (on a source without a ready group coordinator that lookup never ends).
    from types import SimpleNamespace

    from confluent_kafka import OFFSET_BEGINNING, OFFSET_END

    class Reader:
        def offsets(self, partitions: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
            return [{"offset": 4} if p["partition"] == 1 else None for p in partitions]

    assigned: list[Any] = []
    for reset, start in (("earliest", OFFSET_BEGINNING), ("latest", OFFSET_END)):
        task = MirrorSourceTask()
        task.initialize(SimpleNamespace(offset_storage_reader=Reader(), configs={}))  # type: ignore[arg-type]
        task.source_alias = "a"
        task._consumer = SimpleNamespace(assign=assigned.append)  # type: ignore[assignment]
        task._initialize_consumer([TopicPartition("t", 0), TopicPartition("t", 1)], reset)
        assert [(tp.partition, tp.offset) for tp in assigned.pop()] == [(0, start), (1, 5)]
