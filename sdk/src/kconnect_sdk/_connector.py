"""Connectors and tasks: the classes a connector author subclasses.

A connector never moves data: it reads its config, splits the work into at most
``tasks.max`` task configs, and the runtime runs a task for each. Source tasks ``poll``
records from an external system; sink tasks receive records in ``put``.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ._errors import ConnectError
from ._versioned import Versioned

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ._batch import SinkBatch, SourceBatch
    from ._config import ConfigDef, ConfigValue
    from ._metrics import PluginMetrics
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
    "TransactionContext",
    "task_class_name",
]


class ExactlyOnceSupport(StrEnum):
    """A source connector's answer to :meth:`SourceConnector.exactly_once_support` (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class TransactionContext(Protocol):
    """Lets a source task define its own transaction boundaries (KIP-618).

    Given by :meth:`SourceTaskContext.transaction_context` only when exactly-once source
    support is enabled on the worker and the connector sets
    ``transaction.boundary=connector``; otherwise that method returns None. Requests take
    effect when the runtime next commits: after the batch of the current ``poll``, or
    right after ``record`` when one is given (records polled after it, in the same batch,
    go to the next transaction).
    """

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit the current transaction (after ``record``, when given)."""
        ...

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort the current transaction (after ``record``, when given: it is dropped too).

        Aborted records are not sent again: their source offsets are not committed, so
        the task reads them again after a restart only if it rewinds to those offsets.
        """
        ...


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

    @property
    def plugin_metrics(self) -> PluginMetrics:
        """Where this connector defines its own metrics (Kafka's ``pluginMetrics()``, KIP-877).

        Tagged ``connector`` by the worker and exported with its metrics; removed when
        the connector stops.
        """
        ...


class SourceTaskContext(Protocol):
    """What the runtime offers a running source task."""

    @property
    def configs(self) -> Mapping[str, str]: ...

    @property
    def offset_storage_reader(self) -> OffsetStorageReader: ...

    def transaction_context(self) -> TransactionContext | None:
        """The task's transaction context, or None unless it defines transaction boundaries.

        Only with ``exactly.once.source.support=enabled`` on the worker and
        ``transaction.boundary=connector`` on the connector (Kafka's contract).
        """
        ...

    @property
    def plugin_metrics(self) -> PluginMetrics:
        """Where this task defines its own metrics (Kafka's ``pluginMetrics()``, KIP-877).

        Tagged ``connector`` and ``task`` by the worker and exported with its metrics; removed when
        the task stops.
        """
        ...


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

    @property
    def plugin_metrics(self) -> PluginMetrics:
        """Where this task defines its own metrics (Kafka's ``pluginMetrics()``, KIP-877).

        Tagged ``connector`` and ``task`` by the worker and exported with its metrics; removed when
        the task stops.
        """
        ...


