"""Writing a DataFrame through a sink connector: each Spark partition is one sink task's batch.

An executor starts one of the connector's tasks (task ``partition id mod task count``),
opens the topic partitions its rows name, ``put``s the rows as SinkRecords (converted in
Arrow batches, through the connector's transforms), then calls ``pre_commit`` (whose
default is ``flush``) and checks that the task reports every row durable: a sink that
buffers rows past the end of a Spark partition (the S3 sink below ``flush.size``) would
otherwise lose them, since no Kafka consumer will deliver them again. It fails the Spark
task instead, naming the topic partition and how far the sink got. Then the task's
partitions are closed and it is stopped; a failure closes and stops it too (the SinkTask
API has no abort: ``close`` without a commit is how Kafka Connect abandons a partition).

Row columns: ``topic`` (else option ``kconnect.topic``, else the first of ``topics``),
``partition`` and ``offset`` when they are integers (else the Spark partition id and the
row's position in it, continued across micro-batches), ``key``, ``value``, ``headers``
(``array<struct<key string, value binary>>``, decoded by the header converter),
``timestamp``. Other columns: without a ``value`` column, the row itself (all columns
but the Kafka ones) is the value struct.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from kconnect_sdk import (
    ConnectError,
    Header,
    Headers,
    SinkRecord,
    SinkTask,
    TimestampType,
    TopicPartition,
)

from ._plan import ConnectorPlan
from ._types import connect_builder, connect_schema

__all__ = ["PartitionResult", "write_partition"]

log = logging.getLogger("kconnect.dataframes")

_KAFKA_COLUMNS = ("topic", "partition", "offset", "key", "value", "headers", "timestamp")
TOPIC = "kconnect.topic"


@dataclass(slots=True)
class PartitionResult:
    """What one Spark partition's sink task wrote: the driver's commit message."""

    partition: int
    rows: int
    committed: dict[tuple[str, int], int] = field(default_factory=dict)
    """(topic, partition) → the next offset the task reported durable."""


class _SinkContext:
    """The SinkTaskContext of a task that writes one Spark partition."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        self._configs = configs
        self.assigned: set[TopicPartition] = set()

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        # A DataFrame's rows are given, not consumed: there is nothing to rewind.
        log.debug("ignoring a sink task's offset reset request: %s", dict(offsets))

    def timeout(self, timeout_ms: int) -> None:
        pass

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        pass

    def resume(self, *partitions: TopicPartition) -> None:
        pass

    def request_commit(self) -> None:
        pass

    @property
    def errant_record_reporter(self) -> None:
        return None


class _Decoder:
    """Record batches of one Arrow schema as SinkRecords (prepared once per schema)."""

    def __init__(self, plan: ConnectorPlan, schema: pa.Schema, converters: Any) -> None:
        self.plan = plan
        self.converters = converters
        names = schema.names
        self.has = {n: n in names for n in _KAFKA_COLUMNS}
        self.value_from_row = "value" not in names
        self.row_columns = [n for n in names if n not in _KAFKA_COLUMNS]
        default_topic = plan.own.get(TOPIC) or next(
            (t.strip() for t in plan.connector_config.get("topics", "").split(",") if t.strip()),
            "",
        )
        self.default_topic = default_topic
        if not self.has["topic"] and not default_topic:
            raise ConnectError(
                f"connector {plan.name!r}: the DataFrame has no 'topic' column; set option "
                f"{TOPIC} (or the sink's 'topics') to say which topic its rows belong to"
            )
        self.int_partition = self.has["partition"] and pa.types.is_integer(
            schema.field("partition").type
        )
        self.int_offset = self.has["offset"] and pa.types.is_integer(schema.field("offset").type)
        self.key = self._side("key", plan.key_format, schema)
        if self.value_from_row:
            row_type = pa.struct([schema.field(n) for n in self.row_columns])
            value_schema = connect_schema(row_type)
            self.value: Any = ("row", value_schema, connect_builder(value_schema, row_type))
        else:
            self.value = self._side("value", plan.value_format, schema)

    def _side(self, which: str, fmt: str, schema: pa.Schema) -> Any:
        if which not in schema.names:
            return None
        arrow = schema.field(which).type
        if fmt != "connect":
            if not (pa.types.is_binary(arrow) or pa.types.is_string(arrow)):
                raise ConnectError(
                    f"connector {self.plan.name!r}: {which}.format={fmt} needs a binary or "
                    f"string '{which}' column, the DataFrame's is {arrow}"
                )
            return ("converter", None, None)
        connect = connect_schema(arrow)
        return ("connect", connect, connect_builder(connect, arrow))

    def _values(
        self, side: Any, which: str, batch: pa.RecordBatch, topics: list[str]
    ) -> tuple[list[Any], list[Any]]:
        n = batch.num_rows
        if side is None:
            return [None] * n, [None] * n
        kind, schema, build = side
        if kind == "row":
            row = pa.StructArray.from_arrays(
                [batch.column(c) for c in self.row_columns], names=self.row_columns
            )
            return [schema] * n, build(row)
        column = batch.column(which)
        if kind == "connect":
            return [schema] * n, build(column)
        data = column.cast(pa.binary()).to_pylist()
        conv = self.converters.key if which == "key" else self.converters.value
        pairs = conv.to_connect_batch(list(zip(topics, data, strict=True)))
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def records(self, batch: pa.RecordBatch, spark_partition: int, first: int) -> list[SinkRecord]:
        n = batch.num_rows
        topics = (
            batch.column("topic").to_pylist() if self.has["topic"] else [self.default_topic] * n
        )
        topics = [t or self.default_topic for t in topics]
        partitions = (
            batch.column("partition").to_pylist() if self.int_partition else [spark_partition] * n
        )
        offsets = batch.column("offset").to_pylist() if self.int_offset else range(first, first + n)
        key_schemas, keys = self._values(self.key, "key", batch, topics)
        value_schemas, values = self._values(self.value, "value", batch, topics)
        timestamps: list[Any] = [None] * n
        if self.has["timestamp"]:
            ts = batch.column("timestamp")
            if pa.types.is_timestamp(ts.type):
                ts = ts.cast(pa.timestamp("ms", tz=ts.type.tz)).cast(pa.int64())
            timestamps = ts.to_pylist()
        headers: list[Headers] = [Headers.EMPTY] * n
        if self.has["headers"]:
            conv = self.converters.header
            for i, hs in enumerate(batch.column("headers").to_pylist()):
                if hs:
                    headers[i] = Headers(
                        [
                            Header(
                                h["key"], *conv.to_connect_header(topics[i], h["key"], h["value"])
                            )
                            for h in hs
                        ]
                    )
        return [
            SinkRecord(
                topic=topics[i],
                kafka_partition=partitions[i] if partitions[i] is not None else spark_partition,
                key_schema=key_schemas[i],
                key=keys[i],
                value_schema=value_schemas[i],
                value=values[i],
                timestamp=timestamps[i],
                timestamp_type=(
                    TimestampType.CREATE_TIME
                    if timestamps[i] is not None
                    else TimestampType.NO_TIMESTAMP_TYPE
                ),
                kafka_offset=offsets[i],
                headers=headers[i],
            )
            for i in range(n)
        ]


