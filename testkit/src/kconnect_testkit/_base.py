"""The suite base and PluginPackageSuite: checks every plugin must pass."""

from __future__ import annotations

import functools
import importlib.metadata as md
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from kconnect_sdk import ConfigDef, ConfigValue
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from . import _isolated, _support
from ._scenario import Hook, Scenario

if TYPE_CHECKING:
    # Only for annotations: the pytest plugin imports this module in every session, and the
    # runtime is heavy to import. PluginKind is a StrEnum, so its values compare as strings.
    from kconnect_runtime.plugins import PluginDesc
    from kconnect_sdk import PluginKind

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
    "rest_extension": "ConnectRestExtension",
    "connector_client_config_override_policy": "ConnectorClientConfigOverridePolicy",
}
_UPPER_BOUND_OPERATORS = {"<", "<=", "~=", "=="}
# Isolated mode: per suite class, its plugin in its location, or why there is none.
_ISOLATED: dict[type, _isolated.IsolatedPlugin | str] = {}


class Suite:
    """Base of every conformance suite. The pytest plugin acts only on its subclasses.

    Class attributes an author sets:
        plugin: the entry-point name (``org.apache.kafka.connect.file.FileStreamSourceConnector``,
            an alias, ``module:Class``) or the class itself.
        scenarios: the :class:`Scenario` s scenario-driven tests run over.
        waivers: ``{"test_name": "reason"}``; each names a test of the suite and gives a reason.
        strictness: ``"standard"`` (default) or ``"strict"``; ``--kc-strictness`` overrides it.
        stop_timeout_s: how long ``stop()`` and a stopped ``poll()`` may take.
        isolated_source: isolated mode: what to install into the plugin's location (a
            wheel, a project directory or a requirement); default: the distribution that
            declares the plugin in this environment.
        isolated_location: isolated mode: an existing plugin location to use as it is.
    """

    plugin: ClassVar[str | type[Any]]
    kind: ClassVar[PluginKind]
    scenarios: ClassVar[Sequence[Scenario]] = ()
    waivers: ClassVar[Mapping[str, str]] = {}
    strictness: ClassVar[str] = "standard"
    stop_timeout_s: ClassVar[float] = 5.0
    isolated_source: ClassVar[str | None] = None
    isolated_location: ClassVar[str | None] = None

    @classmethod
    def isolated_plugin(cls) -> _isolated.IsolatedPlugin | None:
        """In isolated mode, the plugin as its own location's registry lists it (else None).

        The location is made on first use; a plugin that cannot be put there fails the test.
        """
        isolation = _isolated.active()
        if isolation is None:
            return None
        found = _ISOLATED.get(cls)
        if found is None:
            try:
                found = cls._isolate(isolation)
            except _isolated.IsolationError as exc:
                found = str(exc)
            _ISOLATED[cls] = found
        if isinstance(found, str):
            _support.fail(f"isolated mode: {found}")
        return found

    @classmethod
    def _isolate(cls, isolation: _isolated.Isolation) -> _isolated.IsolatedPlugin:
        plugin = cls.plugin
        names: list[str] = []
        host: PluginDesc | None = None
        if isinstance(plugin, type) or (cls.isolated_source is None and not cls.isolated_location):
            host = _support.find_desc(plugin, cls.kind)
        if host is not None:
            names.append(host.name)
        if isinstance(plugin, str):
            names.append(plugin)
        else:
            names += [f"{plugin.__module__}:{plugin.__qualname__}", plugin.__qualname__]
        if cls.isolated_location:
            location = Path(cls.isolated_location).absolute()
        elif cls.isolated_source:
            location = isolation.location_for(cls.isolated_source)
        elif host is not None and host.distribution != "unknown":
            location = isolation.location_for(_isolated.install_source(host.distribution))
        else:
            raise _isolated.IsolationError(
                f"it installs the distribution that declares {cls.plugin_label()} into a plugin "
                "location, but no installed distribution declares it; install it, or set "
                "isolated_source to its wheel, project directory or requirement"
            )
        return _isolated.IsolatedPlugin(location, isolation.resolve(location, names, cls.kind))

    @classmethod
    def plugin_class(cls) -> type[Any]:
        """The plugin class under test (imported on first use).

        In isolated mode, the class the runtime's registry loads from the plugin's location
        (for connectors, a proxy whose tasks run in a plugin host process there).
        """
        isolated = cls.isolated_plugin()
        if isolated is not None:
            try:
                return isolated.desc.load()
            except Exception as exc:
                _support.fail(f"isolated mode: {exc}")
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

    Used on its own, set ``kind`` (a ``kconnect_sdk.PluginKind``) as well as ``plugin``.
    """

    def _desc_or_fail(self) -> Any:
        isolated = self.isolated_plugin()
        if isolated is not None:
            return isolated.desc
        desc = _support.find_desc(self.plugin, self.kind)
        if desc is None:
            _support.fail(
                f"{self.plugin_label()} is not declared by any installed distribution under the "
                f"entry-point group {self.kind.group!r}; add it to [project.entry-points."
                f'"{self.kind.group}"] in its pyproject.toml and reinstall'
            )
        return desc

    def _probe(self) -> dict[str, Any]:
        """Isolated mode: what the plugin's class says of itself in its location's interpreter."""
        isolated = self.isolated_plugin()
        assert isolated is not None
        try:
            return _probe_plugin(isolated.location, isolated.desc.target, _SDK_BASES[self.kind])
        except _isolated.IsolationError as exc:
            _support.fail(str(exc))

    def test_entry_point_resolves(self) -> None:
        desc = self._desc_or_fail()
        if self.isolated_plugin() is not None:
            self._check_isolated_entry_point(desc)
            return
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

    def _check_isolated_entry_point(self, desc: PluginDesc) -> None:
        if not desc.available:
            _support.fail(f"entry point {desc.name!r} is unavailable in its location: {desc.error}")
        probe = self._probe()
        base_name = _SDK_BASES[self.kind]
        if "error" in probe:
            _support.fail(
                f"entry point {desc.name!r} = {desc.target!r} does not load in its plugin "
                f"location ({desc.location}): {probe['error']}"
            )
        if not probe["subclass"]:
            _support.fail(
                f"entry point {desc.name!r} loads {desc.target}, which is not a subclass of "
                f"kconnect_sdk.{base_name}"
            )
        import kconnect_sdk

        cls = self.plugin_class()
        if not issubclass(cls, getattr(kconnect_sdk, base_name)):
            _support.fail(
                f"the runtime's registry loads {desc.name!r} from its location as {cls!r}, "
                f"which is not a kconnect_sdk.{base_name}"
            )

    def plugin_version(self) -> Any:
        """What the plugin's ``version()`` returns (in isolated mode, asked in its location)."""
        if self.isolated_plugin() is None:
            return self.new_plugin().version()
        probe = self._probe()
        if "version_error" in probe or "version" not in probe:
            _support.fail(
                f"{self.plugin_label()}.version() failed in its plugin location: "
                f"{probe.get('version_error') or probe.get('error')}"
            )
        return probe["version"]

    def test_version_matches_distribution(self) -> None:
        version = self.plugin_version()
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
        dist = _distribution_of(desc)
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
        isolated = self.isolated_plugin()
        if isolated is not None:
            # Run by the location's own interpreter, where the plugin's import happens.
            module = isolated.desc.target.partition(":")[0]
            problems = _support.import_side_effects(module, str(isolated.python))
            if problems:
                _support.fail("; ".join(problems))
            return
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


@functools.cache
def _probe_plugin(location: Path, target: str, base_name: str) -> dict[str, Any]:
    probe: dict[str, Any] = _isolated.run_in_location(
        location, _isolated.PLUGIN_PROBE, target, base_name
    )
    return probe


def _distribution_of(desc: PluginDesc) -> md.Distribution:
    """The distribution that declares ``desc``: in its location, or in this environment."""
    if desc.location is None:
        return md.distribution(desc.distribution)
    site_dirs = [str(p) for p in sorted(Path(desc.location).glob("lib/python3*/site-packages"))]
    for dist in md.distributions(path=site_dirs):
        if canonicalize_name(dist.metadata["Name"] or "") == canonicalize_name(desc.distribution):
            return dist
    _support.fail(f"distribution {desc.distribution!r} is not in plugin location {desc.location}")
