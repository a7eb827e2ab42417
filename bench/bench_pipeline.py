"""FileStream source → Kafka → FileStream sink, against plain confluent-kafka in the same run.

    .venv/bin/python bench/bench_pipeline.py [--lines 1000000] [--line-bytes 100] [--rounds 1]

Both sides move the same lines through the same broker (the embedded Tansu broker unless
--bootstrap-servers is given) with the worker's client settings (its producer's, and its
sink consumer's fetch back-off): the source half alone (a file into a topic, until the topic
holds every line), the sink half alone (one filled topic, the same for both, into a file)
and the whole pipeline (both at once). The plain side is the floor of what any Python
connector framework can do on this machine. Prints records/s and MB/s for each
and the ratios kconnect/plain against the goals. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime import EmbeddedBroker, Standalone

SESSION_TIMEOUT_MS = 6000


class Report:
    """Best time of each measurement over the rounds, printed with rates and ratios.

    Each case is timed on the wall clock and on this process's CPU time (every thread,
    librdkafka's included; the broker runs in its own process and counts for neither). On
    a loaded machine the CPU figure is the steadier one: it is what the work costs, not
    how long the neighbours kept the cores.
    """

    def __init__(self, lines: int, size: int) -> None:
        self.lines = lines
        self.size = size
        self.best: dict[str, float] = {}
        self.best_cpu: dict[str, float] = {}

    def add(self, name: str, seconds: float, cpu: float | None = None) -> None:
        self.best[name] = min(seconds, self.best.get(name, seconds))
        if cpu is not None:
            self.best_cpu[name] = min(cpu, self.best_cpu.get(name, cpu))
        # Printed at once too, so a later failure does not lose the figures so far.
        extra = "" if cpu is None else f", {cpu:.2f} s CPU"
        print(f"  ({name}: {seconds:.2f} s{extra})", flush=True)

    def print(self) -> None:
        for name, seconds in self.best.items():
            cpu = self.best_cpu.get(name)
            per_cpu = "" if not cpu else f"  {self.lines / cpu:>10,.0f} records/CPU-s"
            print(
                f"{name:>34}: {seconds:6.2f} s  {self.lines / seconds:>10,.0f} records/s  "
                f"{self.size / seconds / 1e6:6.1f} MB/s{per_cpu}"
            )

    def ratio(self, label: str, ours: str, plain: str, goal: float) -> None:
        value = self.best[plain] / self.best[ours]
        cpu = ""
        if self.best_cpu.get(ours) and self.best_cpu.get(plain):
            cpu = f"; on CPU time {self.best_cpu[plain] / self.best_cpu[ours]:.2f}"
        print(f"ratio kconnect/plain, {label}: {value:.2f}  (goal >= {goal}){cpu}")


def timed(run: Callable[[], float]) -> tuple[float, float]:
    """(wall seconds as ``run`` reports them, CPU seconds of this process meanwhile)."""
    before = time.process_time()
    wall = run()
    return wall, time.process_time() - before


def make_input(path: Path, lines: int, line_bytes: int) -> int:
    body = "x" * max(1, line_bytes - 12)
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, lines, 10000):
            f.write("".join(f"{i:010d} {body}\n" for i in range(start, min(start + 10000, lines))))
    return path.stat().st_size


def wait_for_bytes(path: Path, size: int, timeout: float = 600) -> None:
    """Wait until ``path`` holds ``size`` bytes (the input's: a sink writes each line as it
    was read). A stat every 20 ms: reading the appended lines back to count them cost this
    process about 0.1 s of CPU per million lines, counted against the sink under test."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            written = path.stat().st_size
        except FileNotFoundError:
            written = 0
        if written >= size:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: only {written} of {size} bytes in {path}")
        time.sleep(0.02)


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        future.result()


def _producer(bootstrap: str) -> Producer:
    # The worker's own producer defaults (runtime worker/_worker.py): the same settings on
    # both sides, so each sink half reads a topic written the same way.
    return Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "max.in.flight.requests.per.connection": 1,
            "linger.ms": 5,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 500000,
            "queue.buffering.max.kbytes": 32768,
        }
    )


