"""Fixtures shared by the FileStream tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def stdin_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """``sys.stdin`` replaced by the read end of a pipe; yields the write end's descriptor."""
    read_fd, write_fd = os.pipe()

    class FakeStdin:
        buffer = os.fdopen(read_fd, "rb")

    monkeypatch.setattr(sys, "stdin", FakeStdin)
    try:
        yield write_fd
    finally:
        os.close(write_fd)
        FakeStdin.buffer.close()
