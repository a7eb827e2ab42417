"""Distributed mode with several workers: one group, shared connectors, failover, fencing.

Workers run as real ``kconnect distributed`` processes against the test broker; the group
uses short timeouts (a group's first join on Tansu takes about half of session.timeout.ms).
"""

from __future__ import annotations

import collections
import json
import math
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kconnect_runtime.herder._assignment import plan_assignment
from kconnect_runtime.herder._membership import GroupMembership, live_members
from kconnect_runtime.modes import free_port
from kconnect_runtime.storage import KafkaLog, LogTail
from runtime_harness import (
    SESSION_TIMEOUT,
    file_sink,
    file_source,
    kconnect,
    wait_for,
    write_props,
)

SESSION_MS = int(SESSION_TIMEOUT)
PARTITIONS = 3


# -- the leader's plan (pure) ---------------------------------------------------------------
def test_plan_spreads_keeps_and_holds() -> None:
    weights = {f"c{i}": 4 for i in range(6)}  # a connector and three tasks each
    first = plan_assignment(
        generation=1,
        connectors=weights,
        members=["a", "b", "c"],
        previous={},
        revoking={},
        applied={},
        held_for=[],
    )
    per_worker = collections.Counter(first.assignment.values())
    assert sorted(per_worker.values()) == [2, 2, 2] and not first.revoking

    # "c" departed within the delay: its connectors wait for it, nothing else moves.
    held = plan_assignment(
        generation=2,
        connectors=weights,
        members=["a", "b"],
        previous=first.assignment,
        revoking={},
        applied={},
        held_for=["c"],
    )
    assert held.assignment == first.assignment
    assert set(held.held) == {n for n, w in first.assignment.items() if w == "c"}

    # The delay passed: they go to the others; what ran on "a" and "b" stays there.
    moved = plan_assignment(
        generation=3,
        connectors=weights,
        members=["a", "b"],
        previous=first.assignment,
        revoking={},
        applied={},
        held_for=[],
    )
    assert all(moved.assignment[n] == w for n, w in first.assignment.items() if w != "c")
    assert sorted(collections.Counter(moved.assignment.values()).values()) == [3, 3]

    # A new worker: connectors are revoked first, and given to it only once revoked.
    joined = plan_assignment(
        generation=4,
        connectors=weights,
        members=["a", "b", "d"],
        previous=moved.assignment,
        revoking={},
        applied={},
        held_for=[],
    )
    assert len(joined.revoking) == 2 and "d" not in joined.assignment.values()
    stopping = plan_assignment(
        generation=5,
        connectors=weights,
        members=["a", "b", "d"],
        previous=joined.assignment,
        revoking=joined.revoking,
        applied={"a": 3, "b": 3},
        held_for=[],
    )
    assert stopping.revoking == joined.revoking  # not acknowledged yet: still unassigned
    done = plan_assignment(
        generation=6,
        connectors=weights,
        members=["a", "b", "d"],
        previous=stopping.assignment,
        revoking=stopping.revoking,
        applied={"a": 5, "b": 5},
        held_for=[],
    )
    assert sorted(collections.Counter(done.assignment.values()).values()) == [2, 2, 2]


def test_live_members_ignore_stale_announcements() -> None:
    slots = 4
    before = [("a", {"partitions": [0, 2]}), ("b", {"partitions": [1, 3]})]
    assert set(live_members(before, slots) or {}) == {"a", "b"}
    # "c" joined: until every member announced the new generation, it is incomplete.
    partial = [*before, ("a", {"partitions": [0, 3]})]
    assert live_members(partial, slots) is None
    after = [*partial, ("c", {"partitions": [2]}), ("b", {"partitions": [1]})]
    assert set(live_members(after, slots) or {}) == {"a", "b", "c"}
    # "b" died: its last announcement overlaps the newer ones and no longer counts.
    died = [*after, ("a", {"partitions": [0, 2]}), ("c", {"partitions": [1, 3]})]
    assert set(live_members(died, slots) or {}) == {"a", "c"}


@pytest.mark.integration
def test_the_longest_standing_member_keeps_leading_when_a_worker_joins(kafka: str) -> None:
    # Leadership must not move to a newcomer whose worker id happens to sort first: a new
    # leader re-reads the config topic and rebalances everything once more.
    topic = f"kc-members-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(topic, 4, 1)]).values():
        future.result(30)
    group = f"kc-lead-{uuid.uuid4().hex[:8]}"

    def member(worker_id: str) -> GroupMembership:
        return GroupMembership(
            {"bootstrap.servers": kafka},
            group_id=group,
            topic=topic,
            worker_id=worker_id,
            session_timeout_ms=SESSION_MS,
            heartbeat_interval_ms=1000,
            rebalance_timeout_ms=SESSION_MS,
            on_assigned=lambda partitions: None,
            on_lost=lambda: None,
        )

    first, second = member("zz-first"), member("aa-second")
    try:
        first.start()
        wait_for(lambda: first.is_leader, 60, "the first member to lead")
        second.start()
        wait_for(lambda: second.partitions and first.partitions, 60, "both members assigned")
        assert first.is_leader and not second.is_leader, (first.partitions, second.partitions)
        assert sorted(first.partitions + second.partitions) == [0, 1, 2, 3]
    finally:
        second.close()
        first.close()


