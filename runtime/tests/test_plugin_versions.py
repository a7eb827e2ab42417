"""KIP-891: several versions of one plugin side by side, pinned per connector, per REST call.

Two versions of a small source connector are built as wheels here and installed each into
a plugin.path location of its own with ``kconnect plugins install``; the versions stamp
their records with their own version and differ in one config key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import textwrap
import uuid
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.cli import describe_plugin
from kconnect_runtime.plugins import PluginDesc, PluginKind, PluginRegistry
from kconnect_runtime.tasks import TransformChain, build_converters
from kconnect_sdk import Schema, SourceRecord
from runtime_harness import file_sink, line_count, wait_for, worker_props

KCONNECT = str(Path(sys.executable).with_name("kconnect"))
STAMP = "kc_stamp.StampSourceConnector"
VERSIONS = ("1.0.0", "2.0.0")

# The connector: its task writes "<its version()>:<n>" for n in 0..count-1, once.
STAMP_SOURCE = """
import threading
from kconnect_sdk import (
    ConfigDef, ConfigType, Importance, Schema, SourceConnector, SourceRecord, SourceTask
)

CONFIG = (
    ConfigDef()
    .define("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Where to.")
    .define("count", ConfigType.INT, 20, importance=Importance.MEDIUM, documentation="How many.")
    .define("token", ConfigType.PASSWORD, "s3cret-default-token", importance=Importance.LOW,
            documentation="A secret with a default.")
    {extra}
)

class StampSourceConnector(SourceConnector):
    def config(self): return CONFIG
    def start(self, props): self.props = dict(props)
    def task_class(self): return StampSourceTask
    def task_configs(self, max_tasks): return [self.props]
    def stop(self): pass

class StampSourceTask(SourceTask):
    def start(self, props):
        self.topic, self.count = props["topic"], int(props.get("count", "20"))
        self.sent, self.stopping = False, threading.Event()
    def poll(self):
        if self.sent:
            self.stopping.wait(0.2)
            return None
        self.sent = True
        return [
            SourceRecord(topic=self.topic, value_schema=Schema.STRING,
                         value=f"{{self.version()}}:{{n}}", source_partition={{"t": self.topic}},
                         source_offset={{"n": n}})
            for n in range(self.count)
        ]
    def stop(self): self.stopping.set()
