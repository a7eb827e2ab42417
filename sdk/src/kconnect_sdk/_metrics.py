"""Plugin metrics: connectors, tasks, converters, transforms and predicates define their own.

Kafka 4.1's ``PluginMetrics`` (KIP-877) in Python. A connector or task gets its
:class:`PluginMetrics` from its context (``context.plugin_metrics``); a converter,
header converter, transformation or predicate that defines ``with_plugin_metrics`` (the
:class:`Monitorable` protocol) is handed one after it is configured. Every metric lands
in Kafka's group ``plugins`` with the tags the worker adds (``connector``, ``task``, and
``converter``/``transformation``/``predicate`` for those plugins) followed by the
plugin's own, and is exported with the worker's metrics. Metrics and sensors are removed
when the plugin is closed.

Windowed statistics follow Kafka's default ``MetricConfig``: two samples of 30 seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

__all__ = [
    "Avg",
    "CumulativeCount",
    "CumulativeSum",
    "Max",
    "MeasurableStat",
    "MetricName",
    "Min",
    "Monitorable",
    "PluginMetrics",
    "PluginMetricsGroup",
    "Rate",
    "Sensor",
    "Value",
    "WindowedCount",
    "WindowedSum",
]

PLUGINS_GROUP = "plugins"
_SAMPLES = 2
_WINDOW_MS = 30_000


def _now_ms() -> float:
    return time.time() * 1000


@dataclass(frozen=True)
class MetricName:
    """A metric's identity: name, group and tags (the description is not part of it)."""

    name: str
    group: str
    description: str = field(default="", compare=False)
    tag_items: tuple[tuple[str, str], ...] = ()

    @property
    def tags(self) -> dict[str, str]:
        return dict(self.tag_items)

    def __str__(self) -> str:
        tags = ", ".join(f"{k}={v}" for k, v in self.tag_items)
        return (
            f"MetricName [name={self.name}, group={self.group}, "
            f"description={self.description}, tags={{{tags}}}]"
        )


class MeasurableStat(Protocol):
    """A statistic a :class:`Sensor` feeds: ``record`` each value, ``measure`` on read."""

    def record(self, value: float, now_ms: float) -> None: ...

    def measure(self, now_ms: float) -> float: ...


class Value:
    """The last value recorded."""

    def __init__(self) -> None:
        self._value = 0.0

    def record(self, value: float, now_ms: float) -> None:
        self._value = value

    def record_many(self, values: Sequence[float], now_ms: float) -> None:
        if values:
            self._value = values[-1]

    def measure(self, now_ms: float) -> float:
        return self._value


class CumulativeSum:
    """The sum of every value recorded."""

    def __init__(self) -> None:
        self._total = 0.0

    def record(self, value: float, now_ms: float) -> None:
        self._total += value

    def record_many(self, values: Sequence[float], now_ms: float) -> None:
        self._total += sum(values)

    def measure(self, now_ms: float) -> float:
        return self._total


class CumulativeCount(CumulativeSum):
    """How many values were recorded."""

    def record(self, value: float, now_ms: float) -> None:
        super().record(1.0, now_ms)

    def record_many(self, values: Sequence[float], now_ms: float) -> None:
        self._total += len(values)


class _Sampled:
    """Kafka's SampledStat: values kept in time windows; windows older than all are dropped."""

    _initial = 0.0

    def __init__(self) -> None:
        # [window start ms, event count, combined value]
        self._samples: list[list[float]] = []

    def _combine(self, current: float, value: float) -> float:
        raise NotImplementedError

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        for value in values:
            current = self._combine(current, value)
        return current

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        raise NotImplementedError

    def _purge(self, now_ms: float) -> None:
        horizon = now_ms - _SAMPLES * _WINDOW_MS
        self._samples = [s for s in self._samples if s[0] > horizon]

    def _current(self, now_ms: float) -> list[float]:
        self._purge(now_ms)
        if not self._samples or now_ms - self._samples[-1][0] >= _WINDOW_MS:
            self._samples.append([now_ms, 0.0, self._initial])
            del self._samples[:-_SAMPLES]
        return self._samples[-1]

    def record(self, value: float, now_ms: float) -> None:
        sample = self._current(now_ms)
        sample[1] += 1
        sample[2] = self._combine(sample[2], value)

    def record_many(self, values: Sequence[float], now_ms: float) -> None:
        if values:
            sample = self._current(now_ms)
            sample[1] += len(values)
            sample[2] = self._combine_many(sample[2], values)

    def measure(self, now_ms: float) -> float:
        self._purge(now_ms)
        return self._result(self._samples, now_ms)


class WindowedSum(_Sampled):
    """The sum of the values of the last two 30-second windows."""

    def _combine(self, current: float, value: float) -> float:
        return current + value

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        return current + sum(values)

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        return sum(s[2] for s in samples)


class WindowedCount(WindowedSum):
    """How many values the last two 30-second windows recorded."""

    def _combine(self, current: float, value: float) -> float:
        return current + 1

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        return current + len(values)


class Avg(_Sampled):
    """The mean of the values of the last two windows; NaN when there were none."""

    def _combine(self, current: float, value: float) -> float:
        return current + value

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        return current + sum(values)

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        count = sum(s[1] for s in samples)
        return sum(s[2] for s in samples) / count if count else float("nan")


class Max(_Sampled):
    """The largest value of the last two windows; NaN when there were none."""

    _initial = float("-inf")

    def _combine(self, current: float, value: float) -> float:
        return max(current, value)

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        return max(current, *values)

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        return max((s[2] for s in samples if s[1]), default=float("nan"))


