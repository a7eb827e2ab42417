"""Offset syncs: written by the source task, read back to translate consumer offsets.

An offset sync says "upstream offset U of this source partition is downstream offset D on
the target". The writer emits one only when the mapping's gap changes or has grown stale
(``offset.lag.max``); the store keeps a few syncs per partition, spaced exponentially,
and translates a group's committed upstream offset into a downstream offset that is never
ahead of what the group consumed, so a consumer failing over skips nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

from kconnect_sdk import TopicPartition

from ._formats import OffsetSync

__all__ = ["OffsetSyncStore", "OffsetSyncWriter", "PartitionState"]

log = logging.getLogger(__name__)

MAX_OUTSTANDING_OFFSET_SYNCS: Final = 10
SYNCS_PER_PARTITION: Final = 64
"""One stored sync per bit of a 64-bit offset."""

_MASK64: Final = (1 << 64) - 1


def _long(value: int) -> int:
    """``value`` as Java's ``long`` arithmetic leaves it (two's complement, 64 bits)."""
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


@dataclass(slots=True)
class PartitionState:
    """What the writer remembers of one source partition to decide when to sync."""

    max_offset_lag: int
    previous_upstream_offset: int = -1
    previous_downstream_offset: int = -1
    last_sync_downstream_offset: int = -1
    should_sync_offsets: bool = False

    def update(self, upstream_offset: int, downstream_offset: int) -> bool:
        """Record a replicated record's offsets; True when a sync should be sent now."""
        no_previous_sync = self.last_sync_downstream_offset == -1
        # Translation lands one past the last sync, hence the +1.
        too_stale = (
            downstream_offset - (self.last_sync_downstream_offset + 1) >= self.max_offset_lag
        )
        skipped_upstream = upstream_offset - self.previous_upstream_offset != 1
        truncated_downstream = downstream_offset < self.previous_downstream_offset
        if no_previous_sync or too_stale or skipped_upstream or truncated_downstream:
            self.last_sync_downstream_offset = downstream_offset
            self.should_sync_offsets = True
        self.previous_upstream_offset = upstream_offset
        self.previous_downstream_offset = downstream_offset
        return self.should_sync_offsets

    def reset(self) -> None:
        self.should_sync_offsets = False


class SyncSender(Protocol):
    """Sends one offset-sync record; calls ``done`` once the broker answered (or failed)."""

    def __call__(self, sync: OffsetSync, done: Callable[[BaseException | None], None]) -> None: ...


@dataclass
class OffsetSyncWriter:
    """Queues offset syncs per partition and sends them with at most 10 in flight.

    A sync that is due at once (see :meth:`PartitionState.update`) is *pending* and goes
    out as soon as a slot is free; any other is *delayed* and promoted to pending at the
    next offset commit, so quiet partitions still get a sync for their latest record.
    """

    send: SyncSender
    max_offset_lag: int
    max_outstanding: int = MAX_OUTSTANDING_OFFSET_SYNCS
    partition_states: dict[TopicPartition, PartitionState] = field(default_factory=dict)
    delayed: dict[TopicPartition, OffsetSync] = field(default_factory=dict)
    pending: dict[TopicPartition, OffsetSync] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._outstanding = threading.Semaphore(self.max_outstanding)

    def maybe_queue_offset_syncs(
        self, topic_partition: TopicPartition, upstream_offset: int, downstream_offset: int
    ) -> None:
        state = self.partition_states.get(topic_partition)
        if state is None:
            state = self.partition_states[topic_partition] = PartitionState(self.max_offset_lag)
        sync = OffsetSync(topic_partition, upstream_offset, downstream_offset)
        if state.update(upstream_offset, downstream_offset):
            with self._lock:
                self.delayed.pop(topic_partition, None)
                # A dict keeps a key's first place on update, as Kafka's LinkedHashMap
                # does, so syncs go out in the order their partitions first queued one.
                self.pending[topic_partition] = sync
            state.reset()
        else:
            with self._lock:
                self.delayed[topic_partition] = sync

    def promote_delayed_offset_syncs(self) -> None:
        with self._lock:
            self.pending.update(self.delayed)
            self.delayed.clear()

    def fire_pending_offset_syncs(self) -> None:
        while True:
            with self._lock:
                if not self.pending:
                    return
                topic_partition = next(iter(self.pending))
                if not self._outstanding.acquire(blocking=False):
                    log.debug("Too many in-flight offset syncs; will send the rest later")
                    return
                sync = self.pending.pop(topic_partition)
            # Sent outside the lock: the producer may wait for metadata.
            self.send(sync, self._sent)

    def _sent(self, error: BaseException | None) -> None:
        if error is not None:
            log.error("Failure sending offset sync: %s", error)
        self._outstanding.release()


def _invariant_b(i_sync: OffsetSync, j_sync: OffsetSync, i: int, j: int) -> bool:
    # syncs[i] is no more than 2^j - 2^i newer than syncs[j] (in Java's 64-bit arithmetic).
    bound = _long(j_sync.upstream_offset + _long(1 << j) - _long(1 << i))
    return i_sync is j_sync or bound < 0 or i_sync.upstream_offset <= bound


