from __future__ import annotations

from pathlib import Path

from kconnect_sdk.docs import check_config_tables, plugin_config_defs


def test_readme_config_table_matches_the_config_def() -> None:
    defs = plugin_config_defs("kconnect-connector-jdbc")
    check_config_tables(
        Path(__file__).parents[1] / "README.md",
        {"JdbcSourceConnector": defs["JdbcSourceConnector (Confluent)"]},
    )
