"""One discovered plugin: its kind, names, distribution, version and location."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import kconnect_sdk
from kconnect_sdk import (
    ConfigError,
    Converter,
    HeaderConverter,
    PluginKind,
    Predicate,
    SinkConnector,
    SourceConnector,
    Transformation,
)
from packaging.version import InvalidVersion, Version

from kconnect_runtime.isolation import isolated_connector_class, isolated_plugin_class

__all__ = ["CONNECTOR_KINDS", "CONNECTOR_VERSION_CONFIG", "PluginDesc"]

_BASES: dict[PluginKind, str] = {
    PluginKind.SOURCE: SourceConnector.__name__,
    PluginKind.SINK: SinkConnector.__name__,
    PluginKind.CONVERTER: Converter.__name__,
    PluginKind.HEADER_CONVERTER: HeaderConverter.__name__,
    PluginKind.TRANSFORMATION: Transformation.__name__,
    PluginKind.PREDICATE: Predicate.__name__,
    PluginKind.CONFIG_PROVIDER: "ConfigProvider",
    PluginKind.REST_EXTENSION: "ConnectRestExtension",
    PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY: "ConnectorClientConfigOverridePolicy",
}
# As Kafka's aliases: a policy's is its name without this suffix ("All", "None", ...).
_SUFFIXES = (
    "Connector",
    "Converter",
    "Transformation",
    "Transform",
    "Predicate",
    "ConfigProvider",
    "ConnectorClientConfigOverridePolicy",
)
CONNECTOR_KINDS = (PluginKind.SOURCE, PluginKind.SINK)
# KIP-891: pins the connector plugin's version; absent or "latest" means the newest installed.
CONNECTOR_VERSION_CONFIG = "connector.plugin.version"


@dataclass(slots=True)
class PluginDesc:
    """One discovered plugin. ``load()`` imports it on first use."""

    kind: PluginKind
    name: str
    target: str
    distribution: str
    version: str
    location: str | None = None
    error: str | None = None
    _cls: type | None = field(default=None, repr=False)

    @property
    def isolated(self) -> bool:
        """Whether the plugin lives on plugin.path and so runs in its location's process."""
        return self.location is not None

    @property
    def available(self) -> bool:
        return self.error is None

    @property
    def simple_name(self) -> str:
        return _simple_name(self.name)

    def load(self) -> type[Any]:
        """Import the plugin class; raises ConfigError (and marks it unavailable) on failure."""
        if self._cls is not None:
            return self._cls
        if self.error is not None:
            raise ConfigError(f"plugin {self.name!r} is unavailable: {self.error}")
        if self.location is not None:
            # Never imported here: a proxy class forwards to the location's interpreter.
            if self.kind in CONNECTOR_KINDS:
                self._cls = isolated_connector_class(
                    sink=self.kind is PluginKind.SINK,
                    location=self.location,
                    target=self.target,
                    version=self.version,
                    name=self.name,
                )
            else:
                self._cls = isolated_plugin_class(
                    kind=self.kind.value,
                    location=self.location,
                    target=self.target,
                    version=self.version,
                    name=self.name,
                )
            return self._cls
        module_name, _, attr = self.target.partition(":")
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except Exception as exc:  # any import-time failure makes just this plugin unavailable
            self.error = f"import of {self.target} failed: {type(exc).__name__}: {exc}"
            raise ConfigError(f"plugin {self.name!r} is unavailable: {self.error}") from exc
        base: type = getattr(kconnect_sdk, _BASES[self.kind])
        if not (isinstance(obj, type) and issubclass(obj, base)):
            self.error = f"{self.target} is not a subclass of kconnect_sdk.{base.__name__}"
            raise ConfigError(f"plugin {self.name!r} is unavailable: {self.error}")
        self._cls = obj
        return obj

    def to_rest(self) -> dict[str, str]:
        """The plugin as ``GET /connector-plugins`` lists it."""
        return {"class": self.name, "type": self.kind.value, "version": self.version}

    def sort_version(self) -> Version:
        try:
            return Version(self.version)
        except InvalidVersion:
            return Version("0")


def _simple_name(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit(":", 1)[-1]


def _pruned_name(simple: str) -> str | None:
    for suffix in _SUFFIXES:
        if simple.endswith(suffix) and len(simple) > len(suffix):
            return simple[: -len(suffix)]
    return None
