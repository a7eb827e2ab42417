"""``kconnect mirror-maker mm2.properties`` on two real Kafka clusters, run as an operator runs
it: a ``connect-mirror-maker.properties`` file and the ``kconnect`` command in a process of
its own, stopped with SIGTERM.

Cluster A is ``kc_kafka``, cluster B ``target_kafka``; each test names its clusters with
fresh aliases so that the internal topics (named after the aliases, as Kafka names them)
are its own. The internal topic names expected here are the ones Kafka's ``MirrorMakerConfig``
gives (``mm2-configs.<source>.internal`` ... on the target) and the connectors' own
(``mm2-offset-syncs.<target>.internal`` on the source, ``<source>.checkpoints.internal``
and ``heartbeats`` on the target).
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, no __all__
    AdminClient,
    NewTopic,
)
from kconnect_connector_mirror import Checkpoint, Heartbeat
from runtime_harness import commit_group_offsets

pytestmark = pytest.mark.integration

# Recent timestamps: records older than retention.ms would be deleted before being copied.
BASE_TS = int(time.time() * 1000) - 60_000
KCONNECT = Path(sys.executable).with_name("kconnect")


def _wait(what: str, check: Callable[[], Any], timeout_s: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})")


def _topics(bootstrap: str) -> set[str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    return set(admin.list_topics(timeout=10).topics)


def _watermarks(consumer: Any, partition: TopicPartition) -> tuple[int, int]:
    """Asked again for a while: a topic just created may not have its leader known yet."""
    deadline = time.monotonic() + 30
    while True:
        try:
            low, high = consumer.get_watermark_offsets(partition, timeout=10)
            return int(low), int(high)
        except KafkaException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _read(bootstrap: str, topic: str) -> list[Any]:
    """Every record of ``topic`` up to each partition's end now, by partition and offset."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"dm-read-{uuid.uuid4().hex[:6]}",
            "enable.auto.commit": False,
        }
    )
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        ends = {}
        for p in meta.partitions:
            low, high = _watermarks(consumer, TopicPartition(topic, p))
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
        return sorted(out, key=lambda m: (m.partition(), m.offset()))
    finally:
        consumer.close()


def _create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[
        topic
    ].result(30)


def _produce(bootstrap: str, topic: str, start: int, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(start, start + count):
        producer.produce(
            topic,
            key=None if i % 7 == 3 else f"k{i}".encode(),
            value=f"v{i}".encode() * (1 + i % 5),
            partition=i % 2,
            timestamp=BASE_TS + i,
            headers=[("h", f"{i}".encode()), ("bin", bytes([i % 256, 0, 255])), ("n", None)],
        )
    producer.flush(30)


def _record(m: Any) -> tuple[Any, ...]:
    return (m.partition(), m.key(), m.value(), tuple(m.headers() or ()), m.timestamp())


def _statuses(bootstrap: str, topic: str) -> dict[str, dict[str, Any]]:
    """The newest status of each connector and task in a flow's status topic."""
    out: dict[str, dict[str, Any]] = {}
    for m in _read(bootstrap, topic):
        key = (m.key() or b"").decode()
        if m.value() is None:
            out.pop(key, None)
        elif key.startswith("status-"):
            out[key] = json.loads(m.value())
    return out


def _running_on(bootstrap: str, source: str) -> dict[str, str]:
    """Connector and task -> the node running it, from the flow's status topic."""
    statuses = _statuses(bootstrap, f"mm2-status.{source}.internal")
    return {k: v["worker_id"] for k, v in statuses.items() if v.get("state") == "RUNNING"}


class Node:
    """``kconnect mirror-maker`` as a process of its own, its output in a log file."""

    def __init__(self, config: Path, log: Path, *args: str) -> None:
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    str(KCONNECT),
                    *(["-v"] if os.environ.get("MMDBG") else []),
                    "mirror-maker",
                    str(config),
                    *args,
                ],
                cwd=config.parent,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(90)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            msg = f"mirror-maker did not stop on SIGTERM: {self.output()[-3000:]}"
            raise AssertionError(msg) from None

    def check_alive(self) -> None:
        assert self.proc.poll() is None, f"mirror-maker exited: {self.output()[-4000:]}"


@pytest.fixture
def nodes() -> Iterator[list[Node]]:
    started: list[Node] = []
    yield started
    for node in started:
        if node.proc.poll() is None:
            node.proc.kill()
            node.proc.wait()