"""
# Only version 2 has this key: /config?version= must show the difference.
V2_KEY = '.define("flavour", ConfigType.STRING, "plain", importance=Importance.LOW, documentation="New in 2.")'


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def build_wheel(out: Path, version: str) -> Path:
    """A pure-Python wheel of kc-stamp ``version`` (no build backend needed)."""
    info = f"kc_stamp-{version}.dist-info"
    extra = V2_KEY if version.startswith("2.") else ""
    files = {
        "kc_stamp/__init__.py": STAMP_SOURCE.format(extra=extra),
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: kc-stamp\nVersion: {version}\n"
            "Requires-Dist: kconnect-sdk>=0.1\n"
        ),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: kconnect-tests\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
        f"{info}/entry_points.txt": (
            f"[kconnect.source_connectors]\n{STAMP} = kc_stamp:StampSourceConnector\n"
        ),
    }
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"kc_stamp-{version}-py3-none-any.whl"
    record = ""
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, text in files.items():
            data = text.encode()
            zf.writestr(path, data)
            record += _record_line(path, data)
        zf.writestr(f"{info}/RECORD", record + f"{info}/RECORD,,\n")
    return wheel


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """plugin.path with kc-stamp 1.0.0 and 2.0.0, each installed by the CLI into its own location."""
    root = tmp_path_factory.mktemp("versions")
    for version in VERSIONS:
        wheel = build_wheel(root / "wheels", version)
        location = root / "plugins" / f"stamp-{version}"
        done = subprocess.run(
            [KCONNECT, "plugins", "install", str(wheel), "--no-deps", "--path", str(location)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert STAMP in done.stdout and version in done.stdout
    return root / "plugins"


@pytest.fixture(scope="module")
def app(
    kafka: str, plugin_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Standalone]:
    work = tmp_path_factory.mktemp("versions-worker")
    props = worker_props(work, kafka, listeners="http://127.0.0.1:0")
    props["plugin.path"] = str(plugin_path)
    standalone = Standalone(props)
    standalone.start()
    try:
        yield standalone
    finally:
        standalone.stop()


@pytest.fixture(scope="module")
def api(app: Standalone) -> Iterator[httpx.Client]:
    assert app.rest is not None
    with httpx.Client(base_url=app.rest.url, timeout=30) as client:
        yield client


def _stamp(name: str, topic: str, version: str | None) -> dict[str, str]:
    config = {
        "connector.class": "StampSource",
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    if version is not None:
        config["connector.plugin.version"] = version
    return config


@pytest.mark.integration
def test_connectors_pinned_to_two_versions_run_at_once(
    api: httpx.Client, tmp_path: Path, plugin_path: Path
) -> None:
    run = uuid.uuid4().hex[:8]
    pins = {"1.0.0": "1.0.0", "2.0.0": "[2.0,3.0)"}  # an exact pin and a Maven range
    outputs = {}
    for version, pin in pins.items():
        topic = f"stamp-{version}-{run}"
        created = api.post(
            "/connectors", json={"name": f"stamp-{version}-{run}", "config": _stamp("", topic, pin)}
        )
        assert created.status_code == 201, created.text
        outputs[version] = tmp_path / f"{version}.txt"
        sink = file_sink(f"sink-{version}-{run}", outputs[version], topic)
        del sink["name"]
        assert (
            api.post(
                "/connectors", json={"name": f"sink-{version}-{run}", "config": sink}
            ).status_code
            == 201
        )
    for version, out in outputs.items():
        wait_for(lambda out=out: line_count(out) >= 20, 40, f"20 records from kc-stamp {version}")
    for version, out in outputs.items():
        lines = out.read_text().splitlines()
        # Each connector ran its own version's code: every record carries that version.
        assert sorted(lines, key=lambda s: int(s.split(":")[1])) == [
            f"{version}:{n}" for n in range(20)
        ]
        status = api.get(f"/connectors/stamp-{version}-{run}/status").json()
        assert status["connector"]["state"] == "RUNNING"
        assert status["connector"]["version"] == version
        assert [(t["state"], t["version"]) for t in status["tasks"]] == [("RUNNING", version)]
        task = api.get(f"/connectors/stamp-{version}-{run}/tasks/0/status").json()
        assert task["version"] == version
    # The runtime's own plugins report their versions too.
    sink_status = api.get(f"/connectors/sink-1.0.0-{run}/status").json()
    assert sink_status["connector"]["version"] == sink_status["tasks"][0]["version"] == "0.1.0"
    # Unpinned, the newest installed version runs.
    newest = api.post(
        "/connectors", json={"name": f"stamp-newest-{run}", "config": _stamp("", f"n-{run}", None)}
    )
    assert newest.status_code == 201
    wait_for(
        lambda: api.get(f"/connectors/stamp-newest-{run}/status").json()["tasks"][:1] != [],
        20,
        "the unpinned connector's task",
    )
    assert (
        api.get(f"/connectors/stamp-newest-{run}/status").json()["connector"]["version"] == "2.0.0"
    )


@pytest.mark.integration
def test_pin_to_an_uninstalled_version_is_refused(api: httpx.Client) -> None:
    refused = api.post(
        "/connectors", json={"name": "stamp-missing", "config": _stamp("", "t", "3.0.0")}
    )
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert "connector.plugin.version" in message
    assert "available versions: 1.0.0, 2.0.0" in message
    assert "stamp-missing" not in api.get("/connectors").json()
    bad = api.post("/connectors", json={"name": "stamp-bad", "config": _stamp("", "t", "[1.0")})
    assert bad.status_code == 400 and "[1.0,2.0)" in bad.json()["message"]


@pytest.mark.integration
def test_plugin_listings_show_every_version_of_every_kind(api: httpx.Client) -> None:
    connectors = api.get("/connector-plugins").json()
    stamps = sorted(p["version"] for p in connectors if p["class"] == STAMP)
    assert stamps == list(VERSIONS)
    assert {p["type"] for p in connectors} == {"source", "sink"}
    everything = api.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    kinds = {p["type"] for p in everything}
    assert {
        "source",
        "sink",
        "converter",
        "header_converter",
        "transformation",
        "predicate",
    } <= kinds
    assert all(p["version"] for p in everything)
    by_class = {(p["class"], p["type"]): p["version"] for p in everything}
    assert by_class[("org.apache.kafka.connect.storage.StringConverter", "converter")] == "0.1.0"
    assert by_class[("org.apache.kafka.connect.transforms.InsertField$Value", "transformation")]
    assert sorted(p["version"] for p in everything if p["class"] == STAMP) == list(VERSIONS)


@pytest.mark.integration
def test_config_definition_of_each_version(api: httpx.Client) -> None:
    def keys(**params: str) -> list[str]:
        response = api.get(f"/connector-plugins/{STAMP}/config", params=params)
        assert response.status_code == 200, response.text
        return [k["name"] for k in response.json()]

    assert "flavour" not in keys(version="1.0.0")
    assert "flavour" in keys(version="2.0.0")
    assert "flavour" in keys()  # the newest
    assert "flavour" not in keys(version="[1.0,2.0)")
    assert "flavour" not in keys(version="<2")
    missing = api.get(f"/connector-plugins/{STAMP}/config", params={"version": "9.9"})
    assert missing.status_code == 400
    assert "available versions: 1.0.0, 2.0.0" in missing.json()["message"]
    token = next(
        k for k in api.get(f"/connector-plugins/{STAMP}/config").json() if k["name"] == "token"
    )
    assert token["type"] == "PASSWORD" and "s3cret" not in json.dumps(token)


def _validate(api: httpx.Client, config: Mapping[str, str]) -> dict[str, Any]:
    body = {"name": "stamp-check", **config}
    response = api.put("/connector-plugins/StampSource/config/validate", json=body)
    assert response.status_code == 200, response.text
    infos: dict[str, Any] = response.json()
    return infos


def _value(body: Mapping[str, Any], key: str) -> dict[str, Any]:
    value: dict[str, Any] = next(c["value"] for c in body["configs"] if c["value"]["name"] == key)
    return value


@pytest.mark.integration
def test_validate_honours_the_pinned_version(api: httpx.Client) -> None:
    pinned = _validate(api, {**_stamp("", "t", "1.0.0"), "flavour": "x"})
    assert pinned["error_count"] == 0
    version = _value(pinned, "connector.plugin.version")
    assert version["value"] == "1.0.0"
    assert version["recommended_values"] == list(VERSIONS)
    # Version 1 has no "flavour"; version 2 defines and reports it.
    names = {c["value"]["name"] for c in pinned["configs"]}
    assert "flavour" not in names and "topic" in names
    newest = _validate(api, _stamp("", "t", None))
    assert "flavour" in {c["value"]["name"] for c in newest["configs"]}

    missing = _validate(api, _stamp("", "t", "3.0"))
    assert missing["error_count"] == 1
    error = _value(missing, "connector.plugin.version")
    assert error["recommended_values"] == list(VERSIONS)
    assert "available versions: 1.0.0, 2.0.0" in error["errors"][0]

    transform = _validate(
        api,
        {
            **_stamp("", "t", None),
            "transforms": "tag",
            "transforms.tag.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.tag.static.field": "f",
            "transforms.tag.static.value": "v",
            "transforms.tag.plugin.version": "9",
            "value.converter.plugin.version": "0.1.0",
        },
    )
    assert transform["error_count"] == 1
    tag = _value(transform, "transforms.tag.plugin.version")
    assert (
        tag["recommended_values"] == ["0.1.0"] and "available versions: 0.1.0" in tag["errors"][0]
    )
    converter = _value(transform, "value.converter.plugin.version")
    assert converter == {
        **converter,
        "value": "0.1.0",
        "errors": [],
        "recommended_values": ["0.1.0"],
    }


def test_describe_a_location_plugin_in_its_own_interpreter(plugin_path: Path) -> None:
    def describe(*args: str) -> dict[str, Any]:
        done = subprocess.run(
            [KCONNECT, "plugins", "describe", "StampSource", "--path", str(plugin_path), *args],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        described: dict[str, Any] = json.loads(done.stdout)
        return described

    old = describe("--version", "1.0.0")
    assert (old["kind"], old["class"], old["version"]) == ("source", STAMP, "1.0.0")
    assert old["location"] == str(plugin_path / "stamp-1.0.0")
    assert old["distribution"] == "kc-stamp"
    keys = {k["name"]: k for k in old["config"]}
    assert set(keys) == {"topic", "count", "token"}  # 1.0.0's own definition
    assert keys["topic"] == {
        **keys["topic"],
        "type": "STRING",
        "required": True,
        "importance": "HIGH",
    }
    assert keys["count"]["default"] == 20
    assert keys["token"]["type"] == "PASSWORD"
    assert "s3cret" not in json.dumps(old)
    # Capabilities are read in the location's interpreter too (the connector says nothing
    # about exactly-once, so null; it does not take part in offset changes).
    assert old["capabilities"] == {
        "exactly_once_support": None,
        "can_define_transaction_boundaries": False,
        "alter_offsets": False,
    }
    newest = describe()
    assert newest["version"] == "2.0.0" and "flavour" in {k["name"] for k in newest["config"]}
    missing = subprocess.run(
        [
            KCONNECT,
            "plugins",
            "describe",
            "StampSource",
            "--path",
            str(plugin_path),
            "--version",
            "7",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 1 and "available versions: 1.0.0, 2.0.0" in missing.stderr


# Runtime-environment plugins, and what the runtime keeps from a plugin's configure().

PROBE = """
from kconnect_sdk import ConfigDef, ConfigType, Importance, Predicate, Transformation

