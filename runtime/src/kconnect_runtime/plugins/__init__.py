"""Plugins: discovery, descriptors, versions, name resolution and instantiation.

:class:`PluginRegistry` turns a config's class name into a class: the plugin's own, or, for a
plugin on ``plugin.path``, an :mod:`kconnect_runtime.isolation` proxy.
"""

from __future__ import annotations

from kconnect_sdk import PluginKind

from ._installer import install_plugin
from ._registry import (
    CONNECTOR_KINDS,
    CONNECTOR_VERSION_CONFIG,
    PluginDesc,
    PluginRegistry,
    VersionRequirement,
    discover_location,
    plugin_locations,
    version_key,
)
from ._tasks import new_task

__all__ = [
    "CONNECTOR_KINDS",
    "CONNECTOR_VERSION_CONFIG",
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "VersionRequirement",
    "discover_location",
    "install_plugin",
    "new_task",
    "plugin_locations",
    "version_key",
]
