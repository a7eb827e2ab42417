"""kconnect's MirrorMaker beside Apache Kafka's, on the same two real clusters.

Source cluster A (``kc_kafka``) holds two topics (several partitions, keys, null keys and
values, binary headers, explicit timestamps, non-default topic configs) and a consumer
group that has read part of them. Two flows from A to B (``target_kafka``) run at the same
time, each on a distributed Connect worker connected to B (the book's "connectors on an
ordinary worker" setup) with the same MirrorSource, MirrorHeartbeat and MirrorCheckpoint
configs and ``replication.policy.separator=_``:

- Kafka's Java connectors on Kafka's Java worker, as flow ``ja`` -> ``jb``;
- kconnect's on a ``kconnect distributed`` worker, as flow ``pa`` -> ``pb``.

Running them side by side on distinct cluster aliases (rather than one after the other on
the same aliases) is what keeps the comparison faithful: both read the very same source
partitions, offsets, group and topic configs at the same time, and every name either
writes carries its own alias, so nothing one writes can be taken for the other's (remote
topics ``ja_<topic>``/``pa_<topic>``, offset syncs in ``mm2-offset-syncs_jb_internal`` /
``mm2-offset-syncs_pb_internal`` on A, checkpoints in ``ja_checkpoints_internal`` /
``pa_checkpoints_internal`` on B, heartbeats keyed by the alias pair). One after the other
on the same aliases, the second flow would find the first one's remote topics, syncs and
checkpoints and its output could not be told apart. The comparison maps one alias onto the
other and expects equality: remote topic names (A's heartbeats topic copied too), partition
counts and configs (also after a config change and a new partition on A), every copied record (key, value and header bytes, timestamp and its
type, partition, offset), the offset syncs (raw bytes and decoded), the checkpoints and the
group offsets synced on B, the heartbeats' shape (their timestamps differ), and the
connectors' offsets as Kafka Connect's offsets API shows them and as offsets-topic bytes.

Then the takeover: kconnect's flow is stopped (a clean stop commits its offsets), a Java
worker with the same worker properties (``group.id`` and internal topics) finds the same
connectors and offsets and carries on, and kconnect takes over back from it. Records
produced before each hand-over arrive once: none is copied again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, no __all__
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
)
from kconnect_connector_mirror import Checkpoint, Heartbeat, OffsetSync
from kconnect_testkit import JavaConnectWorker
from kconnect_testkit._java import JavaUnavailable, java_jars
from runtime_harness import commit_group_offsets, end_process, start_kconnect

pytestmark = pytest.mark.integration

BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
SEPARATOR = "_"
LAG = 9
"""``offset.lag.max``: a sync at once for upstream offsets 0, 10 and 20 of each partition.

At most 10 syncs are in flight per task (Kafka's writer); those due while all 10 wait for
the broker replace each other per partition. A task here copies three partitions of 30
records (and A's heartbeat), acknowledged in one burst: nine syncs due at once, plus one,
fit in flight, so which syncs exist does not depend on how fast the broker answers.
"""
# Recent timestamps: records older than a topic's retention.ms are deleted on A, maybe
# before they are mirrored (the test sets retention.ms to 2 hours at the least).
BASE_TS = int(time.time() * 1000) - 60_000
EVENTS, LEDGER = "events", "ledger"
PER_PARTITION = 30
"""Records in each source partition before the flows start."""
GROUP_AT = {(EVENTS, 0): 10, (EVENTS, 1): 23, (LEDGER, 0): 7}
"""Where the source consumer group stands: part of each partition read, events-2 not at all."""

Requester = Callable[[str, str, object], tuple[int, Any]]


def _wait(what: str, check: Callable[[], Any], timeout_s: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _read(bootstrap: str, topic: str) -> list[Any]:
    """Every record of ``topic`` up to each partition's end now, by partition and offset."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"diff-read-{uuid.uuid4().hex[:6]}",
            "enable.auto.commit": False,
        }
    )
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        ends: dict[int, int] = {}
        for p in meta.partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            if high > low:
                ends[p] = high
        if not ends:
            return []
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
        out: list[Any] = []
        done: set[int] = set()
        deadline = time.monotonic() + 30
        while done != set(ends) and time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.5):
                if m.error() is not None:
                    continue
                partition, offset = m.partition() or 0, m.offset() or 0
                if offset < ends[partition]:
                    out.append(m)
                if offset >= ends[partition] - 1:
                    done.add(partition)
        assert done == set(ends), f"{topic}: read {len(out)} records, not to the end"
        return sorted(out, key=lambda m: (m.partition(), m.offset()))
    finally:
        consumer.close()


