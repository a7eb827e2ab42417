"""A connector's task object, in this process or behind an isolation proxy."""

from __future__ import annotations

from collections.abc import Mapping

from kconnect_sdk import Task

from kconnect_runtime.isolation import IsolatedSinkTask, IsolatedSourceTask, call_timeout_s

from ._descriptor import PluginDesc

__all__ = ["new_task"]


def new_task(
    plugin: PluginDesc,
    connector: str,
    index: int,
    connector_config: Mapping[str, str],
    task_class: type[Task] | None = None,
) -> Task:
    """A connector's task object: an isolated proxy when the plugin lives on plugin.path.

    ``task_class`` is the started connector's ``task_class()`` when the caller has one; else
    the plugin's connector class is instantiated to ask it.
    """
    if plugin.location is not None:
        isolated = IsolatedSinkTask if plugin.kind.value == "sink" else IsolatedSourceTask
        return isolated(
            plugin.location,
            plugin.target,
            timeout_s=call_timeout_s(connector_config),
            label=f"{connector}-{index} ({plugin.name})",
        )
    return (task_class or plugin.load()().task_class())()
