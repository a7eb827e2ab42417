"""Process isolation: connectors and tasks from a plugin.path location run in a subprocess.

Each isolated connector instance and each isolated task owns one plugin host process,
started with the location's own interpreter (``<location>/bin/python``) on the
self-contained script ``_plugin_host.py``. The classes here are ordinary SDK connectors
and tasks that forward every call over the host's batched, length-prefixed JSON protocol,
so the worker and the source/sink task runners drive them unchanged. Converters and
transforms stay in the runtime process.

A host that exits, or that does not answer a call within the call timeout, fails the
call with a ConnectError carrying the host's stderr (its Python traceback): the runner
then marks just that task FAILED, and a restart starts a fresh host.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.metadata as md
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar

from kconnect_sdk import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    ConnectError,
    ConnectorContext,
    Importance,
    RecordMetadata,
    RetriableError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SinkTaskContext,
    SourceConnector,
    SourceRecord,
    SourceTask,
    SourceTaskContext,
    Task,
    TopicPartition,
    record_from_plain,
    record_to_plain,
)

from ._plugin_host import PROTOCOL_VERSION, read_frame, write_frame

__all__ = [
    "CALL_TIMEOUT_CONFIG",
    "IsolatedSinkTask",
    "IsolatedSourceTask",
    "PluginProcess",
    "isolated_connector_class",
    "location_python",
]

log = logging.getLogger(__name__)

HOST_SCRIPT = Path(__file__).with_name("_plugin_host.py")
CALL_TIMEOUT_CONFIG = "plugin.call.timeout.ms"
DEFAULT_CALL_TIMEOUT_S = 60.0
_STDERR_LINES = 200
_EOF = object()


def location_python(location: str | os.PathLike[str]) -> Path:
    """The interpreter of a plugin.path location (a venv)."""
    root = Path(location)
    for candidate in (root / "bin" / "python", root / "Scripts" / "python.exe"):
        if candidate.exists():
            return candidate
    raise ConnectError(
        f"plugin location {str(root)!r} has no bin/python; "
        "create it with `kconnect plugins install ... --path <location>`"
    )


def call_timeout_s(config: Mapping[str, str]) -> float:
    """The per-call timeout an isolated connector's config asks for (default 60 s)."""
    raw = config.get(CALL_TIMEOUT_CONFIG)
    if raw is None:
        return DEFAULT_CALL_TIMEOUT_S
    try:
        return max(int(raw), 1) / 1000.0
    except ValueError as exc:
        raise ConnectError(
            f"config {CALL_TIMEOUT_CONFIG!r} must be an integer, got {raw!r}"
        ) from exc


