"""Scenarios from the example configs a plugin offers (used by ``kconnect-testkit verify``).

The protocol needs nothing from the testkit, so a plugin that depends only on the SDK can
offer it. On the plugin class (all optional):

- ``example_configs()`` (classmethod) returns a list of dicts, each with ``"config"`` (the
  plugin's config; string values may contain ``{tmp_path}``) and optionally ``"id"``,
  ``"expected_records"`` (sources), ``"deterministic"`` (sources, default True),
  ``"bad_config"`` (transforms, predicates), ``"corpus"`` (converters: corpus case names)
  and ``"bad_values"`` (sinks: values the sink must hand to the errant record reporter).
- ``read_example_output(config)`` (classmethod, sinks) returns the values an example
  config's sink made durable, in order.
- ``conformance_waivers`` (class attribute): ``{"test_name": "reason"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect_runtime import PluginKind

from . import _support
from ._doubles import RecordFactory
from ._scenario import Scenario, render

__all__ = ["example_scenarios", "example_waivers"]


def _plugin_class(name: str, kind: PluginKind) -> type[Any]:
    return _support.registry().resolve(name, kind).load()


def example_waivers(name: str, kind: PluginKind) -> dict[str, str]:
    """The ``conformance_waivers`` the plugin declares, or none."""
    waivers = getattr(_plugin_class(name, kind), "conformance_waivers", None)
    return dict(waivers) if isinstance(waivers, Mapping) else {}


def example_scenarios(name: str, kind: PluginKind) -> list[Scenario]:
    """One scenario per entry of the plugin's ``example_configs()`` (none if it has none)."""
    cls = _plugin_class(name, kind)
    offer = getattr(cls, "example_configs", None)
    if offer is None:
        return []
    scenarios = []
    for i, entry in enumerate(offer()):
        config = dict(entry.get("config", {}))
        hooks: dict[str, Any] = {}
        if kind is PluginKind.SINK and hasattr(cls, "read_example_output"):
            hooks["read_output"] = _reader(cls, config)
        if kind is PluginKind.SINK and entry.get("bad_values"):
            hooks["bad_records"] = _bad_records(list(entry["bad_values"]))
        corpus = entry.get("corpus")
        scenarios.append(
            Scenario(
                id=str(entry.get("id", f"example-{i}")),
                config=config,
                expected_records=entry.get("expected_records"),
                deterministic=bool(entry.get("deterministic", True)),
                bad_config=entry.get("bad_config"),
                corpus=tuple(corpus) if corpus is not None else None,
                **hooks,
            )
        )
    return scenarios


def _reader(cls: type[Any], config: Mapping[str, Any]) -> Any:
    def read_output(tmp_path: Path) -> list[Any]:
        return list(cls.read_example_output(render(config, tmp_path)))

    return read_output


def _bad_records(values: list[Any]) -> Any:
    def bad_records() -> list[Any]:
        return RecordFactory().sink_records(
            len(values), start=1000, value=lambda i: values[i - 1000], value_schema=None
        )

    return bad_records
