"""Exactly-once source tasks (KIP-618): one transaction holds records and their offsets.

With ``exactly.once.source.support=enabled`` on a distributed worker, each source task
gets a transactional producer with Kafka's transactional id
``<group.id>-<connector>-<task>``. ``init_transactions`` bumps the id's epoch, so a zombie
(an earlier instance of the same task, frozen or partitioned away) is fenced: anything it
still tries to commit is refused by the broker. Records, and the source offsets they
advance (written to the offsets topic with the same producer), commit in one transaction,
whose boundaries ``transaction.boundary`` chooses: after every ``poll`` batch (``poll``),
every ``transaction.boundary.interval.ms`` (``interval``), or where the task says through
its :class:`~kconnect_sdk.TransactionContext` (``connector``).

Validation matches Kafka's ``DistributedHerder``: ``exactly.once.support=required`` needs
the worker's support enabled and the connector's ``exactly_once_support`` to answer
SUPPORTED; ``transaction.boundary=connector`` needs ``can_define_transaction_boundaries``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from kconnect_sdk import ConnectError, ExactlyOnceSupport, SourceConnector, SourceRecord

from kconnect_runtime.storage import (
    KafkaOffsetStore,
    MemoryOffsetStore,
    TaskOffsetReader,
    encode_json,
)

from ._runner import now
from ._source import SourceContext, SourcePipeline

__all__ = [
    "ExactlyOnceSourcePipeline",
    "TransactionBoundary",
    "WorkerTransactionContext",
    "exactly_once_enabled",
    "transactional_id",
    "validate_exactly_once",
]

log = logging.getLogger("kconnect.source")

_TXN_TIMEOUT_S = 30.0


class TransactionBoundary(StrEnum):
    """``transaction.boundary``: Kafka's ``SourceTask.TransactionBoundary`` (lower case)."""

    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"


def transactional_id(group_id: str, connector: str, task: int) -> str:
    """Kafka's ``Worker.taskTransactionalId``: ``<group.id>-<connector>-<task>``."""
    return f"{group_id}-{connector}-{task}"


def exactly_once_enabled(worker_props: Mapping[str, str]) -> bool:
    """Whether a distributed worker runs source tasks with transactions."""
    support = str(worker_props.get("exactly.once.source.support", "disabled")).strip().lower()
    return bool(worker_props.get("group.id")) and support == "enabled"


def _unexpected(exc: Exception) -> str:
    message = str(exc).strip()
    if message:
        return f"An unexpected error occurred during validation: {message}"
    return "An unexpected error occurred during validation; please see the worker logs for more details."


def validate_exactly_once(
    connector: SourceConnector, props: Mapping[str, str], *, worker_enabled: bool
) -> dict[str, list[str]]:
    """Kafka's preflight checks of a source connector's exactly-once keys: errors per key.

    Only a distributed worker runs them (as Kafka: the standalone herder has none).
    """
    errors: dict[str, list[str]] = {}
    level = str(props.get("exactly.once.support", "requested")).strip().lower()
    if level == "required":
        found = errors.setdefault("exactly.once.support", [])
        if not worker_enabled:
            found.append("This worker does not have exactly-once source support enabled.")
        try:
            support = connector.exactly_once_support(props)
        except Exception as exc:
            log.exception("Failed while validating connector support for exactly-once semantics")
            found.append(_unexpected(exc))
        else:
            if support is None:
                found.append(
                    "The connector does not implement the API required for preflight validation "
                    "of exactly-once source support. Please consult the documentation for the "
                    "connector to determine whether it supports exactly-once semantics, and then "
                    'consider reconfiguring the connector to use the value "requested" for this '
                    "property (which will disable this preflight check and allow the connector "
                    "to be created)."
                )
            elif support != ExactlyOnceSupport.SUPPORTED:
                found.append(
                    "The connector does not support exactly-once semantics with the provided "
                    "configuration."
                )
        if not found:
            del errors["exactly.once.support"]
    boundary = str(props.get("transaction.boundary", "poll")).strip().lower()
    if boundary == TransactionBoundary.CONNECTOR:
        try:
            can = connector.can_define_transaction_boundaries(props)
        except Exception as exc:
            log.exception(
                "Failed while validating connector support for defining its own transaction "
                "boundaries"
            )
            errors["transaction.boundary"] = [_unexpected(exc)]
        else:
            if can is not True:
                errors["transaction.boundary"] = [
                    "The connector does not support connector-defined transaction boundaries "
                    "with the given configuration. Please reconfigure it to use a different "
                    "transaction boundary definition."
                ]
    return errors


