"""Converters, transforms and predicates from plugin.path run in their location's interpreter.

The two example plugins pin different versions of one PyPI library (semver 2.13.0 in
examples/semver-tag, 3.0.4 in examples/semver-bump); installing them needs PyPI (or uv's
cache). Both run in one worker at once, in one transform chain, and each sees its own
semver.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import signal
import sys
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from kconnect_runtime import Standalone
from kconnect_runtime.isolation import _proxies as proxies
from kconnect_runtime.isolation import close_idle_hosts
from kconnect_runtime.modes import free_port
from kconnect_runtime.plugins import PluginKind, PluginRegistry, discover_location, install_plugin
from kconnect_sdk import (
    ConfigError,
    ConnectError,
    Converter,
    Date,
    Decimal,
    HeaderConverter,
    Schema,
    SchemaBuilder,
    SinkRecord,
    Struct,
    Timestamp,
)
from runtime_harness import (
    file_sink,
    file_source,
    host_pids,
    line_count,
    wait_for,
    worker_props,
)

REPO = Path(__file__).resolve().parents[2]
TAG = "kconnect_example_semver_tag"
BUMP = "kconnect_example_semver_bump"


@pytest.fixture(scope="module")
def semver_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plugin.path with the two semver examples, each in its own location."""
    root = tmp_path_factory.mktemp("semver-plugins")
    for example in ("semver-tag", "semver-bump"):
        install_plugin([str(REPO / "examples" / example)], root / example)
    return root


@pytest.fixture(scope="module")
def registry(semver_path: Path) -> PluginRegistry:
    return PluginRegistry.discover(plugin_path=[semver_path])


def read_topic(kafka: str, topic: str, expected: int) -> list[Any]:
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"peek-{uuid.uuid4().hex[:6]}"})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    out: list[Any] = []
    try:
        wait_for(
            lambda: (
                bool(out.extend(m for m in consumer.consume(100, 0.2) if not m.error()))
                or len(out) >= expected
            ),
            20,
            f"{expected} records in {topic}",
        )
    finally:
        consumer.close()
    return out


def test_location_transforms_and_predicates_are_available(registry: PluginRegistry) -> None:
    tag = registry.resolve("SemverTag", PluginKind.TRANSFORMATION)
    pre = registry.resolve("IsPrerelease", PluginKind.PREDICATE)
    bump = registry.resolve("SemverBump", PluginKind.TRANSFORMATION)
    assert all(d.available and d.isolated for d in (tag, pre, bump)), (tag, pre, bump)
    assert tag.location != bump.location
    instance = tag.load()()
    try:
        instance.configure({"header.prefix": "v"})
        assert instance.version() == "0.1.0"
        assert set(instance.config().config_keys) == {"field", "header.prefix"}
    finally:
        instance.close()
    # A bad setting is a ConfigError, as in-process, so validation answers 400 not 500.
    bad = bump.load()()
    try:
        with pytest.raises(ConfigError, match="Invalid value huge for configuration part"):
            bad.configure({"part": "huge"})
    finally:
        bad.close()


def test_worker_plugins_in_a_location_are_unavailable_with_the_reason(tmp_path: Path) -> None:
    site = (
        tmp_path
        / "mixed"
        / f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
    )
    info = site / "kc_mixed-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kc-mixed\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[kconnect.converters]\nAvro = kc_mixed:Avro\n"
        "[kconnect.config_providers]\nvault = kc_mixed:Vault\n"
        "[kconnect.rest_extensions]\naudit = kc_mixed:Audit\n"
        "[kconnect.connector_client_config_override_policies]\nmine = kc_mixed:Mine\n"
    )
    plugins = {p.kind: p for p in discover_location(tmp_path / "mixed")}
    assert plugins[PluginKind.CONVERTER].available
    provider = plugins[PluginKind.CONFIG_PROVIDER]
    assert provider.error is not None
    assert "config providers do not run isolated" in provider.error
    with pytest.raises(ConfigError, match="unavailable: config providers"):
        provider.load()
    extension = plugins[PluginKind.REST_EXTENSION]
    assert extension.error is not None and "REST extensions do not run isolated" in extension.error
    policy = plugins[PluginKind.CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY]
    assert policy.error is not None
    assert "client config override policies do not run isolated" in policy.error