class PluginProcess:
    """One plugin host subprocess and the request/response channel to it.

    Calls are serialised by a lock: the protocol has one request in flight at a time.
    ``callbacks`` answer the host's requests for runtime data made during a call.
    """

    def __init__(
        self,
        location: str,
        kind: str,
        target: str,
        *,
        timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        callbacks: Mapping[str, Callable[[Mapping[str, Any]], Any]] | None = None,
        label: str = "",
    ) -> None:
        self.location, self.kind, self.target = location, kind, target
        self.timeout_s = timeout_s
        self.callbacks = dict(callbacks or {})
        self.label = label or target
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._frames: queue.Queue[Any] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.closed = False
        python = location_python(location)
        env = dict(os.environ)
        # The host must see only its location's packages, never the runtime's.
        for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(var, None)
        env["PYTHONUNBUFFERED"] = "1"
        self._proc = subprocess.Popen(
            [str(python), "-I", str(HOST_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=location,
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(
            target=self._read_frames, args=(self._proc.stdout,), daemon=True, name="plugin-host-rx"
        ).start()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(self._proc.stderr,), daemon=True, name="plugin-host-err"
        )
        self._stderr_reader.start()
        hello = self._next_frame(self.timeout_s, "handshake")
        info = hello.get("hello") if isinstance(hello, dict) else None
        if not isinstance(info, dict) or info.get("protocol") != PROTOCOL_VERSION:
            self.kill()
            raise ConnectError(
                f"plugin {self.label}: host speaks protocol {info and info.get('protocol')!r}, "
                f"the runtime speaks {PROTOCOL_VERSION}"
            )
        self.sdk_version = str(info.get("sdk"))
        runtime_sdk = md.version("kconnect-sdk")
        if self.sdk_version != runtime_sdk:
            log.warning(
                "plugin %s: location %s has kconnect-sdk %s, the runtime has %s",
                self.label,
                location,
                self.sdk_version,
                runtime_sdk,
            )
        self.loaded = self.call("load", {"kind": kind, "target": target})

    def _read_frames(self, stream: IO[bytes]) -> None:
        with stream:
            self._pump_frames(stream)

    def _pump_frames(self, stream: IO[bytes]) -> None:
        while True:
            try:
                frame = read_frame(stream)
            except Exception:  # a torn frame means the host died mid-write
                frame = None
            if frame is None:
                self._frames.put(_EOF)
                return
            self._frames.put(frame)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in stream:
                line = raw.decode(errors="replace").rstrip("\n")
                self._stderr.append(line)
                log.debug("plugin %s: %s", self.label, line)

    def stderr(self) -> str:
        return "\n".join(self._stderr)

    def _failure(self, what: str) -> ConnectError:
        # Give the stderr reader a moment to drain the dying host's traceback.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=1.0)
            self._stderr_reader.join(timeout=1.0)
        tail = self.stderr().strip()
        detail = f"\n--- plugin host stderr ---\n{tail}" if tail else ""
        return ConnectError(f"plugin {self.label} (location {self.location}): {what}{detail}")

    def _next_frame(self, timeout_s: float, op: str) -> Any:
        try:
            frame = self._frames.get(timeout=timeout_s)
        except queue.Empty:
            self.kill()
            raise self._failure(f"no answer to {op!r} within {timeout_s:g}s; host killed") from None
        if frame is _EOF:
            self.closed = True
            # The pipe closes a moment before the process can be reaped.
            code: int | None = None
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self._proc.wait(timeout=2.0)
            raise self._failure(f"plugin host exited (code {code}) during {op!r}")
        return frame

    def call(self, op: str, args: Mapping[str, Any] | None = None) -> Any:
        """Send one request and return its result (answering host callbacks meanwhile).

        Raises:
            RetriableError: the plugin raised a RetriableError.
            ConnectError: the plugin raised anything else, or the host died or timed out.
        """
        with self._lock:
            if self.closed:
                raise self._failure(f"plugin host is not running (call {op!r})")
            assert self._proc.stdin is not None
            try:
                self._write({"op": op, "args": dict(args or {})})
            except (BrokenPipeError, OSError):
                self.closed = True
                raise self._failure(f"plugin host is gone (call {op!r})") from None
            while True:
                frame = self._next_frame(self.timeout_s, op)
                if "callback" in frame:
                    handler = self.callbacks.get(frame["callback"])
                    result = handler(frame.get("args", {})) if handler else None
                    self._write({"result": result})
                    continue
                if "error" in frame:
                    err = frame["error"]
                    message = f"plugin {self.label}: {op} raised {err['type']}: {err['message']}"
                    if err.get("retriable"):
                        raise RetriableError(message)
                    raise ConnectError(f"{message}\n--- plugin traceback ---\n{err['trace']}")
                self.last_effects: dict[str, Any] = frame.get("effects") or {}
                return frame.get("ok")

    def _write(self, message: Any) -> None:
        assert self._proc.stdin is not None
        with self._write_lock:
            write_frame(self._proc.stdin, message)

    def interrupt(self) -> None:
        """Have the host call the task's stop() now, even while a call is in flight."""
        if not self.closed:
            with contextlib.suppress(OSError):
                self._write({"op": "interrupt"})

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no call is in flight; False after ``timeout_s``."""
        if not self._lock.acquire(timeout=timeout_s):
            return False
        self._lock.release()
        return True

    def close(self, timeout_s: float = 5.0) -> None:
        """Ask the host to exit; kill it if it does not."""
        if self._proc.poll() is None:
            try:
                if self._lock.acquire(timeout=timeout_s):
                    try:
                        self._write({"op": "exit"})
                        self._close_stdin()
                    finally:
                        self._lock.release()
                self._proc.wait(timeout=timeout_s)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self.closed = True
        self._close_stdin()

    def kill(self) -> None:
        self.closed = True
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._close_stdin()

    def _close_stdin(self) -> None:
        with contextlib.suppress(OSError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()

    @property
    def pid(self) -> int:
        return self._proc.pid


def _offsets_callback(
    reader_of: Callable[[], Any],
) -> Callable[[Mapping[str, Any]], Any]:
    def answer(args: Mapping[str, Any]) -> Any:
        reader = reader_of()
        partitions = args.get("partitions", [])
        if reader is None:
            return [None for _ in partitions]
        return [dict(o) if o is not None else None for o in reader.offsets(partitions)]

    return answer


# Tasks.


class _IsolatedTask(Task):
    _kind: ClassVar[str]

    def __init__(
        self, location: str, connector_target: str, *, timeout_s: float, label: str
    ) -> None:
        self.location, self.connector_target = location, connector_target
        self.timeout_s, self.label = timeout_s, label
        self.process: PluginProcess | None = None
        self._stopping = threading.Event()

    def _spawn(self, callbacks: Mapping[str, Callable[[Mapping[str, Any]], Any]]) -> PluginProcess:
        self._stopping.clear()
        self.process = PluginProcess(
            self.location,
            self._kind,
            self.connector_target,
            timeout_s=self.timeout_s,
            callbacks=callbacks,
            label=self.label,
        )
        return self.process

    def _proc(self) -> PluginProcess:
        if self.process is None:
            raise ConnectError(f"plugin {self.label}: task used before start()")
        return self.process

    def version(self) -> str:
        if self.process is not None:
            return str(self.process.loaded.get("version", "unknown"))
        return "unknown"

    def stop(self) -> None:
        # stop() may come from another thread while a call is in flight: the interrupt
        # has the host call the task's stop() at once, so a blocked poll() returns; then
        # the task is stopped in order and the host asked to exit.
        self._stopping.set()
        process = self.process
        if process is None or process.closed:
            return
        try:
            if not process.wait_idle(0):
                process.interrupt()
            if process.wait_idle(self.timeout_s):
                process.call("stop")
        except ConnectError as exc:
            log.warning("%s", exc)
        finally:
            process.close()


class IsolatedSourceTask(_IsolatedTask, SourceTask):
    """A SourceTask whose plugin runs in a plugin host process.

    ``commit_record`` acknowledgements are batched onto the next ``poll``/``commit``.
    """

    _kind = "source_task"

    def __init__(
        self, location: str, connector_target: str, *, timeout_s: float, label: str
    ) -> None:
        super().__init__(location, connector_target, timeout_s=timeout_s, label=label)
        self._seq: dict[int, tuple[int, SourceRecord]] = {}
        self._acks: list[list[Any]] = []
        self._acks_lock = threading.Lock()

    def start(self, props: Mapping[str, str]) -> None:
        context: SourceTaskContext = self.context
        proc = self._spawn({"offsets": _offsets_callback(lambda: context.offset_storage_reader)})
        proc.call("start", {"props": dict(props)})

    def _take_acks(self) -> list[list[Any]]:
        with self._acks_lock:
            acks, self._acks = self._acks, []
        return acks

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.is_set():
            return None
        result = self._proc().call("poll", {"acks": self._take_acks()})
        if result is None:
            return None
        records: list[SourceRecord] = []
        for seq, data in result:
            record = record_from_plain(data)
            assert isinstance(record, SourceRecord)
            # Keyed by identity: the runner hands the same object back to commit_record.
            self._seq[id(record)] = (int(seq), record)
            records.append(record)
        return records

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        entry = self._seq.pop(id(record), None)
        if entry is None:
            return
        meta = list(metadata) if metadata is not None else None
        with self._acks_lock:
            self._acks.append([entry[0], meta])

    def commit(self) -> None:
        if self.process is None or self.process.closed or self._stopping.is_set():
            return
        self.process.call("commit", {"acks": self._take_acks()})


def _tp_list(partitions: Sequence[TopicPartition]) -> list[list[Any]]:
    return [[tp.topic, tp.partition] for tp in partitions]


def _offset_list(offsets: Mapping[TopicPartition, int]) -> list[list[Any]]:
    return [[tp.topic, tp.partition, off] for tp, off in offsets.items()]


class IsolatedSinkTask(_IsolatedTask, SinkTask):
    """A SinkTask whose plugin runs in a plugin host process.

    Requests the plugin makes of its context (offset rewinds, timeout, pause/resume,
    request_commit) come back with each reply and are applied to the real context.
    """

    _kind = "sink_task"

    def start(self, props: Mapping[str, str]) -> None:
        self._spawn({})
        self._call("start", {"props": dict(props)})

    def _call(self, op: str, args: Mapping[str, Any]) -> Any:
        proc = self._proc()
        result = proc.call(op, args)
        self._apply(proc.last_effects)
        return result

    def _apply(self, effects: Mapping[str, Any]) -> None:
        if not effects:
            return
        context: SinkTaskContext = self.context
        if "offset" in effects:
            context.offset({TopicPartition(t, p): o for t, p, o in effects["offset"]})
        if "timeout" in effects:
            context.timeout(int(effects["timeout"]))
        if "pause" in effects:
            context.pause(*(TopicPartition(t, p) for t, p in effects["pause"]))
        if "resume" in effects:
            context.resume(*(TopicPartition(t, p) for t, p in effects["resume"]))
        if effects.get("request_commit"):
            context.request_commit()

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        self._call("open", {"partitions": _tp_list(partitions)})

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        if self.process is not None and not self.process.closed:
            self._call("close", {"partitions": _tp_list(partitions)})

    def put(self, records: Sequence[SinkRecord]) -> None:
        self._call("put", {"records": [record_to_plain(r) for r in records]})

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        self._call("flush", {"offsets": _offset_list(offsets)})

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        result = self._call("pre_commit", {"offsets": _offset_list(offsets)})
        return {TopicPartition(t, p): int(o) for t, p, o in result}


# Connectors.


class _IsolatedConnectorMixin:
    """Forwards a connector's calls to a plugin host process of its location."""

    location: ClassVar[str]
    target: ClassVar[str]
    plugin_version: ClassVar[str]
    _task_class: ClassVar[type[Task]]

    _process: PluginProcess | None = None
    _context: ConnectorContext | None = None

    def _host(self) -> PluginProcess:
        if self._process is None or self._process.closed:
            context = self._context

            def reader() -> Any:
                return context.offset_storage_reader if context is not None else None

            self._process = PluginProcess(
                self.location,
                "connector",
                self.target,
                callbacks={"offsets": _offsets_callback(reader)},
                label=self.target,
            )
        return self._process

    def version(self) -> str:
        return self.plugin_version

    def initialize(self, context: ConnectorContext) -> None:
        self._context = context

    def config(self) -> ConfigDef:
        config = ConfigDef()
        for key in self._host().call("config"):
            default = key["default"] if key["has_default"] else NO_DEFAULT
            config.define_key(
                ConfigKey(
                    name=key["name"],
                    type=ConfigType(key["type"]),
                    default=default,
                    validator=None,
                    importance=Importance(key["importance"]),
                    documentation=key["documentation"],
                    group=key["group"],
                    internal=bool(key["internal"]),
                )
            )
        return config

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return [
            ConfigValue(
                name=v["name"],
                value=v["value"],
                recommended_values=list(v["recommended_values"]),
                error_messages=list(v["error_messages"]),
                visible=bool(v["visible"]),
            )
            for v in self._host().call("validate", {"props": dict(props)})
        ]

    def start(self, props: Mapping[str, str]) -> None:
        self._host().call("connector_start", {"props": dict(props)})

    def task_class(self) -> type[Task]:
        return self._task_class

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(c) for c in self._host().call("task_configs", {"max_tasks": max_tasks})]

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.closed:
            return
        try:
            process.call("stop")
        finally:
            process.close()

    def __del__(self) -> None:
        # A connector built only to validate a config is never stopped.
        process = self._process
        if process is not None and not process.closed:
            process.kill()


class _IsolatedSourceConnector(_IsolatedConnectorMixin, SourceConnector):
    _task_class = IsolatedSourceTask


class _IsolatedSinkConnector(_IsolatedConnectorMixin, SinkConnector):
    _task_class = IsolatedSinkTask


def isolated_connector_class(
    *, sink: bool, location: str, target: str, version: str, name: str
) -> type[SourceConnector] | type[SinkConnector]:
    """A connector class whose instances run ``target`` in a host of ``location``."""
    base: type[SourceConnector] | type[SinkConnector] = (
        _IsolatedSinkConnector if sink else _IsolatedSourceConnector
    )
    attrs = {"location": location, "target": target, "plugin_version": version}
    simple = name.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
    return type(f"Isolated{simple}", (base,), attrs)


def is_isolated_connector(instance: object) -> bool:
    return isinstance(instance, _IsolatedConnectorMixin)
