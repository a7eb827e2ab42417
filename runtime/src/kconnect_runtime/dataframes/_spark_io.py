"""What the ``kconnect`` data source hands Spark: its schema, readers and writers.

Imported on first use by :class:`KConnectDataSource`, so that Spark's lookup of data sources
(a Python process of its own importing every ``pyspark_*`` module) does not pay for it; and
each reader and writer imports the data path (the plugin registry, the connector's tasks)
only where it runs, so that the planner process, which only pickles them for the executors,
does not either.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kconnect_sdk import ConnectError
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import to_arrow_schema

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql.types import StructType

    from ._plan import ConnectorPlan
    from ._sink import PartitionResult
    from ._source import StreamPartition

__all__ = [
    "BatchReader",
    "BatchWriter",
    "StreamReader",
    "StreamWriter",
    "source_schema",
]

log = logging.getLogger("kconnect.dataframes")

SCHEMA_MS = "kconnect.schema.timeout.ms"


def source_schema(plan: ConnectorPlan) -> pa.Schema:
    """The rows' Arrow schema: key and value typed from the first record a task polls.

    With ``value.format``/``key.format`` json or avro, the column is binary and needs no
    record. Otherwise task 0 is started on the driver and polled until its first record
    (at most ``kconnect.schema.timeout.ms``, default 30000), then stopped.
    """
    import pyarrow as pa

    from ._plan import SourceRun
    from ._rows import format_type, row_schema

    if plan.key_format != "connect" and plan.value_format != "connect":
        return row_schema(pa.binary(), pa.binary())
    timeout_s = plan.own_int(SCHEMA_MS, 30000) / 1000
    run = SourceRun(plan, 0, [])
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            _, records = run.poll()
            if records:
                first = records[0]
                return row_schema(
                    format_type(plan.key_format, first.key_schema),
                    format_type(plan.value_format, first.value_schema),
                )
            if time.monotonic() > deadline:
                raise ConnectError(
                    f"connector {plan.name!r}: no record arrived within {SCHEMA_MS}="
                    f"{timeout_s * 1000:.0f} ms to derive the DataFrame's schema from; give the "
                    "schema with .schema(...) or set value.format=json"
                )
    finally:
        run.stop()


class _TaskPartition(InputPartition):
    def __init__(self, index: int) -> None:
        super().__init__(index)
        self.index = index


class BatchReader(DataSourceReader):
    def __init__(self, plan: ConnectorPlan, schema: StructType) -> None:
        self.plan = plan
        self.target = to_arrow_schema(schema, timezone="UTC")

    def partitions(self) -> list[InputPartition]:
        return [_TaskPartition(i) for i in range(len(self.plan.task_configs))]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from ._source import read_batch_partition

        assert isinstance(partition, _TaskPartition)
        yield from read_batch_partition(self.plan, self.target, partition.index)


class _StreamInputPartition(InputPartition):
    def __init__(self, part: StreamPartition) -> None:
        super().__init__(part.index)
        self.part = part


class StreamReader(DataSourceStreamReader):
    def __init__(self, plan: ConnectorPlan, schema: StructType) -> None:
        self.plan = plan
        self.target = to_arrow_schema(schema, timezone="UTC")
        from ._source import StreamCore

        self.core = StreamCore(plan, self.target)

    def initialOffset(self) -> dict[str, Any]:  # PySpark's method name
        return self.core.initial_offset()

    def latestOffset(
        self, start: dict[str, Any] | None = None, limit: Any = None
    ) -> dict[str, Any]:
        if start is None:
            start = self.core.initial_offset()
        max_rows = getattr(limit, "max_rows", None)
        return self.core.latest_offset(start, max_rows)

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[InputPartition]:
        return [_StreamInputPartition(p) for p in self.core.partitions(start, end)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        from ._source import read_stream_partition

        assert isinstance(partition, _StreamInputPartition)
        yield from read_stream_partition(self.plan, self.target, partition.part)

    def commit(self, end: dict[str, Any]) -> None:
        self.core.commit(end)

    def stop(self) -> None:
        self.core.stop()


class _Commit(WriterCommitMessage):
    def __init__(self, result: PartitionResult) -> None:
        self.result = result


def _partition_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.partitionId() if context is not None else 0


def _log_commit(plan: ConnectorPlan, messages: list[Any], batch: int | None) -> None:
    results = [m.result for m in messages if isinstance(m, _Commit)]
    committed: dict[tuple[str, int], int] = {}
    for r in results:
        for tp, off in r.committed.items():
            committed[tp] = max(committed.get(tp, 0), off)
    skipped = sum(r.skipped for r in results)
    log.info(
        "connector %r: %s rows written by %d sink tasks%s%s; offsets acknowledged: %s",
        plan.name,
        sum(r.rows for r in results) - skipped,
        len(results),
        f", {skipped} rows skipped under errors.tolerance=all" if skipped else "",
        "" if batch is None else f" in micro-batch {batch}",
        {f"{t}-{p}": o for (t, p), o in sorted(committed.items())},
    )


class BatchWriter(DataSourceArrowWriter):
    def __init__(self, plan: ConnectorPlan) -> None:
        self.plan = plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        from ._sink import write_partition

        return _Commit(write_partition(self.plan, _partition_id(), iterator))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        _log_commit(self.plan, list(messages), None)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        log.error(
            "connector %r: the DataFrame write was aborted; %d partitions had been put and "
            "flushed by their sink tasks",
            self.plan.name,
            sum(1 for m in messages if m is not None),
        )


class StreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, plan: ConnectorPlan) -> None:
        self.plan = plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        from pyspark import TaskContext

        from ._sink import write_partition

        context = TaskContext.get()
        batch_id = int(context.getLocalProperty("streaming.sql.batchId") or 0) if context else 0
        # Without an offset column, rows are numbered on from the micro-batch's id, so the
        # offsets a sink names its output by grow across batches.
        return _Commit(write_partition(self.plan, _partition_id(), iterator, batch_id << 32))

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        _log_commit(self.plan, list(messages), batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.error("connector %r: micro-batch %d was aborted", self.plan.name, batchId)
