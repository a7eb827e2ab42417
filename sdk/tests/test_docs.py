from __future__ import annotations

from pathlib import Path

import pytest
from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
)
from kconnect_sdk.docs import check_config_tables, plugin_config_defs

README = "# plugin\n\n<!-- config-table: Demo -->\nstale\n<!-- /config-table -->\n\ntail\n"
DEMO = ConfigDef().define(
    "batch.size", ConfigType.INT, 10, importance=Importance.LOW, documentation="Lines per poll."
)


def test_stale_table_fails_and_says_how_to_regenerate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KCONNECT_UPDATE_DOCS", raising=False)
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    with pytest.raises(ConfigError, match="KCONNECT_UPDATE_DOCS=1"):
        check_config_tables(readme, {"Demo": DEMO})
    assert readme.read_text(encoding="utf-8") == README


def test_update_rewrites_only_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KCONNECT_UPDATE_DOCS", "1")
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    check_config_tables(readme, {"Demo": DEMO})
    text = readme.read_text(encoding="utf-8")
    assert "stale" not in text
    assert "| `batch.size` | int | 10 |" in text
    assert text.startswith("# plugin\n\n<!-- config-table: Demo -->\n")
    assert text.endswith("<!-- /config-table -->\n\ntail\n")
    monkeypatch.delenv("KCONNECT_UPDATE_DOCS")
    check_config_tables(readme, {"Demo": DEMO})


def test_missing_markers_are_named(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# nothing here\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no generated config table for 'Other'"):
        check_config_tables(readme, {"Other": DEMO})


def test_plugin_config_defs_names_vendor_variants_apart() -> None:
    defs = plugin_config_defs("kconnect-transforms")
    assert "Filter" in defs
    assert "Filter (Confluent)" in defs
    assert "InsertField" in defs
    assert "InsertField$Value" not in defs
