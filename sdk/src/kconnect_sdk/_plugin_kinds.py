"""The kinds of plugin, and the entry-point group that declares each: one definition for all.

A plugin distribution declares its classes in these groups (``pyproject.toml``)::

    [project.entry-points."kconnect.sink_connectors"]
    "io.example.MySinkConnector" = "my_package:MySinkConnector"

The runtime, the testkit and the README tooling read the same table, so a group name is
spelled in exactly one place.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ENTRY_POINT_GROUPS", "PluginKind"]


class PluginKind(StrEnum):
    """Plugin kinds, valued as Kafka Connect's REST API names them (``"source"``, ``"sink"``, ...)."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"
    CONFIG_PROVIDER = "config_provider"
    REST_EXTENSION = "rest_extension"
    CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY = "connector_client_config_override_policy"

    @property
    def worker_plugin(self) -> bool:
        """Whether plugins of this kind serve the worker itself, not a connector's pipeline.

        Config providers, REST extensions and override policies: configured in the worker
        config, loaded once in the worker's process, never listed by
        ``GET /connector-plugins``.
        """
        return self in _WORKER_PLUGIN_KINDS

    @property
    def group(self) -> str:
        """The entry-point group that declares plugins of this kind."""
        return ENTRY_POINT_GROUPS[self]


ENTRY_POINT_GROUPS: dict[PluginKind, str] = {
    PluginKind.SOURCE: "kconnect.source_connectors",
    PluginKind.SINK: "kconnect.sink_connectors",
    PluginKind.CONVERTER: "kconnect.converters",
    PluginKind.HEADER_CONVERTER: "kconnect.header_converters",
    PluginKind.TRANSFORMATION: "kconnect.transforms",
    PluginKind.PREDICATE: "kconnect.predicates",
    PluginKind.CONFIG_PROVIDER: "kconnect.config_providers",
    PluginKind.REST_EXTENSION: "kconnect.rest_extensions",
    PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY: (
        "kconnect.connector_client_config_override_policies"
    ),
}

_WORKER_PLUGIN_KINDS = frozenset(
    {
        PluginKind.CONFIG_PROVIDER,
        PluginKind.REST_EXTENSION,
        PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY,
    }
)
