"""Issue 22: the REST API's corners answer as Apache Kafka Connect 4.x does.

Each test is one difference a raw comparison with Kafka found, asserting Kafka's status
code and body shape (read from Kafka's ConnectorsResource, ConnectorPluginsResource,
LoggingResource, RootResource and AbstractHerder).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from kconnect_runtime import Standalone
from runtime_harness import file_sink, worker_props

pytestmark = pytest.mark.integration

RECORDING = "runtime_harness:RecordingSourceConnector"

# Kafka's ConnectorConfig keys, then SinkConnectorConfig's / SourceConnectorConfig's, then
# KIP-891's version keys (4.1).
COMMON_KEYS = {
    "name",
    "connector.class",
    "tasks.max",
    "tasks.max.enforce",
    "key.converter",
    "value.converter",
    "header.converter",
    "transforms",
    "predicates",
    "config.action.reload",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
    "connector.plugin.version",
    "key.converter.plugin.version",
    "value.converter.plugin.version",
    "header.converter.plugin.version",
}
SINK_KEYS = COMMON_KEYS | {
    "topics",
    "topics.regex",
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable",
}
SOURCE_KEYS = COMMON_KEYS | {
    "topic.creation.groups",
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offsets.storage.topic",
}

# (type, default, importance, group, order, width, display name) as Kafka defines them.
GOLDEN = {
    "name": ("STRING", None, "HIGH", "Common", 1, "MEDIUM", "Connector name"),
    "connector.class": ("STRING", None, "HIGH", "Common", 2, "LONG", "Connector class"),
    "tasks.max": ("INT", "1", "HIGH", "Common", 4, "SHORT", "Tasks max"),
    "tasks.max.enforce": ("BOOLEAN", "true", "LOW", "Common", 5, "SHORT", "Enforce tasks max"),
    "key.converter": ("CLASS", None, "LOW", "Common", 6, "SHORT", "Key converter class"),
    "header.converter": ("CLASS", None, "LOW", "Common", 10, "SHORT", "Header converter class"),
    # KIP-891's version keys, each after the key of the plugin it versions (Kafka 4.1).
    "key.converter.plugin.version": (
        "STRING",
        None,
        "LOW",
        "Common",
        7,
        "SHORT",
        "Key converter version",
    ),
    "header.converter.plugin.version": (
        "STRING",
        None,
        "LOW",
        "Common",
        11,
        "SHORT",
        "Header converter version",
    ),
    "transforms": ("LIST", "", "LOW", "Transforms", 12, "LONG", "Transforms"),
    "predicates": ("LIST", "", "LOW", "Predicates", 13, "LONG", "Predicates"),
    "config.action.reload": ("STRING", "restart", "LOW", "Common", 14, "MEDIUM", "Reload Action"),
    "errors.retry.timeout": (
        "LONG",
        "0",
        "MEDIUM",
        "Error Handling",
        1,
        "MEDIUM",
        "Retry Timeout for Errors",
    ),
    "errors.tolerance": (
        "STRING",
        "none",
        "MEDIUM",
        "Error Handling",
        3,
        "SHORT",
        "Error Tolerance",
    ),
    "errors.log.include.messages": (
        "BOOLEAN",
        "false",
        "MEDIUM",
        "Error Handling",
        5,
        "SHORT",
        "Log Error Details",
    ),
}
SINK_GOLDEN = {
    "topics": ("LIST", "", "HIGH", "Common", 4, "LONG", "Topics"),
    "topics.regex": ("STRING", "", "HIGH", "Common", 4, "LONG", "Topics regex"),
    "errors.deadletterqueue.topic.name": (
        "STRING",
        "",
        "MEDIUM",
        "Error Handling",
        6,
        "MEDIUM",
        "Dead Letter Queue Topic Name",
    ),
    "errors.deadletterqueue.context.headers.enable": (
        "BOOLEAN",
        "false",
        "MEDIUM",
        "Error Handling",
        8,
        "MEDIUM",
        "Enable Error Context Headers",
    ),
}
SOURCE_GOLDEN = {
    "topic.creation.groups": (
        "LIST",
        "",
        "LOW",
        "Topic Creation",
        1,
        "LONG",
        "Topic Creation Groups",
    ),
    "exactly.once.support": (
        "STRING",
        "requested",
        "MEDIUM",
        "Exactly Once Support",
        2,
        "SHORT",
        "Exactly once support",
    ),
    "transaction.boundary.interval.ms": (
        "LONG",
        None,
        "LOW",
        "Exactly Once Support",
        4,
        "SHORT",
        "Transaction boundary interval",
    ),
    "offsets.storage.topic": ("STRING", None, "LOW", "offsets.topic", 1, "LONG", "Offsets topic"),
}


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


def _path(name: str) -> str:
    segment = quote(name, safe="")
    if segment in (".", ".."):  # a client drops literal dot segments
        segment = segment.replace(".", "%2E")
    return f"/connectors/{segment}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rest-parity")


@pytest.fixture(scope="module")
def api(kafka: str, workdir: Path) -> Iterator[httpx.Client]:
    app = Standalone(worker_props(workdir, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    assert app.rest is not None
    try:
        with httpx.Client(base_url=app.rest.url, timeout=30) as client:
            yield client
    finally:
        app.stop()


def _recording(api: httpx.Client, name: str) -> httpx.Response:
    return api.post("/connectors", json={"name": name, "config": {"connector.class": RECORDING}})


def _error(response: httpx.Response, status: int) -> str:
    """Kafka's error body, ``{"error_code": N, "message": "..."}``; returns the message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == status
    message: str = body["message"]
    assert message
    return message