def _invariant_c(i_sync: OffsetSync, j_sync: OffsetSync, i: int) -> bool:
    # syncs[i] is at least 2^(i-2) newer than syncs[j].
    bound = _long(j_sync.upstream_offset + _long(1 << max(i - 2, 0)))
    return i_sync is j_sync or (bound >= 0 and i_sync.upstream_offset >= bound)


class OffsetSyncStore:
    """Kafka's ``OffsetSyncStore``: 64 syncs per partition, translation never ahead of the group.

    Invariants kept per partition (Kafka's, A to D): ``syncs[0]`` is the latest sync read;
    for ``i < j`` with distinct entries, ``syncs[i].upstream <= syncs[j].upstream + 2^j - 2^i``
    and ``syncs[i].upstream >= syncs[j].upstream + 2^(i-2)``; ``syncs[63]`` is the earliest
    sync still usable. Feed it records with :meth:`handle_record` (or :meth:`handle_sync`),
    then call :meth:`mark_read_to_end` once the topic has been read to its end: before that
    nothing is translated.
    """

    def __init__(self) -> None:
        self._syncs: dict[TopicPartition, list[OffsetSync]] = {}
        self.initialization_must_read_to_end = True
        self.read_to_end = False

    def start(self, initialization_must_read_to_end: bool) -> None:
        """Prepare to load: when ``initialization_must_read_to_end``, only the last sync
        of each partition read before the end counts (the checkpoints of an earlier
        run could not be loaded, so older syncs might translate behind them)."""
        self.initialization_must_read_to_end = initialization_must_read_to_end

    def mark_read_to_end(self) -> None:
        self.read_to_end = True

    def handle_record(self, key: bytes | None, value: bytes | None) -> None:
        self.handle_sync(OffsetSync.deserialize(key, value))

    def handle_sync(self, sync: OffsetSync) -> None:
        syncs = self._syncs.get(sync.topic_partition)
        if syncs is None:
            self._syncs[sync.topic_partition] = [sync] * SYNCS_PER_PARTITION
        else:
            # Readers may hold the old list: replace it rather than change it in place.
            updated = list(syncs)
            self._update(updated, syncs, sync)
            self._syncs[sync.topic_partition] = updated

    def translate_downstream(
        self, group: str, topic_partition: TopicPartition, upstream_offset: int
    ) -> int | None:
        """The downstream offset for a group at ``upstream_offset``: None when unknown, -1
        when the offset is older than every sync kept."""
        if not self.read_to_end:
            log.debug(
                "translateDownstream(%s,%s,%s): Skipped (initial offset syncs read still in progress)",
                group,
                topic_partition,
                upstream_offset,
            )
            return None
        syncs = self._syncs.get(topic_partition)
        if syncs is None:
            log.debug(
                "translateDownstream(%s,%s,%s): Skipped (offset sync not found)",
                group,
                topic_partition,
                upstream_offset,
            )
            return None
        sync = self._lookup_latest_sync(syncs, upstream_offset)
        if sync.upstream_offset > upstream_offset:
            return -1
        # Past the sync, only one record further is certain: later upstream records may
        # or may not have been replicated (filters, compaction, transactions), and
        # guessing too far would make a failed-over consumer skip records.
        step = 0 if upstream_offset == sync.upstream_offset else 1
        return sync.downstream_offset + step

    def sync_for(self, topic_partition: TopicPartition, index: int) -> OffsetSync:
        """The sync stored at ``index`` for a partition (for tests and diagnostics)."""
        syncs = self._syncs.get(topic_partition)
        if syncs is None:
            raise ValueError(f"No syncs present for {topic_partition}")
        return syncs[index]

    @staticmethod
    def _lookup_latest_sync(syncs: list[OffsetSync], upstream_offset: int) -> OffsetSync:
        for sync in syncs:
            if sync.upstream_offset <= upstream_offset:
                return sync
        return syncs[-1]

    def _update(
        self, syncs: list[OffsetSync], original: list[OffsetSync], sync: OffsetSync
    ) -> None:
        upstream_offset = sync.upstream_offset
        only_load_last = not self.read_to_end and self.initialization_must_read_to_end
        upstream_rewind = upstream_offset < syncs[0].upstream_offset
        if only_load_last or upstream_rewind:
            syncs[:] = [sync] * SYNCS_PER_PARTITION
            return
        replacement = sync
        replacement_index = 0
        syncs[0] = replacement
        for current in range(1, SYNCS_PER_PARTITION):
            previous = current - 1
            while True:
                old = original[replacement_index]
                is_recent = _invariant_b(syncs[previous], old, previous, current)
                separated_from_previous = _invariant_c(syncs[previous], old, previous)
                following = current + 1
                separated_from_next = following >= SYNCS_PER_PARTITION or _invariant_c(
                    old, syncs[following], current
                )
                next_replacement = replacement_index + 1
                duplicate = (
                    next_replacement < SYNCS_PER_PARTITION and old is original[next_replacement]
                )
                promote = is_recent and separated_from_previous and separated_from_next
                if promote:
                    replacement = old
                skip = duplicate or not separated_from_previous
                if promote or skip:
                    replacement_index += 1
                if not (replacement_index < current and skip):
                    break
            if _invariant_b(syncs[previous], syncs[current], previous, current):
                # Invariant B holds here, so it holds for every later index too.
                break
            syncs[current] = replacement