def _record(m: Any) -> tuple[Any, ...]:
    return (m.partition(), m.offset(), m.key(), m.value(), m.headers(), m.timestamp())


def _topic_configs(admin: AdminClient, topic: str) -> dict[str, tuple[str | None, bool]]:
    """A topic's configs as ``name -> (value, is_default)``."""
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    entries = admin.describe_configs([resource])[resource].result(15)
    return {name: (e.value, bool(e.is_default)) for name, e in entries.items()}


def _partition_count(admin: AdminClient, topic: str) -> int:
    meta = admin.list_topics(topic, timeout=10).topics.get(topic)
    return 0 if meta is None or meta.error is not None else len(meta.partitions)


class KconnectWorker:
    """``kconnect distributed`` on a Java worker's properties, its REST listener moved."""

    def __init__(self, properties: Mapping[str, object], workdir: Path) -> None:
        self.url = f"http://127.0.0.1:{_free_port()}"
        workdir.mkdir(parents=True, exist_ok=True)
        props = workdir / "worker.properties"
        settings = {**properties, "listeners": self.url.replace("http", "HTTP", 1)}
        props.write_text("".join(f"{k}={v}\n" for k, v in settings.items()), encoding="utf-8")
        self.log = workdir / "kconnect.log"
        self.proc = start_kconnect(["distributed", str(props)], workdir, self.log)

    def request(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        try:
            resp = httpx.request(method, self.url + path, json=body, timeout=30)
        except httpx.HTTPError:
            if self.proc.poll() is not None:
                raise AssertionError(f"kconnect exited: {self.log.read_text()[-3000:]}") from None
            return 0, None  # not listening yet
        return resp.status_code, (resp.json() if resp.content else None)

    def wait_ready(self) -> None:
        _wait(
            f"kconnect's REST API at {self.url}",
            lambda: self.request("GET", "/connectors")[0] == 200,
            60,
        )

    def stop(self) -> None:
        code = end_process(self.proc, signal.SIGTERM)  # as an operator stops a worker
        assert code == 0, f"kconnect exited {code}: {self.log.read_text()[-3000:]}"


def _java_requester(worker: JavaConnectWorker) -> Requester:
    return lambda method, path, body=None: worker.request(method, path, body)


@dataclass
class Flow:
    """One flow A -> B: its aliases, the worker running it and that worker's offsets topic."""

    who: str
    source_alias: str
    target_alias: str
    request: Requester
    offsets_topic: str

    def remote(self, topic: str) -> str:
        return f"{self.source_alias}{SEPARATOR}{topic}"

    @property
    def offset_syncs_topic(self) -> str:
        return f"mm2-offset-syncs{SEPARATOR}{self.target_alias}{SEPARATOR}internal"

    @property
    def checkpoints_topic(self) -> str:
        return f"{self.source_alias}{SEPARATOR}checkpoints{SEPARATOR}internal"

    def unalias(self, name: str) -> str:
        """A name this flow wrote, its aliases replaced by ``@source``/``@target``."""
        for alias, placeholder in ((self.source_alias, "@source"), (self.target_alias, "@target")):
            if name == alias:
                return placeholder
            if name.startswith(alias + SEPARATOR):
                return placeholder + name[len(alias) :]
            name = name.replace(
                f"{SEPARATOR}{alias}{SEPARATOR}", f"{SEPARATOR}{placeholder}{SEPARATOR}"
            )
        return name

    def connectors(
        self, source: str, target: str, topics: list[str], group: str
    ) -> dict[str, dict[str, str]]:
        """The three connectors, as an operator writes them for a Connect worker on B."""
        common = {
            "tasks.max": "2",
            "key.converter": BYTES,
            "value.converter": BYTES,
            "header.converter": BYTES,
            "source.cluster.alias": self.source_alias,
            "target.cluster.alias": self.target_alias,
            "source.cluster.bootstrap.servers": source,
            "target.cluster.bootstrap.servers": target,
            "replication.policy.separator": SEPARATOR,
        }
        return {
            "mirror-source": {
                **common,
                "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
                "replication.factor": "-1",
                "offset-syncs.topic.replication.factor": "-1",
                "refresh.topics.interval.seconds": "5",
                "sync.topic.configs.interval.seconds": "2",
                "sync.topic.acls.enabled": "false",
                "topics": ",".join(topics),
                "offset.lag.max": str(LAG),
            },
            "mirror-heartbeat": {
                **common,
                "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
                "heartbeats.topic.replication.factor": "-1",
                "emit.heartbeats.interval.seconds": "1",
            },
            "mirror-checkpoint": {
                **common,
                "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
                "checkpoints.topic.replication.factor": "-1",
                "refresh.groups.interval.seconds": "5",
                "emit.checkpoints.interval.seconds": "1",
                "sync.group.offsets.enabled": "true",
                "sync.group.offsets.interval.seconds": "1",
                "groups": group,
            },
        }

    def running(self, connector: str) -> bool:
        status, body = self.request("GET", f"/connectors/{connector}/status", None)
        if status != 200:
            return False
        states = [body["connector"]["state"]] + [t["state"] for t in body["tasks"]]
        assert "FAILED" not in states, f"{connector} failed on {self.who}: {body}"
        return bool(body["tasks"]) and set(states) == {"RUNNING"}

    def source_offsets(self) -> dict[tuple[str, int], Any]:
        """``mirror-source``'s offsets by (topic, partition), from the offsets API."""
        status, body = self.request("GET", "/connectors/mirror-source/offsets", None)
        assert status == 200, body
        return {
            (o["partition"]["topic"], o["partition"]["partition"]): o["offset"]
            for o in body["offsets"]
        }


@dataclass
class SourceData:
    topics: dict[str, str]
    group: str

    @property
    def names(self) -> list[str]:
        return [self.topics[EVENTS], self.topics[LEDGER]]

    @property
    def copied(self) -> list[str]:
        """The topics each flow copies: its ``topics`` and A's heartbeats."""
        return [*self.names, "heartbeats"]


@pytest.fixture(scope="module")
def java_ready() -> Path:
    """The Java worker's jars; under CI=true their absence fails the module, never skips."""
    try:
        return java_jars("kafka")
    except JavaUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the Java MirrorMaker differential cannot run: {exc}", pytrace=False)
        pytest.skip(f"the Java MirrorMaker differential needs Java and Maven: {exc}")


@pytest.fixture
def source_data(kc_kafka: str) -> SourceData:
    """The topics on A with their records, and a group that read part of them."""
    suffix = uuid.uuid4().hex[:6]
    topics = {EVENTS: f"events-{suffix}", LEDGER: f"ledger-{suffix}"}
    admin = AdminClient({"bootstrap.servers": kc_kafka})
    new = [
        NewTopic(
            topics[EVENTS],
            num_partitions=3,
            replication_factor=1,
            config={
                "retention.ms": "86400000",
                "max.message.bytes": "2000000",
                "cleanup.policy": "delete",
            },
        ),
        NewTopic(
            topics[LEDGER],
            num_partitions=1,
            replication_factor=1,
            # min.insync.replicas is one of the properties MirrorMaker never copies.
            config={"cleanup.policy": "compact", "min.insync.replicas": "1"},
        ),
    ]
    for future in admin.create_topics(new).values():
        future.result(30)
    # A heartbeats topic on A, as an upstream flow into A leaves it: MirrorMaker copies it
    # whatever ``topics`` says (heartbeats.replication.enabled).
    with contextlib.suppress(KafkaException):  # already there from an earlier test
        admin.create_topics([NewTopic("heartbeats", 1, 1, config={"cleanup.policy": "compact"})])[
            "heartbeats"
        ].result(30)
    producer = Producer({"bootstrap.servers": kc_kafka, "linger.ms": 5})
    for i in range(3 * PER_PARTITION):
        producer.produce(
            topics[EVENTS],
            key=None if i % 17 == 0 else f"k{i}".encode(),
            value=None if i % 23 == 0 else bytes([i, 0, 255, 128]) + f"v{i}".encode(),
            partition=i % 3,
            timestamp=BASE_TS + i,
            headers=[("h", f"{i}".encode()), ("bin", b"\x00\xff"), ("n", None)] if i % 2 else None,
        )
    for i in range(PER_PARTITION):
        producer.produce(
            topics[LEDGER],
            key=f"acct-{i % 12}".encode(),
            value=f"{i}".encode(),
            timestamp=BASE_TS + 1000 + i,
            headers=[("seq", f"{i}".encode())],
        )
    beat = Heartbeat("upstream", "a", BASE_TS)
    producer.produce(
        "heartbeats", key=beat.record_key(), value=beat.record_value(), timestamp=BASE_TS
    )
    assert producer.flush(30) == 0
    group = f"billing-{suffix}"
    offsets = [TopicPartition(topics[t], p, off) for (t, p), off in GROUP_AT.items()]
    commit_group_offsets(kc_kafka, group, offsets)
    return SourceData(topics, group)


class Diff:
    """Differences found, reported together."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.compared: list[str] = []

    def check(self, what: str, java: object, ours: object) -> None:
        self.compared.append(what)
        if java != ours:
            self.found.append(f"{what}:\n  Java:     {java!r}\n  kconnect: {ours!r}")


def _offset_syncs(bootstrap: str, flow: Flow, topics: list[str]) -> dict[Any, list[Any]]:
    """The flow's offset syncs of ``topics`` by partition: (upstream, downstream, key, value)."""
    out: dict[Any, list[Any]] = {}
    for m in _read(bootstrap, flow.offset_syncs_topic):
        sync = OffsetSync.deserialize(m.key(), m.value())
        if sync.topic_partition.topic not in topics:
            continue  # another test's flow with the same alias
        assert (m.key(), m.value()) == (sync.record_key(), sync.record_value()), (
            f"{flow.who}'s offset sync {sync} does not encode back to its bytes"
        )
        tp = (sync.topic_partition.topic, sync.topic_partition.partition)
        out.setdefault(tp, []).append(
            (sync.upstream_offset, sync.downstream_offset, m.key(), m.value())
        )
    return out


def _latest_checkpoints(bootstrap: str, flow: Flow, group: str) -> dict[Any, Any]:
    """The last checkpoint of each of ``group``'s partitions, the remote topic unaliased."""
    latest: dict[Any, Any] = {}
    for m in _read(bootstrap, flow.checkpoints_topic):
        c = Checkpoint.deserialize(m.key(), m.value())
        if c.consumer_group_id != group:
            continue
        assert (m.key(), m.value()) == (c.record_key(), c.record_value())
        tp = (flow.unalias(c.topic_partition.topic), c.topic_partition.partition)
        latest[tp] = (c.upstream_offset, c.downstream_offset, c.metadata)
    return latest


def _offset_records(bootstrap: str, flow: Flow) -> dict[bytes, bytes]:
    """The latest record per key of the flow's Connect offsets topic, aliases replaced."""

    def unalias(raw: bytes) -> bytes:
        for alias, placeholder in ((flow.source_alias, "@source"), (flow.target_alias, "@target")):
            raw = raw.replace(f'"{alias}"'.encode(), f'"{placeholder}"'.encode())
            raw = raw.replace(
                f'"{alias}{SEPARATOR}'.encode(), f'"{placeholder}{SEPARATOR}'.encode()
            )
        return raw

    latest: dict[bytes, bytes] = {}
    for m in _read(bootstrap, flow.offsets_topic):
        if m.value() is not None:
            latest[unalias(m.key())] = unalias(m.value())
    return latest


def _compare(diff: Diff, java: Flow, ours: Flow, a: str, b: str, data: SourceData) -> None:
    target_admin = AdminClient({"bootstrap.servers": b})
    source_admin = AdminClient({"bootstrap.servers": a})

    # Remote topics: names, partition counts, configs, records.
    listed = set(target_admin.list_topics(timeout=10).topics)
    wanted = {*data.copied, f"checkpoints{SEPARATOR}internal"}
    diff.check(
        "topics on B named after the flow's source alias",
        sorted(java.unalias(t) for t in listed if t in {java.remote(w) for w in wanted}),
        sorted(ours.unalias(t) for t in listed if t in {ours.remote(w) for w in wanted}),
    )
    for topic in data.copied:
        j, o = java.remote(topic), ours.remote(topic)
        diff.check(
            f"partitions of {o}",
            _partition_count(target_admin, j),
            _partition_count(target_admin, o),
        )
        diff.check(
            f"configs of {o}", _topic_configs(target_admin, j), _topic_configs(target_admin, o)
        )
        source_records = [_record(m) for m in _read(a, topic)]
        java_records = [_record(m) for m in _read(b, j)]
        our_records = [_record(m) for m in _read(b, o)]
        assert java_records == source_records, f"Java's copy of {topic} is not the source's"
        diff.check(f"records of {o}", java_records, our_records)

    # Internal topics: where they are, partitions, configs.
    for kind, admin, j, o in (
        ("offset-syncs topic on A", source_admin, java.offset_syncs_topic, ours.offset_syncs_topic),
        ("checkpoints topic on B", target_admin, java.checkpoints_topic, ours.checkpoints_topic),
        ("heartbeats topic on B", target_admin, "heartbeats", "heartbeats"),
    ):
        diff.check(f"{kind}: partitions", _partition_count(admin, j), _partition_count(admin, o))
        diff.check(f"{kind}: configs", _topic_configs(admin, j), _topic_configs(admin, o))

    # Offset syncs, raw and decoded. The writer sends a sync at once for a partition's
    # first record and whenever the last one is offset.lag.max behind: those depend only on
    # the records. It delays the others to the next offset commit, so which of those exist
    # depends on when commits happen: only the last (each partition's last record) is sure.
    java_syncs, our_syncs = _offset_syncs(a, java, data.names), _offset_syncs(a, ours, data.names)
    diff.check("partitions with offset syncs", sorted(java_syncs), sorted(our_syncs))
    for tp in sorted(set(java_syncs) & set(our_syncs)):
        immediate = set(range(0, PER_PARTITION, LAG + 1))
        j_by = {u: rest for u, *rest in java_syncs[tp]}
        o_by = {u: rest for u, *rest in our_syncs[tp]}
        diff.check(
            f"offset syncs sent at once for {tp} (upstream, downstream, key, value)",
            sorted((u, *j_by[u]) for u in immediate & set(j_by)),
            sorted((u, *o_by[u]) for u in immediate & set(o_by)),
        )
        diff.check(f"last offset sync of {tp}", java_syncs[tp][-1], our_syncs[tp][-1])
        for u in sorted(set(j_by) & set(o_by)):
            diff.check(f"offset sync bytes of {tp} at {u}", j_by[u], o_by[u])
        delayed_j, delayed_o = sorted(set(j_by) - immediate), sorted(set(o_by) - immediate)
        if delayed_j != delayed_o:
            print(f"delayed offset syncs of {tp} (timing): Java {delayed_j}, kconnect {delayed_o}")

    # Checkpoints, and the group's offsets synced on B (the group is idle there).
    java_checkpoints = _latest_checkpoints(b, java, data.group)
    assert len(java_checkpoints) == len(GROUP_AT), java_checkpoints
    diff.check(
        "latest checkpoints (remote topic, partition) -> (upstream, downstream, metadata)",
        java_checkpoints,
        _latest_checkpoints(b, ours, data.group),
    )

    def committed(flow: Flow) -> dict[Any, int]:
        consumer = Consumer({"bootstrap.servers": b, "group.id": data.group})
        try:
            asked = [TopicPartition(flow.remote(data.topics[EVENTS]), p) for p in range(3)]
            asked.append(TopicPartition(flow.remote(data.topics[LEDGER]), 0))
            return {
                (flow.unalias(tp.topic), tp.partition): tp.offset
                for tp in consumer.committed(asked, timeout=10)
            }
        finally:
            consumer.close()

    expected_groups = len(GROUP_AT)
    for flow in (java, ours):
        _wait(
            f"{flow.who}'s group offsets on B",
            lambda f=flow: sum(o >= 0 for o in committed(f).values()) == expected_groups,
        )
    diff.check("group offsets synced on B", committed(java), committed(ours))

    # Heartbeats: the same key and value layout; the record's timestamp is the beat's.
    shapes: dict[str, Any] = {}
    for m in _read(b, "heartbeats"):
        beat = Heartbeat.deserialize(m.key(), m.value())
        beating = {java.source_alias: java, ours.source_alias: ours}.get(beat.source_cluster_alias)
        if beating is None or beat.target_cluster_alias != beating.target_alias:
            continue
        shapes[beating.who] = (
            m.partition(),
            m.key() == Heartbeat(beating.source_alias, beating.target_alias, 0).record_key(),
            m.value()[:2],  # the value's version
            len(m.value()),
            m.timestamp() == (1, beat.timestamp),  # CreateTime, the beat's own
            m.headers(),
        )
    assert java.who in shapes, f"no heartbeat from {java.who}"
    diff.check("heartbeat records", shapes.get(java.who), shapes.get(ours.who))

    # The connectors' offsets, as the offsets API shows them and as offsets-topic records
    # (byte for byte once the aliases are mapped: a worker of either kind reads the other's).
    diff.check("mirror-source offsets (REST)", java.source_offsets(), ours.source_offsets())
    java_offsets = _offset_records(b, java)
    assert {k.split(b",")[0] for k in java_offsets} == {
        b'["mirror-source"',
        b'["mirror-heartbeat"',
        b'["mirror-checkpoint"',
    }, sorted(java_offsets)
    diff.check("offsets-topic records (latest per key)", java_offsets, _offset_records(b, ours))


def test_java_and_kconnect_mirror_the_same_clusters_and_take_over(
    java_ready: Path,
    kc_kafka: str,
    target_kafka: str,
    source_data: SourceData,
    tmp_path: Path,
) -> None:
    data, a, b = source_data, kc_kafka, target_kafka
    # Aliases of this run only: A (the session's cluster) may hold an earlier run's syncs.
    run = uuid.uuid4().hex[:4]
    started = time.monotonic()
    java_worker = JavaConnectWorker(
        b, mode="distributed", name=f"mm-java-{uuid.uuid4().hex[:6]}", workdir=tmp_path / "java"
    )
    # The takeover's worker properties are a Java worker's: either kind of worker reads them.
    takeover = JavaConnectWorker(
        b, mode="distributed", name=f"mm-flow-{uuid.uuid4().hex[:6]}", workdir=tmp_path / "java-2"
    )
    properties = takeover.worker_config()
    our_worker = KconnectWorker(properties, tmp_path / "kconnect-1")
    workers: list[Any] = [our_worker]
    try:
        java_worker.start()
        workers.append(java_worker)
        our_worker.wait_ready()
        java = Flow(
            "Java",
            f"ja{run}",
            f"jb{run}",
            _java_requester(java_worker),
            str(java_worker.worker_config()["offset.storage.topic"]),
        )
        ours = Flow(
            "kconnect",
            f"pa{run}",
            f"pb{run}",
            our_worker.request,
            str(properties["offset.storage.topic"]),
        )
        configs = {flow.who: flow.connectors(a, b, data.names, data.group) for flow in (java, ours)}

        def create(name: str) -> None:
            for flow in (java, ours):
                status, body = flow.request(
                    "PUT", f"/connectors/{name}/config", configs[flow.who][name]
                )
                assert status == 201, body
            for flow in (java, ours):
                _wait(f"{flow.who}'s {name}", lambda f=flow: f.running(name))

        create("mirror-source")
        create("mirror-heartbeat")
        for flow in (java, ours):
            for topic in data.copied:
                count = len(_read(a, topic))
                remote = flow.remote(topic)
                _wait(
                    f"{count} records in {remote}",
                    lambda t=remote, c=count: len(_read(b, t)) >= c,
                )
            # Every partition's last record synced (that sync waits for an offset commit).
            _wait(
                f"{flow.who}'s offset syncs up to the last records",
                lambda f=flow: (
                    all(
                        syncs[-1][0] == PER_PARTITION - 1
                        for syncs in _offset_syncs(a, f, data.names).values()
                    )
                    and len(_offset_syncs(a, f, data.names)) == 4
                ),
            )

        # A config changed on A once the remote topics exist reaches B by config sync:
        # retention.ms set anew, max.message.bytes back to its default (so deleted on B,
        # use.defaults.from=target).
        changed = ConfigResource(
            ConfigResource.Type.TOPIC,
            data.topics[EVENTS],
            incremental_configs=[
                ConfigEntry("retention.ms", "7200000", incremental_operation=AlterConfigOpType.SET),
                ConfigEntry(
                    "max.message.bytes", "", incremental_operation=AlterConfigOpType.DELETE
                ),
            ],
        )
        source_admin = AdminClient({"bootstrap.servers": a})
        source_admin.incremental_alter_configs([changed])[changed].result(15)
        target_admin = AdminClient({"bootstrap.servers": b})
        for flow in (java, ours):
            remote = flow.remote(data.topics[EVENTS])
            _wait(
                f"the changed configs on {remote}",
                lambda t=remote: (
                    _topic_configs(target_admin, t)["retention.ms"] == ("7200000", False)
                    and _topic_configs(target_admin, t)["max.message.bytes"][1]
                ),
            )
        # A partition added on A is added on B at the next topic refresh.
        grown = data.topics[LEDGER]
        source_admin.create_partitions([NewPartitions(grown, 2)])[grown].result(15)
        for flow in (java, ours):
            remote = flow.remote(grown)
            _wait(
                f"a second partition of {remote}",
                lambda t=remote: _partition_count(target_admin, t) == 2,
            )

        # The checkpoint connectors start once every offset sync is written. A checkpoint
        # task that reads syncs while they still arrive may translate against a sync its
        # store drops later, and checkpoints never move back: started earlier, each flow's
        # checkpoints would depend on when its task happened to look.
        create("mirror-checkpoint")
        for flow in (java, ours):
            _wait(
                f"{flow.who}'s checkpoints",
                lambda f=flow: len(_latest_checkpoints(b, f, data.group)) == len(GROUP_AT),
                180,  # a deadline only: a loaded machine's workers can be slow to translate
            )

        diff = Diff()
        _compare(diff, java, ours, a, b, data)
        print(
            f"\ndifferential: {len(diff.compared)} comparisons, {len(diff.found)} differences, "
            f"{time.monotonic() - started:.0f} s"
        )
        assert not diff.found, "kconnect's MirrorMaker differs from Kafka's:\n" + "\n".join(
            diff.found
        )
        java_worker.stop()
        workers.remove(java_worker)

        # -- The takeover: kconnect -> Java -> kconnect, one group, one set of topics. --
        events = data.topics[EVENTS]
        remote = ours.remote(events)
        produced = 3 * PER_PARTITION

        def produce(count: int) -> int:
            """``count`` more records on events; the last offset of each partition then."""
            nonlocal produced
            producer = Producer({"bootstrap.servers": a, "linger.ms": 5})
            for i in range(produced, produced + count):
                producer.produce(
                    events,
                    key=f"k{i}".encode(),
                    value=f"v{i}".encode(),
                    partition=i % 3,
                    timestamp=BASE_TS + i,
                )
            assert producer.flush(30) == 0
            produced += count
            return produced // 3 - 1

        def committed_to(flow: Flow, last: int) -> bool:
            offsets = flow.source_offsets()
            return all(offsets.get((events, p)) == {"offset": last} for p in range(3))

        def copied_once(expected: int) -> None:
            records = _read(b, remote)
            keys = Counter(m.key() for m in records if m.key() is not None)
            again = sorted(k for k, n in keys.items() if n > 1)
            assert len(records) == expected and not again, (
                f"{remote}: {len(records)} records for {expected} produced; copied again: {again[:10]}"
            )

        # kconnect's last offsets are committed before it stops: exact counts from here.
        _wait("kconnect's offsets committed", lambda: committed_to(ours, PER_PARTITION - 1))
        our_worker.stop()
        workers.remove(our_worker)
        last = produce(60)
        takeover.start()
        workers.append(takeover)
        java_again = Flow(
            "Java",
            ours.source_alias,
            ours.target_alias,
            _java_requester(takeover),
            ours.offsets_topic,
        )
        for name in configs[ours.who]:
            _wait(f"Java running kconnect's {name}", lambda n=name: java_again.running(n))
        _wait(f"{produced} records in {remote}", lambda: len(_read(b, remote)) >= produced)
        _wait("Java's offsets committed", lambda: committed_to(java_again, last))
        copied_once(produced)
        takeover.stop()
        workers.remove(takeover)

        last = produce(60)
        back = KconnectWorker(properties, tmp_path / "kconnect-2")
        workers.append(back)
        back.wait_ready()
        ours_again = Flow(
            "kconnect", ours.source_alias, ours.target_alias, back.request, ours.offsets_topic
        )
        for name in configs[ours.who]:
            _wait(f"kconnect running {name} again", lambda n=name: ours_again.running(n))
        _wait(f"{produced} records in {remote}", lambda: len(_read(b, remote)) >= produced)
        _wait("kconnect's offsets committed again", lambda: committed_to(ours_again, last))
        copied_once(produced)
        print(
            f"takeover kconnect -> Java -> kconnect: {produced} records, each once, {time.monotonic() - started:.0f} s"
        )
    finally:
        for worker in reversed(workers):
            with contextlib.suppress(AssertionError):  # the test's own failure matters more
                worker.stop()
