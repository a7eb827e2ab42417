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
