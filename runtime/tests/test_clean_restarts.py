"""Clean restarts (issue 20): a SIGTERM during startup, and a sink group that never assigns.

1. ``kconnect standalone`` installs its SIGTERM/SIGINT handlers before anything starts; a
   signal while connectors are still being created (tasks of earlier ones already moving
   records) stops what was started, commits its offsets and exits 0, so a restart repeats
   nothing. Before, the default handler ended the process as kill -9 would.
2. A sink task whose consumer group assigns it nothing for more than twice its session
   timeout says so (status trace, log, ``unassigned-rejoin-total``) and rejoins with a
   fresh consumer, instead of showing RUNNING and consuming nothing, silently.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from kconnect_runtime import Standalone
from runtime_harness import (
    TANSU,
    file_sink,
    file_source,
    line_count,
    wait_for,
    worker_props,
    write_props,
)

pytestmark = pytest.mark.integration

LINES = 20_000

# A connector whose start() takes a while: startup is still creating connectors while the
# tasks of the ones created before it already move records.
SLOW_PLUGIN = textwrap.dedent(
    """
    from __future__ import annotations
    import time
    from kconnect_sdk import ConfigDef, SourceConnector, SourceTask


    class SlowTask(SourceTask):
        def start(self, props):
            pass

        def poll(self):
            time.sleep(0.05)
            return None

        def stop(self):
            pass


    class SlowStartConnector(SourceConnector):
        def config(self):
            return ConfigDef()

        def start(self, props):
            time.sleep(float(props.get("start.seconds", "4")))
            self._props = dict(props)

        def task_class(self):
            return SlowTask

        def task_configs(self, max_tasks):
            return [dict(self._props)]

        def stop(self):
            pass
    """
)


def topic_records(bootstrap: str, topic: str, idle_s: float = 2.0) -> list[tuple[bytes, int]]:
    """Every record (value, timestamp in ms) of partition 0 of ``topic``: read until nothing
    comes for ``idle_s``.

    Not up to the high watermark: Tansu's can lag behind the records it serves.
    """
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex[:8]}"}
    )
    try:
        consumer.assign([KafkaTopicPartition(topic, 0, 0)])
        records: list[tuple[bytes, int]] = []
        last = time.monotonic()
        while time.monotonic() - last < idle_s:
            messages = [m for m in consumer.consume(5000, 0.25) if m.error() is None]
            if messages:
                records.extend((m.value(), m.timestamp()[1]) for m in messages)
                last = time.monotonic()
        return records
    finally:
        consumer.close()


def topic_values(bootstrap: str, topic: str, idle_s: float = 2.0) -> list[bytes]:
    return [value for value, _ in topic_records(bootstrap, topic, idle_s)]


def test_sigterm_during_startup_stops_what_started_and_commits(kafka: str, tmp_path: Path) -> None:
    (tmp_path / "slowstart_plugin.py").write_text(SLOW_PLUGIN, encoding="utf-8")
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(LINES)), encoding="utf-8")
    topic = f"startup-{uuid.uuid4().hex[:8]}"
    # Kafka's default interval: without a clean stop, nothing would be committed at all.
    worker = worker_props(tmp_path, kafka, **{"offset.flush.interval.ms": "60000"})
    files = [
        write_props(tmp_path / "worker.properties", worker),
        write_props(tmp_path / "src.properties", file_source("src", source, topic)),
        write_props(
            tmp_path / "slow.properties",
            {"name": "slow", "connector.class": "slowstart_plugin:SlowStartConnector"},
        ),
        write_props(tmp_path / "late.properties", file_source("late", source, f"{topic}-late")),
    ]
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", *map(str, files)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    assert proc.stdout is not None
    log: list[str] = []
    try:
        for raw in proc.stdout:
            line = raw.decode(errors="replace")
            log.append(line)
            if "created connector src" in line:
                break
        else:
            pytest.fail("the worker ended before creating connector src:\n" + "".join(log))
        # src's task runs while "slow" is still starting: let it move records, then stop.
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log.append(out.decode(errors="replace"))
    text = "".join(log)
    assert proc.returncode == 0, f"exit code {proc.returncode}:\n{text}"
    assert "not creating connector 'late'" in text, text
    assert "created connector late" not in text, text
    # The stop committed src's offsets: the file holds a position for it.
    offsets = json.loads((tmp_path / "offsets.json").read_text(encoding="utf-8"))
    assert [e["key"][0] for e in offsets["offsets"] if e["value"]["position"] > 0] == ["src"]
    sent_before = len(topic_values(kafka, topic))
    assert sent_before > 0, text

    # A restart resumes from the committed position: every line exactly once in the topic.
    app = Standalone(worker, [file_source("src", source, topic)])
    app.start()
    try:
        wait_for(lambda: len(topic_values(kafka, topic)) >= LINES, 90, f"{LINES} records")
        values = topic_values(kafka, topic)
    finally:
        app.stop()
    assert len(values) == LINES, f"{len(values) - LINES} records repeated after a clean stop"
    assert len(set(values)) == LINES


def _wedge_group(bootstrap: str, group: str, topic: str) -> None:
    """Leave ``group`` mid-join, as a sink task's consumer stopped during a rebalance does.

    The embedded development broker (Tansu) then never completes a join of that group
    again; Apache Kafka does. Two plain consumers reproduce it.
    """
    settings = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "session.timeout.ms": 6000,
        "auto.offset.reset": "earliest",
    }
    first = Consumer(settings)
    first.subscribe([topic])
    first.consume(10, 0.5)
    second = Consumer(settings)
    second.subscribe([topic])
    second.consume(10, 0.2)
    first.close()  # while the group is still joining
    second.close()


# Only the embedded broker wedges a group this way; on Apache Kafka the task is assigned its
# partition and this watch never fires.
@pytest.mark.parametrize("kafka", [TANSU], indirect=True)
def test_sink_whose_group_never_assigns_says_so_and_rejoins(kafka: str, tmp_path: Path) -> None:
    topic = f"stall-{uuid.uuid4().hex[:8]}"
    producer = Producer({"bootstrap.servers": kafka})
    for i in range(10):
        producer.produce(topic, f"r{i}".encode(), partition=0)
    producer.flush(10)
    _wedge_group(kafka, "connect-stalled", topic)

    app = Standalone(
        worker_props(tmp_path, kafka), [file_sink("stalled", tmp_path / "out.txt", topic)]
    )
    worker = app.start()
    try:
        runner = worker.connectors["stalled"].tasks[0]
        # consumer.session.timeout.ms is 6 s here: the task speaks up after 12 s, rejoins after 30 s.
        wait_for(lambda: runner.metrics.unassigned_rejoins >= 1, 60, "a rejoin")
        status = runner.status.to_rest()
        assert status["state"] == "RUNNING"
        assert "has assigned this task nothing" in status.get("trace", ""), status
        assert "connect-stalled" in status["trace"]
        # The REST/Prometheus view carries the counter too.
        from kconnect_runtime.metrics import SINK_METRICS

        names = {name: getter for _group, name, _kind, _help, getter in SINK_METRICS}
        assert names["unassigned-rejoin-total"](runner.metrics) >= 1
    finally:
        app.stop()


# -- bounded repeats (issue 20, part 2) -------------------------------------------------------
REPEAT_LINES = 600_000
REPEAT_BOUND_S = 2.5  # offsets commit about once a second; allow for in-flight batches


def _start_worker(tmp_path: Path, files: list[Path]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", *map(str, files)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_kill9_repeats_about_a_second_of_data(kafka: str, tmp_path: Path) -> None:
    """With Kafka's 60 s offset.flush.interval.ms, a kill -9 repeats ~1 s, not a minute."""
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(REPEAT_LINES)), encoding="utf-8")
    sink = tmp_path / "out.txt"
    topic = f"repeat-{uuid.uuid4().hex[:8]}"
    worker = worker_props(tmp_path, kafka, **{"offset.flush.interval.ms": "60000"})
    files = [
        write_props(tmp_path / "worker.properties", worker),
        write_props(tmp_path / "src.properties", file_source("src", source, topic)),
        write_props(tmp_path / "sink.properties", file_sink("sink", sink, topic)),
    ]
    offsets = tmp_path / "offsets.json"
    proc = _start_worker(tmp_path, files)
    try:
        # Kill 1, while the source sends: just after its first offset commit.
        wait_for(offsets.exists, 90, "the source's first offset commit")
        time.sleep(0.5)
        proc.kill()  # kill -9: no stop, no final commit
        proc.wait(10)
        # The source's rate while it ran, from its records' timestamps (the producer sets
        # them as it sends): a worker's start-up, slow on a loaded machine, is left out.
        sent = topic_records(kafka, topic, idle_s=1.0)
        span_s = max((sent[-1][1] - sent[0][1]) / 1000, 0.001) if sent else 1.0
        source_rate = len(sent) / span_s
        proc = _start_worker(tmp_path, files)
        restarted = time.monotonic()
        # Kill 2, while the sink writes.
        wait_for(lambda: line_count(sink) >= REPEAT_LINES // 10, 90, "the sink to start")
        # The sink's file grows in bursts (a buffer written out per batch and at each
        # commit), so a short window can see little growth on a busy machine: take the
        # larger of the last second's rate and the average since the restart.
        before, since = line_count(sink), time.monotonic()
        time.sleep(1.0)
        written, now = line_count(sink), time.monotonic()
        sink_rate = max((written - before) / (now - since), written / (now - restarted))
        assert written < REPEAT_LINES, "the run ended before the kill: use more lines"
        proc.kill()
        proc.wait(10)
        proc = _start_worker(tmp_path, files)
        wait_for(
            lambda: len(set(sink.read_bytes().splitlines())) >= REPEAT_LINES,
            180,
            "every line in the sink file after the restarts",
        )
        time.sleep(2.0)  # a repeat still in flight would land by now
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    sunk = sink.read_bytes().splitlines()
    topic_dups = len(topic_values(kafka, topic)) - REPEAT_LINES
    sink_dups = len(sunk) - REPEAT_LINES
    source_bound = 2 * source_rate * REPEAT_BOUND_S
    sink_bound = 2 * sink_rate * REPEAT_BOUND_S
    print(
        f"two kill -9s: source ~{source_rate:.0f} records/s, topic +{topic_dups} (bound "
        f"{source_bound:.0f}); sink {sink_rate:.0f} records/s, sink file +{sink_dups} "
        f"(bound topic's + {sink_bound:.0f}); {REPEAT_BOUND_S} s of data per kill"
    )
    assert len(set(sunk)) == REPEAT_LINES  # nothing lost
    assert 0 <= topic_dups <= source_bound, f"the source repeated {topic_dups} records"
    # The sink re-writes the source's repeats as well as its own.
    assert 0 <= sink_dups - topic_dups <= sink_bound, f"the sink repeated {sink_dups} lines"
