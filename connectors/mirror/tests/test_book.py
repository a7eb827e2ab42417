"""The book's chapter 6 examples (*Kafka Connect*, Maison and Stanley, 2023: "Running
MirrorMaker", its "Disaster Recovery Example" and "Geo-Replication Example"), run with its files and commands and checked against the output it prints.

Two fresh Kafka clusters play ``east-kafka`` and ``west-kafka``; the connector configs in
``data/book`` are the book's JSON files as printed (its callout marks left out), and only
their bootstrap addresses are replaced. The Kafka commands the book runs
(``kafka-topics.sh``, ``kafka-console-producer.sh``, ``kafka-console-consumer.sh`` with the
MirrorMaker formatters, ``kafka-consumer-groups.sh``) run as Kafka's own tools, and its
``RemoteClusterUtils`` program as Java, so the output compared is the one a reader sees.
The console consumers get ``--max-messages`` so that they end.

Where the output cannot be the printed one, the test says why:

- ``kafka-topics.sh --list`` also lists ``__consumer_offsets``: Kafka's tool lists internal
  topics unless given ``--exclude-internal``, and the Connect worker's group creates it.
- It also lists ``connect-configs.members``: kconnect's distributed workers meet in a
  consumer group subscribed to ``<config.storage.topic>.members`` (docs/distributed.md),
  where Kafka's Java workers use Connect's own group protocol and need no topic for it.
- In the geo-replication example, west-kafka's list also holds the offset syncs topic that
  ``west-to-east-source`` (started before the listing) creates there as it starts, as
  Kafka's connector does; and the heartbeats copied from east-kafka are those of
  ``east-heartbeat``, so they carry its aliases (``sourceClusterAlias=east-kafka``), where
  the book prints them the other way round.
- The book's ``RemoteClusterUtils`` and ``kafka-consumer-groups.sh`` output came from a run
  with other records (twelve, in three partitions) than its own ``a``, ``b``, ``c``, and from
  a Kafka version (3.x) that also checkpointed partitions holding no record, at offset 0.
  Kafka 4 (the version this project matches) checkpoints a partition once an offset sync
  exists for it, i.e. once a record was copied. So each line is checked for its shape and
  its offset (the group read everything: each partition's end) for the partitions that hold
  records.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient  # type: ignore[attr-defined]  # re-exported, no __all__
from kconnect_connector_mirror import MirrorClient
from kconnect_testkit import KafkaCluster
from kconnect_testkit._java import JavaUnavailable, java_jars
from runtime_harness import end_process, start_kconnect

pytestmark = pytest.mark.integration

BOOK = Path(__file__).parent / "data" / "book"
# The book's emit.checkpoints.interval.seconds and sync.group.offsets.interval.seconds are
# the defaults, a minute each, after the group is found (refresh.groups.interval.seconds=10).
DEADLINE_S = 240.0


def _wait(what: str, check: Callable[[], Any], timeout_s: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(1)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} (last: {last!r})")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Book:
    """The two clusters, Kafka's tools, and the book's files with the real addresses."""

    def __init__(self, east: str, west: str, jars: Path, tmp: Path) -> None:
        self.east, self.west, self.jars, self.tmp = east, west, jars, tmp

    def text(self, name: str) -> str:
        raw = (BOOK / name).read_text(encoding="utf-8")
        return raw.replace("east-kafka0:9092", self.east).replace("west-kafka0:9092", self.west)

    def config(self, name: str) -> dict[str, str]:
        config: dict[str, str] = json.loads(self.text(name))
        return config

    def tool(
        self, main: str, *args: str, stdin: str | None = None, stderr: bool = False
    ) -> list[str]:
        """Run one of Kafka's command line tools; its output lines (after them, with
        ``stderr``, those it writes there, as a terminal shows both)."""
        done = subprocess.run(
            ["java", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", f"{self.jars}/*", main, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, f"{main} {args}: {done.stderr[-2000:]}"
        return done.stdout.splitlines() + (done.stderr.splitlines() if stderr else [])

    def java_program(self, name: str) -> list[str]:
        """Run one of the book's Java programs (source-file mode), with the real addresses."""
        source = self.tmp / Path(name).name
        source.write_text(self.text(name), encoding="utf-8")
        return self.tool(str(source))


