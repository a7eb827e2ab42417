"""Isolated run mode: the plugin installed in a plugin.path location of its own.

With ``--kc-isolated`` (or ``kconnect-testkit verify --isolated``) a suite does not import
the plugin: it installs the plugin's distribution into a fresh location (a venv made by
``kconnect plugins install``, holding the runtime's copy of the SDK), discovers it there
with the runtime's registry, and drives the class ``PluginDesc.load()`` returns — for
connectors a proxy whose tasks run in a plugin host subprocess of that location, speaking
the runtime's worker-subprocess protocol. Every kind is obtained the same way, so a kind
the runtime cannot isolate fails with the registry's reason.

Checks whose meaning is the plugin's own interpreter (the entry point imports, the
version it reports, import side effects, ``alter_offsets``, a plugin's example configs)
run there, in a short-lived subprocess of the location's Python.

A location is made once per distribution (or per ``isolated_source``) per session.
"""

from __future__ import annotations

import contextlib
import importlib.metadata as md
import json
import os
import shutil
import subprocess
import textwrap
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from kconnect_runtime.plugins import PluginDesc, PluginRegistry
    from kconnect_sdk import PluginKind

__all__ = [
    "IsolatedPlugin",
    "Isolation",
    "IsolationError",
    "activate",
    "active",
    "deactivate",
    "install_source",
    "location_python",
    "mutation_in_location",
    "run_in_location",
]

_SOURCE_IGNORE = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache"
)


class IsolationError(Exception):
    """The plugin could not be put into a location (the message says why and what to do)."""


@dataclass(frozen=True, slots=True)
class IsolatedPlugin:
    """A plugin as the registry lists it in its own location."""

    location: Path
    desc: PluginDesc

    @property
    def python(self) -> Path:
        return location_python(self.location)


def location_python(location: Path) -> Path:
    from kconnect_runtime.isolation import location_python as runtime_location_python

    return runtime_location_python(location)


def install_source(distribution: str) -> str:
    """What to install to get ``distribution`` as it is installed here.

    A directory install (editable or not, per its ``direct_url.json``) gives the project
    directory; a wheel or archive install gives that file; anything else gives
    ``name==version`` for the package index.

    Raises:
        IsolationError: the distribution is not installed here.
    """
    try:
        dist = md.distribution(distribution)
    except md.PackageNotFoundError:
        raise IsolationError(
            f"distribution {distribution!r} is not installed in this environment"
        ) from None
    direct = dist.read_text("direct_url.json")
    if direct:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            data = json.loads(direct)
            url = urlparse(str(data["url"]))
            if url.scheme == "file":
                path = Path(unquote(url.path))
                if path.exists():
                    return str(path)
    return f"{dist.metadata['Name']}=={dist.version}"


def run_in_location(location: Path, code: str, *args: str, timeout_s: float = 60.0) -> Any:
    """Run ``code`` with the location's interpreter (isolated from this one); its last
    stdout line, parsed as JSON.

    Raises:
        IsolationError: the interpreter failed (with its stderr).
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [str(location_python(location)), "-I", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=env,
        cwd=location,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise IsolationError(
            f"the interpreter of plugin location {location} failed (exit {done.returncode}): "
            f"{done.stderr.strip()[-1500:]}"
        )
    return json.loads(lines[-1])


class Isolation:
    """The plugin locations of one test session, made on first use and kept."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._locations: dict[str, Path] = {}
        self._registries: dict[Path, PluginRegistry] = {}

    def location_for(self, source: str) -> Path:
        """The location ``source`` (a project dir, a wheel or a requirement) is installed in."""
        from kconnect_runtime.plugins import install_plugin
        from kconnect_sdk import ConnectError

        key = str(Path(source).resolve()) if Path(source).exists() else source
        with self._lock:
            found = self._locations.get(key)
            if found is not None:
                return found
            slug = "".join(c if c.isalnum() else "-" for c in Path(key).name or key)[:40]
            location = self.root / f"{len(self._locations):02d}-{slug}"
            spec = key
            if Path(key).is_dir():
                # Built from a copy: building in the tree would leave build/ and *.egg-info.
                copy = self.root / "sources" / location.name
                shutil.copytree(key, copy, ignore=_SOURCE_IGNORE)
                spec = str(copy)
            try:
                install_plugin([spec], location)
            except ConnectError as exc:
                raise IsolationError(
                    f"cannot install {source!r} into a plugin location: {exc}"
                ) from None
            self._locations[key] = location
            return location

    def registry(self, location: Path) -> PluginRegistry:
        """The plugins of ``location`` only, as the runtime's registry lists them."""
        from kconnect_runtime.plugins import PluginRegistry

        with self._lock:
            found = self._registries.get(location)
            if found is None:
                everything = PluginRegistry.discover(plugin_path=[location])
                found = PluginRegistry([d for d in everything.plugins() if d.location])
                self._registries[location] = found
            return found

    def resolve(self, location: Path, names: list[str], kind: PluginKind) -> PluginDesc:
        """The first of ``names`` the location's registry knows as a ``kind`` plugin.

        Raises:
            IsolationError: none of them (listing what the location has).
        """
        registry = self.registry(location)
        for name in names:
            with contextlib.suppress(Exception):
                return registry.resolve(name, kind)
        have = ", ".join(sorted(d.name for d in registry.plugins(kind))) or "none"
        raise IsolationError(
            f"plugin location {location} has no {kind.value} plugin named {names[0]!r} "
            f"(its {kind.value} plugins: {have})"
        )