def write_partition(
    plan: ConnectorPlan,
    spark_partition: int,
    batches: Iterable[pa.RecordBatch],
    first_offset: int = 0,
) -> PartitionResult:
    """Put one Spark partition's rows to a sink task, flush, and check they are durable."""
    index = spark_partition % len(plan.task_configs)
    config = {**plan.connector_config, **plan.task_configs[index]}
    task = plan.new_task(index)
    assert isinstance(task, SinkTask)
    converters = plan.converters()
    transforms = plan.transforms()
    context = _SinkContext(config)
    label = f"connector {plan.name!r} task {index} (Spark partition {spark_partition})"
    decoders: dict[pa.Schema, _Decoder] = {}
    current: dict[TopicPartition, int] = {}
    rows = 0
    started = False
    try:
        task.initialize(context)
        task.start(config)
        started = True
        next_offset = first_offset
        for batch in _batches(batches):
            decoder = decoders.get(batch.schema)
            if decoder is None:
                decoder = decoders[batch.schema] = _Decoder(plan, batch.schema, converters)
            records = decoder.records(batch, spark_partition, next_offset)
            next_offset += batch.num_rows
            rows += batch.num_rows
            new = {TopicPartition(r.topic, r.kafka_partition or 0) for r in records}
            new -= context.assigned
            if new:
                task.open(sorted(new))
                context.assigned |= new
            for r in records:
                tp = TopicPartition(r.topic, r.kafka_partition or 0)
                if r.kafka_offset + 1 > current.get(tp, -1):
                    current[tp] = r.kafka_offset + 1
            if len(transforms):
                records = transforms.apply_batch(records)
            if records:
                task.put(records)
        committed = task.pre_commit(dict(current))
        durable = dict(current) if committed is None else dict(committed)
        for tp, end in sorted(current.items()):
            got = durable.get(tp)
            if got is None or got < end:
                raise ConnectError(
                    f"{label}: the sink task reported {tp.topic}-{tp.partition} durable only "
                    f"before offset {got}, but the Spark partition has rows up to offset "
                    f"{end - 1}; the rest would be lost, since no Kafka consumer will deliver "
                    "them again. Make the sink write everything it is given on flush (for the "
                    "S3 sink: a flush.size that divides each partition's row count, or "
                    "rotate.schedule.interval.ms), or repartition the DataFrame"
                )
        return PartitionResult(
            spark_partition, rows, {(tp.topic, tp.partition): off for tp, off in durable.items()}
        )
    finally:
        try:
            if started:
                try:
                    task.close(sorted(context.assigned))
                finally:
                    task.stop()
        finally:
            transforms.close()
            converters.close()


def _batches(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        if batch.num_rows:
            yield batch
