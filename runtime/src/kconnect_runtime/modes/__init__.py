"""How the worker process runs: standalone, distributed, and the embedded development broker."""

from __future__ import annotations

from ._distributed import Distributed
from ._embedded_broker import EmbeddedBroker, free_port
from ._standalone import Standalone, describe_progress

__all__ = [
    "Distributed",
    "EmbeddedBroker",
    "Standalone",
    "describe_progress",
    "free_port",
]
