"""Reading a source connector into a DataFrame: batch and streaming readers.

Batch (``spark.read``): each of the connector's tasks is one input partition; an executor
starts the task and polls it until the task says it has returned everything
(``SourceTask.finished()``: the JDBC source after its pass over its tables) or, for tasks
that cannot tell, until it has been idle for ``kconnect.read.idle.ms`` (the source has
ended: a file at its end, a CDC snapshot with ``snapshot.mode=initial_only`` taken).

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
from kconnect_sdk import ConnectError, SourceBatch, SourceRecord

from kconnect_runtime.storage import offset_key
from kconnect_runtime.tasks import apply_gc_policy

from ._columns import Polled, polled_rows
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
    """Run task ``index`` until it is finished or its source is idle; yield its rows as
    record batches. Runs in a Spark Python worker: the collector is tuned for record batches
    there as the spark engine's executors do (``apply_gc_policy``; measured on 500,000
    simple rows: 1.27-1.34 CPU-s with CPython's defaults, 0.55-0.58 CPU-s tuned)."""
    apply_gc_policy()
    idle_s = plan.own_int(IDLE_MS, 2000) / 1000
    start_s = plan.own_int(START_MS, 30000) / 1000
    rows = plan.own_int(BATCH_ROWS, 10000)
    run = SourceRun(plan, index, [])
    encoder = RowEncoder(plan, target, _spark_type, run.errors)
    try:
        # What the polls gave: record lists, or the task's columnar batches (a task that
        # implements poll_batch, read without transforms: no record per row).
        pending: list[Polled] = []
        pending_rows = 0
        seen = False
        last = time.monotonic()
        columnar = run.columnar
        while True:
            polled: bool
            if columnar:
                batch = run.poll_batch()
                polled = batch is not None
                if batch is not None:
                    pending.append(batch)
                    pending_rows += len(batch)
            else:
                got, records = run.poll()
                polled = bool(got)
                if records:
                    pending.append(records)
                    pending_rows += len(records)
            if polled:
                seen = True
                last = time.monotonic()
                if pending_rows >= rows:
                    yield from encoder.encode_polled(pending, rows)
                    pending, pending_rows = [], 0
            elif time.monotonic() - last >= (idle_s if seen else start_s):
                break
            if run.finished():
                break
        if pending:
            yield from encoder.encode_polled(pending, rows)
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
"""One task's position: offset key (canonical JSON of the partition) → [partition, offset, n].

``n`` is how many records in a row, up to this position, have carried this same source
offset. Most sources give every record its own offset (n is 1), but some give a run of
records one offset: a CDC snapshot's rows all carry the snapshot's binlog position until its
last row, and a task restarted inside such a run emits the run again from its start. With
``n``, a micro-batch can end inside a run, and a task restarted there skips the ``n``
records of the run it emits again.
"""


def _task_offsets(offset: dict[str, Any], index: int) -> _TaskOffsets:
    entries = offset.get("tasks", {}).get(str(index), [])
    # [partition, offset] (without n) is a checkpoint written before n existed: nothing skipped.
    return {offset_key("", e[0]): [e[0], e[1], e[2] if len(e) > 2 else 0] for e in entries}


_TIME_KEYS = frozenset({"ts_sec", "ts_ms", "ts_usec", "ts_ns"})
"""Offset keys that say when, not where (Debezium's offsets carry one): a snapshot taken
again at the same binlog position is the same run of records, whatever its clock says."""


def _same_place(a: Any, b: Any) -> bool:
    """Whether two source offsets name the same place (equal but for :data:`_TIME_KEYS`)."""
    if a == b:
        return True
    if type(a) is not dict or type(b) is not dict or a.keys() != b.keys():
        return False
    times = _TIME_KEYS & a.keys()
    if not times:
        return False
    return all(a[k] == b[k] for k in a if k not in times)


