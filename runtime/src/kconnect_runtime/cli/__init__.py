"""The ``kconnect`` command line: ``standalone``, ``distributed`` and ``plugins …``."""

from __future__ import annotations

from ._main import main
from ._plugins import describe_plugin, plugins_table

__all__ = [
    "describe_plugin",
    "main",
    "plugins_table",
]
