"""A connector's config as DataFrame options: planning its tasks and running one of them.

Spark hands a data source its options with the keys lower-cased (``CaseInsensitiveDict``);
Kafka Connect's keys are lower case already, but transform and predicate aliases are not
always, so aliases are lower-cased to match, and ``kconnect.config`` (the whole connector
config as JSON) keeps every key exactly as written.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kconnect_sdk import (
    ConfigError,
    ConnectError,
    PluginKind,
    PluginMetricsGroup,
    RetriableError,
    SinkTask,
    SourceBatch,
    SourceRecord,
    SourceTask,
)

if TYPE_CHECKING:
    from kconnect_runtime.errors import ErrorHandler
    from kconnect_runtime.plugins import PluginDesc, PluginRegistry
    from kconnect_runtime.storage import TaskOffsetReader
    from kconnect_runtime.tasks import Converters, TransformChain

# The runtime's layers are imported where a plan is made or a task run, not with this module:
# Spark's planner process unpickles a ConnectorPlan only to hand it on to the executors.

__all__ = [
    "FORMATS",
    "ConnectorPlan",
    "SourceRun",
    "plan_connector",
    "registry",
]

log = logging.getLogger("kconnect.dataframes")

OUR_PREFIX = "kconnect."
COLUMNAR = "kconnect.read.columnar"
FORMATS = ("connect", "json", "avro")
_FORMAT_CONVERTERS = {
    # "connect" needs no converter; StringConverter is a cheap stand-in the runtime's
    # converter builder requires for the unused side.
    "connect": "org.apache.kafka.connect.storage.StringConverter",
    "json": "org.apache.kafka.connect.json.JsonConverter",
    "avro": "io.confluent.connect.avro.AvroConverter",
}

# Option keys that are the data source's own, never handed to the connector.
_OWN_KEYS = {"value.format", "key.format", "path", "plugin.path"}

_Offsets = list[list[Any]]
"""``[[source partition, source offset], ...]``: one task's position, JSON-able."""


@functools.cache
def registry(plugin_path: str = "") -> PluginRegistry:
    """The plugins of this Python environment and of ``plugin_path`` (discovered once each).

    Plugins on ``plugin.path`` run isolated as on a worker: each location's plugins in a
    plugin host process of that location's environment, started by whichever process
    (driver or executor) runs the task, so the locations must exist at the same path on
    every executor.
    """
    from kconnect_runtime.plugins import PluginRegistry

    return PluginRegistry.discover(plugin_path=plugin_path or None)


def _lower_aliases(config: dict[str, str]) -> dict[str, str]:
    for key in ("transforms", "predicates"):
        if key in config:
            config[key] = config[key].lower()
    for key, value in list(config.items()):
        if key.startswith("transforms.") and key.endswith(".predicate"):
            config[key] = value.lower()
    return config


@dataclass(frozen=True, slots=True)
class ConnectorPlan:
    """What every Spark task needs to run one of a connector's tasks: plain, picklable data."""

    name: str
    connector_class: str
    kind: PluginKind
    connector_config: dict[str, str]
    task_configs: tuple[dict[str, str], ...]
    worker_props: dict[str, str]
    own: dict[str, str] = field(default_factory=dict)
    """The data source's own options (``kconnect.*``, ``value.format``, ``key.format``)."""

    @property
    def value_format(self) -> str:
        return self.own.get("value.format", "connect")

    @property
    def key_format(self) -> str:
        return self.own.get("key.format", self.value_format)

    def own_int(self, key: str, default: int) -> int:
        raw = self.own.get(key)
        if raw is None or raw == "":
            return default
        try:
            return int(raw)
        except ValueError:
            raise ConfigError(
                f"Invalid value {raw} for option {key}: expected an integer", name=key
            ) from None

    def own_str(self, key: str, default: str) -> str:
        return self.own.get(key) or default

    def own_bool(self, key: str, default: bool) -> bool:
        raw = (self.own.get(key) or "").strip().lower()
        if not raw:
            return default
        if raw not in ("true", "false"):
            raise ConfigError(
                f"Invalid value {self.own[key]} for option {key}: expected true or false",
                name=key,
            )
        return raw == "true"

    @property
    def plugin_path(self) -> str:
        """The ``plugin.path`` option: locations (venvs, or folders of venvs), comma-separated."""
        return self.own.get("plugin.path", "")

    def registry(self) -> PluginRegistry:
        return registry(self.plugin_path)

    def plugin(self) -> PluginDesc:
        from kconnect_runtime.plugins import CONNECTOR_VERSION_CONFIG

        return self.registry().resolve(
            self.connector_class,
            self.kind,
            key="connector.class",
            version=self.connector_config.get(CONNECTOR_VERSION_CONFIG),
        )

    def converters(self) -> Converters:
        from kconnect_runtime.tasks import build_converters

        return build_converters(self.registry(), self.worker_props, self.connector_config)

    def transforms(self) -> TransformChain[Any]:
        from kconnect_runtime.tasks import TransformChain

        return TransformChain.from_config(self.registry(), self.connector_config)

    def error_handler(self, index: int) -> ErrorHandler:
        """Task ``index``'s ``errors.*`` handler (with a DLQ producer when configured)."""
        from ._errors import new_error_handler

        return new_error_handler(self.name, index, self.connector_config)

    def new_task(self, index: int) -> SourceTask | SinkTask:
        from kconnect_runtime.plugins import new_task

        task = new_task(self.plugin(), self.name, index, self.connector_config)
        want = SourceTask if self.kind is PluginKind.SOURCE else SinkTask
        if not isinstance(task, want):
            raise ConnectError(
                f"connector {self.name!r}: task_class() of {self.connector_class} must be a "
                f"{want.__name__}"
            )
        return task


