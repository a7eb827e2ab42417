from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_connector_file import FileStreamSinkConnector, FileStreamSinkTask
from kconnect_sdk import ConnectError, Schema, SinkBatch, SinkRecord, TopicPartition


def record(value: Any, offset: int = 0) -> SinkRecord:
    return SinkRecord(topic="lines", kafka_partition=0, value=value, kafka_offset=offset)


@pytest.fixture
def tasks() -> Iterator[list[FileStreamSinkTask]]:
    started: list[FileStreamSinkTask] = []
    yield started
    for task in started:
        task.stop()


def start_task(path: Path | None) -> FileStreamSinkTask:
    task = FileStreamSinkTask()
    task.start({} if path is None else {"file": str(path)})
    return task


def test_each_value_is_appended_as_a_utf8_line(
    tmp_path: Path, tasks: list[FileStreamSinkTask]
) -> None:
    out = tmp_path / "out.txt"
    tasks.append(task := start_task(out))

    task.put([record("plain"), record("héllo ✓"), record(None), record(42)])
    task.put([record(True), record(2.5)])
    task.flush({})

    # None prints "null" and booleans print lower-case, as Java's println does.
    assert out.read_bytes() == b"plain\nh\xc3\xa9llo \xe2\x9c\x93\nnull\n42\ntrue\n2.5\n"


def test_a_batch_of_columns_writes_what_put_writes(
    tmp_path: Path, tasks: list[FileStreamSinkTask]
) -> None:
    # The worker hands a connector without transforms its batches as columns.
    batches = [
        [record("plain", 0), record("héllo ✓", 1), record("a\ud800", 2)],  # all strings
        [record(None, 3), record(42, 4), record(True, 5), record(b"\x01", 6)],  # others
        [SinkRecord(topic="lines", kafka_partition=0, value=7, value_schema=Schema.INT8)],
        [],
    ]
    by_records, by_columns = tmp_path / "records.txt", tmp_path / "columns.txt"
    tasks.append(one := start_task(by_records))
    tasks.append(other := start_task(by_columns))
    for batch in batches:
        one.put(batch)
        other.put_batch(SinkBatch.of(batch))
    one.flush({})
    other.flush({})
    written = by_columns.read_bytes()
    assert written == by_records.read_bytes()
    assert written.startswith(b"plain\nh\xc3\xa9llo \xe2\x9c\x93\na?\nnull\n42\ntrue\n")


def test_the_file_is_created_and_existing_content_kept(
    tmp_path: Path, tasks: list[FileStreamSinkTask]
) -> None:
    missing = tmp_path / "new.txt"
    existing = tmp_path / "old.txt"
    existing.write_text("from before\n")
    tasks.append(first := start_task(missing))
    tasks.append(second := start_task(existing))

    assert missing.exists()
    first.put([record("a")])
    second.put([record("b")])
    first.flush({})
    second.flush({})

    assert missing.read_text() == "a\n"
    assert existing.read_text() == "from before\nb\n"


def test_pre_commit_makes_the_lines_durable_before_reporting_offsets(
    tmp_path: Path, tasks: list[FileStreamSinkTask], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.txt"
    tasks.append(task := start_task(out))
    synced: list[bytes] = []
    real_fsync = os.fsync

    def watching_fsync(fd: int) -> None:
        synced.append(out.read_bytes())
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", watching_fsync)
    task.put([record("one", 0), record("two", 1)])
    offsets = {TopicPartition("lines", 0): 2}

    committed = task.pre_commit(offsets)

    assert committed == offsets
    # fsync ran once the data was in the file, so the committed offsets are on disk.
    assert synced == [b"one\ntwo\n"]


def test_stop_flushes_and_closes(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    task = start_task(out)
    task.put([record("last words")])

    task.stop()

    assert out.read_text() == "last words\n"
    with pytest.raises(ConnectError, match="not running"):
        task.put([record("too late")])


def test_an_unwritable_path_fails_start_naming_the_file(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "out.txt"

    with pytest.raises(ConnectError, match="no-such-dir") as info:
        start_task(target)
    assert "'file'" in str(info.value)


def test_without_a_file_lines_go_to_stdout(
    capfdbinary: pytest.CaptureFixture[bytes], tasks: list[FileStreamSinkTask]
) -> None:
    tasks.append(task := start_task(None))

    task.put([record("to the console"), record(None)])
    task.flush({})

    assert capfdbinary.readouterr().out == b"to the console\nnull\n"


@pytest.mark.parametrize("max_tasks", [1, 4])
def test_task_configs_gives_one_copy_per_task(max_tasks: int) -> None:
    connector = FileStreamSinkConnector()
    props = {"name": "sink", "file": "out.txt", "topics": "lines"}
    connector.start(props)

    configs = connector.task_configs(max_tasks)

    assert configs == [props] * max_tasks
    assert connector.task_class() is FileStreamSinkTask


def test_sink_connector_config_and_offsets() -> None:
    connector = FileStreamSinkConnector()

    keys = connector.config().config_keys
    assert set(keys) == {"file"}
    assert keys["file"].default is None
    assert connector.alter_offsets({}, {TopicPartition("lines", 0): 5}) is True
