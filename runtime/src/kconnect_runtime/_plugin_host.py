"""Plugin host: runs one connector or task inside a plugin.path location's interpreter.

The runtime starts this file as a script with the location's ``bin/python``, so it may
import only the standard library and ``kconnect_sdk`` (never ``kconnect_runtime``, which
the plugin's environment does not have). It speaks the isolation protocol on stdin/stdout:

* frames are a 4-byte big-endian length followed by UTF-8 JSON;
* the host speaks first: ``{"hello": {"protocol": 1, "sdk": "<version>", "python": ...}}``;
* the runtime then sends ``{"op": "load", "args": {"kind": ..., "target": "module:Class"}}``
  and afterwards one request per call, ``{"op": name, "args": {...}}``;
* every request is answered by ``{"ok": result, "effects": {...}}`` or
  ``{"error": {"type", "message", "retriable", "trace"}}``; while handling a request the
  host may ask the runtime for data (source offsets) with ``{"callback": name, "args"}``,
  which the runtime answers with ``{"result": ...}``.

Records cross as ``kconnect_sdk.record_to_plain`` dicts, many per frame. Anything the
plugin prints goes to stderr so it cannot corrupt the protocol stream.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import platform
import queue
import struct
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

import kconnect_sdk
from kconnect_sdk import (
    ConfigType,
    Connector,
    RecordMetadata,
    RetriableError,
    SinkRecord,
    SinkTask,
    SourceRecord,
    SourceTask,
    TopicPartition,
    record_from_plain,
    record_to_plain,
)

PROTOCOL_VERSION = 1
_HEADER = struct.Struct(">I")


def read_frame(stream: IO[bytes]) -> Any:
    """The next message on ``stream``, or None at end of stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    body = stream.read(size)
    if len(body) < size:
        return None
    return json.loads(body)


def write_frame(stream: IO[bytes], message: Any) -> None:
    body = json.dumps(message, separators=(",", ":"), default=str).encode()
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _sdk_version() -> str:
    try:
        return importlib.metadata.version("kconnect-sdk")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class _Channel:
    """Frames from the runtime, read by a thread so that ``interrupt`` can act mid-call."""

    def __init__(self, rx: IO[bytes], tx: IO[bytes]) -> None:
        self.rx, self.tx = rx, tx
        self.frames: queue.Queue[Any] = queue.Queue()
        self.on_interrupt: Callable[[], None] = lambda: None

    def start_reader(self) -> None:
        threading.Thread(target=self._read, daemon=True, name="plugin-host-rx").start()

    def _read(self) -> None:
        while True:
            frame = read_frame(self.rx)
            if isinstance(frame, dict) and frame.get("op") == "interrupt":
                # stop() from another thread, as the SDK contract allows: a blocked
                # poll() returns without the runtime waiting for the call to end.
                try:
                    self.on_interrupt()
                except Exception:
                    traceback.print_exc()
                continue
            self.frames.put(frame)
            if frame is None:
                return

    def next(self) -> Any:
        return self.frames.get()

    def callback(self, name: str, args: Mapping[str, Any]) -> Any:
        write_frame(self.tx, {"callback": name, "args": dict(args)})
        reply = self.next()
        if reply is None:
            raise SystemExit(0)
        return reply.get("result")


class _OffsetReader:
    def __init__(self, channel: _Channel) -> None:
        self._channel = channel

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        return self.offsets([partition])[0]

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        result = self._channel.callback("offsets", {"partitions": [dict(p) for p in partitions]})
        return list(result)


class _SourceContext:
    def __init__(self, channel: _Channel, configs: Mapping[str, str]) -> None:
        self._configs = dict(configs)
        self._reader = _OffsetReader(channel)

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> _OffsetReader:
        return self._reader


