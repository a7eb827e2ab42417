"""Process isolation: plugins from a plugin.path location run in that location's interpreter."""

from __future__ import annotations

import contextlib
import json
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.isolation import IsolatedSinkTask, close_idle_hosts
from kconnect_runtime.plugins import PluginKind, PluginRegistry, install_plugin
from kconnect_sdk import ConnectError, SinkRecord, TopicPartition
from kconnect_testkit import RecordingErrantReporter, RecordingSinkContext
from runtime_harness import (
    file_sink,
    file_source,
    host_pids,
    line_count,
    wait_for,
    worker_props,
)

REPO = Path(__file__).resolve().parents[2]

# A plugin that misbehaves on purpose: after a few polls its process dies (or hangs).
FLAKY = """
import os, sys, threading, time
from kconnect_sdk import ConfigDef, ConnectError, Schema, SourceConnector, SourceRecord, SourceTask

class FlakySourceConnector(SourceConnector):
    def config(self):
        return ConfigDef().accept_prefix("flaky.client.", "settings of the flaky client")
    def alter_offsets(self, props, offsets):
        for partition, offset in offsets:
            if offset is not None and not isinstance(offset.get("n"), int):
                raise ConnectError(f"offset {offset!r} for {partition!r} has no integer 'n'")
        return True
    def start(self, props): self.props = dict(props)
    def task_class(self): return FlakySourceTask
    def task_configs(self, max_tasks): return [self.props]
    def stop(self): pass

class FlakySourceTask(SourceTask):
    def start(self, props):
        self.props, self.polls, self.stopped = props, 0, threading.Event()
        with open(props["starts.file"], "a") as f:
            f.write("start\\n")
    def poll(self):
        self.polls += 1
        if self.polls > 3:
            if self.props["mode"] == "hang":
                time.sleep(3600)
            if self.props["mode"] == "block":  # until stop(), from another thread
                self.stopped.wait()
                return None
            print("flaky: the device went away", file=sys.stderr, flush=True)
            os._exit(3)
        time.sleep(0.05)
        return [SourceRecord(topic=self.props["topic"], value_schema=Schema.STRING, value="x",
                             source_partition={"p": 0}, source_offset={"n": self.polls})]
    def stop(self): self.stopped.set()
"""

JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}


@contextlib.contextmanager
def running(
    worker: Mapping[str, str], connectors: Sequence[Mapping[str, str]], registry: PluginRegistry
) -> Iterator[Standalone]:
    app = Standalone(worker, connectors, registry=registry)
    app.start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="module")
def plugin_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin-path")
    location = root / "sequence"
    install_plugin([str(REPO / "examples" / "sequence")], location, no_deps=True)
    (site,) = location.glob("lib/python3*/site-packages")
    (site / "kc_flaky.py").write_text(FLAKY)
    info = site / "kc_flaky-0.3.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: kc-flaky\nVersion: 0.3.0\nRequires-Dist: kconnect-sdk>=0.1\n"
    )
    (info / "entry_points.txt").write_text(
        "[kconnect.source_connectors]\nkc_flaky.FlakySourceConnector = kc_flaky:FlakySourceConnector\n"
    )
    return root


@pytest.fixture(scope="module")
def registry(plugin_root: Path) -> PluginRegistry:
    return PluginRegistry.discover(plugin_path=[plugin_root])


def test_installed_plugin_is_discovered_with_its_location(
    plugin_root: Path, registry: PluginRegistry
) -> None:
    desc = registry.resolve("SequenceSource", PluginKind.SOURCE)
    assert desc.location == str(plugin_root / "sequence")
    assert (desc.distribution, desc.version, desc.available) == (
        "kconnect-example-sequence",
        "0.1.0",
        True,
    )
    sink = registry.resolve("JsonLinesSink", PluginKind.SINK)
    assert sink.location == str(plugin_root / "sequence")
    # The location is its own interpreter: the plugin is importable there, not here.
    assert "kconnect_example_sequence" not in sys.modules