def _shape(entry: dict[str, Any]) -> tuple[Any, ...]:
    return (
        entry["type"],
        entry["default_value"],
        entry["importance"],
        entry["group"],
        entry["order"],
        entry["width"],
        entry["display_name"],
    )


# -- 1. the framework's keys in config definitions and validation ---------------------------
def test_plugin_config_lists_the_framework_keys_after_the_plugins(api: httpx.Client) -> None:
    sink = api.get("/connector-plugins/FileStreamSink/config")
    assert sink.status_code == 200
    names = [k["name"] for k in sink.json()]
    own = [k["name"] for k in api.get("/connector-plugins/FileStreamSink/config").json()][:1]
    assert own == ["file"]  # the plugin's own keys first, as Kafka's connectorPluginConfig
    assert set(names) == SINK_KEYS | {"file"} and len(names) == len(set(names))
    by_name = {k["name"]: k for k in sink.json()}
    for key, golden in {**GOLDEN, **SINK_GOLDEN}.items():
        assert _shape(by_name[key]) == golden, key
    assert by_name["name"]["required"] is True and by_name["tasks.max"]["required"] is False

    source = {k["name"]: k for k in api.get("/connector-plugins/FileStreamSource/config").json()}
    assert set(source) == SOURCE_KEYS | {"file", "topic", "batch.size"}
    for key, golden in {**GOLDEN, **SOURCE_GOLDEN}.items():
        assert _shape(source[key]) == golden, key
    assert not any(k.startswith("errors.deadletterqueue") for k in source)  # sinks only

    # A transformation lists only its own keys (no connector framework keys).
    cast = api.get(
        "/connector-plugins/org.apache.kafka.connect.transforms.Cast$Value/config"
    ).json()
    assert "spec" in {k["name"] for k in cast} and "tasks.max" not in {k["name"] for k in cast}


def test_validate_reports_kafkas_key_set_and_groups(api: httpx.Client) -> None:
    sink = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={"connector.class": "FileStreamSink", "name": "v", "topics": "t", "file": "/tmp/o"},
    )
    assert sink.status_code == 200
    body = sink.json()
    assert set(body) == {"name", "error_count", "groups", "configs"}
    assert body["error_count"] == 0
    assert body["groups"][:4] == ["Common", "Transforms", "Predicates", "Error Handling"]
    framework = {c["definition"]["name"] for c in body["configs"] if c["definition"]}
    assert framework == SINK_KEYS | {"file"}
    defs = {c["definition"]["name"]: c["definition"] for c in body["configs"]}
    # Validating a config, Kafka's enrichedConfigDef defaults each converter to the worker's
    # and its version to the newest installed.
    string = "org.apache.kafka.connect.storage.StringConverter"
    installed = api.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    version = max(p["version"] for p in installed if p["class"] == string)
    worker_defaults = {
        "key.converter": string,
        "header.converter": string,
        "key.converter.plugin.version": version,
        "header.converter.plugin.version": version,
    }
    for key, golden in {**GOLDEN, **SINK_GOLDEN}.items():
        expected = (*golden[:1], worker_defaults.get(key, golden[1]), *golden[2:])
        assert _shape(defs[key]) == expected, key
    values = {c["value"]["name"]: c["value"] for c in body["configs"] if c["value"]}
    assert values["key.converter"]["value"] == worker_defaults["key.converter"]
    assert (
        "org.apache.kafka.connect.json.JsonConverter"
        in (values["key.converter"]["recommended_values"])
    )

    source = api.put(
        "/connector-plugins/FileStreamSource/config/validate",
        json={"connector.class": "FileStreamSource", "name": "v", "topic": "t"},
    ).json()
    keys = {c["definition"]["name"] for c in source["configs"] if c["definition"]}
    assert keys == SOURCE_KEYS | {"file", "topic", "batch.size"}  # no DLQ keys for sources
    assert source["groups"][:7] == [
        "Common",
        "Transforms",
        "Predicates",
        "Error Handling",
        "Topic Creation",
        "Exactly Once Support",
        "offsets.topic",
    ]

    # kconnect's own keys show (with their errors) only where a config sets them.
    extended = api.put(
        "/connector-plugins/FileStreamSource/config/validate",
        json={
            "connector.class": "FileStreamSource",
            "name": "v",
            "topic": "t",
            "errors.restart.max.attempts": "-5",
        },
    ).json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in extended["configs"] if c["value"]}
    assert errors["errors.restart.max.attempts"] and extended["error_count"] == 1