class ConnectWorker:
    """``bin/connect-distributed.sh`` with Kafka's shipped connect-distributed.properties,
    as ``kconnect distributed``, its REST API on a free port."""

    def __init__(self, bootstrap: str, workdir: Path) -> None:
        self.url = f"http://127.0.0.1:{_free_port()}"
        workdir.mkdir(parents=True, exist_ok=True)
        props = {
            "bootstrap.servers": bootstrap,
            "group.id": "connect-cluster",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "offset.storage.topic": "connect-offsets",
            "offset.storage.replication.factor": "1",
            "config.storage.topic": "connect-configs",
            "config.storage.replication.factor": "1",
            "status.storage.topic": "connect-status",
            "status.storage.replication.factor": "1",
            "offset.flush.interval.ms": "10000",
            "listeners": self.url,
        }
        path = workdir / "connect-distributed.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
        self.log = workdir / "kconnect.log"
        for attempt in range(3):
            self.proc = start_kconnect(["distributed", str(path)], workdir, self.log)
            try:
                _wait(
                    f"the REST API at {self.url}", lambda: self._get("/connectors") is not None, 120
                )
                return
            except AssertionError:
                # The worker gives up when the brokers do not answer its first request in
                # 10 s, which a machine this loaded can miss: as an operator would, start
                # it again (and only for that).
                if attempt == 2 or "cannot reach Kafka" not in self.log.read_text():
                    raise

    def _get(self, path: str) -> Any:
        try:
            resp = httpx.get(self.url + path, timeout=30)
        except httpx.HTTPError:
            assert self.proc.poll() is None, f"kconnect exited: {self.log.read_text()[-3000:]}"
            return None
        return resp.json() if resp.status_code == 200 else None

    def get(self, path: str) -> Any:
        return _wait(f"GET {path}", lambda: self._get(path), 60)

    def put_config(self, config: dict[str, str]) -> None:
        """``curl -X PUT -d @<file>.json <worker>/connectors/<name>/config``"""
        resp = httpx.put(f"{self.url}/connectors/{config['name']}/config", json=config, timeout=60)
        assert resp.status_code == 201, resp.text

    def stop(self) -> None:
        code = end_process(self.proc, signal.SIGTERM)
        assert code == 0, f"kconnect exited {code}: {self.log.read_text()[-3000:]}"


@pytest.fixture
def clusters() -> Iterator[tuple[str, str]]:
    """``east-kafka`` and ``west-kafka``: two fresh single-node clusters, started together
    (each example of the book starts from two new clusters)."""
    east, west = KafkaCluster(nodes=1), KafkaCluster(nodes=1)
    errors: list[BaseException] = []
    started = threading.Barrier(3)
    done = threading.Event()

    def start(cluster: KafkaCluster) -> None:
        try:
            cluster.start()
        except BaseException as exc:
            errors.append(exc)
        started.wait()
        # A broker is told to die with the thread that started it: this one lives on.
        done.wait()

    threads = [threading.Thread(target=start, args=(c,), daemon=True) for c in (east, west)]
    for t in threads:
        t.start()
    started.wait()
    try:
        if errors:
            raise errors[0]
        yield east.bootstrap_servers, west.bootstrap_servers
    finally:
        east.stop()
        west.stop()
        done.set()


@pytest.fixture
def book(clusters: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Book:
    try:
        jars = java_jars("kafka")
    except JavaUnavailable as exc:
        pytest.fail(f"Kafka's tools are needed to run the book's commands: {exc}")
    return Book(*clusters, jars, tmp_path_factory.mktemp("book"))


TOPICS = "org.apache.kafka.tools.TopicCommand"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"


def _end_offsets(bootstrap: str, topic: str, partitions: int) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"ends-{uuid.uuid4().hex}"})
    try:
        return {
            p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for p in range(partitions)
        }
    finally:
        consumer.close()