def test_a_connector_asked_only_for_its_config_lends_its_host_to_the_next(
    registry: PluginRegistry, plugin_root: Path
) -> None:
    close_idle_hosts()
    location = plugin_root / "sequence"
    cls = registry.load("SequenceSource", PluginKind.SOURCE)
    # The worker asks a new instance for its definition (which keys are passwords), then
    # validates and runs the config with another: one host serves both, one after the other.
    assert "count" in cls().config().config_keys
    pids = host_pids(location)
    assert len(pids) == 1
    connector = cls()
    props = {"topic": "t", "count": "3"}
    try:
        assert not [v for v in connector.validate(props) if v.error_messages]
        assert host_pids(location) == pids
        connector.start(props)
        assert connector.task_configs(1)[0]["topic"] == "t"
    finally:
        connector.stop()
    assert not host_pids(location), "a stopped connector's host exits; it is not kept"


def test_an_isolated_connectors_accepted_prefixes_cross_to_the_runtime(
    registry: PluginRegistry,
) -> None:
    from kconnect_runtime.config import unknown_connector_keys

    cls = registry.load("kc_flaky.FlakySourceConnector", PluginKind.SOURCE)
    definition = cls().config()
    assert dict(definition.accepted_prefixes) == {"flaky.client.": "settings of the flaky client"}
    props = {"name": "f", "flaky.client.retries": "3", "flaky.clent.retries": "3"}
    unknown = unknown_connector_keys(props, definition.config_keys, definition.accepted_prefixes)
    assert [u.key for u in unknown] == ["flaky.clent.retries"]


def test_alter_offsets_is_answered_by_the_plugin_in_its_location(
    registry: PluginRegistry,
) -> None:
    connector = registry.load("FlakySource", PluginKind.SOURCE)()
    try:
        assert connector.alter_offsets({}, [({"p": 0}, {"n": 7}), ({"p": 1}, None)]) is True
        with pytest.raises(ConnectError, match=r"has no integer 'n'"):
            connector.alter_offsets({}, [({"p": 0}, {"n": "seven"})])
    finally:
        connector.stop()


def test_isolated_sink_reports_errant_records_to_the_runtime_reporter(
    registry: PluginRegistry, tmp_path: Path
) -> None:
    desc = registry.resolve("JsonLinesSink", PluginKind.SINK)
    assert desc.location is not None
    task = IsolatedSinkTask(desc.location, desc.target, timeout_s=30, label="jsonl")
    reporter = RecordingErrantReporter()
    props = {"file": str(tmp_path / "out.jsonl")}
    tp = TopicPartition("t", 0)
    task.initialize(RecordingSinkContext(props, assignment={tp}, reporter=reporter))
    task.start(props)
    try:
        task.open([tp])
        bad = SinkRecord(topic="t", kafka_partition=0, kafka_offset=5, value=b"\xff")
        good = SinkRecord(topic="t", kafka_partition=0, kafka_offset=6, value="ok")
        task.put([bad, good])
        task.flush({tp: 7})
    finally:
        task.stop()
    ((record, error),) = reporter.reported
    assert (record.kafka_offset, record.value) == (5, b"\xff")
    assert "DataError" in str(error) and "cannot be written as JSON" in str(error)
    assert (tmp_path / "out.jsonl").read_text().splitlines() == ['"ok"']


