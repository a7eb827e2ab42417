"""FileStreamSourceConnector and its task: one record per line of a file (or stdin)."""

from __future__ import annotations

import io
import logging
import os
import select
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectError,
    ExactlyOnceSupport,
    Headers,
    Importance,
    Range,
    Schema,
    SourceBatch,
    SourceConnector,
    SourceRecord,
    SourceTask,
    non_empty_string,
    record_maker,
)

from ._lines import LineSplitter

__all__ = ["FileStreamSourceConnector", "FileStreamSourceTask"]

log = logging.getLogger(__name__)

FILE_CONFIG: Final = "file"
TOPIC_CONFIG: Final = "topic"
TASK_BATCH_SIZE_CONFIG: Final = "batch.size"
DEFAULT_TASK_BATCH_SIZE: Final = 2000

FILENAME_FIELD: Final = "filename"
POSITION_FIELD: Final = "position"

SOURCE_CONFIG_DEF: Final = (
    ConfigDef()
    .define(
        FILE_CONFIG,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        documentation="Source filename. If not specified, the standard input is read.",
    )
    .define(
        TOPIC_CONFIG,
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The topic to publish data to.",
    )
    .define(
        TASK_BATCH_SIZE_CONFIG,
        ConfigType.INT,
        DEFAULT_TASK_BATCH_SIZE,
        Range.at_least(1),
        importance=Importance.LOW,
        documentation="The maximum number of records the task returns from one poll.",
    )
)

# Bytes asked of the OS per read. Large enough that the per-read cost vanishes next to the
# per-line cost, small enough that a huge file is not held in memory.
_READ_SIZE: Final = 1 << 20
_make_record: Final = record_maker(SourceRecord)


def _file_name(props: Mapping[str, Any]) -> str | None:
    name = props.get(FILE_CONFIG)
    if isinstance(name, str):
        name = name.strip()
    return name or None


class FileStreamSourceConnector(SourceConnector):
    """Reads lines from one file (or standard input) into one topic, with one task.

    Offsets are byte positions in the file, so the task resumes where it stopped; the file
    is assumed to be only appended to while the connector runs.
    """

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def config(self) -> ConfigDef:
        return SOURCE_CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        SOURCE_CONFIG_DEF.parse(props)
        self._props = dict(props)
        log.info(
            "Starting file source connector reading from %s",
            _file_name(props) or "standard input",
        )

    def task_class(self) -> type[FileStreamSourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # One file is one ordered stream: a second task could only duplicate or reorder it.
        return [dict(self._props)]

    def stop(self) -> None:
        """Nothing runs in the background, so there is nothing to stop."""

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        # Positions in an append-only file are stable, so a restart replays exactly the
        # uncommitted lines; stdin keeps no offsets, so it cannot.
        if _file_name(props) is not None:
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        # Kafka's checks, in its order and words: a null offset (a reset) is allowed for
        # any partition, so garbage offsets can always be cleaned up through the REST API.
        for partition, offset in offsets:
            if offset is None:
                continue
            if POSITION_FIELD not in offset:
                raise ConnectError(
                    f"Offset objects should either be null or contain the key '{POSITION_FIELD}'"
                )
            position = offset[POSITION_FIELD]
            if (
                not isinstance(position, int)
                or isinstance(position, bool)
                or not -(2**63) <= position < 2**63
            ):
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be "
                    "a Long value"
                )
            if position < 0:
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a "
                    "non-negative value"
                )
            if partition is None:
                raise ConnectError("Partition objects cannot be null")
            if FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        return True


