"""``GET /metrics``: the worker's task metrics in Prometheus text exposition format."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kconnect_runtime.herder import WorkerApi
from kconnect_runtime.metrics import (
    SINK_METRICS,
    SOURCE_METRICS,
    TASK_METRICS,
    prometheus_name,
)

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
    yield from _state_families(worker)
    yield from _plugin_families(worker)


def _label_name(tag: str) -> str:
    """A Prometheus label name for a metric tag (letters, digits and underscores)."""
    name = re.sub(r"[^a-zA-Z0-9_]", "_", tag)
    return name if not name[:1].isdigit() else f"_{name}"


def _plugin_families(worker: WorkerApi) -> Iterator[tuple[str, str, str, list[tuple[str, float]]]]:
    """Metrics plugins defined themselves (KIP-877): Kafka's group ``plugins``, their tags
    (the worker's ``connector``, ``task``, ``converter``/``transformation``/``predicate``,
    then the plugin's own) as labels."""
    families: dict[str, tuple[str, list[tuple[str, float]]]] = {}
    for metric, value in worker.plugin_metric_samples():
        name = prometheus_name(metric.group, metric.name)
        labels = ",".join(f'{_label_name(k)}="{_escape(v)}"' for k, v in metric.tag_items)
        families.setdefault(name, (metric.description or metric.name, []))[1].append(
            (labels, value)
        )
    for name, (help_text, samples) in sorted(families.items()):
        yield name, "gauge", help_text, samples


# Kafka's per-connector task counts in connect-worker-metrics (KIP-475), by task state.
_TASK_STATES = ("running", "paused", "failed", "unassigned", "restarting", "destroyed")


def _state_families(worker: WorkerApi) -> Iterator[tuple[str, str, str, list[tuple[str, float]]]]:
    """Connector and task counts by state, from the connectors' statuses."""
    statuses: list[tuple[str, str, list[str]]] = []
    for name in worker.connector_names():
        try:
            status = worker.connector_status(name)
        except Exception:  # deleted while the metrics were read: not a scrape error
            continue
        tasks = [str(t.get("state", "")).lower() for t in status.get("tasks", [])]
        statuses.append((name, str(status.get("connector", {}).get("state", "")).lower(), tasks))
    yield (
        prometheus_name("connector-metrics", "status"),
        "gauge",
        "Connector status, as a label (1 for the current one)",
        [(f'connector="{_escape(n)}",status="{state}"', 1.0) for n, state, _ in statuses],
    )
    for state in _TASK_STATES:
        yield (
            prometheus_name("connect-worker-metrics", f"connector-{state}-task-count"),
            "gauge",
            f"Tasks of the connector that are {state}",
            [(f'connector="{_escape(n)}"', float(ts.count(state))) for n, _, ts in statuses],
        )
    yield (
        prometheus_name("connect-worker-metrics", "connector-total-task-count"),
        "gauge",
        "Tasks of the connector",
        [(f'connector="{_escape(n)}"', float(len(ts))) for n, _, ts in statuses],
    )
    counts: dict[str, int] = {}
    for _, state, _ in statuses:
        counts[state] = counts.get(state, 0) + 1
    yield (
        prometheus_name("connect-worker-metrics", "connector-count-by-state"),
        "gauge",
        "kconnect: connectors on this worker, by state",
        [(f'state="{state}"', float(n)) for state, n in sorted(counts.items())],
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
