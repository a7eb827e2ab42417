"""Plugin discovery and name resolution.

Plugins are found through entry points, read from distribution metadata without importing
plugin code. A config may name a plugin by its entry-point name (for built-in equivalents,
the Apache Kafka Connect Java class name), by ``module:Class``, by the simple class name,
or by the simple name minus its type suffix (``FileStreamSource``) — as Kafka's aliases.
An alias two plugins share is ambiguous and refused with both names.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata as md
import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import kconnect_sdk
from kconnect_sdk import (
    ConfigError,
    Converter,
    HeaderConverter,
    Predicate,
    SinkConnector,
    SourceConnector,
    Transformation,
)

__all__ = ["PluginDesc", "PluginKind", "PluginRegistry"]


class PluginKind(StrEnum):
    """Plugin kinds, named as Kafka Connect's REST API names them."""

    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"
    CONFIG_PROVIDER = "config_provider"

    @property
    def group(self) -> str:
        return _GROUPS[self]


_GROUPS = {
    PluginKind.SOURCE: "kconnect.source_connectors",
    PluginKind.SINK: "kconnect.sink_connectors",
    PluginKind.CONVERTER: "kconnect.converters",
    PluginKind.HEADER_CONVERTER: "kconnect.header_converters",
    PluginKind.TRANSFORMATION: "kconnect.transforms",
    PluginKind.PREDICATE: "kconnect.predicates",
    PluginKind.CONFIG_PROVIDER: "kconnect.config_providers",
}
_BASES: dict[PluginKind, str] = {
    PluginKind.SOURCE: SourceConnector.__name__,
    PluginKind.SINK: SinkConnector.__name__,
    PluginKind.CONVERTER: Converter.__name__,
    PluginKind.HEADER_CONVERTER: HeaderConverter.__name__,
    PluginKind.TRANSFORMATION: Transformation.__name__,
    PluginKind.PREDICATE: Predicate.__name__,
    PluginKind.CONFIG_PROVIDER: "ConfigProvider",
}
_SUFFIXES = ("Connector", "Converter", "Transformation", "Transform", "Predicate", "ConfigProvider")
CONNECTOR_KINDS = (PluginKind.SOURCE, PluginKind.SINK)


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


def _simple_name(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit(":", 1)[-1]


def _pruned_name(simple: str) -> str | None:
    for suffix in _SUFFIXES:
        if simple.endswith(suffix) and len(simple) > len(suffix):
            return simple[: -len(suffix)]
    return None


class PluginRegistry:
    """Every plugin visible to this worker, indexed by kind and alias."""

    def __init__(self, plugins: list[PluginDesc]) -> None:
        self._plugins = plugins
        self._lock = threading.Lock()
        self._aliases: dict[PluginKind, dict[str, list[PluginDesc]]] = {k: {} for k in PluginKind}
        for desc in plugins:
            table = self._aliases[desc.kind]
            names = {desc.name, desc.target, desc.simple_name}
            pruned = _pruned_name(desc.simple_name)
            if pruned:
                names.add(pruned)
            for alias in names:
                table.setdefault(alias, []).append(desc)

    @classmethod
    def discover(cls) -> PluginRegistry:
        """Read the entry points of every installed distribution (imports no plugin code)."""
        plugins: list[PluginDesc] = []
        seen: set[tuple[PluginKind, str, str]] = set()
        for dist in md.distributions():
            dist_name = dist.metadata["Name"] or "unknown"
            for ep in dist.entry_points:
                kind = _KIND_BY_GROUP.get(ep.group)
                if kind is None or (kind, ep.name, ep.value) in seen:
                    continue
                seen.add((kind, ep.name, ep.value))
                plugins.append(PluginDesc(kind, ep.name, ep.value, dist_name, dist.version))
        plugins.sort(key=lambda d: (d.kind.value, d.name))
        return cls(plugins)

    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return [p for p in self._plugins if not kinds or p.kind in kinds]

    def resolve(self, name: str, *kinds: PluginKind, key: str | None = None) -> PluginDesc:
        """The plugin ``name`` refers to among ``kinds``.

        Raises:
            ConfigError: unknown (listing close matches) or ambiguous (naming both).
        """
        name = name.strip()
        found: list[PluginDesc] = []
        for kind in kinds:
            for desc in self._aliases[kind].get(name, []):
                if desc not in found:
                    found.append(desc)
        where = f"config {key!r}: " if key else ""
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            both = ", ".join(f"{d.name} ({d.distribution} {d.version})" for d in found)
            raise ConfigError(
                f"{where}{name!r} is ambiguous; it could be any of: {both}. Use the full name.",
                name=key,
                value=name,
            )
        if ":" in name:
            # module:Class outside any entry point (e.g. a class in the user's own module).
            return self._adhoc(name, kinds, key)
        candidates = sorted({a for kind in kinds for a in self._aliases[kind]})
        close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
        kind_names = " or ".join(k.value for k in kinds)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise ConfigError(
            f"{where}no {kind_names} plugin named {name!r} is installed.{hint} "
            f"Install the package that provides it (see `kconnect plugins list`).",
            name=key,
            value=name,
        )

    def _adhoc(self, target: str, kinds: tuple[PluginKind, ...], key: str | None) -> PluginDesc:
        errors = []
        for kind in kinds:
            desc = PluginDesc(kind, target, target, "unknown", "unknown")
            try:
                desc.load()
            except ConfigError as exc:
                errors.append(str(exc))
                continue
            with self._lock:
                self._plugins.append(desc)
                self._aliases[kind][target] = [desc]
            return desc
        where = f"config {key!r}: " if key else ""
        raise ConfigError(f"{where}{errors[-1] if errors else target}", name=key, value=target)

    def load(self, name: str, *kinds: PluginKind, key: str | None = None) -> type[Any]:
        return self.resolve(name, *kinds, key=key).load()


_KIND_BY_GROUP = {group: kind for kind, group in _GROUPS.items()}
