"""A missing bucket fails the task with a message naming it; a REST restart recovers."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from s3_testing import Bucket

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(check: Any, what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_missing_bucket_fails_the_task_and_a_rest_restart_recovers(
    tmp_path: Path, kc_kafka: Any, kc_s3: Any
) -> None:
    from confluent_kafka import Producer

    kafka = str(kc_kafka)
    topic = f"kc-s3-restart-{uuid.uuid4().hex[:8]}"
    producer = Producer({"bootstrap.servers": kafka})
    for i in range(3):
        producer.produce(topic, value=f'"v{i}"'.encode(), partition=0)
    assert producer.flush(30) == 0
    missing = Bucket(kc_s3, f"kc-later-{uuid.uuid4().hex[:8]}")
    port = free_port()
    worker = {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "consumer.session.timeout.ms": "6000",
        "listeners": f"http://127.0.0.1:{port}",
    }
    name = f"s3-restart-{uuid.uuid4().hex[:6]}"
    connector = missing.props(
        name=name, topics=topic, **{"flush.size": "3", "aws.secret.access.key": "hush-hush-42"}
    )
    app = Standalone(worker, [connector])
    app.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as api:

            def failed_task() -> dict[str, Any] | None:
                status = api.get(f"/connectors/{name}/status").json()
                tasks = status.get("tasks", [])
                return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else None

            task = wait_for(failed_task, "the task to fail on the missing bucket")
            assert missing.name in task["trace"]
            assert "hush-hush-42" not in task["trace"]
            config = api.get(f"/connectors/{name}/config").json()
            assert "hush-hush-42" not in str(config)
            kc_s3.client().create_bucket(Bucket=missing.name)
            response = api.post(f"/connectors/{name}/restart?includeTasks=true&onlyFailed=true")
            assert response.status_code in (202, 204), response.text
            wait_for(missing.listing, "the objects after the restart")
            assert missing.listing() == [
                "topics/" + topic + "/partition=0/" + topic + "+0+0000000000.json"
            ]
    finally:
        app.stop()
