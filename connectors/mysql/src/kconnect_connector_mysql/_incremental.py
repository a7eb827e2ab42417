"""Debezium's incremental snapshots, started by ``execute-snapshot`` rows of the signaling table.

The algorithm is Debezium's (after DBLog), with the signaling table as the watermark log:
for each chunk of a table, in primary-key order, the connector writes a
``snapshot-window-open`` row, reads the chunk (``incremental.snapshot.chunk.size`` rows after
the last key read), and writes a ``snapshot-window-close`` row. While streaming, between the
two rows meeting the binlog, every change of the table removes its key from the chunk: the
change is newer than what the chunk read. At the close row, what is left of the chunk is
emitted as ``op: r`` events with ``source.snapshot = incremental``, and the next chunk is read.
A table is done at the maximum key it had when its snapshot began.
"""

from __future__ import annotations

import base64
import contextlib
import decimal
import json
import logging
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pymysql
from kconnect_sdk import ConnectError, Headers, SourceRecord

from . import _database as db
from ._events import processing_time
from ._snapshot_rows import row_converter

if TYPE_CHECKING:
    from ._events import TableSchema

__all__ = ["OFFSET_KEY", "IncrementalSnapshot"]

log = logging.getLogger(__name__)

_OPEN = "snapshot-window-open"
_CLOSE = "snapshot-window-close"


OFFSET_KEY = "kc_incremental_snapshot"
"""The offset key of an incremental snapshot's progress (Debezium's own keys hold Java-serialized
keys, which this connector does not write; Debezium ignores this one)."""


def _plain(key: tuple[Any, ...] | None) -> list[Any] | None:
    """A raw key as JSON values (bytes and decimals tagged)."""
    if key is None:
        return None
    out: list[Any] = []
    for v in key:
        if isinstance(v, bytes | bytearray):
            out.append({"b64": base64.b64encode(bytes(v)).decode("ascii")})
        elif isinstance(v, decimal.Decimal):
            out.append({"dec": str(v)})
        else:
            out.append(v)
    return out


