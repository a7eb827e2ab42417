"""Process isolation: plugins from a plugin.path location run in a subprocess.

Each isolated plugin instance — a connector, a task, a converter, a header converter, a
transformation or a predicate — owns one plugin host process, started with the
location's own interpreter (``<location>/bin/python``) on the self-contained script
``host/_plugin_host.py``. The classes here are ordinary SDK plugins that forward every call
over the host's batched, length-prefixed JSON protocol, so the worker, the task runners
and the record pipeline drive them unchanged: a converter or transform crosses once per
batch, never once per record.

A host that exits, or that does not answer a call within the call timeout, fails the
call with a ConnectError carrying the host's stderr (its Python traceback): the runner
then handles it as any failure of that stage (the task FAILS with the trace, or
``errors.tolerance=all`` routes the records), and a restart starts a fresh host.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from kconnect_sdk import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    ConnectError,
    ConnectorContext,
    Converter,
    HeaderConverter,
    Headers,
    Importance,
    Predicate,
    RecordMetadata,
    Schema,
    SchemaAndValue,
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
    Transformation,
)

from ._process import (
    CALL_TIMEOUT_CONFIG,
    DEFAULT_CALL_TIMEOUT_S,
    PluginProcess,
    call_timeout_s,
)
from .host._codec import (
    from_b64,
    pack_blobs,
    pack_records,
    pack_values,
    pack_values_blob,
    to_b64,
    topics_arg,
    unpack_blobs,
    unpack_records,
    unpack_values,
)

__all__ = [
    "IsolatedSinkTask",
    "IsolatedSourceTask",
    "is_isolated_connector",
    "isolated_connector_class",
    "isolated_plugin_class",
]

log = logging.getLogger(__name__)


def config_def_from_plain(
    keys: Sequence[Mapping[str, Any]], prefixes: Mapping[str, str] | None = None
) -> ConfigDef:
    """A ConfigDef from the key dicts (and accepted prefixes) the host's ``config`` and
    ``describe`` return.

    Validators stay in the plugin's process; the plugin checks its config itself.
    """
    config = ConfigDef()
    for prefix, documentation in (prefixes or {}).items():
        config.accept_prefix(str(prefix), str(documentation))
    for key in keys:
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
        if process is None:
            return
        if process.closed:
            process.kill()  # the host died earlier: reap it and close our end of its pipes
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

    @property
    def forwards_commit_record(self) -> bool:
        """Whether the plugin's task implements ``commit_record`` (known once started)."""
        process = self.process
        return process is None or bool(process.loaded.get("commit_record", True))

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
        records: list[SourceRecord] = unpack_records(result["batch"])
        if not self.forwards_commit_record:
            return records
        seq = int(result["first_seq"])
        for record in records:
            # Keyed by identity: the runner hands the same object back to commit_record.
            self._seq[id(record)] = (seq, record)
            seq += 1
        return records

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if not self.forwards_commit_record:
            return
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
        reporter = self.context.errant_record_reporter is not None
        self._call("start", {"props": dict(props), "errant_reporter": reporter})

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
        errant = effects.get("errant")
        reporter = context.errant_record_reporter
        if errant and reporter is not None:
            records = unpack_records(errant["batch"])
            for record, (kind, message) in zip(records, errant["errors"], strict=True):
                reporter.report(record, ConnectError(f"{self.label}: {kind}: {message}"))

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        self._call("open", {"partitions": _tp_list(partitions)})

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        if self.process is not None and not self.process.closed:
            self._call("close", {"partitions": _tp_list(partitions)})

    def put(self, records: Sequence[SinkRecord]) -> None:
        self._call("put", {"records": pack_records(records)})

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        self._call("flush", {"offsets": _offset_list(offsets)})

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        result = self._call("pre_commit", {"offsets": _offset_list(offsets)})
        return {TopicPartition(t, p): int(o) for t, p, o in result}


# Connectors.


class _HostOwner:
    """An isolated plugin instance that owns (at most) one plugin host process."""

    _process: PluginProcess | None = None

    def _shut_host(self, op: str) -> None:
        """Have the plugin finish (``op``), then the host exit; a dead host is just reaped."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if not process.closed:
                process.call(op)
        finally:
            process.close()

    def _host_key(self) -> tuple[str, str, str]:
        raise NotImplementedError

    def _return_host(self) -> None:
        """Park this instance's host for the next instance of the plugin (reap a dead one)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.closed or not process.alive():
            process.close()
        else:
            _park_host(self._host_key(), process)

    def __del__(self) -> None:
        # An instance built only to validate a config may be dropped without stop/close.
        process = self._process
        if process is not None and not process.closed:
            process.kill()


