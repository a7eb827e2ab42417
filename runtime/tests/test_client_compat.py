"""A Kafka Connect client nobody here wrote (kafka-connect-py from PyPI) drives kconnect."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka_connect import KafkaConnect
from kconnect_runtime import Standalone
from runtime_harness import file_source, wait_for, worker_props

pytestmark = pytest.mark.integration


@pytest.fixture
def client(kafka: str, tmp_path: Path) -> Iterator[KafkaConnect]:
    app = Standalone(worker_props(tmp_path, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    assert app.rest is not None
    try:
        yield KafkaConnect(url=app.rest.url)
    finally:
        app.stop()


def test_third_party_client_manages_a_connector(client: KafkaConnect, tmp_path: Path) -> None:
    name = f"compat-{uuid.uuid4().hex[:8]}"
    source = tmp_path / "in.txt"
    source.write_text("x\n")
    info = client.get_cluster_info()
    assert "version" in info

    created = client.create_connector(
        {"name": name, "config": file_source(name, source, f"compat-{name}")}
    )
    assert created["name"] == name
    assert name in client.list_connectors()

    def state() -> str:
        return str(client.get_connector_status(name)["connector"]["state"])

    def task_state() -> str:
        return str(client.get_connector_task_status(name, 0)["state"])

    wait_for(lambda: state() == "RUNNING" and task_state() == "RUNNING", 30, "RUNNING")
    assert client.get_connector_config(name)["file"] == str(source)
    assert client.list_connector_tasks(name)[0]["id"] == {"connector": name, "task": 0}

    client.pause_connector(name)
    wait_for(lambda: state() == "PAUSED" and task_state() == "PAUSED", 30, "PAUSED")
    client.resume_connector(name)
    wait_for(lambda: state() == "RUNNING" and task_state() == "RUNNING", 30, "RUNNING again")

    assert client.restart_connector(name) is None  # legacy restart: 204
    restarted = client.restart_connector(name, include_tasks=True)
    assert restarted["connector"]["state"] == "RESTARTING"
    client.restart_connector_task(name, 0)
    wait_for(
        lambda: state() == "RUNNING" and task_state() == "RUNNING", 30, "RUNNING after restarts"
    )

    updated = client.update_connector(
        name, {**file_source(name, source, "other"), "tasks.max": "1"}
    )
    assert updated["config"]["topic"] == "other"

    client.stop_connector(name)
    wait_for(lambda: state() == "STOPPED", 30, "STOPPED")
    client.delete_connector(name)
    assert name not in client.list_connectors()
