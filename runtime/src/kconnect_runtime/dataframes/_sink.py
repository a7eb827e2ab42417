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

import functools
import logging
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import orjson
import pyarrow as pa
from kconnect_sdk import (
    ConnectError,
    Header,
    Headers,
    PluginMetricsGroup,
    SinkRecord,
    SinkTask,
    TimestampType,
    TopicPartition,
    record_maker,
)

from kconnect_runtime.errors import ErrorHandler, Failure, Stage, class_name, failed_records
from kconnect_runtime.tasks import apply_gc_policy

from ._errors import report_skipped, transform_tolerant
from ._plan import ConnectorPlan
from ._types import connect_builder, connect_schema, json_default

__all__ = ["PartitionResult", "write_partition"]

log = logging.getLogger("kconnect.dataframes")

_KAFKA_COLUMNS = ("topic", "partition", "offset", "key", "value", "headers", "timestamp")
TOPIC = "kconnect.topic"


@dataclass(slots=True)
class PartitionResult:
    """What one Spark partition's sink task wrote: the driver's commit message."""

    partition: int
    rows: int
    skipped: int = 0
    """Rows ``errors.tolerance=all`` skipped (logged, sent to the DLQ as configured)."""
    committed: dict[tuple[str, int], int] = field(default_factory=dict)
    """(topic, partition) → the next offset the task reported durable."""


class _SinkContext:
    """The SinkTaskContext of a task that writes one Spark partition."""

    def __init__(self, configs: Mapping[str, str], reporter: _Reporter | None = None) -> None:
        self._configs = configs
        self._reporter = reporter
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
    def errant_record_reporter(self) -> _Reporter | None:
        return self._reporter

    @functools.cached_property
    def plugin_metrics(self) -> PluginMetricsGroup:
        """A DataFrame write's plugin metrics stay on the Spark executor: nothing exports them."""
        return PluginMetricsGroup({})


class _Reporter:
    """KIP-610's errant record reporter for a task writing one Spark partition."""

    def __init__(self, report: Any) -> None:
        self._report = report

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        future: Future[None] | None = self._report(record, Stage.TASK_PUT, None, error)
        if future is None:
            future = Future()
            future.set_result(None)
        return future


@dataclass(slots=True)
class _BadRow:
    """A row that failed to become a SinkRecord: its coordinates, bytes and the failure."""

    topic: str
    partition: int
    offset: int
    stage: Stage
    executing: str
    error: BaseException
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]
    timestamp: int | None


