"""Plugin discovery and name resolution.

Plugins are found through entry points, read from distribution metadata without importing
plugin code. A config may name a plugin by its entry-point name (for built-in equivalents,
the Apache Kafka Connect Java class name), by ``module:Class``, by the simple class name,
or by the simple name minus its type suffix (``FileStreamSource``) — as Kafka's aliases.
An alias two plugins share is ambiguous and refused with both names.

Besides the runtime's own environment, every location on ``plugin.path`` is read: a
location is a venv made by ``kconnect plugins install``; its plugins are listed with
``location`` set and, when used, run in a subprocess of that venv (see ``_isolation``).
A plugin whose ``Requires-Dist`` on kconnect-sdk the runtime's SDK cannot satisfy is
listed as unavailable with the reason. When one plugin name is found more than once
(two locations, or a location and the runtime's environment), all are kept and the bare
name resolves to the newest version, as KIP-891 does without ``connector.plugin.version``;
on equal versions a plugin.path location wins over the runtime's environment, and an
earlier location wins over a later one. A ``*.plugin.version`` config (KIP-891) narrows
the choice to the installed versions it accepts: an exact version (``1.2.0``), a Maven
range as Kafka takes it (``[1.0,2.0)``, ``(,1.5]``, ``[1.0]``, several joined by commas),
a PEP 440 specifier (``>=1,<2``), or ``latest`` (the default).
"""

from __future__ import annotations

import difflib
import importlib.metadata as md
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConfigError,
    PluginKind,
)
from packaging.version import Version

from ._catalogue import package_for
from ._descriptor import PluginDesc, _pruned_name
from ._discovery import (
    KIND_BY_GROUP,
    discover_location,
    name_and_version,
    plugin_locations,
    runtime_sdk_version,
)
from ._versions import VersionRequirement, _as_version, version_key

