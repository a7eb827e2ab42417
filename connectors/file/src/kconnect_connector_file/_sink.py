"""FileStreamSinkConnector and its task: one line per record, appended to a file (or stdout)."""

from __future__ import annotations

import contextlib
import logging
import operator
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectError,
    Importance,
    SinkBatch,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
)

from ._java_text import java_text

__all__ = ["FileStreamSinkConnector", "FileStreamSinkTask"]

log = logging.getLogger(__name__)

FILE_CONFIG: Final = "file"

SINK_CONFIG_DEF: Final = ConfigDef().define(
    FILE_CONFIG,
    ConfigType.STRING,
    None,
    importance=Importance.HIGH,
    documentation="Destination filename. If not specified, the standard output is used.",
)


def _file_name(props: Mapping[str, Any]) -> str | None:
    name = props.get(FILE_CONFIG)
    if isinstance(name, str):
        name = name.strip()
    return name or None


_value: Final = operator.attrgetter("value")  # read in C by map(), no Python call per record
_schema: Final = operator.attrgetter("value_schema")


def _joined(values: Sequence[Any]) -> str | None:
    """The values one per line when all are strings (printed as they are), else None."""
    try:
        return "\n".join(values)  # raises at the first value that is not a string
    except TypeError:
        return None


class FileStreamSinkConnector(SinkConnector):
    """Appends the value of every record of its topics to one file (or standard output)."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def config(self) -> ConfigDef:
        return SINK_CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        SINK_CONFIG_DEF.parse(props)
        self._props = dict(props)
        log.info(
            "Starting file sink connector writing to %s", _file_name(props) or "standard output"
        )

    def task_class(self) -> type[FileStreamSinkTask]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing runs in the background, so there is nothing to stop."""

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        # Progress lives only in the consumer group's offsets, so any change is acceptable.
        return True


class FileStreamSinkTask(SinkTask):
    """Writes each value as Java's ``String.valueOf`` prints it, and a newline, in UTF-8.

    Strings as they are, ``null`` for None, maps as ``{k=v, ...}`` in ``HashMap`` order,
    structs as ``Struct{...}``, doubles as ``Double.toString`` (see ``_java_text``).

    Writes are buffered; ``flush`` (and so ``pre_commit``) flushes and fsyncs the file, so
    the offsets committed after it cover only lines that are on disk.
    """

    kafka_class_name = "org.apache.kafka.connect.file.FileStreamSinkTask"

    def __init__(self) -> None:
        self._filename: str | None = None
        self._file: BinaryIO | None = None
        self._running = False
        self._dirty = False

    def start(self, props: Mapping[str, str]) -> None:
        config = SINK_CONFIG_DEF.parse(props)
        self._filename = _file_name(config)
        self._dirty = False
        if self._filename is not None:
            try:
                self._file = open(self._filename, "ab")  # noqa: SIM115 - lives until stop()
            except OSError as exc:
                raise ConnectError(
                    f"Cannot open or create sink file {self._filename!r} for appending "
                    f"({exc.strerror or exc}); check that its directory exists and is "
                    f"writable, or fix config {FILE_CONFIG!r}"
                ) from exc
        self._running = True

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records:
            self._write(list(map(_value, records)), records)

    def put_batch(self, batch: SinkBatch) -> None:
        # The worker's batch as columns: the values are written without a record per line.
        if len(batch):
            self._write(batch.values, batch)

    def _write(self, values: Sequence[Any], rows: Sequence[SinkRecord] | SinkBatch) -> None:
        out = self._output()
        text = _joined(values)  # the usual batch of strings: no per-record Python call
        if text is None:
            schemas = rows.value_schemas if isinstance(rows, SinkBatch) else map(_schema, rows)
            text = "\n".join(map(java_text, values, schemas))
        # One write per batch; "replace" mirrors Java writing '?' for what UTF-8 cannot encode.
        out.write(text.encode("utf-8", "replace") + b"\n")
        self._dirty = True

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        out = self._output()
        out.flush()
        if self._file is not None and self._dirty:
            os.fsync(out.fileno())
        self._dirty = False

    def stop(self) -> None:
        self._running = False
        file, self._file = self._file, None
        if file is not None:
            file.close()
        elif self._filename is None:
            # stdout may be closed or gone already; then nothing is left to save.
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()

    def _output(self) -> BinaryIO:
        if not self._running:
            raise ConnectError(
                f"FileStreamSinkTask for {self._filename or 'stdout'!r} is not running: "
                "start() was not called or stop() already was"
            )
        if self._file is not None:
            return self._file
        # Looked up on each call so that a redirected sys.stdout is honoured.
        return sys.stdout.buffer
