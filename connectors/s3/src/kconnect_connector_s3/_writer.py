"""One Kafka partition's files: rotation, object names, and the offset that is safe to commit.

This follows Confluent's ``TopicPartitionWriter`` rule for rule, because the object names
and boundaries are the compatibility contract:

* a record goes to the file of its encoded partition; a file is named after the offset of
  its first record;
* ``flush.size`` counts the records of *all* open files of the Kafka partition, and the
  record that reaches it is written first, then every open file is committed;
* ``rotate.interval.ms`` compares a record's time with the first record's time of the
  current files (and, by default, a change of encoded partition rotates too); the record
  that triggers it goes to the next file; ``rotate.schedule.interval.ms`` rotates on the
  wall clock, also when no record arrives;
* a schema change rotates per ``schema.compatibility``;
* only once every open file is uploaded does the offset after the last record become
  committable, so Kafka's committed offset never runs ahead of S3.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kconnect_sdk import (
    DataError,
    ErrantRecordReporter,
    Schema,
    SchemaProjector,
    SchemaProjectorError,
    SinkRecord,
    TopicPartition,
)

from ._config import S3SinkSettings
from ._formats import HEADERS_VIEW, KEY_VIEW, VALUE_VIEW, FileWriter, Format
from ._partitioner import Partitioner
from ._storage import S3Storage

__all__ = ["TopicPartitionWriter", "WriterContext"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WriterContext:
    """What every partition writer of a task shares."""

    settings: S3SinkSettings
    storage: S3Storage
    partitioner: Partitioner
    value_format: Format
    key_format: Format | None
    header_format: Format | None
    reporter: ErrantRecordReporter | None
    clock: Callable[[], int]
    connector: str


def next_scheduled_rotation(now: int, period: int, zone: Any) -> int:
    """The next multiple of ``period`` after ``now``, counted from midnight in ``zone``."""
    local = dt.datetime.fromtimestamp(now / 1000, zone)
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    start_ms = int(start.timestamp() * 1000)
    next_start = (start + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0)
    day_ms = int(next_start.timestamp() * 1000) - start_ms
    offset = ((now - start_ms) // period + 1) * period
    return start_ms + min(offset, day_ms)


class RecordFile:
    """The objects of one file: the values and the optional keys and headers sidecars."""

    def __init__(self, ctx: WriterContext, base: str, tombstones: bool) -> None:
        self.ctx = ctx
        self.writers: list[FileWriter] = []
        value_ext = ctx.value_format.extension
        # A file of the tombstone partition holds keys only (Confluent's
        # KeyValueHeaderRecordWriterProvider skips the value writer for it).
        self.value: FileWriter | None = None
        if not tombstones:
            self.value = ctx.value_format.writer(ctx.storage, base + value_ext, VALUE_VIEW)
            self.writers.append(self.value)
        self.keys = self.headers = None
        if ctx.key_format is not None:
            self.keys = ctx.key_format.writer(
                ctx.storage, base + KEY_VIEW.extension + ctx.key_format.extension, KEY_VIEW
            )
            self.writers.append(self.keys)
        if ctx.header_format is not None:
            self.headers = ctx.header_format.writer(
                ctx.storage,
                base + HEADERS_VIEW.extension + ctx.header_format.extension,
                HEADERS_VIEW,
            )
            self.writers.append(self.headers)

    def write(self, record: SinkRecord) -> None:
        where = f"offset {record.kafka_offset} of {record.topic}-{record.kafka_partition}"
        if self.keys is not None and record.key is None:
            raise DataError(f"Key cannot be null for SinkRecord at {where} (store.kafka.keys)")
        if self.headers is not None and not record.headers:
            raise DataError(
                f"Headers cannot be null or empty for SinkRecord at {where} (store.kafka.headers)"
            )
        if self.value is None and record.value is not None:
            raise DataError(f"a non-null value in the tombstone partition at {where}")
        prepared = [w.prepare(record) for w in self.writers]
        for writer, item in zip(self.writers, prepared, strict=True):
            writer.append(item)

    def write_batch(self, records: list[SinkRecord]) -> None:
        """Many records of one schema, none null; all or nothing (DataError)."""
        for record in records:
            if self.keys is not None and record.key is None:
                raise DataError("a null key in the batch")
            if self.headers is not None and not record.headers:
                raise DataError("empty headers in the batch")
        prepared = [w.prepare_batch(records) for w in self.writers]
        for writer, items in zip(self.writers, prepared, strict=True):
            writer.append_batch(items)

    def commit(self) -> None:
        for writer in self.writers:
            writer.commit()

    def abort(self) -> None:
        for writer in self.writers:
            writer.abort()

    def buffered_bytes(self) -> int:
        return sum(w.buffered_bytes() for w in self.writers)


class TopicPartitionWriter:
    """Buffers one Kafka partition's records and writes them into rotating files."""

    def __init__(self, tp: TopicPartition, ctx: WriterContext) -> None:
        self.tp = tp
        self.report_tp = tp
        self.ctx = ctx
        s = ctx.settings
        self.settings = s
        self.extractor = ctx.partitioner.extractor
        if s.rotate_interval_ms > 0 and self.extractor is None:
            log.warning(
                "%s: 'rotate.interval.ms' is set to %d ms but the partitioner is not "
                "time-based; the property is ignored",
                ctx.connector,
                s.rotate_interval_ms,
            )
        self.buffer: deque[SinkRecord] = deque()
        self.files: dict[str, RecordFile] = {}
        self.names: dict[str, str] = {}
        self.schemas: dict[str, Schema | None] = {}
        self.record_count = 0
        self.base_ts: int | None = None
        self.current_ts: int | None = None
        self.current_enc: str | None = None
        self.current_offset = -1
        self.offset_to_commit: int | None = None
        # Where consumption must restart for this writer's output to be rebuilt: the offset
        # after the last committed file, or the first record this writer saw.
        self.restart_offset: int | None = None
        self.failure_time = -1
        self.next_rotation = 0
        self._set_next_rotation()

    # -- entry points ----------------------------------------------------------------------

    def add(self, record: SinkRecord) -> None:
        if self.restart_offset is None:
            self.restart_offset = record.kafka_offset
            # Offsets are reported for the partition the record was consumed from, which a
            # transform renaming the topic does not change (files are named after tp).
            if record.original_kafka_partition is not None:
                self.report_tp = record.original_topic_partition
        self.buffer.append(record)

    def write(self) -> None:
        """Write what is buffered, rotating and uploading files as the rules say."""
        now = self.ctx.clock()
        if self.failure_time > 0 and now - self.failure_time < self.settings.retry_backoff_ms:
            return
        self.failure_time = -1
        if self.record_count == 0 and self._scheduled_due(now):
            self._set_next_rotation()
        fast = type(self.ctx.partitioner) is Partitioner
        while self.buffer:
            wrote = self._step(now)
            if fast and wrote and self.buffer:
                self._run(now)
        if self.record_count > 0 and self._rotate_on_time(self.current_enc, self.current_ts, now):
            self._set_next_rotation()
            self.commit_files()

    def take_offset(self) -> int | None:
        offset, self.offset_to_commit = self.offset_to_commit, None
        return offset

    def abort(self) -> None:
        """Drop every open file (close, rebalance, failure): nothing partial is uploaded."""
        for file in self.files.values():
            file.abort()
        self.files.clear()
        self.names.clear()
        self.buffer.clear()

    def buffered_bytes(self) -> int:
        return sum(f.buffered_bytes() for f in self.files.values())

    # -- the state machine -----------------------------------------------------------------

    def _run(self, now: int) -> None:
        """After a record was written: the records behind it that cannot trigger a rotation
        (same partition, same schema, not null, within flush.size) in one batch.

        Only for DefaultPartitioner, whose encoded partition is the same for every record
        of the Kafka partition; the outcome is the one record-by-record processing gives.
        """
        enc = self.current_enc
        assert enc is not None
        file = self.files.get(enc)
        room = self.settings.flush_size - self.record_count
        if file is None or room <= 0:
            return
        schema = self.schemas.get(enc)
        run: list[SinkRecord] = []
        for record in self.buffer:
            if len(run) >= room or record.value is None:
                break
            # Converters usually hand out one schema object per schema; equal copies work too.
            rs = record.value_schema
            if rs is not schema and rs != schema:
                break
            run.append(record)
        if len(run) < 2:
            return
        try:
            file.write_batch(run)
        except DataError:
            return  # the record-by-record path finds and reports the bad one
        for _ in run:
            self.buffer.popleft()
        self.current_offset = run[-1].kafka_offset
        self.record_count += len(run)
        if self.record_count >= self.settings.flush_size:
            self.commit_files()

    def _step(self, now: int) -> bool:
        """Process the first buffered record; True when it was written to a file."""
        record = self.buffer[0]
        try:
            if self.extractor is not None:
                if record.value is None and self.settings.null_behavior == "write":
                    # Confluent's TombstoneTimestampExtractor: a tombstone has no fields.
                    self.current_ts = record.timestamp
                else:
                    self.current_ts = self.extractor(record, now)
                if self.base_ts is None:
                    self.base_ts = self.current_ts
            enc = self._encode(record, now)
        except DataError as exc:
            self._errant(record, exc)
            self.buffer.popleft()
            return False
        schema = record.value_schema
        null_switch = enc in self.schemas and ((self.schemas[enc] is None) != (schema is None))
        if enc not in self.schemas or self.schemas[enc] is None or schema is None:
            self.schemas[enc] = schema
        current = self.schemas[enc]
        if null_switch or self._rotate_on_time(enc, self.current_ts, now):
            if not null_switch:
                self._set_next_rotation()
            self.commit_files()
            return False
        try:
            change = self._schema_changes(schema, current)
        except SchemaProjectorError as exc:
            self._errant(record, DataError(str(exc)))
            self.buffer.popleft()
            return False
        if change and self.record_count > 0:
            self.commit_files()
            self.schemas[enc] = schema
            return False
        if change:
            self.schemas[enc] = current = schema
        if self._too_many_open_files(enc):
            self.commit_files()
            return False
        try:
            projected = self._project(record, current)
            self._write_record(projected, enc)
        except DataError as exc:
            self.buffer.popleft()
            self._errant(record, exc)
            return False
        self.buffer.popleft()
        if self.record_count >= self.settings.flush_size:
            self.commit_files()
        return True

    def _encode(self, record: SinkRecord, now: int) -> str:
        if record.value is None and self.settings.null_behavior == "write":
            return self.settings.tombstone_partition
        return self.ctx.partitioner.encode(record, now)

    def _errant(self, record: SinkRecord, exc: DataError) -> None:
        reporter = self.ctx.reporter
        if reporter is None:
            raise exc
        log.warning("%s: errant record sent to the error reporter: %s", self.ctx.connector, exc)
        reporter.report(record, exc)

    def _schema_changes(self, schema: Schema | None, current: Schema | None) -> bool:
        if schema is None or current is None or schema is current:
            return False
        mode = self.settings.compatibility
        if mode == "NONE":
            return schema != current
        if schema.version is None or current.version is None:
            raise SchemaProjectorError(f"Schema version required for {mode} compatibility")
        if schema.type is not current.type or schema.name != current.name:
            return True
        if mode == "FORWARD":
            return schema.version < current.version
        return schema.version > current.version

    def _project(self, record: SinkRecord, current: Schema | None) -> SinkRecord:
        schema = record.value_schema
        if self.settings.compatibility == "NONE" or schema is None or current is None:
            return record
        if schema is current or schema == current:
            return record
        try:
            value = SchemaProjector.project(schema, record.value, current)
        except SchemaProjectorError as exc:
            raise DataError(
                f"cannot project the record to schema version {current.version}: {exc}"
            ) from exc
        return record.new_record(value_schema=current, value=value)

    def _too_many_open_files(self, enc: str) -> bool:
        cap = self.settings.max_open_files
        return cap > 0 and enc not in self.files and len(self.files) >= cap

    def _write_record(self, record: SinkRecord, enc: str) -> None:
        file = self.files.get(enc)
        if file is None:
            base = self._file_base(enc, record.kafka_offset)
            file = RecordFile(self.ctx, base, enc == self.settings.tombstone_partition)
            try:
                file.write(record)
            except DataError:
                file.abort()
                raise
            self.files[enc] = file
            self.names[enc] = base
        else:
            file.write(record)
        self.current_enc = enc
        self.current_offset = record.kafka_offset
        self.record_count += 1

    def _file_base(self, enc: str, start_offset: int) -> str:
        s = self.settings
        prefix = self.ctx.partitioner.path(self.tp.topic, enc)
        name = (
            f"{self.tp.topic}{s.file_delim}{self.tp.partition}{s.file_delim}"
            f"{start_offset:0{s.pad_width}d}"
        )
        suffix = prefix + s.dir_delim + name
        return s.topics_dir + s.dir_delim + suffix if s.topics_dir.strip() else suffix

    def commit_files(self) -> None:
        """Upload every open file; then the offset after the last record is committable."""
        for enc in list(self.files):
            self.files[enc].commit()
            log.info("%s: committed %s", self.ctx.connector, self.names[enc])
            del self.files[enc]
        self.names.clear()
        self.offset_to_commit = self.current_offset + 1
        self.restart_offset = self.offset_to_commit
        self.schemas.clear()
        self.record_count = 0
        self.base_ts = None

    # -- time ------------------------------------------------------------------------------

    def _rotate_on_time(self, enc: str | None, ts: int | None, now: int) -> bool:
        if self.record_count <= 0:
            return False
        s = self.settings
        periodic = False
        if s.rotate_interval_ms > 0 and self.extractor is not None:
            elapsed = (
                self.base_ts is not None
                and ts is not None
                and ts - self.base_ts >= s.rotate_interval_ms
            )
            changed = (
                bool(s.raw["rotate.file.on.partition.change"])
                and enc != self.current_enc
                and not self._tombstone_transition(enc)
            )
            periodic = elapsed or changed
        return periodic or self._scheduled_due(now)

    def _tombstone_transition(self, enc: str | None) -> bool:
        """A move to or from the tombstone partition: Confluent does not count it as a
        partition change, or interleaved tombstones would cut many tiny files."""
        s = self.settings
        if s.null_behavior != "write" or self.current_enc is None or enc is None:
            return False
        return s.tombstone_partition in enc or s.tombstone_partition in self.current_enc

    def _scheduled_due(self, now: int) -> bool:
        return self.settings.rotate_schedule_interval_ms > 0 and now >= self.next_rotation

    def _set_next_rotation(self) -> None:
        s = self.settings
        if s.rotate_schedule_interval_ms > 0:
            self.next_rotation = next_scheduled_rotation(
                self.ctx.clock(), s.rotate_schedule_interval_ms, s.zone
            )
