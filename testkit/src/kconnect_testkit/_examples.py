"""Scenarios from the example configs a plugin offers (used by ``kconnect-testkit verify``).

The protocol needs nothing from the testkit, so a plugin that depends only on the SDK can
offer it. On the plugin class (all optional):

- ``example_configs()`` (classmethod) returns a list of dicts, each with ``"config"`` (the
  plugin's config; string values may contain ``{tmp_path}``) and optionally ``"id"``,
  ``"expected_records"`` (sources: for the whole connector, all tasks of the config's
  ``tasks.max`` together), ``"deterministic"`` (sources, default True),
  ``"bad_config"`` (transforms, predicates), ``"corpus"`` (converters: corpus case names)
  and ``"bad_values"`` (sinks: values the sink must hand to the errant record reporter).
- ``read_example_output(config)`` (classmethod, sinks) returns the values an example
  config's sink made durable, in order.
- ``conformance_waivers`` (class attribute): ``{"test_name": "reason"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect_sdk import PluginKind
from kconnect_sdk.plain import value_from_plain

from . import _isolated, _support
from ._doubles import RecordFactory
from ._scenario import Scenario, render

__all__ = ["example_scenarios", "example_waivers"]


def _plugin_class(name: str, kind: PluginKind) -> type[Any]:
    return _support.registry().resolve(name, kind).load()


class _Offer:
    """What a plugin offers for verification, read in-process or in its plugin location."""

    def __init__(self, name: str, kind: PluginKind, location: str | None) -> None:
        self.kind = kind
        if location is None:
            cls = _plugin_class(name, kind)
            offer = getattr(cls, "example_configs", None)
            self.examples: list[Mapping[str, Any]] | None = (
                list(offer()) if offer is not None else None
            )
            waivers = getattr(cls, "conformance_waivers", None)
            self.waivers = dict(waivers) if isinstance(waivers, Mapping) else {}
            self.reader: Any = (
                cls.read_example_output if hasattr(cls, "read_example_output") else None
            )
            return
        # Isolated: the plugin is never imported here; its location's interpreter answers.
        root = Path(location).absolute()
        try:
            registry = _isolated.Isolation(root.parent).registry(root)
            target = registry.resolve(name, kind).target
            probe = _isolated.run_in_location(
                root, _isolated.PLUGIN_PROBE, target, _SDK_BASE_NAMES[kind]
            )
        except Exception:
            # The package checks report why the plugin does not load; offer no scenarios.
            probe = {}
            target = ""
        examples = probe.get("examples")
        for entry in examples or ():
            if "bad_values" in entry:
                entry["bad_values"] = [value_from_plain(v) for v in entry["bad_values"]]
        self.examples = list(examples) if examples is not None else None
        self.waivers = dict(probe.get("waivers") or {})
        self.reader = _location_reader(root, target) if probe.get("reads_output") else None


_SDK_BASE_NAMES = {
    PluginKind.SOURCE: "SourceConnector",
    PluginKind.SINK: "SinkConnector",
    PluginKind.CONVERTER: "Converter",
    PluginKind.HEADER_CONVERTER: "HeaderConverter",
    PluginKind.TRANSFORMATION: "Transformation",
    PluginKind.PREDICATE: "Predicate",
    PluginKind.CONFIG_PROVIDER: "ConfigProvider",
    PluginKind.REST_EXTENSION: "ConnectRestExtension",
    PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY: "ConnectorClientConfigOverridePolicy",
}


def _location_reader(location: Path, target: str) -> Any:
    def read_example_output(config: Mapping[str, Any]) -> list[Any]:
        out: list[Any] = _isolated.run_in_location(
            location, _isolated.READ_OUTPUT_PROBE, target, json.dumps(dict(config))
        )
        return out

    return read_example_output


def example_waivers(name: str, kind: PluginKind, location: str | None = None) -> dict[str, str]:
    """The ``conformance_waivers`` the plugin declares, or none.

    ``location``: the plugin.path location the plugin is installed in (isolated mode);
    the plugin is then asked in that location's interpreter.
    """
    return _Offer(name, kind, location).waivers


def example_scenarios(name: str, kind: PluginKind, location: str | None = None) -> list[Scenario]:
    """One scenario per entry of the plugin's ``example_configs()`` (none if it has none).

    ``location``: as for :func:`example_waivers`.
    """
    offer = _Offer(name, kind, location)
    if offer.examples is None:
        return []
    scenarios = []
    for i, entry in enumerate(offer.examples):
        config = dict(entry.get("config", {}))
        hooks: dict[str, Any] = {}
        if kind is PluginKind.SINK and offer.reader is not None:
            hooks["read_output"] = _reader(offer.reader, config)
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


def _reader(read: Any, config: Mapping[str, Any]) -> Any:
    def read_output(tmp_path: Path) -> list[Any]:
        return list(read(render(config, tmp_path)))

    return read_output


def _bad_records(values: list[Any]) -> Any:
    def bad_records() -> list[Any]:
        return RecordFactory().sink_records(
            len(values), start=1000, value=lambda i: values[i - 1000], value_schema=None
        )

    return bad_records
