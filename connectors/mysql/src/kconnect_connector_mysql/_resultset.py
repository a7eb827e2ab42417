"""The rows of an unbuffered text-protocol result set, read from the socket in large chunks.

pymysql's unbuffered cursor reads each row as its own packet: two buffered reads, a packet
object, checks for EOF and errors, then the fields, about 3 us of Python per row; and its
socket reads go through an 8 KB buffer, so the snapshot's reader thread gives up the
interpreter lock (and waits to get it back from the task thread) every ~80 rows. Here a
function generated per result set parses every complete row packet of a 256 KB chunk in one
loop, its fields converted on the way, and the socket is read a chunk at a time.

With kconnect-speedups installed (and ``KCONNECT_SPEEDUPS`` not ``0``), its ``TextRows``
reads the packets instead, in C, into the same values (the generated functions stay the
reference and the fallback). One difference: a field that runs past the end of its packet is
a ValueError there, where the generated code reads on into the bytes that follow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import pymysql
import pymysql.protocol
from kconnect_sdk import optional_speedups

__all__ = ["UnbufferedRows"]

_CHUNK: Final = 1 << 18
_MAX_PACKET: Final = 0xFFFFFF  # a packet this long continues in the next one
_MORE_RESULTS: Final = 8  # SERVER_MORE_RESULTS_EXISTS
_CR_SERVER_LOST: Final = 2013

# What the generated loop stops at, besides having read n rows or the end of the chunk.
_SPECIAL: Final = 1  # an EOF or error packet
_LONG: Final = 2  # a row of 16 MB or more, split over several packets
_BAD_SEQUENCE: Final = 3

# kconnect-speedups' compiled module (its TextRows), or None: see optional_speedups.
SPEEDUPS: Any = optional_speedups("kconnect_speedups._mysql")


def _length_coded(data: bytes, pos: int) -> tuple[bytes | None, int]:
    """A length-coded string at ``pos`` whose length takes 2, 3 or 8 bytes (or NULL)."""
    c = data[pos]
    if c == 251:
        return None, pos + 1
    width = 2 if c == 252 else 3 if c == 253 else 8
    start = pos + 1 + width
    end = start + int.from_bytes(data[pos + 1 : start], "little")
    return data[start:end], end


def _field_lines(
    columns: Sequence[tuple[str | None, Callable[[Any], Any] | None]],
    then: Sequence[Callable[[Any], Any] | None],
    env: dict[str, Any],
    indent: str,
) -> list[str]:
    """Code reading a row's fields at ``p`` of ``d`` into ``v0``, ``v1``, …, each converted.

    Each field is a length-coded string, decoded with its column's encoding and passed to
    pymysql's converter for its type (as pymysql's own row reading does), then to ``then``'s
    callable for it (None included, as the snapshot's row converter always was).
    """
    lines: list[str] = []
    for i, ((encoding, converter), after) in enumerate(zip(columns, then, strict=True)):
        v = f"v{i}"
        lines += [
            "b = d[p]",
            "if b < 251:",
            "    e = p + 1 + b",
            f"    {v} = d[p + 1 : e]",
            "    p = e",
            "else:",
            f"    {v}, p = _long(d, p)",
        ]
        if converter in (int, float) and encoding in ("ascii", None):
            env[f"c{i}"] = converter  # int() and float() take the ASCII bytes as they are
            lines.append(f"if {v} is not None: {v} = c{i}({v})")
        elif converter is not None:
            env[f"c{i}"] = converter
            decoded = f"{v}.decode({encoding!r})" if encoding is not None else v
            lines.append(f"if {v} is not None: {v} = c{i}({decoded})")
        elif encoding is not None:
            lines.append(f"if {v} is not None: {v} = {v}.decode({encoding!r})")
        if after is not None:
            env[f"k{i}"] = after
            lines.append(f"{v} = k{i}({v})")
    return [indent + line for line in lines]


def _generate(
    columns: Sequence[tuple[str | None, Callable[[Any], Any] | None]],
    then: Sequence[Callable[[Any], Any] | None],
) -> tuple[Callable[..., tuple[int, int, int]], Callable[[bytes], list[Any]]]:
    env: dict[str, Any] = {"_long": _length_coded}
    row = "[" + ", ".join(f"v{i}" for i in range(len(columns))) + "]"
    many = [
        "def read_many(d, p, n, seq, append):",
        "    end = len(d)",
        "    while n:",
        "        if p + 4 > end:",
        "            break",
        "        length = d[p] | d[p + 1] << 8 | d[p + 2] << 16",
        "        stop = p + 4 + length",
        "        if stop > end:",
        "            break",
        "        if d[p + 3] != seq:",
        f"            return p, seq, {_BAD_SEQUENCE}",
        f"        if length == {_MAX_PACKET}:",
        f"            return p, seq, {_LONG}",
        "        b = d[p + 4]",
        "        if b == 255 or (b == 254 and length < 9):",
        f"            return p, seq, {_SPECIAL}",
        "        seq = (seq + 1) & 255",
        "        p += 4",
        *_field_lines(columns, then, env, "        "),
        f"        append({row})",
        "        p = stop",
        "        n -= 1",
        "    return p, seq, 0",
        "",
        "def read_one(d):",
        "    p = 0",
        *_field_lines(columns, then, env, "    "),
        f"    return {row}",
    ]
    exec(compile("\n".join(many) + "\n", "<kconnect-mysql result rows>", "exec"), env)
    return env["read_many"], env["read_one"]


class UnbufferedRows:
    """The rows of the result set an unbuffered cursor has just executed, in batches.

    Args:
        conn: The pymysql connection the query ran on (an ``SSCursor``'s).
        result: The cursor's ``MySQLResult`` (column descriptions read, rows not yet).
        then: Per column, a callable applied to pymysql's value (or None): the caller's
            conversion, fused into the same generated function.

    The same values as ``SSCursor.fetchmany`` followed by ``then``. Once this reads, pymysql
    must not read the result itself: call ``abort`` if the rows are not read to the end (it
    closes the connection, whose socket is then mid-result).
    """

    def __init__(self, conn: Any, result: Any, then: Sequence[Callable[[Any], Any] | None]) -> None:
        self._conn = conn
        self._result = result
        self._active = bool(result.unbuffered_active)
        compiled = getattr(SPEEDUPS, "TextRows", None)
        self._read_many: Callable[..., tuple[int, int, int]]
        self._read_one: Callable[[bytes], list[Any]]
        if compiled is not None:
            rows = compiled(result.converters, then)
            self._read_many, self._read_one = rows.read_many, rows.read_one
        else:
            self._read_many, self._read_one = _generate(result.converters, then)
        self._data = b""
        self._pos = 0
        self._seq = conn._next_seq_id

    def fetch(self, n: int) -> list[list[Any]]:
        """Up to ``n`` rows; fewer only at the end of the result set, none after it."""
        rows: list[list[Any]] = []
        append = rows.append
        while self._active and len(rows) < n:
            pos, self._seq, stopped = self._read_many(
                self._data, self._pos, n - len(rows), self._seq, append
            )
            self._pos = pos
            if stopped == _SPECIAL:
                self._special()
            elif stopped == _LONG:
                append(self._read_one(self._long_payload()))
            elif stopped == _BAD_SEQUENCE:
                got = self._data[pos + 3]
                self.abort()
                raise pymysql.err.InternalError(
                    f"Packet sequence number wrong - got {got} expected {self._seq}"
                )
            elif len(rows) < n:
                self._receive(self._missing())
        return rows

    def abort(self) -> None:
        """Give up the rest of the result set: close the connection (its socket is mid-result)."""
        if self._active:
            self._active = False
            self._result.unbuffered_active = False
            self._conn._force_close()

    def _missing(self) -> int:
        """Bytes of the packet at the current position not received yet (0: unknown)."""
        d, p = self._data, self._pos
        if p + 4 > len(d):
            return 0
        return p + 4 + int.from_bytes(d[p : p + 3], "little") - len(d)

    def _receive(self, missing: int = 0) -> None:
        """Append the next chunk from the socket to what is left of the current one.

        A packet longer than a chunk is read whole at once (``missing`` bytes), so that a
        large row is not copied again with every chunk that brings part of it.
        """
        conn = self._conn
        if conn._current_timeout != conn._read_timeout:
            conn._sock.settimeout(conn._read_timeout)
            conn._current_timeout = conn._read_timeout
        try:
            rfile = conn._rfile
            chunk = rfile.read(missing) if missing > _CHUNK else rfile.read1(_CHUNK)
        except OSError as exc:
            self.abort()
            raise pymysql.err.OperationalError(
                _CR_SERVER_LOST, f"Lost connection to MySQL server during query ({exc})"
            ) from exc
        if not chunk:
            self.abort()
            raise pymysql.err.OperationalError(
                _CR_SERVER_LOST, "Lost connection to MySQL server during query"
            )
        self._data = self._data[self._pos :] + chunk if self._pos < len(self._data) else chunk
        self._pos = 0

    def _packet(self) -> bytes:
        """The payload of the complete packet at the current position (reading as needed)."""
        while True:
            d, p = self._data, self._pos
            if p + 4 <= len(d):
                length = int.from_bytes(d[p : p + 3], "little")
                if p + 4 + length <= len(d):
                    if d[p + 3] != self._seq:
                        got = d[p + 3]
                        self.abort()
                        raise pymysql.err.InternalError(
                            f"Packet sequence number wrong - got {got} expected {self._seq}"
                        )
                    self._seq = (self._seq + 1) & 255
                    self._pos = p + 4 + length
                    return d[p + 4 : p + 4 + length]
            self._receive(self._missing())

    def _long_payload(self) -> bytes:
        parts = [self._packet()]
        while len(parts[-1]) == _MAX_PACKET:
            parts.append(self._packet())
        return b"".join(parts)

    def _special(self) -> None:
        """The EOF or error packet that ends the result set."""
        payload = self._packet()
        result, conn = self._result, self._conn
        self._active = False
        result.unbuffered_active = False
        conn._next_seq_id = self._seq
        leftover = self._pos < len(self._data)
        self._data, self._pos = b"", 0
        if payload[0] == 255:
            if leftover:
                conn._force_close()
            pymysql.protocol.MysqlPacket(payload, conn.encoding).raise_for_error()
        result.warning_count = int.from_bytes(payload[1:3], "little")
        status = int.from_bytes(payload[3:5], "little")
        result.has_next = bool(status & _MORE_RESULTS)
        result.connection = None
        result.rows = None
        if leftover or result.has_next:
            # One SELECT has one result set; what would follow cannot be handed back to pymysql.
            conn._force_close()
            raise pymysql.err.InternalError(
                "unexpected data after the snapshot query's result set; the connection is closed"
            )
