"""Discovery from distribution metadata (entry points), in this environment and on plugin.path."""

from __future__ import annotations

import functools
import importlib.metadata as md
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from kconnect_sdk import (
    ENTRY_POINT_GROUPS,
    PluginKind,
)
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ._descriptor import PluginDesc

__all__ = [
    "KIND_BY_GROUP",
    "discover_location",
    "name_and_version",
    "plugin_locations",
    "runtime_sdk_version",
]

KIND_BY_GROUP = {group: kind for kind, group in ENTRY_POINT_GROUPS.items()}
_SDK_DIST = "kconnect-sdk"
_WORKER_PLUGIN_NAMES = {
    PluginKind.CONFIG_PROVIDER: "config providers",
    PluginKind.REST_EXTENSION: "REST extensions",
    PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY: "client config override policies",
}

log = logging.getLogger("kconnect.plugins")


def runtime_sdk_version() -> Version:
    try:
        return Version(md.version(_SDK_DIST))
    except (md.PackageNotFoundError, InvalidVersion):
        return Version("0")


def name_and_version(dist: md.Distribution) -> tuple[str, str]:
    """A distribution's name and version, read from its METADATA's header block only.

    ``dist.metadata`` parses the whole file as an e-mail message, long description
    included, and ``dist.version`` parses it again: at every worker start, for every
    plugin distribution. Both fields are single header lines; a file without them in its
    header block falls back to the full parse.
    """
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    name = version = None
    for line in text.split("\n\n", 1)[0].splitlines():
        key, sep, value = line.partition(":")
        if not sep or line[:1].isspace():
            continue
        key = key.strip().lower()
        if key == "name" and name is None:
            name = value.strip()
        elif key == "version" and version is None:
            version = value.strip()
    if not name or not version:
        meta = dist.metadata
        name, version = meta["Name"], meta["Version"]
    return name or "unknown", version


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
            venvs = [sub for sub in sorted(root.iterdir()) if _site_packages(sub)]
            out.extend(venvs)
            if not venvs:
                _warn_java_plugins(root)
    return out


@functools.cache
def _warn_java_plugins(root: Path) -> None:
    """Say once that a plugin.path entry holds Java plugins: a worker properties file
    carried over from Kafka Connect often names its jar folders, which load nothing here."""
    try:
        jars = next(root.glob("*.jar"), None) or next(root.glob("*/*.jar"), None)
    except OSError:
        return
    if jars is not None:
        log.warning(
            "plugin.path entry %s holds Java plugins (%s), which kconnect cannot load: "
            "connectors, converters and transforms come from Python packages installed in "
            "the worker's environment or in venvs on plugin.path (e.g. pip install "
            "kconnect-connector-mysql for Debezium's MySQL/MariaDB connector)",
            root,
            jars.name,
        )


def _site_packages(location: Path) -> list[Path]:
    found = sorted((location / "lib").glob("python3*/site-packages"))
    found += [p for p in [location / "Lib" / "site-packages"] if p.is_dir()]
    return found if (location / "pyvenv.cfg").exists() or found else []


def discover_location(location: Path, sdk: Version | None = None) -> list[PluginDesc]:
    """The plugins one plugin.path location provides, read from its dist-info metadata."""
    sdk = sdk or runtime_sdk_version()
    plugins: list[PluginDesc] = []
    site_dirs = [str(p) for p in _site_packages(location)]
    for dist in md.distributions(path=site_dirs):
        try:
            entry_points: Sequence[md.EntryPoint] = [
                ep for ep in dist.entry_points if ep.group in KIND_BY_GROUP
            ]
            if not entry_points:  # no plugin here: its METADATA is not worth parsing
                continue
            dist_name, version = name_and_version(dist)
            error = _sdk_mismatch(dist.requires or [], sdk)
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
            kind = KIND_BY_GROUP[ep.group]
            reason = error
            if reason is None and kind.worker_plugin:
                # Config providers resolve configs before any plugin process exists; REST
                # extensions and override policies sit in the worker's own request path.
                # All three serve the worker itself, so they live in its environment.
                reason = (
                    f"{_WORKER_PLUGIN_NAMES[kind]} do not run isolated from plugin.path; "
                    "install this package into the runtime's environment to use it"
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
