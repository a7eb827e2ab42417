"""Kafka Connect's task and worker metrics, kept per task and rendered for Prometheus.

Runners count per batch (``total += len(batch)``), never per record. Names follow Kafka
Connect's metric groups and names; in Prometheus text format a metric
``<group>/<name>`` becomes ``kafka_connect_<group>_<name>`` with ``-`` turned into ``_``
and labels ``connector`` and ``task``, e.g.
``kafka_connect_source_task_metrics_source_record_poll_total{connector="x",task="0"}``.
Rates are averages over the task's lifetime (records per second since it started), not
Kafka's 30-second sampled windows.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import MetricName, Monitorable, PluginMetricsGroup

__all__ = [
    "SINK_METRICS",
    "SOURCE_METRICS",
    "TASK_METRICS",
    "ErrorMetrics",
    "PluginMetricsRegistry",
    "Stat",
    "TaskMetrics",
    "prometheus_name",
]


@dataclass(slots=True)
class Stat:
    """Average and maximum of a value recorded once per batch or commit."""

    count: int = 0
    total: float = 0.0
    max: float = 0.0

    def record(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.max = max(self.max, value)

    @property
    def avg(self) -> float:
        return self.total / self.count if self.count else 0.0


@dataclass(slots=True)
class ErrorMetrics:
    """Kafka's task-error-metrics group."""

    record_failures: int = 0
    record_errors: int = 0
    records_skipped: int = 0
    retries: int = 0
    errors_logged: int = 0
    dlq_produce_requests: int = 0
    dlq_produce_failures: int = 0
    last_error_timestamp: int = 0


@dataclass(slots=True)
class TaskMetrics:
    """Counters of one task; the runner updates them on its own thread."""

    started: float = field(default_factory=time.monotonic)
    paused_s: float = 0.0
    paused_since: float | None = None
    batch_size: Stat = field(default_factory=Stat)
    offset_commit_ms: Stat = field(default_factory=Stat)
    # source
    poll_total: int = 0
    write_total: int = 0
    poll_batch_ms: Stat = field(default_factory=Stat)
    active_count: int = 0
    # sink
    read_total: int = 0
    send_total: int = 0
    put_batch_ms: Stat = field(default_factory=Stat)
    offset_commit_completions: int = 0
    partition_count: int = 0
    record_lag_max: int = 0
    unassigned_rejoins: int = 0  # fresh consumers after a group never assigned
    # Since when (monotonic) the task's client has reached no broker, and whether
    # that has lasted past broker.unreachable.timeout.ms (what /health reports).
    broker_unreachable_since: float | None = None
    broker_unreachable: bool = False
    # Long work (snapshot, bulk load) reported by the task: rows done, estimate.
    progress_done: int = 0
    progress_total: int | None = None
    errors: ErrorMetrics = field(default_factory=ErrorMetrics)

    def pause_started(self) -> None:
        if self.paused_since is None:
            self.paused_since = time.monotonic()

    def pause_ended(self) -> None:
        if self.paused_since is not None:
            self.paused_s += time.monotonic() - self.paused_since
            self.paused_since = None

    def broker_unreachable_s(self) -> float:
        since = self.broker_unreachable_since
        return 0.0 if since is None else max(time.monotonic() - since, 0.0)

    def uptime_s(self) -> float:
        return max(time.monotonic() - self.started, 1e-9)

    def running_ratio(self) -> float:
        paused = self.paused_s
        if self.paused_since is not None:
            paused += time.monotonic() - self.paused_since
        return max(0.0, 1.0 - paused / self.uptime_s())


