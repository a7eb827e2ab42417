"""Checkpoint translation and group offset sync: Kafka's MirrorCheckpointTaskTest."""

from __future__ import annotations

from collections.abc import Mapping

from kconnect_connector_mirror import (
    Checkpoint,
    DefaultReplicationPolicy,
    DefaultTopicFilter,
    MirrorCheckpointTask,
    OffsetSync,
    OffsetSyncStore,
)
from kconnect_connector_mirror._checkpoint import CheckpointStore, group_partitions
from kconnect_sdk import TopicPartition


def _store(
    *syncs: tuple[TopicPartition, int, int], must_read_to_end: bool = True
) -> OffsetSyncStore:
    store = OffsetSyncStore()
    store.start(must_read_to_end)
    for tp, up, down in syncs:
        store.handle_sync(OffsetSync(tp, up, down))
    store.mark_read_to_end()
    return store


def _task(
    store: OffsetSyncStore | None = None,
    checkpoints: dict[str, dict[TopicPartition, Checkpoint]] | None = None,
    idle: dict[str, dict[TopicPartition, tuple[int, str]]] | None = None,
    source: str = "source1",
    target: str = "target2",
) -> MirrorCheckpointTask:
    task = MirrorCheckpointTask()
    task.source_alias, task.target_alias = source, target
    task.policy = DefaultReplicationPolicy()
    task.topic_filter = DefaultTopicFilter()
    task.offset_sync_store = store or _store()
    task.checkpoint_store = CheckpointStore(checkpoints if checkpoints is not None else {})
    task.idle_consumer_group_offsets = idle or {}
    return task


def test_downstream_topic_renaming() -> None:
    task = _task()
    assert task.rename_topic_partition(TopicPartition("topic3", 4)) == TopicPartition(
        "source1.topic3", 4
    )
    assert task.rename_topic_partition(TopicPartition("target2.topic3", 5)) == TopicPartition(
        "topic3", 5
    )
    assert task.rename_topic_partition(TopicPartition("source6.topic7", 8)) == TopicPartition(
        "source1.source6.topic7", 8
    )


def test_checkpoint() -> None:
    store = _store()
    task = _task(store)
    store.handle_sync(OffsetSync(TopicPartition("topic1", 2), 3, 4))
    store.handle_sync(OffsetSync(TopicPartition("target2.topic5", 6), 7, 8))

    first = task.checkpoint("group9", TopicPartition("topic1", 2), (10, ""))
    assert first is not None
    record = task.checkpoint_record(first, 123)
    assert first.topic_partition == TopicPartition("source1.topic1", 2)
    assert first.consumer_group_id == "group9"
    assert record.source_partition is not None and record.source_partition["group"] == "group9"
    assert (first.upstream_offset, first.downstream_offset) == (10, 5)
    assert record.timestamp == 123
    assert record.key == first.record_key() and record.value == first.record_value()

    second = task.checkpoint("group11", TopicPartition("target2.topic5", 6), (12, ""))
    assert second is not None
    assert second.topic_partition == TopicPartition("topic5", 6)
    assert (second.upstream_offset, second.downstream_offset) == (12, 9)

    exact = task.checkpoint("group13", TopicPartition("target2.topic5", 6), (7, ""))
    assert exact is not None
    assert (exact.upstream_offset, exact.downstream_offset) == (7, 8)


def test_sync_offset() -> None:
    t1p0, t2p0 = TopicPartition("topic1", 0), TopicPartition("topic2", 0)
    task = _task(
        checkpoints={
            "consumer1": {t1p0: Checkpoint("consumer1", t1p0, 200, 101, "metadata")},
            "consumer2": {t2p0: Checkpoint("consumer2", t2p0, 100, 51, "metadata")},
        },
        idle={"consumer1": {t1p0: (100, "")}, "consumer2": {t2p0: (50, "")}},
    )
    output = task.sync_group_offsets()
    assert output["consumer1"][t1p0][0] == 101
    assert output["consumer2"][t2p0][0] == 51


