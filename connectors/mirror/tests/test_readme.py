from __future__ import annotations

from pathlib import Path

from kconnect_sdk.docs import check_config_tables, plugin_config_defs

DOCUMENTED = ["MirrorCheckpointConnector", "MirrorHeartbeatConnector", "MirrorSourceConnector"]


def test_readme_config_tables_match_the_config_defs() -> None:
    defs = plugin_config_defs("kconnect-connector-mirror")
    check_config_tables(Path(__file__).parents[1] / "README.md", {n: defs[n] for n in DOCUMENTED})
