"""The scenarios of Kafka's ``MirrorConnectorsIntegrationBaseTest`` on two real Kafka clusters.

Cluster ``primary`` is ``kc_kafka``, ``backup`` a cluster of this module (``target_kafka``).
As in Kafka's test, one ``connect-mirror-maker.properties`` (parsed by
:func:`mirror_maker_flows`, Kafka's ``MirrorMakerConfig``) gives each flow's three connector
configs, and each flow runs on a Connect worker of its target cluster: primary->backup on a
worker connected to backup, backup->primary on one connected to primary. Both flows run for
the whole module (active/active); each scenario has its own topics and consumer groups, so
none depends on another's records. The flows that need other settings (replication from
the latest offsets, offset syncs on the target) run on cluster aliases of their own.

Aliases carry a random suffix: ``kc_kafka`` is shared with the rest of the session, and
MirrorMaker names its topics on both clusters after the aliases.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, no __all__
    AdminClient,
    ConfigResource,
    NewTopic,
)
from kconnect_connector_mirror import Checkpoint, MirrorClient, OffsetSync, mirror_maker_flows
from kconnect_runtime import Standalone
from kconnect_sdk import TopicPartition as SdkTopicPartition
from runtime_harness import commit_group_offsets

pytestmark = pytest.mark.integration

RUN = uuid.uuid4().hex[:4]
PRIMARY, BACKUP = f"primary{RUN}", f"backup{RUN}"
PARTITIONS = 3
PER_PARTITION = 10
# Deadlines are generous: on a loaded two-core machine a checkpoint has needed minutes
# (group discovery, the offset-syncs topic read to its end, then the emit interval).
DEADLINE_S = 200.0
# Recent timestamps: records older than a topic's retention.ms would be deleted first.
BASE_TS = int(time.time() * 1000) - 60_000


def _topic(name: str) -> str:
    return f"scn{RUN}-{name}"


def _group(name: str) -> str:
    return f"consumer-group-{RUN}-{name}"


def _wait(what: str, check: Callable[[], Any], timeout_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})")


def _topics(bootstrap: str) -> set[str]:
    return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics)


def _create(bootstrap: str, topic: str, partitions: int = PARTITIONS, **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    new = NewTopic(topic, num_partitions=partitions, replication_factor=1, config=config)
    admin.create_topics([new])[topic].result(30)


def _produce(
    bootstrap: str, topic: str, tag: str, *, partitions: range = range(PARTITIONS), start: int = 0
) -> list[tuple[int, bytes]]:
    """``PER_PARTITION`` keyed records into each of ``partitions``; (partition, value) each."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    sent = []
    for p in partitions:
        for i in range(start, start + PER_PARTITION):
            value = f"{tag}-{p}-{i}".encode()
            producer.produce(topic, key=value, value=value, partition=p, timestamp=BASE_TS + i)
            sent.append((p, value))
    assert producer.flush(30) == 0
    return sent


def _read(bootstrap: str, topic: str) -> list[Any]:
    """Every record of ``topic`` up to each partition's end now, by partition and offset."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"scn-read-{uuid.uuid4().hex[:6]}",
            "enable.auto.commit": False,
        }
    )
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        ends = {}
        for p in meta.partitions:
            try:
                low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            except KafkaException:
                return []  # a topic just created: its leader is not known everywhere yet
            if high > low:
                ends[p] = high
        if not ends:
            return []
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
        out: list[Any] = []
        done: set[int] = set()
        deadline = time.monotonic() + 60
        while done != set(ends) and time.monotonic() < deadline:
            for m in consumer.consume(500, 0.5):
                if m.error() is not None:
                    continue
                p, offset = m.partition() or 0, m.offset() or 0
                if offset < ends[p]:
                    out.append(m)
                if offset >= ends[p] - 1:
                    done.add(p)
        assert done == set(ends), f"{topic}: read {len(out)} records, not to the end"
        return sorted(out, key=lambda m: (m.partition(), m.offset()))
    finally:
        consumer.close()


def _copied(bootstrap: str, topic: str, count: int) -> list[tuple[int, bytes]]:
    """(partition, value) of ``topic``'s records, once it holds at least ``count``."""
    records = _wait(
        f"{count} records in {topic}",
        lambda: (r := _read(bootstrap, topic)) and len(r) >= count and r,
    )
    return [(m.partition(), m.value()) for m in records]


