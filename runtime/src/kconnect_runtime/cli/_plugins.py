"""``kconnect plugins install``, ``kconnect plugins list`` and ``kconnect plugins describe``.

``install`` makes a plugin.path location: a venv of its own, holding a copy of the very
kconnect-sdk the runtime speaks (package and dist-info copied from the runtime's
environment, so it works offline and the protocol's two ends always agree), into which
the plugin is then installed with that venv's installer (uv when available, else pip).
Because the SDK is already installed there, a plugin's ``kconnect-sdk>=…`` requirement
is satisfied by that copy instead of a download.

``describe`` prints one plugin's config definition and capabilities as JSON. For a plugin
on plugin.path they come from code running in its location's interpreter (a plugin host),
so the answer is that version's own, never the runtime environment's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kconnect_sdk import (
    ConfigError,
    ConfigKey,
    ConfigType,
    PluginKind,
)

from ._parser import command

if TYPE_CHECKING:
    from kconnect_runtime.plugins import PluginDesc, PluginRegistry

# The plugin registry and the isolation layer are imported by the commands that use them.

__all__ = [
    "add_plugin_commands",
    "describe_plugin",
    "plugins_table",
]


def plugins_table(plugins: Sequence[PluginDesc]) -> str:
    """Kind, name, version, location and status of each plugin, one per line."""
    rows = [
        (
            p.kind.value,
            p.name,
            p.version,
            p.location or "(runtime)",
            "available" if p.available else f"unavailable: {p.error}",
        )
        for p in plugins
    ]
    header = ("KIND", "NAME", "VERSION", "LOCATION", "STATUS")
    width = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    return "\n".join(
        f"{r[0]:<{width[0]}}  {r[1]:<{width[1]}}  {r[2]:<{width[2]}}  {r[3]:<{width[3]}}  {r[4]}"
        for r in [header, *rows]
    )


HIDDEN = "[hidden]"
# When a name is a plugin of several kinds (StringConverter is a converter and a header
# converter), describe picks the first kind here unless --kind says otherwise.
_DESCRIBE_ORDER = (
    PluginKind.SOURCE,
    PluginKind.SINK,
    PluginKind.CONVERTER,
    PluginKind.HEADER_CONVERTER,
    PluginKind.TRANSFORMATION,
    PluginKind.PREDICATE,
    PluginKind.CONFIG_PROVIDER,
    PluginKind.REST_EXTENSION,
    PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY,
)


def _plain_default(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_plain_default(v) for v in value]
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    return str(value)


def _key_from_definition(key: ConfigKey) -> dict[str, Any]:
    default = key.default if key.has_default else None
    if key.type is ConfigType.PASSWORD and default is not None:
        default = HIDDEN
    return {
        "name": key.name,
        "type": key.type.value.upper(),
        "required": not key.has_default,
        "default": _plain_default(default),
        "importance": key.importance.value.upper(),
        "documentation": key.documentation,
        "group": key.group,
    }


def _key_from_host(key: dict[str, Any]) -> dict[str, Any]:
    """A key as the plugin host sends it (its PASSWORD defaults already withheld)."""
    default = key.get("default") if key.get("has_default") else None
    if str(key.get("type")).lower() == ConfigType.PASSWORD.value and default is not None:
        default = HIDDEN
    return {
        "name": key["name"],
        "type": str(key["type"]).upper(),
        "required": not key.get("has_default", False),
        "default": default,
        "importance": str(key.get("importance", "")).upper(),
        "documentation": key.get("documentation", ""),
        "group": key.get("group"),
    }


def _pick(
    registry: PluginRegistry, name: str, kind: PluginKind | None, version: str | None
) -> PluginDesc:
    if kind is not None:
        return registry.resolve(name, kind, version=version)
    kinds = [k for k in _DESCRIBE_ORDER if registry.versions(name, k)]
    from kconnect_runtime.plugins import CONNECTOR_KINDS

    if kinds and kinds[0] in CONNECTOR_KINDS:
        kinds = [k for k in kinds if k in CONNECTOR_KINDS]
    # Nothing under that name: the registry's error lists close matches.
    return registry.resolve(name, *(kinds[:1] or _DESCRIBE_ORDER), version=version)


def describe_plugin(
    registry: PluginRegistry,
    name: str,
    *,
    kind: PluginKind | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """One plugin's identity, config definition and capabilities, as plain data.

    A plugin.path plugin is asked in a plugin host of its location: connectors through the
    host's ``config`` operation, other kinds through its ``describe`` operation.

    Raises:
        ConfigError: no such plugin, no installed version matching ``version``, or the
            plugin is unavailable (with the reason).
        ConnectError: the plugin failed while describing itself.
    """
    from kconnect_runtime.isolation import plugin_capabilities
    from kconnect_runtime.plugins import CONNECTOR_KINDS

    desc = _pick(registry, name, kind, version)
    caps: dict[str, Any] | None
    if not desc.available:
        raise ConfigError(f"plugin {desc.name!r} is unavailable: {desc.error}")
    if desc.location is None:
        instance = desc.load()()
        try:
            definition = instance.config()
            keys = [
                _key_from_definition(k) for k in definition.config_keys.values() if not k.internal
            ]
            prefixes = dict(definition.accepted_prefixes)
            running_version = str(instance.version())
            caps = plugin_capabilities(instance)
        finally:
            if desc.kind not in CONNECTOR_KINDS and hasattr(instance, "close"):
                with contextlib.suppress(Exception):
                    instance.close()
    else:
        keys, prefixes, running_version, caps = _describe_in_location(desc)
    return {
        "kind": desc.kind.value,
        "class": desc.name,
        "target": desc.target,
        "version": running_version,
        "distribution": desc.distribution,
        "distribution_version": desc.version,
        "location": desc.location,
        "capabilities": caps,
        "config": keys,
        "config_prefixes": prefixes,
    }


def _describe_in_location(
    desc: PluginDesc,
) -> tuple[list[dict[str, Any]], dict[str, str], str, dict[str, Any] | None]:
    from kconnect_runtime.isolation import PluginProcess

    assert desc.location is not None
    process = PluginProcess(
        desc.location, desc.kind.value, desc.target, label=f"{desc.name} {desc.version}", load=False
    )
    try:
        described = process.call("describe", {"kind": desc.kind.value, "target": desc.target})
    finally:
        process.close()
    keys = [_key_from_host(k) for k in described["config"] if not k.get("internal")]
    prefixes = {str(p): str(d) for p, d in (described.get("config_prefixes") or {}).items()}
    version = str(described.get("version", desc.version))
    return keys, prefixes, version, described.get("capabilities")


def cmd_plugins_describe(args: argparse.Namespace) -> int:
    from kconnect_runtime.plugins import PluginRegistry

    registry = PluginRegistry.discover(plugin_path=_plugin_path(args))
    kind = PluginKind(args.kind) if args.kind else None
    print(
        json.dumps(describe_plugin(registry, args.name, kind=kind, version=args.version), indent=2)
    )
    return 0


def _plugin_path(args: argparse.Namespace) -> list[str]:
    paths: list[str] = list(args.plugin_path or [])
    if args.worker_config:
        from kconnect_runtime.config import load_properties

        raw = load_properties(args.worker_config).get("plugin.path", "")
        paths += [p for p in raw.split(",") if p.strip()]
    return paths


def cmd_plugins_list(args: argparse.Namespace) -> int:
    from kconnect_runtime.plugins import PluginRegistry

    registry = PluginRegistry.discover(plugin_path=_plugin_path(args))
    print(plugins_table(registry.plugins()))
    return 0


def cmd_plugins_install(args: argparse.Namespace) -> int:
    from kconnect_runtime.plugins import install_plugin

    plugins = install_plugin(
        args.requirements,
        args.path,
        no_deps=args.no_deps,
        installer=args.installer,
        extra_args=args.installer_arg or [],
    )
    print(f"installed into plugin location {Path(args.path).absolute()}:")
    print(plugins_table(plugins))
    return 0 if all(p.available for p in plugins) else 1


def add_plugin_commands(subparsers: Any) -> None:
    """Add ``list``, ``describe`` and ``install`` to the ``kconnect plugins`` subparsers."""
    pl = command(
        subparsers,
        "list",
        "kind, name, version, location and status of every plugin",
        ["kconnect plugins list", "kconnect plugins list --worker-config worker.properties"],
    )
    pl.add_argument(
        "--plugin-path",
        action="append",
        metavar="DIR",
        help="a plugin.path entry to read as well (repeatable)",
    )
    pl.add_argument(
        "--worker-config", metavar="FILE", help="read plugin.path from this worker .properties"
    )
    pl.set_defaults(func=cmd_plugins_list)

    pd = command(
        subparsers,
        "describe",
        "a plugin's config definition and capabilities as JSON (asked in its own environment)",
        [
            "kconnect plugins describe JdbcSourceConnector",
            "kconnect plugins describe Cast --kind transformation --version '[1.0,2.0)'",
        ],
    )
    pd.add_argument("name", help="the plugin's name or alias, as a config names it")
    pd.add_argument(
        "--version",
        metavar="V",
        help="which installed version: exact, a range like [1.0,2.0) or >=1,<2 (default: newest)",
    )
    pd.add_argument(
        "--kind",
        choices=[k.value for k in _DESCRIBE_ORDER],
        help="the plugin's kind, when one name is a plugin of several kinds",
    )
    pd.add_argument(
        "--path",
        "--plugin-path",
        dest="plugin_path",
        action="append",
        metavar="DIR",
        help="a plugin.path entry to read as well (repeatable)",
    )
    pd.add_argument(
        "--worker-config", metavar="FILE", help="read plugin.path from this worker .properties"
    )
    pd.set_defaults(func=cmd_plugins_describe)

    pi = command(
        subparsers,
        "install",
        "install a plugin into a plugin.path location (its own venv)",
        [
            "kconnect plugins install kconnect-connector-jdbc --path /opt/kconnect/plugins/jdbc",
            "kconnect plugins install ./dist/my_connector-1.0-py3-none-any.whl --path plugins/mine",
        ],
    )
    pi.add_argument("requirements", nargs="+", help="requirement specifier, wheel or project dir")
    pi.add_argument(
        "--path", required=True, metavar="LOCATION", help="the location: <plugin.path>/<name>"
    )
    pi.add_argument("--no-deps", action="store_true", help="do not install dependencies")
    pi.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    pi.add_argument(
        "--installer-arg", action="append", metavar="ARG", help="passed on to the installer"
    )
    pi.set_defaults(func=cmd_plugins_install)
