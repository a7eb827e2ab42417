"""The runtime's distribution version (a leaf: REST and the CLI report it)."""

from __future__ import annotations

from kconnect_sdk import distribution_version

__all__ = ["__version__"]

__version__ = distribution_version("kconnect_runtime")
