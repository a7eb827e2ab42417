"""Reading a source connector into a DataFrame: batch and streaming readers.

Batch (``spark.read``): each of the connector's tasks is one input partition; an executor
starts the task and polls it until it has been idle for ``kconnect.read.idle.ms`` (the
source has ended: a JDBC bulk query read, a file at its end, a CDC snapshot with
``snapshot.mode=initial_only`` taken).

Streaming (``spark.readStream``): Spark's offsets are the tasks' source partition → offset
maps. The driver keeps each task running (started on the offsets the query starts from) and
each micro-batch takes what they have polled: its end offset is the last source offset of
each source partition, its rows travel to the executors as Arrow data in the input
partitions (as Spark's own prefetching readers do). A batch Spark replays after a restart
(planned, not committed) is read again by a fresh task on an executor, started on the
batch's start offsets and stopped when every source partition has reached the batch's end:
nothing lost, nothing repeated, for connectors whose offsets say where to resume (CDC,
FileStream, JDBC incrementing/timestamp modes). ``commit`` reaches the tasks' ``commit``.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from kconnect_sdk import ConnectError, SourceRecord

from kconnect_runtime.storage import offset_key

from ._errors import report_skipped
from ._plan import ConnectorPlan, SourceRun
from ._rows import RowEncoder

__all__ = ["StreamCore", "StreamPartition", "read_batch_partition", "read_stream_partition"]

log = logging.getLogger("kconnect.dataframes")

IDLE_MS = "kconnect.read.idle.ms"
START_MS = "kconnect.read.start.timeout.ms"
BATCH_ROWS = "kconnect.batch.rows"
MAX_RECORDS = "kconnect.stream.max.records"
REPLAY_MS = "kconnect.replay.timeout.ms"


def _spark_type(arrow: pa.DataType) -> Any:
    from pyspark.sql.pandas.types import from_arrow_type

    return from_arrow_type(arrow)


def read_batch_partition(
    plan: ConnectorPlan, target: pa.Schema, index: int
) -> Iterator[pa.RecordBatch]:
    """Run task ``index`` until its source is idle; yield its rows as record batches."""
    idle_s = plan.own_int(IDLE_MS, 2000) / 1000
    start_s = plan.own_int(START_MS, 30000) / 1000
    rows = plan.own_int(BATCH_ROWS, 10000)
    run = SourceRun(plan, index, [])
    encoder = RowEncoder(plan, target, _spark_type, run.errors)
    try:
        pending: list[SourceRecord] = []
        seen = False
        last = time.monotonic()
        while True:
            polled, records = run.poll()
            now = time.monotonic()
            if polled:
                seen = True
                last = now
                pending.extend(records)
                if len(pending) >= rows:
                    yield from encoder.encode_chunks(pending, rows)
                    pending = []
            elif now - last >= (idle_s if seen else start_s):
                break
        if pending:
            yield from encoder.encode_chunks(pending, rows)
        run.errors.flush()  # the DLQ has every skipped record before the read counts as done
        report_skipped(run.errors, "reading this partition")
        run.commit()
    finally:
        try:
            run.stop()
        finally:
            encoder.close()


# -- streaming --------------------------------------------------------------------------------

_TaskOffsets = dict[str, list[Any]]
"""One task's position: offset key (canonical JSON of the partition) → [partition, offset]."""


def _task_offsets(offset: dict[str, Any], index: int) -> _TaskOffsets:
    pairs = offset.get("tasks", {}).get(str(index), [])
    return {offset_key("", p): [p, o] for p, o in pairs}


def _offset_dict(tasks: dict[int, _TaskOffsets]) -> dict[str, Any]:
    return {"tasks": {str(i): [tasks[i][k] for k in sorted(tasks[i])] for i in sorted(tasks)}}


def _key(offset: dict[str, Any]) -> str:
    return json.dumps(offset, sort_keys=True, separators=(",", ":"))


class StreamPartition:
    """One task's part of one micro-batch: its rows as Arrow IPC, or None to replay."""

    def __init__(self, index: int, start: list[Any], end: list[Any], data: bytes | None) -> None:
        self.index = index
        self.start = start
        self.end = end
        self.data = data