class _ConnectorContext:
    """The context a connector gets while the data source asks it for task configs."""

    def __init__(self, reader: TaskOffsetReader | None) -> None:
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        pass  # a DataFrame's tasks are planned once per query

    def raise_error(self, error: BaseException) -> None:
        raise ConnectError(f"the connector failed: {error}") from error

    @property
    def offset_storage_reader(self) -> TaskOffsetReader | None:
        return self._reader

    @functools.cached_property
    def plugin_metrics(self) -> PluginMetricsGroup:
        """A DataFrame read's plugin metrics stay in Spark's processes: nothing exports them."""
        return PluginMetricsGroup({})


def split_options(options: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The connector config and the data source's own options from Spark's options."""
    config: dict[str, str] = {}
    own: dict[str, str] = {}
    for key, value in options.items():
        k = str(key)
        if k.lower().startswith(OUR_PREFIX) or k.lower() in _OWN_KEYS:
            own[k.lower()] = str(value)
        else:
            config[k] = str(value)
    _lower_aliases(config)
    raw = own.pop("kconnect.config", "")
    if raw:
        try:
            extra = json.loads(raw)
        except ValueError as exc:
            raise ConfigError(
                f"Invalid value for option kconnect.config: not JSON ({exc})",
                name="kconnect.config",
            ) from None
        if not isinstance(extra, dict):
            raise ConfigError(
                "Invalid value for option kconnect.config: expected a JSON object of "
                "connector config keys to string values",
                name="kconnect.config",
            )
        config.update({str(k): str(v) for k, v in extra.items()})
    for key in ("value.format", "key.format"):
        fmt = own.get(key)
        if fmt is not None and fmt not in FORMATS:
            raise ConfigError(
                f"Invalid value {fmt} for option {key}: expected one of {', '.join(FORMATS)}",
                name=key,
            )
    return config, own


def plan_connector(options: Mapping[str, str], kind: PluginKind) -> ConnectorPlan:
    """Start the connector named by ``connector.class`` once, to split it into task configs.

    Raises:
        ConfigError: naming the key, when ``connector.class`` is missing or names no
            installed connector of ``kind``, or the connector refuses its config.
    """
    config, own = split_options(options)
    connector_class = config.get("connector.class", "")
    if not connector_class:
        raise ConfigError(
            f'Missing required option "connector.class": the kconnect data source needs the '
            f"{kind.value} connector's config, e.g. "
            ".option('connector.class', 'FileStreamSource').option('file', '/tmp/in.txt')",
            name="connector.class",
        )
    from kconnect_runtime.storage import MemoryOffsetStore, TaskOffsetReader

    from ._errors import check_error_config

    name = config.setdefault("name", "spark-kconnect")
    check_error_config(name, config)
    value_format = own.get("value.format", "connect")
    # The format's converter goes into the connector config (unless it names its own), so
    # its prefixed settings there (value.converter.schemas.enable=...) reach it.
    config.setdefault("key.converter", _FORMAT_CONVERTERS[own.get("key.format", value_format)])
    config.setdefault("value.converter", _FORMAT_CONVERTERS[value_format])
    worker_props = {
        "key.converter": config["key.converter"],
        "value.converter": config["value.converter"],
    }
    plan = ConnectorPlan(name, connector_class, kind, config, (), worker_props, own)
    plan.own_bool(COLUMNAR, True)  # a bad value fails on the driver, before any task starts
    plugin = plan.plugin()
    if not plugin.available:
        raise ConfigError(
            f"connector {name!r}: {connector_class} is unavailable: {plugin.error}",
            name="connector.class",
        )
    connector = plugin.load()()
    store = MemoryOffsetStore()
    connector.initialize(
        _ConnectorContext(TaskOffsetReader(store, name) if kind is PluginKind.SOURCE else None)
    )
    try:
        max_tasks = int(config.get("tasks.max", "1"))
    except ValueError:
        raise ConfigError(
            f"Invalid value {config.get('tasks.max')} for configuration tasks.max: Not a number",
            name="tasks.max",
        ) from None
    connector.start(config)
    try:
        task_configs = tuple(dict(c) for c in connector.task_configs(max_tasks))
    finally:
        connector.stop()
    if not task_configs:
        raise ConnectError(f"connector {name!r} ({connector_class}) generated no task configs")
    return ConnectorPlan(name, connector_class, kind, config, task_configs, worker_props, own)


class SourceRun:
    """One of a source connector's tasks, started on given offsets, polled through transforms."""

    def __init__(self, plan: ConnectorPlan, index: int, offsets: _Offsets) -> None:
        from kconnect_runtime.storage import MemoryOffsetStore, TaskOffsetReader, offset_key
        from kconnect_runtime.tasks import SourceContext

        self.plan = plan
        self.index = index
        store = MemoryOffsetStore()
        store.put(plan.name, {offset_key(plan.name, p): (p, o) for p, o, *_ in offsets})
        self.transforms = plan.transforms()
        self.errors = plan.error_handler(index)
        self.task = plan.new_task(index)
        assert isinstance(self.task, SourceTask)
        self.columnar = (
            not len(self.transforms)
            and type(self.task).poll_batch is not SourceTask.poll_batch
            and plan.own_bool(COLUMNAR, True)
        )
        """Whether this run reads columns: the task's class overrides ``poll_batch``, the
        connector has no transforms, and option ``kconnect.read.columnar`` is not false."""
        config = {**plan.connector_config, **plan.task_configs[index]}
        self.task.initialize(SourceContext(config, TaskOffsetReader(store, plan.name)))
        self.task.start(config)
        self._stopped = False

    def _call(self, method: str, poll: Callable[[], Any]) -> Any:
        try:
            return poll()
        except RetriableError as exc:
            # As on a worker: a retriable poll error is logged and polling goes on.
            log.warning(
                "connector %r task %d: SourceTask.%s raised a retriable error, polling again "
                "in 100 ms: %s",
                self.plan.name,
                self.index,
                method,
                exc,
            )
            time.sleep(0.1)
            return None
        except ConnectError:
            raise
        except Exception as exc:
            raise ConnectError(
                f"connector {self.plan.name!r} task {self.index}: SourceTask.{method} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def poll_batch(self) -> SourceBatch | None:
        """One ``SourceTask.poll_batch`` (only for a :attr:`columnar` run), under the same
        error handling as :meth:`poll`; None for nothing (or an empty batch)."""
        assert isinstance(self.task, SourceTask)
        batch: SourceBatch | None = self._call("poll_batch", self.task.poll_batch)
        return batch if batch is not None and len(batch) else None

    def poll(
        self, select: Callable[[list[SourceRecord]], list[SourceRecord]] | None = None
    ) -> tuple[list[SourceRecord], list[SourceRecord]]:
        """One poll: (the records as polled, the records after ``select`` and the transforms)."""
        assert isinstance(self.task, SourceTask)
        polled: list[SourceRecord] = self._call("poll", self.task.poll) or []
        kept = polled if select is None or not polled else select(polled)
        if not kept or not len(self.transforms):
            return polled, kept
        return polled, self.transform(kept)

    def transform(self, records: list[SourceRecord]) -> list[SourceRecord]:
        """``records`` through the transforms, under ``errors.*`` (a failed record is skipped
        with ``errors.tolerance=all``; its offset still moves the task's position on)."""
        if not records or not len(self.transforms):
            return records

        from kconnect_runtime.errors import Stage

        from ._errors import source_record_failed, transform_tolerant

        def failed(record: SourceRecord, executing: str, exc: BaseException) -> None:
            source_record_failed(self.errors, record, Stage.TRANSFORMATION, executing, exc)

        return transform_tolerant(self.errors, self.transforms, records, failed)

    def finished(self) -> bool:
        """Whether the task says it has returned every record (``SourceTask.finished``)."""
        assert isinstance(self.task, SourceTask)
        try:
            return bool(self.task.finished())
        except Exception as exc:
            raise ConnectError(
                f"connector {self.plan.name!r} task {self.index}: SourceTask.finished failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def commit(self) -> None:
        assert isinstance(self.task, SourceTask)
        self.task.commit()

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self.task.stop()
        finally:
            try:
                self.transforms.close()
            finally:
                self.errors.close()