class Task(Versioned, abc.ABC):
    """A unit of work the runtime runs on a thread of its own (or on a Spark executor).

    One instance runs one task config. Each running task has a dedicated *task thread*:
    the runtime calls ``initialize``, ``start`` and every data method (``poll``/``put``
    and their commit hooks) from that thread, one call at a time, so a task needs no
    locking for its own state. The only exception is noted on each subclass's ``stop``.
    An instance is never restarted: after ``stop`` the runtime builds a new instance.
    """

    kafka_class_name: ClassVar[str | None] = None
    """The class name Kafka Connect knows this task by (``task.class`` in every task
    config the runtime writes, as Kafka's worker does), e.g.
    ``org.apache.kafka.connect.file.FileStreamSourceTask``. Set it on a task that stands
    in for a Java task, so a Java worker taking over the config topic can start the task
    configs kconnect wrote; left ``None``, the Python class's dotted name is used (see
    :func:`task_class_name`)."""

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Begin work with this task's config (one of the connector's ``task_configs``).

        Parse the config and open connections here, not in ``__init__``: the runtime
        instantiates tasks to read their version before it starts them. Raising fails
        the task (state FAILED with the error's trace); ``stop`` is still called.
        """

    @abc.abstractmethod
    def stop(self) -> None:
        """Release resources; see the subclass for the thread it is called from.

        Called exactly once per started task, also after ``start`` or a data method
        raised. It must not raise for a half-started task (guard attributes that
        ``start`` may not have set); an error it raises is logged and otherwise ignored.
        """


class SourceTask(Task):
    """Reads records from an external system for the runtime to write to Kafka.

    Lifecycle:
        ``initialize(context)`` then ``start(props)``, then ``poll`` in a loop until the
        task is stopped or paused. While the task is paused the runtime simply stops
        calling ``poll``; it does not tell the task.

    Threading:
        ``initialize``, ``start``, ``poll``, ``commit`` and ``commit_record`` are called
        on the task thread, never concurrently with each other. ``stop`` is called from
        another thread (the worker's, when the connector is stopped, deleted or
        reconfigured), possibly while ``poll`` is blocked: it only has to signal the
        task (set a flag, wake a selector or close a socket) so that a blocked ``poll``
        returns soon; it need not wait for the task to finish. ``stop`` may be called
        before ``start`` has returned.

    Records and offsets:
        Each record carries a ``source_partition`` and ``source_offset``; the runtime
        stores the offset of a record only after Kafka acknowledged it (or the error
        policy skipped it), and periodically (``offset.flush.interval.ms``) commits the
        offsets acknowledged so far. On restart the task reads them back through
        ``context.offset_storage_reader`` and resumes from there: this is how a source
        task gets at-least-once delivery without any commit logic of its own.
        The runtime does not copy records: once returned from ``poll`` a record and
        everything reachable from it belongs to the runtime and must not be changed.

    Errors:
        ``RetriableError`` from ``poll`` is logged and ``poll`` is called again (after
        a short pause); any other exception fails the task. Errors from ``commit`` and
        ``commit_record`` are logged and do not fail the task.
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        """Receive the task's context; called once, before ``start``."""
        self.context = context

    def report_progress(self, done: int, total: int | None = None) -> None:
        """Report the progress of a snapshot or bulk load: ``done`` rows of about ``total``.

        kconnect shows it in the task's status (``progress``), metrics, log and CLI.
        Cheap enough to call once per batch. A runtime opts in by giving its context a
        ``report_progress(done, total)`` method (not part of :class:`SourceTaskContext`, so
        contexts written before it still type-check); on others this does nothing, as it
        does before ``initialize``.
        """
        report = getattr(getattr(self, "context", None), "report_progress", None)
        if report is not None:
            report(done, total)

    @abc.abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """The next batch of records, or None (or ``[]``) when there is nothing yet.

        May block while waiting for data, but should return within about a second even
        when there is none (return None), so that pause, offset commits and ``stop``
        take effect promptly. After ``stop`` was called it should return quickly.
        """

    def poll_batch(self) -> SourceBatch | None:
        """Optional: the next records as one columnar :class:`SourceBatch`, or None.

        A task implements either ``poll`` alone (the default: this method is not
        overridden), or both. The kconnect DataFrame read and the worker's Kafka pipeline
        call ``poll_batch`` instead of ``poll`` when the task's class overrides it and the
        connector has no transforms (the worker also needs the class not to override
        ``commit_record``, which takes records; exactly-once delivery polls records), and
        never call both on one task instance; every other caller (transforms, an isolated
        plugin.path task, the testkit's record checks) calls ``poll``. The worker converts
        a batch by columns (``Converter.from_connect_columns``) and makes no record per
        row. The two must give the same records in the same order: a batch's
        :meth:`SourceBatch.records` is exactly what ``poll`` would have returned for it, so
        a task usually writes ``poll`` as ``return SourceBatch.records_of(self.poll_batch())``.

        One batch holds rows of one topic and one source partition; a task whose poll
        spans several returns them over successive calls. Return None (or an empty batch)
        when there is nothing yet; the blocking, ``stop`` and error contract of ``poll``
        apply unchanged, and so does :meth:`finished`. The default returns None and is
        never called by a runtime.
        """
        return None

    def finished(self) -> bool:
        """Whether every record of a source that ends has been returned by ``poll``.

        For sources read to an end: a bulk query's pass over its tables, a snapshot taken
        with nothing to follow. True lets a runtime that reads a source to its end (the
        kconnect DataFrame batch read, ``spark.read.format("kconnect")``) stop polling at
        once instead of waiting for ``kconnect.read.idle.ms`` of empty polls. The worker's
        Kafka pipeline never asks; a task whose source does not end keeps the default,
        False. Called on the task thread, between polls; it must be cheap.
        """
        return False

    def commit(self) -> None:
        """Called on the task thread after the runtime committed this task's offsets.

        The committed offsets are those of records acknowledged so far, which may be
        older than the last records ``poll`` returned. Override it only when the
        external system must be told what is safely in Kafka (acknowledge a queue,
        advance a replication slot); the runtime keeps the offsets itself.
        """

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Called on the task thread for each record once Kafka acknowledged it.

        ``metadata`` (topic, partition, offset as written) is None when the record was
        never written: a transform or predicate dropped it, or ``errors.tolerance=all``
        skipped it after a conversion or producer error. ``record`` is the object
        ``poll`` returned (before transforms). Records of one source partition are
        acknowledged in order. The runtime only tracks acknowledgements for this call
        when a subclass overrides it, so leave it alone unless you need it.
        """


class SinkTask(Task):
    """Writes records read from Kafka to an external system.

    Lifecycle:
        ``initialize(context)`` then ``start(props)``. When the consumer group assigns
        partitions the runtime calls ``open`` with them; records of those partitions
        then arrive in ``put`` batches. Periodically (``offset.flush.interval.ms``, or
        soon after ``context.request_commit()``) the runtime calls ``pre_commit`` and
        commits the offsets it returns to the consumer group. Before partitions are
        taken away (rebalance) it commits them the same way and calls ``close``. On
        shutdown: a last ``pre_commit`` and commit, ``close`` for all partitions still
        assigned, then ``stop``.

    Threading:
        Every method, ``stop`` included, is called on the task thread, one at a time:
        ``stop`` comes only after the last ``put`` returned and the final commit is
        done, so it only has to release resources. ``open``/``close`` run inside the
        consumer's rebalance callbacks on that same thread.

    Offsets:
        The offsets passed to ``flush``/``pre_commit`` and returned from
        ``pre_commit`` are keyed by the *original* topic partition, before transforms
        (``SinkRecord.original_topic``/``original_kafka_partition``), and each is the
        offset of the next record to consume (last delivered offset + 1).
        A record is only "done" when the runtime commits its offset: anything ``put``
        buffered must be durable before ``pre_commit`` reports it, or a crash loses it.

    Records:
        ``put`` receives the records after conversion and transforms; they belong to
        the runtime and must not be mutated. A task may keep references to them.

    Errors:
        ``RetriableError`` from ``put`` pauses consumption and redelivers the same batch
        after ``context.timeout(ms)`` (1 s by default); any other exception from
        ``put``, ``open``, ``close`` or ``start`` fails the task. A ``ConnectError``
        carrying a ``records`` attribute is treated, under ``errors.tolerance=all``,
        as those records being errant (sent to the DLQ) and the task goes on. An
        exception from ``pre_commit``/``flush`` does not fail the task: the runtime
        rewinds each partition to its last committed offset and delivers again.
        Report single bad records with ``context.errant_record_reporter`` instead of
        raising, so the rest of the batch is written.
    """

    context: SinkTaskContext

    def initialize(self, context: SinkTaskContext) -> None:
        """Receive the task's context; called once, before ``start``.

        The context's assignment is empty until the first ``open``.
        """
        self.context = context

    @abc.abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Deliver a batch of records (possibly empty); write them or buffer them.

        A task that buffers must make the buffered records durable in ``flush`` (or
        ``pre_commit``) so that offsets are never committed for lost data.
        """

    def put_batch(self, batch: SinkBatch) -> None:
        """Optional: deliver a batch of records held as columns (a :class:`SinkBatch`).

        A task implements either ``put`` alone (the default: this method is not
        overridden), or both. The worker calls ``put_batch`` instead of ``put`` when the
        task's class overrides it and the connector has no transforms (a batch holds
        records as consumed); every other caller (transforms, an isolated plugin.path
        task, the testkit's record checks) calls ``put``. The two must write the same:
        ``put_batch(batch)`` does what ``put(batch.records())`` does, which is the
        default. Everything ``put``'s contract says holds for it: buffering and
        ``flush``, ``RetriableError`` (the same batch comes again), and errant records,
        reported with ``context.errant_record_reporter.report(batch.record(i), error)``.

        Worth writing for a sink that reads a batch's fields column by column: the worker
        then makes no :class:`SinkRecord` per message.
        """
        self.put(batch.records())

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Make everything ``put`` so far durable; called by the default ``pre_commit``.

        ``offsets`` are the next offsets to consume per original partition, as of the
        last ``put``.
        """

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """The offsets safe to commit, called on the task thread before each commit.

        ``offsets`` holds, per assigned original partition, the offset after the last
        record delivered to ``put``. Return the offsets whose data is durable in the
        external system: the default flushes, then returns ``offsets`` unchanged. A
        task that writes asynchronously returns smaller offsets, and one that stores
        offsets in the external system itself (exactly-once sinks) returns an empty
        map, so the runtime commits nothing. Partitions not assigned any more are
        ignored.
        """
        self.flush(offsets)
        return offsets

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        """Partitions newly assigned to this task, before any of their records arrive.

        Open per-partition writers here; to resume from offsets kept in the external
        system, call ``context.offset(...)`` here. May include partitions this task had
        before.
        """

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        """Partitions taken away from this task (rebalance or shutdown).

        Their offsets have been committed (unless the partitions were lost to another
        member); flush and drop their writers. No record of these partitions arrives
        until they are opened again.
        """


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
        """Whether tasks can define their own transaction boundaries with ``props``.

        Kafka's ``ConnectorTransactionBoundaries`` as a bool (SUPPORTED: True). A connector
        returning False is refused ``transaction.boundary=connector``.
        """
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


def task_class_name(task_class: type[Task]) -> str:
    """What Kafka Connect's ``task.class`` says for ``task_class``: its
    :attr:`Task.kafka_class_name`, else its module and qualified name."""
    return task_class.kafka_class_name or f"{task_class.__module__}.{task_class.__qualname__}"
