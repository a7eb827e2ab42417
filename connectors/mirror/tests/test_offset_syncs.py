"""Offset-sync writing and translation: Kafka's OffsetSyncStoreTest, OffsetSyncWriterTest and
the PartitionState cases of MirrorSourceTaskTest, with their numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest
from kconnect_connector_mirror import OffsetSync, OffsetSyncStore, OffsetSyncWriter
from kconnect_connector_mirror._offset_syncs import PartitionState
from kconnect_sdk import TopicPartition

TP = TopicPartition("topic1", 2)


def _sync(store: OffsetSyncStore, upstream: int, downstream: int) -> None:
    # Through the record bytes, as the store reads them from the offset-syncs topic.
    sync = OffsetSync(TP, upstream, downstream)
    store.handle_record(sync.record_key(), sync.record_value())


def _started(
    loading: Callable[[OffsetSyncStore], None] = lambda _s: None, *, must_read_to_end: bool = True
) -> OffsetSyncStore:
    store = OffsetSyncStore()
    store.start(must_read_to_end)
    loading(store)
    store.mark_read_to_end()
    return store


def test_offset_translation() -> None:
    store = _started()
    _sync(store, 100, 200)
    assert store.translate_downstream("g", TP, 150) == 201
    _sync(store, 150, 251)
    assert store.translate_downstream("g", TP, 150) == 251
    assert store.translate_downstream("g", TP, 5) == -1
    _sync(store, 200, 10)
    assert store.translate_downstream("g", TP, 200) == 10
    _sync(store, 20, 20)
    assert store.translate_downstream("g", TP, 20) == 20


def test_no_translation_before_read_to_end() -> None:
    store = OffsetSyncStore()
    assert store.translate_downstream("g", TP, 0) is None
    store.start(True)
    _sync(store, 100, 200)
    assert [store.translate_downstream("g", TP, o) for o in (0, 100, 200)] == [None] * 3
    store.mark_read_to_end()
    assert [store.translate_downstream("g", TP, o) for o in (0, 100, 200)] == [-1, 200, 201]


def test_no_translation_without_sync() -> None:
    assert _started().translate_downstream("g", TP, 0) is None


def _assert_sparse_sync(store: OffsetSyncStore, sync_offset: int, previous: int) -> None:
    expected_before = previous if previous == -1 else previous + 1
    assert store.translate_downstream("g", TP, sync_offset - 1) == expected_before
    assert store.translate_downstream("g", TP, sync_offset) == sync_offset
    assert store.translate_downstream("g", TP, sync_offset + 1) == sync_offset + 1
    assert store.translate_downstream("g", TP, sync_offset + 2) == sync_offset + 1


def _assert_invariants(store: OffsetSyncStore) -> None:
    for j in range(64):
        for i in range(j):
            j_up = store.sync_for(TP, j).upstream_offset
            i_up = store.sync_for(TP, i).upstream_offset
            if j_up == i_up:
                continue
            lower = j_up + (1 << max(i - 2, 0))
            if lower < 2**63:
                assert i_up >= lower, f"invariant C({i},{j})"
            upper = j_up + (1 << j) - (1 << i)
            if upper < 2**63:
                assert i_up <= upper, f"invariant B({i},{j})"


def _load_every_ten_to_1000(store: OffsetSyncStore) -> None:
    for offset in range(0, 1001, 10):
        _sync(store, offset, offset)
        if offset % 100 == 0:  # every sync in Kafka's test; a tenth keeps this quick
            _assert_invariants(store)


def test_past_offset_translation() -> None:
    store = _started(_load_every_ten_to_1000)
    # Only the last sync read at start can translate, until newer ones arrive.
    _assert_sparse_sync(store, 1000, -1)
    for offset in range(1010, 10001, 10):
        _sync(store, offset, offset)
        if offset % 500 == 0:
            _assert_invariants(store)
    _assert_sparse_sync(store, 1000, -1)
    for sync_offset, previous in [
        (4840, 1000),
        (6760, 4840),
        (8680, 6760),
        (9160, 8680),
        (9640, 9160),
        (9880, 9640),
        (9940, 9880),
        (9970, 9940),
        (9990, 9970),
        (10000, 9990),
    ]:
        _assert_sparse_sync(store, sync_offset, previous)
    # An upstream rewind clears the history.
    _sync(store, 1500, 11000)
    _assert_invariants(store)
    assert store.translate_downstream("g", TP, 1499) == -1
    assert store.translate_downstream("g", TP, 1500) == 11000
    assert store.translate_downstream("g", TP, 2000) == 11001


def test_past_offset_translation_without_initialization_read_to_end() -> None:
    store = _started(_load_every_ten_to_1000, must_read_to_end=False)
    _assert_sparse_sync(store, 480, 0)
    _assert_sparse_sync(store, 720, 480)
    _assert_sparse_sync(store, 1000, 990)
    for offset in range(1000, 10001, 10):
        _sync(store, offset, offset)
        if offset % 500 == 0:
            _assert_invariants(store)
    for sync_offset, previous in [
        (3840, 0),
        (7680, 3840),
        (8640, 7680),
        (9120, 8640),
        (9600, 9120),
        (9840, 9600),
        (9900, 9840),
        (9960, 9900),
        (9990, 9960),
        (10000, 9990),
    ]:
        _assert_sparse_sync(store, sync_offset, previous)
    _sync(store, 1500, 11000)
    assert store.translate_downstream("g", TP, 1499) == -1
    assert store.translate_downstream("g", TP, 1500) == 11000
    assert store.translate_downstream("g", TP, 2000) == 11001


def _distinct(store: OffsetSyncStore) -> int:
    return 1 + sum(store.sync_for(TP, i - 1) is not store.sync_for(TP, i) for i in range(1, 64))


def _assert_bounded_expirations(first: int, steps: Iterable[int], maximum: int) -> None:
    store = _started()
    _sync(store, first, first)
    offset, last_count = first, 1
    for step in steps:
        offset += step
        assert offset < 2**63
        _sync(store, offset, offset)
        assert store.sync_for(TP, 0).upstream_offset == offset  # invariant A
        assert store.sync_for(TP, 63).upstream_offset == first  # invariant D
        count = _distinct(store)
        assert last_count - count + 1 <= maximum, f"too many syncs expired at {offset}"
        last_count = count


@pytest.mark.parametrize("first_offset", [0, 29])
def test_consistently_spaced_syncs(first_offset: int) -> None:
    # Kafka's test runs every first offset below 30; the two ends keep this quick.
    iterations = 100
    step = 1
    while step < (2**63 - 1) // iterations:
        _assert_bounded_expirations(first_offset, [step] * iterations, 1)
        step = step * 2 + 1


def test_partition_state_decides_when_to_sync() -> None:
    state = PartitionState(50)
    assert state.update(0, 100)  # always on the first record
    state.reset()
    assert not state.should_sync_offsets
    assert state.update(2, 102)  # upstream offset skipped
    state.reset()
    assert not state.update(3, 152)
    state.reset()
    assert state.update(4, 153)  # one past the target lag
    state.reset()
    assert not state.update(5, 154)
    state.reset()
    assert not state.update(6, 203)
    state.reset()
    assert state.update(7, 204)
    state.reset()
    assert state.update(2, 206)  # upstream reset
    state.reset()
    assert not state.update(3, 207)
    state.reset()
    assert state.update(4, 3)  # downstream reset
    state.reset()
    assert not state.update(5, 4)
    assert state.update(7, 6)
    assert state.update(7, 6)
    assert state.update(8, 7)
    assert state.update(10, 57)
    state.reset()
    assert not state.update(11, 58)
    assert not state.should_sync_offsets


def test_zero_offset_lag_syncs_every_record() -> None:
    state = PartitionState(0)
    for upstream, downstream in [
        (0, 100),
        (2, 102),
        (3, 153),
        (4, 154),
        (5, 155),
        (6, 207),
        (2, 208),
        (3, 209),
        (4, 3),
        (5, 4),
        (7, 6),
        (7, 6),
        (8, 7),
        (10, 57),
        (11, 58),
    ]:
        assert state.update(upstream, downstream)
        state.reset()


class RecordingSender:
    def __init__(self, *, complete: bool) -> None:
        self.sent: list[OffsetSync] = []
        self.complete = complete

    def __call__(self, sync: OffsetSync, done: Callable[[BaseException | None], None]) -> None:
        self.sent.append(sync)
        if self.complete:
            done(None)


def test_maybe_queue_offset_syncs() -> None:
    writer = OffsetSyncWriter(RecordingSender(complete=False), 2, max_outstanding=1)
    tp = TopicPartition("topic", 0)
    writer.maybe_queue_offset_syncs(tp, 0, 1)
    assert tp not in writer.delayed and tp in writer.pending
    assert writer.partition_states[tp].last_sync_downstream_offset == 1
    writer.maybe_queue_offset_syncs(tp, 1, 2)
    assert tp in writer.delayed
    assert writer.partition_states[tp].last_sync_downstream_offset == 1


def test_fire_pending_offset_syncs_limits_in_flight_syncs() -> None:
    sender = RecordingSender(complete=False)
    writer = OffsetSyncWriter(sender, 1, max_outstanding=1)
    tp = TopicPartition("topic", 0)
    writer.maybe_queue_offset_syncs(tp, 0, 100)
    assert writer.partition_states[tp].last_sync_downstream_offset == 100
    writer.fire_pending_offset_syncs()
    assert len(sender.sent) == 1
    writer.maybe_queue_offset_syncs(tp, 2, 102)
    assert writer.partition_states[tp].last_sync_downstream_offset == 102
    writer.fire_pending_offset_syncs()
    # One still in flight: the second waits.
    assert len(sender.sent) == 1


def test_promote_delayed_offset_syncs() -> None:
    writer = OffsetSyncWriter(RecordingSender(complete=True), 50, max_outstanding=1)
    tp = TopicPartition("topic", 0)
    writer.maybe_queue_offset_syncs(tp, 0, 100)
    writer.maybe_queue_offset_syncs(tp, 1, 101)
    writer.promote_delayed_offset_syncs()
    assert not writer.delayed
    assert list(writer.pending) == [tp]
    assert (writer.pending[tp].upstream_offset, writer.pending[tp].downstream_offset) == (1, 101)