def test_disaster_recovery_example(book: Book, tmp_path: Path) -> None:
    west_connect = ConnectWorker(book.west, tmp_path / "west-connect")
    try:
        west_connect.put_config(book.config("east-to-west-source.json"))

        book.tool(
            "org.apache.kafka.tools.TopicCommand",
            *("--bootstrap-server", book.east, "--create", "--topic", "inventory"),
            *("--partitions", "5", "--replication-factor", "1"),
        )
        # "Within a few seconds, the matching remote topic, inventory, appears in west-kafka"
        listing = _wait(
            "inventory in west-kafka's topic list",
            lambda: (
                "inventory"
                in (
                    lines := book.tool(
                        "org.apache.kafka.tools.TopicCommand",
                        "--bootstrap-server",
                        book.west,
                        "--list",
                    )
                )
                and lines
            ),
            120,
        )
        assert listing == [
            "__consumer_offsets",  # listed by Kafka's tool; see the module docstring
            "connect-configs",
            "connect-configs.members",  # kconnect's; see the module docstring
            "connect-offsets",
            "connect-status",
            "inventory",
        ]

        book.tool(
            "org.apache.kafka.tools.ConsoleProducer",
            *("--bootstrap-server", book.east, "--topic", "inventory"),
            stdin="a\nb\nc\n",
        )
        mirrored = book.tool(
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            *("--bootstrap-server", book.west, "--topic", "inventory", "--from-beginning"),
            *("--max-messages", "3"),
        )
        # In produce order within a partition; the console producer's batch keeps them in one.
        assert sorted(mirrored) == ["a", "b", "c"]

        # "it is running five tasks ... one task per partition", each named in
        # task.assigned.partitions.
        tasks = _wait(
            "five tasks",
            lambda: (
                (t := west_connect.get("/connectors/east-to-west-source/tasks"))
                and len(t) == 5
                and t
            ),
        )
        assert [t["id"] for t in tasks[:2]] == [
            {"connector": "east-to-west-source", "task": 0},
            {"connector": "east-to-west-source", "task": 1},
        ]
        assert [t["config"]["task.assigned.partitions"] for t in tasks] == [
            f"inventory-{p}" for p in range(5)
        ]

        west_connect.put_config(book.config("east-to-west-checkpoint.json"))
        # The book's consumer runs until stopped; --max-messages ends it once it has read
        # the three records (its offsets are committed as it closes).
        consumed = book.tool(
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            *("--bootstrap-server", book.east, "--topic", "inventory", "--from-beginning"),
            *("--group", "my-group", "--max-messages", "3"),
        )
        assert sorted(consumed) == ["a", "b", "c"]
        ends = _end_offsets(book.east, "inventory", 5)
        with_records = {p: end for p, end in ends.items() if end > 0}

        # The checkpoints topic on west-kafka, then the book's RemoteClusterUtils program.
        client = MirrorClient(
            {
                "bootstrap.servers": book.west,
                "replication.policy.class": (
                    "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"
                ),
            }
        )
        _wait(
            "my-group's checkpoints for every partition with records",
            lambda: (
                {
                    tp.partition
                    for tp in client.remote_consumer_offsets("my-group", "east-kafka", 5.0)
                    if tp.topic == "inventory"
                }
                == set(with_records)
            ),
        )
        assert "east-kafka.checkpoints.internal" in book.tool(
            "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", book.west, "--list"
        )
        printed = book.java_program("TranslateOffsets.java")
        assert sorted(printed) == sorted(f"inventory-{p} : {n}" for p, n in with_records.items())

        # "the group is automatically created in west-kafka with committed offsets"
        def synced() -> bool:
            consumer = Consumer({"bootstrap.servers": book.west, "group.id": "my-group"})
            try:
                committed = consumer.committed(
                    [TopicPartition("inventory", p) for p in with_records], timeout=10
                )
            finally:
                consumer.close()
            return all(tp.offset == with_records[tp.partition] for tp in committed)

        _wait("my-group's offsets synced on west-kafka", synced)
        described = book.tool(
            "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
            *("--bootstrap-server", book.west, "--describe", "--group", "my-group"),
            stderr=True,
        )
        assert "Consumer group 'my-group' has no active members." in described
        header = next(line for line in described if line.startswith("GROUP"))
        assert header.split()[:6] == [
            "GROUP",
            "TOPIC",
            "PARTITION",
            "CURRENT-OFFSET",
            "LOG-END-OFFSET",
            "LAG",
        ]
        rows = [line.split() for line in described if line.startswith("my-group")]
        assert sorted((int(r[2]), r[1], r[3], r[4], r[5]) for r in rows) == [
            (p, "inventory", str(n), str(n), "0") for p, n in sorted(with_records.items())
        ]

        # Failover: the application, pointed at west-kafka, carries on where it stopped:
        # a record produced after it stopped, and none of those it had read. (Into a
        # partition with a committed offset: on the others the console consumer would
        # start at the end.)
        producer = Producer({"bootstrap.servers": book.east})
        producer.produce("inventory", value=b"d", partition=min(with_records))
        assert producer.flush(30) == 0
        resumed = book.tool(
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            *("--bootstrap-server", book.west, "--topic", "inventory", "--group", "my-group"),
            *("--max-messages", "1"),
        )
        assert resumed == ["d"]
    finally:
        west_connect.stop()