def _internal_log(kafka: str, topic: str, partitions: int, key_name: str) -> KafkaLog:
    """A worker's internal topic, created."""
    log = KafkaLog(
        {"bootstrap.servers": kafka},
        topic,
        partitions=partitions,
        replication_factor=1,
        key_name=key_name,
    )
    log.ensure_topic()
    return log


@pytest.mark.integration
def test_an_internal_topic_that_disappeared_is_created_again(kafka: str) -> None:
    topic = f"kc-lost-{uuid.uuid4().hex[:8]}-status"
    status_log = _internal_log(kafka, topic, 2, "status.storage.topic")
    status_log.send(b"status-connector-x", b'{"state":"RUNNING"}')
    status_log.flush()
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.delete_topics([topic]).values():
        future.result(30)
    wait_for(lambda: topic not in admin.list_topics(timeout=10).topics, 30, "the topic to go")
    # A worker reading it to its end (as every worker follows its topics) creates it again,
    # compacted with its partitions, instead of failing from then on.
    tail = LogTail(status_log)
    try:
        assert tail.read(10) == []
        metadata = admin.list_topics(timeout=10).topics
        assert topic in metadata and len(metadata[topic].partitions) == 2
        status_log.send(b"status-connector-x", b'{"state":"PAUSED"}')
        status_log.flush()
        assert [r[2:] for r in tail.read(10)] == [(b"status-connector-x", b'{"state":"PAUSED"}')]
    finally:
        tail.close()
        status_log.close()


@pytest.mark.integration
def test_an_open_transaction_is_not_taken_for_a_topic_created_again(kafka: str) -> None:
    """A transaction left open (a worker killed inside one) holds the partition's last
    stable offset back, below what a follower has read already (Tansu answers 0 then).
    Reading on must not take the topic for one created again and read it all from the
    start once more."""
    from confluent_kafka import Producer

    topic = f"kc-open-{uuid.uuid4().hex[:8]}-offsets"
    offsets_log = _internal_log(kafka, topic, 1, "offset.storage.topic")
    offsets_log.send(b'["c",{"f":1}]', b'{"position":10}')
    offsets_log.flush()
    tail = LogTail(offsets_log)
    producer = Producer(
        {"bootstrap.servers": kafka, "transactional.id": f"open-{uuid.uuid4().hex[:8]}"}
    )
    try:
        assert [r[3] for r in tail.read(10)] == [b'{"position":10}']
        producer.init_transactions(30)
        producer.begin_transaction()
        producer.produce(topic, key=b'["c",{"f":1}]', value=b'{"position":20}')
        assert producer.flush(30) == 0
        assert b'{"position":10}' not in [r[3] for r in tail.read(10)], (
            "the topic was read from its start again"
        )
        producer.commit_transaction(30)
        # Kafka answers the commit before its markers are in the partition: the last
        # stable offset moves past the record a moment later.
        seen: list[bytes | None] = []
        deadline = time.monotonic() + 10
        while not seen and time.monotonic() < deadline:
            seen = [r[3] for r in tail.read(10)]
            time.sleep(0.05)
        assert seen == [b'{"position":20}']
    finally:
        tail.close()
        offsets_log.close()