class _Prefetcher:
    """A task running on the driver in its own thread, polling into a bounded buffer."""

    def __init__(self, plan: ConnectorPlan, index: int, offsets: _TaskOffsets, bound: int) -> None:
        self.run = SourceRun(plan, index, list(offsets.values()))
        self.buffer: collections.deque[SourceRecord] = collections.deque()
        self.polled: collections.deque[list[Any]] = collections.deque()
        self.bound = bound
        self.cond = threading.Condition()
        self.error: BaseException | None = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(
            target=self._loop, name=f"kconnect-df-{plan.name}-{index}", daemon=True
        )
        self.thread.start()

    def _loop(self) -> None:
        try:
            while not self.stopping.is_set():
                with self.cond:
                    while len(self.buffer) >= self.bound and not self.stopping.is_set():
                        self.cond.wait(0.5)
                polled, records = self.run.poll()
                if not polled:
                    continue
                # Offsets come from the records as polled (a transform may drop a record;
                # its offset still moves the task's position on).
                last: dict[str, list[Any]] = {}
                for r in polled:
                    if r.source_partition is None and r.source_offset is None:
                        continue
                    last[offset_key("", r.source_partition)] = [
                        r.source_partition,
                        r.source_offset,
                    ]
                with self.cond:
                    self.buffer.extend(records)
                    self.polled.append([len(records), last])
        except BaseException as exc:
            self.error = exc

    def take(self, limit: int) -> tuple[list[SourceRecord], dict[str, list[Any]]]:
        """Whole polls (at most ``limit`` records, at least one poll) and their offsets."""
        if self.error is not None:
            raise ConnectError(f"{self.error}") from self.error
        records: list[SourceRecord] = []
        offsets: dict[str, list[Any]] = {}
        with self.cond:
            while self.polled and (not records or len(records) + self.polled[0][0] <= limit):
                count, last = self.polled.popleft()
                records.extend(self.buffer.popleft() for _ in range(count))
                offsets.update(last)
            self.cond.notify_all()
        return records, offsets

    def stop(self) -> None:
        self.stopping.set()
        with self.cond:
            self.cond.notify_all()
        self.thread.join(10)
        self.run.stop()