class _IsolatedConnectorMixin(_HostOwner):
    """Forwards a connector's calls to a plugin host process of its location."""

    location: ClassVar[str]
    target: ClassVar[str]
    plugin_version: ClassVar[str]
    _task_class: ClassVar[type[Task]]

    _context: ConnectorContext | None = None

    def _host(self) -> PluginProcess:
        if self._process is None or self._process.closed:
            context = self._context

            def reader() -> Any:
                return context.offset_storage_reader if context is not None else None

            callbacks = {"offsets": _offsets_callback(reader)}
            self._process = _take_host(
                self._host_key(), DEFAULT_CALL_TIMEOUT_S, callbacks
            ) or PluginProcess(
                self.location, "connector", self.target, callbacks=callbacks, label=self.target
            )
        return self._process

    def _host_key(self) -> tuple[str, str, str]:
        return (self.location, "connector", self.target)

    def version(self) -> str:
        return self.plugin_version

    def initialize(self, context: ConnectorContext) -> None:
        self._context = context

    def config(self) -> ConfigDef:
        borrowed = self._process is None
        plain = self._host().call("config")
        if borrowed:
            # An instance only asked for its definition (to know which keys are
            # passwords): the next instance, which validates and runs the config, loads a
            # fresh connector in this host instead of starting another.
            self._return_host()
        return config_def_from_plain(plain["keys"], plain["prefixes"])

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

    def task_class_name(self) -> str:
        """The ``task.class`` of the plugin's own task (the proxy task stands in for it)."""
        return str(self._host().call("task_class_name"))

    def stop(self) -> None:
        self._shut_host("stop")


class _IsolatedSourceConnector(_IsolatedConnectorMixin, SourceConnector):
    _task_class = IsolatedSourceTask

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Asks the plugin in its host; a ConnectError it raises refuses the change."""
        pairs = [[dict(p), None if o is None else dict(o)] for p, o in offsets]
        return bool(self._host().call("alter_offsets", {"props": dict(props), "source": pairs}))


class _IsolatedSinkConnector(_IsolatedConnectorMixin, SinkConnector):
    _task_class = IsolatedSinkTask

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Asks the plugin in its host; a ConnectError it raises refuses the change."""
        rows = [[tp.topic, tp.partition, offset] for tp, offset in offsets.items()]
        return bool(self._host().call("alter_offsets", {"props": dict(props), "sink": rows}))


def isolated_connector_class(
    *, sink: bool, location: str, target: str, version: str, name: str
) -> type[SourceConnector] | type[SinkConnector]:
    """A connector class whose instances run ``target`` in a host of ``location``."""
    base: type[SourceConnector] | type[SinkConnector] = (
        _IsolatedSinkConnector if sink else _IsolatedSourceConnector
    )
    attrs = {"location": location, "target": target, "plugin_version": version}
    return type(f"Isolated{_simple_name(name)}", (base,), attrs)


def is_isolated_connector(instance: object) -> bool:
    return isinstance(instance, _IsolatedConnectorMixin)


# Converters, header converters, transformations and predicates.


# The config definitions of pipeline plugins, by (location, target, version).
_CONFIG_DEFS: dict[tuple[str, str, str], Any] = {}

# Hosts of pipeline plugins whose instance was closed, kept a few seconds for the next
# instance of the same plugin, which loads a fresh instance in them instead of starting a
# process: a connector's config is validated by building its converters and transforms
# and closing them, and its tasks build the same plugins a moment later. The plugin's
# modules stay imported across its instances, as a plugin's classes stay loaded in a Java
# worker. By (location, kind, target).
_IDLE_HOSTS: dict[tuple[str, str, str], list[tuple[float, PluginProcess]]] = {}
_IDLE_LOCK = threading.Lock()
IDLE_HOST_TTL_S = 10.0
_IDLE_PER_PLUGIN = 4
# The one pending reaper timer and when it is due (the earliest idle host's expiry).
_REAPER: list[tuple[float, threading.Timer]] = []


