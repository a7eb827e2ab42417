"""A task's pipeline, built from its spec the same way by every engine."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import ConnectError, PluginKind, SinkTask, SourceTask

from kconnect_runtime.plugins import PluginRegistry, new_task
from kconnect_runtime.status import Status
from kconnect_runtime.storage import OffsetStore

from ._chain import TransformChain, build_converters
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
) -> tuple[TaskRunner, SourcePipeline | SinkPipeline]:
    """The task's state and data path: plugin task, converters and transforms from ``spec``.

    The plugin task is isolated when its plugin lives on plugin.path. Raises ConfigError or
    ConnectError (naming the connector) when a plugin cannot be built or configured.
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
    return runner, SinkPipeline(
        runner,
        task,
        converters=converters,
        transforms=transforms,
        rewind_on_failed_pre_commit=rewind_on_failed_pre_commit,
    )