@pytest.mark.integration
def test_isolated_source_and_sink_move_records_through_kafka(
    kafka: str, tmp_path: Path, registry: PluginRegistry
) -> None:
    topic = f"iso-{uuid.uuid4().hex[:8]}"
    out, jsonl = tmp_path / "out.txt", tmp_path / "out.jsonl"
    source = {
        "name": "numbers",
        "connector.class": "SequenceSource",
        "topic": topic,
        "count": "300",
        "batch.size": "50",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **JSON,
    }
    in_process_sink = file_sink("to-file", out, topic, **JSON)
    isolated_sink = {
        "name": "to-jsonl",
        "connector.class": "JsonLinesSink",
        "topics": topic,
        "file": str(jsonl),
        **JSON,
    }
    connectors = [source, in_process_sink, isolated_sink]
    with running(worker_props(tmp_path, kafka), connectors, registry) as app:
        wait_for(lambda: line_count(out) >= 300, 30, "300 lines through the in-process sink")
        wait_for(lambda: line_count(jsonl) >= 300, 30, "300 lines through the isolated sink")
        assert app.herder is not None
        status = app.herder.connector_status("numbers")
        assert [t["state"] for t in status["tasks"]] == ["RUNNING"]
    numbers = sorted(json.loads(line)["n"] for line in jsonl.read_text().splitlines())
    assert numbers[:3] == [0, 1, 2] and numbers[-1] == 299
    assert "kconnect_example_sequence" not in sys.modules


@pytest.mark.integration
def test_crashed_or_hung_plugin_fails_only_its_task(
    kafka: str, tmp_path: Path, registry: PluginRegistry
) -> None:
    topic = f"iso-files-{uuid.uuid4().hex[:8]}"
    src, out = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_text("".join(f"line {i}\n" for i in range(100)))
    starts = tmp_path / "starts.txt"
    crash = {
        "name": "crashes",
        "connector.class": "kc_flaky.FlakySourceConnector",
        "topic": f"{topic}-crash",
        "mode": "crash",
        "starts.file": str(starts),
    }
    hang = {
        "name": "hangs",
        "connector.class": "FlakySource",
        "topic": f"{topic}-hang",
        "mode": "hang",
        "starts.file": str(tmp_path / "hang-starts.txt"),
        "plugin.call.timeout.ms": "1500",
    }
    block = {**hang, "name": "blocks", "mode": "block", "plugin.call.timeout.ms": "60000"}
    block["starts.file"] = str(tmp_path / "block-starts.txt")
    connectors = [
        crash,
        hang,
        block,
        file_source("lines", src, topic),
        file_sink("copy", out, topic),
    ]
    app = Standalone(worker_props(tmp_path, kafka), connectors, registry=registry)
    app.start()
    try:
        worker = app.herder
        assert worker is not None

        def task(name: str) -> dict[str, str]:
            return dict(worker.task_status(name, 0))

        wait_for(lambda: task("crashes")["state"] == "FAILED", 20, "the crashing task to fail")
        trace = task("crashes")["trace"]
        assert "plugin host exited (code 3)" in trace
        assert "flaky: the device went away" in trace
        wait_for(lambda: task("hangs")["state"] == "FAILED", 20, "the hanging task to fail")
        assert "no answer to 'poll' within 1.5s" in task("hangs")["trace"]

        # The in-process pipeline is untouched and keeps moving data.
        wait_for(lambda: line_count(out) >= 100, 30, "the first 100 lines")
        with src.open("a") as f:
            f.write("".join(f"more {i}\n" for i in range(50)))
        wait_for(lambda: line_count(out) >= 150, 30, "lines appended after the failures")
        assert task("lines")["state"] == "RUNNING" and task("copy")["state"] == "RUNNING"
        assert worker.connector_status("crashes")["connector"]["state"] == "RUNNING"

        # A FAILED isolated task is restartable: a fresh plugin host starts it again.
        worker.restart_task("crashes", 0)
        wait_for(lambda: line_count(starts) == 2, 20, "the restarted task's second start")
        wait_for(lambda: task("crashes")["state"] == "FAILED", 20, "the restarted task to fail")
        assert task("blocks")["state"] == "RUNNING"
    finally:
        started = time.monotonic()
        app.stop()
    # stop() reaches a poll() blocked inside the plugin host at once, not after 60 s.
    assert time.monotonic() - started < 15