# -- workers as processes ---------------------------------------------------------------------
class Cluster:
    """``kconnect distributed`` workers of one group, each with its own REST port."""

    def __init__(
        self, kafka: str, tmp: Path, *, delay_ms: int, extra: dict[str, str] | None = None
    ) -> None:
        self.extra = dict(extra or {})
        self.kafka = kafka
        self.tmp = tmp
        self.group = f"kc-group-{uuid.uuid4().hex[:8]}"
        self.delay_ms = delay_ms
        self.ports: list[int] = []
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.logs: dict[int, list[str]] = collections.defaultdict(list)
        self.pumps: dict[int, threading.Thread] = {}
        self.auth: tuple[str, str] | None = None  # basic auth credentials of REST calls

    def props(self, port: int) -> dict[str, str]:
        return {
            "bootstrap.servers": self.kafka,
            "group.id": self.group,
            "config.storage.topic": f"{self.group}-configs",
            "offset.storage.topic": f"{self.group}-offsets",
            "status.storage.topic": f"{self.group}-status",
            "config.storage.replication.factor": "1",
            "offset.storage.replication.factor": "1",
            "status.storage.replication.factor": "1",
            "offset.storage.partitions": "3",
            "status.storage.partitions": "3",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "offset.flush.interval.ms": "500",
            "consumer.session.timeout.ms": SESSION_TIMEOUT,
            "session.timeout.ms": SESSION_TIMEOUT,
            "heartbeat.interval.ms": "1000",
            "rebalance.timeout.ms": "15000",
            "scheduled.rebalance.max.delay.ms": str(self.delay_ms),
            "listeners": f"http://127.0.0.1:{port}",
            **self.extra,
        }

    def start(self, port: int | None = None) -> int:
        port = port or free_port()
        if port not in self.ports:
            self.ports.append(port)
        path = write_props(self.tmp / f"worker-{port}.properties", self.props(port))
        proc = kconnect("distributed", str(path), cwd=self.tmp)
        self.procs[port] = proc
        lines = self.logs[port]

        def pump() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                lines.append(raw.decode(errors="replace"))

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        self.pumps[port] = thread
        return port

    def _reap(self, port: int, proc: subprocess.Popen[bytes]) -> None:
        self.pumps.pop(port).join(10)  # the pipe is at its end: the process has exited
        assert proc.stdout is not None
        proc.stdout.close()

    def api(self, port: int) -> httpx.Client:
        return httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60, auth=self.auth)

    def up(self, port: int) -> bool:
        try:
            with self.api(port) as api:
                return api.get("/health").status_code == 200
        except httpx.TransportError:
            return False

    def kill(self, port: int, sig: int = signal.SIGKILL) -> None:
        proc = self.procs.pop(port)
        proc.send_signal(sig)
        proc.wait(30)
        self._reap(port, proc)

    def stop_all(self) -> str:
        for proc in list(self.procs.values()):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.send_signal(signal.SIGTERM)
        for port, proc in self.procs.items():
            try:
                proc.wait(40)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
            self._reap(port, proc)
        self.procs.clear()
        return "".join(line for lines in self.logs.values() for line in lines)

    def owners(self, port: int) -> dict[str, dict[int, str]]:
        """connector -> task -> worker_id, as the worker on ``port`` reports it."""
        with self.api(port) as api:
            body = api.get("/connectors", params={"expand": "status"}).json()
        return {
            name: {t["id"]: t["worker_id"] for t in entry["status"]["tasks"]}
            for name, entry in body.items()
        }

    def running(self, port: int) -> dict[str, dict[int, str]]:
        with self.api(port) as api:
            body = api.get("/connectors", params={"expand": "status"}).json()
        return {
            name: {
                t["id"]: t["worker_id"] for t in entry["status"]["tasks"] if t["state"] == "RUNNING"
            }
            for name, entry in body.items()
        }


@pytest.fixture
def cluster(kafka: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    c = Cluster(kafka, tmp_path, delay_ms=getattr(request, "param", 3000))
    try:
        yield c
    finally:
        output = c.stop_all()
        (tmp_path / "workers.log").write_text(output)
    assert "Traceback" not in output, output[-4000:]


def _create_topics(kafka: str, topics: list[str]) -> None:
    admin = AdminClient({"bootstrap.servers": kafka})
    futures = admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in topics])
    for future in futures.values():
        future.result(30)


class Feeder:
    """Produces numbered lines to topics until stopped; remembers what it sent."""

    def __init__(self, kafka: str, topics: list[str]) -> None:
        self.producer = Producer({"bootstrap.servers": kafka, "linger.ms": 5})
        self.topics = topics
        self.sent: dict[str, list[str]] = {t: [] for t in topics}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def send(self, count: int) -> None:
        for topic in self.topics:
            base = len(self.sent[topic])
            for i in range(base, base + count):
                line = f"{topic}:{i}"
                self.producer.produce(topic, value=line.encode(), partition=i % PARTITIONS)
                self.sent[topic].append(line)
        self.producer.flush(30)

    def start(self, per_tick: int = 20, tick_s: float = 0.1) -> None:
        def run() -> None:
            while not self._stop.wait(tick_s):
                self.send(per_tick)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except FileNotFoundError:
        return []


def _all_written(paths: dict[str, Path], feeder: Feeder) -> bool:
    return all(set(feeder.sent[t]) <= set(_lines(paths[t])) for t in feeder.topics)


