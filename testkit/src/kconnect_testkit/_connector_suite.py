"""What the source and sink connector suites share: config validation, task splitting, doubles."""

from __future__ import annotations

import functools
import json
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_sdk import (
    Connector,
    PluginKind,
    PluginMetricsGroup,
    SinkRecord,
    Task,
    TopicPartition,
)

from . import _pipeline, _support
from ._base import PluginPackageSuite
from ._doubles import (
    InMemoryOffsetStore,
)
from ._scenario import Scenario

__all__ = ["TASK_COUNTS"]


TASK_COUNTS = (1, 2, 8)


class _NoopConnectorContext:
    def __init__(self, reader: InMemoryOffsetStore | None) -> None:
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        """Nothing to reconfigure in a test."""

    def raise_error(self, error: BaseException) -> None:
        raise error

    @property
    def offset_storage_reader(self) -> InMemoryOffsetStore | None:
        return self._reader

    @functools.cached_property
    def plugin_metrics(self) -> PluginMetricsGroup:
        """Kept for the test to read (``plugin_metrics.samples()``)."""
        return PluginMetricsGroup({})


def _missing(records: Sequence[SinkRecord], output: Sequence[Any]) -> list[str]:
    """Values of ``records`` (by repr, counting duplicates) the sink's output lacks."""
    return list((Counter(repr(r.value) for r in records) - Counter(map(repr, output))).elements())


def _is_json_plain(value: Any) -> bool:
    try:
        return bool(json.loads(json.dumps(value, allow_nan=False)) == value)
    except (TypeError, ValueError):
        return False


