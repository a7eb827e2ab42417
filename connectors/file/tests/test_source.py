from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from kconnect_connector_file import FileStreamSourceConnector, FileStreamSourceTask
from kconnect_sdk import ConfigError, ConnectError, ExactlyOnceSupport, Schema, SourceRecord


class FakeOffsetReader:
    """Committed offsets keyed by the ``filename`` of the partition."""

    def __init__(self, offsets: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.offsets_by_file = dict(offsets or {})
        self.asked: list[Mapping[str, Any]] = []

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        self.asked.append(dict(partition))
        return self.offsets_by_file.get(partition["filename"])

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        return [self.offset(p) for p in partitions]


class FakeContext:
    def __init__(self, reader: FakeOffsetReader, configs: Mapping[str, str]) -> None:
        self._reader = reader
        self._configs = dict(configs)

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> FakeOffsetReader:
        return self._reader


def start_task(
    path: Path | None,
    *,
    committed: Mapping[str, Any] | None = None,
    idle_wait_s: float = 0.05,
    **extra: str,
) -> FileStreamSourceTask:
    props = {"topic": "lines", **extra}
    if path is not None:
        props["file"] = str(path)
    offsets = {str(path): committed} if committed is not None else {}
    task = FileStreamSourceTask()
    task.idle_wait_s = idle_wait_s
    task.initialize(FakeContext(FakeOffsetReader(offsets), props))
    task.start(props)
    return task


@pytest.fixture
def tasks() -> Iterator[list[FileStreamSourceTask]]:
    started: list[FileStreamSourceTask] = []
    yield started
    for task in started:
        task.stop()


def poll_values(task: FileStreamSourceTask) -> list[str] | None:
    records = task.poll()
    return None if records is None else [r.value for r in records]


def positions(records: Sequence[SourceRecord]) -> list[int]:
    return [r.source_offset["position"] for r in records if r.source_offset is not None]


# Every terminator, and characters of 2, 3 and 4 bytes in UTF-8. The byte position after
# each line, worked out by hand:
#   "one\n" 4 -> 4; "two\r\n" 5 -> 9; "three\r" 6 -> 15; "four\n" 5 -> 20;
#   "héllo\n" (é is 2 bytes) 7 -> 27; "日本語\n" (3 x 3 bytes) 10 -> 37; "😀\r\n" 6 -> 43
MIXED = "one\ntwo\r\nthree\rfour\nhéllo\n日本語\n😀\r\n".encode()
MIXED_LINES = ["one", "two", "three", "four", "héllo", "日本語", "😀"]
MIXED_ENDS = [4, 9, 15, 20, 27, 37, 43]


def test_each_line_becomes_a_string_record_with_its_byte_position(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(MIXED)
    tasks.append(task := start_task(source))

    before = int(time.time() * 1000)
    records = task.poll()
    after = int(time.time() * 1000)

    assert records is not None
    assert [r.value for r in records] == MIXED_LINES
    assert positions(records) == MIXED_ENDS
    for record in records:
        assert record.topic == "lines"
        assert record.source_partition == {"filename": str(source)}
        assert record.value_schema == Schema.STRING
        assert record.key is None and record.key_schema is None
        assert record.kafka_partition is None
        assert record.timestamp is not None and before <= record.timestamp <= after


def test_batch_size_caps_the_records_per_poll(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\nd\ne\n")
    tasks.append(task := start_task(source, **{"batch.size": "2"}))

    assert poll_values(task) == ["a", "b"]
    assert poll_values(task) == ["c", "d"]
    assert poll_values(task) == ["e"]
    assert task.poll() is None


def test_default_batch_size_is_2000(tmp_path: Path, tasks: list[FileStreamSourceTask]) -> None:
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{i}\n" for i in range(2500)))
    tasks.append(task := start_task(source))

    first = poll_values(task)
    second = poll_values(task)

    assert first == [str(i) for i in range(2000)]
    assert second == [str(i) for i in range(2000, 2500)]


@pytest.mark.parametrize(
    ("committed", "expected"),
    [
        (9, ["three", "four", "héllo", "日本語", "😀"]),
        # Just after "héllo", whose é takes two bytes.
        (27, ["日本語", "😀"]),
        (43, None),
        (0, MIXED_LINES),
    ],
)
def test_resumes_after_the_committed_position(
    tmp_path: Path,
    tasks: list[FileStreamSourceTask],
    committed: int,
    expected: list[str] | None,
) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(MIXED)
    tasks.append(task := start_task(source, committed={"position": committed}))

    records = task.poll()

    if expected is None:
        assert records is None
        return
    assert records is not None
    assert [r.value for r in records] == expected
    assert positions(records) == MIXED_ENDS[len(MIXED_ENDS) - len(expected) :]


def test_a_committed_offset_without_position_reads_from_the_start(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("x\ny\n")
    tasks.append(task := start_task(source, committed={}))

    assert poll_values(task) == ["x", "y"]


@pytest.mark.parametrize("bad", ["12", -1, 1.5, True])
def test_a_corrupt_committed_position_fails_with_a_clear_error(
    tmp_path: Path, tasks: list[FileStreamSourceTask], bad: object
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("x\n")
    tasks.append(task := start_task(source, committed={"position": bad}))

    with pytest.raises(ConnectError, match=r"'position'.*non-negative integer") as info:
        task.poll()
    assert str(source) in str(info.value)


def test_an_unterminated_last_line_is_held_until_its_terminator_arrives(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(b"abc\npart")
    tasks.append(task := start_task(source))

    records = task.poll()
    assert records is not None
    assert [r.value for r in records] == ["abc"]
    assert task.poll() is None

    with source.open("ab") as f:
        f.write(b"ial\r")
    # A trailing "\r" may be the first half of "\r\n", so the line still waits.
    assert task.poll() is None

    with source.open("ab") as f:
        f.write("\nnext ✓\n".encode())
    records = task.poll()
    assert records is not None
    assert [r.value for r in records] == ["partial", "next ✓"]
    # "abc\n" is 4 bytes, "partial\r\n" 9, "next ✓\n" 5 + 3 + 1.
    assert positions(records) == [13, 22]


def test_a_trailing_cr_followed_by_more_text_ends_the_line(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(b"old mac\r")
    tasks.append(task := start_task(source))
    assert task.poll() is None

    with source.open("ab") as f:
        f.write(b"line\r")
    records = task.poll()

    assert records is not None
    assert [r.value for r in records] == ["old mac"]
    assert positions(records) == [8]


def test_lines_straddling_read_boundaries_are_exact(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    # The "\r\n" of the first line sits across the 1 MiB mark, where one read ends.
    first = "a" * ((1 << 20) - 1)
    lines = [first, *(f"line {i} é" for i in range(200_000))]
    content = (first + "\r\n" + "".join(f"{line}\n" for line in lines[1:])).encode()
    source = tmp_path / "big.txt"
    source.write_bytes(content)
    tasks.append(task := start_task(source, **{"batch.size": "100000"}))

    got: list[SourceRecord] = []
    while len(got) < len(lines):
        records = task.poll()
        assert records is not None, f"no records after {len(got)} of {len(lines)}"
        got.extend(records)

    assert [r.value for r in got] == lines
    assert positions(got)[0] == (1 << 20) + 1
    assert positions(got)[-1] == len(content)
    assert task.poll() is None


def test_invalid_utf8_becomes_the_replacement_character(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(b"ok\nbad \xff byte\n")
    tasks.append(task := start_task(source))

    records = task.poll()

    assert records is not None
    assert [r.value for r in records] == ["ok", "bad \ufffd byte"]
    # "ok\n" is 3 bytes; "bad \xff byte\n" is 4 + 1 + 5 + 1 = 11.
    assert positions(records) == [3, 14]


def test_a_missing_file_is_retried_until_it_appears(
    tmp_path: Path, tasks: list[FileStreamSourceTask], caplog: pytest.LogCaptureFixture
) -> None:
    source = tmp_path / "later.txt"
    tasks.append(task := start_task(source))

    with caplog.at_level(logging.WARNING):
        assert task.poll() is None
        assert task.poll() is None
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings, "expected a warning about the missing file"
    assert str(source) in warnings[0].getMessage()
    assert "create it" in warnings[0].getMessage()

    source.write_text("finally\n")
    assert poll_values(task) == ["finally"]


def test_an_idle_poll_waits_about_a_second_then_returns_none(
    tmp_path: Path, tasks: list[FileStreamSourceTask]
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("")
    tasks.append(task := start_task(source, idle_wait_s=FileStreamSourceTask.idle_wait_s))

    started = time.monotonic()
    assert task.poll() is None
    waited = time.monotonic() - started

    assert FileStreamSourceTask.idle_wait_s == 1.0
    assert 0.8 <= waited < 2.0


@pytest.mark.parametrize("file_exists", [True, False])
def test_stop_from_another_thread_releases_a_waiting_poll(
    tmp_path: Path, file_exists: bool
) -> None:
    source = tmp_path / "in.txt"
    if file_exists:
        source.write_text("")
    task = start_task(source, idle_wait_s=30.0)
    result: list[object] = []
    poller = threading.Thread(target=lambda: result.append(task.poll()))
    poller.start()
    time.sleep(0.2)

    started = time.monotonic()
    task.stop()
    poller.join(timeout=5)

    assert not poller.is_alive()
    assert time.monotonic() - started < 2.0
    assert result == [None]
    assert task.poll() is None


def test_stdin_lines_carry_no_offsets(stdin_pipe: int, tasks: list[FileStreamSourceTask]) -> None:
    os.write(stdin_pipe, "typed\r\nhé\n".encode())
    tasks.append(task := start_task(None))
    records = task.poll()
    # Nothing more on the pipe: the poll must not block on it.
    started = time.monotonic()
    assert task.poll() is None
    assert time.monotonic() - started < 2.0

    assert records is not None
    assert [r.value for r in records] == ["typed", "hé"]
    assert all(r.source_partition is None and r.source_offset is None for r in records)


# --- the connector ---------------------------------------------------------------------


def test_missing_topic_is_rejected_naming_the_key() -> None:
    connector = FileStreamSourceConnector()

    with pytest.raises(ConfigError, match="topic") as info:
        connector.start({"file": "x.txt"})
    assert info.value.name == "topic"

    results = {v.name: v for v in connector.validate({"file": "x.txt"})}
    assert any("topic" in message for message in results["topic"].error_messages)
    assert results["file"].error_messages == []


def test_empty_topic_is_rejected() -> None:
    with pytest.raises(ConfigError, match="topic") as info:
        FileStreamSourceConnector().start({"file": "x.txt", "topic": ""})
    assert info.value.name == "topic"


@pytest.mark.parametrize("batch_size", ["0", "-5", "many"])
def test_bad_batch_size_is_rejected_naming_the_key(batch_size: str) -> None:
    connector = FileStreamSourceConnector()
    props = {"file": "x.txt", "topic": "t", "batch.size": batch_size}

    with pytest.raises(ConfigError, match=r"batch\.size") as info:
        connector.start(props)
    assert info.value.name == "batch.size"

    results = {v.name: v for v in connector.validate(props)}
    assert results["batch.size"].error_messages


def test_config_keys_and_defaults_match_kafka() -> None:
    keys = FileStreamSourceConnector().config().config_keys

    assert set(keys) == {"file", "topic", "batch.size"}
    assert keys["file"].default is None
    assert not keys["topic"].has_default
    assert keys["batch.size"].default == 2000


@pytest.mark.parametrize("max_tasks", [1, 3, 10])
def test_there_is_always_exactly_one_task(max_tasks: int) -> None:
    connector = FileStreamSourceConnector()
    props = {"name": "src", "file": "x.txt", "topic": "t", "tasks.max": str(max_tasks)}
    connector.start(props)

    configs = connector.task_configs(max_tasks)

    assert configs == [props]
    assert connector.task_class() is FileStreamSourceTask


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"topic": "t", "file": "x.txt"}, ExactlyOnceSupport.SUPPORTED),
        ({"topic": "t"}, ExactlyOnceSupport.UNSUPPORTED),
        ({"topic": "t", "file": ""}, ExactlyOnceSupport.UNSUPPORTED),
    ],
)
def test_exactly_once_only_for_a_real_file(
    props: dict[str, str], expected: ExactlyOnceSupport
) -> None:
    assert FileStreamSourceConnector().exactly_once_support(props) == expected


@pytest.mark.parametrize(
    "offsets",
    [
        [({"filename": "x.txt"}, {"position": 0})],
        [({"filename": "x.txt"}, {"position": 12345})],
        [({"filename": "x.txt"}, None)],
        [({"filename": "a.txt"}, {"position": 1}), ({"filename": "b.txt"}, None)],
    ],
)
def test_alter_offsets_accepts_positions_and_resets(
    offsets: list[tuple[dict[str, Any], dict[str, Any] | None]],
) -> None:
    assert FileStreamSourceConnector().alter_offsets({"topic": "t"}, offsets) is True


# Kafka's FileStreamSourceConnector.alterOffsets refusals, word for word.
_NO_POSITION = "Offset objects should either be null or contain the key 'position'"
_NOT_LONG = "The value for the 'position' key in the offset is expected to be a Long value"
_NEGATIVE = "The value for the 'position' key in the offset should be a non-negative value"


@pytest.mark.parametrize(
    ("partition", "offset", "complaint"),
    [
        ({}, {"position": 1}, "Partition objects should contain the key 'filename'"),
        (None, {"position": 1}, "Partition objects cannot be null"),
        ({"filename": "x.txt"}, {}, _NO_POSITION),
        ({"filename": "x.txt"}, {"position": -1}, _NEGATIVE),
        ({"filename": "x.txt"}, {"position": "10"}, _NOT_LONG),
        ({"filename": "x.txt"}, {"position": 1.5}, _NOT_LONG),
        ({"filename": "x.txt"}, {"position": None}, _NOT_LONG),
        ({"filename": "x.txt"}, {"position": True}, _NOT_LONG),
        ({"filename": "x.txt"}, {"position": 2**63}, _NOT_LONG),
        # The offset is checked before the partition, as Kafka does.
        ({}, {}, _NO_POSITION),
    ],
)
def test_alter_offsets_refuses_malformed_offsets(
    partition: dict[str, Any] | None, offset: dict[str, Any] | None, complaint: str
) -> None:
    with pytest.raises(ConnectError) as refused:
        FileStreamSourceConnector().alter_offsets({"topic": "t"}, [(partition, offset)])  # type: ignore[list-item]
    assert str(refused.value) == complaint


def test_a_reset_is_allowed_for_any_partition() -> None:
    """Kafka lets a null offset through whatever the partition, so garbage left in the
    offsets topic can be cleaned up through the REST API."""
    garbage = [({"file": "x.txt"}, None), ({}, None)]
    assert FileStreamSourceConnector().alter_offsets({"topic": "t"}, garbage) is True


def test_without_file_or_stdin_start_says_to_set_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)

    with pytest.raises(ConnectError, match="set 'file'"):
        start_task(None)