def _park_host(key: tuple[str, str, str], process: PluginProcess) -> None:
    with _IDLE_LOCK:
        idle = _IDLE_HOSTS.setdefault(key, [])
        parked = len(idle) < _IDLE_PER_PLUGIN
        if parked:
            idle.append((time.monotonic() + IDLE_HOST_TTL_S, process))
            _schedule_reaper(IDLE_HOST_TTL_S)
    if not parked:
        process.close()


def _schedule_reaper(delay_s: float) -> None:
    """Have the reaper run in ``delay_s`` unless it runs sooner (``_IDLE_LOCK`` held)."""
    due = time.monotonic() + delay_s
    if _REAPER:
        if _REAPER[0][0] <= due:
            return
        _REAPER.pop()[1].cancel()  # a host parked with a shorter time
    timer = threading.Timer(delay_s + 0.1, _reap_idle_hosts)
    timer.daemon = True
    _REAPER.append((due, timer))
    timer.start()


def _take_host(
    key: tuple[str, str, str], timeout_s: float, callbacks: Mapping[str, Any] | None = None
) -> PluginProcess | None:
    """An idle host of the plugin ``key`` names, with a fresh instance loaded; or None."""
    while True:
        with _IDLE_LOCK:
            idle = _IDLE_HOSTS.get(key)
            if not idle:
                return None
            _, process = idle.pop()
        if not process.closed and process.alive():
            process.timeout_s = timeout_s
            process.callbacks = dict(callbacks or {})
            try:
                process.reload()
                return process
            except ConnectError:
                pass
        process.close()  # died while idle: reap it


def _reap_idle_hosts(now: float | None = None) -> None:
    """Close the idle hosts whose time is up (all of them with ``now=inf``)."""
    moment = time.monotonic() if now is None else now
    expired: list[PluginProcess] = []
    with _IDLE_LOCK:
        if now is None:
            _REAPER.clear()  # this is the timer's run
        for key, idle in list(_IDLE_HOSTS.items()):
            keep = [(until, p) for until, p in idle if until > moment]
            expired += [p for until, p in idle if until <= moment]
            if keep:
                _IDLE_HOSTS[key] = keep
            else:
                del _IDLE_HOSTS[key]
        if _IDLE_HOSTS and now is None:
            earliest = min(until for idle in _IDLE_HOSTS.values() for until, _ in idle)
            _schedule_reaper(max(earliest - moment, 0.0))
    for process in expired:
        process.close()


def close_idle_hosts() -> None:
    """Close every idle plugin host now (a worker that stops leaves no process behind)."""
    _reap_idle_hosts(float("inf"))