__all__ = ["PluginRegistry"]


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
    def discover(cls, plugin_path: Iterable[str | Path] | str | None = None) -> PluginRegistry:
        """Read the entry points of every installed distribution (imports no plugin code).

        Args:
            plugin_path: ``plugin.path`` locations (a list, or the comma-separated worker
                property). A location is a venv directory; a directory holding no venv
                but venv subdirectories contributes each of them, as Kafka Connect treats
                a plugin.path entry as a folder of plugin folders.
        """
        plugins: list[PluginDesc] = []
        seen: set[tuple[PluginKind, str, str]] = set()
        for dist in md.distributions():
            # entry_points.txt first: most installed distributions (pandas, pyspark …) have
            # no plugin, and their METADATA is not worth reading.
            entry_points = [ep for ep in dist.entry_points if ep.group in KIND_BY_GROUP]
            if not entry_points:
                continue
            dist_name, version = name_and_version(dist)
            for ep in entry_points:
                kind = KIND_BY_GROUP[ep.group]
                if (kind, ep.name, ep.value) in seen:
                    continue
                seen.add((kind, ep.name, ep.value))
                plugins.append(PluginDesc(kind, ep.name, ep.value, dist_name, version))
        sdk = runtime_sdk_version()
        for location in plugin_locations(plugin_path):
            plugins.extend(discover_location(location, sdk))
        plugins.sort(key=lambda d: (d.kind.value, d.name, d.location or ""))
        return cls(plugins)

    def plugins(self, *kinds: PluginKind) -> list[PluginDesc]:
        return [p for p in self._plugins if not kinds or p.kind in kinds]

    def resolve(
        self,
        name: str,
        *kinds: PluginKind,
        key: str | None = None,
        version: str | VersionRequirement | None = None,
        version_config: str | None = None,
    ) -> PluginDesc:
        """The plugin ``name`` refers to among ``kinds``, in the newest version ``version`` allows.

        Args:
            name: the plugin's name or alias, as a config gives it.
            kinds: the kinds it may be.
            key: the config that named it, for error messages.
            version: a ``*.plugin.version`` value (see :class:`VersionRequirement`); None or
                ``latest`` for the newest installed version.
            version_config: the config ``version`` came from (default: derived from ``key``).

        Raises:
            ConfigError: unknown (listing close matches), ambiguous (naming both), or no
                installed version satisfies ``version`` (naming the installed versions;
                ``name`` is then the version config).
        """
        name = name.strip()
        found: list[PluginDesc] = []
        for kind in kinds:
            for desc in self._aliases[kind].get(name, []):
                if desc not in found:
                    found.append(desc)
        where = f"config {key!r}: " if key else ""
        vkey = version_config or version_key(key)
        requirement = (
            version
            if isinstance(version, VersionRequirement)
            else VersionRequirement.parse(version, key=vkey)
        )
        if requirement is not None and found:
            matching = [d for d in found if requirement.contains(d.version)]
            if not matching:
                raise self._no_such_version(name, found, requirement, vkey)
            found = matching
        if len(found) > 1:
            found = _newest_of_each_name(found)
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
            desc = self._adhoc(name, kinds, key)
            if requirement is not None and not requirement.contains(desc.version):
                raise self._no_such_version(name, [desc], requirement, vkey)
            return desc
        kind_names = " or ".join(k.value for k in kinds)
        package = package_for(name)
        if package is not None:
            raise ConfigError(
                f"{where}no {kind_names} plugin named {name!r} is installed; it is in "
                f"{package.distribution}: {package.install_line()}.",
                name=key,
                value=name,
            )
        close = _close_names(name, {a for kind in kinds for a in self._aliases[kind]})
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise ConfigError(
            f"{where}no {kind_names} plugin named {name!r} is installed.{hint} "
            f"Install the package that provides it (see `kconnect plugins list`).",
            name=key,
            value=name,
        )

    def versions(self, name: str, *kinds: PluginKind) -> list[str]:
        """The installed versions of the plugin(s) ``name`` refers to, oldest first."""
        found = {d.version: d for kind in kinds for d in self._aliases[kind].get(name.strip(), [])}
        return [v for v, _ in sorted(found.items(), key=lambda item: item[1].sort_version())]

    def _no_such_version(
        self,
        name: str,
        found: list[PluginDesc],
        requirement: VersionRequirement,
        vkey: str | None,
    ) -> ConfigError:
        installed = sorted({d.version for d in found}, key=lambda v: _as_version(v) or Version("0"))
        plugin = found[0].name if len({d.name for d in found}) == 1 else name
        where = f"config {vkey!r}: " if vkey else ""
        return ConfigError(
            f"{where}plugin {plugin!r} not found that matches the version range {requirement}, "
            f"available versions: {', '.join(installed)}. Pin one of those, or install the "
            "version you need into a plugin.path location of its own "
            "(`kconnect plugins install <package>==<version> --path <plugin.path>/<name>`).",
            name=vkey,
            value=str(requirement),
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

    def load(
        self,
        name: str,
        *kinds: PluginKind,
        key: str | None = None,
        version: str | VersionRequirement | None = None,
    ) -> type[Any]:
        return self.resolve(name, *kinds, key=key, version=version).load()


def _newest_of_each_name(found: list[PluginDesc]) -> list[PluginDesc]:
    """Of several plugins with one name (in different places), the newest available one.

    Different names sharing an alias stay ambiguous; only copies of one plugin collapse.
    """
    by_name: dict[tuple[PluginKind, str], list[PluginDesc]] = {}
    for desc in found:
        by_name.setdefault((desc.kind, desc.name), []).append(desc)
    out = []
    for copies in by_name.values():
        usable = [d for d in copies if d.available] or copies
        # max() keeps the first of equals: locations sort before the runtime's environment.
        ordered = sorted(usable, key=lambda d: d.location is None)
        out.append(max(ordered, key=lambda d: d.sort_version()))
    return out


def _close_names(name: str, candidates: Iterable[str]) -> list[str]:
    """Up to three installed names ``name`` may be a misspelling of.

    Compared by their class names, so that a Java name is not "close" to another only
    through the package they share (``org.apache.kafka.connect.json.JsonConverter`` is no
    misspelling of ``org.apache.kafka.connect.storage.StringConverter``).
    """
    simple = name.rsplit(".", 1)[-1].lower()
    scored = []
    for candidate in candidates:
        ratio = difflib.SequenceMatcher(None, simple, candidate.rsplit(".", 1)[-1].lower()).ratio()
        if ratio >= 0.8:
            whole = difflib.SequenceMatcher(None, name, candidate).ratio()
            scored.append((-ratio, -whole, candidate))
    return [candidate for *_, candidate in sorted(scored)[:3]]
