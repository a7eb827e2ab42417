"""Broker failures in a 3-node Apache Kafka cluster under a running pipeline (``pytest -m chaos``).

The session's 3-node cluster (``kc_kafka_cluster``: replication factor 3,
``min.insync.replicas=2``) carries a ``kconnect distributed`` worker running FileStream
source → topic → FileStream sink while the test appends lines to the source file. The
worker's internal topics (configs, offsets, statuses) have three replicas too.

- A node is killed (kill -9): the one whose loss hurts most, the controller quorum's
  leader, made to lead the pipeline's topic and every partition of the worker's internal
  topics and to coordinate both the worker group and the sink's consumer group. The
  pipeline carries on on two nodes, a connector created meanwhile runs, and once the node
  is started again with its data the cluster is whole again.
- The pipeline topic's leader is restarted (SIGTERM, started again with its data), as an
  operator restarting a broker does; here the worker creates its topics itself.

Nothing is lost; repeats are counted in the crash table. Each test starts again any node
it took down, so later tests find three.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.modes import free_port
from kconnect_testkit import KafkaCluster
from runtime_harness import (
    CrashRow,
    LineAppender,
    distributed_props,
    end_process,
    every_line,
    file_sink,
    file_source,
    line_count,
    report_crash,
    rest_ready,
    start_kconnect,
    wait_for,
    write_props,
)

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(360)]

OFFSET_PARTITIONS, STATUS_PARTITIONS = 25, 5  # Kafka Connect's defaults

# -- the cluster, seen from outside ------------------------------------------------------


def _client_config(cluster: KafkaCluster) -> dict[str, Any]:
    # Only the running nodes: a client given a dead node's address retries it for good.
    return {
        "bootstrap.servers": ",".join(node.address for node in cluster.running()),
        "logger": logging.getLogger("kconnect.test.admin"),
    }


def _admin(cluster: KafkaCluster) -> AdminClient:
    return AdminClient(_client_config(cluster))


def _java_hash(text: str) -> int:
    """Java's ``String.hashCode`` (of an ASCII string)."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _coordinator(cluster: KafkaCluster, group: str) -> int:
    """The node coordinating ``group``: the leader of its ``__consumer_offsets`` partition
    (Kafka's ``abs(group.hashCode()) % partitions``)."""
    admin = _admin(cluster)
    deadline = time.monotonic() + 60
    while True:
        found = admin.list_topics("__consumer_offsets", timeout=10).topics["__consumer_offsets"]
        if found.error is None and found.partitions:
            break
        assert time.monotonic() < deadline, f"no __consumer_offsets topic: {found.error}"
        # The broker makes the topic on the first coordinator lookup of a fresh cluster.
        probe = Consumer({**_client_config(cluster), "group.id": group})
        with contextlib.suppress(KafkaException):  # the coordinator is not there yet
            probe.committed([TopicPartition("__consumer_offsets", 0)], timeout=10)
        probe.close()
        time.sleep(0.5)
    h = _java_hash(group)
    index = (0 if h == -(1 << 31) else abs(h)) % len(found.partitions)
    return int(found.partitions[index].leader)


def _name_coordinated_by(cluster: KafkaCluster, node: int, prefix: str, group: str = "{}") -> str:
    """A fresh name whose consumer group (``group`` formatted with it) ``node`` coordinates."""
    while True:
        name = f"{prefix}-{uuid.uuid4().hex[:6]}"
        if _coordinator(cluster, group.format(name)) == node:
            return name


def _active_controller(cluster: KafkaCluster) -> int:
    """The KRaft quorum's leader, as the nodes last wrote it in their quorum state."""
    best = (-1, -1)
    for node in cluster.running():
        state = json.loads((node.data / "__cluster_metadata-0" / "quorum-state").read_text())
        best = max(best, (int(state["leaderEpoch"]), int(state["leaderId"])))
    assert best[1] > 0, "no node names the controller quorum's leader"
    return best[1]


def _create_topic(
    cluster: KafkaCluster, topic: str, partitions: int, leader: int, *, compact: bool = False
) -> None:
    """``topic`` with three replicas, ``leader`` first (the preferred, so the first, leader)."""
    others = [n.node_id for n in cluster.nodes if n.node_id != leader]
    assignment = [[leader, *(others if p % 2 else reversed(others))] for p in range(partitions)]
    config = {"cleanup.policy": "compact"} if compact else {}
    new = NewTopic(topic, partitions, replica_assignment=assignment, config=config)
    admin = _admin(cluster)  # held until the answer: a client dropped cancels its requests
    admin.create_topics([new], operation_timeout=30)[topic].result(timeout=60)
    wait_for(lambda: _leaders(cluster, topic) == {leader}, 30, f"{topic} led by node {leader}")