def plain_produce(bootstrap: str, source: Path, topic: str) -> None:
    """The source half written directly against confluent-kafka: lines to a topic."""
    producer = _producer(bootstrap)
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


def plain_consume(bootstrap: str, topic: str, sink: Path, lines: int) -> None:
    """The sink half written directly against confluent-kafka: a topic to a file."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"{topic}-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": SESSION_TIMEOUT_MS,
            # The worker's sink consumer setting: with librdkafka's default (1000 ms) a
            # loop this quick finds its prefetch queue full and the partition idle for a
            # second at a time, and took twice the worker's wall time.
            "fetch.queue.backoff.ms": 10,
        }
    )
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


class RecordCounter:
    """Counts a topic's records as they arrive, to time a source half to its last record.

    Partition offsets cannot say it (a broker may number batches rather than records), so
    a plain consumer reads the topic from the start, assigned rather than in a group (no
    join to wait for). It runs in a process of its own: its CPU is no part of either
    source half, and was not the same for both (a consumer's cost follows the batches
    the producer made: 1.1 against 1.9 CPU-s per million records).
    """

    def __init__(self, bootstrap: str, topic: str, lines: int) -> None:
        self.topic = topic
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--count-records", bootstrap, topic, str(lines)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline().strip() != "assigned":
            self.process.kill()
            raise SystemExit(f"the record counter of {topic} did not start")

    def wait(self) -> None:
        assert self.process.stdout is not None
        said = self.process.stdout.readline().strip()
        if self.process.wait() != 0 or said != "counted":
            raise SystemExit(f"the record counter of {self.topic} failed: {said!r}")


def count_records(bootstrap: str, topic: str, lines: int, timeout: float = 600) -> None:
    """The record counter's process: says "assigned", then "counted" at the last record."""
    from confluent_kafka import OFFSET_BEGINNING, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"count-{topic}", "enable.auto.commit": False}
    )
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    print("assigned", flush=True)
    deadline = time.monotonic() + timeout
    seen = 0
    try:
        while seen < lines:
            seen += sum(m.error() is None for m in consumer.consume(10000, 0.05))
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out: only {seen} of {lines} records in {topic}")
    finally:
        consumer.close()
    print("counted", flush=True)