class _SinkContext:
    """Collects what the task asks of the runtime; each reply carries it back as effects."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        self._configs = dict(configs)
        self._assignment: set[TopicPartition] = set()
        self.effects: dict[str, Any] = {}

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.effects.setdefault("offset", []).extend([t, p, o] for (t, p), o in offsets.items())

    def timeout(self, timeout_ms: int) -> None:
        self.effects["timeout"] = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        return set(self._assignment)

    def pause(self, *partitions: TopicPartition) -> None:
        self.effects.setdefault("pause", []).extend([t, p] for t, p in partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        self.effects.setdefault("resume", []).extend([t, p] for t, p in partitions)

    def request_commit(self) -> None:
        self.effects["request_commit"] = True

    @property
    def errant_record_reporter(self) -> None:
        return None

    def take_effects(self) -> dict[str, Any]:
        effects, self.effects = self.effects, {}
        return effects


class _ConnectorContext:
    def __init__(self, channel: _Channel) -> None:
        self._reader = _OffsetReader(channel)

    def request_task_reconfiguration(self) -> None:
        """Not forwarded: the isolated connector's task configs are read at start and restart."""

    def raise_error(self, error: BaseException) -> None:
        raise error

    @property
    def offset_storage_reader(self) -> _OffsetReader:
        return self._reader


def _tps(data: Sequence[Sequence[Any]]) -> list[TopicPartition]:
    return [TopicPartition(str(t), int(p)) for t, p in data]


def _offsets(data: Sequence[Sequence[Any]]) -> dict[TopicPartition, int]:
    return {TopicPartition(str(t), int(p)): int(o) for t, p, o in data}


def _config_def_plain(connector: Connector) -> list[dict[str, Any]]:
    keys = []
    for key in connector.config().config_keys.values():
        default = key.default if key.has_default else None
        if key.type is ConfigType.PASSWORD and default is not None:
            default = None
        keys.append(
            {
                "name": key.name,
                "type": key.type.value,
                "has_default": key.has_default,
                "default": default
                if isinstance(default, str | int | float | bool | list)
                else None,
                "importance": key.importance.value,
                "documentation": key.documentation,
                "group": key.group,
                "internal": key.internal,
            }
        )
    return keys