def _leaders(cluster: KafkaCluster, topic: str) -> set[int]:
    found = _admin(cluster).list_topics(topic, timeout=10).topics.get(topic)
    if found is None or found.error is not None:
        return set()
    return {int(p.leader) for p in found.partitions.values()}


def _out_of_sync(cluster: KafkaCluster, topics: list[str]) -> list[str]:
    """``topic-partition`` of every partition of ``topics`` short of three in-sync replicas."""
    meta = _admin(cluster).list_topics(timeout=10)
    short = []
    for topic in topics:
        found = meta.topics.get(topic)
        if found is None:
            short.append(f"{topic} (missing)")
            continue
        short += [f"{topic}-{p.id}" for p in found.partitions.values() if len(p.isrs) < 3]
    return short


def _wait_whole(cluster: KafkaCluster, topics: list[str], timeout: float = 90) -> None:
    """Wait until every node is a broker again and each partition of ``topics`` has three
    in-sync replicas."""
    deadline = time.monotonic() + timeout
    while True:
        brokers = sorted(_admin(cluster).list_topics(timeout=10).brokers)
        short = _out_of_sync(cluster, topics)
        if len(brokers) == len(cluster.nodes) and not short:
            return
        assert time.monotonic() < deadline, (
            f"the cluster is not whole after {timeout:.0f} s: brokers {brokers}, "
            f"partitions short of three in-sync replicas: {short}"
        )
        time.sleep(0.5)


# -- the pipeline ------------------------------------------------------------------------


@dataclass
class _Pipeline:
    """A ``kconnect distributed`` worker running FileStream source → ``topic`` → FileStream
    sinks, while lines are appended to the source file."""

    cluster: KafkaCluster
    tmp: Path
    group: str
    topic: str
    sinks: list[str]
    port: int = field(default_factory=free_port)
    proc: Any = None
    # What REST said meanwhile: every state of each connector and its tasks, and every
    # answer other than 200.
    states_seen: dict[str, set[str]] = field(default_factory=dict)
    rest_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.source = self.tmp / "in.txt"
        self.appender = LineAppender(self.source)
        self.log = self.tmp / "worker.log"
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def internal_topics(self) -> list[str]:
        return [f"{self.group}-{name}" for name in ("configs", "offsets", "status")]

    def sink_file(self, name: str) -> Path:
        return self.tmp / f"{name}.txt"

    def start(self) -> None:
        props = distributed_props(
            self.cluster.bootstrap_servers,
            self.group,
            self.port,
            **{
                "config.storage.replication.factor": "3",
                "offset.storage.replication.factor": "3",
                "status.storage.replication.factor": "3",
                "offset.flush.interval.ms": "500",  # the offsets topic is written all the time
            },
        )
        worker = write_props(self.tmp / "worker.properties", props)
        self.proc = start_kconnect(["distributed", str(worker)], self.tmp, self.log)
        wait_for(lambda: rest_ready(f"{self.url}/connectors"), 90, f"the REST API ({self.log})")
        self.put(
            file_source(
                "src",
                self.source,
                self.topic,
                **{"topic.creation.default.replication.factor": "3"},
            )
        )
        for name in self.sinks:
            self.put(file_sink(name, self.sink_file(name), self.topic))
        self.appender.begin()

    def put(self, config: dict[str, str]) -> None:
        name = config.pop("name")
        response = httpx.put(f"{self.url}/connectors/{name}/config", json=config, timeout=90)
        assert response.status_code in (200, 201), response.text

    def grows(self, by: int = 500) -> Callable[[], bool]:
        """A condition: every sink file has more than ``by`` lines more than now."""
        start = {name: line_count(self.sink_file(name)) for name in self.sinks}
        return lambda: all(line_count(self.sink_file(n)) > start[n] + by for n in self.sinks)

    def states(self) -> dict[str, list[str]]:
        """Each connector's state, then its tasks' (as REST says; noted in ``states_seen``)."""
        try:
            response = httpx.get(f"{self.url}/connectors", params={"expand": "status"}, timeout=10)
        except httpx.HTTPError as exc:
            self.rest_errors.append(type(exc).__name__)
            return {}
        if response.status_code != 200:
            self.rest_errors.append(f"HTTP {response.status_code}: {response.text[:300]}")
            return {}
        body = response.json()
        states = {
            name: [entry["status"]["connector"]["state"]]
            + [t["state"] for t in entry["status"]["tasks"]]
            for name, entry in body.items()
        }
        for name, seen in states.items():
            self.states_seen.setdefault(name, set()).update(seen)
        return states

    def all_running(self) -> bool:
        states = self.states()
        names = ["src", *self.sinks]
        return all(len(states.get(n, [])) >= 2 and set(states[n]) == {"RUNNING"} for n in names)

    def steady(self) -> None:
        """Wait until lines flow and every connector and task is RUNNING; what REST showed
        until then (connectors starting) is forgotten."""
        self.watch(self.grows(), 90, f"lines in the sink ({self.log})")
        self.watch(self.all_running, 60, "the connectors RUNNING")
        self.states_seen.clear()

    def watch(self, until: Callable[[], bool], timeout: float, what: str) -> None:
        """Wait for ``until``, asking for the connectors' states meanwhile."""
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
            self.states()
            time.sleep(0.5)

    def finish(self) -> int:
        """Stop appending; wait until every sink file holds every line; the line count."""
        written = self.appender.stop()
        for name in self.sinks:
            path = self.sink_file(name)
            wait_for(partial(every_line, path, written), 120, f"every line in {path} ({self.log})")
        return written

    def stop(self) -> int:
        self.appender.stop()
        if self.proc is None or self.proc.poll() is not None:
            return -1 if self.proc is None else int(self.proc.returncode)
        return end_process(self.proc, signal.SIGTERM)

    def rest_seen(self) -> str:
        """What REST showed meanwhile, for the crash table."""
        states = self.not_running() or "only RUNNING"
        return f"REST showed {states}, errors {sorted(set(self.rest_errors)) or 'none'}"

    def not_running(self) -> dict[str, list[str]]:
        """The states other than RUNNING REST showed for each connector (or its tasks)."""
        seen = {name: sorted(states - {"RUNNING"}) for name, states in self.states_seen.items()}
        return {name: states for name, states in seen.items() if states}

    def stopped_everything(self) -> str:
        """Whether the worker stopped all it ran on losing its group, as its log says."""
        text = self.log.read_text(errors="replace")
        told = [
            words
            for words, said in (
                ("its group lease lapsed", "group lease lapsed"),
                ("its group session expired", "session expired"),
                ("a task abandoned", "abandoning it"),
            )
            if said in text
        ]
        return "the worker stopped all it ran: " + ", ".join(told) if told else "no task stopped"

    def stack_traces(self) -> list[str]:
        """The message and the exception of each stack trace the worker logged."""
        lines = self.log.read_text(errors="replace").splitlines()
        found = []
        for i, line in enumerate(lines):
            if line.startswith("Traceback"):
                raised = next((x for x in lines[i + 1 :] if x and not x[0].isspace()), "?")
                found.append(f"{lines[i - 1] if i else ''} -> {raised}")
        return found

    def check_noticed(self) -> None:
        """What an operator watching the worker notices: no answer of REST that says it
        failed unexpectedly, and no stack trace in the log."""
        unexpected = [e for e in self.rest_errors if "Internal error" in e]
        assert not unexpected, f"REST failed unexpectedly: {unexpected} ({self.log})"
        traces = self.stack_traces()
        assert not traces, f"the worker logged {len(traces)} stack traces: {traces} ({self.log})"

    def counts(self, name: str, written: int) -> tuple[int, int]:
        """(lost, duplicated) lines of sink ``name``."""
        got = Counter(self.sink_file(name).read_text(encoding="utf-8").splitlines())
        lost = sum(1 for i in range(written) if f"line {i}" not in got)
        return lost, sum(got.values()) - len(got)


