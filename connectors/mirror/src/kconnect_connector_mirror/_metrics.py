"""MirrorMaker 2's replication and checkpoint metrics, with Kafka's names and tags.

Kafka's ``MirrorSourceMetrics`` and ``MirrorCheckpointMetrics`` keep their own metrics
registry (JMX group ``MirrorSourceConnector``/``MirrorCheckpointConnector``). kconnect has
no JMX: the same metrics, with the same names and tags, go through the task's plugin
metrics and are exported by the worker (``kafka_connect_plugins_replication_latency_ms``
with labels ``source``, ``target``, ``topic``, ``partition`` after the worker's
``connector`` and ``task``).

Values are measured per record, as Kafka measures them, but fed to the sensors a batch at a
time (``Sensor.record_many``): one lock and one clock reading per poll, not per record.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Final

from kconnect_sdk import (
    Avg,
    CumulativeSum,
    Max,
    Min,
    PluginMetrics,
    PluginMetricsGroup,
    Rate,
    Sensor,
    Value,
)

__all__ = ["MirrorCheckpointMetrics", "MirrorSourceMetrics", "now_ms", "task_plugin_metrics"]


def now_ms() -> float:
    return time.time() * 1000


def task_plugin_metrics(context: object) -> PluginMetrics:
    """The task's plugin metrics; kept here unexported when its runtime offers none."""
    metrics: PluginMetrics | None = getattr(context, "plugin_metrics", None)
    return metrics if metrics is not None else PluginMetricsGroup({})


_SOURCE: Final = {
    "record-count": "Number of source records replicated to the target cluster.",
    "record-rate": "Average number of source records replicated to the target cluster per second.",
    "record-age-ms": "The age of incoming source records when replicated to the target cluster.",
    "record-age-ms-max": "The max age of incoming source records when replicated to the target cluster.",
    "record-age-ms-min": "The min age of incoming source records when replicated to the target cluster.",
    "record-age-ms-avg": "The average age of incoming source records when replicated to the target cluster.",
    "byte-count": "Number of bytes replicated to the target cluster.",
    "byte-rate": "Average number of bytes replicated per second.",
    "replication-latency-ms": "Time it takes records to replicate from source to target cluster.",
    "replication-latency-ms-max": "Max time it takes records to replicate from source to target cluster.",
    "replication-latency-ms-min": "Min time it takes records to replicate from source to target cluster.",
    "replication-latency-ms-avg": "Average time it takes records to replicate from source to target cluster.",
}  # fmt: skip
_CHECKPOINT: Final = {
    "checkpoint-latency-ms": "Time it takes consumer group offsets to replicate from source to target cluster.",
    "checkpoint-latency-ms-max": "Max time it takes consumer group offsets to replicate from source to target cluster.",
    "checkpoint-latency-ms-min": "Min time it takes consumer group offsets to replicate from source to target cluster.",
    "checkpoint-latency-ms-avg": "Average time it takes consumer group offsets to replicate from source to target cluster.",
}  # fmt: skip


def _meter(metrics: PluginMetrics, sensor: Sensor, unit: str, tags: Mapping[str, str]) -> None:
    """Kafka's Meter: ``<unit>-rate`` per second and the cumulative ``<unit>-count``."""
    for name, stat in ((f"{unit}-rate", Rate()), (f"{unit}-count", CumulativeSum())):
        sensor.add(metrics.metric_name(name, _SOURCE[name], tags), stat)


def _distribution(
    metrics: PluginMetrics,
    sensor: Sensor,
    base: str,
    descriptions: Mapping[str, str],
    tags: Mapping[str, str],
) -> None:
    """The last value, max, min and average of ``base``, as Kafka's sensors add them."""
    for suffix, stat in (("", Value()), ("-max", Max()), ("-min", Min()), ("-avg", Avg())):
        name = base + suffix
        sensor.add(metrics.metric_name(name, descriptions[name], tags), stat)


class _PartitionSensors:
    def __init__(self, metrics: PluginMetrics, source: str, target: str, topic: str, part: int):
        tags = {"source": source, "target": target, "topic": topic, "partition": str(part)}
        prefix = f"{topic}-{part}-"
        self.records = metrics.add_sensor(prefix + "records-sent")
        _meter(metrics, self.records, "record", tags)
        self.bytes = metrics.add_sensor(prefix + "bytes-sent")
        _meter(metrics, self.bytes, "byte", tags)
        self.age = metrics.add_sensor(prefix + "record-age")
        _distribution(metrics, self.age, "record-age-ms", _SOURCE, tags)
        self.latency = metrics.add_sensor(prefix + "replication-latency")
        _distribution(metrics, self.latency, "replication-latency-ms", _SOURCE, tags)


class MirrorSourceMetrics:
    """Per remote topic-partition: records and bytes, record age and replication latency.

    Kafka measures a record's age (now minus its timestamp) and size when it is polled,
    and its replication latency (now minus its timestamp) and count once the target
    acknowledged it.
    """

    def __init__(
        self,
        metrics: PluginMetrics,
        source: str,
        target: str,
        partitions: Iterable[tuple[str, int]],
    ) -> None:
        self._metrics = metrics
        self._source, self._target = source, target
        self._partitions: dict[tuple[str, int], _PartitionSensors] = {}
        for topic, partition in partitions:
            self._sensors(topic, partition)
        self._latencies: defaultdict[tuple[str, int], list[float]] = defaultdict(list)
        self._lock = threading.Lock()

    def _sensors(self, topic: str, partition: int) -> _PartitionSensors:
        key = (topic, partition)
        sensors = self._partitions.get(key)
        if sensors is None:
            sensors = self._partitions[key] = _PartitionSensors(
                self._metrics, self._source, self._target, topic, partition
            )
        return sensors

    def polled(self, topic: str, partition: int, ages: list[float], sizes: list[float]) -> None:
        """One poll's records of a remote topic-partition: their ages (ms) and sizes."""
        sensors = self._sensors(topic, partition)
        sensors.age.record_many(ages)
        sensors.bytes.record_many(sizes)

    def acknowledged(self, topic: str, partition: int, latency_ms: float) -> None:
        """A record the target acknowledged: counted when the task next reports."""
        with self._lock:
            self._latencies[(topic, partition)].append(latency_ms)

    def report(self) -> None:
        """Feed the acknowledgements gathered since the last report to their sensors."""
        with self._lock:
            latencies, self._latencies = self._latencies, defaultdict(list)
        for (topic, partition), values in latencies.items():
            sensors = self._sensors(topic, partition)
            sensors.records.record_many([1.0] * len(values))
            sensors.latency.record_many(values)


class MirrorCheckpointMetrics:
    """Checkpoint latency per consumer group and upstream topic-partition."""

    def __init__(self, metrics: PluginMetrics, source: str, target: str) -> None:
        self._metrics = metrics
        self._source, self._target = source, target
        self._groups: dict[tuple[str, str, int], Sensor] = {}

    def checkpoint_latency(self, group: str, topic: str, partition: int, millis: float) -> None:
        key = (group, topic, partition)
        sensor = self._groups.get(key)
        if sensor is None:
            tags = {
                "source": self._source,
                "target": self._target,
                "group": group,
                "topic": topic,
                "partition": str(partition),
            }
            # One sensor per group and partition: Kafka names them all "checkpoint-latency"
            # in one registry, so each records every group's latencies.
            sensor = self._metrics.add_sensor(f"checkpoint-latency-{group}-{topic}-{partition}")
            _distribution(self._metrics, sensor, "checkpoint-latency-ms", _CHECKPOINT, tags)
            self._groups[key] = sensor
        sensor.record(millis)
