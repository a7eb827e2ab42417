"""A correct source whose data set is split over its tasks, and the same source with an
offset bug planted in one of its tasks.

``PartitionedSource`` generates ``records.per.partition`` lines for each of its
``partitions`` source partitions (by default one per task, as data generators such as
Confluent's Datagen do: the data set grows with ``tasks.max``). Each task reads the
partitions it is given and resumes each from its own committed offset.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectError,
    Importance,
    Schema,
    SourceBatch,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

CONFIG = (
    ConfigDef()
    .define("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Topic.")
    .define(
        "partitions",
        ConfigType.INT,
        default=0,
        importance=Importance.MEDIUM,
        documentation="Source partitions of the data set; 0: one per task.",
    )
    .define(
        "records.per.partition",
        ConfigType.INT,
        default=10,
        importance=Importance.MEDIUM,
        documentation="Lines each source partition holds.",
    )
    .define(
        "batch.size",
        ConfigType.INT,
        default=4,
        importance=Importance.LOW,
        documentation="Most lines one poll returns.",
    )
)


def line(partition: int, position: int) -> str:
    return f"p{partition}-{position}"


class PartitionedTask(SourceTask):
    # Partitions whose offsets point one line past the line they belong to (a planted bug).
    skip_in: frozenset[int] = frozenset()

    def version(self) -> str:
        return "0.1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._topic = props["topic"]
        self._size = int(props["records.per.partition"])
        self._batch = int(props["batch.size"])
        self._partitions = [int(p) for p in props["task.partitions"].split(",") if p]
        committed = self.context.offset_storage_reader.offsets(
            [{"partition": p} for p in self._partitions]
        )
        self._next = {
            p: int(o["position"]) if o else 0
            for p, o in zip(self._partitions, committed, strict=True)
        }
        self._turn = 0
        self._stopped = threading.Event()

    def poll_batch(self) -> SourceBatch | None:
        # One partition per batch, in turn, so the task's partitions interleave.
        pending = [p for p in self._partitions if self._next[p] < self._size]
        if not pending or self._stopped.is_set():
            self._stopped.wait(0.05)
            return None
        partition = pending[self._turn % len(pending)]
        self._turn += 1
        first = self._next[partition]
        positions = range(first, min(first + self._batch, self._size))
        step = 2 if partition in self.skip_in else 1
        self._next[partition] = positions[-1] + 1
        return SourceBatch(
            topic=self._topic,
            source_partition={"partition": partition},
            values=[line(partition, i) for i in positions],
            value_schema=Schema.STRING,
            source_offsets=[{"position": i + step} for i in positions],
        )

    def poll(self) -> list[SourceRecord] | None:
        batch = self.poll_batch()
        return None if batch is None else batch.records()

    def stop(self) -> None:
        self._stopped.set()


class PartitionedSource(SourceConnector):
    task: type[PartitionedTask] = PartitionedTask

    def version(self) -> str:
        return "0.1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        self._parsed = CONFIG.parse(props)

    def task_class(self) -> type[PartitionedTask]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        count = int(self._parsed["partitions"]) or max_tasks
        tasks = min(count, max_tasks)
        common = {
            **self._props,
            "records.per.partition": str(self._parsed["records.per.partition"]),
            "batch.size": str(self._parsed["batch.size"]),
        }
        return [
            {**common, "task.partitions": ",".join(str(p) for p in range(i, count, tasks))}
            for i in range(tasks)
        ]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG

    @classmethod
    def example_configs(cls) -> list[dict[str, Any]]:
        # Three tasks of one partition each: 30 lines for the whole connector.
        return [
            {
                "id": "three-tasks",
                "config": {"topic": "parts", "tasks.max": "3"},
                "expected_records": 30,
            }
        ]

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        for partition, offset in offsets:
            if set(partition) != {"partition"} or not isinstance(partition["partition"], int):
                raise ConnectError(f"unknown source partition {dict(partition)!r}")
            if offset is None:
                continue
            position = offset.get("position")
            if set(offset) != {"position"} or not isinstance(position, int) or position < 0:
                raise ConnectError(
                    f"offset {dict(offset)!r} of {dict(partition)!r} needs only a 'position' >= 0"
                )
        return True


class SkipInPartitionTwoTask(PartitionedTask):
    skip_in = frozenset({2})  # its offsets point one line too far: a restart skips a line


class OffsetBugSource(PartitionedSource):
    task = SkipInPartitionTwoTask