def _mm2_file(path: Path, a: str, b: str, kafka_a: str, kafka_b: str, **extra: str) -> Path:
    # Kafka's own sample file's shape (config/connect-mirror-maker.properties), with the
    # aliases and brokers of this test and short intervals.
    lines = [
        "# MirrorMaker 2, as for Kafka's connect-mirror-maker.sh",
        f"clusters = {a}, {b}",
        f"{a}.bootstrap.servers = {kafka_a}",
        f"{b}.bootstrap.servers = {kafka_b}",
        "replication.factor=1",
        "checkpoints.topic.replication.factor=1",
        "heartbeats.topic.replication.factor=1",
        "offset-syncs.topic.replication.factor=1",
        "offset.storage.replication.factor=1",
        "status.storage.replication.factor=1",
        "config.storage.replication.factor=1",
        "tasks.max = 2",
        "refresh.topics.interval.seconds = 1",
        "refresh.groups.interval.seconds = 1",
        "emit.checkpoints.interval.seconds = 1",
        "sync.topic.acls.enabled = false",
        # Worker settings of the flows into each cluster: offsets (and the offset syncs
        # delayed until then) committed every 500 ms; a departed node's work handed over
        # after 1 s, not 5 minutes.
        *(f"{c}.offset.flush.interval.ms = 500" for c in (a, b)),
        *(f"{c}.scheduled.rebalance.max.delay.ms = 1000" for c in (a, b)),
        *(f"{k} = {v}" for k, v in extra.items()),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _aliases() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:6]
    return f"east{tag}", f"west{tag}"


def test_mirror_maker_replicates_and_two_nodes_share_the_flow(
    kc_kafka: str, target_kafka: str, tmp_path: Path, nodes: list[Node]
) -> None:
    a, b = _aliases()
    topic = f"orders-{uuid.uuid4().hex[:6]}"
    group = f"billing-{uuid.uuid4().hex[:6]}"
    other = f"stock-{uuid.uuid4().hex[:6]}"
    _create(target_kafka, other, 1)
    _produce(target_kafka, other, 0, 5)  # on B: b->a is not enabled, never copied to A

    config = _mm2_file(
        tmp_path / "mm2.properties",
        a,
        b,
        kc_kafka,
        target_kafka,
        **{f"{a}->{b}.enabled": "true", f"{a}->{b}.topics": topic, f"{a}->{b}.groups": group},
    )
    first = Node(config, tmp_path / "node-1.log")
    nodes.append(first)

    # The topic and the group come once the flow runs its final tasks, as in Kafka's
    # integration tests: the source tasks restart when A's heartbeats topic appears (b->a's
    # heartbeat connector creates it), and a record acknowledged while its task stops gets
    # no offset sync (as in Kafka), which would leave the group nothing to translate with.
    # A's heartbeats copied to B show the tasks that replicate them run.
    def heartbeats_copied() -> bool:
        first.check_alive()
        return bool(_read(target_kafka, f"{a}.heartbeats"))

    _wait("A's heartbeats copied to B", heartbeats_copied, 180)
    _create(kc_kafka, topic, 2)
    _produce(kc_kafka, topic, 0, 60)
    commit_group_offsets(
        kc_kafka, group, [TopicPartition(topic, 0, 12), TopicPartition(topic, 1, 9)]
    )

    # Records, byte for byte, in A.<topic> on B.
    remote = f"{a}.{topic}"
    source_records = [_record(m) for m in _read(kc_kafka, topic)]
    assert len(source_records) == 60

    def copied() -> list[Any]:
        first.check_alive()
        return [_record(m) for m in _read(target_kafka, remote)]

    _wait(f"60 records in {remote} on B", lambda: len(copied()) >= 60)
    assert sorted(copied(), key=repr) == sorted(source_records, key=repr)

    # Heartbeats of the flow on B; checkpoints of the group, translated, on B.
    def heartbeats() -> set[tuple[str, str]]:
        return {
            (h.source_cluster_alias, h.target_cluster_alias)
            for h in (
                Heartbeat.deserialize(m.key(), m.value()) for m in _read(target_kafka, "heartbeats")
            )
        }

    _wait("heartbeats from A to B", lambda: (a, b) in heartbeats())

    def checkpoints() -> dict[int, Checkpoint]:
        found = [
            Checkpoint.deserialize(m.key(), m.value())
            for m in _read(target_kafka, f"{a}.checkpoints.internal")
        ]
        return {c.topic_partition.partition: c for c in found if c.consumer_group_id == group}

    latest = _wait(
        "checkpoints of the group on B", lambda: len(checkpoints()) == 2 and checkpoints(), 240
    )
    assert {p: c.upstream_offset for p, c in latest.items()} == {0: 12, 1: 9}
    assert all(c.topic_partition.topic == remote for c in latest.values())

    # Internal topics, named as Kafka's dedicated MirrorMaker names them. A flow's worker
    # lives on its target: a->b on B; b->a (not enabled, but there for A's heartbeats) on A.
    on_a, on_b = _topics(kc_kafka), _topics(target_kafka)
    for name in ("configs", "offsets", "status"):
        assert f"mm2-{name}.{a}.internal" in on_b
        assert f"mm2-{name}.{b}.internal" in on_a
    assert f"mm2-offset-syncs.{b}.internal" in on_a
    assert f"{a}.checkpoints.internal" in on_b
    assert "heartbeats" in on_a  # b->a's heartbeat connector emits into A
    # The group's membership slots, named as an internal topic (never mirrored).
    assert f"mm2-members.{a}.internal" in on_b
    assert not any(t.endswith(".members") for t in on_a | on_b if a in t or b in t)
    # b->a is not enabled: nothing of B reaches A.
    assert not [t for t in on_a if t.startswith(f"{b}.")], sorted(on_a)

    # A second node started with the same file joins the flow's group and takes a share.
    second = Node(config, tmp_path / "node-2.log")
    nodes.append(second)

    def shared() -> set[str]:
        first.check_alive()
        second.check_alive()
        running = _running_on(target_kafka, a)
        return set(running.values()) if len(set(running.values())) == 2 else set()

    pair = _wait("the flow's connectors and tasks on two nodes", shared, 120)

    # SIGTERM to the first node: it stops cleanly, the second one carries on replicating.
    assert first.stop() == 0, first.output()[-3000:]
    assert "Traceback" not in first.output(), first.output()[-3000:]
    _produce(kc_kafka, topic, 60, 40)

    def copied_by_second() -> set[tuple[Any, ...]]:
        second.check_alive()
        return {_record(m) for m in _read(target_kafka, remote)}

    _wait("records produced after the first node stopped", lambda: len(copied_by_second()) >= 100)
    assert copied_by_second() == {_record(m) for m in _read(kc_kafka, topic)}

    def on_one_node() -> set[str]:
        running = set(_running_on(target_kafka, a).values())
        return running if len(running) == 1 else set()

    assert _wait("every connector and task on the second node", on_one_node) < pair
    assert second.stop() == 0, second.output()[-3000:]
    # Never copied to A: the flow b->a is not enabled.
    assert f"{b}.{other}" not in _topics(kc_kafka)


