"""``GET /metrics``: the worker's task metrics in Prometheus text exposition format."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kconnect_runtime.metrics import (
    SINK_METRICS,
    SOURCE_METRICS,
    TASK_METRICS,
    prometheus_name,
)
from kconnect_runtime.worker import WorkerApi

__all__ = ["render_prometheus"]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


def _families(worker: WorkerApi) -> Iterator[tuple[str, str, str, list[tuple[str, float]]]]:
    tasks: list[tuple[str, int, str, Any, str]] = list(worker.task_metrics())
    connector_count = len(worker.connector_names())
    for table, kind in ((TASK_METRICS, None), (SOURCE_METRICS, "source"), (SINK_METRICS, "sink")):
        for group, metric, mtype, help_text, getter in table:
            samples = [
                (f'connector="{_escape(c)}",task="{i}"', float(getter(m)))
                for c, i, k, m, _ in tasks
                if kind is None or k == kind
            ]
            yield prometheus_name(group, metric), mtype, help_text, samples
    status = [
        (f'connector="{_escape(c)}",task="{i}",status="{state.lower()}"', 1.0)
        for c, i, _, _, state in tasks
    ]
    yield (
        prometheus_name("connector-task-metrics", "status"),
        "gauge",
        "Task status, as a label (1 for the current one)",
        status,
    )
    yield (
        prometheus_name("connect-worker-metrics", "connector-count"),
        "gauge",
        "Connectors on this worker",
        [("", float(connector_count))],
    )
    yield (
        prometheus_name("connect-worker-metrics", "task-count"),
        "gauge",
        "Tasks on this worker",
        [("", float(len(tasks)))],
    )


def render_prometheus(worker: WorkerApi) -> str:
    """The worker's metrics in Prometheus text exposition format (version 0.0.4)."""
    lines: list[str] = []
    for name, mtype, help_text, samples in _families(worker):
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {mtype}")
        for labels, value in samples:
            label_text = f"{{{labels}}}" if labels else ""
            shown = int(value) if mtype == "counter" and value.is_integer() else value
            lines.append(f"{name}{label_text} {_number(shown)}")
    return "\n".join(lines) + "\n"
