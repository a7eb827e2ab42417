"""The package's version, which the connector and its task both report."""

from __future__ import annotations

from kconnect_sdk import distribution_version

__all__ = ["package_version"]


def package_version() -> str:
    return distribution_version("kconnect-connector-mysql")
