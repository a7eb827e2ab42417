"""MirrorSourceConnector throughput: Kafka's Java connector and kconnect's, in the same run.

    .venv/bin/python bench/bench_mirror.py [--mb 50] [--record-bytes 1000] [--partitions 4]
        [--tasks 2] [--source HOST:PORT --target HOST:PORT]

Starts two single-node Apache Kafka clusters (the testkit's pinned release, C2 compiler)
unless --source and --target name running ones, writes ``--mb`` MB of records (random
bytes, keys, one header) to a topic on the source, then mirrors that topic to the target
twice, one flow after the other so they do not share the cores: with Kafka's Java
MirrorSourceConnector on Kafka's distributed Connect worker, and with kconnect's on a
``kconnect distributed`` worker, both connected to the target (the book's "connectors on an
ordinary worker" setup), ByteArrayConverter for keys, values and headers, offset syncs on.
Each flow has its own source alias, so its remote topic and offset syncs are its own.

A flow is timed from the connector's creation (REST PUT, the worker already running) until
the remote topic holds every record; CPU is the worker process's (user + system, every
thread), read from /proc over the same span. Prints MB/s, records/s, wall and CPU seconds
for each and kconnect's ratio to Java's. It never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.modes import free_port
from kconnect_testkit import JavaConnectWorker, KafkaCluster

BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def request(url: str, method: str, path: str, body: object = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    except OSError:
        return 0, None
    return status, (json.loads(raw) if raw else None)


def wait(what: str, check: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.1)


def produce(bootstrap: str, topic: str, partitions: int, total: int, size: int) -> int:
    """``total`` bytes of ``size``-byte values; returns the number of records."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000})
    payload = os.urandom(size)
    count = max(1, total // size)
    for i in range(count):
        while True:
            try:
                producer.produce(
                    topic,
                    key=f"key-{i}".encode(),
                    value=payload,
                    partition=i % partitions,
                    headers=[("seq", str(i).encode())],
                )
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(120)
    return count


def records_in(consumer: Consumer, topic: str, partitions: int) -> int:
    """Records in ``topic`` now (0 while it is being created)."""
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None or len(meta.partitions) < partitions:
            return 0
        return sum(
            consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for p in range(partitions)
        )
    except KafkaException:  # a partition without its leader yet
        return 0


def connector(alias: str, source: str, target: str, topic: str, tasks: int) -> dict[str, str]:
    return {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "tasks.max": str(tasks),
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
        "source.cluster.alias": alias,
        "target.cluster.alias": "target",
        "source.cluster.bootstrap.servers": source,
        "target.cluster.bootstrap.servers": target,
        "replication.factor": "-1",
        "offset-syncs.topic.replication.factor": "-1",
        "sync.topic.acls.enabled": "false",
        "topics": topic,
    }


def mirror(
    url: str,
    pid: int,
    config: dict[str, str],
    *,
    target: str,
    remote: str,
    partitions: int,
    count: int,
) -> tuple[float, float, float]:
    """Create the connector, wait for every record on the target.

    Returns the wall seconds from the PUT, those from the first record seen on the target
    (the copy alone, without the connector's start: topic creation, task assignment), and
    the worker's CPU seconds from the PUT.
    """
    consumer = Consumer({"bootstrap.servers": target, "group.id": "bench-mirror-count"})
    try:
        cpu, started = cpu_seconds(pid), time.perf_counter()
        status, body = request(url, "PUT", "/connectors/mirror-bench/config", config)
        if status not in (200, 201):
            raise SystemExit(f"PUT connector: {status} {body}")
        deadline = time.monotonic() + 900
        first: float | None = None
        while (copied := records_in(consumer, remote, partitions)) < count:
            if first is None and copied > 0:
                first = time.perf_counter()
            if time.monotonic() > deadline:
                raise SystemExit(f"{remote}: not every record mirrored in 900 s")
            time.sleep(0.2)
        end = time.perf_counter()
        return end - started, end - (first or started), cpu_seconds(pid) - cpu
    finally:
        consumer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="megabytes of values to mirror")
    parser.add_argument("--record-bytes", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--source", help="bootstrap.servers of a running source cluster")
    parser.add_argument("--target", help="bootstrap.servers of a running target cluster")
    args = parser.parse_args()

    clusters: list[KafkaCluster] = []
    source, target = args.source, args.target
    for name in ("source", "target"):
        if (source if name == "source" else target) is None:
            cluster = KafkaCluster(quick_start=False, heap="1g")
            clusters.append(cluster)
            address = cluster.start()
            source, target = (address, target) if name == "source" else (source, address)
    assert source is not None and target is not None
    work = Path(tempfile.mkdtemp(prefix="kc-bench-mirror-"))
    run = uuid.uuid4().hex[:6]
    topic = f"bench-mirror-{run}"
    total = int(args.mb * 1024 * 1024)
    count = produce(source, topic, args.partitions, total, args.record_bytes)
    megabytes = count * args.record_bytes / 1e6
    print(
        f"{count} records of {args.record_bytes} bytes ({megabytes:.1f} MB of values) in "
        f"{args.partitions} partitions; {args.tasks} tasks; source {source}, target {target}",
        flush=True,
    )

    results: dict[str, tuple[float, float, float]] = {}
    java = JavaConnectWorker(
        target,
        mode="distributed",
        name=f"bench-java-{run}",
        workdir=work / "java",
        heap="1g",
        quick_start=False,
    )
    kconnect: subprocess.Popen[bytes] | None = None
    try:
        java.start()
        assert java.proc is not None
        alias = f"java{run}"
        results["Java"] = mirror(
            java.url,
            java.proc.pid,
            connector(alias, source, target, topic, args.tasks),
            target=target,
            remote=f"{alias}.{topic}",
            partitions=args.partitions,
            count=count,
        )
        java.stop()

        # kconnect on the worker properties of a Java worker of its own (another group).
        props = JavaConnectWorker(target, mode="distributed", name=f"bench-kconnect-{run}")
        port = free_port()
        settings = {**props.worker_config(), "listeners": f"HTTP://127.0.0.1:{port}"}
        (work / "kconnect").mkdir(parents=True)
        worker_file = work / "kconnect" / "worker.properties"
        worker_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
        with (work / "kconnect" / "kconnect.log").open("ab") as log:
            kconnect = subprocess.Popen(
                [sys.executable, "-m", "kconnect_runtime.cli", "distributed", str(worker_file)],
                cwd=work / "kconnect",
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{port}"
        wait("kconnect's REST API", lambda: request(url, "GET", "/connectors")[0] == 200, 120)
        alias = f"kconnect{run}"
        results["kconnect"] = mirror(
            url,
            kconnect.pid,
            connector(alias, source, target, topic, args.tasks),
            target=target,
            remote=f"{alias}.{topic}",
            partitions=args.partitions,
            count=count,
        )
    finally:
        if kconnect is not None and kconnect.poll() is None:
            kconnect.send_signal(signal.SIGTERM)
            kconnect.wait(60)
        java.stop()
        for cluster in clusters:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"{'':10} {'MB/s':>7} {'records/s':>10} {'wall s':>7} {'copy s':>7} {'copy MB/s':>9} "
        f"{'CPU s':>6} {'MB/CPU s':>8}"
    )
    for who, (wall, copy, cpu) in results.items():
        print(
            f"{who:10} {megabytes / wall:7.1f} {count / wall:10,.0f} {wall:7.2f} {copy:7.2f} "
            f"{megabytes / copy:9.1f} {cpu:6.2f} {megabytes / cpu if cpu else float('nan'):8.1f}"
        )
    java_wall, java_copy, java_cpu = results["Java"]
    our_wall, our_copy, our_cpu = results["kconnect"]
    print(
        f"kconnect / Java: throughput x{java_wall / our_wall:.2f} from the PUT, "
        f"x{java_copy / our_copy:.2f} from the first record; CPU per MB x{our_cpu / java_cpu:.2f}"
    )


if __name__ == "__main__":
    main()