def test_validate_lists_each_transform_and_predicate_alias_keys(api: httpx.Client) -> None:
    body = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={
            "connector.class": "FileStreamSink",
            "name": "v",
            "topics": "t",
            "file": "/tmp/o",
            "transforms": "cast,gone",
            "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
            "transforms.cast.predicate": "onlyx",
            "transforms.gone.type": "NoSuchTransform",
            "predicates": "onlyx",
            "predicates.onlyx.type": "TopicNameMatches",
            "predicates.onlyx.pattern": "x.*",
        },
    ).json()
    # Kafka's ConnectorConfig.enrich: a group per alias, the type key first, then the
    # implicit predicate/negate keys, then the plugin's own keys, all prefixed.
    assert body["groups"][-3:] == ["Transforms: cast", "Transforms: gone", "Predicates: onlyx"]
    defs = {c["definition"]["name"]: c for c in body["configs"] if c["definition"]}
    cast_type = defs["transforms.cast.type"]["definition"]
    assert _shape(cast_type) == (
        "CLASS",
        None,
        "HIGH",
        "Transforms: cast",
        0,
        "LONG",
        "Transformation type for cast",
    )
    assert cast_type["required"] is True
    # Kafka's ConfigDef.embed: the version key (1), then the implicit and the plugin's keys
    # in sortedConfigs() order: required before defaulted, then by importance and name.
    orders = {k: defs[f"transforms.cast.{k}"]["definition"]["order"] for k in ("spec", "negate")}
    assert defs["transforms.cast.plugin.version"]["definition"]["order"] == 1
    assert orders == {"spec": 2, "negate": 3}
    assert defs["transforms.cast.predicate"]["definition"]["order"] == 4
    assert defs["transforms.cast.negate"]["definition"]["default_value"] == "false"
    assert defs["transforms.cast.spec"]["value"]["errors"] == [
        'Missing required configuration "transforms.cast.spec" which has no default value.',
        "Must specify at least one field to cast.",  # Cast's validator, given the null
    ]
    assert "NoSuchTransform" in defs["transforms.gone.type"]["value"]["errors"][0]
    recommended = defs["transforms.gone.type"]["value"]["recommended_values"]
    assert "org.apache.kafka.connect.transforms.Cast$Value" in recommended
    assert defs["predicates.onlyx.type"]["definition"]["display_name"] == "Predicate type for onlyx"
    assert defs["predicates.onlyx.pattern"]["value"]["errors"] == []
    assert body["error_count"] == 3  # spec twice (missing, then its validator), gone.type


# -- 2. trailing slashes ---------------------------------------------------------------------
def test_trailing_slash_is_served_like_the_path(api: httpx.Client) -> None:
    name = _name("slash")
    assert _recording(api, name).status_code == 201
    listed = api.get("/connectors/")
    assert listed.status_code == 200 and name in listed.json()  # no 307
    assert api.get(f"/connectors/{name}/").json()["name"] == name
    assert api.get(f"/connectors/{name}/status/").json()["name"] == name
    assert api.get("/connector-plugins/").status_code == 200
    assert api.delete(f"/connectors/{name}/").status_code == 204


