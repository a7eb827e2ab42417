"""README tooling: generated config tables in plugin READMEs, kept current by a test.

A plugin package's test keeps its README's tables in step with its ``ConfigDef``::

    from kconnect_sdk.docs import check_config_tables, plugin_config_defs

    def test_readme_tables_are_current():
        check_config_tables(README, plugin_config_defs("my-distribution"))
"""

from __future__ import annotations

from ._docs import check_config_tables, plugin_config_defs, update_config_tables

__all__ = ["check_config_tables", "plugin_config_defs", "update_config_tables"]
