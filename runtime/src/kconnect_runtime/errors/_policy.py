"""``errors.*`` as a policy: stages, tolerance, retry limits, dead letter queue settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from kconnect_sdk import ConnectError

__all__ = ["ErrorPolicy", "Stage", "class_name", "tolerance_exceeded"]


class Stage(StrEnum):
    """Where on the data path an operation failed (Kafka's ``Stage`` names)."""

    TASK_POLL = "TASK_POLL"
    TASK_PUT = "TASK_PUT"
    TRANSFORMATION = "TRANSFORMATION"
    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


def class_name(obj: object) -> str:
    """``module.QualName`` of an object's class (or of a class)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _flag(config: Mapping[str, str], key: str, default: bool) -> bool:
    raw = str(config.get(key, "")).strip().lower()
    return default if not raw else raw == "true"


def _int(config: Mapping[str, str], key: str, default: int) -> int:
    raw = str(config.get(key, "")).strip()
    return int(raw) if raw else default


@dataclass(frozen=True, slots=True)
class ErrorPolicy:
    """The ``errors.*`` settings of one connector (already validated by the worker)."""

    retry_timeout_ms: int = 0
    retry_delay_max_ms: int = 60000
    tolerate_all: bool = False
    log_enable: bool = False
    log_include_messages: bool = False
    dlq_topic: str = ""
    dlq_replication_factor: int = 3
    dlq_context_headers: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, str]) -> ErrorPolicy:
        return cls(
            retry_timeout_ms=_int(config, "errors.retry.timeout", 0),
            retry_delay_max_ms=max(1, _int(config, "errors.retry.delay.max.ms", 60000)),
            tolerate_all=str(config.get("errors.tolerance", "none")).strip().lower() == "all",
            log_enable=_flag(config, "errors.log.enable", False),
            log_include_messages=_flag(config, "errors.log.include.messages", False),
            dlq_topic=str(config.get("errors.deadletterqueue.topic.name", "")).strip(),
            dlq_replication_factor=_int(
                config, "errors.deadletterqueue.topic.replication.factor", 3
            ),
            dlq_context_headers=_flag(
                config, "errors.deadletterqueue.context.headers.enable", False
            ),
        )

    @property
    def reports_errant_records(self) -> bool:
        """Whether a sink task gets an errant record reporter (Kafka's rule)."""
        return self.tolerate_all or self.log_enable or bool(self.dlq_topic)


def tolerance_exceeded(
    task: str, stage: Stage, where: str, exc: BaseException, *, retriable_gave_up: bool = False
) -> ConnectError:
    """The error that fails a task when a record fails and errors.tolerance=none."""
    advice = (
        "raise errors.retry.timeout to retry longer, or set errors.tolerance=all to skip such records"
        if retriable_gave_up
        else "fix the data or the config, or set errors.tolerance=all (with "
        "errors.deadletterqueue.topic.name to keep the records) to skip such records"
    )
    return ConnectError(
        f"{task}: Tolerance exceeded in error handler at stage {stage} ({where}): "
        f"{type(exc).__name__}: {exc}; {advice}"
    )
