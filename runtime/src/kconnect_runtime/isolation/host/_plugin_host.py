"""Plugin host: runs one plugin (connector, task, converter, transform or predicate) inside
a plugin.path location's interpreter.

The runtime starts this file with the location's ``bin/python``, so it may import only the
standard library and ``kconnect_sdk`` (never ``kconnect_runtime``, which the plugin's
environment does not have); the wire codec (:mod:`._codec`) is the file beside it. It
speaks the isolation protocol on stdin/stdout, in the codec's frames:

* the host speaks first: ``{"hello": {"protocol": 4, "sdk": "<version>", "python": ...}}``;
* the runtime then sends ``{"op": "load", "args": {"kind": ..., "target": "module:Class"}}``
  and afterwards one request per call, ``{"op": name, "args": {...}}``;
* every request is answered by ``{"ok": result, "effects": {...}}`` or ``{"error":
  {"type", "message", "retriable", "config", "data", "trace", ...}}`` (the flags say
  whether it was a RetriableError, ConfigError or DataError); while handling a request the
  host may ask the runtime for data (source offsets) with ``{"callback": name, "args"}``,
  which the runtime answers with ``{"result": ...}``.

Anything the plugin prints goes to stderr so it cannot corrupt the protocol stream.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import importlib.util
import platform
import queue
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

import kconnect_sdk
from kconnect_sdk import (
    ConfigError,
    ConfigType,
    Connector,
    Converter,
    DataError,
    HeaderConverter,
    Predicate,
    RecordMetadata,
    RetriableError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
    TopicPartition,
    Transformation,
)


def _codec_beside() -> None:
    """Load the codec from the file beside this one, as ``_kconnect_plugin_codec`` (the
    location's interpreter runs this file alone, with nothing of ours on sys.path)."""
    name = "_kconnect_plugin_codec"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("_codec.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


if __package__:  # imported as part of kconnect_runtime
    from ._codec import (
        PROTOCOL_VERSION,
        Blob,
        Encoded,
        batch_topics,
        encode_json,
        from_b64,
        pack_blobs,
        pack_records,
        pack_values,
        pack_values_blob,
        read_frame,
        to_b64,
        unpack_blobs,
        unpack_records,
        unpack_values,
        write_frame,
        write_raw,
    )
else:
    _codec_beside()
    from _kconnect_plugin_codec import (  # type: ignore[import-not-found,no-redef]
        PROTOCOL_VERSION,
        Blob,
        Encoded,
        batch_topics,
        encode_json,
        from_b64,
        pack_blobs,
        pack_records,
        pack_values,
        pack_values_blob,
        read_frame,
        to_b64,
        unpack_blobs,
        unpack_records,
        unpack_values,
        write_frame,
        write_raw,
    )


# Plugin kinds a host loads (the runtime's PluginKind values, plus the task kinds).
CONNECTOR_KINDS = frozenset({"connector", "source", "sink"})
TASK_KINDS = frozenset({"source_task", "sink_task"})
_BASES: dict[str, type] = {
    "converter": Converter,
    "header_converter": HeaderConverter,
    "transformation": Transformation,
    "predicate": Predicate,
}


def _sdk_version() -> str:
    try:
        return importlib.metadata.version("kconnect-sdk")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class _Channel:
    """Frames from the runtime, read by a thread so that ``interrupt`` can act mid-call.

    Requests go to ``frames``; answers to the host's callbacks go to ``replies``, so a
    callback made from a prefetching poll never takes the runtime's next request.
    """

    def __init__(self, rx: IO[bytes], tx: IO[bytes]) -> None:
        self.rx, self.tx = rx, tx
        self.frames: queue.Queue[Any] = queue.Queue()
        self.replies: queue.Queue[Any] = queue.Queue()
        self.on_interrupt: Callable[[], None] = lambda: None
        self._write_lock = threading.Lock()

    def start_reader(self) -> None:
        self._reader = threading.Thread(target=self._read, daemon=True, name="plugin-host-rx")
        self._reader.start()

    def wait_eof(self, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) for the reader to see the end of stdin.

        A reader thread still blocked in ``read`` holds stdin's buffer lock, and the
        interpreter's exit then waits a one-second grace period for it: the runtime closes
        stdin right after ``exit``, so this returns at once and the host exits at once.
        """
        reader = getattr(self, "_reader", None)
        if reader is not None:
            reader.join(timeout_s)

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
            if isinstance(frame, dict) and "result" in frame and "op" not in frame:
                self.replies.put(frame)
                continue
            self.frames.put(frame)
            if frame is None:
                self.replies.put(None)
                return

    def next(self) -> Any:
        return self.frames.get()

    def send(self, message: Any) -> None:
        self.send_raw(encode_json(message))

    def send_raw(self, body: bytes, blob: bytes = b"") -> None:
        with self._write_lock:
            write_raw(self.tx, body, blob)

    def callback(self, name: str, args: Mapping[str, Any]) -> Any:
        self.send({"callback": name, "args": dict(args)})
        reply = self.replies.get()
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

    @functools.cached_property
    def plugin_metrics(self) -> Any:
        """An isolated plugin's metrics stay in its plugin host: the worker does not export
        them (docs/metrics.md). Looked up when asked: the location's SDK may predate them."""
        return kconnect_sdk.PluginMetricsGroup({})


class _SinkContext:
    """Collects what the task asks of the runtime; each reply carries it back as effects."""

    def __init__(self, configs: Mapping[str, str], reporter: bool = False) -> None:
        self._configs = dict(configs)
        self._assignment: set[TopicPartition] = set()
        self.effects: dict[str, Any] = {}
        self._reporter = _ErrantReporter(self) if reporter else None
        self._errant: list[SinkRecord] = []
        self._errors: list[list[str]] = []

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
    def errant_record_reporter(self) -> _ErrantReporter | None:
        """A reporter when the runtime's context has one (errors.* configured)."""
        return self._reporter

    def report(self, record: SinkRecord, error: BaseException) -> None:
        self._errant.append(record)
        self._errors.append([type(error).__name__, str(error)])

    def take_effects(self) -> dict[str, Any]:
        effects, self.effects = self.effects, {}
        if self._errant:
            # Reported records go back with the reply; the runtime reports them to its own
            # reporter (log, dead letter queue) before it commits offsets past them.
            effects["errant"] = {"batch": pack_records(self._errant), "errors": self._errors}
            self._errant, self._errors = [], []
        return effects

    @functools.cached_property
    def plugin_metrics(self) -> Any:
        """An isolated plugin's metrics stay in its plugin host: the worker does not export
        them (docs/metrics.md). Looked up when asked: the location's SDK may predate them."""
        return kconnect_sdk.PluginMetricsGroup({})


class _ErrantReporter:
    """The errant record reporter of an isolated sink task: reports travel with the reply."""

    def __init__(self, context: _SinkContext) -> None:
        self._context = context

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self._context.report(record, error)
        done: Future[None] = Future()
        done.set_result(None)
        return done


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

    @functools.cached_property
    def plugin_metrics(self) -> Any:
        """An isolated plugin's metrics stay in its plugin host: the worker does not export
        them (docs/metrics.md). Looked up when asked: the location's SDK may predate them."""
        return kconnect_sdk.PluginMetricsGroup({})


def _tps(data: Sequence[Sequence[Any]]) -> list[TopicPartition]:
    return [TopicPartition(str(t), int(p)) for t, p in data]


def _offsets(data: Sequence[Sequence[Any]]) -> dict[TopicPartition, int]:
    return {TopicPartition(str(t), int(p)): int(o) for t, p, o in data}


def _config_plain(plugin: Any) -> dict[str, Any]:
    """A plugin's config definition: its keys and its accepted key prefixes."""
    definition = plugin.config()
    # A plugin built on an SDK without accepted prefixes declares none.
    prefixes = getattr(definition, "accepted_prefixes", {})
    return {"keys": _config_keys_plain(definition), "prefixes": dict(prefixes)}


def _config_keys_plain(definition: Any) -> list[dict[str, Any]]:
    keys = []
    for key in definition.config_keys.values():
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


def _plugin_class(target: str) -> Any:
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _instantiate(kind: str, target: str) -> Any:
    """An instance of the plugin ``target`` names, checked against the SDK base of ``kind``."""
    instance = _plugin_class(target)()
    if kind in TASK_KINDS:
        # ``target`` names the connector; its task_class() names the task.
        instance = instance.task_class()()
        want: type = SourceTask if kind == "source_task" else SinkTask
        if not isinstance(instance, want):
            raise TypeError(f"{target}.task_class() does not return a {want.__name__}")
        return instance
    base = _BASES.get(kind)
    if base is None and kind not in CONNECTOR_KINDS:
        raise ValueError(f"unknown plugin kind {kind!r} (protocol {PROTOCOL_VERSION})")
    base = base or Connector
    if not isinstance(instance, base):
        raise TypeError(f"{target} is not a kconnect_sdk {base.__name__}")
    return instance


def _overrides(instance: object, base: type, method: str) -> bool:
    return getattr(type(instance), method, None) is not getattr(base, method, None)


def plugin_capabilities(instance: object) -> dict[str, Any]:
    """What a plugin instance can do beyond its kind's minimum, as the SDK lets it say.

    Source connectors: ``exactly_once_support`` and ``can_define_transaction_boundaries``
    (as answered for an empty config; null when the connector cannot say) and whether they
    take part in offset changes (``alter_offsets``); sink connectors ``alter_offsets``;
    converters, transformations and predicates whether they implement the batch methods
    themselves (otherwise the SDK's per-record defaults run).
    """
    caps: dict[str, Any] = {}
    if isinstance(instance, SourceConnector):
        support: Any = None
        with contextlib.suppress(Exception):  # a connector that needs its config to answer
            answer = instance.exactly_once_support({})
            support = None if answer is None else str(getattr(answer, "value", answer))
        boundaries: Any = None
        with contextlib.suppress(Exception):
            boundaries = bool(instance.can_define_transaction_boundaries({}))
        caps["exactly_once_support"] = support
        caps["can_define_transaction_boundaries"] = boundaries
        caps["alter_offsets"] = _overrides(instance, SourceConnector, "alter_offsets")
    elif isinstance(instance, SinkConnector):
        caps["alter_offsets"] = _overrides(instance, SinkConnector, "alter_offsets")
    elif isinstance(instance, Converter):
        caps["from_connect_batch"] = _overrides(instance, Converter, "from_connect_batch")
        caps["to_connect_batch"] = _overrides(instance, Converter, "to_connect_batch")
    elif isinstance(instance, HeaderConverter):
        caps["batch"] = False  # the SDK's header converter has no batch methods
    elif isinstance(instance, Transformation):
        caps["apply_batch"] = _overrides(instance, Transformation, "apply_batch")
    elif isinstance(instance, Predicate):
        caps["test_batch"] = _overrides(instance, Predicate, "test_batch")
    return caps


class Host:
    """Dispatches requests to one loaded plugin."""

    def __init__(self, channel: _Channel) -> None:
        self.channel = channel
        self.obj: Any = None
        self.kind = ""
        self.sink_context: _SinkContext | None = None
        # Records handed out by poll(), kept until the runtime acknowledges them.
        self.pending: dict[int, SourceRecord] = {}
        self.next_seq = 0
        # Run after the current reply is written (starts the poll running ahead).
        self.after_reply: Callable[[], None] | None = None
        # Whether the task implements commit_record: only then are records kept for acks.
        self.acknowledged = False
        # The poll running ahead of the runtime's next request (source tasks).
        self._ahead: threading.Thread | None = None
        self._ahead_result: tuple[list[SourceRecord] | None, bytes] | None = None
        self._ahead_error: BaseException | None = None

    def load(self, kind: str, target: str) -> dict[str, Any]:
        instance = _instantiate(kind, target)
        self.obj, self.kind = instance, kind
        loaded: dict[str, Any] = {"version": str(instance.version())}
        if isinstance(instance, SourceTask):
            # A task without its own commit_record needs no acknowledgements at all.
            self.acknowledged = type(instance).commit_record is not SourceTask.commit_record
            loaded["commit_record"] = self.acknowledged
        return loaded

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

    # Operations of every kind.
    def op_config(self, args: Mapping[str, Any]) -> Any:
        return _config_plain(self.obj)

    def op_describe(self, args: Mapping[str, Any]) -> Any:
        """Version and config definition of any plugin, without loading it for use."""
        kind = str(args["kind"])
        instance = _instantiate("connector" if kind in TASK_KINDS else kind, str(args["target"]))
        try:
            config = _config_plain(instance)
            return {
                "version": str(instance.version()),
                "config": config["keys"],
                "config_prefixes": config["prefixes"],
                "capabilities": plugin_capabilities(instance),
            }
        finally:
            if not isinstance(instance, Connector):
                instance.close()

    # Connector operations.

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

    def op_alter_offsets(self, args: Mapping[str, Any]) -> Any:
        if "sink" in args:
            offsets = {TopicPartition(str(t), int(p)): o for t, p, o in args["sink"]}
            return bool(self.obj.alter_offsets(args["props"], offsets))
        pairs = [(dict(p), None if o is None else dict(o)) for p, o in args["source"]]
        return bool(self.obj.alter_offsets(args["props"], pairs))

    def op_task_configs(self, args: Mapping[str, Any]) -> Any:
        return [dict(c) for c in self.obj.task_configs(int(args["max_tasks"]))]

    def op_task_class_name(self, args: Mapping[str, Any]) -> Any:
        # Spelled out rather than kconnect_sdk.task_class_name: a location's SDK may
        # predate it.
        task = self.obj.task_class()
        return getattr(task, "kafka_class_name", None) or f"{task.__module__}.{task.__qualname__}"

    # Task operations.
    def op_start(self, args: Mapping[str, Any]) -> Any:
        props = args["props"]
        if self.kind == "source_task":
            self.obj.initialize(_SourceContext(self.channel, props))
        else:
            self.sink_context = _SinkContext(props, bool(args.get("errant_reporter")))
            self.obj.initialize(self.sink_context)
        self.obj.start(props)

    def op_stop(self, args: Mapping[str, Any]) -> Any:
        # A poll running ahead returns once interrupt() called stop(); its records were
        # never handed out, so their offsets were never committed and nothing is lost.
        # What it raised while the task was stopping is of no interest any more.
        with contextlib.suppress(Exception):
            self._take_prefetched()
        self.obj.stop()

    def _acknowledge(self, args: Mapping[str, Any]) -> None:
        for seq, meta in args.get("acks", []):
            record = self.pending.pop(int(seq), None)
            if record is not None:
                self.obj.commit_record(record, RecordMetadata(*meta) if meta else None)

    def _poll_and_pack(self) -> tuple[list[SourceRecord] | None, bytes]:
        """Poll, and the batch already encoded as the JSON of a record batch."""
        records = self.obj.poll()
        return (None, b"") if records is None else (records, encode_json(pack_records(records)))

    def _run_ahead(self) -> None:
        try:
            self._ahead_result = self._poll_and_pack()
        except BaseException as exc:  # handed to the runtime with the next poll
            self._ahead_error = exc

    def _take_prefetched(self) -> tuple[list[SourceRecord] | None, bytes] | None:
        """Wait for the poll running ahead, if any; its outcome (raises what it raised)."""
        thread, self._ahead = self._ahead, None
        if thread is None:
            return None
        thread.join()
        result, error = self._ahead_result, self._ahead_error
        self._ahead_result, self._ahead_error = None, None
        if error is not None:
            raise error
        return result

    def op_poll(self, args: Mapping[str, Any]) -> Any:
        # While the runtime converts and sends one batch, the task polls and packs the
        # next on a thread of its own ("running ahead", one batch at most), so the two
        # processes work at once. Plugin calls still never overlap: acknowledgements,
        # commit and the next poll wait for the poll running ahead to end.
        taken = self._take_prefetched()
        self._acknowledge(args)
        records, packed = taken if taken is not None else self._poll_and_pack()
        if records is None:
            return None
        first = self.next_seq
        if self.acknowledged:
            for record in records:
                self.pending[self.next_seq] = record
                self.next_seq += 1
        if records:
            self._ahead = threading.Thread(
                target=self._run_ahead, daemon=True, name="plugin-host-poll-ahead"
            )
            # Started once the reply is written, so the reply does not wait for the GIL.
            self.after_reply = self._ahead.start
        # Sequence numbers are consecutive: the first one stands for the whole batch.
        return Encoded(b'{"first_seq":%d,"batch":%s}' % (first, packed))

    def op_commit(self, args: Mapping[str, Any]) -> Any:
        # Keep what a poll running ahead returned for the next op_poll.
        thread = self._ahead
        if thread is not None:
            thread.join()
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
        self.obj.put(unpack_records(args["records"]))

    def op_flush(self, args: Mapping[str, Any]) -> Any:
        self.obj.flush(_offsets(args["offsets"]))

    def op_pre_commit(self, args: Mapping[str, Any]) -> Any:
        result = self.obj.pre_commit(_offsets(args["offsets"]))
        return [[t, p, o] for (t, p), o in result.items()]

    # Converter, header converter, transformation and predicate operations.
    def op_configure(self, args: Mapping[str, Any]) -> Any:
        configs = dict(args.get("configs", {}))
        if self.kind == "converter":
            self.obj.configure(configs, bool(args.get("is_key", False)))
        else:
            self.obj.configure(configs)

    def op_close_plugin(self, args: Mapping[str, Any]) -> Any:
        self.obj.close()

    def op_from_connect_batch(self, args: Mapping[str, Any]) -> Any:
        values = unpack_values(args["values"], args.get("$blob", b""))
        topics = batch_topics(args, len(values))
        items = [(t, schema, value) for t, (schema, value) in zip(topics, values, strict=True)]
        # The bytes go back raw after the reply, not as base64 text inside it.
        lengths, blob = pack_blobs(self.obj.from_connect_batch(items))
        return Blob({"lengths": lengths}, blob)

    def op_to_connect_batch(self, args: Mapping[str, Any]) -> Any:
        datas = unpack_blobs(args["lengths"], args.get("$blob", b""))
        items = list(zip(batch_topics(args, len(datas)), datas, strict=True))
        batch, blob = pack_values_blob(self.obj.to_connect_batch(items))
        return Blob(batch, blob)

    def op_from_connect_headers(self, args: Mapping[str, Any]) -> Any:
        values = unpack_values(args["values"])
        return [
            to_b64(self.obj.from_connect_header(topic, key, schema, value))
            for (topic, key), (schema, value) in zip(args["keys"], values, strict=True)
        ]

    def op_to_connect_headers(self, args: Mapping[str, Any]) -> Any:
        return pack_values(
            self.obj.to_connect_header(topic, key, from_b64(data))
            for topic, key, data in args["items"]
        )

    def op_apply_batch(self, args: Mapping[str, Any]) -> Any:
        return pack_records(self.obj.apply_batch(unpack_records(args["records"])))

    def op_test_batch(self, args: Mapping[str, Any]) -> Any:
        records = unpack_records(args["records"])
        test_batch = getattr(self.obj, "test_batch", None)
        if test_batch is None:  # an SDK from before Predicate.test_batch
            return [bool(self.obj.test(r)) for r in records]
        return [bool(result) for result in test_batch(records)]


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
            channel.wait_eof(2.0)
            return 0
        args = request.get("args", {})
        if "$blob" in request:
            args["$blob"] = request["$blob"]
        try:
            result = host.handle(request["op"], args)
        except BaseException as exc:  # every failure goes back to the runtime
            if isinstance(exc, SystemExit):
                raise
            channel.send(
                {
                    "error": {
                        "type": type(exc).__name__,
                        "message": str(exc),
                        "retriable": isinstance(exc, RetriableError),
                        "config": isinstance(exc, ConfigError),
                        "config_name": getattr(exc, "name", None)
                        if isinstance(exc, ConfigError)
                        else None,
                        "data": isinstance(exc, DataError),
                        "trace": traceback.format_exc(),
                    }
                },
            )
            continue
        effects = host.sink_context.take_effects() if host.sink_context else {}
        if isinstance(result, Blob):
            reply = {"ok": result.result, "effects": effects}
            channel.send_raw(encode_json(reply), result.blob)
        elif isinstance(result, Encoded):
            channel.send_raw(b'{"ok":%s,"effects":%s}' % (result, encode_json(effects)))
        else:
            channel.send({"ok": result, "effects": effects})
        if host.after_reply is not None:
            action, host.after_reply = host.after_reply, None
            action()


if __name__ == "__main__":
    sys.exit(main())
