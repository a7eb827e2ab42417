"""SequenceSourceConnector: counts from 0, one number per record, with resumable offsets."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    Range,
    Schema,
    SchemaBuilder,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Struct,
    non_empty_string,
)

__all__ = ["SequenceSourceConnector", "SequenceSourceTask"]

TOPIC: Final = "topic"
COUNT: Final = "count"
BATCH: Final = "batch.size"
TASK_ID: Final = "task.id"
TASKS: Final = "task.count"

CONFIG: Final = (
    ConfigDef()
    .define(
        TOPIC,
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The topic to write the numbers to.",
    )
    .define(
        COUNT,
        ConfigType.LONG,
        100,
        Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="How many numbers to emit in all (0, 1, ... count-1).",
    )
    .define(
        BATCH,
        ConfigType.INT,
        10,
        Range.at_least(1),
        importance=Importance.LOW,
        documentation="The most records one poll returns.",
    )
)

VALUE_SCHEMA: Final = (
    SchemaBuilder.struct()
    .name("kconnect_example_sequence.Number")
    .field("n", Schema.INT64)
    .field("square", Schema.INT64)
    .build()
)


class SequenceSourceConnector(SourceConnector):
    """Emits ``count`` numbers; task ``i`` of ``k`` emits the numbers ``n`` with ``n % k == i``."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def example_configs(cls) -> list[dict[str, Any]]:
        """Configs the kconnect-testkit ``verify`` command runs this connector with."""
        return [
            {
                "id": "twenty",
                "config": {TOPIC: "numbers", COUNT: "20", BATCH: "7"},
                "expected_records": 20,
            },
        ]

    def config(self) -> ConfigDef:
        return CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        CONFIG.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[SequenceSourceTask]:
        return SequenceSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        tasks = max(1, min(max_tasks, int(self._props.get(COUNT, "100")) or 1))
        return [{**self._props, TASK_ID: str(i), TASKS: str(tasks)} for i in range(tasks)]

    def stop(self) -> None:
        """Nothing runs in the background."""


class SequenceSourceTask(SourceTask):
    """Emits its share of the numbers; the offset is the next number to emit."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._next = 0

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG.parse(props)
        self._topic: str = config[TOPIC]
        self._count: int = config[COUNT]
        self._batch: int = config[BATCH]
        self._task = int(props.get(TASK_ID, "0"))
        self._tasks = int(props.get(TASKS, "1"))
        self._partition = {"sequence": self._topic, "task": self._task}
        self._stopping.clear()
        committed = self.context.offset_storage_reader.offset(self._partition)
        self._next = int(committed["next"]) if committed else self._task

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.is_set():
            return None
        records: list[SourceRecord] = []
        while self._next < self._count and len(records) < self._batch:
            n = self._next
            self._next += self._tasks
            records.append(
                SourceRecord(
                    topic=self._topic,
                    key_schema=Schema.INT64,
                    key=n,
                    value_schema=VALUE_SCHEMA,
                    value=Struct(VALUE_SCHEMA).put("n", n).put("square", n * n),
                    source_partition=self._partition,
                    source_offset={"next": self._next},
                )
            )
        if records:
            return records
        # Everything is emitted: idle briefly, but wake at once on stop().
        self._stopping.wait(0.2)
        return None

    def stop(self) -> None:
        self._stopping.set()