def _unplain(values: list[Any] | None) -> tuple[Any, ...] | None:
    if values is None:
        return None
    out: list[Any] = []
    for v in values:
        if isinstance(v, dict) and "b64" in v:
            out.append(base64.b64decode(v["b64"]))
        elif isinstance(v, dict) and "dec" in v:
            out.append(decimal.Decimal(v["dec"]))
        else:
            out.append(v)
    return tuple(out)


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class IncrementalSnapshot:
    """The state of the incremental snapshots of one streaming task (not kept across restarts)."""

    def __init__(self, streamer: Any, signal_table: tuple[str, str], chunk_size: int) -> None:
        self.streamer = streamer
        self.signal_table = signal_table
        self.chunk_size = max(1, chunk_size)
        self.queue: list[tuple[str, str]] = []
        self.table: tuple[str, str] | None = None
        self.max_key: tuple[Any, ...] | None = None
        self.last_key: tuple[Any, ...] | None = None
        self.window_id: str | None = None
        self.window_open = False
        # The chunk: converted key -> converted row (in ts.positions order), in key order.
        self.buffer: dict[tuple[Any, ...], list[Any]] = {}
        self.conn: Any = None
        # The last key of the table whose chunk was emitted, and the offset text saying so.
        self.emitted_key: tuple[Any, ...] | None = None
        self.state: str | None = None
        self.resumed = False

    # --- offsets --------------------------------------------------------------------------

    def _save(self) -> None:
        """The progress every later record's offset carries (``OFFSET_KEY``)."""
        if self.table is None and not self.queue:
            self.state = None
            return
        self.state = json.dumps(
            {
                "queue": [list(t) for t in self.queue],
                "table": list(self.table) if self.table else None,
                "last_key": _plain(self.emitted_key),
                "max_key": _plain(self.max_key),
            },
            separators=(",", ":"),
        )

    def resume(self, text: str) -> None:
        """Continue the snapshot an offset's ``OFFSET_KEY`` describes (read once streaming)."""
        try:
            doc = json.loads(text)
            self.queue = [(str(d), str(t)) for d, t in doc.get("queue") or []]
            table = doc.get("table")
            self.table = (str(table[0]), str(table[1])) if table else None
            self.emitted_key = self.last_key = _unplain(doc.get("last_key"))
            self.max_key = _unplain(doc.get("max_key"))
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log.warning(
                "connector %r: the offset's incremental snapshot state cannot be read (%s); "
                "send execute-snapshot again to snapshot the tables",
                self.streamer.s.name,
                exc,
            )
            self.queue, self.table = [], None
            return
        self.resumed = self.table is not None or bool(self.queue)
        self._save()

    def start(self) -> None:
        """Called once the binlog is read: a resumed snapshot reads its next chunk."""
        if self.resumed:
            self.resumed = False
            log.info(
                "connector %r: resuming the incremental snapshot of %s",
                self.streamer.s.name,
                ", ".join(".".join(t) for t in ([self.table] if self.table else []) + self.queue),
            )
            self._next_chunk()
            self._save()

    # --- the binlog side ------------------------------------------------------------------

    def on_change(self, ts: TableSchema, rows: list[list[Any]], op: str) -> None:
        """A streamed change of a table: drop its keys from an open window's chunk."""
        if not self.window_open or self.table != (ts.table.db, ts.table.name) or not self.buffer:
            return
        indexes = ts.key_indexes
        for row in rows:  # for updates: the before and after images alike
            self.buffer.pop(tuple(row[k] for k in indexes), None)

    def on_signal(self, ts: TableSchema, rows: list[list[Any]], position: int) -> None:
        """Inserted rows of the signaling table."""
        names = [ts.table.columns[i].name.lower() for i in ts.positions]
        try:
            at = (names.index("id"), names.index("type"), names.index("data"))
        except ValueError:
            raise ConnectError(
                f"connector {self.streamer.s.name!r}: the signaling table "
                f"{'.'.join(self.signal_table)} needs the columns id, type and data"
            ) from None
        for row in rows:
            ident, kind, data = (row[i] for i in at)
            kind = str(kind or "").lower()
            if kind == _OPEN and self.window_id and ident == self.window_id + "-open":
                self.window_open = True
            elif kind == _CLOSE and self.window_id and ident == self.window_id + "-close":
                self._close_window(position)
            elif kind == "execute-snapshot":
                self._execute(str(ident), data)
            elif kind == "stop-snapshot":
                self._stop(str(ident), data)

    # --- signals --------------------------------------------------------------------------

    def _collections(self, ident: str, data: Any) -> tuple[list[str], str]:
        try:
            doc = json.loads(data or "{}")
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            log.warning(
                "connector %r: signal %r has data that is not a JSON object, ignored: %r",
                self.streamer.s.name,
                ident,
                data,
            )
            return [], ""
        collections = doc.get("data-collections") or []
        kind = str(doc.get("type") or "incremental").lower()
        return [str(c) for c in collections], kind

    def _matching(self, patterns: list[str]) -> list[tuple[str, str]]:
        tables = sorted(self.streamer.task._tables)
        out: list[tuple[str, str]] = []
        for text in patterns:
            pattern = re.compile(text.strip(), re.IGNORECASE)
            found = [t for t in tables if pattern.fullmatch(f"{t[0]}.{t[1]}")]
            if not found:
                log.warning(
                    "connector %r: incremental snapshot of %r: no captured table matches; skipped",
                    self.streamer.s.name,
                    text,
                )
            out += [t for t in found if t not in out and t != self.signal_table]
        return out

    def _execute(self, ident: str, data: Any) -> None:
        collections, kind = self._collections(ident, data)
        if kind != "incremental":
            log.warning(
                "connector %r: signal %r asks for a %r snapshot; only incremental snapshots are "
                "supported, ignored",
                self.streamer.s.name,
                ident,
                kind,
            )
            return
        added = [t for t in self._matching(collections) if t not in self.queue and t != self.table]
        log.info(
            "connector %r: signal %r: incremental snapshot of %s",
            self.streamer.s.name,
            ident,
            ", ".join(".".join(t) for t in added) or "nothing new",
        )
        self.queue += added
        if self.table is None and self.window_id is None:
            self._next_chunk()
        self._save()

    def _stop(self, ident: str, data: Any) -> None:
        collections, _kind = self._collections(ident, data)
        stop = set(self._matching(collections)) if collections else None
        self.queue = [t for t in self.queue if stop is not None and t not in stop]
        if self.table is not None and (stop is None or self.table in stop):
            self.table = None
            self.buffer = {}
            self.window_open = False
            self.window_id = None
            if self.queue:
                self._next_chunk()
        self._save()
        log.info(
            "connector %r: signal %r stopped incremental snapshots", self.streamer.s.name, ident
        )

    # --- chunks ---------------------------------------------------------------------------

    def _connection(self) -> Any:
        if self.conn is None:
            conn = db.connect(self.streamer.s)
            # DATE and DATETIME as text, as the initial snapshot reads them (see _snapshot_rows).
            conn.decoders = {
                k: v
                for k, v in conn.decoders.items()
                if k
                not in (pymysql.constants.FIELD_TYPE.DATE, pymysql.constants.FIELD_TYPE.DATETIME)
            }
            self.conn = conn
        return self.conn

    def _signal(self, cur: Any, ident: str, kind: str) -> None:
        sdb, stable = self.signal_table
        cur.execute(
            f"INSERT INTO {_q(sdb)}.{_q(stable)} (id, type, data) VALUES (%s, %s, NULL)",
            (ident, kind),
        )

    def _next_chunk(self) -> None:
        """Read the next chunk between an open and a close row of the signaling table."""
        tables = self.streamer.task._tables
        conn = self._connection()
        while True:
            if self.table is None:
                if not self.queue:
                    self.window_id = None
                    log.info("connector %r: incremental snapshot completed", self.streamer.s.name)
                    return
                self.table = self.queue.pop(0)
                self.last_key = self.emitted_key = None
                self.max_key = None
                ts = tables.get(self.table)
                if ts is None or not ts.key_indexes:
                    log.warning(
                        "connector %r: %s has no primary key (or message.key.columns) and cannot "
                        "be snapshotted incrementally; skipped",
                        self.streamer.s.name,
                        ".".join(self.table),
                    )
                    self.table = None
                    continue
                with conn.cursor() as cur:
                    order = ", ".join(
                        f"{_q(self._key_names(ts)[i])} DESC" for i in range(len(ts.key_indexes))
                    )
                    cur.execute(
                        f"SELECT {self._key_list(ts)} FROM {self._table_sql()} ORDER BY {order} LIMIT 1"
                    )
                    row = cur.fetchone()
                if row is None:
                    self.table = None  # empty: nothing to read
                    continue
                self.max_key = tuple(row)
            elif self.max_key is None:
                self.table = None  # a resumed state without its bound: start the next table
                continue
            ts = tables.get(self.table)
            if ts is None:  # dropped meanwhile
                self.table = None
                continue
            self.window_id = str(uuid.uuid4())
            self.window_open = False
            with conn.cursor() as cur:
                self._signal(cur, self.window_id + "-open", _OPEN)
                rows = self._read_chunk(cur, ts)
                self._signal(cur, self.window_id + "-close", _CLOSE)
            self.buffer = {}
            if not rows:
                # The table is done; the window rows still pass, with nothing to emit.
                self.table = None
                continue
            convert = row_converter(
                ts.converters, [ts.table.columns[i].data_type for i in ts.positions]
            )
            key_at = ts.key_indexes
            width = len(ts.positions)
            for raw in rows:
                converted = convert(raw[:width])
                self.buffer[tuple(converted[k] for k in key_at)] = converted
            self.last_key = tuple(rows[-1][width:])
            return

    def _key_names(self, ts: TableSchema) -> list[str]:
        return [ts.table.columns[ts.positions[k]].name for k in ts.key_indexes]

    def _key_list(self, ts: TableSchema) -> str:
        return ", ".join(_q(n) for n in self._key_names(ts))

    def _table_sql(self) -> str:
        assert self.table is not None
        return f"{_q(self.table[0])}.{_q(self.table[1])}"

    def _read_chunk(self, cur: Any, ts: TableSchema) -> list[tuple[Any, ...]]:
        cols = ", ".join(_q(ts.table.columns[i].name) for i in ts.positions)
        keys = self._key_list(ts)
        n = len(ts.key_indexes)
        marks = ", ".join(["%s"] * n)
        where = [f"({keys}) <= ({marks})"]
        args: list[Any] = list(self.max_key or ())
        if self.last_key is not None:
            where.insert(0, f"({keys}) > ({marks})")
            args = list(self.last_key) + args
        # The key columns again at the end, raw, to continue from.
        cur.execute(
            f"SELECT {cols}, {keys} FROM {self._table_sql()} WHERE {' AND '.join(where)} "
            f"ORDER BY {keys} LIMIT {self.chunk_size}",
            args,
        )
        return list(cur.fetchall())

    def _close_window(self, position: int) -> None:
        streamer = self.streamer
        ts = streamer.task._tables.get(self.table) if self.table else None
        self.window_open = False
        # Records from here on say that this chunk is done (a restart reads the next one).
        self.emitted_key = self.last_key
        self._save()
        if ts is not None and self.buffer:
            self._emit(ts, list(self.buffer.values()), position)
        self.buffer = {}
        self._next_chunk()
        self._save()

    def _emit(self, ts: TableSchema, rows: list[list[Any]], position: int) -> None:
        streamer = self.streamer
        source_values = streamer._source_values(ts.table.db, ts.table.name, position, 0)
        source_values[4] = "incremental"
        offset = streamer.offset(0)
        ms, us, ns = processing_time()
        make_source, make_envelope = streamer.schemas.make_source, ts.make_envelope
        split: Callable[[list[Any]], tuple[Any, Any]] = ts.split
        for row in rows:
            after, key = split(row)
            source = make_source(source_values.copy())
            envelope = make_envelope([None, after, source, None, "r", ms, us, ns])
            streamer.out.append(
                SourceRecord(
                    topic=ts.topic,
                    key_schema=ts.key_schema,
                    key=key,
                    value_schema=ts.envelope_schema,
                    value=envelope,
                    headers=Headers.EMPTY,
                    source_partition=streamer.partition,
                    source_offset=offset,
                )
            )

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):  # a broken connection: nothing to do
                self.conn.close()
            self.conn = None
