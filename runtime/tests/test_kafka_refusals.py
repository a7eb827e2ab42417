"""Settings Apache Kafka refuses for good fail loudly, with the setting to change.

librdkafka asks again for ever when the broker refuses a group join; a worker that only
retries shows RUNNING and moves nothing. As Kafka's Java worker, a sink task fails with the
cause, and a distributed worker does not start.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from kconnect_runtime import Distributed, Standalone
from kconnect_runtime.modes import free_port
from kconnect_sdk import ConnectError
from runtime_harness import distributed_props, file_sink, wait_for, worker_props

pytestmark = pytest.mark.integration


def test_a_sink_whose_session_timeout_the_broker_refuses_fails_with_the_setting(
    kafka: str, tmp_path: Path
) -> None:
    topic = f"refused-{uuid.uuid4().hex[:8]}"
    producer = Producer({"bootstrap.servers": kafka})
    producer.produce(topic, b"r0")
    assert producer.flush(10) == 0
    # Below Kafka's group.min.session.timeout.ms (6000).
    props = worker_props(tmp_path, kafka, **{"consumer.session.timeout.ms": "2000"})
    app = Standalone(props, [file_sink("refused", tmp_path / "out.txt", topic)])
    worker = app.start()
    try:
        task = worker.connectors["refused"].tasks[0]
        wait_for(lambda: task.status.state.value == "FAILED", 30, "the task to fail")
        trace = task.status.to_rest()["trace"]
        assert "Invalid session timeout" in trace
        assert "consumer.session.timeout.ms" in trace
        assert "group.min.session.timeout.ms" in trace
    finally:
        app.stop()


def test_a_distributed_worker_whose_session_timeout_the_broker_refuses_does_not_start(
    kafka: str, tmp_path: Path
) -> None:
    group = f"refused-{uuid.uuid4().hex[:8]}"
    props = distributed_props(kafka, group, free_port())
    props["session.timeout.ms"] = "3000"
    props["heartbeat.interval.ms"] = "500"
    app = Distributed(props)
    try:
        with pytest.raises(ConnectError) as failed:
            app.start()
    finally:
        app.stop()
    message = str(failed.value)
    assert group in message and "Invalid session timeout" in message
    assert "session.timeout.ms must lie within" in message
