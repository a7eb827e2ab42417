"""PluginMetrics as Kafka 4.1's PluginMetricsImpl behaves: names, tags, errors, close."""

from __future__ import annotations

import math

import pytest
from kconnect_sdk import (
    Avg,
    CumulativeCount,
    CumulativeSum,
    Max,
    Min,
    Monitorable,
    PluginMetricsGroup,
    Rate,
    Value,
    WindowedCount,
)

TAGS = {"connector": "c", "task": "0"}


def _values(group: PluginMetricsGroup) -> dict[str, float]:
    return {name.name: value for name, value in group.samples()}


def test_metric_name_is_in_group_plugins_with_the_workers_tags_first() -> None:
    group = PluginMetricsGroup(TAGS)
    name = group.metric_name("m", "a metric", {"k1": "v1", "k2": "v2"})
    assert name.group == "plugins"
    assert list(name.tags.items()) == [
        ("connector", "c"),
        ("task", "0"),
        ("k1", "v1"),
        ("k2", "v2"),
    ]
    assert str(name) == (
        "MetricName [name=m, group=plugins, description=a metric, "
        "tags={connector=c, task=0, k1=v1, k2=v2}]"
    )


def test_a_workers_tag_cannot_be_set_again() -> None:
    with pytest.raises(ValueError, match=r"^Cannot use task as a tag name$"):
        PluginMetricsGroup(TAGS).metric_name("m", "", {"task": "1"})


def test_add_and_remove_metrics() -> None:
    group = PluginMetricsGroup(TAGS)
    name = group.metric_name("m", "")
    group.add_metric(name, lambda: 7)
    assert _values(group) == {"m": 7.0}
    with pytest.raises(ValueError, match=r"^Metric MetricName \[name=m, .* already exists$"):
        group.add_metric(name, lambda: 8)
    group.remove_metric(name)
    assert _values(group) == {}
    with pytest.raises(ValueError, match=r"^Unknown metric MetricName \[name=m, "):
        group.remove_metric(name)


def test_sensors_feed_their_stats_and_take_them_away() -> None:
    group = PluginMetricsGroup(TAGS)
    sensor = group.add_sensor("s")
    stats = {
        "avg": Avg(),
        "max": Max(),
        "min": Min(),
        "sum": CumulativeSum(),
        "count": CumulativeCount(),
        "wcount": WindowedCount(),
        "last": Value(),
    }
    for key, stat in stats.items():
        sensor.add(group.metric_name(key, ""), stat)
    for value in (3.0, 9.0, 6.0):
        sensor.record(value)
    assert _values(group) == {
        "avg": 6.0,
        "max": 9.0,
        "min": 3.0,
        "sum": 18.0,
        "count": 3.0,
        "wcount": 3.0,
        "last": 6.0,
    }
    with pytest.raises(ValueError, match=r"^Sensor s already exists$"):
        group.add_sensor("s")
    group.remove_sensor("s")
    assert _values(group) == {}
    with pytest.raises(ValueError, match=r"^Unknown sensor s$"):
        group.remove_sensor("s")


def test_windowed_stats_with_no_values_are_nan_and_a_rate_counts_per_second() -> None:
    group = PluginMetricsGroup(TAGS)
    sensor = group.add_sensor("s")
    sensor.add(group.metric_name("avg", ""), Avg())
    sensor.add(group.metric_name("rate", ""), Rate())
    values = _values(group)
    assert math.isnan(values["avg"])
    assert values["rate"] == 0.0
    for _ in range(60):
        sensor.record(1.0)
    # Kafka's Rate: at least one whole 30 s window before the current one counts, so 60
    # events just now are 2 per second.
    assert _values(group)["rate"] == pytest.approx(2.0, rel=0.01)


def test_closed_group_refuses_everything_and_exports_nothing() -> None:
    closed: list[PluginMetricsGroup] = []
    group = PluginMetricsGroup(TAGS, on_close=closed.append)
    group.add_metric(group.metric_name("m", ""), lambda: 1)
    group.close()
    assert closed == [group]
    assert _values(group) == {}
    for call in (
        lambda: group.metric_name("n", ""),
        lambda: group.add_sensor("s"),
        lambda: group.remove_sensor("s"),
    ):
        with pytest.raises(RuntimeError, match=r"^This PluginMetrics instance is closed$"):
            call()


def test_a_failing_gauge_is_left_out_of_an_export() -> None:
    group = PluginMetricsGroup(TAGS)
    group.add_metric(group.metric_name("ok", ""), lambda: 1)
    group.add_metric(group.metric_name("bad", ""), lambda: 1 / 0)
    assert _values(group) == {"ok": 1.0}


def test_monitorable_is_whatever_defines_with_plugin_metrics() -> None:
    class Plain:
        pass

    class Metered:
        def with_plugin_metrics(self, metrics: object) -> None:
            pass

    assert not isinstance(Plain(), Monitorable)
    assert isinstance(Metered(), Monitorable)


def test_record_many_is_the_same_as_recording_each_value() -> None:
    values = [5.0, 1.0, 7.0, 3.0]
    groups = []
    for feed in ("one by one", "all at once"):
        group = PluginMetricsGroup(TAGS)
        sensor = group.add_sensor("s")
        for key, stat in {
            "avg": Avg(),
            "max": Max(),
            "min": Min(),
            "sum": CumulativeSum(),
            "count": CumulativeCount(),
            "wcount": WindowedCount(),
            "last": Value(),
        }.items():
            sensor.add(group.metric_name(key, ""), stat)
        if feed == "one by one":
            for value in values:
                sensor.record(value)
        else:
            sensor.record_many(values)
        groups.append(group)
    assert (
        _values(groups[0])
        == _values(groups[1])
        == {
            "avg": 4.0,
            "max": 7.0,
            "min": 1.0,
            "sum": 16.0,
            "count": 4.0,
            "wcount": 4.0,
            "last": 3.0,
        }
    )
