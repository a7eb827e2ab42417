"""A broker restart under a running pipeline (``pytest -m chaos``).

The test runs an Apache Kafka broker of its own (one KRaft node, its log on disk), so
topics, committed consumer offsets and group state survive a restart as on any Kafka
cluster. A ``kconnect standalone`` worker runs FileStream source → topic → FileStream sink
while the test appends lines to the source file and restarts the broker twice: a
controlled shutdown (SIGTERM), then kill -9, each time started again on the same port with
its data. The producer and the sink's consumer reconnect by themselves; at the end every
line is in the sink file (zero lost) and repeats are counted.
"""

from __future__ import annotations

import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from kconnect_testkit import KafkaCluster
from runtime_harness import (
    CrashRow,
    LineAppender,
    end_process,
    every_line,
    file_sink,
    file_source,
    line_count,
    report_crash,
    start_kconnect,
    wait_for,
    worker_props,
    write_props,
)

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(300)]


def _grows(sink: Path, by: int = 500) -> Callable[[], bool]:
    """A condition: the sink file has more than ``by`` lines more than now."""
    start = line_count(sink)
    return lambda: line_count(sink) > start + by


def _sink_position(bootstrap: str, topic: str) -> tuple[int, int]:
    """(the sink's committed offset, the end of the topic) of partition 0; the offset is -1
    while none is committed or the group coordinator does not answer (it loads)."""
    from confluent_kafka import Consumer, TopicPartition

    # The sink's group, never joined: only asked for its committed offset.
    probe = Consumer({"bootstrap.servers": bootstrap, "group.id": "connect-sink"})
    try:
        _low, end = probe.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        try:
            (found,) = probe.committed([TopicPartition(topic, 0)], timeout=5)
        except Exception:  # asked again
            return -1, int(end)
        return max(int(found.offset), -1), int(end)
    finally:
        probe.close()


def _caught_up(bootstrap: str, topic: str, log: Path) -> int:
    """Wait until the sink has committed the topic's end as it is now; that offset.

    The broker then goes down in steady state: what the sink may write again is what it
    consumed after its last commit, not a backlog of the previous outage.
    """
    _committed, end = _sink_position(bootstrap, topic)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        committed, _end = _sink_position(bootstrap, topic)
        if committed >= end:
            return committed
        time.sleep(0.5)
    raise AssertionError(f"the sink did not commit offset {end} in 90 s ({log})")


def _rewinds(numbers: list[int]) -> list[tuple[int, int]]:
    """(index in the sink file, line number) of each line that goes back in the stream."""
    return [(i, n) for i, n in enumerate(numbers) if i and n <= numbers[i - 1]]


def test_broker_restarts_lose_nothing(
    own_kafka: KafkaCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    topic = f"restart-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    # Per outage: the sink file's length and the sink's committed offset as the broker
    # went down, and the seconds until lines flowed again.
    marks: list[tuple[int, int]] = []
    outages: list[float] = []
    bootstrap = own_kafka.bootstrap_servers
    files = [
        write_props(tmp_path / "worker.properties", worker_props(tmp_path, bootstrap)),
        write_props(tmp_path / "src.properties", file_source("src", source, topic)),
        write_props(tmp_path / "sink.properties", file_sink("sink", sink, topic)),
    ]
    appender = LineAppender(source).begin()
    proc = start_kconnect(["standalone", *map(str, files)], tmp_path, log)
    try:
        for how in ("SIGTERM", "kill -9"):
            wait_for(_grows(sink), 90, f"lines in the sink ({log})")
            committed = _caught_up(bootstrap, topic, log)
            marks.append((line_count(sink), committed))
            down = time.monotonic()
            if how == "SIGTERM":
                own_kafka.stop_node(1)
            else:
                own_kafka.kill_node(1)
            own_kafka.start_node(1)
            wait_for(_grows(sink), 90, f"lines after the broker's {how} restart ({log})")
            outages.append(time.monotonic() - down)
        written = appender.stop()
        wait_for(lambda: every_line(sink, written), 120, f"every line in the sink ({log})")
        _committed, in_topic = _sink_position(bootstrap, topic)
        assert end_process(proc, signal.SIGTERM) == 0, log.read_text()[-3000:]
    finally:
        appender.stop()
        if proc.poll() is None:
            end_process(proc, signal.SIGKILL)
    numbers = [int(line.split()[1]) for line in sink.read_text(encoding="utf-8").splitlines()]
    got = Counter(numbers)
    lost = sum(1 for i in range(written) if i not in got)
    duplicated = len(numbers) - len(got)
    report_crash(
        request.config,
        CrashRow(
            "FileStreamSource → FileStreamSink",
            "at-least-once, broker restarts",
            1,
            1,
            "n/a",
            lost,
            duplicated,
            f"{written} lines; a single-node Apache Kafka broker (data on disk) stopped with "
            "SIGTERM, then with kill -9, each started again under the running standalone "
            "worker (the signals went to the broker, not the worker); lines flowed again "
            + ", ".join(f"{s:.0f} s" for s in outages)
            + " after it went down; every repeat is the sink reading again from its last "
            "commit",
        ),
    )
    assert lost == 0 and set(got) == set(range(written))
    # The producer's retries across the restarts wrote no line twice (idempotence): the
    # topic holds exactly the lines appended, so line N is at offset N.
    assert in_topic == written, (in_topic, written)
    # A restarted broker still knows the sink's committed offset: after each outage the
    # sink goes back at most to it, never to the start of the topic.
    for index, number in _rewinds(numbers):
        _length, committed = max((m for m in marks if m[0] <= index), default=(0, 0))
        assert number >= committed, (
            f"the sink went back to offset {number} after an outage; it had committed "
            f"{committed} before the broker went down ({log})"
        )