class WorkerTransactionContext:
    """The task's :class:`~kconnect_sdk.TransactionContext` (``transaction.boundary=connector``).

    Requests are remembered until the pipeline acts on them: a request naming a record
    ends the transaction right after that record; one without, after the current batch.
    """

    def __init__(self) -> None:
        self.commit_requested = False
        self.abort_requested = False
        self.commit_after: list[SourceRecord] = []
        self.abort_after: list[SourceRecord] = []

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self.commit_requested = True
        else:
            self.commit_after.append(record)

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        if record is None:
            self.abort_requested = True
        else:
            self.abort_after.append(record)

    def take_record_requests(self) -> dict[int, str]:
        """``{id(record): "commit"|"abort"}`` of record requests, forgotten here."""
        requests = {id(r): "commit" for r in self.commit_after}
        requests.update({id(r): "abort" for r in self.abort_after})
        self.commit_after, self.abort_after = [], []
        return requests

    def take_batch_request(self) -> str | None:
        """``"abort"``, ``"commit"`` or None for the current transaction, forgotten here."""
        if self.abort_requested:
            self.abort_requested = self.commit_requested = False
            return "abort"
        if self.commit_requested:
            self.commit_requested = False
            return "commit"
        return None


class ExactlyOnceSourcePipeline(SourcePipeline):
    """A source task's data path with transactions (``exactly.once.source.support=enabled``).

    Same methods as :class:`SourcePipeline`; the differences: the producer is
    transactional (fencing earlier instances of the task when it opens), every batch is
    sent inside a transaction, source offsets are written to the offsets topic inside the
    same transaction and nowhere else, and ``commit_offsets`` (the engine's periodic call)
    ends the transaction only where ``transaction.boundary`` says.
    """

    def __init__(self, *args: Any, group_id: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        spec = self.runner.spec
        config = spec.connector_config
        self.boundary = TransactionBoundary(
            str(config.get("transaction.boundary", "poll")).strip().lower()
        )
        interval_ms = config.get("transaction.boundary.interval.ms")
        self.interval_s = (
            float(interval_ms) / 1000 if interval_ms not in (None, "") else spec.commit_interval_s
        )
        self.transactional_id = transactional_id(group_id, spec.id.connector, spec.id.task)
        store = self.offset_store
        if not isinstance(store, KafkaOffsetStore):
            raise ConnectError(
                f"{self._label}: exactly-once source support needs a distributed worker (source "
                "offsets in offset.storage.topic)"
            )
        self.offsets_topic = str(config.get("offsets.storage.topic") or store.log.topic)
        self.transactions = (
            WorkerTransactionContext() if self.boundary is TransactionBoundary.CONNECTOR else None
        )
        self._in_transaction = False
        self._failed = False  # the data path raised: the open transaction is not committed
        self._transaction_started = 0.0
        self.committed_transactions = 0
        self.aborted_transactions = 0

    # -- lifecycle ------------------------------------------------------------------------
    def open(self) -> None:
        """The transactional producer; ``init_transactions`` fences earlier instances."""
        self.producer_config["transactional.id"] = self.transactional_id
        self.producer_config["enable.idempotence"] = True
        super().open()
        self.producer.init_transactions(_TXN_TIMEOUT_S)
        # As Kafka's ExactlyOnceWorkerSourceTask: the offsets are read once the producer
        # fenced its predecessor. A predecessor killed between a transaction's offset
        # record and its commit marker left that transaction open, and until it is
        # aborted a read_committed reader cannot read past it (Tansu then answers a last
        # stable offset of 0, hiding every offset committed before it).
        store = self.offset_store
        assert isinstance(store, KafkaOffsetStore)
        store.refresh()
        if self.offsets_topic != store.log.topic:
            store.read_connector_topic(self.offsets_topic)
        log.info(
            "source task %s: transactional producer %r ready (transaction.boundary=%s)",
            self.name,
            self.transactional_id,
            self.boundary,
        )

    def start_task(self) -> None:
        connector = self.runner.id.connector
        self.task.initialize(
            SourceContext(
                self.task_config,
                TaskOffsetReader(self.offset_store, connector),
                self.transactions,
                progress=self.runner.report_progress,
                plugin_metrics=self.runner.plugin_metrics,
            )
        )
        self.task.start(self.task_config)

    # -- the data path ----------------------------------------------------------------------
    def poll_and_send(self) -> int:
        try:
            return self._poll_and_send_in_transaction()
        except BaseException:
            self._failed = True
            raise

    def _poll_and_send_in_transaction(self) -> int:
        started = now()
        batch = self._poll(self.task.poll)
        if not batch:
            self._maybe_end_transaction(polled=False)
            return 0
        count = len(batch)
        metrics = self.metrics
        self.runner.records_in += count
        metrics.poll_total += count
        metrics.active_count += count
        metrics.batch_size.record(count)
        metrics.poll_batch_ms.record((now() - started) * 1000)
        requests = self.transactions.take_record_requests() if self.transactions else {}
        segment: list[SourceRecord] = []
        for record in batch:
            segment.append(record)
            action = requests.get(id(record)) if requests else None
            if action is not None:
                self._send_in_transaction(segment)
                segment = []
                self._end_transaction(commit=action == "commit")
        if segment:
            self._send_in_transaction(segment)
        self._maybe_end_transaction(polled=True)
        return count

    def _send_in_transaction(self, records: list[SourceRecord]) -> None:
        if not self._in_transaction:
            self.producer.begin_transaction()
            self._in_transaction = True
            self._transaction_started = now()
        self._send(records)

    def _maybe_end_transaction(self, *, polled: bool) -> None:
        if not self._in_transaction:
            return
        if self.boundary is TransactionBoundary.POLL:
            if polled:
                self._end_transaction(commit=True)
        elif self.boundary is TransactionBoundary.INTERVAL:
            if now() - self._transaction_started >= self.interval_s:
                self._end_transaction(commit=True)
        elif self.transactions is not None:
            action = self.transactions.take_batch_request()
            if action is not None:
                self._end_transaction(commit=action == "commit")

    def _end_transaction(self, *, commit: bool) -> None:
        """Commit (records, then their offsets) or abort the open transaction."""
        if not self._in_transaction:
            return
        if not commit:
            # librdkafka may send the abort before the coordinator has added the
            # transaction's partitions (it counts AddPartitionsToTxn as done once sent):
            # the coordinator then finds no open transaction and answers the fatal
            # INVALID_TXN_STATE (librdkafka#4849). An acknowledged record proves its
            # partition was added, so the records are awaited first; read_committed
            # readers never see them once the abort marker is written.
            self.producer.flush(_TXN_TIMEOUT_S)
            self.producer.abort_transaction(_TXN_TIMEOUT_S)
            self._in_transaction = False
            dropped = sum(b.polled for b in self._in_flight)
            self._in_flight.clear()
            # Offsets of this transaction's records acknowledged before the abort.
            self._committable = {}
            self.metrics.active_count -= dropped
            self.aborted_transactions += 1
            log.info("source task %s: aborted a transaction (%d records)", self.name, dropped)
            return
        remaining = self.producer.flush(_TXN_TIMEOUT_S)
        if remaining:
            raise ConnectError(
                f"{self._label}: {remaining} records of the transaction were not acknowledged "
                f"within {_TXN_TIMEOUT_S:.0f}s; the transaction is not committed"
            )
        self.collect_acks()
        committable = dict(self._committable)
        connector = self.runner.id.connector
        for partition, offset in committable.values():
            key = [connector, None if partition is None else dict(partition)]
            value = None if offset is None else encode_json(dict(offset))
            self.producer.produce(self.offsets_topic, key=encode_json(key), value=value)
        # A zombie's commit fails here (fenced): the task fails and commits nothing.
        self.producer.commit_transaction(_TXN_TIMEOUT_S)
        self._in_transaction = False
        self._committable = {}
        self.committed_transactions += 1
        # The worker's view of committed offsets (readers, REST): memory only, since the
        # transaction already wrote them to the topic.
        MemoryOffsetStore.put(self.offset_store, connector, committable)
        try:
            self.task.commit()
        except Exception:
            log.exception("source task %s: commit() raised", self.name)

    def commit_offsets(self) -> None:
        """The engine's periodic commit: an ``interval`` boundary may be due."""
        try:
            self._maybe_end_transaction(polled=False)
        except BaseException:
            self._failed = True
            raise

    def drain_and_commit(self) -> None:
        """A clean stop commits the open transaction (its records are all acknowledged).

        After a failure (a fenced producer, a refused record) the open transaction is not
        committed: the broker aborts it, as Kafka Connect's does, and waiting out the
        flush of a producer in a fatal state would hold the task back from FAILED for the
        transaction timeout.
        """
        if self._failed:
            if self._in_transaction:
                log.warning(
                    "source task %s: failed inside a transaction; it is not committed (the "
                    "broker aborts it) and its records are sent again after a restart",
                    self.name,
                )
            return
        try:
            self._end_transaction(commit=True)
        except Exception:
            log.exception(
                "source task %s: the last transaction could not be committed; it is aborted "
                "by the broker and its records are sent again after a restart",
                self.name,
            )
