"""A damaged store file stops the worker with one message naming the file and what to do.

Issue 24: a binary offsets file ended ``kconnect standalone`` with a raw traceback. Every
file a standalone worker reads (the offsets file, the worker and connector configs, the
REST user file) gets the same treatment: exit code 1, ``kconnect: error: <file> ...``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from runtime_harness import file_source, kconnect, worker_props, write_props

pytestmark = pytest.mark.integration

BINARY = bytes(range(256)) * 4  # NUL, 0xff and friends: what a disk error or a wrong file gives


def _run(tmp_path: Path, *args: str) -> tuple[int, str]:
    proc = kconnect("standalone", *args, cwd=tmp_path)
    out, _ = proc.communicate(timeout=90)
    return proc.returncode, out.decode(errors="replace")


def _offsets(damage: bytes) -> Callable[[Path, dict[str, str]], Path]:
    def make(tmp: Path, worker: dict[str, str]) -> Path:
        path = Path(worker["offset.storage.file.filename"])
        path.write_bytes(damage)
        return path

    return make


# (what was damaged, how, words the message must carry besides the file's name)
CASES: list[tuple[str, Callable[[Path, dict[str, str]], Path], list[str]]] = [
    ("offsets-binary", _offsets(BINARY), ["offset file", "not UTF-8", "move it away"]),
    (
        "offsets-truncated",
        _offsets(b'{"version":1,"offsets":[{"key":["src",{"filename":"/x'),
        ["offset file", "truncated", "move it away"],
    ),
    (
        "offsets-garbage-json",
        _offsets(b'["not", "offsets"]'),
        ["offset file", "not a kconnect offset file", "move it away"],
    ),
    (
        "offsets-wrong-entries",
        _offsets(b'{"offsets":[{"value":{"position":1}}]}'),
        ["offset file", "not a kconnect offset file", "'key'"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_damaged_offsets_file_gives_one_clear_message(
    tmp_path: Path, kafka: str, case: tuple[str, Callable[[Path, dict[str, str]], Path], list[str]]
) -> None:
    _, damage, words = case
    props = worker_props(tmp_path, kafka)
    damaged = damage(tmp_path, props)
    worker = write_props(tmp_path / "worker.properties", props)
    code, out = _run(tmp_path, str(worker))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert f"kconnect: error: {damaged.name}" in out or f"'{damaged}'" in out, out
    for word in words:
        assert word in out, (word, out)
    # The offsets were left alone: the operator decides what to do with them.
    assert damaged.read_bytes() != b""


def test_offsets_file_that_is_a_directory_is_named(tmp_path: Path, kafka: str) -> None:
    props = worker_props(tmp_path, kafka)
    Path(props["offset.storage.file.filename"]).mkdir()
    worker = write_props(tmp_path / "worker.properties", props)
    code, out = _run(tmp_path, str(worker))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert (
        f"cannot read offset.storage.file.filename '{props['offset.storage.file.filename']}'" in out
    )


@pytest.mark.parametrize("suffix", [".properties", ".json"])
def test_binary_connector_config_names_the_file(tmp_path: Path, kafka: str, suffix: str) -> None:
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    conn = tmp_path / f"connector{suffix}"
    conn.write_bytes(BINARY)
    code, out = _run(tmp_path, str(worker), str(conn))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert f"config file '{conn}' is not UTF-8 text" in out, out


def test_connector_config_that_is_a_directory_is_named(tmp_path: Path, kafka: str) -> None:
    worker = write_props(tmp_path / "worker.properties", worker_props(tmp_path, kafka))
    conn = tmp_path / "connector.json"
    conn.mkdir()
    code, out = _run(tmp_path, str(worker), str(conn))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert f"cannot read config file '{conn}'" in out, out


def test_binary_worker_config_names_the_file(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_bytes(BINARY)
    code, out = _run(tmp_path, str(worker))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert f"config file '{worker}' is not UTF-8 text" in out, out


def test_binary_rest_user_file_names_the_key_and_file(tmp_path: Path, kafka: str) -> None:
    users = tmp_path / "users.properties"
    users.write_bytes(BINARY)
    props = worker_props(
        tmp_path,
        kafka,
        listeners="http://127.0.0.1:0",
        **{"rest.basic.auth.user.file": str(users)},
    )
    source = write_props(
        tmp_path / "src.properties", file_source("src", tmp_path / "in.txt", "t-users")
    )
    worker = write_props(tmp_path / "worker.properties", props)
    code, out = _run(tmp_path, str(worker), str(source))
    assert code == 1, out
    assert "Traceback" not in out, out
    assert f"rest.basic.auth.user.file: cannot read '{users}'" in out, out
    assert "not UTF-8" in out, out