class _IsolatedPluginMixin(_HostOwner):
    """Forwards a pipeline plugin's calls, a batch per call, to its own plugin host.

    The host starts on first use (``configure`` or ``config``) and lives until ``close``.
    A host that died is not restarted: every later call fails with its stderr, so the
    task fails (or tolerates) as for any failing stage, and a task restart, which builds
    a new pipeline, starts a fresh host.
    """

    location: ClassVar[str]
    target: ClassVar[str]
    plugin_version: ClassVar[str]
    plugin_name: ClassVar[str]
    _kind: ClassVar[str]

    _timeout_s: float = DEFAULT_CALL_TIMEOUT_S

    def _host(self) -> PluginProcess:
        process = self._process
        if process is None:
            process = _take_host(self._host_key(), self._timeout_s)
            if process is None:
                process = PluginProcess(
                    self.location,
                    self._kind,
                    self.target,
                    timeout_s=self._timeout_s,
                    label=self.plugin_name,
                )
            self._process = process
        return process

    def _host_key(self) -> tuple[str, str, str]:
        return (self.location, self._kind, self.target)

    def _call(self, op: str, args: Mapping[str, Any] | None = None) -> Any:
        return self._host().call(op, args)

    def _configure_host(self, configs: Mapping[str, Any], **extra: Any) -> None:
        # plugin.call.timeout.ms among the plugin's own settings is the runtime's, not the
        # plugin's: e.g. transforms.<alias>.plugin.call.timeout.ms.
        settings = {k: v for k, v in configs.items() if k != CALL_TIMEOUT_CONFIG}
        self._timeout_s = call_timeout_s(configs)
        if self._process is not None:
            self._process.timeout_s = self._timeout_s
        self._call("configure", {"configs": settings, **extra})

    def config(self) -> ConfigDef:
        # A plugin's config definition is the same for each of its instances: ask a host
        # once per plugin version, so that validating a connector config (which asks every
        # converter and transform for its definition) does not start a host each time.
        key = (self.location, self.target, self.plugin_version)
        plain = _CONFIG_DEFS.get(key)
        if plain is None:
            borrowed = self._process is None
            plain = _CONFIG_DEFS[key] = self._call("config")
            if borrowed:  # only asked for its definition: the next instance loads there
                self._return_host()
        return config_def_from_plain(plain["keys"], plain["prefixes"])

    def version(self) -> str:
        if self._process is not None:
            return str(self._process.loaded.get("version", self.plugin_version))
        return self.plugin_version

    def close(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            if not process.closed:
                process.call("close_plugin")
        finally:
            self._return_host()


class _IsolatedConverter(_IsolatedPluginMixin, Converter):
    _kind = "converter"

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key
        self._configure_host(configs, is_key=is_key)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        return self.from_connect_batch([(topic, schema, value)])[0]

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return self.to_connect_batch([(topic, data)])[0]

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        if not items:
            return []
        values, raw = pack_values_blob([(schema, value) for _, schema, value in items])
        args = {**topics_arg([topic for topic, _, _ in items]), "values": values}
        # The host answers with the lengths in the reply and the bytes raw after it.
        result = self._host().call("from_connect_batch", args, raw)
        return unpack_blobs(result["lengths"], result.get("$blob", b""))

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        if not items:
            return []
        lengths, blob = pack_blobs([data for _, data in items])
        args = {**topics_arg([topic for topic, _ in items]), "lengths": lengths}
        result = self._host().call("to_connect_batch", args, blob)
        return unpack_values(result, result.get("$blob", b""))


class _IsolatedHeaderConverter(_IsolatedPluginMixin, HeaderConverter):
    _kind = "header_converter"

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._configure_host(configs)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        result = self._call("to_connect_headers", {"items": [[topic, header_key, to_b64(data)]]})
        ((schema, value),) = unpack_values(result)
        return SchemaAndValue(schema, value)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        args = {"keys": [[topic, header_key]], "values": pack_values([(schema, value)])}
        (data,) = self._call("from_connect_headers", args)
        return from_b64(data)


class _IsolatedTransformation(_IsolatedPluginMixin, Transformation[Any]):
    _kind = "transformation"

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._configure_host(configs)

    def apply(self, record: Any) -> Any:
        out = self.apply_batch([record])
        return out[0] if out else None

    def apply_batch(self, records: Sequence[Any]) -> list[Any]:
        if not records:
            return []
        return unpack_records(self._call("apply_batch", {"records": pack_records(records)}))


class _IsolatedPredicate(_IsolatedPluginMixin, Predicate[Any]):
    _kind = "predicate"

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._configure_host(configs)

    def test(self, record: Any) -> bool:
        return self.test_batch([record])[0]

    def test_batch(self, records: Sequence[Any]) -> list[bool]:
        """Test many records in one call to the host."""
        if not records:
            return []
        return [bool(r) for r in self._call("test_batch", {"records": pack_records(records)})]


_PLUGIN_PROXIES: dict[str, type[_IsolatedPluginMixin]] = {
    "converter": _IsolatedConverter,
    "header_converter": _IsolatedHeaderConverter,
    "transformation": _IsolatedTransformation,
    "predicate": _IsolatedPredicate,
}


def isolated_plugin_class(
    *, kind: str, location: str, target: str, version: str, name: str
) -> type:
    """A converter, header converter, transformation or predicate class whose instances
    each run ``target`` in their own plugin host of ``location``.

    Args:
        kind: ``converter``, ``header_converter``, ``transformation`` or ``predicate``
            (the registry's PluginKind values).

    Raises:
        ConnectError: for another kind.
    """
    base = _PLUGIN_PROXIES.get(kind)
    if base is None:
        raise ConnectError(
            f"plugin {name!r} is a {kind}; only connectors, converters, header converters, "
            "transformations and predicates run isolated from plugin.path"
        )
    attrs = {"location": location, "target": target, "plugin_version": version, "plugin_name": name}
    return type(f"Isolated{_simple_name(name)}", (base,), attrs)


def _simple_name(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