def test_geo_replication_example(book: Book, tmp_path: Path) -> None:
    west_connect = ConnectWorker(book.west, tmp_path / "west-connect")
    east_connect: ConnectWorker | None = None
    try:
        east_connect = ConnectWorker(book.east, tmp_path / "east-connect")
        west_connect.put_config(book.config("geo/east-to-west-source.json"))
        east_connect.put_config(book.config("geo/west-to-east-source.json"))

        book.tool(
            TOPICS,
            *("--bootstrap-server", book.east, "--create", "--topic", "sales"),
            *("--partitions", "5", "--replication-factor", "1"),
        )
        # "Within a few seconds, the matching remote topic, east-kafka.sales, appears"
        listing = _wait(
            "east-kafka.sales in west-kafka's topic list",
            lambda: (
                "east-kafka.sales"
                in (lines := book.tool(TOPICS, "--bootstrap-server", book.west, "--list"))
                and lines
            ),
            120,
        )
        assert listing == [
            "__consumer_offsets",  # listed by Kafka's tool; see the module docstring
            "connect-configs",
            "connect-configs.members",  # kconnect's; see the module docstring
            "connect-offsets",
            "connect-status",
            "east-kafka.sales",
            # Not printed by the book, but west-to-east-source, already started, creates
            # its offset syncs topic on its source cluster as it starts, as Kafka's does.
            "mm2-offset-syncs.east-kafka.internal",
        ]

        # "if we create a topic called inventory in the west-kafka cluster, the remote topic
        # west-kafka.inventory is created automatically by MirrorMaker in east-kafka"
        admin_east = AdminClient({"bootstrap.servers": book.east})
        book.tool(
            TOPICS,
            *("--bootstrap-server", book.west, "--create", "--topic", "inventory"),
            *("--partitions", "1", "--replication-factor", "1"),
        )
        _wait(
            "west-kafka.inventory in east-kafka",
            lambda: "west-kafka.inventory" in admin_east.list_topics(timeout=10).topics,
            120,
        )
        # With a local inventory in east-kafka too, the book's pattern subscription reads
        # both (Java's Pattern "(.+\\.)?inventory", as librdkafka's anchored regex).
        book.tool(
            TOPICS,
            *("--bootstrap-server", book.east, "--create", "--topic", "inventory"),
            *("--partitions", "1", "--replication-factor", "1"),
        )
        for bootstrap, value in ((book.east, b"from east"), (book.west, b"from west")):
            producer = Producer({"bootstrap.servers": bootstrap})
            producer.produce("inventory", value=value)
            assert producer.flush(30) == 0
        consumer = Consumer(
            {
                "bootstrap.servers": book.east,
                "group.id": "inventory-app",
                "auto.offset.reset": "earliest",
                "topic.metadata.refresh.interval.ms": 1000,
            }
        )
        try:
            consumer.subscribe(["^(.+\\.)?inventory$"])
            seen: dict[str, bytes] = {}
            deadline = time.monotonic() + DEADLINE_S
            while len(seen) < 2 and time.monotonic() < deadline:
                for m in consumer.consume(10, 1.0):
                    if m.error() is None:
                        seen[m.topic()] = m.value()
        finally:
            consumer.close()
        assert seen == {"inventory": b"from east", "west-kafka.inventory": b"from west"}

        # A heartbeat connector on each runtime: the book's east-heartbeat.json, and on
        # west-connect the same "with the aliases and the target cluster connection
        # details inverted".
        east_heartbeat = book.config("geo/east-heartbeat.json")
        east_connect.put_config(east_heartbeat)
        west_connect.put_config(
            {
                **east_heartbeat,
                "name": "west-heartbeat",
                "source.cluster.alias": "west-kafka",
                "target.cluster.alias": "east-kafka",
                "target.cluster.bootstrap.servers": book.west,
            }
        )
        heartbeats = book.tool(
            CONSOLE_CONSUMER,
            *("--bootstrap-server", book.west, "--topic", "east-kafka.heartbeats"),
            "--formatter",
            "org.apache.kafka.connect.mirror.formatters.HeartbeatFormatter",
            *("--from-beginning", "--max-messages", "2"),
        )
        # The book prints these with the aliases the other way round; the heartbeats copied
        # from east-kafka are east-heartbeat's, emitted with its own aliases.
        assert len(heartbeats) == 2
        for line in heartbeats:
            assert re.fullmatch(
                r"Heartbeat\{sourceClusterAlias=east-kafka, targetClusterAlias=west-kafka, "
                r"timestamp=\d{13}\}",
                line,
            ), line

        # The book's RemoteClusterUtils program, on west-kafka, prints exactly what it shows.
        assert book.java_program("geo/UpstreamClusters.java") == [
            "[east-kafka]",
            "hops to east-kafka: 1",
        ]
    finally:
        if east_connect is not None:
            east_connect.stop()
        west_connect.stop()
