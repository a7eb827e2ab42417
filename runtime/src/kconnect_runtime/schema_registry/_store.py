"""The registry's state, and its log in a compacted Kafka topic in Confluent's record format.

Keys and values are the JSON Confluent's ``KafkaStore`` writes to ``_schemas``:

- ``{"keytype":"SCHEMA","subject":S,"version":V,"magic":1}`` ->
  ``{"subject":S,"version":V,"id":N,"schema":TEXT,"deleted":false}`` (null: hard-deleted)
- ``{"keytype":"CONFIG","subject":S|null,"magic":0}`` -> ``{"compatibilityLevel":L}``
- ``{"keytype":"DELETE_SUBJECT","subject":S,"magic":0}`` -> ``{"subject":S,"version":V}``
  (soft-deletes every version up to V)
- ``{"keytype":"NOOP","magic":0}`` (ignored)

so a registry reading an existing ``_schemas`` topic (or Confluent's reading ours) recovers
every subject, version and id.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kconnect_sdk import ConnectError

from kconnect_runtime.config import kafka_client_config
from kconnect_runtime.logcontext import kafka_logging

from ._compat import CompatibilityLevel, canonical

__all__ = ["KafkaSchemaLog", "RegistryState", "SchemaVersion"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class SchemaVersion:
    """One version of a subject."""

    subject: str
    version: int
    id: int
    schema: str
    schema_type: str = "AVRO"
    deleted: bool = False

    def value(self) -> dict[str, Any]:
        out: dict[str, Any] = {"subject": self.subject, "version": self.version, "id": self.id}
        if self.schema_type != "AVRO":
            out["schemaType"] = self.schema_type
        out["schema"] = self.schema
        out["deleted"] = self.deleted
        return out


def schema_key(subject: str, version: int) -> dict[str, Any]:
    return {"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1}


def config_key(subject: str | None) -> dict[str, Any]:
    return {"keytype": "CONFIG", "subject": subject, "magic": 0}


def delete_subject_key(subject: str) -> dict[str, Any]:
    return {"keytype": "DELETE_SUBJECT", "subject": subject, "magic": 0}


class RegistryState:
    """Subjects, versions, ids and compatibility settings, rebuilt from the log's records."""

    def __init__(self, default_level: CompatibilityLevel) -> None:
        self.default_level = default_level
        self.subjects: dict[str, dict[int, SchemaVersion]] = {}
        self.schemas: dict[int, SchemaVersion] = {}  # id -> first registration
        self.ids_by_canonical: dict[str, int] = {}
        self.global_level: CompatibilityLevel | None = None
        self.subject_levels: dict[str, CompatibilityLevel] = {}
        self.max_id = 0

    # -- applying log records ---------------------------------------------------------
    def apply(self, key: Mapping[str, Any], value: Mapping[str, Any] | None) -> None:
        kind = key.get("keytype")
        if kind == "SCHEMA":
            subject, version = str(key["subject"]), int(key["version"])
            if value is None:
                versions = self.subjects.get(subject, {})
                versions.pop(version, None)
                if not versions:
                    self.subjects.pop(subject, None)
                return
            entry = SchemaVersion(
                subject=subject,
                version=version,
                id=int(value["id"]),
                schema=str(value["schema"]),
                schema_type=str(value.get("schemaType") or "AVRO"),
                deleted=bool(value.get("deleted", False)),
            )
            self.subjects.setdefault(subject, {})[version] = entry
            if entry.id not in self.schemas:
                self.schemas[entry.id] = entry
                with contextlib.suppress(json.JSONDecodeError):
                    self.ids_by_canonical.setdefault(canonical(json.loads(entry.schema)), entry.id)
            self.max_id = max(self.max_id, entry.id)
        elif kind == "CONFIG":
            config_subject: Any = key.get("subject")
            level = None if value is None else value.get("compatibilityLevel")
            parsed = CompatibilityLevel(str(level).upper()) if level else None
            if config_subject is None:
                self.global_level = parsed
            elif parsed is None:
                self.subject_levels.pop(str(config_subject), None)
            else:
                self.subject_levels[str(config_subject)] = parsed
        elif kind == "DELETE_SUBJECT" and value is not None:
            watermark = int(value.get("version", 0))
            for entry in self.subjects.get(str(key["subject"]), {}).values():
                if entry.version <= watermark:
                    entry.deleted = True
        # NOOP and key types we do not use (modes, contexts, associations) are ignored.

    # -- queries -----------------------------------------------------------------------
    def level(self, subject: str | None) -> CompatibilityLevel:
        if subject is not None and subject in self.subject_levels:
            return self.subject_levels[subject]
        return self.global_level or self.default_level

    def versions(self, subject: str, *, deleted: bool = False) -> list[SchemaVersion]:
        entries = sorted(self.subjects.get(subject, {}).values(), key=lambda e: e.version)
        return [e for e in entries if deleted or not e.deleted]