@pytest.fixture
def cluster(kc_kafka_cluster: KafkaCluster) -> Iterator[KafkaCluster]:
    """The session's 3-node cluster, every node started again (with its data) afterwards."""
    yield kc_kafka_cluster
    for node in kc_kafka_cluster.nodes:
        if node not in kc_kafka_cluster.running():
            kc_kafka_cluster.start_node(node.node_id)


# -- the tests ---------------------------------------------------------------------------


def test_killed_partition_leader_loses_nothing_and_the_cluster_heals(
    cluster: KafkaCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    started = time.monotonic()
    victim = _active_controller(cluster)
    group = _name_coordinated_by(cluster, victim, "kc-fail")
    sink = _name_coordinated_by(cluster, victim, "sink", "connect-{}")
    pipeline = _Pipeline(cluster, tmp_path, group, f"{group}-data", [sink])
    # Made before the worker starts, led by the victim: the worker uses topics that exist.
    _create_topic(cluster, pipeline.topic, 1, victim)
    for topic, partitions in zip(
        pipeline.internal_topics, (1, OFFSET_PARTITIONS, STATUS_PARTITIONS), strict=True
    ):
        _create_topic(cluster, topic, partitions, victim, compact=True)
    audit = "audit"
    try:
        pipeline.start()
        pipeline.steady()
        # What the test is about: the one node leads and coordinates it all (the quorum
        # may have elected another controller meanwhile: told in the crash table).
        assert _coordinator(cluster, group) == victim
        assert _coordinator(cluster, f"connect-{sink}") == victim
        assert _leaders(cluster, pipeline.topic) == {victim}
        controller = _active_controller(cluster) == victim

        cluster.kill_node(victim)
        killed = time.monotonic()
        pipeline.watch(pipeline.grows(), 90, f"lines in the sink after the kill ({pipeline.log})")
        flowing_after = time.monotonic() - killed
        # Metadata from a surviving node can name the dead leader for a moment after
        # records flow again through the new one.
        wait_for(
            lambda: victim not in _leaders(cluster, pipeline.topic), 30, "another leader's metadata"
        )
        pipeline.watch(pipeline.all_running, 60, "the connectors RUNNING after the kill")

        # Two nodes of three still take writes (min.insync.replicas=2): a connector made
        # now is stored, assigned and run.
        pipeline.sinks.append(audit)
        pipeline.put(file_sink(audit, pipeline.sink_file(audit), pipeline.topic))
        pipeline.watch(pipeline.all_running, 60, "the connector created on two nodes RUNNING")
        pipeline.states_seen.pop(audit)  # its start, not the outage
        pipeline.watch(pipeline.grows(), 60, f"lines in both sinks ({pipeline.log})")

        cluster.start_node(victim)
        topics = [pipeline.topic, *pipeline.internal_topics]
        _wait_whole(cluster, topics)
        written = pipeline.finish()
        assert pipeline.all_running(), pipeline.states()
        assert pipeline.stop() == 0, pipeline.log.read_text()[-3000:]
    finally:
        pipeline.stop()
    lost, duplicated = pipeline.counts(sink, written)
    audit_lost, audit_duplicated = pipeline.counts(audit, written)
    report_crash(
        request.config,
        CrashRow(
            "FileStreamSource → FileStreamSink",
            "at-least-once, partition leader kill -9",
            1,
            0,
            "n/a",
            lost,
            duplicated,
            f"{written} lines; distributed worker on 3 nodes (RF 3, min ISR 2); the killed "
            "node led the topic and every partition of configs/offsets/status, coordinated "
            "the worker group and the sink's group, and "
            f"{'led' if controller else 'no longer led'} the KRaft quorum; lines flowed "
            f"again {flowing_after:.0f} s after the kill; {pipeline.stopped_everything()}; "
            f"{pipeline.rest_seen()}; a sink created while the node was down: "
            f"{audit_lost} lost, {audit_duplicated} repeated; {time.monotonic() - started:.0f} s",
        ),
    )
    assert lost == 0 and audit_lost == 0
    pipeline.check_noticed()


def test_restarted_partition_leader_loses_nothing(
    cluster: KafkaCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    started = time.monotonic()
    group = f"kc-restart-{uuid.uuid4().hex[:6]}"
    # The worker creates its internal topics and the source its topic (three replicas each).
    pipeline = _Pipeline(cluster, tmp_path, group, f"{group}-data", ["sink"])
    try:
        pipeline.start()
        pipeline.steady()
        topics = [pipeline.topic, *pipeline.internal_topics]
        assert not _out_of_sync(cluster, topics), "the worker's topics lack replicas"
        (leader,) = _leaders(cluster, pipeline.topic)
        led = {
            "worker group": _coordinator(cluster, group) == leader,
            "sink's group": _coordinator(cluster, "connect-sink") == leader,
            "config topic": _leaders(cluster, pipeline.internal_topics[0]) == {leader},
        }
        down = time.monotonic()
        cluster.stop_node(leader)
        pipeline.watch(pipeline.grows(), 90, f"lines in the sink, a node down ({pipeline.log})")
        assert leader not in _leaders(cluster, pipeline.topic)
        cluster.start_node(leader)
        _wait_whole(cluster, topics)
        back = time.monotonic() - down
        pipeline.watch(pipeline.grows(), 90, f"lines in the sink ({pipeline.log})")
        written = pipeline.finish()
        assert pipeline.all_running(), pipeline.states()
        assert pipeline.stop() == 0, pipeline.log.read_text()[-3000:]
    finally:
        pipeline.stop()
    lost, duplicated = pipeline.counts("sink", written)
    report_crash(
        request.config,
        CrashRow(
            "FileStreamSource → FileStreamSink",
            "at-least-once, partition leader restart",
            0,
            1,
            "n/a",
            lost,
            duplicated,
            f"{written} lines; distributed worker on 3 nodes (RF 3, min ISR 2); the topic's "
            f"leader (also leading: {[k for k, v in led.items() if v] or 'nothing else'}) "
            f"stopped with SIGTERM and started again with its data, in sync {back:.0f} s "
            f"after the SIGTERM; {pipeline.stopped_everything()}; {pipeline.rest_seen()}; "
            f"{time.monotonic() - started:.0f} s",
        ),
    )
    assert lost == 0
    pipeline.check_noticed()