@pytest.mark.integration
def test_two_versions_of_one_library_run_side_by_side_in_one_worker(
    kafka: str, tmp_path: Path, registry: PluginRegistry, semver_path: Path
) -> None:
    topic = f"semver-{uuid.uuid4().hex[:8]}"
    src, out = tmp_path / "versions.txt", tmp_path / "bumped.txt"
    inputs = ["1.2.3", "1.2", "2.0.0-rc.1", "0.9.0"]
    src.write_text("".join(f"{v}\n" for v in inputs))
    # semver 2.x tags, semver 3.x bumps, in one chain: the bump skips prereleases, as
    # judged by the 2.x predicate.
    chain = {
        "transforms": "tag,bump",
        "transforms.tag.type": f"{TAG}.SemverTag",
        "transforms.tag.header.prefix": "semver",
        "transforms.bump.type": "SemverBump",
        "transforms.bump.part": "minor",
        "transforms.bump.predicate": "pre",
        "transforms.bump.negate": "true",
        "predicates": "pre",
        "predicates.pre.type": "IsPrerelease",
    }
    connectors = [file_source("versions", src, topic, **chain), file_sink("bumped", out, topic)]
    app = Standalone(worker_props(tmp_path, kafka), connectors, registry=registry)
    app.start()
    try:
        wait_for(lambda: line_count(out) >= 4, 30, "4 transformed lines in the sink file")
        # One host per plugin instance, from both locations, alive at the same time.
        assert host_pids(semver_path / "semver-tag") and host_pids(semver_path / "semver-bump")
        messages = read_topic(kafka, topic, 4)
    finally:
        app.stop()
    assert out.read_text().splitlines() == ["1.3.0", "1.3.0", "2.0.0-rc.1", "0.10.0"]
    headers = [{k: (v or b"").decode() for k, v in m.headers() or []} for m in messages]
    assert [h["semver.library"] for h in headers] == ["2.13.0"] * 4
    assert [h.get("semver.bump.library") for h in headers] == ["3.0.4", "3.0.4", None, "3.0.4"]
    # "1.2": not a version to semver 2.x (strict), yet bumped by 3.x (lenient) to 1.3.0.
    assert [h["semver.valid"] for h in headers] == ["true", "false", "true", "true"]
    assert headers[2]["semver.prerelease"] == "rc.1"
    assert not host_pids(semver_path / "semver-tag"), "hosts outlived the worker"


