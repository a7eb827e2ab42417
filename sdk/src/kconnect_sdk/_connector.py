"""Connectors and tasks: the classes a connector author subclasses.

A connector never moves data: it reads its config, splits the work into at most
``tasks.max`` task configs, and the runtime runs a task for each. Source tasks ``poll``
records from an external system; sink tasks receive records in ``put``.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from ._errors import ConnectError
from ._versioned import Versioned

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ._config import ConfigDef, ConfigValue
    from ._records import RecordMetadata, SinkRecord, SourceRecord, TopicPartition

__all__ = [
    "Connector",
    "ConnectorContext",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "OffsetStorageReader",
    "SinkConnector",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceTask",
    "SourceTaskContext",
    "Task",
]


class ExactlyOnceSupport(StrEnum):
    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class OffsetStorageReader(Protocol):
    """Reads committed source offsets. Partitions and offsets are plain JSON-like dicts."""

    def offset(self, partition: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The last committed offset for ``partition``, or None."""
        ...

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any] | None]:
        """The offsets of several partitions, in the order given."""
        ...


class ConnectorContext(Protocol):
    """What the runtime offers a running connector."""

    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call ``task_configs`` again and restart tasks whose config changed."""
        ...

    def raise_error(self, error: BaseException) -> None:
        """Fail the connector (state FAILED with this error's trace)."""
        ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader | None:
        """For source connectors: read the committed offsets of their tasks. None for sinks."""
        ...


class SourceTaskContext(Protocol):
    """What the runtime offers a running source task."""

    @property
    def configs(self) -> Mapping[str, str]: ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader: ...


class ErrantRecordReporter(Protocol):
    """Sends a record the sink task could not handle where ``errors.*`` says (log, DLQ).

    The runtime completes every report before it commits the offsets that cover it.
    """

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]: ...


class SinkTaskContext(Protocol):
    """What the runtime offers a running sink task."""

    @property
    def configs(self) -> Mapping[str, str]: ...

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Rewind or skip: consumption of each partition resumes at the given offset."""
        ...

    def timeout(self, timeout_ms: int) -> None:
        """How long to wait before redelivering a batch whose ``put`` raised RetriableError."""
        ...

    def assignment(self) -> set[TopicPartition]: ...

    def pause(self, *partitions: TopicPartition) -> None: ...

    def resume(self, *partitions: TopicPartition) -> None: ...

    def request_commit(self) -> None:
        """Ask for an offset commit as soon as possible."""
        ...

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """None unless the connector's ``errors.*`` config gives bad records somewhere to go."""
        ...


class Task(Versioned, abc.ABC):
    """A unit of work the runtime runs on a thread (or a Spark executor)."""

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Begin work with this task's config (one of the connector's ``task_configs``)."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Release resources. May be called from another thread than the task's."""


class SourceTask(Task):
    """Reads records from an external system.

    Contract:
        - ``poll`` returns a batch of records, or None (or an empty list) when there is
          nothing yet; it should not block for long, so that pause and stop take effect.
        - ``stop`` is called from another thread and must make a blocked ``poll`` return.
        - ``commit_record`` is called once the broker acknowledged the record (metadata
          None when a transform dropped it or the error policy skipped it).
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    @abc.abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """The next batch of records, or None."""

    def commit(self) -> None:
        """Called after the runtime has committed offsets; acknowledge upstream here."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Called per record once it is acknowledged by Kafka (or skipped)."""


class SinkTask(Task):
    """Writes records read from Kafka to an external system.

    Contract:
        - ``put`` may buffer; it raises RetriableError to have the same batch redelivered
          after ``context.timeout(ms)``; any other error fails the task.
        - ``pre_commit`` returns, per partition, the next offset to consume for data that
          is durable in the external system; returning an empty map disables commits.
        - Offsets are keyed by the *original* topic partition (``SinkRecord.original_*``).
    """

    context: SinkTaskContext

    def initialize(self, context: SinkTaskContext) -> None:
        self.context = context

    @abc.abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Deliver a batch of records."""

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything ``put`` so far durable."""

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """Offsets safe to commit. The default flushes, then returns ``offsets``."""
        self.flush(offsets)
        return offsets

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        """Partitions newly assigned to this task (after a rebalance)."""

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        """Partitions taken away from this task; flush and drop their writers."""


class Connector(Versioned, abc.ABC):
    """Splits a job into task configs. Subclass :class:`SourceConnector` or :class:`SinkConnector`."""

    _context: ConnectorContext | None = None

    def initialize(self, context: ConnectorContext) -> None:
        self._context = context

    @property
    def context(self) -> ConnectorContext:
        if self._context is None:
            raise ConnectError(f"{type(self).__name__} has not been initialized with a context")
        return self._context

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the connector's config (validated against ``config()``)."""

    def reconfigure(self, props: Mapping[str, str]) -> None:
        """Apply a new config. The default stops, then starts again."""
        self.stop()
        self.start(props)

    @abc.abstractmethod
    def task_class(self) -> type[Task]:
        """The task class this connector's tasks run."""

    @abc.abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Between 1 and ``max_tasks`` configs, one per task to run."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop; called from the runtime's thread."""

    @abc.abstractmethod
    def config(self) -> ConfigDef:
        """The definition of this connector's own config keys."""

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        """Per-key validation results for ``props``; never raises for a user's mistake."""
        return self.config().validate(props)


class SourceConnector(Connector):
    """A connector whose tasks are :class:`SourceTask` s."""

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this connector can give exactly-once delivery with ``props``; None if unknown."""
        return None

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> bool:
        return False

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        """Called before offsets are altered or reset through the REST API.

        Return True when the connector accepts the change, False when it has no opinion;
        raise ConnectError to refuse it. May be called before ``start``.
        """
        return False


class SinkConnector(Connector):
    """A connector whose tasks are :class:`SinkTask` s. Its config has ``topics`` or ``topics.regex``."""

    TOPICS_CONFIG = "topics"
    TOPICS_REGEX_CONFIG = "topics.regex"

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]
    ) -> bool:
        """Called before consumer-group offsets are altered or reset through the REST API."""
        return False