@pytest.mark.integration
def test_three_workers_share_connectors_fail_over_and_take_back(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    ports = [cluster.start() for _ in range(3)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "three workers")
    topics = [f"grp-{uuid.uuid4().hex[:6]}-{i}" for i in range(6)]
    _create_topics(kafka, topics)
    outputs = {t: tmp_path / f"out-{i}.txt" for i, t in enumerate(topics)}
    names = [f"sink-{i}" for i in range(6)]
    a, b, c = ports
    # Every connector is created through worker A...
    with cluster.api(a) as api:
        for name, topic in zip(names, topics, strict=True):
            config = file_sink(name, outputs[topic], topic, **{"tasks.max": "3"})
            response = api.post("/connectors", json={"name": name, "config": config})
            assert response.status_code == 201, response.text
    # ...and is visible through B and C at once (they follow the config topic).
    for port in (b, c):
        with cluster.api(port) as api:
            assert api.get("/connectors").json() == sorted(names)
            assert api.get(f"/connectors/{names[0]}/config").json()["topics"] == topics[0]

    # Every task runs on exactly one worker, spread evenly; every worker says the same.
    def all_running() -> bool:
        running = cluster.running(b)
        return len(running) == 6 and all(len(t) == 3 for t in running.values())

    wait_for(all_running, 90, "18 tasks RUNNING")
    views = [cluster.owners(p) for p in ports]
    assert views[0] == views[1] == views[2]
    per_worker = collections.Counter(w for tasks in views[0].values() for w in tasks.values())
    assert set(per_worker) == {f"127.0.0.1:{p}" for p in ports}
    assert max(per_worker.values()) <= math.ceil(18 / 3) + 1, per_worker
    # Tasks are assigned on their own (as Kafka): 6 per worker, a connector's tasks spread.
    assert sorted(per_worker.values()) == [6, 6, 6], per_worker
    assert all(len(set(tasks.values())) >= 2 for tasks in views[0].values()), views[0]

    feeder = Feeder(kafka, topics)
    feeder.send(200)
    wait_for(lambda: _all_written(outputs, feeder), 90, "the first lines in every sink file")
    for topic in topics:
        lines = _lines(outputs[topic])
        assert len(lines) == len(set(lines)) == 200, topic  # no duplicate line

    # kill -9 of worker C while data flows: its tasks restart on A and B.
    feeder.start()
    victim = f"127.0.0.1:{c}"
    moved = sorted(n for n, tasks in views[0].items() if victim in tasks.values())
    assert moved
    sizes = {n: len(_lines(outputs[topics[names.index(n)]])) for n in moved}
    killed_at = time.monotonic()
    cluster.kill(c)

    def moved_and_flowing() -> bool:
        running = cluster.running(a)
        if not all(
            len(running.get(n, {})) == 3 and victim not in running[n].values() for n in moved
        ):
            return False
        return all(len(_lines(outputs[topics[names.index(n)]])) > sizes[n] for n in moved)

    bound = (SESSION_MS + cluster.delay_ms) / 1000 + 25
    wait_for(moved_and_flowing, bound, "the killed worker's tasks running elsewhere")
    failover_s = time.monotonic() - killed_at
    feeder.stop()
    wait_for(lambda: _all_written(outputs, feeder), 90, "every line after the failover")
    duplicates = {t: len(_lines(outputs[t])) - len(set(_lines(outputs[t]))) for t in topics}
    lost = {t: len(set(feeder.sent[t]) - set(_lines(outputs[t]))) for t in topics}
    assert not any(lost.values()), lost
    # At least once: only the moved connectors may repeat what C had not committed (offsets
    # are committed every offset.flush.interval.ms=500), and never more than they received.
    for topic, count in duplicates.items():
        if names[topics.index(topic)] not in moved:
            assert count == 0, (topic, count)
        assert count <= len(feeder.sent[topic]) // 2, (topic, count)
    print(f"failover after kill -9: {failover_s:.1f}s; duplicates per topic: {duplicates}")
    (tmp_path / "figures.json").write_text(
        json.dumps({"failover_s": failover_s, "duplicates": duplicates})
    )

    # C comes back on the same address within the delay... after the others took over,
    # so here it only rejoins; what A and B run stays where it is (incremental).
    before = cluster.owners(a)
    cluster.start(c)
    first: list[str] | None = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not cluster.up(c):
        try:
            with cluster.api(c) as api:
                response = api.get("/connectors")
            if response.status_code == 200:
                first = first or response.json()
                assert response.json() == sorted(names)  # never a partial list
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    assert cluster.up(c)
    assert first is None or first == sorted(names)

    # Balance comes back incrementally: some connectors move to C, none between A and B.
    def rebalanced() -> bool:
        running = cluster.running(a)
        owners = {w for tasks in running.values() for w in tasks.values()}
        return victim in owners and all(len(t) == 3 for t in running.values())

    wait_for(rebalanced, 60, "connectors moving back to the restarted worker")
    after = cluster.owners(a)
    for name in names:
        if victim not in after[name].values():
            assert after[name] == before[name], (name, before[name], after[name])
    per_worker = collections.Counter(w for tasks in after.values() for w in tasks.values())
    assert max(per_worker.values()) <= math.ceil(18 / 3) + 1, per_worker


@pytest.mark.integration
@pytest.mark.parametrize("cluster", [20000], indirect=True)
def test_worker_restarted_within_the_delay_gets_its_tasks_back(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers")
    a, b = ports
    topics = [f"back-{uuid.uuid4().hex[:6]}-{i}" for i in range(4)]
    _create_topics(kafka, topics)
    with cluster.api(a) as api:
        for i, topic in enumerate(topics):
            config = file_sink(f"s{i}", tmp_path / f"o{i}.txt", topic, **{"tasks.max": "1"})
            assert (
                api.post("/connectors", json={"name": f"s{i}", "config": config}).status_code == 201
            )

    def settled() -> bool:
        running = cluster.running(a)
        return len(running) == 4 and all(len(t) == 1 for t in running.values())

    wait_for(settled, 60, "4 tasks RUNNING")
    before = cluster.owners(a)
    workers = {w for tasks in before.values() for w in tasks.values()}
    assert workers == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}
    mark = len(cluster.logs[a])
    cluster.kill(b, signal.SIGKILL)
    cluster.start(b)  # same address: the same worker id
    wait_for(lambda: cluster.up(b), 60, "the restarted worker")
    wait_for(lambda: cluster.running(a) == before, 60, "the same assignment as before")
    # Nothing moved meanwhile: A started none of B's connectors or tasks and stopped none of
    # its own.
    since = "".join(cluster.logs[a][mark:])
    assert "running connector " not in since and "running task " not in since, since
    assert "moves to another worker" not in since, since


@pytest.mark.integration
@pytest.mark.parametrize("cluster", [1000], indirect=True)
def test_frozen_worker_stops_its_tasks_and_writes_no_stale_status(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers")
    a, b = ports
    topics = [f"frz-{uuid.uuid4().hex[:6]}-{i}" for i in range(2)]
    _create_topics(kafka, topics)
    with cluster.api(a) as api:
        for i, topic in enumerate(topics):
            config = file_sink(f"f{i}", tmp_path / f"f{i}.txt", topic, **{"tasks.max": "1"})
            assert (
                api.post("/connectors", json={"name": f"f{i}", "config": config}).status_code == 201
            )
    wait_for(
        lambda: len(cluster.running(a)) == 2 and all(cluster.running(a).values()), 60, "2 tasks"
    )
    frozen = f"127.0.0.1:{b}"
    on_b = [n for n, t in cluster.owners(a).items() if frozen in t.values()]
    assert on_b
    cluster.procs[b].send_signal(signal.SIGSTOP)
    frozen_at = time.monotonic()
    wait_for(
        lambda: all(cluster.running(a).get(n) == {0: f"127.0.0.1:{a}"} for n in on_b),
        SESSION_MS / 1000 + 30,
        "the frozen worker's tasks running on A",
    )
    taken_over = time.monotonic() - frozen_at
    assert taken_over >= SESSION_MS / 1000 * 0.9  # only once its session expired
    mark = len(cluster.logs[b])
    records = _status_records(kafka, f"{cluster.group}-status")
    seen = {(p, o) for p, o, _ in records}
    # The generation in which A took the frozen worker's tasks over.
    takeover = max(
        v["generation"]
        for _, _, v in records
        if v.get("worker_id") == f"127.0.0.1:{a}" and v["state"] == "RUNNING"
    )
    cluster.procs[b].send_signal(signal.SIGCONT)
    wait_for(
        lambda: any("stopping connectors" in line for line in cluster.logs[b][mark:]),
        20,
        "the resumed worker to stop its tasks",
    )
    time.sleep(3)
    # Nothing stale from the resumed worker: whatever it wrote after the pause belongs to a
    # later generation (it rejoined, and the group may give it work again).
    stale = [
        v
        for p, o, v in _status_records(kafka, f"{cluster.group}-status")
        if (p, o) not in seen and v.get("worker_id") == frozen and v["generation"] <= takeover
    ]
    assert not stale, (takeover, stale)

    # Every task runs on exactly one worker, and both workers say which (once settled).
    def agreed() -> bool:
        views = [cluster.running(port) for port in (a, b)]
        return views[0] == views[1] and all(len(views[0].get(n, {})) == 1 for n in on_b)

    wait_for(agreed, 30, "both workers to agree on where each task runs")


def _status_records(kafka: str, topic: str) -> list[tuple[int, int, dict[str, Any]]]:
    """Every status record: (partition, offset, value)."""
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"peek-{uuid.uuid4().hex}"})
    try:
        parts = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
        found = []
        while messages := consumer.consume(1000, timeout=1):
            found += [
                (m.partition(), m.offset(), json.loads(m.value()))
                for m in messages
                if m.error() is None and m.value()
            ]
        return found
    finally:
        consumer.close()