class KafkaSchemaLog:
    """Reads and appends the registry's records to a compacted single-partition topic."""

    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        *,
        replication_factor: int = 3,
        client_config: Mapping[str, str] | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        self.topic = topic
        self.bootstrap_servers = bootstrap_servers
        self.replication_factor = replication_factor
        self.client_config = dict(client_config or {})
        self.timeout_s = timeout_s
        self._producer: Any = None
        self._lock = threading.Lock()

    def _conf(self) -> dict[str, Any]:
        return kafka_logging(  # librdkafka's lines through logging
            kafka_client_config(
                {"bootstrap.servers": self.bootstrap_servers, **self.client_config},
                prefix="kafkastore.",
            ),
            "schema registry client",
        )

    def _watermarks(self, consumer: Any, deadline: float) -> tuple[int, int]:
        """The topic's low and high watermarks, asked again while a topic just created has
        no leader known yet (as Confluent's store waits up to kafkastore.init.timeout.ms)."""
        from confluent_kafka import KafkaError, KafkaException, TopicPartition

        retriable = {
            KafkaError.NOT_LEADER_FOR_PARTITION,
            KafkaError.LEADER_NOT_AVAILABLE,
            KafkaError.UNKNOWN_TOPIC_OR_PART,
            KafkaError._TIMED_OUT,
        }
        while True:
            left = deadline - time.monotonic()
            try:
                low, high = consumer.get_watermark_offsets(
                    TopicPartition(self.topic, 0), timeout=max(left, 1.0)
                )
                return int(low), int(high)
            except KafkaException as exc:
                if exc.args[0].code() not in retriable or time.monotonic() + 0.5 > deadline:
                    raise
                time.sleep(0.5)

    def _ensure_topic(self) -> None:
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # stubs omit NewTopic
            AdminClient,
            NewTopic,
        )

        admin = AdminClient(self._conf())
        metadata = admin.list_topics(timeout=self.timeout_s)
        if self.topic in metadata.topics:
            return
        brokers = max(1, len(metadata.brokers))
        replicas = min(self.replication_factor, brokers)
        if replicas < self.replication_factor:
            log.warning(
                "creating schemas topic %r with replication factor %d: the cluster has only %d "
                "broker(s) (kafkastore.topic.replication.factor=%d)",
                self.topic,
                replicas,
                brokers,
                self.replication_factor,
            )
        futures = admin.create_topics(
            [
                NewTopic(
                    self.topic,
                    num_partitions=1,
                    replication_factor=replicas,
                    config={"cleanup.policy": "compact"},
                )
            ]
        )
        for future in futures.values():
            try:
                future.result(timeout=self.timeout_s)
            except Exception as exc:
                if "TOPIC_ALREADY_EXISTS" not in str(exc):
                    raise

    def load(self, state: RegistryState) -> int:
        """Create the topic if needed and replay it into ``state``; returns records read."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

        try:
            self._ensure_topic()
        except Exception as exc:
            raise ConnectError(
                f"schema registry: cannot reach Kafka at kafkastore.bootstrap.servers="
                f"{self.bootstrap_servers} to set up topic {self.topic!r}: {exc}"
            ) from None
        consumer = Consumer(
            {
                **self._conf(),
                "group.id": "kconnect-schema-registry",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
            }
        )
        count = 0
        try:
            deadline = time.monotonic() + self.timeout_s
            low, high = self._watermarks(consumer, deadline)
            if high <= low:
                return 0
            consumer.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
            position = low
            while position < high:
                if time.monotonic() > deadline:
                    raise ConnectError(
                        f"schema registry: timed out reading topic {self.topic!r} "
                        f"(at offset {position} of {high})"
                    )
                msg = consumer.poll(0.5)
                if msg is None:
                    continue
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        break
                    raise ConnectError(f"schema registry: error reading {self.topic!r}: {err}")
                position = (msg.offset() or position) + 1
                raw_key, raw_value = msg.key(), msg.value()
                if raw_key is None:
                    continue
                try:
                    key = json.loads(raw_key)
                    value = None if raw_value is None else json.loads(raw_value)
                except json.JSONDecodeError:
                    log.warning(
                        "skipping unreadable record at offset %d of %r", msg.offset(), self.topic
                    )
                    continue
                state.apply(key, value)
                count += 1
        finally:
            consumer.close()
        return count

    def append(self, key: Mapping[str, Any], value: Mapping[str, Any] | None) -> None:
        """Write one record and wait until Kafka has it."""
        from confluent_kafka import Producer

        with self._lock:
            if self._producer is None:
                self._producer = Producer({**self._conf(), "acks": "all", "linger.ms": 0})
            errors: list[Any] = []

            def delivered(err: Any, _msg: Any) -> None:
                if err is not None:
                    errors.append(err)

            self._producer.produce(
                self.topic,
                key=json.dumps(key, separators=(",", ":")).encode(),
                value=None
                if value is None
                else json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(),
                on_delivery=delivered,
            )
            remaining = self._producer.flush(self.timeout_s)
            if remaining or errors:
                raise ConnectError(
                    f"schema registry: cannot write to topic {self.topic!r}: "
                    f"{errors[0] if errors else 'timed out'}"
                )

    def close(self) -> None:
        with self._lock:
            if self._producer is not None:
                self._producer.flush(5)
                self._producer = None
