"""Source offset storage for standalone workers: a JSON file, written atomically.

Each entry pairs Kafka Connect's offset key ``["<connector>", {source partition}]`` with
the source offset map, as in Kafka's offsets topic. (Kafka's own standalone file is a
Java-serialised HashMap; we keep the same key and value JSON in a readable file instead.)
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kconnect_sdk import ConfigError

__all__ = ["FileOffsetStore", "MemoryOffsetStore", "OffsetStore", "TaskOffsetReader", "offset_key"]


def offset_key(connector: str, partition: Mapping[str, Any] | None) -> str:
    """The canonical JSON text of ``["<connector>", {partition}]``."""
    return json.dumps([connector, partition], sort_keys=True, separators=(",", ":"))


class MemoryOffsetStore:
    """Offsets kept in memory only (lost at exit)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, tuple[list[Any], dict[str, Any] | None]] = {}

    def get(self, connector: str, partition: Mapping[str, Any] | None) -> dict[str, Any] | None:
        with self._lock:
            entry = self._data.get(offset_key(connector, partition))
        return None if entry is None else entry[1]

    def put(
        self,
        connector: str,
        offsets: Mapping[str, tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]],
    ) -> None:
        """Store offsets given as ``{offset_key: (partition, offset)}``; a None offset deletes."""
        with self._lock:
            for key, (partition, offset) in offsets.items():
                if offset is None:
                    self._data.pop(key, None)
                else:
                    self._data[key] = ([connector, partition], dict(offset))

    def connector_offsets(
        self, connector: str
    ) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
        with self._lock:
            return [(k[1], v) for k, v in self._data.values() if k[0] == connector]

    def flush(self) -> None:
        """Make stored offsets durable (nothing to do in memory)."""


class FileOffsetStore(MemoryOffsetStore):
    """Offsets in a JSON file; ``flush`` replaces the file atomically (write, fsync, rename)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self._load()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ConfigError(
                f"cannot read offset.storage.file.filename {str(self.path)!r}: {exc}",
                name="offset.storage.file.filename",
            ) from None
        try:
            text = raw.decode("utf-8")
            doc = json.loads(text) if text.strip() else {"offsets": []}
            for entry in doc["offsets"]:
                connector, partition = entry["key"]
                if not isinstance(connector, str):
                    raise TypeError("an offset key does not start with a connector name")
                self._data[offset_key(connector, partition)] = (
                    [connector, partition],
                    entry["value"],
                )
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(
                damaged_file_message("offset file", self.path, exc),
                name="offset.storage.file.filename",
            ) from None

    def flush(self) -> None:
        with self._lock:
            doc = {
                "version": 1,
                "offsets": [{"key": k, "value": v} for k, v in self._data.values()],
            }
        data = json.dumps(doc, separators=(",", ":")).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".offsets-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


OffsetStore = MemoryOffsetStore


def damaged_file_message(what: str, path: Path, exc: BaseException) -> str:
    """One sentence on a store file the worker cannot use: which file, what is wrong, what to do."""
    if isinstance(exc, UnicodeDecodeError):
        problem = f"is not UTF-8 text (byte {exc.start} is 0x{exc.object[exc.start]:02x}): it is binary or damaged"
    elif isinstance(exc, json.JSONDecodeError):
        problem = (
            f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}): "
            "it is truncated or damaged"
        )
    elif isinstance(exc, KeyError):
        problem = f"is not a kconnect offset file (no {exc.args[0]!r} entry)"
    else:
        problem = f"is not a kconnect offset file ({exc})"
    return (
        f"{what} {str(path)!r} {problem}; restore it from a backup, or move it away to "
        "start every source connector from no offsets (records may be read again)"
    )


class TaskOffsetReader:
    """The ``OffsetStorageReader`` a connector and its tasks see: their own offsets only."""

    def __init__(self, store: OffsetStore, connector: str) -> None:
        self._store = store
        self._connector = connector

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self._store.get(self._connector, partition)

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        return [self._store.get(self._connector, p) for p in partitions]
