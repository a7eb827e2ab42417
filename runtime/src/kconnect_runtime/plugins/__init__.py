"""Plugins: discovery, descriptors, versions, name resolution and instantiation.

:class:`PluginRegistry` turns a config's class name into a class (Kafka's ``Plugins``): the
plugin's own, or, for a plugin on ``plugin.path``, a :mod:`kconnect_runtime.isolation`
proxy. ``_discovery`` reads entry points from distribution metadata without importing plugin
code, ``_descriptor`` is one found plugin, ``_versions`` KIP-891's version requirements,
``_tasks`` a connector's task object and ``_installer`` ``kconnect plugins install``.
"""

from __future__ import annotations

from kconnect_sdk import PluginKind

from ._catalogue import CataloguePackage, package_for
from ._descriptor import CONNECTOR_KINDS, CONNECTOR_VERSION_CONFIG, PluginDesc
from ._discovery import discover_location, plugin_locations
from ._installer import install_plugin
from ._registry import PluginRegistry
from ._tasks import new_task
from ._versions import VersionRequirement, version_key

__all__ = [
    "CONNECTOR_KINDS",
    "CONNECTOR_VERSION_CONFIG",
    "CataloguePackage",
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "VersionRequirement",
    "discover_location",
    "install_plugin",
    "new_task",
    "package_for",
    "plugin_locations",
    "version_key",
]