def _checkpoints(bootstrap: str, topic: str) -> list[Checkpoint]:
    return [Checkpoint.deserialize(m.key(), m.value()) for m in _read(bootstrap, topic)]


def _assert_monotonic_checkpoints(bootstrap: str, topic: str) -> None:
    """Kafka's assertMonotonicCheckpoints: per group and partition, in the order written,
    a checkpoint's downstream offset never goes back."""
    last: dict[tuple[str, SdkTopicPartition], int] = {}
    checkpoints = _checkpoints(bootstrap, topic)
    assert checkpoints, f"no checkpoints in {topic}"
    for c in checkpoints:
        key = (c.consumer_group_id, c.topic_partition)
        assert c.downstream_offset >= last.get(key, c.downstream_offset), f"went back: {c}"
        last[key] = c.downstream_offset


def _translated(
    client: MirrorClient, group: str, source: str, topic: str, *, newer_than: dict[int, int] | None
) -> dict[int, int]:
    """Kafka's waitForNewCheckpointOnAllPartitions: the group's offsets on ``source`` for
    every partition of ``topic`` (named as on the client's cluster), through the
    checkpoints; with ``newer_than``, only once every one differs from it."""

    def offsets() -> dict[int, int] | None:
        found = client.remote_consumer_offsets(group, source, 3.0)
        by_partition = {tp.partition: o for tp, (o, _) in found.items() if tp.topic == topic}
        if set(by_partition) != set(range(PARTITIONS)):
            return None
        if newer_than and any(by_partition[p] == newer_than.get(p) for p in by_partition):
            return None
        return by_partition

    result: dict[int, int] = _wait(f"checkpoints of {group} for {topic}", offsets)
    return result


def _group_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """``group``'s committed offsets on ``topic`` (partitions without one left out)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        committed = consumer.committed(
            [TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10
        )
    finally:
        consumer.close()
    return {tp.partition: tp.offset for tp in committed if tp.offset >= 0}


def _resume(bootstrap: str, group: str, topic: str, offsets: dict[int, int]) -> list[Any]:
    """Fail ``group`` over to ``bootstrap``: seek to ``offsets``, read to the end, commit."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False}
    )
    try:
        ends = {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for p in offsets
        }
        consumer.assign([TopicPartition(topic, p, o) for p, o in offsets.items()])
        read: list[Any] = []
        positions = dict(offsets)
        deadline = time.monotonic() + 60
        while any(positions[p] < ends[p] for p in ends) and time.monotonic() < deadline:
            for m in consumer.consume(500, 0.5):
                if m.error() is None:
                    read.append(m)
                    positions[m.partition()] = m.offset() + 1
        consumer.commit(
            offsets=[TopicPartition(topic, p, o) for p, o in positions.items()], asynchronous=False
        )
        return read
    finally:
        consumer.close()


# -- the flows -------------------------------------------------------------------------------


@dataclass
class Flows:
    """Two clusters and the Connect workers that run MirrorMaker's flows between them."""

    primary: str
    backup: str
    on_backup: Standalone  # primary->backup
    on_primary: Standalone  # backup->primary


def _mm2_properties(primary: str, backup: str, **extra: str) -> dict[str, str]:
    """Kafka's basicMM2Config, active/active, for this module's topics and groups."""
    return {
        "clusters": f"{PRIMARY}, {BACKUP}",
        f"{PRIMARY}.bootstrap.servers": primary,
        f"{BACKUP}.bootstrap.servers": backup,
        f"{PRIMARY}->{BACKUP}.enabled": "true",
        f"{BACKUP}->{PRIMARY}.enabled": "true",
        "topics": f"scn{RUN}-.*, {PRIMARY}.scn{RUN}-.*, {BACKUP}.scn{RUN}-.*",
        "groups": f"consumer-group-{RUN}-.*",
        "sync.topic.acls.enabled": "false",
        "emit.checkpoints.interval.seconds": "1",
        "emit.heartbeats.interval.seconds": "1",
        "refresh.topics.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1",
        "sync.topic.configs.interval.seconds": "1",
        "config.properties.exclude": r"delete\.retention\..*",
        "checkpoints.topic.replication.factor": "1",
        "heartbeats.topic.replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "replication.factor": "1",
        "sync.group.offsets.enabled": "true",
        "sync.group.offsets.interval.seconds": "1",
        "offset.lag.max": "10",
        **extra,
    }


