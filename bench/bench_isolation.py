"""Throughput of isolated plugins (plugin.path subprocesses) against in-process.

Run: .venv/bin/python bench/bench_isolation.py [--records N] [--batch B]

Installs examples/sequence, the built-in transforms (kconnect-transforms) and the JSON
converter (kconnect-converter-json; needs orjson from PyPI or uv's cache) into temporary
plugin.path locations with ``kconnect plugins install`` machinery, then measures:

* the protocol's record codec: one record-batch frame with each schema once
  (``pack_records``) against one ``record_to_plain`` dict per record (protocol 1);
* bare ``poll()`` of the sequence source task, ``apply_batch`` of InsertField$Value and
  ``from_connect_batch``/``to_connect_batch`` of the JSON converter, in-process and isolated;
* the pipeline SequenceSource -> [InsertField$Value] -> JsonConverter -> Kafka ->
  FileStreamSink on an embedded broker, with the source, the transform or the value
  converter isolated in turn, against the same pipeline all in-process;
* FileStreamSource -> Kafka -> FileStreamSink with both FileStream connectors isolated
  (connectors/file installed in a location) against both in-process.

Prints records/s and ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic
from kconnect_runtime import (
    EmbeddedBroker,
    IsolatedSourceTask,
    PluginKind,
    PluginRegistry,
    Standalone,
    install_plugin,
    pack_records,
    unpack_records,
)
from kconnect_runtime.plugins import discover_location
from kconnect_sdk import (
    Converter,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    Transformation,
)
from kconnect_sdk.plain import record_from_plain, record_to_plain

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
    kafka: str,
    work: Path,
    registry: PluginRegistry,
    connector: str,
    *,
    n: int,
    batch: int,
    extra: dict[str, str] | None = None,
    input_file: Path | None = None,
) -> float:
    """Records/s from worker start until the sink file holds ``n`` lines.

    The source is ``connector`` (the sequence source's settings), or with ``input_file``
    FileStreamSource reading that file.
    """
    tag = f"{connector.replace(':', '-').replace('.', '-')}-{time.monotonic_ns()}"
    out = work / f"{tag}.txt"
    worker = {
        "bootstrap.servers": kafka,
        "offset.storage.file.filename": str(work / f"{tag}.offsets"),
        "listeners": "",
        # A short session timeout: Tansu's first group join takes half of it.
        "consumer.session.timeout.ms": "6000",
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
        **(extra or {}),
    }
    if input_file is not None:
        source = {"name": f"file-{tag}", "connector.class": connector, "topic": tag}
        source["file"] = str(input_file)
    sink = {"name": f"out-{tag}", "connector.class": "FileStreamSink", "file": str(out)}
    sink["topics"] = tag
    # The topic exists before the worker starts: otherwise a sink that subscribes before a
    # slower-starting (isolated) source created it waits for its next metadata refresh
    # (10 s), and the figure measures that wait instead of the pipeline.
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.create_topics([NewTopic(tag, 1, 1)]).values():
        future.result(10)
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


def _timed(what: Any, n: int) -> float:
    started = time.perf_counter()
    what()
    return n / (time.perf_counter() - started)


ROW = (
    SchemaBuilder.struct()
    .name("bench.Row")
    .field("n", Schema.INT64)
    .field("square", Schema.INT64)
    .field("label", Schema.STRING)
    .build()
)


def _rows(n: int) -> list[SourceRecord]:
    return [
        SourceRecord(
            topic="t",
            key_schema=Schema.INT64,
            key=i,
            value_schema=ROW,
            value=Struct(ROW).put("n", i).put("square", i * i).put("label", f"row {i}"),
            source_partition={"task": 0},
            source_offset={"next": i + 1},
        )
        for i in range(n)
    ]


def codec(n: int, batch: int) -> None:
    """Encode + JSON + decode of record batches: protocol 2's frame against protocol 1's."""
    records = _rows(batch)
    rounds = max(n // batch, 1)

    def per_record() -> None:
        for _ in range(rounds):
            text = json.dumps([record_to_plain(r) for r in records], separators=(",", ":"))
            [record_from_plain(d) for d in json.loads(text)]

    def per_frame() -> None:
        for _ in range(rounds):
            text = json.dumps(pack_records(records), separators=(",", ":"))
            unpack_records(json.loads(text))

    v1, v2 = _timed(per_record, rounds * batch), _timed(per_frame, rounds * batch)
    print(f"record codec (struct values), batch {batch}, {rounds * batch} records:")
    print(f"  record_to_plain per record (protocol 1) {v1:>12,.0f} rec/s")
    print(f"  record batch, columns (protocol 3)      {v2:>12,.0f} rec/s   x{v2 / v1:.2f}")


def bare_transform(transform: Transformation[Any], n: int, batch: int) -> float:
    transform.configure({"static.field": "origin", "static.value": "bench"})
    records = _rows(batch)
    rounds = max(n // batch, 1)

    def run() -> None:
        for _ in range(rounds):
            transform.apply_batch(records)

    try:
        return _timed(run, rounds * batch)
    finally:
        transform.close()


def bare_converter(converter: Converter, n: int, batch: int) -> tuple[float, float]:
    converter.configure({"schemas.enable": "true"}, False)
    items = [("t", r.value_schema, r.value) for r in _rows(batch)]
    rounds = max(n // batch, 1)
    data: list[Any] = []

    def out() -> None:
        for _ in range(rounds):
            data[:] = converter.from_connect_batch(items)

    def back() -> None:
        for _ in range(rounds):
            converter.to_connect_batch([("t", d) for d in data])

    try:
        return _timed(out, rounds * batch), _timed(back, rounds * batch)
    finally:
        converter.close()


def _ratio_line(label: str, rate_in: float, rate_iso: float) -> None:
    print(
        f"  {label:<28} in-process {rate_in:>10,.0f} rec/s   isolated {rate_iso:>10,.0f} rec/s"
        f"   ratio {rate_iso / rate_in:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    n, batch = args.records, args.batch

    codec(n, batch)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        location = work / "plugins" / "sequence"
        install_plugin([str(REPO / "examples" / "sequence")], location, no_deps=True)
        install_plugin([str(REPO / "transforms")], work / "stages" / "transforms", no_deps=True)
        install_plugin([str(REPO / "converters" / "json")], work / "converters" / "json")
        isolated_registry = PluginRegistry.discover(plugin_path=[work / "plugins"])
        transform_registry = PluginRegistry.discover(plugin_path=[work / "stages"])
        converter_registry = PluginRegistry.discover(plugin_path=[work / "converters"])
        install_plugin([str(REPO / "connectors" / "file")], work / "files" / "file", no_deps=True)
        # FileStreamSource and FileStreamSink both resolve to the location's copies here.
        file_registry = PluginRegistry.discover(plugin_path=[work / "files"])
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
        insert = "org.apache.kafka.connect.transforms.InsertField$Value"
        json_name = "org.apache.kafka.connect.json.JsonConverter"
        (tx_desc,) = [
            d for d in discover_location(work / "stages" / "transforms") if d.name == insert
        ]
        (conv_desc,) = [
            d
            for d in discover_location(work / "converters" / "json")
            if d.kind is PluginKind.CONVERTER
        ]
        tx_in = bare_transform(
            in_process_registry.load(insert, PluginKind.TRANSFORMATION)(), n, batch
        )
        tx_iso = bare_transform(tx_desc.load()(), n, batch)
        conv_in = bare_converter(
            in_process_registry.load(json_name, PluginKind.CONVERTER)(), n, batch
        )
        conv_iso = bare_converter(conv_desc.load()(), n, batch)
        print(f"bare calls, batch {batch}, {n} records:")
        _ratio_line("source poll+commit_record", poll_in, poll_iso)
        _ratio_line("InsertField$Value apply", tx_in, tx_iso)
        _ratio_line("JsonConverter from_connect", conv_in[0], conv_iso[0])
        _ratio_line("JsonConverter to_connect", conv_in[1], conv_iso[1])

        stamp = {
            "transforms": "stamp",
            "transforms.stamp.type": insert,
            "transforms.stamp.static.field": "origin",
            "transforms.stamp.static.value": "bench",
        }
        broker = EmbeddedBroker()
        kafka = broker.start()
        try:
            run = partial(pipeline, kafka, work, n=n, batch=batch)
            run(in_process_registry, target, n=2000)  # warm-up
            rate_in = run(in_process_registry, target)
            rate_iso = run(isolated_registry, "SequenceSource")
            rate_tx_in = run(in_process_registry, target, extra=stamp)
            rate_tx_iso = run(transform_registry, target, extra=stamp)
            rate_conv_iso = run(converter_registry, target)
            lines_file = work / "input.txt"
            lines_file.write_text(
                "".join(f"line {i:08d} of the benchmark input\n" for i in range(n))
            )
            rate_file_in = run(in_process_registry, "FileStreamSource", input_file=lines_file)
            rate_file_iso = run(file_registry, "FileStreamSource", input_file=lines_file)
        finally:
            broker.stop()
        print(
            f"pipeline sequence -> [InsertField] -> JsonConverter -> Kafka -> FileStreamSink, {n} records:"
        )
        _ratio_line("source isolated", rate_in, rate_iso)
        _ratio_line("converters isolated (both ends)", rate_in, rate_conv_iso)
        _ratio_line("transform isolated", rate_tx_in, rate_tx_iso)
        print(f"pipeline FileStreamSource -> Kafka -> FileStreamSink, {n} lines:")
        _ratio_line("both connectors isolated", rate_file_in, rate_file_iso)
        print("(goal for each ratio >= 0.8)")


if __name__ == "__main__":
    main()