def test_sync_offset_never_moves_an_idle_group_back() -> None:
    tp = TopicPartition("topic1", 0)
    task = _task(
        checkpoints={"g": {tp: Checkpoint("g", tp, 200, 101, "")}},
        idle={"g": {tp: (150, "")}},
    )
    assert task.sync_group_offsets() == {}


def test_no_checkpoint_without_offset_syncs_or_committed_offset() -> None:
    store = _store((TopicPartition("topic1", 0), 3, 4))
    task = _task(store)
    assert task.checkpoint("group9", TopicPartition("topic1", 1), (10, "")) is None
    assert task.checkpoint("group9", TopicPartition("topic1", 0), (10, "")) is not None
    assert task.checkpoint("g1", TopicPartition("topic1", 0), None) is None


def _checkpoints(
    task: MirrorCheckpointTask, tp: TopicPartition, offset: int
) -> Mapping[TopicPartition, Checkpoint]:
    return task.checkpoints_for_group({tp: (offset, "")}, "g1")


def test_checkpoint_records_monotonic_if_store_rewinds() -> None:
    store = _store()
    checkpoints: dict[str, dict[TopicPartition, Checkpoint]] = {}
    task = _task(store, checkpoints)
    tp, target_tp = TopicPartition("topic1", 0), TopicPartition("source1.topic1", 0)
    upstream, downstream = 11, 4
    for _ in range(2):
        store.handle_sync(OffsetSync(tp, upstream, downstream))
        upstream, downstream = upstream + 1, downstream + 1
    group_offset, expected = upstream, downstream
    assert store.translate_downstream("g1", tp, group_offset) == expected
    emitted = _checkpoints(task, tp, group_offset)
    assert target_tp in emitted
    checkpoints["g1"] = dict(emitted)
    # Five more syncs make the store drop the one used, falling back to an older one.
    for _ in range(4):
        store.handle_sync(OffsetSync(tp, upstream, downstream))
        upstream, downstream = upstream + 1, downstream + 1
    store.handle_sync(OffsetSync(tp, upstream, downstream))
    assert store.translate_downstream("g1", tp, group_offset) != expected
    # ... but the task does not emit a checkpoint that would move the group back.
    assert target_tp not in _checkpoints(task, tp, group_offset)
    # An upstream rewind is followed, though.
    assert target_tp in _checkpoints(task, tp, group_offset - 1)


def test_restart_uses_existing_checkpoints() -> None:
    t1p0, source_t1p0 = TopicPartition("t1", 0), TopicPartition("source1.t1", 0)
    store = _store(*[(t1p0, i, i) for i in (100, 200, 300)], must_read_to_end=False)
    task = _task(store)
    checkpoints = task.checkpoints_for_group({t1p0: (250, "")}, "group1")
    assert checkpoints == {source_t1p0: Checkpoint("group1", source_t1p0, 250, 201, "")}

    store2 = _store(*[(t1p0, i, i) for i in (175, 275, 375, 475)], must_read_to_end=False)
    task2 = _task(store2, {"group1": dict(checkpoints)})
    assert store2.translate_downstream("g", t1p0, 250) == 176
    assert store2.translate_downstream("g", t1p0, 370) == 176
    assert task2.checkpoints_for_group({t1p0: (250, "")}, "group1") == {}
    assert task2.checkpoints_for_group({t1p0: (370, "")}, "group1") == {}
    assert task2.checkpoints_for_group({t1p0: (400, "")}, "group1") == {
        source_t1p0: Checkpoint("group1", source_t1p0, 400, 376, "")
    }


def test_no_records_before_the_checkpoint_store_is_loaded() -> None:
    task = _task()
    task.checkpoint_store = CheckpointStore()
    task._interval_s = 0.0
    task.consumer_groups = ["group"]
    assert task.poll() is None


def test_groups_are_split_as_kafkas_connector_utils() -> None:
    assert group_partitions(["a", "b", "c", "d", "e"], 3) == [["a", "b"], ["c", "d"], ["e"]]
    assert group_partitions(["a", "b"], 2) == [["a"], ["b"]]