class _Decoder:
    """Record batches of one Arrow schema as SinkRecords (prepared once per schema)."""

    def __init__(
        self, plan: ConnectorPlan, schema: pa.Schema, converters: Any, errors: ErrorHandler
    ) -> None:
        self.plan = plan
        self.converters = converters
        self.errors = errors
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
        self,
        side: Any,
        which: str,
        batch: pa.RecordBatch,
        topics: list[str],
        failures: dict[int, tuple[Stage, str, BaseException]],
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
        try:
            pairs = conv.to_connect_batch(list(zip(topics, data, strict=True)))
        except Exception:
            # Again one row at a time, to find the rows that fail (errors.*).
            stage = Stage.KEY_CONVERTER if which == "key" else Stage.VALUE_CONVERTER
            pairs = []
            for i, (topic, raw) in enumerate(zip(topics, data, strict=True)):
                try:
                    pairs.append(
                        self.errors.retry(
                            stage, functools.partial(conv.to_connect_data, topic, raw)
                        )
                    )
                except Exception as exc:
                    failures.setdefault(i, (stage, class_name(conv), exc))
                    pairs.append((None, None))
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def raw(self, which: str, batch: pa.RecordBatch, i: int, value: Any) -> bytes | None:
        """Row ``i``'s key or value as bytes for the DLQ: the column's own bytes when a
        converter decodes it, else the Connect value as JSON."""
        side = self.key if which == "key" else self.value
        if side is not None and side[0] == "converter":
            data = batch.column(which)[i].as_py()
            return data.encode() if isinstance(data, str) else data
        if value is None:
            return None
        return json_text_bytes(value)

    def records(
        self, batch: pa.RecordBatch, spark_partition: int, first: int
    ) -> tuple[list[SinkRecord], list[_BadRow], dict[TopicPartition, int]]:
        """The batch's rows as SinkRecords, the rows that could not be decoded, and each
        topic partition's next offset after the rows that decoded."""
        n = batch.num_rows
        failures: dict[int, tuple[Stage, str, BaseException]] = {}
        topics: list[str] = (
            batch.column("topic").to_pylist() if self.has["topic"] else [self.default_topic] * n
        )
        if None in topics or "" in topics:
            topics = [t or self.default_topic for t in topics]
        partitions: list[int] = (
            batch.column("partition").to_pylist() if self.int_partition else [spark_partition] * n
        )
        if None in partitions:
            partitions = [spark_partition if p is None else p for p in partitions]
        offsets: list[int] = (
            batch.column("offset").to_pylist() if self.int_offset else list(range(first, first + n))
        )
        key_schemas, keys = self._values(self.key, "key", batch, topics, failures)
        value_schemas, values = self._values(self.value, "value", batch, topics, failures)
        timestamps: list[Any] = [None] * n
        if self.has["timestamp"]:
            ts = batch.column("timestamp")
            if pa.types.is_timestamp(ts.type):
                ts = ts.cast(pa.timestamp("ms", tz=ts.type.tz)).cast(pa.int64())
            timestamps = ts.to_pylist()
        headers: list[Headers] = [Headers.EMPTY] * n
        raw_headers: list[Any] = [None] * n
        if self.has["headers"]:
            conv = self.converters.header
            raw_headers = batch.column("headers").to_pylist()
            for i, hs in enumerate(raw_headers):
                if hs:
                    try:
                        headers[i] = Headers(
                            [
                                Header(
                                    h["key"],
                                    *conv.to_connect_header(topics[i], h["key"], h["value"]),
                                )
                                for h in hs
                            ]
                        )
                    except Exception as exc:
                        failures.setdefault(i, (Stage.HEADER_CONVERTER, class_name(conv), exc))
        bad = [
            _BadRow(
                topics[i],
                partitions[i],
                offsets[i],
                stage,
                executing,
                exc,
                self.raw("key", batch, i, keys[i]),
                self.raw("value", batch, i, values[i]),
                [(h["key"], h["value"]) for h in raw_headers[i] or ()],
                timestamps[i],
            )
            for i, (stage, executing, exc) in sorted(failures.items())
        ]
        if timestamps.count(None) == n:
            ts_types: list[TimestampType] = [TimestampType.NO_TIMESTAMP_TYPE] * n
        else:
            ts_types = [
                TimestampType.NO_TIMESTAMP_TYPE if t is None else TimestampType.CREATE_TIME
                for t in timestamps
            ]
        # One C-level pass: zip makes each row's tuple, map turns it into a SinkRecord (the
        # original_* coordinates are the record's own).
        fields = zip(
            topics,
            partitions,
            key_schemas,
            keys,
            value_schemas,
            values,
            timestamps,
            headers,
            offsets,
            ts_types,
            topics,
            partitions,
            offsets,
            strict=True,
        )
        if failures:
            fields = (f for i, f in enumerate(fields) if i not in failures)  # type: ignore[assignment]
        records = list(map(_new_sink_record, fields))
        if failures:
            # Only rows the sink is given count toward what it must report durable.
            return (
                records,
                bad,
                _positions(
                    [r.topic for r in records],
                    [r.kafka_partition for r in records],
                    [r.kafka_offset for r in records],
                ),
            )
        return records, bad, _positions(topics, partitions, offsets)


# A row's tuple, in the order of SinkRecord's fields, is the record.
_new_sink_record: Any = record_maker(SinkRecord)


def _positions(
    topics: list[str], partitions: list[int], offsets: list[int]
) -> dict[TopicPartition, int]:
    """Each topic partition's offset after its last row (one pass only for mixed batches)."""
    n = len(topics)
    if not n:
        return {}
    if topics.count(topics[0]) == n and partitions.count(partitions[0]) == n:
        return {TopicPartition(topics[0], partitions[0]): max(offsets) + 1}
    out: dict[tuple[str, int], int] = {}
    for t, p, o in zip(topics, partitions, offsets, strict=True):
        if o + 1 > out.get((t, p), -1):
            out[(t, p)] = o + 1
    return {TopicPartition(t, p): o for (t, p), o in out.items()}


def json_text_bytes(value: Any) -> bytes:
    """A Connect value as JSON (structs as objects), for a DLQ record of a ``connect`` column."""
    return orjson.dumps(value, default=json_default)


class _Failures:
    """Reports a partition's failed rows and records through ``errors.*`` (log, DLQ, skip)."""

    def __init__(self, plan: ConnectorPlan, errors: ErrorHandler, converters: Any) -> None:
        self.plan = plan
        self.errors = errors
        self.converters = converters

    def row(self, bad: _BadRow) -> None:
        failure = Failure(
            bad.stage,
            bad.error,
            bad.executing,
            topic=bad.topic,
            partition=str(bad.partition),
            offset=str(bad.offset),
            record=lambda: f"key={bad.key!r} value={bad.value!r} headers={bad.headers!r}",
        )
        self.errors.failed(failure)
        self.errors.to_dlq(failure, bad.key, bad.value, bad.headers, bad.timestamp)

    def record(
        self, record: SinkRecord, stage: Stage, executing: str | None, exc: BaseException
    ) -> Future[None] | None:
        """A SinkRecord that failed in a transform or in ``put``: its bytes are made again
        (the key and value converters for ``json``/``avro`` columns, else JSON)."""
        failure = Failure(
            stage,
            exc,
            executing or class_name(exc),
            topic=record.original_topic,
            partition=str(record.original_kafka_partition),
            offset=str(record.original_kafka_offset),
            record=lambda: repr(record),
        )
        self.errors.failed(failure)
        try:
            key = self._bytes(self.plan.key_format, "key", record)
            value = self._bytes(self.plan.value_format, "value", record)
            headers = self.converters.headers_to_kafka(record.topic, record.headers)
        except Exception:
            log.exception(
                "connector %r: cannot convert an errant record back to bytes for the DLQ",
                self.plan.name,
            )
            return None
        return self.errors.to_dlq(failure, key, value, headers, record.timestamp)

    def _bytes(self, fmt: str, which: str, record: SinkRecord) -> bytes | None:
        schema = record.key_schema if which == "key" else record.value_schema
        data = record.key if which == "key" else record.value
        if fmt != "connect":
            conv = self.converters.key if which == "key" else self.converters.value
            out: bytes | None = conv.from_connect_data(record.topic, schema, data)
            return out
        return None if data is None else json_text_bytes(data)


