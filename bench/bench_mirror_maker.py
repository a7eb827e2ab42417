"""Dedicated MirrorMaker throughput: ``kconnect mirror-maker`` and Kafka's ``MirrorMaker``.

    .venv/bin/python bench/bench_mirror_maker.py [--mb 50] [--record-bytes 1000]
        [--partitions 4] [--tasks 2] [--no-java] [--source HOST:PORT --target HOST:PORT]

Starts two single-node Apache Kafka clusters (the testkit's pinned release, C2 compiler)
unless --source and --target name running ones, writes ``--mb`` MB of records (random
bytes, keys, one header) to a topic on the source, then mirrors it to the target with one
``connect-mirror-maker.properties`` per run, one run after the other so they do not share
the cores: Kafka's ``org.apache.kafka.connect.mirror.MirrorMaker`` (``connect-mirror-maker.sh``)
and ``kconnect mirror-maker``, each a process of its own with its own cluster aliases (so
its remote topic, offset syncs and internal topics are its own). The flow is the source
alias to the target alias, with the reverse flow's heartbeats off (no second worker).

A run is timed from the process's start (so the node's start, its group join and the
leader writing the connector configs are in it) until the remote topic holds every record;
"copy" is from the first record seen on the target. CPU is the process's (user + system,
every thread) over the same span. Prints MB/s, records/s, wall and CPU seconds and
kconnect's ratio to Java's. It never asserts a time.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench_mirror import cpu_seconds, produce, records_in
from confluent_kafka import Consumer
from kconnect_testkit import KafkaCluster
from kconnect_testkit._java import _java_command, _log4j_config, java_jars

KCONNECT = Path(sys.executable).with_name("kconnect")


def mm2_properties(
    path: Path, *, source: str, target: str, alias: str, topic: str, tasks: int
) -> None:
    src, dst = f"{alias}src", f"{alias}dst"
    path.write_text(
        "\n".join(
            [
                f"clusters = {src}, {dst}",
                f"{src}.bootstrap.servers = {source}",
                f"{dst}.bootstrap.servers = {target}",
                f"{src}->{dst}.enabled = true",
                f"{src}->{dst}.topics = {topic}",
                f"{dst}->{src}.emit.heartbeats.enabled = false",
                f"tasks.max = {tasks}",
                "replication.factor = 1",
                "checkpoints.topic.replication.factor = 1",
                "heartbeats.topic.replication.factor = 1",
                "offset-syncs.topic.replication.factor = 1",
                "offset.storage.replication.factor = 1",
                "status.storage.replication.factor = 1",
                "config.storage.replication.factor = 1",
                "sync.topic.acls.enabled = false",
                "",
            ]
        )
    )


def run(
    command: list[str], *, workdir: Path, target: str, remote: str, partitions: int, count: int
) -> tuple[float, float, float]:
    """Start the node, wait for every record on the target, stop it (SIGTERM).

    Returns the wall seconds from the start, those from the first record seen on the
    target, and the node's CPU seconds.
    """
    consumer = Consumer({"bootstrap.servers": target, "group.id": "bench-mm-count"})
    with (workdir / "node.log").open("ab") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 900
        first: float | None = None
        cpu = 0.0
        while (copied := records_in(consumer, remote, partitions)) < count:
            if proc.poll() is not None:
                raise SystemExit(f"the node exited: {(workdir / 'node.log').read_text()[-3000:]}")
            if first is None and copied > 0:
                first = time.perf_counter()
            if time.monotonic() > deadline:
                raise SystemExit(f"{remote}: not every record mirrored in 900 s")
            cpu = cpu_seconds(proc.pid)
            time.sleep(0.2)
        end = time.perf_counter()
        cpu = cpu_seconds(proc.pid)
        return end - started, end - (first or started), cpu
    finally:
        consumer.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="megabytes of values to mirror")
    parser.add_argument("--record-bytes", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--no-java", action="store_true", help="kconnect's run only")
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
    work = Path(tempfile.mkdtemp(prefix="kc-bench-mm-"))
    tag = uuid.uuid4().hex[:6]
    topic = f"bench-mm-{tag}"
    try:
        count = produce(
            source, topic, args.partitions, int(args.mb * 1024 * 1024), args.record_bytes
        )
        megabytes = count * args.record_bytes / 1e6
        print(
            f"{count} records of {args.record_bytes} bytes ({megabytes:.1f} MB of values) in "
            f"{args.partitions} partitions; tasks.max {args.tasks}; source {source}, "
            f"target {target}",
            flush=True,
        )
        results: dict[str, tuple[float, float, float]] = {}
        for who in ("Java", "kconnect"):
            if who == "Java" and args.no_java:
                continue
            alias = f"{who.lower()}{tag}"
            workdir = work / who
            workdir.mkdir()
            config = workdir / "mm2.properties"
            mm2_properties(
                config, source=source, target=target, alias=alias, topic=topic, tasks=args.tasks
            )
            if who == "Java":
                log4j = _log4j_config(workdir / "log4j2.properties", workdir / "java.log")
                command = [
                    *_java_command([java_jars("kafka")], "1g", log4j, quick_start=False),
                    "org.apache.kafka.connect.mirror.MirrorMaker",
                    str(config),
                ]
            else:
                command = [str(KCONNECT), "mirror-maker", str(config)]
            results[who] = run(
                command,
                workdir=workdir,
                target=target,
                remote=f"{alias}src.{topic}",
                partitions=args.partitions,
                count=count,
            )
    finally:
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
    if "Java" in results:
        java_wall, java_copy, java_cpu = results["Java"]
        our_wall, our_copy, our_cpu = results["kconnect"]
        print(
            f"kconnect / Java: throughput x{java_wall / our_wall:.2f} from the start, "
            f"x{java_copy / our_copy:.2f} from the first record; CPU per MB "
            f"x{our_cpu / java_cpu:.2f}"
        )


if __name__ == "__main__":
    main()