class FileStreamSourceTask(SourceTask):
    """Emits one STRING record per line, with the byte position after the line as offset.

    ``poll`` returns at most ``batch.size`` records; with nothing new to read it waits up
    to about a second and returns None. ``stop`` may be called from any thread and makes a
    waiting ``poll`` return at once.
    """

    kafka_class_name = "org.apache.kafka.connect.file.FileStreamSourceTask"

    idle_wait_s: float = 1.0
    """How long a poll with nothing to return (no new line, no file yet) waits, in seconds."""

    def __init__(self) -> None:
        self._filename: str | None = None
        self._topic = ""
        self._batch_size = DEFAULT_TASK_BATCH_SIZE
        self._partition: dict[str, str] | None = None
        self._stream: BinaryIO | None = None
        self._splitter: LineSplitter | None = None
        # Complete lines read but not yet returned, with the byte position after each.
        self._lines: list[str] = []
        self._ends: list[int] = []
        self._next = 0
        self._open_error: str | None = None
        self._stopping = threading.Event()
        # Held while reading, so that stop() never closes the file under a read.
        self._io_lock = threading.Lock()

    def start(self, props: Mapping[str, str]) -> None:
        config = SOURCE_CONFIG_DEF.parse(props)
        self._filename = _file_name(config)
        self._topic = config[TOPIC_CONFIG]
        self._batch_size = config[TASK_BATCH_SIZE_CONFIG]
        self._partition = None if self._filename is None else {FILENAME_FIELD: self._filename}
        self._lines, self._ends, self._next = [], [], 0
        self._open_error = None
        self._stopping.clear()
        if self._filename is None:
            stdin = getattr(sys.stdin, "buffer", None)
            if stdin is None:
                raise ConnectError(
                    f"FileStream source for topic {self._topic!r} has no {FILE_CONFIG!r} "
                    "configured and this process has no standard input to read; set "
                    f"{FILE_CONFIG!r} to the file to read"
                )
            self._stream = stdin
            # stdin cannot be replayed, so its lines carry no offsets.
            self._splitter = LineSplitter()
        else:
            # Opened by poll(), which retries until the file exists.
            self._stream = None
            self._splitter = None

    def poll(self) -> list[SourceRecord] | None:
        polled = self._poll_lines()
        if polled is None:
            return None
        lines, ends, timestamp = polled
        topic, schema, partition = self._topic, Schema.STRING, self._partition
        # The records made from a tuple of their fields in declaration order (rather than
        # by SourceRecord(...) with keywords): no Python-level __new__ per line on this hot
        # path. Same fields, same object.
        new, empty = _make_record, Headers.EMPTY
        if partition is None:
            return [
                new((topic, None, None, None, schema, line, timestamp, empty, None, None))
                for line in lines
            ]
        return [
            new(
                (
                    topic,
                    None,
                    None,
                    None,
                    schema,
                    line,
                    timestamp,
                    empty,
                    partition,
                    {POSITION_FIELD: end},
                ),
            )
            for line, end in zip(lines, ends, strict=True)
        ]

    def poll_batch(self) -> SourceBatch | None:
        """The lines ``poll`` would return, as one batch of columns (no record per line).

        The values are the lines, the offsets the column ``{"position": [...]}`` of byte
        positions after each line (none for standard input), every timestamp the time of
        the poll: ``records()`` of the batch is exactly what ``poll`` returns.
        """
        polled = self._poll_lines()
        if polled is None:
            return None
        lines, ends, timestamp = polled
        partition = self._partition
        return SourceBatch(
            topic=self._topic,
            source_partition=partition,
            value_schema=Schema.STRING,
            values=lines,
            source_offset_columns=None if partition is None else {POSITION_FIELD: ends},
            timestamps=[timestamp] * len(lines),
        )

    def _poll_lines(self) -> tuple[list[str], list[int], int] | None:
        """Up to ``batch.size`` new lines, the position after each and the poll's time; or
        None after waiting up to ``idle_wait_s`` when there is none (or when stopping)."""
        if self._stopping.is_set():
            return None
        with self._io_lock:
            if self._stopping.is_set():
                return None
            opened = self._stream is not None or self._open()
            timestamp = int(time.time() * 1000)
            lines, ends = self._read_lines() if opened else ([], [])
        if lines:
            return lines, ends, timestamp
        self._stopping.wait(self.idle_wait_s)
        return None

    def stop(self) -> None:
        self._stopping.set()
        if self._filename is None:
            return  # stdin belongs to the process; it stays open
        with self._io_lock:
            stream, self._stream = self._stream, None
            if stream is not None:
                try:
                    stream.close()
                except OSError as exc:
                    log.error("Failed to close %s: %s", self._filename, exc)

    def _open(self) -> bool:
        assert self._filename is not None
        try:
            stream: BinaryIO = open(self._filename, "rb", buffering=0)  # noqa: SIM115 - lives until stop()
        except OSError as exc:
            problem = f"{type(exc).__name__}: {exc.strerror or exc}"
            if problem != self._open_error:
                log.warning(
                    "Cannot read source file %r (%s); create it or fix its path or "
                    "permissions in config %r. Retrying every %g s.",
                    self._filename,
                    problem,
                    FILE_CONFIG,
                    self.idle_wait_s,
                )
                self._open_error = problem
            return False
        self._open_error = None
        try:
            position = self._committed_position()
            if position:
                size = os.fstat(stream.fileno()).st_size
                if position > size:
                    log.warning(
                        "Committed position %d is past the end of %r (%d bytes): was the file "
                        "truncated or replaced? Waiting for it to grow past that position; "
                        "reset the connector's offsets to read it from the start.",
                        position,
                        self._filename,
                        size,
                    )
                stream.seek(position)
                log.debug("Resuming %s at byte %d", self._filename, position)
        except BaseException:
            stream.close()
            raise
        self._stream = stream
        self._splitter = LineSplitter(position)
        log.debug("Opened %s for reading", self._filename)
        return True

    def _committed_position(self) -> int:
        assert self._partition is not None
        offset = self.context.offset_storage_reader.offset(self._partition)
        if offset is None:
            return 0
        position = offset.get(POSITION_FIELD)
        if position is None:
            return 0
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            raise ConnectError(
                f"Committed offset {dict(offset)!r} of source file {self._filename!r} has a "
                f"{POSITION_FIELD!r} that is not a non-negative integer byte position; alter "
                "or reset the connector's offsets through the REST API"
            )
        return position

    def _read_lines(self) -> tuple[list[str], list[int]]:
        stream, splitter = self._stream, self._splitter
        assert stream is not None and splitter is not None
        batch_size = self._batch_size
        lines: list[str] = []
        ends: list[int] = []
        while True:
            wanted = batch_size - len(lines)
            available = len(self._lines) - self._next
            if available:
                take = min(wanted, available)
                start = self._next
                self._next = stop = start + take
                if lines:
                    lines += self._lines[start:stop]
                    ends += self._ends[start:stop]
                else:  # the usual case: one copy, not a copy and an extend
                    lines, ends = self._lines[start:stop], self._ends[start:stop]
                if take == wanted:
                    return lines, ends
            chunk = self._read_chunk(stream)
            if not chunk:
                return lines, ends
            self._lines, self._ends = splitter.feed(chunk)
            self._next = 0

    def _read_chunk(self, stream: BinaryIO) -> bytes:
        try:
            if self._filename is None:
                return self._read_stdin(stream)
            return stream.read(_READ_SIZE) or b""
        except (OSError, ValueError) as exc:
            # ValueError: the stream was closed by stop(); nothing more to read.
            if not self._stopping.is_set():
                log.warning("Reading %s failed: %s", self._filename or "stdin", exc)
            return b""

    def _read_stdin(self, stream: BinaryIO) -> bytes:
        # Read only what is already there, so a quiet terminal or pipe cannot block poll()
        # past stop(); where select() cannot watch the stream, fall back to a blocking read.
        try:
            ready, _, _ = select.select([stream], [], [], 0)
        except (OSError, ValueError, io.UnsupportedOperation):
            ready = [stream]
        if not ready:
            return b""
        read1 = getattr(stream, "read1", None)
        data: bytes = read1(_READ_SIZE) if read1 is not None else stream.read(_READ_SIZE)
        return data or b""