SEEN = []

class Probe(Transformation):
    def configure(self, configs):
        SEEN.append(dict(configs))
    def config(self):
        return (ConfigDef()
                .define("password", ConfigType.PASSWORD, "do-not-show-me", importance=Importance.HIGH,
                        documentation="A secret.")
                .define("suffix", ConfigType.STRING, "!", importance=Importance.LOW, documentation="Appended."))
    def apply(self, record):
        return record.new_record(value=f"{record.value}{SEEN[-1].get('suffix', '!')}")
    def apply_batch(self, records):
        CALLS.append(("apply_batch", [r.value for r in records]))
        return [self.apply(r) for r in records if r.value != "drop"]

CALLS = []

class Odd(Predicate):
    def configure(self, configs):
        SEEN.append(dict(configs))
    def config(self):
        return ConfigDef()
    def test(self, record):
        raise AssertionError("the runtime must call test_batch, not test")
    def test_batch(self, records):
        CALLS.append(("test_batch", [r.value for r in records]))
        return [r.value.isdigit() and int(r.value) % 2 == 1 for r in records]
"""


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    module = f"kc_probe_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(PROBE))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = PluginRegistry(
        [
            PluginDesc(PluginKind.TRANSFORMATION, "Probe", f"{module}:Probe", "kc-probe", v)
            for v in ("1.0", "1.1")
        ]
        + [PluginDesc(PluginKind.PREDICATE, "Odd", f"{module}:Odd", "kc-probe", "1.0")]
        + PluginRegistry.discover().plugins(PluginKind.CONVERTER, PluginKind.HEADER_CONVERTER)
    )
    return registry, module


def test_plugin_version_keys_never_reach_configure(probe: Any) -> None:
    registry, module = probe
    props = {
        "transforms": "p",
        "transforms.p.type": "Probe",
        "transforms.p.plugin.version": "1.0",
        "transforms.p.suffix": "?",
        "transforms.p.predicate": "odd",
        "predicates": "odd",
        "predicates.odd.type": "Odd",
        "predicates.odd.plugin.version": ">=1",
    }
    chain: TransformChain[SourceRecord] = TransformChain.from_config(registry, props)
    seen = sys.modules[module].SEEN
    assert seen == [{}, {"suffix": "?"}]  # predicate, then transform: no plugin.version
    converters = build_converters(
        registry,
        {"key.converter": "StringConverter", "value.converter": "StringConverter"},
        {"value.converter": "StringConverter", "value.converter.plugin.version": "0.1.0"},
    )
    converters.close()
    chain.close()
    with pytest.raises(Exception, match=r"transforms\.p\.plugin\.version"):
        TransformChain.from_config(registry, {**props, "transforms.p.plugin.version": "2"})


def test_predicate_is_asked_once_per_batch_and_order_is_kept(probe: Any) -> None:
    registry, module = probe
    props = {
        "transforms": "p",
        "transforms.p.type": "Probe",
        "transforms.p.predicate": "odd",
        "predicates": "odd",
        "predicates.odd.type": "Odd",
    }
    chain: TransformChain[SourceRecord] = TransformChain.from_config(registry, props)
    records = [
        SourceRecord(
            topic="t", value_schema=Schema.STRING, value=v, source_partition={}, source_offset={}
        )
        for v in ["1", "3", "4", "5", "drop", "7", "9"]
    ]
    out = chain.apply_batch(records)
    assert [r.value for r in out] == ["1!", "3!", "4", "5!", "drop", "7!", "9!"]
    calls = sys.modules[module].CALLS
    assert calls[0] == ("test_batch", ["1", "3", "4", "5", "drop", "7", "9"])
    assert [c for c in calls if c[0] == "test_batch"] == calls[:1]  # one predicate call
    # The transform sees runs of matching records, in order.
    assert [c[1] for c in calls[1:]] == [["1", "3"], ["5"], ["7", "9"]]
    negated = TransformChain[SourceRecord].from_config(
        registry, {**props, "transforms.p.negate": "true"}
    )
    assert [r.value for r in negated.apply_batch(records)] == ["1", "3", "4!", "5", "7", "9"]


def test_describe_a_runtime_plugin_in_process(probe: Any) -> None:
    registry, _ = probe
    described = describe_plugin(registry, "Probe", version="1.0")
    text = json.dumps(described)
    assert "do-not-show-me" not in text
    assert described["kind"] == "transformation" and described["location"] is None
    assert described["distribution_version"] == "1.0"
    keys = {k["name"]: k for k in described["config"]}
    assert keys["password"]["default"] == "[hidden]" and keys["password"]["type"] == "PASSWORD"
    assert keys["suffix"]["default"] == "!" and keys["suffix"]["group"] is None
    assert described["capabilities"] == {"apply_batch": True}
    source = describe_plugin(PluginRegistry.discover(), "FileStreamSource")
    assert source["capabilities"]["exactly_once_support"] in ("SUPPORTED", "UNSUPPORTED", None)
    assert "can_define_transaction_boundaries" in source["capabilities"]
    assert {"file", "topic"} <= {k["name"] for k in source["config"]}
