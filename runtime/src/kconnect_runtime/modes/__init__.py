"""How the worker process runs: standalone, distributed, dedicated MirrorMaker, and the
embedded development broker."""

from __future__ import annotations

from ._distributed import Distributed
from ._embedded_broker import EmbeddedBroker, free_port
from ._mirror_maker import MirrorFlowSpec, MirrorMaker, load_mirror_maker_flows
from ._standalone import Standalone, describe_progress

__all__ = [
    "Distributed",
    "EmbeddedBroker",
    "MirrorFlowSpec",
    "MirrorMaker",
    "Standalone",
    "describe_progress",
    "free_port",
    "load_mirror_maker_flows",
]
