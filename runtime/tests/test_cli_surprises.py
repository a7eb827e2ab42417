"""Issue 24's silent surprises: unknown keys are named, embedded-broker offsets never skip data."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from kconnect_runtime import Standalone
from kconnect_sdk import ConfigError
from runtime_harness import file_sink, file_source, line_count, wait_for, worker_props

pytestmark = pytest.mark.integration


def test_unknown_worker_and_connector_keys_are_warned_with_the_closest_key(
    kafka: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "in.txt"
    data.write_text("a\nb\n")
    source = file_source("typo-src", data, "typo-topic", **{"batch.sise": "10"})
    props = worker_props(
        tmp_path,
        kafka,
        **{"offset.flush.intervall.ms": "500", "inter.worker.key.ttl.ms": "60000"},
    )
    with caplog.at_level(logging.WARNING):
        app = Standalone(props, [source])
        app.start()
        app.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert (
        "worker config: unknown worker key 'offset.flush.intervall.ms' (did you mean "
        "'offset.flush.interval.ms'?); it is ignored" in warnings
    )
    assert (
        "connector typo-src: unknown connector key 'batch.sise' (did you mean 'batch.size'?); "
        "it is ignored" in warnings
    )
    # Kafka's request-signing keys: known, but a standalone worker sends no internal requests.
    assert any(
        w.startswith("worker config: inter.worker.key.ttl.ms accepted but without effect")
        for w in warnings
    ), warnings


def test_a_misspelt_bootstrap_servers_does_not_start_the_embedded_broker(tmp_path: Path) -> None:
    props = worker_props(tmp_path, "unused")
    del props["bootstrap.servers"]
    props["bootstrap.server"] = "kafka-1:9092"
    app = Standalone(props)
    with pytest.raises(ConfigError) as refused:
        app.start()
    assert refused.value.name == "bootstrap.server"
    assert "did you mean 'bootstrap.servers'?" in str(refused.value)
    assert "embedded development broker" in str(refused.value)
    assert app.broker is None


def test_a_restart_on_the_embedded_broker_moves_every_line_again(tmp_path: Path) -> None:
    data, out = tmp_path / "in.txt", tmp_path / "out.txt"
    data.write_text("".join(f"line {i}\n" for i in range(50)))
    props = worker_props(tmp_path, "unused")
    del props["bootstrap.servers"]  # the embedded, memory-only broker
    connectors = [
        file_source("src", data, "lines", **{"topic.creation.default.partitions": "1"}),
        file_sink("sink", out, "lines"),
    ]
    app = Standalone(props, connectors)
    app.start()
    try:
        wait_for(lambda: line_count(out) == 50, 120, "the first run's 50 lines")
        offsets = Path(props["offset.storage.file.filename"])
        wait_for(lambda: offsets.is_file() and offsets.stat().st_size > 0, 30, "source offsets")
    finally:
        app.stop()
    out.unlink()
    # A new embedded broker starts empty: offsets kept for the old one would skip every line.
    app = Standalone(props, connectors)
    app.start()
    try:
        wait_for(lambda: line_count(out) == 50, 120, "the second run's 50 lines")
    finally:
        app.stop()
    assert out.read_text() == data.read_text()
    assert Path(str(offsets) + ".previous-broker").is_file()
