"""Plugin isolation: plugins on ``plugin.path`` run in a subprocess of their location's venv.

The proxies here are ordinary SDK plugins that forward every call to a plugin host
(:mod:`kconnect_runtime.isolation.host`, run with the location's interpreter) over a
versioned, batched protocol. Tools such as kconnect-testkit drive plugins through these.
"""

from __future__ import annotations

from ._process import (
    CALL_TIMEOUT_CONFIG,
    HOST_SCRIPT,
    PluginProcess,
    call_timeout_s,
    location_python,
)
from ._proxies import (
    IsolatedSinkTask,
    IsolatedSourceTask,
    close_idle_hosts,
    is_isolated_connector,
    isolated_connector_class,
    isolated_plugin_class,
)
from .host import pack_records, plugin_capabilities, unpack_records

__all__ = [
    "CALL_TIMEOUT_CONFIG",
    "HOST_SCRIPT",
    "IsolatedSinkTask",
    "IsolatedSourceTask",
    "PluginProcess",
    "call_timeout_s",
    "close_idle_hosts",
    "is_isolated_connector",
    "isolated_connector_class",
    "isolated_plugin_class",
    "location_python",
    "pack_records",
    "plugin_capabilities",
    "unpack_records",
]
