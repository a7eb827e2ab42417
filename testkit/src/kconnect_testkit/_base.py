"""The suite base and PluginPackageSuite: checks every plugin must pass."""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from kconnect_sdk import ConfigDef, ConfigValue
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from . import _support
from ._scenario import Hook, Scenario

if TYPE_CHECKING:
    # Only for annotations: the pytest plugin imports this module in every session, and the
    # runtime is heavy to import. PluginKind is a StrEnum, so its values compare as strings.
    from kconnect_runtime import PluginKind

__all__ = ["STRICTNESS_LEVELS", "PluginPackageSuite", "Suite"]

STRICTNESS_LEVELS = ("standard", "strict")
"""``standard`` honours waivers; ``strict`` ignores them and runs more generated cases."""

_SDK_BASES: dict[str, str] = {
    "source": "SourceConnector",
    "sink": "SinkConnector",
    "converter": "Converter",
    "header_converter": "HeaderConverter",
    "transformation": "Transformation",
    "predicate": "Predicate",
    "config_provider": "ConfigProvider",
}
_UPPER_BOUND_OPERATORS = {"<", "<=", "~=", "=="}


class Suite:
    """Base of every conformance suite. The pytest plugin acts only on its subclasses.

    Class attributes an author sets:
        plugin: the entry-point name (``org.apache.kafka.connect.file.FileStreamSourceConnector``,
            an alias, ``module:Class``) or the class itself.
        scenarios: the :class:`Scenario` s scenario-driven tests run over.
        waivers: ``{"test_name": "reason"}``; each names a test of the suite and gives a reason.
        strictness: ``"standard"`` (default) or ``"strict"``; ``--kc-strictness`` overrides it.
        stop_timeout_s: how long ``stop()`` and a stopped ``poll()`` may take.
    """

    plugin: ClassVar[str | type[Any]]
    kind: ClassVar[PluginKind]
    scenarios: ClassVar[Sequence[Scenario]] = ()
    waivers: ClassVar[Mapping[str, str]] = {}
    strictness: ClassVar[str] = "standard"
    stop_timeout_s: ClassVar[float] = 5.0

    @classmethod
    def plugin_class(cls) -> type[Any]:
        """The plugin class under test (imported on first use)."""
        plugin = cls.plugin
        if isinstance(plugin, type):
            return plugin
        if ":" in plugin:
            return _support.load_target(plugin)
        desc = _support.registry().resolve(plugin, cls.kind)
        return desc.load()

    @classmethod
    def plugin_label(cls) -> str:
        plugin = cls.plugin
        return plugin.__qualname__ if isinstance(plugin, type) else plugin.rsplit(":", 1)[-1]

    @classmethod
    def suite_test_names(cls) -> list[str]:
        """The public test names this suite defines."""
        return sorted(n for n in dir(cls) if n.startswith("test_") and callable(getattr(cls, n)))

    def run_hook(self, hook: Hook, what: str, *args: Any) -> Any:
        """Call a scenario hook (a method name on this class or a callable)."""
        if hook is None:
            raise ValueError(f"scenario has no {what} hook")
        if isinstance(hook, str):
            method = getattr(self, hook, None)
            if method is None:
                _support.fail(
                    f"scenario hook {what}={hook!r} names no method of {type(self).__name__}"
                )
            return method(*args)
        return hook(*args)

    def scenario_config(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        """The scenario's config for this test, after its ``seed`` hook ran."""
        if scenario.seed is not None:
            self.run_hook(scenario.seed, "seed", tmp_path)
        return scenario.render_config(tmp_path)

    # -- what a plugin's config looks like (overridden where the plugin is configured)

    def new_plugin(self) -> Any:
        return self.plugin_class()()

    def plugin_config_def(self) -> ConfigDef:
        config = self.new_plugin().config()
        if not isinstance(config, ConfigDef):
            _support.fail(
                f"{self.plugin_label()}.config() returned {type(config).__name__}, not a ConfigDef"
            )
        return config

    def plugin_validate(self, props: Mapping[str, str]) -> Any:
        return self.plugin_config_def().validate(props)


class PluginPackageSuite(Suite):
    """Packaging and discovery checks; every other suite includes them.

    Used on its own, set ``kind`` (a ``kconnect_runtime.PluginKind``) as well as ``plugin``.
    """

    def _desc_or_fail(self) -> Any:
        desc = _support.find_desc(self.plugin, self.kind)
        if desc is None:
            _support.fail(
                f"{self.plugin_label()} is not declared by any installed distribution under the "
                f"entry-point group {self.kind.group!r}; add it to [project.entry-points."
                f'"{self.kind.group}"] in its pyproject.toml and reinstall'
            )
        return desc

    def test_entry_point_resolves(self) -> None:
        desc = self._desc_or_fail()
        try:
            cls = desc.load()
        except Exception as exc:
            _support.fail(f"entry point {desc.name!r} = {desc.target!r} does not load: {exc}")
        import kconnect_sdk

        base_name = _SDK_BASES[self.kind]
        base: type = getattr(kconnect_sdk, base_name)
        if not issubclass(cls, base):
            _support.fail(
                f"entry point {desc.name!r} loads {desc.target}, which is not a subclass of "
                f"kconnect_sdk.{base_name}"
            )
        if not isinstance(self.plugin, str) or ":" in self.plugin:
            wanted = self.plugin_class()
            if cls is not wanted:
                _support.fail(f"entry point {desc.name!r} loads {cls!r}, not {wanted!r}")

    def test_version_matches_distribution(self) -> None:
        version = self.new_plugin().version()
        if not isinstance(version, str) or not version.strip() or version == "unknown":
            _support.fail(
                f"{self.plugin_label()}.version() returned {version!r}; every plugin must report "
                "the version of the distribution that ships it (inherit Versioned.version, or "
                "return the package version)"
            )
        desc = self._desc_or_fail()
        if version != desc.version:
            _support.fail(
                f"{self.plugin_label()}.version() returned {version!r} but its distribution "
                f"{desc.distribution!r} is version {desc.version!r}"
            )

    def test_sdk_requirement_has_upper_bound(self) -> None:
        desc = self._desc_or_fail()
        dist = md.distribution(desc.distribution)
        if canonicalize_name(desc.distribution) in {"kconnect-sdk", "kconnect-runtime"}:
            return  # the SDK's and runtime's own built-ins need no requirement on the SDK
        found: list[Requirement] = []
        for line in dist.requires or []:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            if canonicalize_name(req.name) == "kconnect-sdk" and req.marker is None:
                found.append(req)
        if not found:
            _support.fail(
                f"distribution {desc.distribution!r} does not require kconnect-sdk; declare "
                'e.g. "kconnect-sdk>=0.1,<1" in its dependencies'
            )
        if not any(
            spec.operator in _UPPER_BOUND_OPERATORS for req in found for spec in req.specifier
        ):
            _support.fail(
                f"distribution {desc.distribution!r} requires {', '.join(map(str, found))} "
                'without an upper bound; declare e.g. "kconnect-sdk>=0.1,<1" so a future SDK '
                "major version cannot break it silently"
            )

    def test_import_has_no_side_effects(self) -> None:
        # Found without importing the plugin here, so the fresh interpreter sees the first import.
        plugin = self.plugin
        if isinstance(plugin, type):
            module = plugin.__module__
        elif ":" in plugin:
            module = plugin.partition(":")[0]
        else:
            module = _support.registry().resolve(plugin, self.kind).target.partition(":")[0]
        problems = _support.import_side_effects(module)
        if problems:
            _support.fail("; ".join(problems))

    def test_config_keys_documented(self) -> None:
        config = self.plugin_config_def()
        undocumented = [
            key.name
            for key in config.config_keys.values()
            if not key.internal and not (key.documentation or "").strip()
        ]
        if undocumented:
            _support.fail(
                f"{self.plugin_label()}.config() has keys without documentation: {undocumented}; "
                "pass documentation=... to ConfigDef.define for each"
            )

    def test_validate_empty_config_never_raises(self) -> None:
        config = self.plugin_config_def()
        try:
            results = self.plugin_validate({})
        except Exception as exc:
            _support.fail(
                f"{self.plugin_label()} validate({{}}) raised {type(exc).__name__}: {exc}; "
                "validation must return per-key errors (ConfigValue.error_messages), never raise"
            )
        if not isinstance(results, list) or not all(isinstance(r, ConfigValue) for r in results):
            _support.fail(
                f"{self.plugin_label()} validate({{}}) returned {results!r:.200}, not a list "
                "of ConfigValue"
            )
        by_name = {r.name: r for r in results}
        missing = sorted(config.names() - set(by_name))
        if missing:
            _support.fail(f"validate({{}}) returned no ConfigValue for keys {missing}")
        silent = [
            key.name
            for key in config.config_keys.values()
            if not key.has_default and not by_name[key.name].error_messages
        ]
        if silent:
            _support.fail(
                f"validate({{}}) reported no error for required keys {silent}, which have no "
                "default and were not given"
            )
