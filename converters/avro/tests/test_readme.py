from __future__ import annotations

import os
from pathlib import Path

from kconnect_sdk.docs import check_config_tables, plugin_config_defs, update_config_tables

DOCUMENTED = ["AvroConverter (Confluent)"]
README = Path(__file__).parents[1] / "README.md"


def test_readme_config_tables_match_the_config_defs() -> None:
    defs = plugin_config_defs("kconnect-converter-avro")
    wanted = {n: defs[n] for n in DOCUMENTED}
    if os.environ.get("KCONNECT_UPDATE_DOCS") == "1":
        README.write_text(update_config_tables(README.read_text(), wanted))
    check_config_tables(README, wanted)