class StreamCore:
    """The driver side of a streaming read (held by the stream reader in Spark's driver)."""

    def __init__(self, plan: ConnectorPlan, target: pa.Schema) -> None:
        self.plan = plan
        self.target = target
        self.max_records = plan.own_int(MAX_RECORDS, 200_000)
        self.rows = plan.own_int(BATCH_ROWS, 10000)
        self._tasks: dict[int, _Prefetcher] = {}
        self._position: dict[int, _TaskOffsets] = {}
        self._cache: dict[str, dict[int, bytes]] = {}
        self._encoders: dict[int, RowEncoder] = {}
        self._skipped: dict[int, int] = {}

    def initial_offset(self) -> dict[str, Any]:
        return {"tasks": {str(i): [] for i in range(len(self.plan.task_configs))}}

    def _start(self, start: dict[str, Any]) -> None:
        for i in range(len(self.plan.task_configs)):
            offsets = _task_offsets(start, i)
            self._position[i] = dict(offsets)
            self._tasks[i] = _Prefetcher(self.plan, i, offsets, self.max_records)
            self._encoders[i] = RowEncoder(
                self.plan, self.target, _spark_type, self._tasks[i].run.errors
            )

    def latest_offset(self, start: dict[str, Any], max_rows: int | None) -> dict[str, Any]:
        if not self._tasks:
            self._start(start)
        limit = min(self.max_records, max_rows or self.max_records)
        data: dict[int, bytes] = {}
        moved = False
        for i, prefetcher in self._tasks.items():
            records, offsets = prefetcher.take(max(1, limit // len(self._tasks)))
            if offsets:
                for k, pair in offsets.items():
                    if self._position[i].get(k) != pair:
                        moved = True
                self._position[i].update(offsets)
            if records:
                moved = True
                data[i] = _ipc(self._encoders[i].encode_chunks(records, self.rows), self.target)
            errors = prefetcher.run.errors
            errors.flush()  # skipped records are in the DLQ before the batch is planned
            self._skipped[i] = report_skipped(
                errors, "in this micro-batch", self._skipped.get(i, 0)
            )
        if not moved:
            return start
        end = _offset_dict(self._position)
        self._cache[_key(end)] = data
        return end

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[StreamPartition]:
        data = self._cache.get(_key(end))
        out = []
        for i in range(len(self.plan.task_configs)):
            s = start.get("tasks", {}).get(str(i), [])
            e = end.get("tasks", {}).get(str(i), [])
            if data is not None:
                if i in data:
                    out.append(StreamPartition(i, s, e, data[i]))
            elif _task_offsets(start, i) != _task_offsets(end, i):
                out.append(StreamPartition(i, s, e, None))
        return out

    def commit(self, end: dict[str, Any]) -> None:
        key = _key(end)
        # Batches up to this one are done: their rows are no longer needed for planning.
        keys = list(self._cache)
        if key in keys:
            for k in keys[: keys.index(key) + 1]:
                del self._cache[k]
        for prefetcher in self._tasks.values():
            try:
                prefetcher.run.commit()
            except Exception:
                log.exception("connector %r: SourceTask.commit raised", self.plan.name)

    def stop(self) -> None:
        for prefetcher in self._tasks.values():
            try:
                prefetcher.stop()
            except Exception:
                log.exception("connector %r: stopping a task failed", self.plan.name)
        self._tasks.clear()
        for encoder in self._encoders.values():
            encoder.close()
        self._encoders.clear()


def _ipc(batches: Iterator[pa.RecordBatch], schema: pa.Schema) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return bytes(sink.getvalue().to_pybytes())


def read_stream_partition(
    plan: ConnectorPlan, target: pa.Schema, partition: StreamPartition
) -> Iterator[pa.RecordBatch]:
    """A micro-batch's rows of one task: the prefetched data, or a replay from its start."""
    if partition.data is not None:
        reader = pa.ipc.open_stream(partition.data)
        yield from reader
        return
    yield from _replay(plan, target, partition)


def _replay(
    plan: ConnectorPlan, target: pa.Schema, partition: StreamPartition
) -> Iterator[pa.RecordBatch]:
    """Read a batch again: from its start offsets until each source partition is at its end."""
    start = {offset_key("", p): o for p, o in partition.start}
    targets = {offset_key("", p): o for p, o in partition.end if start.get(offset_key("", p)) != o}
    timeout_s = plan.own_int(REPLAY_MS, 120_000) / 1000
    rows = plan.own_int(BATCH_ROWS, 10000)
    run = SourceRun(plan, partition.index, [[p, o] for p, o in partition.start])
    encoder = RowEncoder(plan, target, _spark_type, run.errors)
    reached: set[str] = set()
    deadline = time.monotonic() + timeout_s
    try:
        pending: list[SourceRecord] = []
        while len(reached) < len(targets):
            if time.monotonic() > deadline:
                missing = sorted(set(targets) - reached)
                raise ConnectError(
                    f"connector {plan.name!r} task {partition.index}: replaying a micro-batch "
                    f"after a restart did not reach the batch's end offsets within {REPLAY_MS}="
                    f"{timeout_s * 1000:.0f} ms (source partitions not reached: {missing}); the "
                    "source cannot serve its past records again from the checkpoint's offsets"
                )
            polled, _ = run.poll()
            keep: list[SourceRecord] = []
            for r in polled:
                k = offset_key("", r.source_partition)
                if k in reached or k not in targets:
                    continue
                keep.append(r)
                if r.source_offset == targets[k]:
                    reached.add(k)
            keep = run.transform(keep)
            pending.extend(keep)
            if len(pending) >= rows:
                yield from encoder.encode_chunks(pending, rows)
                pending = []
        if pending:
            yield from encoder.encode_chunks(pending, rows)
        run.errors.flush()
    finally:
        try:
            run.stop()
        finally:
            encoder.close()
