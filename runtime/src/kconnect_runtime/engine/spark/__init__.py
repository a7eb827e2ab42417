"""``engine=spark``: the driver plans bounded cycles; executors run one task cycle each."""

from __future__ import annotations

from ._driver import SparkEngine

__all__ = [
    "SparkEngine",
]