def test_only_enabled_flows_into_the_nodes_clusters_run(
    kc_kafka: str, target_kafka: str, tmp_path: Path, nodes: list[Node]
) -> None:
    topic = f"items-{uuid.uuid4().hex[:6]}"
    _create(kc_kafka, topic, 2)
    _produce(kc_kafka, topic, 0, 10)

    # a->b enabled, b->a neither enabled nor emitting heartbeats: only a->b runs.
    a, b = _aliases()
    one_way = _mm2_file(
        tmp_path / "one-way.properties",
        a,
        b,
        kc_kafka,
        target_kafka,
        **{
            f"{a}->{b}.enabled": "true",
            f"{a}->{b}.topics": topic,
            f"{b}->{a}.emit.heartbeats.enabled": "false",
        },
    )
    node = Node(one_way, tmp_path / "one-way.log")
    nodes.append(node)

    def copied() -> int:
        node.check_alive()
        return len(_read(target_kafka, f"{a}.{topic}"))

    _wait("the records of a->b on B", lambda: copied() >= 10)
    assert f"mm2-configs.{b}.internal" not in _topics(kc_kafka)
    assert f"starting 1 flows: {a}->{b}" in node.output()
    assert node.stop() == 0

    # The same file for a node whose only target is a: no flow into a runs, so none at all.
    done = subprocess.run(
        [str(KCONNECT), "mirror-maker", str(one_way), "--clusters", a],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "no source->target replication flows for this node" in done.stderr

    # With b->a's heartbeats on (the default), --clusters a runs b->a alone: on A, with
    # heartbeats from b, and nothing of a->b.
    a, b = _aliases()
    both = _mm2_file(
        tmp_path / "both.properties",
        a,
        b,
        kc_kafka,
        target_kafka,
        **{f"{a}->{b}.enabled": "true", f"{a}->{b}.topics": topic},
    )
    node = Node(both, tmp_path / "into-a.log", "--clusters", a)
    nodes.append(node)

    def heartbeats_on_a() -> bool:
        node.check_alive()
        return any(
            Heartbeat.deserialize(m.key(), m.value()).source_cluster_alias == b
            for m in _read(kc_kafka, "heartbeats")
        )

    _wait("heartbeats from b on A", heartbeats_on_a)
    assert f"mm2-configs.{b}.internal" in _topics(kc_kafka)
    on_b = _topics(target_kafka)
    assert f"mm2-configs.{a}.internal" not in on_b
    assert f"{a}.{topic}" not in on_b
    assert f"starting 1 flows: {b}->{a}" in node.output()
    assert node.stop() == 0


def _advertised_url(node: Node) -> str:
    def found() -> str | None:
        node.check_alive()
        match = re.search(
            r"internal REST server listening on \S+, advertised as (\S+);", node.output()
        )
        return match.group(1) if match else None

    return str(_wait("the node's internal REST server", found, 60))


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {}
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def _task_config_records(bootstrap: str, source: str) -> list[bytes]:
    return [
        m.value()
        for m in _read(bootstrap, f"mm2-configs.{source}.internal")
        if (m.key() or b"").startswith(b"task-MirrorSourceConnector-") and m.value()
    ]


def test_internal_rest_carries_a_followers_task_configs_to_the_flows_leader(
    kc_kafka: str, target_kafka: str, tmp_path: Path, nodes: list[Node]
) -> None:
    # dedicated.mode.enable.internal.rest = true (KIP-710): each node serves its flows'
    # internal endpoints; the node that runs MirrorSourceConnector without leading the flow
    # sends the task configs of a newly found topic to the leader, which writes them.
    a, b = _aliases()
    prefix = f"kip710-{uuid.uuid4().hex[:6]}"
    _create(kc_kafka, f"{prefix}-one", 1)
    settings = {
        f"{a}->{b}.enabled": "true",
        f"{a}->{b}.topics": f"{prefix}-.*",
        f"{a}->{b}.emit.checkpoints.enabled": "false",
        f"{b}->{a}.emit.heartbeats.enabled": "false",  # a->b is the only flow
        "dedicated.mode.enable.internal.rest": "true",
        "listeners": "http://127.0.0.1:0",
    }
    config = _mm2_file(tmp_path / "mm2.properties", a, b, kc_kafka, target_kafka, **settings)
    first = Node(config, tmp_path / "node-1.log")
    nodes.append(first)
    first_url = _advertised_url(first)

    def source_runs_on() -> str | None:
        first.check_alive()
        return _running_on(target_kafka, a).get("status-connector-MirrorSourceConnector")

    leader_id = _wait("MirrorSourceConnector running on the first node", source_runs_on, 120)
    assert f"this node ({leader_id}) now leads {a}->{b}" in first.output()

    # A second node joins: the first connector in creation order, MirrorSourceConnector,
    # moves to it, and the first node keeps leading the flow.
    second = Node(config, tmp_path / "node-2.log")
    nodes.append(second)
    _advertised_url(second)

    def moved() -> bool:
        second.check_alive()
        return source_runs_on() not in (None, leader_id)

    _wait("MirrorSourceConnector running on the second node", moved, 120)
    assert "now leads" not in second.output()
    posts = f"POST /{a}/{b}/connectors/MirrorSourceConnector/tasks 204"
    before = first.output().count(posts)

    # A new topic: the second node's connector generates new task configs, and they reach
    # the flow's config topic through the leader.
    _create(kc_kafka, f"{prefix}-two", 1)
    _produce(kc_kafka, f"{prefix}-two", 0, 4)

    def copied() -> int:
        second.check_alive()
        return len(_read(target_kafka, f"{a}.{prefix}-two"))

    _wait("the new topic's records on B", lambda: copied() >= 2, 120)
    assert first.output().count(posts) > before, first.output()[-3000:]
    assert any(f"{prefix}-two".encode() in v for v in _task_config_records(target_kafka, a))

    # The leader takes only requests signed with the flow's session key.
    tasks_url = f"{first_url}/{a}/{b}/connectors/MirrorSourceConnector/tasks"
    body = json.dumps([{"task.assigned.partitions": "forged-0"}]).encode()
    assert _post(tasks_url, body, {}) == (
        400,
        {"error_code": 400, "message": "Internal request missing required signature"},
    )
    forged = {
        "X-Connect-Authorization": base64.b64encode(b"\x00" * 32).decode(),
        "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
    }
    assert _post(tasks_url, body, forged) == (
        403,
        {"error_code": 403, "message": "Internal request contained invalid signature."},
    )
    assert _post(f"{first_url}/{b}/{a}/connectors/MirrorSourceConnector/tasks", body, {}) == (
        404,
        {
            "error_code": 404,
            "message": f"No replication flow found for source '{b}' and target '{a}'",
        },
    )
    # Only the internal endpoints are served.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{first_url}/connectors", timeout=30)
    with refused.value:
        assert refused.value.code == 404
    assert not any(b"forged-0" in v for v in _task_config_records(target_kafka, a))
    assert second.stop() == 0, second.output()[-3000:]
    assert first.stop() == 0, first.output()[-3000:]
