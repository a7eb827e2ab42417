"""The pipeline checks' plumbing: a real standalone worker on an engine, and Kafka I/O.

The worker is ``kconnect_runtime.Standalone`` with file-backed offsets, no REST listener,
the session's broker (``kc_kafka``) and JSON converters with schemas, so values keep
their types through Kafka. On the ``spark`` engine the SparkSession the first worker
starts is kept for the rest of the session (starting one takes 6-13 s) and stopped at
its end.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _support

if TYPE_CHECKING:
    from kconnect_runtime import Standalone
    from kconnect_sdk import Converter

__all__ = [
    "CONVERTER",
    "converter",
    "produce",
    "read_topics",
    "route_to_unique_topics",
    "running_worker",
    "stop_spark_sessions",
    "unique_topic",
    "worker_props",
]

CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SESSION_TIMEOUT_MS = "6000"  # a group's first join takes about half of it on Tansu
_SPARK_SESSIONS: list[Any] = []


def worker_props(
    tmp_path: Path, kafka: str, engine: str, plugin_path: str | None = None
) -> dict[str, str]:
    """A standalone worker's config for a pipeline check on ``engine``."""
    props = {
        "bootstrap.servers": kafka,
        "offset.storage.file.filename": str(tmp_path / "kc-pipeline-offsets.json"),
        "offset.flush.interval.ms": "200",
        "consumer.session.timeout.ms": SESSION_TIMEOUT_MS,
        "listeners": "",
    }
    for prefix in ("key", "value"):
        props[f"{prefix}.converter"] = CONVERTER
        props[f"{prefix}.converter.schemas.enable"] = "true"
    if plugin_path is not None:
        props["plugin.path"] = plugin_path
    if engine == "spark":
        props.update(
            {
                "engine": "spark",
                "spark.master": "local[2,2]",
                "spark.source.batch.max.ms": "300",
                "spark.sink.batch.max.ms": "500",
                "spark.cycle.idle.ms": "100",
            }
        )
    return props


@contextlib.contextmanager
def running_worker(worker: Mapping[str, str], connector: Mapping[str, str]) -> Iterator[Standalone]:
    """A started standalone worker running ``connector``; stopped on exit."""
    from kconnect_runtime import Standalone

    app = Standalone(worker, [connector])
    try:
        app.start()
    except Exception as exc:
        _keep_spark(app)
        app.stop()
        _support.fail(f"the worker did not start the connector: {type(exc).__name__}: {exc}")
    try:
        yield app
    finally:
        _keep_spark(app)
        app.stop()


def _keep_spark(app: Standalone) -> None:
    # Standalone stops the SparkSession its engine built; keep it for the next check.
    engine = app.spark_engine
    if engine is not None:
        if engine.session not in _SPARK_SESSIONS:
            _SPARK_SESSIONS.append(engine.session)
        app.spark_engine = None


def stop_spark_sessions() -> None:
    """Stop the SparkSession pipeline checks kept (at the end of the test session)."""
    while _SPARK_SESSIONS:
        with contextlib.suppress(Exception):
            _SPARK_SESSIONS.pop().stop()


def task_failures(app: Standalone, name: str) -> list[str]:
    """The traces of the connector's FAILED tasks (and connector), if any."""
    if app.herder is None:
        return []
    status = app.herder.connector_status(name)
    found = [status["connector"]] if status["connector"].get("state") == "FAILED" else []
    found += [t for t in status.get("tasks", []) if t.get("state") == "FAILED"]
    return [str(t.get("trace") or t) for t in found]


def converter(*, is_key: bool = False) -> Converter:
    """The pipeline's converter, configured as the worker configures it."""
    from kconnect_sdk import PluginKind

    try:
        conv: Converter = _support.registry().load(CONVERTER, PluginKind.CONVERTER)()
    except Exception as exc:
        _support.fail(
            f"the pipeline check converts with {CONVERTER}, which is not installed ({exc}); "
            "pip install kconnect-converter-json"
        )
    conv.configure({"schemas.enable": "true"}, is_key)
    return conv