@pytest.mark.integration
@pytest.mark.parametrize("cluster", [0], indirect=True)
def test_spark_engine_every_worker_drives_the_jobs_of_its_connectors(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    cluster.extra = {"engine": "spark", "spark.master": "local[1]", "spark.ui.enabled": "false"}
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 120, "two spark-engine workers")
    a, b = ports
    topics = [f"spk-{uuid.uuid4().hex[:6]}-{i}" for i in range(2)]
    _create_topics(kafka, topics)
    outputs = {t: tmp_path / f"spark-{i}.txt" for i, t in enumerate(topics)}
    with cluster.api(a) as api:
        for i, topic in enumerate(topics):
            config = file_sink(f"k{i}", outputs[topic], topic, **{"tasks.max": "1"})
            assert (
                api.post("/connectors", json={"name": f"k{i}", "config": config}).status_code == 201
            )
    wait_for(
        lambda: sum(len(t) for t in cluster.running(b).values()) == 2, 120, "both tasks RUNNING"
    )
    owners = {w for tasks in cluster.owners(b).values() for w in tasks.values()}
    assert owners == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}  # one connector per worker
    feeder = Feeder(kafka, topics)
    feeder.send(100)
    wait_for(lambda: _all_written(outputs, feeder), 120, "every line through both drivers")
    for topic in topics:
        lines = _lines(outputs[topic])
        assert len(lines) == len(set(lines)) == 100
    # Each worker is the Spark driver of its own connector's task, and of no other.
    owners_now = cluster.owners(a)
    for port in ports:
        log = "".join(cluster.logs[port])
        for name, tasks in owners_now.items():
            runs_here = tasks[0] == f"127.0.0.1:{port}"
            assert (f"task {name}-0 runs on Spark" in log) == runs_here, (port, name)