class _ConnectorSuite(PluginPackageSuite):
    connector_name: ClassVar[str] = "kc-conformance"
    engines: ClassVar[Sequence[str]] = ("local",)
    """Engines ``test_pipeline_delivers_every_record`` runs on (``--kc-engine`` overrides)."""
    pipeline_timeout_s: ClassVar[float] = 60.0
    """How long the pipeline check waits for every record to arrive."""
    isolated_call_timeout_s: ClassVar[float] = 30.0
    """Isolated mode: how long one call into the plugin host may take."""

    def task_instance(self) -> Task:
        """A new task of the connector: in isolated mode, the runtime's proxy task, whose
        plugin task runs in a plugin host process of the location."""
        isolated = self.isolated_plugin()
        if isolated is None:
            task: Task = self.new_plugin().task_class()()
            return task
        from kconnect_runtime import IsolatedSinkTask, IsolatedSourceTask

        proxy = IsolatedSinkTask if self.kind is PluginKind.SINK else IsolatedSourceTask
        self.plugin_class()  # fails with the registry's reason when it cannot load
        return proxy(
            str(isolated.location),
            isolated.desc.target,
            timeout_s=self.isolated_call_timeout_s,
            label=f"{self.connector_name} ({isolated.desc.name})",
        )

    def pipeline_connector(self, props: Mapping[str, str]) -> dict[str, str]:
        """The connector config the pipeline check gives the worker."""
        isolated = self.isolated_plugin()
        plugin = self.plugin
        if isolated is not None:
            name = isolated.desc.name
        elif isinstance(plugin, str):
            name = plugin
        else:
            desc = _support.find_desc(plugin, self.kind)
            name = desc.name if desc is not None else f"{plugin.__module__}:{plugin.__qualname__}"
        return {
            **props,
            # Unique per check: the broker, and so the sink's consumer group, is shared.
            "name": f"{self.connector_name}-{uuid.uuid4().hex[:8]}",
            "connector.class": name,
        }

    def pipeline_worker(self, tmp_path: Path, kafka: str, engine: str) -> dict[str, str]:
        isolated = self.isolated_plugin()
        return _pipeline.worker_props(
            tmp_path, kafka, engine, None if isolated is None else str(isolated.location)
        )

    def plugin_validate(self, props: Mapping[str, str]) -> Any:
        return self.new_plugin().validate(props)

    def connector_props(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        props = {"name": self.connector_name, "tasks.max": "1"}
        props.update(self.scenario_config(scenario, tmp_path))
        return props

    def started_connector(self, props: Mapping[str, str]) -> Connector:
        connector: Connector = self.new_plugin()
        connector.initialize(_NoopConnectorContext(InMemoryOffsetStore()))
        connector.start(props)
        return connector

    def tasks_max(self, props: Mapping[str, str]) -> int:
        """The scenario's ``tasks.max``, as the worker reads it."""
        text = props.get("tasks.max", "1")
        try:
            count = int(text)
        except ValueError:
            count = 0
        if count < 1:
            _support.fail(f"the scenario's tasks.max is {text!r}; give a whole number >= 1")
        return count

    def all_task_props(
        self, scenario: Scenario, tmp_path: Path, props: Mapping[str, str] | None = None
    ) -> list[dict[str, str]]:
        """Every task's config, split by the connector for the scenario's ``tasks.max`` as the
        worker splits it (from ``props``, else the scenario's connector config)."""
        props = dict(props) if props is not None else self.connector_props(scenario, tmp_path)
        tasks_max = self.tasks_max(props)
        connector = self.started_connector(props)
        try:
            configs = connector.task_configs(tasks_max)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if not 1 <= len(configs) <= tasks_max:
            _support.fail(
                f"task_configs({tasks_max}) returned {len(configs)} configs; it must return "
                f"between 1 and {tasks_max} (the scenario's tasks.max)"
            )
        return [{**props, **config} for config in configs]

    def task_props(
        self, scenario: Scenario, tmp_path: Path, props: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The first task's config (from ``props``, else the scenario's connector config)."""
        props = dict(props) if props is not None else self.connector_props(scenario, tmp_path)
        connector = self.started_connector(props)
        try:
            configs = connector.task_configs(1)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if len(configs) != 1:
            _support.fail(f"task_configs(1) returned {len(configs)} configs")
        return {**props, **configs[0]}

    @pytest.mark.parametrize("max_tasks", TASK_COUNTS)
    def test_task_configs_within_bounds(
        self, scenario: Scenario, tmp_path: Path, max_tasks: int
    ) -> None:
        connector = self.started_connector(self.connector_props(scenario, tmp_path))
        try:
            configs = connector.task_configs(max_tasks)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if not 1 <= len(configs) <= max_tasks:
            _support.fail(
                f"task_configs({max_tasks}) returned {len(configs)} configs; it must return "
                f"between 1 and {max_tasks}"
            )
        for i, config in enumerate(configs):
            if not isinstance(config, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in config.items()
            ):
                _support.fail(
                    f"task_configs({max_tasks})[{i}] is {config!r:.200}; each task config must "
                    "map str keys to str values (plain data the runtime stores as JSON)"
                )

    def test_connector_start_stop_idempotent(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.connector_props(scenario, tmp_path)
        connector = self.started_connector(props)
        _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        _support.call_bounded(connector.stop, self.stop_timeout_s, "a second connector stop()")
        connector.start(props)
        _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop() after restart")


def _release(task: Task) -> None:
    """Isolated mode: make sure the task's plugin host is gone and its pipes are closed.

    The runtime's proxy leaves the pipe to a host that died open (it is only closed when
    the host is asked to exit), which would surface as an unclosed-file warning.
    """
    process = getattr(task, "process", None)
    if process is not None:
        process.kill()


def _check_reported(
    reported: Mapping[TopicPartition, int],
    consumed: Mapping[TopicPartition, int],
    records: Sequence[SinkRecord],
    output: Sequence[Any],
    when: str,
) -> None:
    """Fail unless every reported offset was passed in and its records are in ``output``."""
    for tp, offset in reported.items():
        if tp not in consumed:
            _support.fail(f"pre_commit reported {tp} which the task was not given in that call")
        if offset > consumed[tp]:
            _support.fail(
                f"pre_commit reported offset {offset} for {tp}, beyond the {consumed[tp]} "
                "consumed so far; report at most the offsets passed in"
            )
        durable = [
            r.value
            for r in records
            if r.original_topic_partition == tp and r.original_kafka_offset < offset
        ]
        missing = list((Counter(map(repr, durable)) - Counter(map(repr, output))).elements())
        if missing:
            _support.fail(
                f"pre_commit reported {tp} durable up to offset {offset}, but {when} "
                f"{len(missing)} of those {len(durable)} records are not in the output "
                f"(e.g. {missing[:3]}); flush before reporting offsets"
            )


def _spread(
    records: Sequence[SinkRecord],
    partitions: Sequence[TopicPartition],
    next_offsets: dict[TopicPartition, int],
) -> list[SinkRecord]:
    """``records`` dealt round-robin onto ``partitions``, numbered on from ``next_offsets``."""
    out = []
    for i, record in enumerate(records):
        tp = partitions[i % len(partitions)]
        offset = next_offsets.get(tp, 0)
        next_offsets[tp] = offset + 1
        out.append(
            record.new_record(
                topic=tp.topic,
                kafka_partition=tp.partition,
                kafka_offset=offset,
                original_topic=tp.topic,
                original_kafka_partition=tp.partition,
                original_kafka_offset=offset,
            )
        )
    return out


def _next_offsets(records: list[SinkRecord]) -> dict[TopicPartition, int]:
    offsets: dict[TopicPartition, int] = {}
    for record in records:
        tp = record.original_topic_partition
        offsets[tp] = max(offsets.get(tp, 0), (record.original_kafka_offset or 0) + 1)
    return offsets
