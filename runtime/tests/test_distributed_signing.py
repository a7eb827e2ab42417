"""Signed requests between distributed workers (KIP-507, ``connect.protocol=sessioned``).

Two in-process ``Distributed`` workers of one group on the test broker: the leader writes
Kafka's ``session-key`` record to the config topic, a follower's connector has its task
configs written by the leader through the signed internal endpoint, and requests to that
endpoint that are unsigned, signed with a wrong key or with an algorithm the worker does not
accept are refused with Kafka's status codes and messages. The signature is computed here
with the standard library from the key in the config topic, as a Java worker computes it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition
from kconnect_runtime import Distributed
from kconnect_runtime.modes import free_port
from runtime_harness import SESSION_TIMEOUT, distributed_props, file_source, wait_for

pytestmark = pytest.mark.integration


def _config_records(kafka: str, topic: str) -> list[tuple[str, Any]]:
    """(key, decoded JSON value) of every record of the config topic, in order."""
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"peek-{uuid.uuid4().hex[:8]}"})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        out: list[tuple[str, Any]] = []
        deadline = time.monotonic() + 20
        while len(out) < high and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            raw = message.value()
            out.append(((message.key() or b"").decode(), None if raw is None else json.loads(raw)))
        return out
    finally:
        consumer.close()


def _session_keys(kafka: str, topic: str) -> list[dict[str, Any]]:
    return [value for key, value in _config_records(kafka, topic) if key == "session-key"]


def _sign(key: bytes, body: bytes) -> str:
    return base64.b64encode(hmac.new(key, body, hashlib.sha256).digest()).decode()


@pytest.fixture
def group(kafka: str) -> Iterator[Any]:
    """Start workers of one group: ``start(**extra)`` gives (app, client)."""
    name = f"sign-{uuid.uuid4().hex[:8]}"
    apps: list[Distributed] = []
    clients: list[httpx.Client] = []

    def start(**extra: str) -> tuple[Distributed, httpx.Client]:
        port = free_port()
        props = distributed_props(
            kafka,
            name,
            port,
            **{"session.timeout.ms": SESSION_TIMEOUT, "heartbeat.interval.ms": "1000", **extra},
        )
        app = Distributed(props)
        apps.append(app)
        app.start()
        clients.append(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60))
        return app, clients[-1]

    try:
        yield name, start
    finally:
        for client in clients:
            client.close()
        for app in reversed(apps):
            app.stop()


def test_followers_task_configs_reach_the_leader_signed_and_forgeries_are_refused(
    kafka: str, group: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    name, start = group
    first, first_api = start()
    second, second_api = start()
    config_topic = f"{name}-configs"

    # The leader's session key, in the shape Kafka's KafkaConfigBackingStore writes.
    wait_for(lambda: bool(_session_keys(kafka, config_topic)), 30, "a session-key record")
    record = _session_keys(kafka, config_topic)[-1]
    assert list(record) == ["key", "algorithm", "creation-timestamp"]
    assert record["algorithm"] == "HmacSHA256"
    key = base64.b64decode(record["key"], validate=True)
    assert len(key) == 32  # a JVM HmacSHA256 KeyGenerator's default size
    assert abs(record["creation-timestamp"] - time.time() * 1000) < 120_000

    # Connectors spread over both workers: each gets its task configs, the follower's
    # through the leader (only the leader writes them to the config topic now).
    names = [f"src-{i}" for i in range(4)]
    for connector in names:
        path = tmp_path / f"{connector}.txt"
        path.write_text("a line\n")
        response = first_api.post(
            "/connectors",
            json={"name": connector, "config": file_source(connector, path, f"{name}-{connector}")},
        )
        assert response.status_code == 201, response.text

    def all_running() -> bool:
        for connector in names:
            body = first_api.get(f"/connectors/{connector}/status").json()
            states = [body["connector"]["state"]] + [t["state"] for t in body.get("tasks", [])]
            if not body.get("tasks") or set(states) != {"RUNNING"}:
                return False
        return True

    wait_for(all_running, 60, "every connector and its task RUNNING")
    leader_app = first if first.herder.membership.is_leader else second
    leader_api = first_api if leader_app is first else second_api
    owners = {
        c: first_api.get(f"/connectors/{c}/status").json()["connector"]["worker_id"] for c in names
    }
    leader_id = leader_app.herder.worker_id
    on_follower = [c for c, owner in owners.items() if owner != leader_id]
    assert on_follower, f"no connector ran on the follower: {owners}"
    print(f"connectors by worker {owners}; leader {leader_id}")

    # Forged or unsigned internal requests are refused, as Kafka refuses them.
    target = on_follower[0]
    before = leader_api.get(f"/connectors/{target}/tasks").json()
    forged = json.dumps([{"task.class": "evil", "file": "/etc/passwd"}]).encode()
    path = f"/connectors/{target}/tasks"
    headers = {"Content-Type": "application/json"}

    unsigned = leader_api.post(path, content=forged, headers=headers)
    assert unsigned.status_code == 400
    assert unsigned.json()["message"] == "Internal request missing required signature"

    wrong_key = leader_api.post(
        path,
        content=forged,
        headers={
            **headers,
            "X-Connect-Authorization": _sign(b"not the session key", forged),
            "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
        },
    )
    assert wrong_key.status_code == 403
    assert wrong_key.json()["message"] == "Internal request contained invalid signature."

    other_algorithm = leader_api.post(
        path,
        content=forged,
        headers={
            **headers,
            "X-Connect-Authorization": base64.b64encode(
                hmac.new(key, forged, hashlib.sha512).digest()
            ).decode(),
            "X-Connect-Request-Signature-Algorithm": "HmacSHA512",
        },
    )
    assert other_algorithm.status_code == 400
    assert other_algorithm.json()["message"] == (
        "This worker does not support the 'HmacSHA512' key signing algorithm used by other "
        "workers. This worker is currently configured to use: [HmacSHA256]. Check that all "
        "workers' configuration files permit the same set of signature algorithms, and "
        "correct any misconfigured worker and restart it."
    )

    fence = leader_api.put(f"/connectors/{target}/fence")
    assert fence.status_code == 400
    assert fence.json()["message"] == "Internal request missing required signature"
    assert leader_api.get(f"/connectors/{target}/tasks").json() == before

    # Signed with the group's key over the exact body, the leader takes it (as from a Java
    # worker); a follower refuses to write task configs.
    configs = [{**before[0]["config"], "batch.size": "7"}]
    body = json.dumps(configs).encode()
    signed = {
        **headers,
        "X-Connect-Authorization": _sign(key, body),
        "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
    }
    follower_api = second_api if leader_api is first_api else first_api
    refused = follower_api.post(path, content=body, headers=signed)
    assert refused.status_code == 409
    assert refused.json()["message"] == "Only the leader may write task configurations."
    accepted = leader_api.post(path, content=body, headers=signed)
    assert accepted.status_code == 204, accepted.text
    wait_for(
        lambda: (
            leader_api.get(f"/connectors/{target}/tasks").json()[0]["config"].get("batch.size")
            == "7"
        ),
        30,
        "the signed task configs in the config topic",
    )

    # The key is a secret: never in a log line, nor in any answer above.
    text = caplog.text + unsigned.text + wrong_key.text + other_algorithm.text + fence.text
    assert record["key"] not in text and key.hex() not in text


def test_compatible_protocol_writes_no_session_key_and_accepts_unsigned_requests(
    kafka: str, group: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    name, start = group
    _, api = start(**{"connect.protocol": "compatible"})
    assert any(
        "Internal request verification will be disabled for this cluster" in r.getMessage()
        for r in caplog.records
    )
    path = tmp_path / "in.txt"
    path.write_text("x\n")
    created = api.post(
        "/connectors", json={"name": "plain", "config": file_source("plain", path, f"{name}-t")}
    )
    assert created.status_code == 201, created.text
    wait_for(lambda: bool(api.get("/connectors/plain/tasks").json()), 30, "task configs")
    configs = [{**api.get("/connectors/plain/tasks").json()[0]["config"], "batch.size": "3"}]
    # As Kafka without KIP-507: the internal endpoint takes an unsigned request (a body that
    # is no list of task configs is refused).
    garbage = api.post(
        "/connectors/plain/tasks", content=b"{oops", headers={"Content-Type": "application/json"}
    )
    assert garbage.status_code == 400
    assert garbage.json()["message"] == "Task configurations must be a JSON list of string maps"
    response = api.post("/connectors/plain/tasks", json=configs)
    assert response.status_code == 204, response.text
    wait_for(
        lambda: api.get("/connectors/plain/tasks").json()[0]["config"].get("batch.size") == "3",
        30,
        "the unsigned task configs written",
    )
    # A made-up signature is checked all the same (there is no key to match it).
    forged = api.post(
        "/connectors/plain/tasks",
        json=configs,
        headers={
            "X-Connect-Authorization": _sign(b"guess", b"[]"),
            "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
        },
    )
    assert forged.status_code == 503
    assert _session_keys(kafka, f"{name}-configs") == []


def test_the_leader_renews_the_key_when_it_expires(kafka: str, group: Any) -> None:
    name, start = group
    start(**{"inter.worker.key.ttl.ms": "1500"})
    topic = f"{name}-configs"
    wait_for(lambda: len(_session_keys(kafka, topic)) >= 3, 30, "three session keys")
    keys = _session_keys(kafka, topic)
    created = [k["creation-timestamp"] for k in keys]
    assert created == sorted(created) and len({k["key"] for k in keys}) == len(keys)
    assert all(b - a >= 1500 for a, b in itertools.pairwise(created))


@pytest.mark.parametrize(
    ("settings", "key", "message"),
    [
        (
            {"inter.worker.signature.algorithm": "HmacSHA512"},
            "inter.worker.signature.algorithm",
            "Invalid value HmacSHA512 for configuration inter.worker.signature.algorithm: "
            "Signature algorithm must be present in inter.worker.verification.algorithms list",
        ),
        (
            {"inter.worker.key.size": "32"},
            "inter.worker.key.size",
            "Unable to create key generator with algorithm HmacSHA256 and key size 32: Key "
            "length must be at least 40 bits",
        ),
        (
            {"inter.worker.verification.algorithms": "HmacSHA256,HmacSHA3-999"},
            "inter.worker.verification.algorithms",
            "Invalid value HmacSHA3-999 for configuration inter.worker.verification.algorithms: "
            "the algorithm is not supported by this worker; the supported algorithms are: "
            "[HmacMD5, HmacSHA1, HmacSHA224, HmacSHA256, HmacSHA384, HmacSHA512]",
        ),
    ],
)
def test_inter_worker_settings_are_checked_before_the_worker_starts(
    tmp_path: Path, settings: dict[str, str], key: str, message: str
) -> None:
    from kconnect_sdk import ConfigError

    props = distributed_props("127.0.0.1:1", "unused", free_port(), **settings)
    with pytest.raises(ConfigError) as refused:
        Distributed(props).start()
    assert refused.value.name == key
    assert str(refused.value) == f"worker config: {message}"