def _worker(
    mm2: dict[str, str], source: str, target: str, tmp: Path, *, only: tuple[str, ...] = ()
) -> Standalone:
    """A Connect worker on ``target`` running the ``source->target`` flow's connectors
    (Kafka's waitUntilMirrorMakerIsRunning): all three, or ``only`` those."""
    flow = next(f for f in mirror_maker_flows(mm2) if (f.source, f.target) == (source, target))
    connectors = [c for name, c in flow.connectors.items() if not only or name in only]
    worker = {
        **{k: v for k, v in flow.worker_config.items() if k.endswith("converter")},
        "bootstrap.servers": flow.worker_config["bootstrap.servers"],
        "offset.storage.file.filename": str(tmp / f"{source}-{target}.offsets"),
        "offset.flush.interval.ms": "1000",
        "listeners": "",
    }
    return Standalone(worker, connectors)


def _not_running(app: Standalone) -> list[str]:
    """What of ``app``'s connectors and tasks is not RUNNING (a connector without tasks too)."""
    herder = app.herder
    assert herder is not None
    waiting = []
    for name in herder.connector_names():
        status = herder.connector_status(name)
        states = [status["connector"]["state"], *(t["state"] for t in status["tasks"])]
        if not status["tasks"] or any(s != "RUNNING" for s in states):
            waiting.append(f"{name}: {states}")
    return waiting


def _wait_running(*apps: Standalone) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while waiting := [w for a in apps for w in _not_running(a)]:
        assert time.monotonic() < deadline, f"not RUNNING after {DEADLINE_S:.0f} s: {waiting}"
        time.sleep(0.5)


def _start_all(*apps: Standalone) -> None:
    errors: list[BaseException] = []

    def start(app: Standalone) -> None:
        try:
            app.start()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(a,)) for a in apps]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        for app in apps:
            app.stop()
        raise errors[0]
    _wait_running(*apps)


@pytest.fixture(scope="module")
def flows(
    kc_kafka: str, target_kafka: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Flows]:
    tmp = tmp_path_factory.mktemp("mirror-scenarios")
    # As Kafka's createTopics: a local topic of the same name on both clusters, compacted
    # on primary (the remote topic on backup gets that config).
    _create(kc_kafka, _topic("1"), **{"cleanup.policy": "compact", "delete.retention.ms": "1000"})
    _create(target_kafka, _topic("1"))
    # As Kafka's warmUpConsumer: a group of the flows' pattern on each cluster, so that
    # each checkpoint connector has a group, hence a task, from the start.
    for bootstrap in (kc_kafka, target_kafka):
        commit_group_offsets(bootstrap, _group("dummy"), [TopicPartition(_topic("1"), 0, 0)])
    mm2 = _mm2_properties(kc_kafka, target_kafka)
    on_backup = _worker(mm2, PRIMARY, BACKUP, tmp)
    on_primary = _worker(mm2, BACKUP, PRIMARY, tmp)
    _start_all(on_backup, on_primary)
    try:
        yield Flows(kc_kafka, target_kafka, on_backup, on_primary)
    finally:
        on_backup.stop()
        on_primary.stop()


# -- scenarios -------------------------------------------------------------------------------


def test_replication_both_ways_without_cycles(flows: Flows) -> None:
    topic = _topic("1")
    from_primary = _produce(flows.primary, topic, "p")
    from_backup = _produce(flows.backup, topic, "b")
    on_backup, on_primary = f"{PRIMARY}.{topic}", f"{BACKUP}.{topic}"

    # Every record, in its partition and order, in the remote topic on the other cluster.
    assert _copied(flows.backup, on_backup, len(from_primary)) == from_primary
    assert _copied(flows.primary, on_primary, len(from_backup)) == from_backup

    # The remote topic got the local topic's config, but for the excluded one.
    backup_admin = AdminClient({"bootstrap.servers": flows.backup})
    resource = ConfigResource(ConfigResource.Type.TOPIC, on_backup)
    configs = backup_admin.describe_configs([resource])[resource].result(10)
    assert configs["cleanup.policy"].value == "compact"
    assert configs["delete.retention.ms"].value != "1000"

    # Heartbeats on both clusters and copied across; each sees the other one hop away.
    for bootstrap, upstream in ((flows.backup, PRIMARY), (flows.primary, BACKUP)):
        _wait(f"{upstream}.heartbeats", lambda b=bootstrap, u=upstream: _read(b, f"{u}.heartbeats"))
        client = MirrorClient({"bootstrap.servers": bootstrap})
        assert upstream in client.upstream_clusters()
        assert client.replication_hops(upstream) == 1

    # A topic created on primary while the flows run is found and copied.
    new = _topic("2")
    _create(flows.primary, new)
    sent = _produce(flows.primary, new, "new", partitions=range(1))
    assert _copied(flows.backup, f"{PRIMARY}.{new}", len(sent)) == sent

    # No cycle: a remote topic is never copied back to where it came from, although the
    # topics filter matches it.
    for bootstrap in (flows.primary, flows.backup):
        names = _topics(bootstrap)
        assert not {
            t for t in names if t.startswith((f"{PRIMARY}.{BACKUP}.", f"{BACKUP}.{PRIMARY}."))
        }