def committed(kafka: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": group})
    try:
        offset: int = consumer.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
        return offset
    finally:
        consumer.close()


def rest(port: int, method: str, path: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        status: int = response.status
        return status


@pytest.mark.integration
def test_killed_transform_host_fails_only_its_task_and_a_rest_restart_recovers(
    kafka: str, tmp_path: Path, registry: PluginRegistry, semver_path: Path
) -> None:
    topic = f"semver-kill-{uuid.uuid4().hex[:8]}"
    src, bumped, copied = tmp_path / "in.txt", tmp_path / "bumped.txt", tmp_path / "copy.txt"
    src.write_text("".join(f"1.{i}.0\n" for i in range(10)))
    port = free_port()
    worker = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}")
    bump = {"transforms": "bump", "transforms.bump.type": "SemverBump"}
    connectors = [
        file_source("versions", src, topic),
        file_sink("bumps", bumped, topic, **bump),
        file_sink("copies", copied, topic),
    ]
    app = Standalone(worker, connectors, registry=registry)
    app.start()
    try:
        assert app.herder is not None
        worker_ = app.herder

        def task(name: str) -> dict[str, str]:
            return dict(worker_.task_status(name, 0))

        wait_for(lambda: line_count(bumped) >= 10, 30, "the first 10 bumped lines")
        # Killed only once they are committed, so the restart resumes after them.
        wait_for(lambda: committed(kafka, "connect-bumps", topic) == 10, 20, "a commit at 10")
        (pid,) = host_pids(semver_path / "semver-bump")
        os.kill(pid, signal.SIGKILL)
        with src.open("a") as f:
            f.write("".join(f"2.{i}.0\n" for i in range(10)))

        wait_for(lambda: task("bumps")["state"] == "FAILED", 20, "the bumping task to fail")
        trace = task("bumps")["trace"]
        assert f"{BUMP}.SemverBump" in trace and "exited (code -9)" in trace, trace
        # The other connector on the same topic keeps moving.
        wait_for(lambda: line_count(copied) >= 20, 30, "all 20 lines copied")
        assert task("copies")["state"] == "RUNNING"
        assert line_count(bumped) == 10

        assert rest(port, "POST", "/connectors/bumps/tasks/0/restart") == 204
        wait_for(lambda: line_count(bumped) >= 20, 30, "the restarted task to catch up")
        assert task("bumps")["state"] == "RUNNING"
    finally:
        app.stop()
    expected = [f"1.{i + 1}.0" for i in range(10)] + [f"2.{i + 1}.0" for i in range(10)]
    assert bumped.read_text().splitlines() == expected


# Converters: the JSON converter in a location must give the very bytes and values the
# in-process one gives.


@pytest.fixture(scope="module")
def json_location(tmp_path_factory: pytest.TempPathFactory) -> Path:
    location = tmp_path_factory.mktemp("converter-path") / "json"
    install_plugin([str(REPO / "converters" / "json")], location)
    return location


def _isolated(location: Path, kind: PluginKind) -> Any:
    (desc,) = [d for d in discover_location(location) if d.kind is kind]
    assert desc.available and desc.isolated
    return desc.load()()


ORDER = (
    SchemaBuilder.struct()
    .name("com.example.Order")
    .field("id", Schema.INT64)
    .field("price", Decimal.schema(2))
    .field("placed", Timestamp.SCHEMA)
    .field("day", Date.SCHEMA)
    .field("blob", Schema.BYTES)
    .field("note", Schema.OPTIONAL_STRING)
    .field("tags", SchemaBuilder.array(Schema.STRING).build())
    .field("attrs", SchemaBuilder.map(Schema.STRING, Schema.FLOAT64).build())
    .build()
)


def _order(n: int) -> Struct:
    return (
        Struct(ORDER)
        .put("id", n)
        .put("price", decimal.Decimal("12.34") * n)
        .put("placed", dt.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=dt.UTC))
        .put("day", dt.date(2024, 5, 6))
        .put("blob", bytes(range(n, n + 8)) + b"\x00\xff")
        .put("note", None if n % 2 else f"note {n}")
        .put("tags", ["a", "ü"])
        .put("attrs", {"w": 1.5, "nan-free": -0.0})
    )


@pytest.mark.parametrize("schemas_enable", ["true", "false"])
def test_isolated_converter_round_trips_like_the_in_process_one(
    json_location: Path, schemas_enable: str
) -> None:
    config = {"schemas.enable": schemas_enable, "decimal.format": "BASE64"}
    local: Converter = PluginRegistry.discover().load(
        "org.apache.kafka.connect.json.JsonConverter", PluginKind.CONVERTER
    )()
    remote: Converter = _isolated(json_location, PluginKind.CONVERTER)
    local.configure(config, False)
    remote.configure(config, False)
    try:
        items: list[tuple[str, Schema | None, Any]] = [
            ("t", ORDER, _order(1)),
            ("t", ORDER, _order(2)),
            ("t", Schema.BYTES, b"\x00raw\xff"),
            ("t", Schema.OPTIONAL_STRING, None),  # tombstone
            ("t", None, None),
            ("t", None, {"k": [1, 2.5, "x", None]}),
        ]
        data = remote.from_connect_batch(items)
        assert data == local.from_connect_batch(items)
        assert data[4] is None  # a tombstone stays one
        back = remote.to_connect_batch([(t, d) for t, d in [("t", x) for x in data]])
        assert back == local.to_connect_batch([("t", d) for d in data])
        if schemas_enable == "true":
            assert back[0].value == _order(1) and back[0].schema == ORDER
        # Single-record calls are batches of one.
        assert remote.from_connect_data("t", ORDER, _order(3)) == local.from_connect_data(
            "t", ORDER, _order(3)
        )
    finally:
        local.close()
        remote.close()


