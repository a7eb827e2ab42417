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
import importlib
import importlib.metadata as md
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kconnect_sdk
from kconnect_sdk import (
    ENTRY_POINT_GROUPS,
    ConfigError,
    Converter,
    HeaderConverter,
    PluginKind,
    Predicate,
    SinkConnector,
    SourceConnector,
    Transformation,
)
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from kconnect_runtime.isolation import isolated_connector_class, isolated_plugin_class

__all__ = [
    "PluginDesc",
    "PluginKind",
    "PluginRegistry",
    "VersionRequirement",
    "discover_location",
    "plugin_locations",
    "version_key",
]


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


def version_key(key: str | None) -> str | None:
    """The KIP-891 version config that goes with a plugin class config.

    ``connector.class`` -> ``connector.plugin.version``, ``transforms.a.type`` ->
    ``transforms.a.plugin.version``, ``key.converter`` -> ``key.converter.plugin.version``.
    """
    if key is None:
        return None
    for suffix in (".class", ".type"):
        if key.endswith(suffix):
            return key[: -len(suffix)] + ".plugin.version"
    return key + ".plugin.version"


_RANGE_SET = re.compile(r"\s*([\[(])([^\[\]()]*)([\])])\s*(?:,|$)")
_SPECIFIER_OPERATORS = ("<", ">", "=", "!", "~")


def _as_version(text: str) -> Version | None:
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


@dataclass(frozen=True, slots=True)
class _Interval:
    lower: Version | None
    lower_inclusive: bool
    upper: Version | None
    upper_inclusive: bool

    def contains(self, version: Version) -> bool:
        if self.lower is not None and (
            version < self.lower or (version == self.lower and not self.lower_inclusive)
        ):
            return False
        return self.upper is None or not (
            version > self.upper or (version == self.upper and not self.upper_inclusive)
        )


class VersionRequirement:
    """Which versions a ``*.plugin.version`` config accepts.

    ``parse`` takes what Kafka's ``PluginUtils.connectorVersionRequirement`` takes (an exact
    version, which Kafka treats as the hard range ``[v]``, or Maven ranges) and PEP 440
    specifiers; ``None``, empty and ``latest`` mean no requirement (the newest).
    """

    def __init__(
        self,
        text: str,
        *,
        exact: str | None = None,
        intervals: Sequence[_Interval] = (),
        specifier: SpecifierSet | None = None,
    ) -> None:
        self.text = text
        self._exact = exact
        self._intervals = tuple(intervals)
        self._specifier = specifier

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"VersionRequirement({self.text!r})"

    @classmethod
    def parse(cls, spec: str | None, *, key: str | None = None) -> VersionRequirement | None:
        """The requirement ``spec`` states, or None for the newest.

        Raises:
            ConfigError: ``spec`` is neither a version, a Maven range nor a PEP 440
                specifier (named after ``key``).
        """
        text = (spec or "").strip()
        if not text or text.lower() == "latest":
            return None
        if text[0] in "[(":
            return cls(text, intervals=cls._maven_ranges(text, key))
        if text.startswith(_SPECIFIER_OPERATORS):
            try:
                return cls(text, specifier=SpecifierSet(text))
            except InvalidSpecifier:
                raise _bad_version(text, key, "not a valid PEP 440 version specifier") from None
        if "," in text or any(c.isspace() for c in text):
            raise _bad_version(text, key, "not a version, a version range or a specifier")
        return cls(text, exact=text)

    @classmethod
    def _maven_ranges(cls, text: str, key: str | None) -> list[_Interval]:
        intervals: list[_Interval] = []
        position = 0
        while position < len(text):
            match = _RANGE_SET.match(text, position)
            if match is None:
                raise _bad_version(text, key, "not a valid version range")
            opening, body, closing = match.groups()
            bounds = [b.strip() for b in body.split(",")]
            if len(bounds) == 1:
                # [1.0] is exactly 1.0; (1.0) is meaningless, as in Maven.
                version = _as_version(bounds[0])
                if opening != "[" or closing != "]" or version is None:
                    raise _bad_version(text, key, "a single version in a range must be [x]")
                intervals.append(_Interval(version, True, version, True))
            elif len(bounds) == 2:
                low = _as_version(bounds[0]) if bounds[0] else None
                high = _as_version(bounds[1]) if bounds[1] else None
                if (bounds[0] and low is None) or (bounds[1] and high is None):
                    raise _bad_version(text, key, "a bound is not a version")
                if low is not None and high is not None and low > high:
                    raise _bad_version(text, key, "the lower bound is above the upper bound")
                if (low is None and opening == "[") or (high is None and closing == "]"):
                    raise _bad_version(text, key, "an unbounded side must use ( or )")
                intervals.append(_Interval(low, opening == "[", high, closing == "]"))
            else:
                raise _bad_version(text, key, "a range has at most two bounds")
            position = match.end()
        return intervals

    def contains(self, version: str) -> bool:
        """Whether the installed ``version`` satisfies this requirement."""
        parsed = _as_version(version)
        if self._exact is not None:
            wanted = _as_version(self._exact)
            if parsed is not None and wanted is not None:
                return parsed == wanted  # 1.0 is 1.0.0, as in Maven and PEP 440
            return version.strip() == self._exact
        if parsed is None:
            return False
        if self._specifier is not None:
            return self._specifier.contains(parsed, prereleases=True)
        return any(interval.contains(parsed) for interval in self._intervals)