def test_failover_and_failback_skip_no_record(flows: Flows) -> None:
    topic, group = _topic("fail"), _group("fail")
    _create(flows.primary, topic)
    _create(flows.backup, topic)
    sent_primary = _produce(flows.primary, topic, "p")
    sent_backup = _produce(flows.backup, topic, "b")
    # The group has read part of each partition on both clusters.
    read_on_primary, read_on_backup = 6, 4
    commit_group_offsets(
        flows.primary, group, [TopicPartition(topic, p, read_on_primary) for p in range(PARTITIONS)]
    )
    commit_group_offsets(
        flows.backup, group, [TopicPartition(topic, p, read_on_backup) for p in range(PARTITIONS)]
    )
    remote_on_backup, remote_on_primary = f"{PRIMARY}.{topic}", f"{BACKUP}.{topic}"
    _copied(flows.backup, remote_on_backup, len(sent_primary))
    _copied(flows.primary, remote_on_primary, len(sent_backup))

    # Failover to backup, with the offsets its checkpoints give (Kafka's MirrorClient).
    backup_client = MirrorClient({"bootstrap.servers": flows.backup})
    offsets = _translated(backup_client, group, PRIMARY, remote_on_backup, newer_than=None)
    assert all(0 < o <= read_on_primary for o in offsets.values()), offsets
    seen = {m.value() for m in _resume(flows.backup, group, remote_on_backup, offsets)}
    unread = {v for p, v in sent_primary if int(v.rsplit(b"-", 1)[1]) >= read_on_primary}
    assert unread <= seen, f"skipped after failover: {sorted(unread - seen)}"

    # Failback to primary: the group's offsets on backup, translated for primary.
    primary_client = MirrorClient({"bootstrap.servers": flows.primary})
    offsets = _translated(primary_client, group, BACKUP, remote_on_primary, newer_than=None)
    assert all(0 < o <= read_on_backup for o in offsets.values()), offsets
    seen = {m.value() for m in _resume(flows.primary, group, remote_on_primary, offsets)}
    unread = {v for p, v in sent_backup if int(v.rsplit(b"-", 1)[1]) >= read_on_backup}
    assert unread <= seen, f"skipped after failback: {sorted(unread - seen)}"


def test_empty_partition_gets_no_made_up_offset(flows: Flows) -> None:
    topic, group = _topic("empty"), _group("empty")
    _create(flows.primary, topic)
    remote = f"{PRIMARY}.{topic}"
    empty = PARTITIONS - 1
    sent = _produce(flows.primary, topic, "e", partitions=range(empty))
    # The group has read everything, the empty partition included (offset 0 there).
    commit_group_offsets(
        flows.primary,
        group,
        [TopicPartition(topic, p, 0 if p == empty else PER_PARTITION) for p in range(PARTITIONS)],
    )
    _copied(flows.backup, remote, len(sent))

    # Offsets are synced on backup for the partitions whose records were copied; for the
    # empty one nothing was copied, so there is no offset sync to translate with, and no
    # checkpoint or synced offset is made up for it (Kafka's testNoCheckpointsIfNoRecordsAreMirrored).
    synced = _wait(
        f"{group}'s offsets synced on backup",
        lambda: (
            (o := _group_offsets(flows.backup, group, remote)) and set(o) >= set(range(empty)) and o
        ),
    )
    assert empty not in synced
    assert all(0 < synced[p] <= PER_PARTITION for p in range(empty)), synced
    client = MirrorClient({"bootstrap.servers": flows.backup})
    translated = client.remote_consumer_offsets(group, PRIMARY, 5.0)
    assert SdkTopicPartition(remote, empty) not in translated
    assert {tp.partition for tp in translated if tp.topic == remote} == set(range(empty))

    # Once the partition has records and the group reads them, it is checkpointed too.
    sent_late = _produce(flows.primary, topic, "late", partitions=range(empty, PARTITIONS))
    _copied(flows.backup, remote, len(sent) + len(sent_late))
    commit_group_offsets(flows.primary, group, [TopicPartition(topic, empty, PER_PARTITION)])
    _wait(
        f"a checkpoint of {group} for {remote}-{empty}",
        lambda: (
            (
                o := client.remote_consumer_offsets(group, PRIMARY, 3.0).get(
                    SdkTopicPartition(remote, empty)
                )
            )
            and 0 < o[0] <= PER_PARTITION
        ),
    )


