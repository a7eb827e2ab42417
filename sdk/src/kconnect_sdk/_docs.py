"""Generated config documentation: Markdown tables in plugin READMEs, kept current by tests."""

from __future__ import annotations

import importlib.metadata as md
import os
from collections.abc import Mapping
from pathlib import Path

from ._config import ConfigDef
from ._errors import ConfigError
from ._plugin_kinds import ENTRY_POINT_GROUPS

__all__ = ["check_config_tables", "plugin_config_defs", "update_config_tables"]

# Worker plug-ins have no README table: their keys are the worker's (config.providers.*, ...).
_PLUGIN_GROUPS = tuple(
    group for kind, group in ENTRY_POINT_GROUPS.items() if not kind.worker_plugin
)
_VENDORS = {"io.confluent.": " (Confluent)", "io.debezium.": " (Debezium)"}


def plugin_config_defs(distribution: str) -> dict[str, ConfigDef]:
    """The ConfigDef of every plugin a distribution declares, by table name.

    The name is the simple class name of the entry point without a ``$Key``/``$Value``
    variant (which share one config), marked ``(Confluent)``/``(Debezium)`` for those
    vendors' names. Imports the plugins.
    """
    out: dict[str, ConfigDef] = {}
    for ep in md.distribution(distribution).entry_points:
        if ep.group not in _PLUGIN_GROUPS:
            continue
        simple = ep.name.rsplit(".", 1)[-1].split("$")[0]
        vendor = next(
            (label for prefix, label in _VENDORS.items() if ep.name.startswith(prefix)), ""
        )
        name = simple + vendor
        if name not in out:
            out[name] = ep.load()().config()
    return out


_TABLE_START = "<!-- config-table: {name} -->"
_TABLE_END = "<!-- /config-table -->"


def update_config_tables(text: str, definitions: Mapping[str, ConfigDef]) -> str:
    """``text`` with each generated config table replaced by the current one.

    A table lives between ``<!-- config-table: NAME -->`` and ``<!-- /config-table -->``;
    ``definitions`` maps NAME to the ConfigDef it documents. A plugin's README test compares
    its text with this function's output, so a changed ConfigDef cannot leave stale docs.

    Raises:
        ConfigError: a name in ``definitions`` has no markers in ``text``.
    """
    out = text
    for name, definition in definitions.items():
        start_marker = _TABLE_START.format(name=name)
        start = out.find(start_marker)
        end = out.find(_TABLE_END, start)
        if start < 0 or end < 0:
            raise ConfigError(
                f"no generated config table for {name!r}: add the lines {start_marker!r} and "
                f"{_TABLE_END!r} where the table belongs"
            )
        body = "\n\n" + definition.to_markdown() + "\n"
        out = out[: start + len(start_marker)] + body + out[end:]
    return out


def check_config_tables(
    readme: str | os.PathLike[str], definitions: Mapping[str, ConfigDef]
) -> None:
    """Fail when ``readme``'s generated config tables differ from ``definitions``.

    With the environment variable ``KCONNECT_UPDATE_DOCS=1`` the file is rewritten instead.

    Raises:
        ConfigError: naming the file and the command that brings it up to date.
    """
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    current = update_config_tables(text, definitions)
    if current == text:
        return
    if os.environ.get("KCONNECT_UPDATE_DOCS") == "1":
        path.write_text(current, encoding="utf-8")
        return
    raise ConfigError(
        f"the config tables in {path} are out of date with the plugins' ConfigDefs; "
        "rerun the test with KCONNECT_UPDATE_DOCS=1 to regenerate them"
    )
