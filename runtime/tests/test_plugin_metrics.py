"""Plugins define their own metrics (KIP-877) and the worker exports them at ``/metrics``.

A connector, its task, a transformation and a predicate each register metrics through
``plugin_metrics``; a Prometheus scrape of a running standalone worker shows them in
Kafka's group ``plugins`` with Kafka's tags as labels, and they are gone once the
connector is deleted.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from kconnect_runtime import Standalone
from runtime_harness import worker_props

pytestmark = pytest.mark.integration

PLUGIN = """
from __future__ import annotations

import time

from kconnect_sdk import (
    ConfigDef, CumulativeCount, Max, Predicate, SourceConnector, SourceRecord, SourceTask,
    Transformation,
)


class MeteredTask(SourceTask):
    def start(self, props):
        self.topic = props["topic"]
        self.n = 0
        metrics = self.context.plugin_metrics
        sensor = metrics.add_sensor("polled")
        sensor.add(metrics.metric_name("records-polled-total", "Records this task made"),
                   CumulativeCount())
        self.sensor = sensor
        batches = metrics.add_sensor("batches")
        batches.add(metrics.metric_name("batch-max", "Largest batch", {"unit": "records"}),
                    Max())
        self.batches = batches

    def poll(self):
        if self.n >= 30:
            time.sleep(0.05)
            return None
        batch = [SourceRecord(source_partition={"p": 0}, source_offset={"n": self.n + i},
                              topic=self.topic, value=f"v{self.n + i}") for i in range(10)]
        self.n += 10
        for _ in batch:
            self.sensor.record()
        self.batches.record(len(batch))
        return batch

    def stop(self):
        pass


class MeteredConnector(SourceConnector):
    def config(self):
        return ConfigDef()

    def start(self, props):
        self.props = dict(props)
        metrics = self.context.plugin_metrics
        metrics.add_metric(metrics.metric_name("configured-keys", "Keys in my config"),
                           lambda: float(len(self.props)))

    def task_class(self):
        return MeteredTask

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass


class CountingTransform(Transformation):
    def config(self):
        return ConfigDef()

    def configure(self, props):
        self.seen = 0

    def with_plugin_metrics(self, metrics):
        metrics.add_metric(metrics.metric_name("records-seen", "Records transformed"),
                           lambda: float(self.seen))

    def apply(self, record):
        self.seen += 1
        return record

    def close(self):
        pass


class AlwaysTrue(Predicate):
    def config(self):
        return ConfigDef()

    def configure(self, props):
        self.tested = 0

    def with_plugin_metrics(self, metrics):
        metrics.add_metric(metrics.metric_name("tested", "Records tested"),
                           lambda: float(self.tested))

    def test(self, record):
        self.tested += 1
        return True

    def close(self):
        pass
"""

_SAMPLE = re.compile(r"^(?P<name>[a-z_]+)\{(?P<labels>[^}]*)\} (?P<value>\S+)$")


def _plugin_samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    out = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m and m["name"].startswith("kafka_connect_plugins_"):
            labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m["labels"]))
            out[(m["name"], labels)] = float(m["value"])
    return out


def _wait(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_plugins_metrics_are_exported_with_kafkas_tags_and_removed_with_the_connector(
    tmp_path: Path, kafka: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = f"metered_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    topic = f"metered-{uuid.uuid4().hex[:8]}"
    app = Standalone(worker_props(tmp_path, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    try:
        assert app.rest is not None
        with httpx.Client(base_url=app.rest.url, timeout=30) as http:
            config = {
                "connector.class": f"{module}:MeteredConnector",
                "topic": topic,
                "transforms": "count",
                "transforms.count.type": f"{module}:CountingTransform",
                "transforms.count.predicate": "yes",
                "predicates": "yes",
                "predicates.yes.type": f"{module}:AlwaysTrue",
                "topic.creation.default.partitions": "1",
                "topic.creation.default.replication.factor": "1",
            }
            created = http.put("/connectors/metered/config", json=config)
            assert created.status_code == 201, created.text
            task = frozenset({("connector", "metered"), ("task", "0")})

            def samples() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
                return _plugin_samples(http.get("/metrics").text)

            polled = ("kafka_connect_plugins_records_polled_total", task)
            _wait(lambda: samples().get(polled) == 30.0, "30 records counted by the task")
            seen = samples()
            assert seen[polled] == 30.0
            assert seen[("kafka_connect_plugins_batch_max", task | {("unit", "records")})] == 10.0
            connector = frozenset({("connector", "metered")})
            assert seen[("kafka_connect_plugins_configured_keys", connector)] == float(
                len(config) + 1  # the worker adds "name"
            )
            transform = task | {("transformation", "count")}
            assert seen[("kafka_connect_plugins_records_seen", transform)] == 30.0
            predicate = task | {("predicate", "yes")}
            assert seen[("kafka_connect_plugins_tested", predicate)] == 30.0
            text = http.get("/metrics").text
            assert "# HELP kafka_connect_plugins_records_seen Records transformed" in text

            assert http.delete("/connectors/metered").status_code == 204
            _wait(lambda: not samples(), "the plugins' metrics to go with the connector")
    finally:
        app.stop()
