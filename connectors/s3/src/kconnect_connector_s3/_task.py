"""S3SinkConnector and S3SinkTask."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigValue,
    ConnectError,
    DataError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
    distribution_version,
)

from ._config import CONFIG_DEF, S3SinkSettings, parse_settings
from ._format_class import new_format
from ._partitioner import new_partitioner
from ._storage import S3Storage, TransientS3Error
from ._writer import TopicPartitionWriter, WriterContext

__all__ = ["S3SinkConnector", "S3SinkTask"]

log = logging.getLogger(__name__)

_DISTRIBUTION: Final = "kconnect-connector-s3"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class S3SinkConnector(SinkConnector):
    """Confluent's ``io.confluent.connect.s3.S3SinkConnector``: Kafka topics into S3 objects."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version(_DISTRIBUTION)

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = super().validate(props)
        by_name = {value.name: value for value in values}
        partitioner = str(props.get("partitioner.class") or "")
        if (
            partitioner.endswith("FieldPartitioner")
            and not str(props.get("partition.field.name") or "").strip()
        ):
            by_name["partition.field.name"].error_messages.append(
                "Partition field name cannot be null or empty when using FieldPartitioner."
            )
        if any(v.error_messages for v in values):
            return values
        try:
            settings = parse_settings(props)
            new_partitioner(settings)
            new_format(settings.format, settings)
        except ConfigError as exc:
            name = exc.name if isinstance(getattr(exc, "name", None), str) else None
            if name not in by_name:
                raise
            by_name[name].error_messages.append(str(exc))
            return values
        self._check_compression(settings, by_name)
        return values

    @staticmethod
    def _check_compression(settings: S3SinkSettings, by_name: Mapping[str, ConfigValue]) -> None:
        """Confluent's cross-check: gzip applies to JsonFormat and ByteArrayFormat only."""
        if settings.compression == "none":
            return
        gzip_formats = ("JsonFormat", "ByteArrayFormat")
        checks = [("data", settings.format, "format.class", ("format.class",))]
        if settings.keys_format is not None:
            checks.append(
                ("keys", settings.keys_format, "keys.format.class", ("store.kafka.keys",))
            )
        if settings.headers_format is not None:
            checks.append(
                (
                    "headers",
                    settings.headers_format,
                    "headers.format.class",
                    ("store.kafka.headers",),
                )
            )
        for what, fmt, key, others in checks:
            if fmt in gzip_formats:
                continue
            message = (
                f"Compression Type {settings.compression} not valid for {what} format class: "
                f"( {settings.raw[key]} )."
            )
            for name in {*others, key, "s3.compression.type"}:
                by_name[name].error_messages.append(message)

    def start(self, props: Mapping[str, str]) -> None:
        settings = parse_settings(props)
        # Build the partitioner and formats once so that a bad path.format, field list or
        # time zone fails the connector at once rather than each task later.
        new_partitioner(settings)
        new_format(settings.format, settings)
        self._props = dict(props)

    def task_class(self) -> type[S3SinkTask]:
        return S3SinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing runs in the background."""

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        # Progress lives only in the consumer group's offsets; files follow from them.
        return True


class S3SinkTask(SinkTask):
    """Writes each assigned partition's records into S3 objects (see ``TopicPartitionWriter``).

    ``put`` writes and uploads as files rotate; ``pre_commit`` reports, per partition, only
    the offset after the last record of uploaded files, so a restart re-reads exactly the
    records whose objects were not complete and rewrites the same objects.
    """

    kafka_class_name = "io.confluent.connect.s3.S3SinkTask"

    clock: Callable[[], int] = staticmethod(_now_ms)

    def __init__(self) -> None:
        self.settings: S3SinkSettings | None = None
        self.storage: S3Storage | None = None
        self.writers: dict[TopicPartition, TopicPartitionWriter] = {}
        self._ctx: WriterContext | None = None
        self._name = "S3 sink"

    def version(self) -> str:
        return distribution_version(_DISTRIBUTION)

    def start(self, props: Mapping[str, str]) -> None:
        self._name = f"S3 sink {props.get('name', '')!s}".rstrip()
        settings = parse_settings(props)
        self.settings = settings
        self.storage = S3Storage(settings, self._name)
        self.storage.check_bucket()
        value_format = new_format(settings.format, settings)
        key_format = new_format(settings.keys_format, settings) if settings.keys_format else None
        header_format = (
            new_format(settings.headers_format, settings) if settings.headers_format else None
        )
        context = getattr(self, "context", None)
        reporter = context.errant_record_reporter if context is not None else None
        self._ctx = WriterContext(
            settings=settings,
            storage=self.storage,
            partitioner=new_partitioner(settings),
            value_format=value_format,
            key_format=key_format,
            header_format=header_format,
            reporter=reporter,
            clock=self.clock,
            connector=self._name,
        )
        if context is not None:
            self.open(sorted(context.assignment()))
        log.info("%s: started, writing to bucket %r", self._name, settings.bucket)

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        if self._ctx is None:
            return
        for tp in partitions:
            if tp not in self.writers:
                self.writers[tp] = TopicPartitionWriter(tp, self._ctx)

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        for tp in partitions:
            writer = self.writers.pop(tp, None)
            if writer is not None:
                writer.abort()

    def put(self, records: Sequence[SinkRecord]) -> None:
        if self._ctx is None or self.settings is None:
            raise ConnectError(f"{self._name}: put() before start()")
        s = self.settings
        for record in records:
            if record.value is None and self._skip_null(record, s):
                continue
            tp = TopicPartition(record.topic, record.kafka_partition or 0)
            writer = self.writers.get(tp)
            if writer is None:
                # A partition the runtime did not announce through open(): adopt it rather
                # than fail, the records are ours to write.
                writer = self.writers[tp] = TopicPartitionWriter(tp, self._ctx)
            writer.add(record)
        # Shuffled, as in Java, so that one slow partition does not always go first.
        order = list(self.writers)
        random.shuffle(order)
        for tp in order:
            writer = self.writers[tp]
            try:
                writer.write()
            except TransientS3Error as exc:
                self._rewind(tp, writer, exc)

    def _skip_null(self, record: SinkRecord, s: S3SinkSettings) -> bool:
        if s.null_behavior == "ignore":
            reporter = self._ctx.reporter if self._ctx else None
            if reporter is not None and s.report_nulls:
                reporter.report(record, DataError("Skipping null value record."))
            return True
        if s.null_behavior == "write":
            return False
        error = DataError(
            f"{self._name}: null valued record at offset {record.kafka_offset} of "
            f"{record.topic}-{record.kafka_partition} is not writeable with "
            "behavior.on.null.values=fail; set it to 'ignore' or 'write', or route such "
            "records to a dead letter queue (errors.tolerance=all)"
        )
        reporter = self._ctx.reporter if self._ctx else None
        if reporter is None:
            raise error
        reporter.report(record, error)
        return True

    def _rewind(self, tp: TopicPartition, writer: TopicPartitionWriter, exc: Exception) -> None:
        """An upload kept failing: drop the partition's files and re-read from its restart
        point after ``retry.backoff.ms``; the objects are rebuilt exactly as they were."""
        assert self._ctx is not None and self.settings is not None
        log.error("%s: %s; re-reading %s from its last committed offset", self._name, exc, tp)
        restart = writer.restart_offset
        offset = writer.take_offset()
        writer.abort()
        fresh = TopicPartitionWriter(tp, self._ctx)
        fresh.report_tp = writer.report_tp
        fresh.offset_to_commit = offset
        fresh.failure_time = self.clock()
        self.writers[tp] = fresh
        context = getattr(self, "context", None)
        if context is not None:
            if restart is not None:
                context.offset({writer.report_tp: restart})
            context.timeout(self.settings.retry_backoff_ms)

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Nothing to do: files are uploaded when they rotate, never on a commit."""

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        committable: dict[TopicPartition, int] = {}
        for tp, writer in list(self.writers.items()):
            reported = writer.report_tp
            if reported not in offsets:
                continue
            # Scheduled rotation must fire even when no record arrives.
            try:
                if (
                    not writer.buffer
                    and self.settings
                    and self.settings.rotate_schedule_interval_ms > 0
                ):
                    writer.write()
            except TransientS3Error as exc:
                self._rewind(tp, writer, exc)
                continue
            offset = writer.take_offset()
            if offset is not None:
                committable[reported] = min(offset, offsets[reported])
        return committable

    def stop(self) -> None:
        for writer in self.writers.values():
            writer.abort()
        self.writers.clear()
        storage, self.storage = self.storage, None
        if storage is not None:
            storage.close()
