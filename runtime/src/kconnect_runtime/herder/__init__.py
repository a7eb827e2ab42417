"""The herders: what a worker runs, decided once for REST (Kafka's ``Herder``).

REST talks only to :class:`WorkerApi`. The standalone herder decides locally; the
distributed herder decides from the group and the config topic, and forwards what runs on
another worker; MirrorMaker's herder is a distributed one whose leader also writes its
flow's connector configs (the dedicated mode). Both have a :class:`~kconnect_runtime.worker.Worker` run what they decide.
"""

from __future__ import annotations

from ._api import TaskMetricsView, WorkerApi
from ._base import named_config
from ._distributed import DistributedHerder, GroupStore
from ._forwarding import (
    NotReadyError,
    RebalanceInProgressError,
    caller_credentials,
    forward,
    path_segment,
)
from ._membership import MEMBER_SLOTS
from ._mirror import MirrorHerder
from ._signing import SigningSettings, has_signature
from ._standalone import StandaloneConnector, StandaloneHerder

__all__ = [
    "MEMBER_SLOTS",
    "DistributedHerder",
    "GroupStore",
    "MirrorHerder",
    "NotReadyError",
    "RebalanceInProgressError",
    "SigningSettings",
    "StandaloneConnector",
    "StandaloneHerder",
    "TaskMetricsView",
    "WorkerApi",
    "caller_credentials",
    "forward",
    "has_signature",
    "named_config",
    "path_segment",
]