class _Runs:
    """A task's position, record by record, and the re-emitted records to skip after a restart.

    Args:
        start: The position the task was started on.
        stop: For a replay: each source partition's position to stop at; records of other
            partitions, and records of a partition after its stop, are dropped.
    """

    def __init__(self, start: _TaskOffsets, stop: _TaskOffsets | None = None) -> None:
        self.position: _TaskOffsets = {k: list(v) for k, v in start.items()}
        self._skip = {k: [v[1], v[2]] for k, v in start.items() if v[2] > 0}
        self._stop = stop
        self.reached: set[str] = set()

    def select(self, polled: list[SourceRecord]) -> list[SourceRecord]:
        """The records of a poll that are new, counting each into the position."""
        keep: list[SourceRecord] = []
        position = self.position
        skip = self._skip
        stop = self._stop
        last_partition: Any = object()
        key = ""
        for r in polled:
            partition = r.source_partition
            offset = r.source_offset
            if partition is None and offset is None:
                if stop is None:
                    keep.append(r)
                continue
            if partition is not last_partition:
                last_partition = partition
                key = offset_key("", partition)
            if skip:
                pending = skip.get(key)
                if pending is not None:
                    if pending[1] > 0 and _same_place(offset, pending[0]):
                        pending[1] -= 1  # emitted again: already in an earlier micro-batch
                        continue
                    del skip[key]
            if stop is not None and (key in self.reached or key not in stop):
                continue
            at = position.get(key)
            if at is not None and _same_place(at[1], offset):
                at[1] = offset
                at[2] += 1
            else:
                position[key] = [partition, offset, 1]
            keep.append(r)
            if stop is not None:
                want = stop[key]
                at = position[key]
                if _same_place(at[1], want[1]) and (at[2] == want[2] or want[2] == 0):
                    self.reached.add(key)
        return keep

    def select_batch(self, batch: SourceBatch) -> Polled:
        """:meth:`select` for a columnar batch: the batch itself, counted into the position.

        Only the batch's last rows are looked at (the run of rows at its last offset). When
        rows may have to be skipped (the first polls after a restart inside a run of one
        offset) or dropped (a replay), the batch's records take :meth:`select` instead.
        """
        partition = batch.source_partition
        if partition is None or self._stop is not None:
            return batch if self._stop is None else self.select(batch.records())
        key = offset_key("", partition)
        if self._skip.get(key) is not None or (
            batch.source_offsets is None and batch.source_offset_columns is None
        ):
            return self.select(batch.records())
        n = len(batch)
        offset = batch.source_offset(n - 1)
        i = n - 2
        while i >= 0 and _same_place(batch.source_offset(i), offset):
            i -= 1
        count = n - 1 - i
        at = self.position.get(key)
        if count == n and at is not None and _same_place(at[1], offset):
            count += at[2]
        self.position[key] = [partition, offset, count]
        return batch


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
        self.runs = _Runs(offsets)
        # Per poll: what it gave (records, or a columnar batch) and the position after it.
        self.polled: collections.deque[tuple[Polled, dict[str, list[Any]]]] = collections.deque()
        self.buffered = 0
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
            columnar = self.run.columnar
            while not self.stopping.is_set():
                with self.cond:
                    while self.buffered >= self.bound and not self.stopping.is_set():
                        self.cond.wait(0.5)
                item: Polled
                if columnar:
                    batch = self.run.poll_batch()
                    if batch is None:
                        continue
                    item = self.runs.select_batch(batch)
                else:
                    polled, item = self.run.poll(self.runs.select)
                    if not polled:
                        continue
                # The position counts the records as polled (a transform may drop a record;
                # its offset still moves the task's position on).
                last = {k: list(v) for k, v in self.runs.position.items()}
                with self.cond:
                    self.polled.append((item, last))
                    self.buffered += len(item)
        except BaseException as exc:
            self.error = exc

    def take(self, limit: int) -> tuple[list[Polled], dict[str, list[Any]]]:
        """Whole polls (at most ``limit`` records, at least one poll) and their offsets."""
        if self.error is not None:
            raise ConnectError(f"{self.error}") from self.error
        items: list[Polled] = []
        rows = 0
        offsets: dict[str, list[Any]] = {}
        with self.cond:
            while self.polled and (not rows or rows + len(self.polled[0][0]) <= limit):
                item, last = self.polled.popleft()
                items.append(item)
                rows += len(item)
                self.buffered -= len(item)
                offsets.update(last)
            self.cond.notify_all()
        return items, offsets

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
        self._skipped: dict[tuple[int, int], int] = {}

    def initial_offset(self) -> dict[str, Any]:
        return {"tasks": {str(i): [] for i in range(len(self.plan.task_configs))}}

    def _start(self, start: dict[str, Any]) -> None:
        # Spark runs a Python stream reader in a process of its own (its streaming source
        # runner), never the user's: tuned for record batches as the executors are (400,000
        # simple rows polled and encoded: 2.4-2.6 -> 1.5-1.6 CPU-s).
        apply_gc_policy()
        for i in range(len(self.plan.task_configs)):
            offsets = _task_offsets(start, i)
            self._position[i] = dict(offsets)
            self._tasks[i] = _Prefetcher(self.plan, i, offsets, self.max_records)
            # Its own errors.* handler: the prefetching thread uses the task's.
            self._encoders[i] = RowEncoder(
                self.plan, self.target, _spark_type, self.plan.error_handler(i)
            )

    def latest_offset(self, start: dict[str, Any], max_rows: int | None) -> dict[str, Any]:
        if not self._tasks:
            self._start(start)
        limit = min(self.max_records, max_rows or self.max_records)
        data: dict[int, bytes] = {}
        moved = False
        for i, prefetcher in self._tasks.items():
            items, offsets = prefetcher.take(max(1, limit // len(self._tasks)))
            if offsets:
                for k, pair in offsets.items():
                    if self._position[i].get(k) != pair:
                        moved = True
                self._position[i].update(offsets)
            if polled_rows(items):
                moved = True
                data[i] = _ipc(self._encoders[i].encode_polled(items, self.rows), self.target)
            for side, errors in enumerate((prefetcher.run.errors, self._encoders[i].errors)):
                if errors is None:
                    continue
                errors.flush()  # skipped records are in the DLQ before the batch is planned
                self._skipped[(i, side)] = report_skipped(
                    errors, "in this micro-batch", self._skipped.get((i, side), 0)
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
            try:
                encoder.close()
            finally:
                if encoder.errors is not None:
                    encoder.errors.close()
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
    apply_gc_policy()  # in a Spark Python worker, as for a batch read
    yield from _replay(plan, target, partition)


def _replay(
    plan: ConnectorPlan, target: pa.Schema, partition: StreamPartition
) -> Iterator[pa.RecordBatch]:
    """Read a batch again: from its start offsets until each source partition is at its end."""
    start = _task_offsets({"tasks": {"0": partition.start}}, 0)
    end = _task_offsets({"tasks": {"0": partition.end}}, 0)
    targets = {k: v for k, v in end.items() if start.get(k) != v}
    runs = _Runs(start, targets)
    reached = runs.reached
    timeout_s = plan.own_int(REPLAY_MS, 120_000) / 1000
    rows = plan.own_int(BATCH_ROWS, 10000)
    run = SourceRun(plan, partition.index, list(start.values()))
    encoder = RowEncoder(plan, target, _spark_type, run.errors)
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
            _, keep = run.poll(runs.select)
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