# -- 3. status codes -------------------------------------------------------------------------
def test_status_codes_match_kafkas(api: httpx.Client, caplog: pytest.LogCaptureFixture) -> None:
    assert "Unknown plugin NoSuchPlugin" in _error(
        api.get("/connector-plugins/NoSuchPlugin/config"), 404
    )
    no_class = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={"name": "v", "topics": "t", "password": "hunter2"},
    )
    message = _error(no_class, 400)
    assert "connector.class" in message and "hunter2" not in message

    nulls = api.put(
        "/connector-plugins/FileStreamSink/config/validate",
        json={"connector.class": "FileStreamSink", "name": "v", "topics": None, "file": "/o"},
    )
    assert nulls.status_code == 200  # Kafka: an error on the key, not a failed request
    errors = {c["value"]["name"]: c["value"]["errors"] for c in nulls.json()["configs"]}
    assert "Null value can not be supplied as the configuration value." in errors["topics"]
    assert "Must configure one of topics or topics.regex" in errors["topics"]

    name = _name("codes")
    assert _recording(api, name).status_code == 201
    assert _error(api.get(f"/connectors/{name}/tasks/abc/status"), 404)
    assert _error(api.post(f"/connectors/{name}/tasks/1.5/restart"), 404)
    assert api.get(f"/connectors/{name}/tasks/0/status").status_code == 200

    assert "invalid log level 'LOUD'" in _error(
        api.put("/admin/loggers/kconnect.parity", json={"level": "LOUD"}), 404
    )
    assert "level" in _error(api.put("/admin/loggers/kconnect.parity", json={}), 400)
    with caplog.at_level(logging.WARNING, logger="kconnect.rest"):
        galaxy = api.put(
            "/admin/loggers/kconnect.parity", params={"scope": "galaxy"}, json={"level": "DEBUG"}
        )
    assert galaxy.status_code == 200 and "kconnect.parity" in galaxy.json()  # worker scope
    assert any("invalid scope 'galaxy'" in r.getMessage() for r in caplog.records)
    logging.getLogger("kconnect.parity").setLevel(logging.NOTSET)

    plain = api.put(
        f"{_path(name)}/config",
        content=b"connector.class=x",
        headers={"content-type": "text/plain"},
    )
    assert _error(plain, 415) == "HTTP 415 Unsupported Media Type"  # Jersey's words
    form = api.post("/connectors", content=b"name=x", headers={"content-type": "text/plain"})
    _error(form, 415)
    assert api.delete(_path(name)).status_code == 204


# -- 4. boolean query flags --------------------------------------------------------------------
def test_boolean_flags_take_only_true(api: httpx.Client) -> None:
    name = _name("flags")
    assert _recording(api, name).status_code == 201
    for value in ("yes", "1", "on", ""):
        # Boolean.parseBoolean: anything but "true" is false, so a connector-only restart.
        assert api.post(f"{_path(name)}/restart", params={"includeTasks": value}).status_code == 204
    for value in ("true", "TRUE", "True"):
        restarted = api.post(f"{_path(name)}/restart", params={"includeTasks": value})
        assert restarted.status_code == 202 and restarted.json()["name"] == name
    assert api.delete(_path(name)).status_code == 204

    connectors_only = {p["type"] for p in api.get("/connector-plugins").json()}
    assert connectors_only == {"source", "sink"}
    assert {p["type"] for p in api.get("/connector-plugins?connectorsOnly=TRUE").json()} == {
        "source",
        "sink",
    }
    for value in ("no", "yes", "0", "1"):  # anything but "true" is false: every plugin
        kinds = {p["type"] for p in api.get(f"/connector-plugins?connectorsOnly={value}").json()}
        assert "converter" in kinds and "transformation" in kinds


# -- 5. GET / -----------------------------------------------------------------------------------
def test_root_reports_the_kafka_connect_version_and_ours(api: httpx.Client) -> None:
    from kconnect_runtime import __version__

    root = api.get("/").json()
    assert root["version"] == "4.1.1"
    assert root["kconnect_version"] == __version__
    assert root["commit"] == "unknown" and "kafka_cluster_id" in root


# -- 6. connector names and body limits ---------------------------------------------------------
@pytest.mark.parametrize("name", ["a/b", "../etc", "/", "..", "50%off", "x" * 249, "ünï cødé"])
def test_every_name_that_can_be_created_can_be_read_and_deleted(
    api: httpx.Client, name: str
) -> None:
    created = _recording(api, name)
    assert created.status_code == 201, created.text
    location = created.headers["location"]
    assert location == _path(name)
    assert api.get(location).json()["name"] == name
    assert api.get(f"{location}/status").json()["name"] == name
    assert api.get(f"{location}/config").json()["name"] == name
    assert api.get(f"{location}/tasks/0/status").json()["id"] == 0
    assert name in api.get("/connectors").json()
    assert api.put(f"{location}/pause").status_code == 202
    assert api.delete(location).status_code == 204
    assert api.get(location).status_code == 404
    assert name not in api.get("/connectors").json()