def unique_topic(label: str) -> str:
    return f"kc-pipeline-{label}-{uuid.uuid4().hex[:8]}"


ROUTER = "org.apache.kafka.connect.transforms.RegexRouter"
_ROUTE_ALIAS = "kcTestkitPipelineRoute"


def route_to_unique_topics(props: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """``props`` with a last transform that appends a unique suffix to every topic, and the
    suffix: the session's broker is shared, and the scenario names fixed topics."""
    from kconnect_sdk import PluginKind

    try:
        _support.registry().resolve(ROUTER, PluginKind.TRANSFORMATION)
    except Exception as exc:
        _support.fail(
            f"the pipeline check routes source records with {ROUTER}, which is not installed "
            f"({exc}); pip install kconnect-transforms"
        )
    suffix = f".kc-{uuid.uuid4().hex[:8]}"
    out = dict(props)
    chain = [a.strip() for a in out.get("transforms", "").split(",") if a.strip()]
    out["transforms"] = ",".join([*chain, _ROUTE_ALIAS])
    out[f"transforms.{_ROUTE_ALIAS}.type"] = ROUTER
    out[f"transforms.{_ROUTE_ALIAS}.regex"] = "(.*)"
    out[f"transforms.{_ROUTE_ALIAS}.replacement"] = "$1" + suffix
    return out, suffix


def _consumer(kafka: str) -> Any:
    from confluent_kafka import Consumer

    return Consumer(
        {
            "bootstrap.servers": kafka,
            "group.id": unique_topic("reader"),
            "enable.auto.commit": False,
        }
    )


def read_topics(
    kafka: str, topics: Sequence[str], expected: int, timeout_s: float
) -> list[bytes | None]:
    """Every value in ``topics``, read from the beginning until ``expected`` came (and a
    short while after, to see duplicates) or ``timeout_s`` passed.

    The end is found by counting, not by high watermarks: the embedded broker reports a
    partition's high watermark per batch, not per record.
    """
    from confluent_kafka import OFFSET_BEGINNING
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    consumer = _consumer(kafka)
    try:
        deadline = time.monotonic() + timeout_s
        assigned: set[tuple[str, int]] = set()
        values: list[bytes | None] = []
        settle_until: float | None = None
        while time.monotonic() < deadline:
            metadata = consumer.list_topics(timeout=10).topics
            for topic in topics:
                found = metadata.get(topic)
                if found is None or found.error is not None:
                    continue
                new = [(topic, p) for p in found.partitions if (topic, p) not in assigned]
                if new:
                    assigned.update(new)
                    consumer.incremental_assign(
                        [KafkaTopicPartition(t, p, OFFSET_BEGINNING) for t, p in new]
                    )
            if not assigned:
                time.sleep(0.2)
                continue
            for message in consumer.consume(1000, 0.3):
                if message.error() is None:
                    values.append(message.value())
            if len(values) >= expected:
                settle_until = settle_until or time.monotonic() + 0.5
                if time.monotonic() >= settle_until:
                    break
        return values
    finally:
        consumer.close()


def produce(kafka: str, topic: str, items: Sequence[tuple[bytes | None, bytes | None]]) -> None:
    """Write ``(key, value)`` pairs to partition 0 of ``topic``, in order, and wait for acks."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": kafka, "enable.idempotence": True})
    errors: list[str] = []

    def delivered(err: Any, _msg: Any) -> None:
        if err is not None:
            errors.append(str(err))

    for key, value in items:
        producer.produce(topic, value=value, key=key, partition=0, on_delivery=delivered)
    left = producer.flush(30)
    if left or errors:
        _support.fail(
            f"could not write the scenario's records to {topic}: {left} unacknowledged, {errors[:3]}"
        )