def test_restart_copies_nothing_again_and_checkpoints_go_on(flows: Flows) -> None:
    topic, group = _topic("restart"), _group("restart")
    _create(flows.primary, topic)
    remote = f"{PRIMARY}.{topic}"
    first = _produce(flows.primary, topic, "r")
    commit_group_offsets(
        flows.primary, group, [TopicPartition(topic, p, PER_PARTITION) for p in range(PARTITIONS)]
    )
    _copied(flows.backup, remote, len(first))
    client = MirrorClient({"bootstrap.servers": flows.backup})
    before = _translated(client, group, PRIMARY, remote, newer_than=None)

    # Kafka's restartMirrorMakerConnectors: each connector and its tasks, on the worker.
    herder = flows.on_backup.herder
    assert herder is not None
    for name in herder.connector_names():
        herder.restart_connector(name, include_tasks=True)
    _wait_running(flows.on_backup)

    second = _produce(flows.primary, topic, "r", start=PER_PARTITION)
    commit_group_offsets(
        flows.primary,
        group,
        [TopicPartition(topic, p, 2 * PER_PARTITION) for p in range(PARTITIONS)],
    )
    after = _translated(client, group, PRIMARY, remote, newer_than=before)
    assert all(before[p] < after[p] <= 2 * PER_PARTITION for p in after), (before, after)

    # Each record once on backup: the restarted tasks went on from their committed offsets.
    copied = _copied(flows.backup, remote, len(first) + len(second))
    assert sorted(copied) == sorted(first + second)
    _assert_monotonic_checkpoints(flows.backup, f"{PRIMARY}.checkpoints.internal")


def test_replication_from_latest(kc_kafka: str, target_kafka: str, tmp_path: Path) -> None:
    # A flow of its own: its source consumer starts at the end of partitions it has no
    # offset for (Kafka's testReplicateFromLatest).
    source, target = f"latest{RUN}", f"dest{RUN}"
    topic, sentinel = _topic("latest"), _topic("sentinel")
    _create(kc_kafka, topic)
    _create(kc_kafka, sentinel, partitions=1)
    before = _produce(kc_kafka, topic, "old")
    mm2 = {
        "clusters": f"{source}, {target}",
        f"{source}.bootstrap.servers": kc_kafka,
        f"{target}.bootstrap.servers": target_kafka,
        f"{source}->{target}.enabled": "true",
        f"{source}.consumer.auto.offset.reset": "latest",
        "topics": f"{topic}, {sentinel}",
        # These clusters are also primary and backup to the module's flows: under two
        # aliases each, heartbeats topics (copied whatever the filter) would go round
        # between the flows, as MirrorMaker knows a cluster only by its alias.
        "heartbeats.replication.enabled": "false",
        "refresh.topics.interval.seconds": "1",
        "sync.topic.acls.enabled": "false",
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
    }
    app = _worker(mm2, source, target, tmp_path, only=("MirrorSourceConnector",))
    _start_all(app)
    try:
        # A sentinel record that arrives proves the task has polled, so it knows where the
        # other topic ended when it started.
        producer = Producer({"bootstrap.servers": kc_kafka})

        def sentinel_arrived() -> bool:
            producer.produce(sentinel, value=b"sentinel")
            producer.flush(10)
            return bool(_read(target_kafka, f"{source}.{sentinel}"))

        _wait("a sentinel record on the target", sentinel_arrived)
        after = _produce(kc_kafka, topic, "new")
        copied = _copied(target_kafka, f"{source}.{topic}", len(after))
        assert copied == after, f"{len(before)} records from before the start were not to be copied"
    finally:
        app.stop()


