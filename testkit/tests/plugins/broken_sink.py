"""A sink that reports offsets from pre_commit before the data is durable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
)

CONFIG = ConfigDef().define(
    "file", ConfigType.STRING, importance=Importance.HIGH, documentation="File to append to."
)


class BufferingTask(SinkTask):
    def start(self, props: Mapping[str, str]) -> None:
        self._path = props["file"]
        self._buffer: list[str] = []

    def put(self, records: Sequence[SinkRecord]) -> None:
        self._buffer.extend(str(r.value) for r in records)

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        return offsets  # claims durability without writing anything

    def stop(self) -> None:
        with open(self._path, "a", encoding="utf-8") as out:
            out.writelines(line + "\n" for line in self._buffer)


class EagerCommitSink(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[BufferingTask]:
        return BufferingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG


class RememberingTask(SinkTask):
    """Writes at once, but pre_commit reports every partition it ever wrote, closed or not."""

    def start(self, props: Mapping[str, str]) -> None:
        self._path = props["file"]
        self._written: dict[TopicPartition, int] = {}

    def put(self, records: Sequence[SinkRecord]) -> None:
        with open(self._path, "a", encoding="utf-8") as out:
            for record in records:
                out.write(f"{record.value}\n")
                tp = record.original_topic_partition
                self._written[tp] = record.original_kafka_offset + 1

    def close(self, partitions: Sequence[TopicPartition]) -> None:
        pass  # forgets to drop the closed partitions' state

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        return dict(self._written)

    def stop(self) -> None:
        pass


class ClosedPartitionSink(EagerCommitSink):
    def task_class(self) -> type[RememberingTask]:  # type: ignore[override]  # another task
        return RememberingTask
