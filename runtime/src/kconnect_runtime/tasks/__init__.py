"""Task pipelines: a source task's poll → transforms → converters → producer, and a sink
task's consumer → converters → transforms → put → commit.

A :class:`TaskSpec` says what runs; a :class:`TaskRunner` is a running task's state (status,
pause and stop, counters, metrics); :class:`SourcePipeline` and :class:`SinkPipeline` are the
data paths, as public methods an engine drives (the local engine on a thread, the spark
engine's executor for one bounded cycle). :func:`build_pipeline` makes either from a spec.
"""

from __future__ import annotations

from ._build import build_pipeline
from ._chain import PLUGIN_VERSION, Converters, TransformChain, build_converters, sink_record
from ._exactly_once import (
    ExactlyOnceSourcePipeline,
    TransactionBoundary,
    WorkerTransactionContext,
    exactly_once_enabled,
    transactional_id,
    validate_exactly_once,
)
from ._runner import TaskRunner, apply_gc_policy
from ._sink import SinkContext, SinkPipeline
from ._source import SourceContext, SourcePipeline
from ._spec import TaskSpec

__all__ = [
    "PLUGIN_VERSION",
    "Converters",
    "ExactlyOnceSourcePipeline",
    "SinkContext",
    "SinkPipeline",
    "SourceContext",
    "SourcePipeline",
    "TaskRunner",
    "TaskSpec",
    "TransactionBoundary",
    "TransformChain",
    "WorkerTransactionContext",
    "apply_gc_policy",
    "build_converters",
    "build_pipeline",
    "exactly_once_enabled",
    "sink_record",
    "transactional_id",
    "validate_exactly_once",
]
