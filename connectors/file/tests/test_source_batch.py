"""``FileStreamSourceTask.poll_batch``: the same records as ``poll``, as columns."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from kconnect_connector_file import FileStreamSourceTask
from kconnect_sdk import Schema, SourceBatch, SourceRecord


class _Offsets:
    def __init__(self, committed: Mapping[str, Any] | None) -> None:
        self.committed = committed

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self.committed

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        return [self.committed for _ in partitions]


class _Context:
    def __init__(self, props: Mapping[str, str], committed: Mapping[str, Any] | None) -> None:
        self.configs = dict(props)
        self.offset_storage_reader = _Offsets(committed)


@pytest.fixture
def start() -> Iterator[Any]:
    started: list[FileStreamSourceTask] = []

    def start_task(
        path: Path | None, committed: Mapping[str, Any] | None = None, **extra: str
    ) -> FileStreamSourceTask:
        props = {"topic": "lines", **extra}
        if path is not None:
            props["file"] = str(path)
        task = FileStreamSourceTask()
        task.idle_wait_s = 0.05
        task.initialize(_Context(props, committed))  # type: ignore[arg-type]  # a test double
        task.start(props)
        started.append(task)
        return task

    yield start_task
    for task in started:
        task.stop()


def all_records(task: FileStreamSourceTask) -> list[SourceRecord]:
    out: list[SourceRecord] = []
    while (records := task.poll()) is not None:
        out.extend(records)
    return out


def all_batches(task: FileStreamSourceTask) -> list[SourceBatch]:
    out: list[SourceBatch] = []
    while (batch := task.poll_batch()) is not None:
        out.append(batch)
    return out


def without_time(records: Sequence[SourceRecord]) -> list[SourceRecord]:
    return [r.new_record(timestamp=None) for r in records]


def test_poll_batch_gives_the_records_poll_gives(tmp_path: Path, start: Any) -> None:
    # Lines across the 1 MiB read boundary, every terminator, non-ASCII text, a held tail.
    first = "a" * ((1 << 20) - 1)
    body = first + "\r\n" + "".join(f"line {i} é\n" for i in range(5000)) + "cr\rcrlf\r\nend"
    source = tmp_path / "in.txt"
    source.write_bytes(body.encode())

    by_rows = all_records(start(source, **{"batch.size": "700"}))
    batches = all_batches(start(source, **{"batch.size": "700"}))

    from_batches = [r for b in batches for r in b.records()]
    assert without_time(from_batches) == without_time(by_rows)
    assert len(by_rows) == 5003  # "end" has no terminator yet: held, as poll holds it
    assert by_rows[-1].value == "crlf"
    assert by_rows[-1].source_offset == {"position": len(body.encode()) - len("end")}
    # batch.size caps a batch as it caps a poll; each batch is one topic and one partition.
    assert max(map(len, batches)) == 700
    for batch in batches:
        assert batch.topic == "lines"
        assert batch.source_partition == {"filename": str(source)}
        assert batch.value_schema == Schema.STRING
        assert batch.timestamps is not None and len(set(batch.timestamps)) == 1
    # The offsets are a column of byte positions: no map per line until records() is asked.
    assert batches[0].source_offset_columns is not None
    assert list(batches[0].source_offset_columns) == ["position"]


def test_poll_batch_resumes_after_the_committed_position(tmp_path: Path, start: Any) -> None:
    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\nthree\n", encoding="utf-8")
    task = start(source, committed={"position": len("one\n")})
    (batch,) = all_batches(task)
    assert [(r.value, r.source_offset) for r in batch.records()] == [
        ("two", {"position": 8}),
        ("three", {"position": 14}),
    ]
    with source.open("a", encoding="utf-8") as f:
        f.write("four\n")
    (batch,) = all_batches(task)
    assert list(batch.values) == ["four"]
    assert batch.source_offset(0) == {"position": 19}


def test_stdin_batches_carry_no_partition_or_offsets(stdin_pipe: int, start: Any) -> None:
    os.write(stdin_pipe, "typed\r\nhé\n".encode())
    batch = start(None).poll_batch()
    assert batch is not None
    assert list(batch.values) == ["typed", "hé"]
    assert batch.source_partition is None
    assert batch.offsets() == [None, None]