def write_partition(
    plan: ConnectorPlan,
    spark_partition: int,
    batches: Iterable[pa.RecordBatch],
    first_offset: int = 0,
) -> PartitionResult:
    """Put one Spark partition's rows to a sink task, flush, and check they are durable.

    Rows that fail to decode or transform, and records a ``put`` reports as errant, follow
    ``errors.*``: they fail the Spark task (``errors.tolerance=none``) or are skipped, counted,
    logged and sent to the dead letter queue as configured (``all``); a row that failed to
    decode is not one the sink must report durable.
    """
    apply_gc_policy()  # a Spark Python worker: tuned for record batches as a task's process
    index = spark_partition % len(plan.task_configs)
    config = {**plan.connector_config, **plan.task_configs[index]}
    errors = plan.error_handler(index)
    task = plan.new_task(index)
    assert isinstance(task, SinkTask)
    converters = plan.converters()
    transforms = plan.transforms()
    failures = _Failures(plan, errors, converters)
    reporter = _Reporter(failures.record) if errors.policy.reports_errant_records else None
    context = _SinkContext(config, reporter)
    label = f"connector {plan.name!r} task {index} (Spark partition {spark_partition})"
    decoders: dict[pa.Schema, _Decoder] = {}
    current: dict[TopicPartition, int] = {}
    rows = 0
    started = False

    def transform_failed(record: SinkRecord, executing: str, exc: BaseException) -> None:
        failures.record(record, Stage.TRANSFORMATION, executing, exc)

    try:
        task.initialize(context)
        task.start(config)
        started = True
        next_offset = first_offset
        for batch in _batches(batches):
            decoder = decoders.get(batch.schema)
            if decoder is None:
                decoder = decoders[batch.schema] = _Decoder(plan, batch.schema, converters, errors)
            records, bad, positions = decoder.records(batch, spark_partition, next_offset)
            next_offset += batch.num_rows
            rows += batch.num_rows
            for row in bad:
                failures.row(row)
            new = {tp for tp in positions if tp not in context.assigned}
            if new:
                task.open(sorted(new))
                context.assigned |= new
            for tp, end in positions.items():
                if end > current.get(tp, -1):
                    current[tp] = end
            if len(transforms):
                records = transform_tolerant(errors, transforms, records, transform_failed)
            if records:
                _put(task, records, errors, failures, label)
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
        errors.flush()  # skipped rows are in the DLQ before the partition counts as written
        skipped = errors.metrics.records_skipped
        report_skipped(errors, f"writing Spark partition {spark_partition}")
        return PartitionResult(
            spark_partition,
            rows,
            skipped,
            {(tp.topic, tp.partition): off for tp, off in durable.items()},
        )
    finally:
        try:
            if started:
                try:
                    task.close(sorted(context.assigned))
                finally:
                    task.stop()
        finally:
            try:
                transforms.close()
                converters.close()
            finally:
                errors.close()


def _put(
    task: SinkTask,
    records: list[SinkRecord],
    errors: ErrorHandler,
    failures: _Failures,
    label: str,
) -> None:
    """``task.put``; under ``errors.tolerance=all`` an error naming its failed records
    (a ``records`` attribute, as on a worker) reports those and goes on."""
    try:
        task.put(records)
    except Exception as exc:
        failed = failed_records(exc)
        if isinstance(exc, ConnectError) and failed is not None and errors.tolerate_all:
            for record in failed:
                failures.record(record, Stage.TASK_PUT, class_name(task), exc)
            return
        first, last = records[0], records[-1]
        raise ConnectError(
            f"{label}: SinkTask.put failed on {len(records)} records from topic "
            f"{first.topic!r} partition {first.kafka_partition} offset {first.kafka_offset} to "
            f"topic {last.topic!r} partition {last.kafka_partition} offset {last.kafka_offset}: "
            f"{type(exc).__name__}: {exc}"
            + (
                "; errors.tolerance=all does not cover put: the task must report bad records "
                "with context.errant_record_reporter (or raise an error with a 'records' "
                "attribute)"
                if errors.tolerate_all
                else ""
            )
        ) from exc


def _batches(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        if batch.num_rows:
            yield batch
