"""Throughput of an isolated source connector (plugin.path subprocess) against in-process.

Run: .venv/bin/python bench/bench_isolation.py [--records N] [--batch B]

Installs examples/sequence into a temporary plugin.path location with
``kconnect plugins install`` machinery, then runs the same pipeline twice on an embedded
broker: SequenceSourceConnector -> Kafka -> FileStreamSink, once with the source loaded
in-process (``module:Class`` from the example's source tree) and once from the location
(its task in a plugin host subprocess). Also times bare ``poll()`` of the task without
Kafka, which isolates the protocol's cost. Prints records/s and ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kconnect_runtime import EmbeddedBroker, Standalone
from kconnect_runtime._isolation import IsolatedSourceTask
from kconnect_runtime._plugins_cli import install_plugin
from kconnect_runtime._registry import PluginKind, PluginRegistry

REPO = Path(__file__).resolve().parents[1]
JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}


class _Reader:
    def offset(self, partition: Any) -> None:
        return None

    def offsets(self, partitions: Any) -> list[None]:
        return [None for _ in partitions]


class _Context:
    def __init__(self, props: dict[str, str]) -> None:
        self.configs = props
        self.offset_storage_reader = _Reader()


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def pipeline(
    kafka: str, work: Path, registry: PluginRegistry, connector: str, *, n: int, batch: int
) -> float:
    tag = f"{connector.replace(':', '-').replace('.', '-')}-{time.monotonic_ns()}"
    out = work / f"{tag}.txt"
    worker = {
        "bootstrap.servers": kafka,
        "offset.storage.file.filename": str(work / f"{tag}.offsets"),
        "listeners": "",
        **JSON,
    }
    source = {
        "name": f"seq-{tag}",
        "connector.class": connector,
        "topic": tag,
        "count": str(n),
        "batch.size": str(batch),
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    sink = {"name": f"out-{tag}", "connector.class": "FileStreamSink", "file": str(out)}
    sink["topics"] = tag
    app = Standalone(worker, [source, sink], registry=registry)
    started = time.perf_counter()
    app.start()
    try:
        while _lines(out) < n:
            time.sleep(0.02)
        return n / (time.perf_counter() - started)
    finally:
        app.stop()


def bare_poll(task: Any, n: int, batch: int) -> float:
    props = {"topic": "t", "count": str(n), "batch.size": str(batch)}
    task.initialize(_Context(props))
    task.start(props)
    got = 0
    started = time.perf_counter()
    while got < n:
        records = task.poll() or []
        for record in records:
            task.commit_record(record, None)
        got += len(records)
    elapsed = time.perf_counter() - started
    task.stop()
    return n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    n, batch = args.records, args.batch

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        location = work / "plugins" / "sequence"
        install_plugin([str(REPO / "examples" / "sequence")], location, no_deps=True)
        isolated_registry = PluginRegistry.discover(plugin_path=[work / "plugins"])
        sys.path.insert(0, str(REPO / "examples" / "sequence" / "src"))
        in_process_registry = PluginRegistry.discover()
        from kconnect_example_sequence import (  # type: ignore[import-not-found]  # on sys.path at run time
            SequenceSourceTask,
        )

        target = isolated_registry.resolve("SequenceSource", PluginKind.SOURCE).target
        poll_in = bare_poll(SequenceSourceTask(), n, batch)
        poll_iso = bare_poll(
            IsolatedSourceTask(str(location), target, timeout_s=60, label="bench"), n, batch
        )
        print(f"bare poll+commit_record, batch {batch}, {n} records:")
        print(f"  in-process {poll_in:>12,.0f} rec/s")
        print(f"  isolated   {poll_iso:>12,.0f} rec/s   ratio {poll_iso / poll_in:.2f}")

        broker = EmbeddedBroker()
        kafka = broker.start()
        try:
            pipeline(kafka, work, in_process_registry, target, n=2000, batch=batch)  # warm-up
            rate_in = pipeline(kafka, work, in_process_registry, target, n=n, batch=batch)
            rate_iso = pipeline(kafka, work, isolated_registry, "SequenceSource", n=n, batch=batch)
        finally:
            broker.stop()
        print(f"pipeline sequence -> Kafka -> FileStreamSink, {n} records:")
        print(f"  in-process {rate_in:>12,.0f} rec/s")
        print(
            f"  isolated   {rate_iso:>12,.0f} rec/s   ratio {rate_iso / rate_in:.2f} (goal >= 0.7)"
        )


if __name__ == "__main__":
    main()