# (group, metric, type, help, getter)
_Getter = Any
TASK_METRICS: list[tuple[str, str, str, str, _Getter]] = [
    ("connector-task-metrics", "running-ratio", "gauge", "Fraction of time the task spent running", lambda m: m.running_ratio()),
    ("connector-task-metrics", "offset-commit-avg-time-ms", "gauge", "Average offset commit time", lambda m: m.offset_commit_ms.avg),
    ("connector-task-metrics", "offset-commit-max-time-ms", "gauge", "Maximum offset commit time", lambda m: m.offset_commit_ms.max),
    ("connector-task-metrics", "batch-size-avg", "gauge", "Average batch size", lambda m: m.batch_size.avg),
    ("connector-task-metrics", "batch-size-max", "gauge", "Maximum batch size", lambda m: m.batch_size.max),
    ("connector-task-metrics", "broker-unreachable-seconds", "gauge", "kconnect: how long the task's Kafka client has reached no broker (0 while it reaches one)", lambda m: m.broker_unreachable_s()),
    ("connector-task-metrics", "broker-unreachable", "gauge", "kconnect: 1 once no broker was reached for longer than broker.unreachable.timeout.ms", lambda m: int(m.broker_unreachable)),
    ("task-error-metrics", "total-record-failures", "counter", "Record processing failures, retries included", lambda m: m.errors.record_failures),
    ("task-error-metrics", "total-record-errors", "counter", "Records that failed for good", lambda m: m.errors.record_errors),
    ("task-error-metrics", "total-records-skipped", "counter", "Records skipped because of errors", lambda m: m.errors.records_skipped),
    ("task-error-metrics", "total-retries", "counter", "Retried operations", lambda m: m.errors.retries),
    ("task-error-metrics", "total-errors-logged", "counter", "Errors logged", lambda m: m.errors.errors_logged),
    ("task-error-metrics", "deadletterqueue-produce-requests", "counter", "Records sent to the dead letter queue", lambda m: m.errors.dlq_produce_requests),
    ("task-error-metrics", "deadletterqueue-produce-failures", "counter", "Dead letter queue writes that failed", lambda m: m.errors.dlq_produce_failures),
    ("task-error-metrics", "last-error-timestamp", "gauge", "Epoch ms of the last error", lambda m: m.errors.last_error_timestamp),
]  # fmt: skip
SOURCE_METRICS: list[tuple[str, str, str, str, _Getter]] = [
    ("source-task-metrics", "source-record-poll-total", "counter", "Records polled", lambda m: m.poll_total),
    ("source-task-metrics", "source-record-poll-rate", "gauge", "Records polled per second", lambda m: m.poll_total / m.uptime_s()),
    ("source-task-metrics", "source-record-write-total", "counter", "Records written to Kafka and acknowledged", lambda m: m.write_total),
    ("source-task-metrics", "source-record-write-rate", "gauge", "Records written per second", lambda m: m.write_total / m.uptime_s()),
    ("source-task-metrics", "poll-batch-avg-time-ms", "gauge", "Average poll time", lambda m: m.poll_batch_ms.avg),
    ("source-task-metrics", "poll-batch-max-time-ms", "gauge", "Maximum poll time", lambda m: m.poll_batch_ms.max),
    ("source-task-metrics", "progress-done", "gauge", "kconnect: rows of a snapshot or bulk load done, as the task reported", lambda m: m.progress_done),
    ("source-task-metrics", "progress-total", "gauge", "kconnect: estimated rows of the task's snapshot or bulk load (0 when unknown)", lambda m: m.progress_total or 0),
    ("source-task-metrics", "source-record-active-count", "gauge", "Records polled but not yet acknowledged", lambda m: m.active_count),
]  # fmt: skip
SINK_METRICS: list[tuple[str, str, str, str, _Getter]] = [
    ("sink-task-metrics", "sink-record-read-total", "counter", "Records read from Kafka", lambda m: m.read_total),
    ("sink-task-metrics", "sink-record-read-rate", "gauge", "Records read per second", lambda m: m.read_total / m.uptime_s()),
    ("sink-task-metrics", "sink-record-send-total", "counter", "Records put into the task after transforms", lambda m: m.send_total),
    ("sink-task-metrics", "sink-record-send-rate", "gauge", "Records put per second", lambda m: m.send_total / m.uptime_s()),
    ("sink-task-metrics", "put-batch-avg-time-ms", "gauge", "Average put time", lambda m: m.put_batch_ms.avg),
    ("sink-task-metrics", "put-batch-max-time-ms", "gauge", "Maximum put time", lambda m: m.put_batch_ms.max),
    ("sink-task-metrics", "offset-commit-completion-total", "counter", "Offset commits that completed", lambda m: m.offset_commit_completions),
    ("sink-task-metrics", "partition-count", "gauge", "Assigned topic partitions", lambda m: m.partition_count),
    ("sink-task-metrics", "sink-record-lag-max", "gauge", "Largest consumer lag over assigned partitions at the last commit", lambda m: m.record_lag_max),
    ("sink-task-metrics", "unassigned-rejoin-total", "counter", "Fresh consumers after the group assigned nothing for twice the session timeout", lambda m: m.unassigned_rejoins),
]  # fmt: skip


def prometheus_name(group: str, metric: str) -> str:
    """``kafka_connect_<group>_<metric>``, dashes to underscores."""
    return f"kafka_connect_{group}_{metric}".replace("-", "_")


log = logging.getLogger("kconnect.metrics")


class PluginMetricsRegistry:
    """The plugin metrics (KIP-877) of one worker's connectors, tasks and their plugins.

    Each plugin instance gets a :class:`PluginMetricsGroup` tagged as Kafka tags it
    (``connector``, ``task``, then ``converter``/``transformation``/``predicate``); a
    group leaves the registry when it is closed with its plugin. ``/metrics`` reads
    :meth:`samples`.
    """

    def __init__(self) -> None:
        self._groups: dict[int, PluginMetricsGroup] = {}
        self._lock = threading.Lock()

    def group(self, **tags: str) -> PluginMetricsGroup:
        group = PluginMetricsGroup(tags, on_close=self._forget)
        with self._lock:
            self._groups[id(group)] = group
        return group

    def monitor(self, plugin: object, **tags: str) -> PluginMetricsGroup | None:
        """Hand ``plugin`` its metrics group if it is Monitorable; the group, to close with it."""
        if not isinstance(plugin, Monitorable):
            return None
        group = self.group(**tags)
        try:
            plugin.with_plugin_metrics(group)
        except Exception:
            group.close()
            raise
        return group

    def _forget(self, group: PluginMetricsGroup) -> None:
        with self._lock:
            self._groups.pop(id(group), None)

    def samples(self) -> list[tuple[MetricName, float]]:
        with self._lock:
            groups = list(self._groups.values())
        return [sample for group in groups for sample in group.samples()]