def test_a_closed_converters_host_serves_the_next_instance_with_a_fresh_plugin(
    json_location: Path,
) -> None:
    close_idle_hosts()  # hosts other tests left idle
    first: Converter = _isolated(json_location, PluginKind.CONVERTER)
    first.configure({"schemas.enable": "true"}, False)
    assert json.loads(first.from_connect_data("t", Schema.INT32, 7) or b"")["payload"] == 7
    pids = host_pids(json_location)
    assert len(pids) == 1
    first.close()
    # Validating a config builds and closes converters its tasks build again at once:
    # the next instance loads a new plugin in the idle host instead of starting one.
    second: Converter = _isolated(json_location, PluginKind.CONVERTER)
    second.configure({"schemas.enable": "false"}, False)
    try:
        assert second.from_connect_data("t", Schema.INT32, 7) == b"7"  # its own settings
        assert host_pids(json_location) == pids
    finally:
        second.close()
    (pid,) = host_pids(json_location)
    os.kill(pid, signal.SIGKILL)  # dies while idle: never handed out again
    wait_for(lambda: not host_pids(json_location), 10, "the killed host to go")
    third: Converter = _isolated(json_location, PluginKind.CONVERTER)
    third.configure({"schemas.enable": "false"}, False)
    try:
        assert third.to_connect_data("t", b'{"a":1}') == (None, {"a": 1})
        assert host_pids(json_location) not in ([], [pid])
    finally:
        third.close()
    close_idle_hosts()  # what a stopping worker does
    assert not host_pids(json_location)


def test_an_idle_host_exits_after_its_time(
    json_location: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    close_idle_hosts()
    monkeypatch.setattr(proxies, "IDLE_HOST_TTL_S", 0.2)
    converter: Converter = _isolated(json_location, PluginKind.CONVERTER)
    converter.configure({"schemas.enable": "false"}, True)
    converter.close()
    assert host_pids(json_location)
    wait_for(lambda: not host_pids(json_location), 10, "the idle host to exit")


def test_isolated_header_converter_and_transform_records_cross_losslessly(
    json_location: Path, registry: PluginRegistry
) -> None:
    header: HeaderConverter = _isolated(json_location, PluginKind.HEADER_CONVERTER)
    header.configure({"schemas.enable": "true"})
    tag = registry.load("SemverTag", PluginKind.TRANSFORMATION)()
    tag.configure({"field": "v"})
    try:
        data = header.from_connect_header("t", "h", ORDER, _order(4))
        assert header.to_connect_header("t", "h", data) == (ORDER, _order(4))
        schema = SchemaBuilder.struct().field("v", Schema.STRING).field("o", ORDER).build()
        value = Struct(schema).put("v", "3.1.4-beta").put("o", _order(5))
        record = SinkRecord(
            topic="t",
            kafka_partition=2,
            key_schema=Schema.BYTES,
            key=b"\x01\x02",
            value_schema=schema,
            value=value,
            timestamp=1700000000000,
            kafka_offset=42,
        )
        (out,) = tag.apply_batch([record])
        assert out.value == value and out.key == b"\x01\x02"
        assert (out.kafka_offset, out.original_kafka_offset, out.timestamp) == (
            42,
            42,
            1700000000000,
        )
        assert out.headers.last_with_name("semver.prerelease").value == "beta"
        assert tag.apply_batch([]) == []
    finally:
        header.close()
        tag.close()


def test_hung_transform_host_fails_the_call_with_a_timeout(registry: PluginRegistry) -> None:
    bump = registry.load("SemverBump", PluginKind.TRANSFORMATION)()
    bump.configure({"plugin.call.timeout.ms": "1000"})
    record = SinkRecord(topic="t", value_schema=Schema.STRING, value="1.0.0", kafka_offset=0)
    try:
        assert bump.apply(record).value == "1.1.0"
        os.kill(bump._process.pid, signal.SIGSTOP)
        with pytest.raises(
            ConnectError, match=r"no answer to 'apply_batch' within 1s; host killed"
        ):
            bump.apply_batch([record])
        with pytest.raises(ConnectError, match="plugin host is not running"):
            bump.apply(record)
    finally:
        bump.close()


def test_describe_runs_in_the_location(semver_path: Path) -> None:
    from kconnect_runtime.isolation import PluginProcess

    host = PluginProcess(str(semver_path / "semver-bump"), "", "", load=False)
    try:
        described = host.call(
            "describe", {"kind": "transformation", "target": f"{BUMP}:SemverBump"}
        )
    finally:
        host.close()
    assert described["version"] == "0.1.0"
    (part,) = described["config"]
    assert (part["name"], part["default"], part["importance"]) == ("part", "minor", "HIGH")
    assert json.dumps(described)  # plain data
