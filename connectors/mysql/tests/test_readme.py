from __future__ import annotations

from pathlib import Path

from kconnect_sdk.docs import check_config_tables, plugin_config_defs

DOCUMENTED = ["MySqlConnector (Debezium)"]


def test_readme_config_tables_match_the_config_defs() -> None:
    defs = plugin_config_defs("kconnect-connector-mysql")
    check_config_tables(Path(__file__).parents[1] / "README.md", {n: defs[n] for n in DOCUMENTED})


def test_both_connectors_share_one_config() -> None:
    defs = plugin_config_defs("kconnect-connector-mysql")
    assert defs["MySqlConnector (Debezium)"] is defs["MariaDbConnector (Debezium)"]
