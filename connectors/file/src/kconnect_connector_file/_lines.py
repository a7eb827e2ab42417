"""Splitting a byte stream into text lines while tracking the byte position after each."""

from __future__ import annotations

import operator
import re
from itertools import accumulate
from typing import Final

__all__ = ["LineSplitter"]

_TERMINATOR: Final = re.compile(rb"(\r\n|\r|\n)")
_plus_one: Final = (1).__add__


class LineSplitter:
    """Turns chunks of UTF-8 bytes into complete lines, as Kafka's FileStreamSourceTask does.

    A line ends at ``\\n``, ``\\r`` or ``\\r\\n``; the terminator is not part of the line.
    Bytes after the last terminator are held until their terminator arrives, and so is a
    trailing ``\\r``, because the next chunk may start with the ``\\n`` that completes it.
    Malformed UTF-8 decodes to U+FFFD, as Java's decoder does.

    The work is done by bulk ``bytes``/``str`` operations over a whole chunk, never by a
    Python loop over bytes: this sits on the hot path of every file source.
    """

    __slots__ = ("_held", "position")

    def __init__(self, position: int = 0) -> None:
        self.position = position
        """Byte position just after the last line returned by :meth:`feed`."""
        self._held: list[bytes] = []

    def feed(self, chunk: bytes) -> tuple[list[str], list[int]]:
        """Add ``chunk``; return the lines it completes and the byte position after each."""
        held = self._held
        # A chunk without terminators completes nothing, unless a held "\r" now proves to
        # be a lone terminator.
        if (
            b"\n" not in chunk
            and b"\r" not in chunk
            and not (held and held[-1].endswith(b"\r") and chunk)
        ):
            if chunk:
                held.append(chunk)
            return [], []
        if held:
            held.append(chunk)
            data = b"".join(held)
            held.clear()
        else:
            data = chunk
        if b"\r" in data:
            return self._split_any(data)
        return self._split_lf(data)

    def _split_lf(self, data: bytes) -> tuple[list[str], list[int]]:
        cut = data.rfind(b"\n")
        if cut < 0:
            self._held.append(data)
            return [], []
        if cut + 1 < len(data):
            self._held.append(data[cut + 1 :])
        body = data[:cut]
        lines = body.decode("utf-8", "replace").split("\n")
        # ASCII text has one byte per character, so the decoded lengths are byte lengths.
        sizes = map(len, lines if body.isascii() else body.split(b"\n"))
        ends = list(accumulate(map(_plus_one, sizes), initial=self.position))
        del ends[0]
        self.position = ends[-1]
        return lines, ends

    def _split_any(self, data: bytes) -> tuple[list[str], list[int]]:
        parts = _TERMINATOR.split(data)
        # parts alternates line, terminator, line, ..., and ends with the unterminated tail.
        raw_lines = parts[0:-1:2]
        terminators = parts[1::2]
        tail = parts[-1]
        if not tail and terminators[-1] == b"\r":
            tail = raw_lines.pop() + terminators.pop()
        if tail:
            self._held.append(tail)
        if not raw_lines:
            return [], []
        sizes = map(operator.add, map(len, raw_lines), map(len, terminators))
        ends = list(accumulate(sizes, initial=self.position))
        del ends[0]
        self.position = ends[-1]
        return [raw.decode("utf-8", "replace") for raw in raw_lines], ends