def test_offset_syncs_on_the_target(kc_kafka: str, target_kafka: str, tmp_path: Path) -> None:
    source, target = f"syncs{RUN}", f"dest{RUN}s"
    topic, group = _topic("syncs"), f"syncs-group-{RUN}"
    _create(kc_kafka, topic)
    sent = _produce(kc_kafka, topic, "s")
    commit_group_offsets(
        kc_kafka, group, [TopicPartition(topic, p, PER_PARTITION) for p in range(PARTITIONS)]
    )
    mm2 = {
        "clusters": f"{source}, {target}",
        f"{source}.bootstrap.servers": kc_kafka,
        f"{target}.bootstrap.servers": target_kafka,
        f"{source}->{target}.enabled": "true",
        f"{source}->{target}.offset-syncs.topic.location": "target",
        "emit.heartbeats.enabled": "false",
        "heartbeats.replication.enabled": "false",  # see test_replication_from_latest
        "topics": topic,
        "groups": group,
        "refresh.topics.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1",
        "emit.checkpoints.interval.seconds": "1",
        "sync.topic.acls.enabled": "false",
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "checkpoints.topic.replication.factor": "1",
    }
    app = _worker(
        mm2, source, target, tmp_path, only=("MirrorSourceConnector", "MirrorCheckpointConnector")
    )
    _start_all(app)
    try:
        remote = f"{source}.{topic}"
        _copied(target_kafka, remote, len(sent))
        # The syncs topic is on the target, named after the source.
        syncs_topic = f"mm2-offset-syncs.{source}.internal"
        syncs = _wait(
            f"offset syncs in {syncs_topic} on the target",
            lambda: [
                OffsetSync.deserialize(m.key(), m.value()) for m in _read(target_kafka, syncs_topic)
            ],
        )
        assert {s.topic_partition.topic for s in syncs} == {topic}
        checkpoints_topic = f"{source}.checkpoints.internal"
        _wait(
            f"checkpoints of {group} for {remote}",
            lambda: (
                {
                    c.topic_partition.partition
                    for c in _checkpoints(target_kafka, checkpoints_topic)
                    if c.consumer_group_id == group and c.topic_partition.topic == remote
                }
                == set(range(PARTITIONS))
            ),
        )
        _assert_monotonic_checkpoints(target_kafka, checkpoints_topic)
        # Nothing written to the source cluster: no offset-syncs topic there.
        on_source = _topics(kc_kafka)
        assert f"mm2-offset-syncs.{source}.internal" not in on_source
        assert f"mm2-offset-syncs.{target}.internal" not in on_source
    finally:
        app.stop()


def test_mirror_client_waits_for_a_slow_broker(flows: Flows, target_kafka_cluster: Any) -> None:
    # Kafka's remoteConsumerOffsets asks for the checkpoints topic's end offset within the
    # consumer's default.api.timeout.ms, not the caller's timeout: a broker slow to answer
    # (here: frozen for a few seconds) delays the answer instead of failing the call.
    topic, group = _topic("slow"), _group("slow")
    _create(flows.primary, topic)
    sent = _produce(flows.primary, topic, "s")
    commit_group_offsets(
        flows.primary, group, [TopicPartition(topic, p, PER_PARTITION) for p in range(PARTITIONS)]
    )
    remote = f"{PRIMARY}.{topic}"
    _copied(flows.backup, remote, len(sent))
    client = MirrorClient({"bootstrap.servers": flows.backup})
    expected = _translated(client, group, PRIMARY, remote, newer_than=None)

    node = target_kafka_cluster.nodes[0].node_id
    target_kafka_cluster.pause_node(node)
    resume = threading.Timer(4.0, target_kafka_cluster.resume_node, args=(node,))
    resume.start()
    try:
        started = time.monotonic()
        found = client.remote_consumer_offsets(group, PRIMARY, 1.0)
        waited = time.monotonic() - started
    finally:
        resume.join()
        target_kafka_cluster.resume_node(node)
    assert waited >= 3.0, f"answered in {waited:.1f} s while the broker was frozen"
    # Then it polls once, as Kafka's does, and what it read is the checkpoints' offsets.
    got = {tp.partition: o for tp, (o, _) in found.items() if tp.topic == remote}
    assert got.items() <= expected.items(), (got, expected)
