"""Engines: where task code runs. The control plane is the same for every engine.

``local`` runs a thread per task in the worker process; ``spark`` runs tasks as Spark jobs
(the worker is the driver; PySpark is imported only when the engine starts).
"""

from __future__ import annotations

from ._contract import Engine, LivenessMonitor, liveness_timeout_s
from ._local import LocalEngine
from .spark import SparkEngine

__all__ = [
    "Engine",
    "LivenessMonitor",
    "LocalEngine",
    "SparkEngine",
    "liveness_timeout_s",
]