def run_plain(bootstrap: str, source: Path, sink: Path, lines: int) -> float:
    """The whole pipeline written directly against confluent-kafka, both halves at once."""
    topic = f"bench-plain-{uuid.uuid4().hex[:6]}"
    create_topic(bootstrap, topic)
    started = time.perf_counter()
    threads = [
        threading.Thread(target=plain_produce, args=(bootstrap, source, topic)),
        threading.Thread(target=plain_consume, args=(bootstrap, topic, sink, lines)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def run_plain_source(bootstrap: str, source: Path, topic: str, lines: int) -> float:
    create_topic(bootstrap, topic)
    counter = RecordCounter(bootstrap, topic, lines)
    started = time.perf_counter()
    producer = threading.Thread(target=plain_produce, args=(bootstrap, source, topic))
    producer.start()
    counter.wait()
    elapsed = time.perf_counter() - started
    producer.join()
    return elapsed


def run_plain_sink(bootstrap: str, topic: str, sink: Path, lines: int) -> float:
    started = time.perf_counter()
    plain_consume(bootstrap, topic, sink, lines)
    return time.perf_counter() - started


def _worker(bootstrap: str, workdir: Path) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(workdir / f"offsets-{uuid.uuid4().hex[:6]}.json"),
        "offset.flush.interval.ms": "10000",
        "consumer.session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "listeners": "",
    }


def _source_connector(name: str, source: Path, topic: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }


def _sink_connector(name: str, sink: Path, topic: str) -> dict[str, str]:
    return {"name": name, "connector.class": "FileStreamSink", "file": str(sink), "topics": topic}


def run_kconnect(bootstrap: str, source: Path, sink: Path, size: int, workdir: Path) -> float:
    topic = f"bench-kc-{uuid.uuid4().hex[:6]}"
    connectors = [
        _source_connector(f"{topic}-src", source, topic),
        _sink_connector(f"{topic}-sink", sink, topic),
    ]
    app = Standalone(_worker(bootstrap, workdir), connectors)
    started = time.perf_counter()
    app.start()
    try:
        wait_for_bytes(sink, size)
        return time.perf_counter() - started
    finally:
        app.stop()


def run_kconnect_source(
    bootstrap: str, source: Path, topic: str, lines: int, workdir: Path
) -> float:
    create_topic(bootstrap, topic)
    counter = RecordCounter(bootstrap, topic, lines)
    app = Standalone(
        _worker(bootstrap, workdir), [_source_connector(f"{topic}-src", source, topic)]
    )
    started = time.perf_counter()
    app.start()
    try:
        counter.wait()
        return time.perf_counter() - started
    finally:
        app.stop()


def run_kconnect_sink(bootstrap: str, topic: str, sink: Path, size: int, workdir: Path) -> float:
    name = f"{topic}-sink-{uuid.uuid4().hex[:6]}"
    app = Standalone(_worker(bootstrap, workdir), [_sink_connector(name, sink, topic)])
    started = time.perf_counter()
    app.start()
    try:
        wait_for_bytes(sink, size)
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
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds; best counts")
    parser.add_argument("--count-records", nargs=3, help=argparse.SUPPRESS)  # RecordCounter's
    args = parser.parse_args()
    if args.count_records:
        bootstrap_servers, topic, lines = args.count_records
        count_records(bootstrap_servers, topic, int(lines))
        return
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
            report = Report(args.lines, size)
            expected = source.read_bytes()

            def check(name: str, sink: Path) -> None:
                if sink.read_bytes() != expected:
                    raise SystemExit(f"{name}: output differs from input")

            # Each pair runs plain first, then kconnect, in the same run and broker; with
            # --rounds the pairs repeat (interleaved) and the best of each counts.
            for round_no in range(args.rounds):
                tag = f"{round_no}-{uuid.uuid4().hex[:6]}"
                plain_topic, kc_topic = f"bench-ps-{tag}", f"bench-ks-{tag}"
                report.add(
                    "source: plain producer",
                    *timed(partial(run_plain_source, bootstrap, source, plain_topic, args.lines)),
                )
                report.add(
                    "source: FileStreamSource",
                    *timed(
                        partial(run_kconnect_source, bootstrap, source, kc_topic, args.lines, work)
                    ),
                )
                sink = work / f"plain-sink-{tag}.txt"
                report.add(
                    "sink: plain consumer",
                    *timed(partial(run_plain_sink, bootstrap, plain_topic, sink, args.lines)),
                )
                check("plain sink", sink)
                # The same input for both sink halves: the topic the plain producer wrote.
                # (Each producer's timing lays out its own record batches, and reading
                # another layout costs another amount of CPU in the consumer.)
                sink = work / f"kc-sink-{tag}.txt"
                report.add(
                    "sink: FileStreamSink",
                    *timed(partial(run_kconnect_sink, bootstrap, plain_topic, sink, size, work)),
                )
                check("FileStreamSink", sink)
                sink = work / f"plain-both-{tag}.txt"
                report.add(
                    "pipeline: plain confluent-kafka",
                    *timed(partial(run_plain, bootstrap, source, sink, args.lines)),
                )
                check("plain pipeline", sink)
                sink = work / f"kc-both-{tag}.txt"
                report.add(
                    "pipeline: kconnect FileStream",
                    *timed(partial(run_kconnect, bootstrap, source, sink, size, work)),
                )
                check("kconnect pipeline", sink)
            report.print()
            report.ratio(
                "source side alone", "source: FileStreamSource", "source: plain producer", 0.85
            )
            report.ratio("sink side alone", "sink: FileStreamSink", "sink: plain consumer", 0.85)
            report.ratio(
                "FileStream -> Kafka -> FileStream",
                "pipeline: kconnect FileStream",
                "pipeline: plain confluent-kafka",
                0.8,
            )
            print(
                "times are wall clock and include start-up: the connector's or client's start, "
                f"and for sinks the consumer group's first join (session.timeout.ms="
                f"{SESSION_TIMEOUT_MS}); best of {args.rounds} round(s); CPU time is this "
                "process's (all threads, librdkafka's included; not the broker's nor the source halves' record counter's)"
            )
    finally:
        if broker is not None:
            broker.stop()


if __name__ == "__main__":
    main()
