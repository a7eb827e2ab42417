"""FileStream source → Kafka → FileStream sink, against plain confluent-kafka in the same run.

    .venv/bin/python bench/bench_pipeline.py [--lines 1000000] [--line-bytes 100]

Both sides move the same lines through the same broker (the embedded Tansu broker unless
--bootstrap-servers is given) with the same producer settings, from a file into a topic
and from the topic into a file, with the producer and consumer running at once. The plain
side is the floor of what any Python connector framework can do on this machine. Prints
records/s and MB/s for each and the ratio kconnect/plain. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime import EmbeddedBroker, Standalone

SESSION_TIMEOUT_MS = 6000


def make_input(path: Path, lines: int, line_bytes: int) -> int:
    body = "x" * max(1, line_bytes - 12)
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, lines, 10000):
            f.write("".join(f"{i:010d} {body}\n" for i in range(start, min(start + 10000, lines))))
    return path.stat().st_size


def count_lines(path: Path) -> int:
    try:
        with path.open("rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def wait_for_lines(path: Path, lines: int, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while count_lines(path) < lines:
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: only {count_lines(path)} of {lines} lines in {path}")
        time.sleep(0.02)


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result()


def run_plain(bootstrap: str, source: Path, sink: Path, lines: int) -> float:
    """The same pipeline written directly against confluent-kafka."""
    topic = f"bench-plain-{uuid.uuid4().hex[:6]}"
    create_topic(bootstrap, topic)
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 5,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 500000,
        }
    )
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": topic,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": SESSION_TIMEOUT_MS,
        }
    )

    def produce() -> None:
        with source.open("rb") as f:
            for line in f:
                while True:
                    try:
                        producer.produce(topic, line.rstrip(b"\n"))
                        break
                    except BufferError:
                        producer.poll(0.05)
                producer.poll(0)
        producer.flush()

    def consume() -> None:
        consumer.subscribe([topic])
        done = 0
        with sink.open("wb") as out:
            while done < lines:
                batch = consumer.consume(5000, 0.5)
                values = [m.value() for m in batch if m.error() is None]
                if values:
                    out.write(b"\n".join(values) + b"\n")
                    done += len(values)
            out.flush()
        consumer.commit(asynchronous=False)
        consumer.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=produce), threading.Thread(target=consume)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def run_kconnect(bootstrap: str, source: Path, sink: Path, lines: int, workdir: Path) -> float:
    topic = f"bench-kc-{uuid.uuid4().hex[:6]}"
    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(workdir / "offsets.json"),
        "offset.flush.interval.ms": "10000",
        "consumer.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "listeners": "",
    }
    connectors = [
        {
            "name": f"{topic}-src",
            "connector.class": "FileStreamSource",
            "file": str(source),
            "topic": topic,
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
        },
        {
            "name": f"{topic}-sink",
            "connector.class": "FileStreamSink",
            "file": str(sink),
            "topics": topic,
        },
    ]
    app = Standalone(worker, connectors)
    started = time.perf_counter()
    app.start()
    try:
        wait_for_lines(sink, lines)
        return time.perf_counter() - started
    finally:
        app.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--line-bytes", type=int, default=100)
    parser.add_argument("--bootstrap-servers", default=None)
    args = parser.parse_args()
    broker = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    try:
        with tempfile.TemporaryDirectory(prefix="kc-bench-") as tmp:
            work = Path(tmp)
            source = work / "in.txt"
            size = make_input(source, args.lines, args.line_bytes)
            print(f"input: {args.lines:,} lines, {size / 1e6:.1f} MB, broker {bootstrap}")
            results = {}
            for name, run in (
                ("plain confluent-kafka", run_plain),
                ("kconnect FileStream", run_kconnect),
            ):
                sink = work / f"out-{len(results)}.txt"
                kwargs = {"workdir": work} if run is run_kconnect else {}
                seconds = run(bootstrap, source, sink, args.lines, **kwargs)  # type: ignore[operator]
                assert sink.read_bytes() == source.read_bytes(), (
                    f"{name}: output differs from input"
                )
                results[name] = seconds
                print(
                    f"{name:>22}: {seconds:6.2f} s  {args.lines / seconds:>10,.0f} records/s  "
                    f"{size / seconds / 1e6:6.1f} MB/s"
                )
            ratio = results["plain confluent-kafka"] / results["kconnect FileStream"]
            print(f"ratio kconnect/plain (records/s): {ratio:.2f}  (goal >= 0.5)")
            print("both times include the consumer group's first join (session.timeout.ms=6000)")
    finally:
        if broker is not None:
            broker.stop()


if __name__ == "__main__":
    main()