class Min(_Sampled):
    """The smallest value of the last two windows; NaN when there were none."""

    _initial = float("inf")

    def _combine(self, current: float, value: float) -> float:
        return min(current, value)

    def _combine_many(self, current: float, values: Sequence[float]) -> float:
        return min(current, *values)

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        return min((s[2] for s in samples if s[1]), default=float("nan"))


class Rate(WindowedSum):
    """Values per second over the last two windows (Kafka's ``Rate`` in seconds).

    As Kafka measures it: the elapsed time is counted from the oldest window kept, and is
    never less than one whole window before the current one.
    """

    def _result(self, samples: list[list[float]], now_ms: float) -> float:
        if not samples:
            return 0.0
        elapsed = now_ms - samples[0][0]
        elapsed = max(elapsed, (_SAMPLES - 1) * _WINDOW_MS)
        return super()._result(samples, now_ms) / (elapsed / 1000)


class Sensor:
    """Records values into the statistics added to it; each statistic is one metric."""

    def __init__(self, name: str, register: Callable[[MetricName, Callable[[], float]], None]):
        self.name = name
        self._register = register
        self._stats: list[MeasurableStat] = []
        self.metric_names: list[MetricName] = []
        self._lock = threading.Lock()

    def add(self, metric_name: MetricName, stat: MeasurableStat) -> bool:
        """Measure ``stat`` under ``metric_name`` (from ``PluginMetrics.metric_name``)."""

        def measure() -> float:
            with self._lock:
                return stat.measure(_now_ms())

        self._register(metric_name, measure)
        with self._lock:
            self._stats.append(stat)
            self.metric_names.append(metric_name)
        return True

    def record(self, value: float = 1.0) -> None:
        now_ms = _now_ms()
        with self._lock:
            for stat in self._stats:
                stat.record(value, now_ms)

    def record_many(self, values: Sequence[float]) -> None:
        """Record each of ``values``, as many ``record`` calls would, under one lock and
        one clock reading: a plugin that measures every record feeds a batch at a time."""
        if not values:
            return
        now_ms = _now_ms()
        with self._lock:
            for stat in self._stats:
                many = getattr(stat, "record_many", None)
                if many is not None:
                    many(values, now_ms)
                else:
                    for value in values:
                        stat.record(value, now_ms)


class PluginMetrics(Protocol):
    """What a plugin defines its metrics through (Kafka's ``PluginMetrics``)."""

    def metric_name(
        self, name: str, description: str, tags: Mapping[str, str] | None = None
    ) -> MetricName:
        """A name in group ``plugins`` with the worker's tags, then ``tags``."""
        ...

    def add_metric(self, metric_name: MetricName, value: Callable[[], float]) -> None:
        """A metric read by calling ``value`` (a gauge) whenever metrics are exported."""
        ...

    def remove_metric(self, metric_name: MetricName) -> None: ...

    def add_sensor(self, name: str) -> Sensor: ...

    def remove_sensor(self, name: str) -> None: ...


@runtime_checkable
class Monitorable(Protocol):
    """A converter, header converter, transformation or predicate with its own metrics."""

    def with_plugin_metrics(self, metrics: PluginMetrics) -> None: ...


class PluginMetricsGroup:
    """The :class:`PluginMetrics` of one plugin instance, tagged by the worker.

    Errors are Kafka's: a tag the worker sets cannot be set again, a metric or sensor
    cannot be added twice or removed unless added, and nothing can be done once closed.
    """

    def __init__(
        self,
        tags: Mapping[str, str],
        on_close: Callable[[PluginMetricsGroup], None] | None = None,
    ) -> None:
        self.worker_tags = dict(tags)
        self._metrics: dict[MetricName, Callable[[], float]] = {}
        self._sensors: dict[str, Sensor] = {}
        self._closed = False
        self._on_close = on_close
        self._lock = threading.Lock()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("This PluginMetrics instance is closed")

    def metric_name(
        self, name: str, description: str, tags: Mapping[str, str] | None = None
    ) -> MetricName:
        self._check_open()
        own = dict(tags or {})
        for key in own:
            if key in self.worker_tags:
                raise ValueError(f"Cannot use {key} as a tag name")
        items = tuple({**self.worker_tags, **own}.items())
        return MetricName(name, PLUGINS_GROUP, description, items)

    def add_metric(self, metric_name: MetricName, value: Callable[[], float]) -> None:
        self._check_open()
        with self._lock:
            if metric_name in self._metrics:
                raise ValueError(f"Metric {metric_name} already exists")
            self._metrics[metric_name] = value

    def remove_metric(self, metric_name: MetricName) -> None:
        self._check_open()
        with self._lock:
            if self._metrics.pop(metric_name, None) is None:
                raise ValueError(f"Unknown metric {metric_name}")

    def add_sensor(self, name: str) -> Sensor:
        self._check_open()
        with self._lock:
            if name in self._sensors:
                raise ValueError(f"Sensor {name} already exists")
            sensor = Sensor(name, self.add_metric)
            self._sensors[name] = sensor
            return sensor

    def remove_sensor(self, name: str) -> None:
        self._check_open()
        with self._lock:
            sensor = self._sensors.pop(name, None)
            if sensor is None:
                raise ValueError(f"Unknown sensor {name}")
            # A sensor's statistics go with it, as in Kafka.
            for metric_name in sensor.metric_names:
                self._metrics.pop(metric_name, None)

    def samples(self) -> Iterator[tuple[MetricName, float]]:
        """Every metric's current value; a metric whose provider raises is left out."""
        with self._lock:
            metrics = list(self._metrics.items())
        for metric_name, value in metrics:
            try:
                yield metric_name, float(value())
            except Exception:  # a plugin's gauge failing must not break an export
                continue

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Remove every metric and sensor (the plugin was closed)."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            self._metrics.clear()
            self._sensors.clear()
        if self._on_close is not None:
            self._on_close(self)