# -- tasks assigned on their own, forwarding under basic auth, connect.protocol --------------
def _spread_connector(cluster: Cluster, port: int, name: str, topic: str, out: Path) -> None:
    config = file_sink(name, out, topic, **{"tasks.max": "3"})
    with cluster.api(port) as api:
        response = api.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text


def _task_starts(cluster: Cluster, port: int, task: str, since: int = 0) -> int:
    return sum(f"running task {task} here" in line for line in cluster.logs[port][since:])


def _task_stops(cluster: Cluster, port: int, task: str, since: int = 0) -> int:
    lines = cluster.logs[port][since:]
    return sum(f"task {task} moves to another worker" in line for line in lines)


@pytest.mark.integration
@pytest.mark.parametrize("guard", ["rest.basic.auth.user.file", "BasicAuthSecurityRestExtension"])
@pytest.mark.parametrize("cluster", [0], indirect=True)
def test_forwarded_requests_carry_the_callers_basic_auth_credentials(
    cluster: Cluster, kafka: str, tmp_path: Path, guard: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = tmp_path / "users.properties"
    if guard == "rest.basic.auth.user.file":
        users.write_text("admin: s3cret-pass\n")
        cluster.extra = {"rest.basic.auth.user.file": str(users)}
    else:  # Kafka's extension, its JAAS file from KAFKA_OPTS as Kafka's workers read it
        users.write_text("admin=s3cret-pass\n")
        jaas = tmp_path / "connect-jas.conf"
        module = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
        jaas.write_text(f'KafkaConnect {{\n  {module} required\n  file="{users}";\n}};\n')
        monkeypatch.setenv("KAFKA_OPTS", f"-Djava.security.auth.login.config={jaas}")
        cluster.extra = {
            "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension."
            "BasicAuthSecurityRestExtension"
        }
    cluster.auth = ("admin", "s3cret-pass")
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers with basic auth")
    a, b = ports
    topic = f"auth-{uuid.uuid4().hex[:6]}"
    _create_topics(kafka, [topic])
    # A name with '/' travels percent-encoded, also when one worker forwards it to another.
    name, path = "team/guarded", "/connectors/team%2Fguarded"
    _spread_connector(cluster, a, name, topic, tmp_path / "guarded.txt")
    wait_for(lambda: len(cluster.running(b).get(name, {})) == 3, 60, "3 tasks RUNNING")
    owners = cluster.owners(a)[name]
    assert set(owners.values()) == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}  # tasks on both
    # Every task restarted through both workers: one of the two forwards each request to
    # the task's worker, with the caller's credentials (else that worker answers 401).
    for port in ports:
        with cluster.api(port) as api:
            for task in owners:
                response = api.post(f"{path}/tasks/{task}/restart")
                assert response.status_code == 204, (port, task, response.text)
            response = api.post(f"{path}/restart", params={"includeTasks": "true"})
            assert response.status_code == 202, (port, response.text)
    # Without credentials nothing is forwarded: the first worker refuses.
    with httpx.Client(base_url=f"http://127.0.0.1:{b}", timeout=30) as anonymous:
        assert anonymous.post(f"{path}/tasks/0/restart").status_code == 401
    wait_for(lambda: len(cluster.running(b).get(name, {})) == 3, 60, "3 tasks RUNNING again")
    output = "".join(line for lines in cluster.logs.values() for line in lines)
    # No forwarded request came back refused ("answered by" marks an error relayed from the
    # other worker); a bare "401" search would also match ports, pids and log milliseconds.
    assert "s3cret-pass" not in output and "answered by" not in output


