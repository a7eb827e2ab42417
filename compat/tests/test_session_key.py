"""KIP-507's session key in the config topic, shared between kconnect and Apache Kafka Connect.

A kconnect distributed worker leads a fresh group and writes its ``session-key`` record; it
is stopped, and Apache Kafka Connect's Java worker starts on the same worker properties. The
Java leader reads the key kconnect wrote and keeps it (a key it could not read, or one of
another algorithm or size, it would replace at once), and it accepts an internal request
signed with that key and refuses an unsigned one with the message kconnect gives.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from kconnect_runtime import Distributed
from kconnect_runtime.modes import free_port
from runtime_harness import distributed_props, wait_for

pytestmark = pytest.mark.integration


def _session_keys(kafka: str, topic: str) -> list[dict[str, Any]]:
    consumer = Consumer({"bootstrap.servers": kafka, "group.id": f"peek-{uuid.uuid4().hex[:8]}"})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        keys: list[dict[str, Any]] = []
        read, deadline = 0, time.monotonic() + 20
        while read < high and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            read = message.offset() + 1
            if message.key() == b"session-key" and message.value() is not None:
                keys.append(json.loads(message.value()))
        return keys
    finally:
        consumer.close()


def test_a_java_worker_keeps_and_verifies_the_session_key_kconnect_wrote(
    kc_kafka: str, kc_java_connect: Any, tmp_path: Path
) -> None:
    group = f"sk-{uuid.uuid4().hex[:8]}"
    topic = f"{group}-configs"
    props = distributed_props(
        kc_kafka,
        group,
        free_port(),
        **{
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        },
    )
    ours = Distributed(props)
    ours.start()
    try:
        wait_for(lambda: bool(_session_keys(kc_kafka, topic)), 30, "kconnect's session key")
    finally:
        ours.stop()
    [written] = _session_keys(kc_kafka, topic)

    java = kc_java_connect(mode="distributed", name=group)
    source = tmp_path / "in.txt"
    source.write_text("one\n")
    config = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "file": str(source),
        "topic": f"{group}-lines",
    }
    status, body = java.request("PUT", "/connectors/lines/config", config)
    assert status == 201, body
    java.wait_running("lines", timeout_s=90)  # the Java leader has run its ticks by now

    # Kept, not replaced: Java read kconnect's record as its own.
    assert _session_keys(kc_kafka, topic) == [written]

    key = base64.b64decode(written["key"])
    _, tasks = java.request("GET", "/connectors/lines/tasks")
    configs = [{**tasks[0]["config"], "batch.size": "5"}]
    raw = json.dumps(configs).encode()
    signature = base64.b64encode(hmac.new(key, raw, hashlib.sha256).digest()).decode()

    unsigned = java.request("POST", "/connectors/lines/tasks", configs)
    assert unsigned == (
        400,
        {"error_code": 400, "message": "Internal request missing required signature"},
    )
    signed = java.request(
        "POST",
        "/connectors/lines/tasks",
        configs,
        headers={
            "X-Connect-Authorization": signature,
            "X-Connect-Request-Signature-Algorithm": "HmacSHA256",
        },
    )
    assert signed[0] == 204, signed
