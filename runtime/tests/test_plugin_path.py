"""plugin.path discovery: locations read from dist-info metadata, never imported."""

from __future__ import annotations

import importlib.metadata as md
import sys
import time
from pathlib import Path

import pytest
from kconnect_runtime.cli import plugins_table
from kconnect_runtime.plugins import PluginKind, PluginRegistry

SITE = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
SDK_VERSION = md.version("kconnect-sdk")


def fabricate(
    location: Path, dist: str, version: str, module: str, *, requires: str = "kconnect-sdk>=0.1"
) -> None:
    """A location holding one installed distribution: metadata plus a module that must not run."""
    site = location / SITE
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\nRequires-Dist: {requires}\n"
    )
    (info / "entry_points.txt").write_text(
        "[kconnect.source_connectors]\n"
        f"{module}.TickSourceConnector = {module}:TickSourceConnector\n"
    )
    # Importing this would blow up discovery: proof that discovery reads metadata only.
    (site / f"{module}.py").write_text("raise RuntimeError('plugin code was imported')\n")
    (location / "pyvenv.cfg").write_text("home = /usr/bin\n")


def test_locations_are_listed_with_their_location_and_never_imported(tmp_path: Path) -> None:
    fabricate(tmp_path / "ticks", "kc-ticks", "1.2.0", "kc_ticks_mod")
    registry = PluginRegistry.discover(plugin_path=[tmp_path])
    desc = registry.resolve("TickSource", PluginKind.SOURCE)
    assert desc.name == "kc_ticks_mod.TickSourceConnector"
    assert desc.location == str(tmp_path / "ticks")
    assert (desc.version, desc.distribution, desc.available) == ("1.2.0", "kc-ticks", True)
    assert "kc_ticks_mod" not in sys.modules
    # The runtime's own plugins are still there, without a location.
    assert registry.resolve("FileStreamSource", PluginKind.SOURCE).location is None


def test_plugin_needing_a_newer_sdk_is_unavailable_with_the_reason(tmp_path: Path) -> None:
    fabricate(
        tmp_path / "future", "kc-future", "3.0.0", "kc_future_mod", requires="kconnect-sdk>=99"
    )
    fabricate(tmp_path / "ok", "kc-ok", "1.0.0", "kc_ok_mod")
    registry = PluginRegistry.discover(plugin_path=str(tmp_path))  # the worker property form
    future = next(p for p in registry.plugins() if p.distribution == "kc-future")
    assert not future.available
    assert future.error is not None
    assert "kconnect-sdk>=99" in future.error and SDK_VERSION in future.error
    assert registry.resolve("kc_ok_mod.TickSourceConnector", PluginKind.SOURCE).available
    table = plugins_table(registry.plugins())
    assert "kc_future_mod.TickSourceConnector" in table
    assert "unavailable: requires kconnect-sdk>=99" in table
    with pytest.raises(Exception, match="unavailable: requires kconnect-sdk>=99"):
        registry.load("kc_future_mod.TickSourceConnector", PluginKind.SOURCE)


def test_bare_name_in_two_locations_resolves_to_the_newest_version(tmp_path: Path) -> None:
    fabricate(tmp_path / "a-new", "kc-ticks", "2.0.0", "kc_ticks_mod")
    fabricate(tmp_path / "b-old", "kc-ticks", "1.9.0", "kc_ticks_mod")
    fabricate(tmp_path / "c-broken", "kc-ticks", "9.0.0", "kc_ticks_mod", requires="kconnect-sdk<0")
    registry = PluginRegistry.discover(plugin_path=[tmp_path])
    copies = [p for p in registry.plugins() if p.distribution == "kc-ticks"]
    assert len(copies) == 3  # all kept, as `plugins list` shows
    chosen = registry.resolve("TickSourceConnector", PluginKind.SOURCE)
    # 9.0.0 cannot run on this SDK, so the newest usable one wins.
    assert (chosen.version, chosen.location) == ("2.0.0", str(tmp_path / "a-new"))


def test_converters_on_plugin_path_are_listed_as_isolated(tmp_path: Path) -> None:
    site = tmp_path / "conv" / SITE
    info = site / "kc_conv-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kc-conv\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[kconnect.converters]\nAvro = kc_conv:Avro\n")
    registry = PluginRegistry.discover(plugin_path=[tmp_path / "conv"])
    (conv,) = [p for p in registry.plugins(PluginKind.CONVERTER) if p.name == "Avro"]
    assert conv.available and conv.isolated and conv.location == str(tmp_path / "conv")


def test_fifty_locations_are_discovered_in_under_a_second(tmp_path: Path) -> None:
    for i in range(50):
        fabricate(tmp_path / f"loc{i:02}", f"kc-many-{i}", f"1.0.{i}", f"kc_many_{i}")
    before = set(sys.modules)
    started = time.perf_counter()
    registry = PluginRegistry.discover(plugin_path=[tmp_path])
    elapsed = time.perf_counter() - started
    found = [p for p in registry.plugins() if p.distribution.startswith("kc-many-")]
    assert len(found) == 50 and all(p.available and p.location for p in found)
    assert elapsed < 1.0, f"discovery of 50 locations took {elapsed:.2f}s"
    assert not [m for m in set(sys.modules) - before if m.startswith("kc_many")]


def test_a_plugin_path_of_java_jars_is_named_in_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker properties file carried over from Kafka Connect names jar folders."""
    (tmp_path / "debezium-connector-mariadb").mkdir()
    (tmp_path / "debezium-connector-mariadb" / "debezium-core-3.5.0.Final.jar").write_bytes(b"PK")
    with caplog.at_level("WARNING", logger="kconnect.plugins"):
        registry = PluginRegistry.discover(plugin_path=str(tmp_path))
    warned = [r.getMessage() for r in caplog.records if "Java plugins" in r.getMessage()]
    assert len(warned) == 1
    assert str(tmp_path) in warned[0] and "debezium-core-3.5.0.Final.jar" in warned[0]
    assert "pip install" in warned[0]
    # The worker's own plugins are still there.
    assert registry.resolve("FileStreamSource", PluginKind.SOURCE)
