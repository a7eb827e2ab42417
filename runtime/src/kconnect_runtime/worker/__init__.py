"""The control plane: connectors, their task configs, tasks, states, restarts and offsets."""

from __future__ import annotations

from ._api import TaskMetricsView, WorkerApi
from ._validation import (
    HIDDEN,
    ConnectorValidation,
    config_infos,
    config_key_info,
    format_value,
    plugin_config_keys,
    validate_connector,
)
from ._worker import ConnectorRuntime, Worker, plugin_version

__all__ = [
    "HIDDEN",
    "ConnectorRuntime",
    "ConnectorValidation",
    "TaskMetricsView",
    "Worker",
    "WorkerApi",
    "config_infos",
    "config_key_info",
    "format_value",
    "plugin_config_keys",
    "plugin_version",
    "validate_connector",
]