_ACTIVE: list[Isolation] = []


def activate(root: Path) -> Isolation:
    """Turn isolated mode on for this process (the pytest plugin does, for ``--kc-isolated``)."""
    _ACTIVE.clear()
    _ACTIVE.append(Isolation(root))
    return _ACTIVE[0]


def deactivate() -> None:
    """Turn isolated mode off again."""
    _ACTIVE.clear()


def active() -> Isolation | None:
    """The session's isolation, when isolated mode is on."""
    return _ACTIVE[0] if _ACTIVE else None


# -- probes run by the location's interpreter -------------------------------------------

PLUGIN_PROBE = textwrap.dedent(
    """
    import importlib, json, sys
    import kconnect_sdk
    from kconnect_sdk.plain import value_to_plain
    target, base_name = sys.argv[1], sys.argv[2]
    out = {}
    try:
        module_name, _, attr = target.partition(":")
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
    else:
        base = getattr(kconnect_sdk, base_name)
        out["module"] = getattr(obj, "__module__", "")
        out["subclass"] = isinstance(obj, type) and issubclass(obj, base)
        if out["subclass"]:
            try:
                out["version"] = obj().version()
            except Exception as exc:
                out["version_error"] = f"{type(exc).__name__}: {exc}"
            offer = getattr(obj, "example_configs", None)
            examples = offer() if offer is not None else None
            for entry in examples or ():
                # Bad values are often what JSON cannot hold (bytes): send them tagged.
                if "bad_values" in entry:
                    entry["bad_values"] = [value_to_plain(v) for v in entry["bad_values"]]
            out["examples"] = examples
            waivers = getattr(obj, "conformance_waivers", None)
            out["waivers"] = dict(waivers) if isinstance(waivers, dict) else {}
            out["reads_output"] = hasattr(obj, "read_example_output")
    print(json.dumps(out, default=repr))
    """
)

READ_OUTPUT_PROBE = textwrap.dedent(
    """
    import importlib, json, sys
    module_name, _, attr = sys.argv[1].partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    print(json.dumps(list(obj.read_example_output(json.loads(sys.argv[2])))))
    """
)

ALTER_OFFSETS_PROBE = textwrap.dedent(
    """
    import importlib, json, sys
    from kconnect_sdk import ConnectError
    module_name, _, attr = sys.argv[1].partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    props, offsets = json.loads(sys.argv[2]), json.loads(sys.argv[3])
    try:
        result = obj().alter_offsets(props, [tuple(entry) for entry in offsets])
    except Exception as exc:
        out = {"raised": type(exc).__name__, "message": str(exc),
               "connect_error": isinstance(exc, ConnectError)}
    else:
        out = {"returned": result if isinstance(result, bool) else repr(result)}
    print(json.dumps(out))
    """
)

# Whether a transform or predicate changes its input can only be seen where it runs: the
# records are rebuilt there from the batch format the runtime sends (argv[1] is the
# runtime's plugin host script, which has the codec and imports only the SDK).
MUTATION_PROBE = textwrap.dedent(
    """
    import importlib, importlib.util, json, sys
    from kconnect_sdk import ConfigError, DataError
    from kconnect_sdk.plain import record_to_plain
    spec = importlib.util.spec_from_file_location("kc_plugin_host", sys.argv[1])
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    module_name, _, attr = sys.argv[2].partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    plugin = obj()
    plugin.configure(json.loads(sys.argv[4]))
    call = plugin.apply if sys.argv[3] == "transformation" else plugin.test
    out = {}
    for i, record in enumerate(host.unpack_records(json.loads(sys.argv[5]))):
        before = json.dumps(record_to_plain(record), sort_keys=True, default=repr)
        try:
            call(record)
        except (DataError, ConfigError):
            pass
        after = json.dumps(record_to_plain(record), sort_keys=True, default=repr)
        if after != before:
            out = {"index": i, "before": before, "after": after}
            break
    print(json.dumps(out))
    """
)


def mutation_in_location(
    isolated: IsolatedPlugin, kind: str, config: Mapping[str, Any], records: Sequence[Any]
) -> dict[str, Any]:
    """Run the records through the plugin in its location; the first mutated one, or {}."""
    from kconnect_runtime.isolation import HOST_SCRIPT, pack_records

    found: dict[str, Any] = run_in_location(
        isolated.location,
        MUTATION_PROBE,
        str(HOST_SCRIPT),
        isolated.desc.target,
        kind,
        json.dumps(dict(config)),
        json.dumps(pack_records(records)),
    )
    return found
