"""A task's pipeline, built from its spec the same way by every engine."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import ConnectError, PluginKind, SinkTask, SourceTask

from kconnect_runtime.metrics import PluginMetricsRegistry
from kconnect_runtime.plugins import PluginRegistry, new_task
from kconnect_runtime.status import Status
from kconnect_runtime.storage import OffsetStore

from ._chain import Converters, TransformChain, build_converters
from ._exactly_once import ExactlyOnceSourcePipeline, exactly_once_enabled
from ._runner import TaskRunner
from ._sink import SinkPipeline
from ._source import SourcePipeline
from ._spec import TaskSpec

__all__ = ["build_pipeline"]


def build_pipeline(
    spec: TaskSpec,
    status: Status,
    *,
    registry: PluginRegistry,
    offset_store: OffsetStore,
    known_topics: set[str] | None = None,
    rewind_on_failed_pre_commit: bool = True,
    plugin_metrics: PluginMetricsRegistry | None = None,
) -> tuple[TaskRunner, SourcePipeline | SinkPipeline]:
    """The task's state and data path: plugin task, converters and transforms from ``spec``.

    The plugin task is isolated when its plugin lives on plugin.path. Raises ConfigError or
    ConnectError (naming the connector) when a plugin cannot be built or configured.
    ``plugin_metrics`` is the worker's registry the plugins' own metrics are exported from
    (none: they are kept but not exported, as on a Spark executor).
    """
    connector = spec.id.connector
    converters = build_converters(registry, spec.worker_props, spec.connector_config)
    try:
        task = new_task(
            spec.plugin, connector, spec.id.task, spec.connector_config, spec.task_class
        )
        if spec.kind is PluginKind.SOURCE:
            if not isinstance(task, SourceTask):
                raise ConnectError(
                    f"connector {connector!r}: task_class() of a source connector must be a "
                    "SourceTask"
                )
        elif not isinstance(task, SinkTask):
            raise ConnectError(
                f"connector {connector!r}: task_class() of a sink connector must be a SinkTask"
            )
        transforms: TransformChain[Any] = TransformChain.from_config(
            registry, spec.connector_config
        )
    except BaseException:
        converters.close()
        raise
    if isinstance(task, SourceTask):
        runner = TaskRunner(spec, status, task, stop_plugin_on_request=True)
        _monitor(runner, plugin_metrics, converters, transforms)
        # -- exactly-once sources (KIP-618) ---------------------------------------------
        if exactly_once_enabled(spec.worker_props):
            return runner, ExactlyOnceSourcePipeline(
                runner,
                task,
                converters=converters,
                transforms=transforms,
                offset_store=offset_store,
                known_topics=known_topics,
                group_id=str(spec.worker_props["group.id"]),
            )
        return runner, SourcePipeline(
            runner,
            task,
            converters=converters,
            transforms=transforms,
            offset_store=offset_store,
            known_topics=known_topics,
        )
    runner = TaskRunner(spec, status, task, stop_plugin_on_request=False)
    _monitor(runner, plugin_metrics, converters, transforms)
    return runner, SinkPipeline(
        runner,
        task,
        converters=converters,
        transforms=transforms,
        rewind_on_failed_pre_commit=rewind_on_failed_pre_commit,
    )


def _monitor(
    runner: TaskRunner,
    registry: PluginMetricsRegistry | None,
    converters: Converters,
    transforms: TransformChain[Any],
) -> None:
    """Give the task and each Monitorable plugin of its pipeline its metrics group.

    Tagged as Kafka's ``ConnectMetrics`` tags them; the groups close with the pipeline.
    A plugin whose ``with_plugin_metrics`` raises fails the task's start, naming it.
    """
    registry = registry or PluginMetricsRegistry()
    task_tags = {"connector": runner.id.connector, "task": str(runner.id.task)}
    runner.plugin_metrics = registry.group(**task_tags)
    plugins: list[tuple[str, str, object]] = [
        ("converter", "key", converters.key),
        ("converter", "value", converters.value),
        ("converter", "header", converters.header),
        *transforms.plugins(),
    ]
    try:
        for tag, alias, plugin in plugins:
            group = registry.monitor(plugin, **task_tags, **{tag: alias})
            if group is not None:
                runner.plugin_metric_groups.append(group)
    except Exception as exc:
        runner.close_plugin_metrics()
        converters.close()
        transforms.close()
        raise ConnectError(
            f"connector {runner.id.connector!r} task {runner.id.task}: "
            f"with_plugin_metrics() of {type(plugin).__name__} ({tag} {alias}) raised: {exc}"
        ) from exc
