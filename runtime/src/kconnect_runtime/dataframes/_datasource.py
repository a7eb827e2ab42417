"""The ``kconnect`` data source: PySpark's Python Data Source API over the connector catalogue."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from kconnect_sdk import ConnectError, PluginKind
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from ._plan import ConnectorPlan, SourceRun, plan_connector
from ._rows import format_type, row_schema
from ._sink import PartitionResult, write_partition
from ._source import (
    StreamCore,
    StreamPartition,
    read_batch_partition,
    read_stream_partition,
)

__all__ = ["KConnectDataSource", "source_schema"]

log = logging.getLogger("kconnect.dataframes")

SCHEMA_MS = "kconnect.schema.timeout.ms"


def source_schema(plan: ConnectorPlan) -> pa.Schema:
    """The rows' Arrow schema: key and value typed from the first record a task polls.

    With ``value.format``/``key.format`` json or avro, the column is binary and needs no
    record. Otherwise task 0 is started on the driver and polled until its first record
    (at most ``kconnect.schema.timeout.ms``, default 30000), then stopped.
    """
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


class _BatchReader(DataSourceReader):
    def __init__(self, plan: ConnectorPlan, schema: StructType) -> None:
        self.plan = plan
        self.target = to_arrow_schema(schema, timezone="UTC")

    def partitions(self) -> list[InputPartition]:
        return [_TaskPartition(i) for i in range(len(self.plan.task_configs))]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, _TaskPartition)
        yield from read_batch_partition(self.plan, self.target, partition.index)


class _StreamInputPartition(InputPartition):
    def __init__(self, part: StreamPartition) -> None:
        super().__init__(part.index)
        self.part = part


class _StreamReader(DataSourceStreamReader):
    def __init__(self, plan: ConnectorPlan, schema: StructType) -> None:
        self.plan = plan
        self.target = to_arrow_schema(schema, timezone="UTC")
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


class _BatchWriter(DataSourceArrowWriter):
    def __init__(self, plan: ConnectorPlan) -> None:
        self.plan = plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
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


class _StreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, plan: ConnectorPlan) -> None:
        self.plan = plan

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        from pyspark import TaskContext

        context = TaskContext.get()
        batch_id = int(context.getLocalProperty("streaming.sql.batchId") or 0) if context else 0
        # Without an offset column, rows are numbered on from the micro-batch's id, so the
        # offsets a sink names its output by grow across batches.
        return _Commit(write_partition(self.plan, _partition_id(), iterator, batch_id << 32))

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        _log_commit(self.plan, list(messages), batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.error("connector %r: micro-batch %d was aborted", self.plan.name, batchId)


class KConnectDataSource(DataSource):
    """Any kconnect source connector as a DataFrame, any sink connector as a DataFrame sink.

    Options are the connector's config (``connector.class``, its keys, ``transforms``,
    ``key.converter``/``value.converter`` settings) plus the data source's own keys
    (``value.format``, ``key.format``, ``kconnect.*``; see ``docs/spark.md``).
    """

    @classmethod
    def name(cls) -> str:
        return "kconnect"

    def _source_plan(self) -> ConnectorPlan:
        plan: ConnectorPlan | None = getattr(self, "_plan_cache", None)
        if plan is None:
            plan = plan_connector(self.options, PluginKind.SOURCE)
            self._plan_cache = plan
        return plan

    def schema(self) -> StructType:
        return from_arrow_schema(source_schema(self._source_plan()))

    def reader(self, schema: StructType) -> DataSourceReader:
        return _BatchReader(self._source_plan(), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return _StreamReader(self._source_plan(), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        return _BatchWriter(plan_connector(self.options, PluginKind.SINK))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamArrowWriter:
        return _StreamWriter(plan_connector(self.options, PluginKind.SINK))