def test_names_and_bodies_have_limits(api: httpx.Client, caplog: pytest.LogCaptureFixture) -> None:
    too_long = "n" * 250
    message = _error(_recording(api, too_long), 400)
    assert "at most 249 characters" in message and too_long not in message
    control = _error(_recording(api, "bell\x07name"), 400)
    assert "control" in control and "7" in control

    huge = "h" * (2 * 1024 * 1024)
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        started = time.monotonic()
        refused = api.post(
            "/connectors", json={"name": huge, "config": {"connector.class": RECORDING}}
        )
        elapsed = time.monotonic() - started
    assert "too large" in _error(refused, 413)
    assert elapsed < 30  # refused without reading it all; generous for a loaded machine
    assert all(len(r.getMessage()) < 10_000 for r in caplog.records)
    assert huge not in api.get("/connectors").text

    # A body streamed without Content-Length is stopped at the limit as well.
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "'
        for _ in range(2 * 1024):
            yield b"c" * 1024
        yield b'", "config": {}}'

    streamed = api.post(
        "/connectors", content=chunks(), headers={"content-type": "application/json"}
    )
    _error(streamed, 413)


def test_sink_name_with_a_slash_is_served(api: httpx.Client, workdir: Path) -> None:
    name = f"team/{_name('sink')}"
    config = file_sink(name, workdir / "slash-sink.txt", _name("t"))
    assert api.post("/connectors", json={"name": name, "config": config}).status_code == 201
    assert api.get(f"{_path(name)}/topics").json() == {name: {"topics": []}}
    assert api.put(f"{_path(name)}/stop").status_code == 204
    assert api.get(f"{_path(name)}/offsets").status_code == 200
    assert api.delete(_path(name)).status_code == 204


# -- 7. resetting one sink partition ------------------------------------------------------------
def test_offset_delete_request_bytes_follow_kafkas_protocol() -> None:
    from kconnect_runtime.worker._offsets import _offset_delete_errors, _offset_delete_request
    from kconnect_sdk import TopicPartition

    # OffsetDelete v0 (API key 47), request header v1: key, version, correlation id, client
    # id; body: group id, [topic name, [partition index]] (Kafka's OffsetDeleteRequest.json).
    request = _offset_delete_request("g", [TopicPartition("t", 0), TopicPartition("t", 2)], 9)
    body = (
        b"\x00\x2f\x00\x00\x00\x00\x00\x09\x00\x08kconnect"
        b"\x00\x01g"
        b"\x00\x00\x00\x01\x00\x01t\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x02"
    )
    assert request == len(body).to_bytes(4, "big") + body
    # Response v0: correlation id, error code, throttle ms, [topic, [partition, error code]].
    answer = (
        b"\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00"
        b"\x00\x00\x00\x01\x00\x01t\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x56"
    )
    assert _offset_delete_errors(answer) == (0, {("t", 0): 0, ("t", 2): 86})


def test_null_sink_offset_resets_the_partition(
    api: httpx.Client, kafka: str, workdir: Path
) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = _name("reset-one")
    admin = AdminClient({"bootstrap.servers": kafka})  # kept: results need a live handle
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    name = _name("sink")
    config = file_sink(name, workdir / f"{name}.txt", topic)
    assert api.post("/connectors", json={"name": name, "config": config}).status_code == 201
    assert api.put(f"{_path(name)}/stop").status_code == 204
    partition = {"kafka_topic": topic, "kafka_partition": 0}
    other = {"kafka_topic": topic, "kafka_partition": 1}
    moved = api.patch(
        f"{_path(name)}/offsets",
        json={
            "offsets": [
                {"partition": partition, "offset": {"kafka_offset": 0}},
                {"partition": other, "offset": {"kafka_offset": 0}},
            ]
        },
    )
    assert moved.status_code == 200, moved.text
    before = api.get(f"{_path(name)}/offsets").json()["offsets"]

    reset = api.patch(
        f"{_path(name)}/offsets", json={"offsets": [{"partition": partition, "offset": None}]}
    )
    # Apache Kafka deletes the group's offset of that partition (OffsetDelete); the other
    # partition keeps its offset.
    assert reset.status_code == 200, reset.text
    assert "altered successfully" in reset.json()["message"]
    after = api.get(f"{_path(name)}/offsets").json()["offsets"]
    assert [e["partition"] for e in after] == [other]
    assert after == [e for e in before if e["partition"] == other]
    assert api.delete(_path(name)).status_code == 204