@pytest.mark.integration
@pytest.mark.parametrize("protocol", ["eager", "compatible"])
@pytest.mark.parametrize("cluster", [0], indirect=True)
def test_connect_protocol_eager_stops_everything_compatible_moves_only_what_moves(
    cluster: Cluster, kafka: str, tmp_path: Path, protocol: str
) -> None:
    cluster.extra = {"connect.protocol": protocol}
    a = cluster.start()
    wait_for(lambda: cluster.up(a), 60, "the first worker")
    topics = [f"proto-{uuid.uuid4().hex[:6]}-{i}" for i in range(2)]
    _create_topics(kafka, topics)
    for i, topic in enumerate(topics):
        _spread_connector(cluster, a, f"p{i}", topic, tmp_path / f"p{i}.txt")

    def all_running(port: int) -> bool:
        running = cluster.running(port)
        return len(running) == 2 and all(len(t) == 3 for t in running.values())

    wait_for(lambda: all_running(a), 60, "6 tasks RUNNING on the first worker")
    mark = len(cluster.logs[a])  # what A logs from the moment B starts
    b = cluster.start()
    wait_for(lambda: cluster.up(b), 60, "the second worker")

    def spread() -> bool:
        owners = {w for tasks in cluster.running(a).values() for w in tasks.values()}
        return all_running(a) and owners == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}

    wait_for(spread, 90, "tasks spread over both workers")
    after = cluster.owners(a)
    stayed = [
        f"{n}-{t}" for n, tasks in after.items() for t, w in tasks.items() if w.endswith(f":{a}")
    ]
    moved = [
        f"{n}-{t}" for n, tasks in after.items() for t, w in tasks.items() if w.endswith(f":{b}")
    ]
    assert stayed and moved and len(stayed) + len(moved) == 6
    for task in moved:  # stopped on A, then started on B
        assert _task_stops(cluster, a, task, mark) >= 1, task
        if protocol != "eager":
            assert _task_stops(cluster, a, task, mark) == 1, task
    for task in stayed:
        stops, starts = _task_stops(cluster, a, task, mark), _task_starts(cluster, a, task, mark)
        if protocol == "eager":  # every worker stopped all it ran, then got an assignment
            assert stops >= 1 and starts >= 1, (task, stops, starts)
        else:  # incremental: what stays on A keeps running
            assert stops == 0 and starts == 0, (task, stops, starts)


@pytest.mark.integration
def test_a_cluster_scoped_log_level_reaches_every_worker(cluster: Cluster, kafka: str) -> None:
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers")
    a, b = ports
    name = f"kconnect.cluster.scope.{uuid.uuid4().hex[:6]}"
    with cluster.api(a) as api:
        answer = api.put(
            f"/admin/loggers/{name}", params={"scope": "cluster"}, json={"level": "DEBUG"}
        )
        assert answer.status_code == 204, answer.text
        # An unknown level is refused as Kafka refuses it, and nothing is written.
        bad = api.put(f"/admin/loggers/{name}", params={"scope": "cluster"}, json={"level": "LOUD"})
        assert bad.status_code == 404, bad.text

    def level_on(port: int) -> str | None:
        with cluster.api(port) as api:
            found = api.get(f"/admin/loggers/{name}")
        return found.json().get("level") if found.status_code == 200 else None

    # Kafka writes the level to the config topic and every worker applies what it reads.
    wait_for(lambda: level_on(a) == "DEBUG" and level_on(b) == "DEBUG", 30, "DEBUG on both")
    records = [
        json.loads(value)
        for key, value in _config_records(kafka, f"{cluster.group}-configs")
        if key == f"logger-cluster-{name}".encode()
    ]
    assert records == [{"level": "DEBUG"}]