class Host:
    """Dispatches requests to one loaded connector or task."""

    def __init__(self, channel: _Channel) -> None:
        self.channel = channel
        self.obj: Any = None
        self.kind = ""
        self.sink_context: _SinkContext | None = None
        # Records handed out by poll(), kept until the runtime acknowledges them.
        self.pending: dict[int, SourceRecord] = {}
        self.next_seq = 0

    def load(self, kind: str, target: str) -> dict[str, Any]:
        module_name, _, attr = target.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        instance = obj()
        if kind in ("source_task", "sink_task"):
            # ``target`` names the connector; its task_class() names the task.
            instance = instance.task_class()()
            want: type = SourceTask if kind == "source_task" else SinkTask
            if not isinstance(instance, want):
                raise TypeError(f"{target}.task_class() does not return a {want.__name__}")
        elif not isinstance(instance, Connector):
            raise TypeError(f"{target} is not a kconnect_sdk Connector")
        self.obj, self.kind = instance, kind
        return {"version": str(instance.version())}

    def interrupt(self) -> None:
        if isinstance(self.obj, SourceTask | SinkTask):
            self.obj.stop()

    def handle(self, op: str, args: Mapping[str, Any]) -> Any:
        handler: Callable[[Mapping[str, Any]], Any] | None = getattr(self, f"op_{op}", None)
        if op == "load":
            return self.load(args["kind"], args["target"])
        if handler is None:
            raise ValueError(f"unknown operation {op!r} (protocol {PROTOCOL_VERSION})")
        return handler(args)

    # Connector operations.
    def op_config(self, args: Mapping[str, Any]) -> Any:
        return _config_def_plain(self.obj)

    def op_validate(self, args: Mapping[str, Any]) -> Any:
        return [
            {
                "name": v.name,
                "value": v.value if isinstance(v.value, str | int | float | bool) else None,
                "recommended_values": [str(r) for r in v.recommended_values],
                "error_messages": list(v.error_messages),
                "visible": v.visible,
            }
            for v in self.obj.validate(args["props"])
        ]

    def op_connector_start(self, args: Mapping[str, Any]) -> Any:
        self.obj.initialize(_ConnectorContext(self.channel))
        self.obj.start(args["props"])

    def op_task_configs(self, args: Mapping[str, Any]) -> Any:
        return [dict(c) for c in self.obj.task_configs(int(args["max_tasks"]))]

    # Task operations.
    def op_start(self, args: Mapping[str, Any]) -> Any:
        props = args["props"]
        if self.kind == "source_task":
            self.obj.initialize(_SourceContext(self.channel, props))
        else:
            self.sink_context = _SinkContext(props)
            self.obj.initialize(self.sink_context)
        self.obj.start(props)

    def op_stop(self, args: Mapping[str, Any]) -> Any:
        self.obj.stop()

    def _acknowledge(self, args: Mapping[str, Any]) -> None:
        for seq, meta in args.get("acks", []):
            record = self.pending.pop(int(seq), None)
            if record is not None:
                self.obj.commit_record(record, RecordMetadata(*meta) if meta else None)

    def op_poll(self, args: Mapping[str, Any]) -> Any:
        self._acknowledge(args)
        records = self.obj.poll()
        if records is None:
            return None
        out = []
        for record in records:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
            self.pending[seq] = record
            out.append([seq, record_to_plain(record)])
        return out

    def op_commit(self, args: Mapping[str, Any]) -> Any:
        self._acknowledge(args)
        self.obj.commit()

    def op_open(self, args: Mapping[str, Any]) -> Any:
        partitions = _tps(args["partitions"])
        assert self.sink_context is not None
        self.sink_context._assignment.update(partitions)
        self.obj.open(partitions)

    def op_close(self, args: Mapping[str, Any]) -> Any:
        partitions = _tps(args["partitions"])
        assert self.sink_context is not None
        self.sink_context._assignment.difference_update(partitions)
        self.obj.close(partitions)

    def op_put(self, args: Mapping[str, Any]) -> Any:
        records: list[SinkRecord] = []
        for data in args["records"]:
            record = record_from_plain(data)
            assert isinstance(record, SinkRecord)
            records.append(record)
        self.obj.put(records)

    def op_flush(self, args: Mapping[str, Any]) -> Any:
        self.obj.flush(_offsets(args["offsets"]))

    def op_pre_commit(self, args: Mapping[str, Any]) -> Any:
        result = self.obj.pre_commit(_offsets(args["offsets"]))
        return [[t, p, o] for (t, p), o in result.items()]


def main() -> int:
    rx, tx = sys.stdin.buffer, sys.stdout.buffer
    # Plugin code that prints must not write into the protocol stream.
    sys.stdout = sys.stderr
    channel = _Channel(rx, tx)
    hello = {
        "protocol": PROTOCOL_VERSION,
        "sdk": _sdk_version(),
        "python": platform.python_version(),
        "sdk_module": kconnect_sdk.__name__,
    }
    write_frame(tx, {"hello": hello})
    host = Host(channel)
    channel.on_interrupt = host.interrupt
    channel.start_reader()
    while True:
        request = channel.next()
        if request is None or request.get("op") == "exit":
            return 0
        try:
            result = host.handle(request["op"], request.get("args", {}))
        except BaseException as exc:  # every failure goes back to the runtime
            if isinstance(exc, SystemExit):
                raise
            write_frame(
                tx,
                {
                    "error": {
                        "type": type(exc).__name__,
                        "message": str(exc),
                        "retriable": isinstance(exc, RetriableError),
                        "trace": traceback.format_exc(),
                    }
                },
            )
            continue
        effects = host.sink_context.take_effects() if host.sink_context else {}
        write_frame(tx, {"ok": result, "effects": effects})


if __name__ == "__main__":
    sys.exit(main())
