"""``errors.*`` on the DataFrame path: tolerance, error log and dead letter queue per task.

The same keys and the same handler as on a worker (:mod:`kconnect_runtime.errors`): a record
that fails in a transform, a converter or the Arrow conversion fails the Spark task with
``errors.tolerance=none`` (the default), or is skipped, counted and (``errors.log.enable``)
logged with ``errors.tolerance=all``. A dead letter queue needs a Kafka cluster, which the
data source does not otherwise use: ``errors.deadletterqueue.topic.name`` is accepted only
together with ``bootstrap.servers`` (the worker key) among the options.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from kconnect_sdk import ConfigError, SourceRecord
from kconnect_sdk.kafka_clients import security_settings

from kconnect_runtime.errors import (
    DeadLetterQueue,
    ErrorHandler,
    ErrorPolicy,
    Failure,
    Stage,
    class_name,
    executing_class,
    source_record_json,
)
from kconnect_runtime.metrics import ErrorMetrics
from kconnect_runtime.tasks import TransformChain

__all__ = [
    "BOOTSTRAP",
    "check_error_config",
    "new_error_handler",
    "report_skipped",
    "source_record_failed",
    "transform_tolerant",
]

R = TypeVar("R")

log = logging.getLogger("kconnect.dataframes")

BOOTSTRAP = "bootstrap.servers"
DLQ_TOPIC = "errors.deadletterqueue.topic.name"

_INTS = ("errors.retry.timeout", "errors.retry.delay.max.ms")
_FLAGS = (
    "errors.log.enable",
    "errors.log.include.messages",
    "errors.deadletterqueue.context.headers.enable",
)


def check_error_config(name: str, config: Mapping[str, str]) -> ErrorPolicy:
    """Validate the ``errors.*`` keys of a connector's DataFrame options (on the driver).

    Raises:
        ConfigError: naming the key, for a value Kafka Connect would refuse, or a dead letter
            queue without ``bootstrap.servers``.
    """
    tolerance = str(config.get("errors.tolerance", "none")).strip().lower()
    if tolerance not in ("none", "all"):
        raise ConfigError(
            f"connector {name!r}: Invalid value {config['errors.tolerance']} for configuration "
            "errors.tolerance: String must be one of: none, all",
            name="errors.tolerance",
        )
    for key in (*_INTS, "errors.deadletterqueue.topic.replication.factor"):
        raw = str(config.get(key, "")).strip()
        if raw:
            try:
                int(raw)
            except ValueError:
                raise ConfigError(
                    f"connector {name!r}: Invalid value {raw} for configuration {key}: "
                    "Not a number of type LONG",
                    name=key,
                ) from None
    for key in _FLAGS:
        raw = str(config.get(key, "")).strip().lower()
        if raw and raw not in ("true", "false"):
            raise ConfigError(
                f"connector {name!r}: Invalid value {config[key]} for configuration {key}: "
                "Expected value to be either true or false",
                name=key,
            )
    policy = ErrorPolicy.from_config(config)
    if policy.dlq_topic and not str(config.get(BOOTSTRAP, "")).strip():
        raise ConfigError(
            f"connector {name!r}: {DLQ_TOPIC}={policy.dlq_topic} needs a Kafka cluster to write "
            f"the dead letter queue to, and the kconnect data source has none of its own: add "
            f"option {BOOTSTRAP} (host:port,...) or remove {DLQ_TOPIC} "
            "(errors.tolerance=all with errors.log.enable=true logs skipped records instead)",
            name=DLQ_TOPIC,
        )
    return policy


def new_error_handler(name: str, task: int, config: Mapping[str, str]) -> ErrorHandler:
    """The ``errors.*`` handler of one task of the DataFrame path (with its own DLQ producer)."""
    policy = check_error_config(name, config)
    metrics = ErrorMetrics()
    dlq = None
    if policy.dlq_topic:
        security = security_settings(config)
        dlq = DeadLetterQueue(
            policy.dlq_topic,
            bootstrap_servers=str(config[BOOTSTRAP]).strip(),
            replication_factor=policy.dlq_replication_factor,
            metrics=metrics,
            producer_settings={**security, "client.id": f"connector-dlq-producer-{name}-{task}"},
        )
    return ErrorHandler(
        policy,
        connector=name,
        task=task,
        metrics=metrics,
        stopping=threading.Event(),
        dlq=dlq,
    )


def report_skipped(handler: ErrorHandler, where: str, before: int = 0) -> int:
    """Log how many records ``errors.tolerance=all`` skipped since ``before``; the new total."""
    total = handler.metrics.records_skipped
    skipped = total - before
    if skipped:
        log.warning(
            "connector %r task %d: %d records skipped %s under errors.tolerance=all%s",
            handler.connector,
            handler.task,
            skipped,
            where,
            f" (sent to dead letter queue {handler.dlq.topic!r})" if handler.dlq else "",
        )
    return total


def source_record_failed(
    handler: ErrorHandler, record: SourceRecord, stage: Stage, executing: str, exc: BaseException
) -> None:
    """A source record failed for good: raise (tolerance none), or log, DLQ and skip it.

    As on a worker: the DLQ record's value is the source record as JSON, and the context
    headers carry its source partition and offset as JSON text.
    """
    failure = Failure.of_source_record(stage, exc, executing, record)
    handler.failed(failure)
    handler.to_dlq(failure, None, source_record_json(record), None, record.timestamp)


def transform_tolerant(
    handler: ErrorHandler,
    transforms: TransformChain[Any],
    records: list[R],
    failed: Callable[[R, str, BaseException], None],
) -> list[R]:
    """``records`` through ``transforms``; if the batch raises, again one record at a time.

    A good batch costs one call; in the second pass each record gets ``errors.retry.*``
    retries, and one that still fails goes to ``failed`` (which raises or skips it).
    """
    try:
        return transforms.apply_batch(records)
    except Exception:
        pass
    out: list[R] = []
    for record in records:
        try:
            out.extend(
                handler.retry(
                    Stage.TRANSFORMATION, functools.partial(transforms.apply_batch, [record])
                )
            )
        except Exception as exc:
            failed(record, executing_class(exc, class_name(transforms)), exc)
    return out
