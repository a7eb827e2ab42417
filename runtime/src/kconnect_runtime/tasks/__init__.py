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
from ._runner import TaskRunner
from ._sink import SinkContext, SinkPipeline
from ._source import SourceContext, SourcePipeline
from ._spec import TaskSpec

__all__ = [
    "PLUGIN_VERSION",
    "Converters",
    "SinkContext",
    "SinkPipeline",
    "SourceContext",
    "SourcePipeline",
    "TaskRunner",
    "TaskSpec",
    "TransformChain",
    "build_converters",
    "build_pipeline",
    "sink_record",
]