def _config_records(kafka: str, topic: str) -> list[tuple[bytes | None, bytes]]:
    """The config topic's records that have a value, from its start to its end."""
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"read-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        out: list[tuple[bytes | None, bytes]] = []
        offset = -1
        while offset < high - 1:
            message = consumer.poll(5)
            if message is None:
                break
            if message.error() is None:
                offset = message.offset()
                if message.value() is not None:
                    out.append((message.key(), message.value()))
        return out
    finally:
        consumer.close()


@pytest.mark.integration
def test_active_topics_are_kept_in_the_status_topic_for_every_worker(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers")
    a, b = ports
    topic = f"active-{uuid.uuid4().hex[:6]}"
    _create_topics(kafka, [topic])
    source_file = tmp_path / "in.txt"
    source_file.write_text("one\ntwo\n")
    with cluster.api(a) as api:
        config = file_source("act", source_file, topic)
        assert api.post("/connectors", json={"name": "act", "config": config}).status_code == 201

    def topics_on(port: int) -> list[str]:
        with cluster.api(port) as api:
            body = api.get("/connectors/act/topics").json()
        return list(body["act"]["topics"])

    # Kafka (KIP-558) keeps them in the status topic: each worker answers the same, whichever
    # of them runs the task.
    wait_for(lambda: topics_on(a) == [topic] and topics_on(b) == [topic], 30, "both know it")
    key = f"status-topic-{topic}:connector-act".encode()
    records = [(k, v) for _, k, v in _status_topic(kafka, f"{cluster.group}-status") if k == key]
    assert records, "no active topic record"
    value = json.loads(records[-1][1] or b"null")
    assert set(value) == {"topic"}
    assert {k: value["topic"][k] for k in ("name", "connector", "task")} == {
        "name": topic,
        "connector": "act",
        "task": 0,
    }
    assert isinstance(value["topic"]["discoverTimestamp"], int)

    with cluster.api(b) as api:
        assert api.put("/connectors/act/topics/reset").status_code == 202
    wait_for(lambda: topics_on(a) == [] and topics_on(b) == [], 30, "reset on both")
    after = [v for _, k, v in _status_topic(kafka, f"{cluster.group}-status") if k == key]
    assert after[-1] is None  # a tombstone, as Kafka writes
    # The next record the task writes names its topic again.
    with source_file.open("a") as f:
        f.write("three\n")
    wait_for(lambda: topics_on(a) == [topic] and topics_on(b) == [topic], 30, "named again")


def _status_topic(kafka: str, topic: str) -> list[tuple[int, bytes | None, bytes | None]]:
    consumer = Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": f"read-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        out: list[tuple[int, bytes | None, bytes | None]] = []
        for partition in metadata.partitions:
            _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            if high == 0:
                continue
            consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
            offset = -1
            while offset < high - 1:
                message = consumer.poll(5)
                if message is None:
                    break
                if message.error() is None:
                    offset = message.offset()
                    out.append((message.offset(), message.key(), message.value()))
        return out
    finally:
        consumer.close()


@pytest.mark.integration
@pytest.mark.parametrize("cluster", [0], indirect=True)
def test_every_worker_reports_the_same_status_with_the_plugins_version(
    cluster: Cluster, kafka: str, tmp_path: Path
) -> None:
    """KIP-891: a status carries the version of the connector or task plugin, read from the
    status record by workers it does not run on, so every worker answers alike."""
    ports = [cluster.start() for _ in range(2)]
    wait_for(lambda: all(cluster.up(p) for p in ports), 60, "two workers")
    a, b = ports
    topic = f"versions-{uuid.uuid4().hex[:6]}"
    _create_topics(kafka, [topic])
    name = "versioned"
    _spread_connector(cluster, a, name, topic, tmp_path / "versioned.txt")
    wait_for(lambda: len(cluster.running(b).get(name, {})) == 3, 60, "3 tasks RUNNING")
    assert set(cluster.owners(a)[name].values()) == {f"127.0.0.1:{a}", f"127.0.0.1:{b}"}

    def answers() -> list[dict[str, Any]]:
        bodies = []
        for port in ports:
            with cluster.api(port) as api:
                status = api.get(f"/connectors/{name}/status").json()
                expanded = api.get("/connectors", params={"expand": "status"}).json()
            assert expanded[name]["status"] == status, port
            bodies.append(status)
        return bodies

    with cluster.api(a) as api:
        plugins = api.get("/connector-plugins").json()
    [version] = {p["version"] for p in plugins if p["class"].endswith("FileStreamSinkConnector")}
    wait_for(lambda: answers()[0] == answers()[1], 30, "both workers' answers alike")
    status = answers()[0]
    assert status["connector"]["version"] == version, status
    assert [t["version"] for t in status["tasks"]] == [version] * 3, status
