"""Distributed mode: records/s over one, two and three workers, and failover after kill -9.

    .venv/bin/python bench/bench_distributed.py [--rows 300000] [--connectors 6]

One pipeline of ``--connectors`` FileStream sink connectors (one task each; connectors and
tasks are assigned to workers separately) drains ``--rows`` lines, spread evenly over that
many topics already filled, into files; measured with 1, 2 and 3 ``kconnect distributed`` worker
processes of one group, from the moment the connectors are created to the last line
written. The raw side reads the same topics with plain confluent-kafka consumers writing
the same files in this process (the floor for any Python framework on this machine).
Then the failover figure: with data flowing into 2 workers, the time from ``kill -9`` of
one to the first line its connectors write on the other. Asserts nothing about time; on a
2-core machine expect no scaling from more workers (they share the cores).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime import EmbeddedBroker
from kconnect_runtime.modes import free_port

SESSION_MS = 6000


def fill(bootstrap: str, topics: list[str], rows: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        future.result()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    per_topic = rows // len(topics)
    for topic in topics:
        for i in range(per_topic):
            producer.produce(topic, value=f"{topic}:{i:09d}".encode())
            if i % 10000 == 0:
                producer.poll(0)
        producer.flush()


def count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def raw(bootstrap: str, topics: list[str], out: Path, rows: int) -> float:
    """Plain consumers, one thread per topic, writing lines to files."""
    start = time.perf_counter()

    def drain(topic: str) -> None:
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"raw-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])  # no group join to wait for
        want = rows // len(topics)
        got = 0
        with (out / f"raw-{topic}.txt").open("wb") as f:
            while got < want:
                messages = consumer.consume(10000, timeout=0.5)
                f.write(b"".join(m.value() + b"\n" for m in messages if m.error() is None))
                got += sum(1 for m in messages if m.error() is None)
        consumer.close()

    threads = [threading.Thread(target=drain, args=(t,)) for t in topics]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


class Workers:
    def __init__(self, bootstrap: str, tmp: Path, delay_ms: int) -> None:
        self.bootstrap = bootstrap
        self.tmp = tmp
        self.group = f"bench-{uuid.uuid4().hex[:6]}"
        self.delay_ms = delay_ms
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, count: int) -> list[int]:
        ports = []
        for _ in range(count):
            port = free_port()
            props = {
                "bootstrap.servers": self.bootstrap,
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
                "consumer.session.timeout.ms": str(SESSION_MS),
                "session.timeout.ms": str(SESSION_MS),
                "heartbeat.interval.ms": "1000",
                "scheduled.rebalance.max.delay.ms": str(self.delay_ms),
                "offset.flush.interval.ms": "1000",
                "listeners": f"http://127.0.0.1:{port}",
            }
            path = self.tmp / f"worker-{port}.properties"
            path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
            self.procs[port] = subprocess.Popen(
                [sys.executable, "-m", "kconnect_runtime.cli", "distributed", str(path)],
                cwd=self.tmp,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            ports.append(port)
        for port in ports:
            deadline = time.monotonic() + 90
            while not self._up(port):
                if time.monotonic() > deadline:
                    raise SystemExit(f"worker on port {port} did not start")
                time.sleep(0.1)
        return ports

    @staticmethod
    def _up(port: int) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    def create(self, port: int, name: str, topic: str, file: Path) -> None:
        config = {
            "name": name,
            "connector.class": "FileStreamSink",
            "file": str(file),
            "topics": topic,
            "tasks.max": "1",
        }
        response = httpx.post(
            f"http://127.0.0.1:{port}/connectors",
            json={"name": name, "config": config},
            timeout=60,
        )
        response.raise_for_status()

    def owners(self, port: int) -> dict[str, str]:
        body: dict[str, Any] = httpx.get(
            f"http://127.0.0.1:{port}/connectors", params={"expand": "status"}, timeout=30
        ).json()
        return {
            n: e["status"]["tasks"][0]["worker_id"]
            for n, e in body.items()
            if e["status"]["tasks"] and e["status"]["tasks"][0]["state"] == "RUNNING"
        }

    def kill(self, port: int) -> None:
        proc = self.procs.pop(port)
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs.clear()


def throughput(bootstrap: str, tmp: Path, topics: list[str], rows: int, workers: int) -> float:
    cluster = Workers(bootstrap, tmp, delay_ms=0)
    try:
        ports = cluster.start(workers)
        files = {t: tmp / f"w{workers}-{t}.txt" for t in topics}
        start = time.perf_counter()
        for i, topic in enumerate(topics):
            cluster.create(ports[i % len(ports)], f"sink-{workers}-{i}", topic, files[topic])
        want = rows // len(topics)
        deadline = time.monotonic() + 900
        while any(count_lines(f) < want for f in files.values()):
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out with {workers} workers")
            time.sleep(0.05)
        return time.perf_counter() - start
    finally:
        cluster.stop()


def failover(bootstrap: str, tmp: Path, delay_ms: int) -> float:
    cluster = Workers(bootstrap, tmp, delay_ms=delay_ms)
    topics = [f"fo-{uuid.uuid4().hex[:6]}-{i}" for i in range(4)]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        future.result()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    stop = threading.Event()

    def feed() -> None:
        i = 0
        while not stop.wait(0.02):
            for topic in topics:
                producer.produce(topic, value=f"{topic}:{i}".encode())
            i += 1
            producer.poll(0)
        producer.flush()

    feeder = threading.Thread(target=feed, daemon=True)
    try:
        a, b = cluster.start(2)
        files = {t: tmp / f"fo-{t}.txt" for t in topics}
        for i, topic in enumerate(topics):
            cluster.create(a, f"fo-{i}", topic, files[topic])
        feeder.start()
        deadline = time.monotonic() + 120
        while len(cluster.owners(a)) < len(topics):
            if time.monotonic() > deadline:
                raise SystemExit("connectors did not start")
            time.sleep(0.1)
        victim = f"127.0.0.1:{b}"
        moved = [n for n, w in cluster.owners(a).items() if w == victim]
        moved_files = [files[topics[int(n.rsplit("-", 1)[1])]] for n in moved]
        time.sleep(1)
        sizes = [count_lines(f) for f in moved_files]
        killed = time.perf_counter()
        cluster.kill(b)
        deadline = time.monotonic() + 120
        while not all(count_lines(f) > s for f, s in zip(moved_files, sizes, strict=True)):
            # Lines still in flight when the worker died do not count: wait for new ones.
            if time.monotonic() > deadline:
                raise SystemExit("the killed worker's connectors never moved")
            time.sleep(0.02)
            if time.perf_counter() - killed < 1.0:
                sizes = [count_lines(f) for f in moved_files]
        return time.perf_counter() - killed
    finally:
        stop.set()
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=300000)
    parser.add_argument("--connectors", type=int, default=6)
    parser.add_argument("--bootstrap-servers", default=None)
    parser.add_argument("--delay-ms", type=int, default=0, help="scheduled.rebalance.max.delay.ms")
    parser.add_argument(
        "--workers",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        default=(1, 2, 3),
        help="worker counts to measure, comma-separated (default 1,2,3)",
    )
    args = parser.parse_args()
    broker = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    try:
        with tempfile.TemporaryDirectory() as tmpdir:
            tmp = Path(tmpdir)
            topics = [f"bd-{uuid.uuid4().hex[:6]}-{i}" for i in range(args.connectors)]
            rows = args.rows // len(topics) * len(topics)
            fill(bootstrap, topics, rows)
            raw_s = raw(bootstrap, topics, tmp, rows)
            print(f"rows: {rows} over {len(topics)} topics / connectors")
            print(f"raw confluent-kafka consumers: {rows / raw_s:12,.0f} records/s")
            for workers in args.workers:
                elapsed = throughput(bootstrap, tmp, topics, rows, workers)
                print(
                    f"kconnect, {workers} worker(s):   {rows / elapsed:12,.0f} records/s "
                    f"(ratio to raw {raw_s / elapsed:.2f}; includes connector start-up)"
                )
            seconds = failover(bootstrap, tmp, args.delay_ms)
            print(
                f"failover: kill -9 -> first record moved elsewhere: {seconds:.1f}s "
                f"(session.timeout.ms={SESSION_MS}, scheduled.rebalance.max.delay.ms="
                f"{args.delay_ms}; bound {SESSION_MS / 1000 + args.delay_ms / 1000:.0f}s + rebalance)"
            )
    finally:
        if broker is not None:
            broker.stop()


if __name__ == "__main__":
    main()