def _bad_version(text: str, key: str | None, why: str) -> ConfigError:
    return ConfigError(
        f"Invalid value {text} for configuration {key or 'plugin.version'}: {why}; use an exact "
        "version (1.2.0), a range ([1.0,2.0)), a PEP 440 specifier (>=1,<2) or latest",
        name=key,
        value=text,
    )


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
            dist_name = dist.metadata["Name"] or "unknown"
            for ep in dist.entry_points:
                kind = _KIND_BY_GROUP.get(ep.group)
                if kind is None or (kind, ep.name, ep.value) in seen:
                    continue
                seen.add((kind, ep.name, ep.value))
                plugins.append(PluginDesc(kind, ep.name, ep.value, dist_name, dist.version))
        sdk = _runtime_sdk_version()
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


_KIND_BY_GROUP = {group: kind for kind, group in ENTRY_POINT_GROUPS.items()}
_SDK_DIST = "kconnect-sdk"


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


def _runtime_sdk_version() -> Version:
    try:
        return Version(md.version(_SDK_DIST))
    except (md.PackageNotFoundError, InvalidVersion):
        return Version("0")


def plugin_locations(plugin_path: Iterable[str | Path] | str | None) -> list[Path]:
    """The venv directories a ``plugin.path`` value names, in order."""
    if plugin_path is None:
        return []
    entries: Iterable[str | Path] = (
        [p for p in plugin_path.split(",")] if isinstance(plugin_path, str) else plugin_path
    )
    out: list[Path] = []
    for entry in entries:
        text = str(entry).strip()
        if not text:
            continue
        root = Path(text).expanduser()
        if _site_packages(root):
            out.append(root)
        elif root.is_dir():
            out.extend(sub for sub in sorted(root.iterdir()) if _site_packages(sub))
    return out


def _site_packages(location: Path) -> list[Path]:
    found = sorted((location / "lib").glob("python3*/site-packages"))
    found += [p for p in [location / "Lib" / "site-packages"] if p.is_dir()]
    return found if (location / "pyvenv.cfg").exists() or found else []


def discover_location(location: Path, sdk: Version | None = None) -> list[PluginDesc]:
    """The plugins one plugin.path location provides, read from its dist-info metadata."""
    sdk = sdk or _runtime_sdk_version()
    plugins: list[PluginDesc] = []
    site_dirs = [str(p) for p in _site_packages(location)]
    for dist in md.distributions(path=site_dirs):
        try:
            dist_name = dist.metadata["Name"] or "unknown"
            entry_points: Sequence[md.EntryPoint] = [
                ep for ep in dist.entry_points if ep.group in _KIND_BY_GROUP
            ]
            if not entry_points:
                continue
            error = _sdk_mismatch(dist.requires or [], sdk)
            version = dist.version
        except Exception as exc:  # broken metadata makes just this distribution unavailable
            plugins.append(
                PluginDesc(
                    PluginKind.SOURCE,
                    f"{location.name}:broken-distribution",
                    "",
                    "unknown",
                    "unknown",
                    str(location),
                    f"unreadable metadata: {type(exc).__name__}: {exc}",
                )
            )
            continue
        for ep in entry_points:
            kind = _KIND_BY_GROUP[ep.group]
            reason = error
            if reason is None and kind is PluginKind.CONFIG_PROVIDER:
                # Config providers resolve worker and connector configs before any
                # plugin process exists, so they must live in the runtime's environment.
                reason = (
                    "config providers do not run isolated from plugin.path; install this "
                    "package into the runtime's environment to use it"
                )
            plugins.append(
                PluginDesc(kind, ep.name, ep.value, dist_name, version, str(location), reason)
            )
    return plugins


def _sdk_mismatch(requires: Iterable[str], sdk: Version) -> str | None:
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != _SDK_DIST:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        if req.specifier and not req.specifier.contains(sdk, prereleases=True):
            return (
                f"requires {_SDK_DIST}{req.specifier} but the runtime provides {_SDK_DIST} {sdk}; "
                f"upgrade the runtime or install a plugin version built for {_SDK_DIST} {sdk}"
            )
    return None
