"""The worker: runs connectors and their tasks (one task supervisor), as a herder decides."""

from __future__ import annotations

from ._client_overrides import OVERRIDE_POLICY_CONFIG, load_override_policy
from ._supervisor import StatusListener, SupervisedTask, TaskSupervisor
from ._validation import (
    HIDDEN,
    ConnectorValidation,
    config_infos,
    config_key_info,
    connector_redactor,
    format_value,
    plugin_config_keys,
    validate_connector,
)
from ._worker import ConnectorRuntime, PreparedConnector, Worker, plugin_version

__all__ = [
    "HIDDEN",
    "OVERRIDE_POLICY_CONFIG",
    "ConnectorRuntime",
    "ConnectorValidation",
    "PreparedConnector",
    "StatusListener",
    "SupervisedTask",
    "TaskSupervisor",
    "Worker",
    "config_infos",
    "config_key_info",
    "connector_redactor",
    "format_value",
    "load_override_policy",
    "plugin_config_keys",
    "plugin_version",
    "validate_connector",
]
