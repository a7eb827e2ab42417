"""Source connectors with broken offsets, validation or stop."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConfigValue,
    ConnectError,
    Importance,
    Schema,
    SourceConnector,
    SourceRecord,
    SourceTask,
)

LINES = [f"line-{i}" for i in range(6)]
CONFIG = ConfigDef().define(
    "topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Topic to write to."
)


class _ListTask(SourceTask):
    offset_step = 1

    def start(self, props: Mapping[str, str]) -> None:
        self._topic = props["topic"]
        committed = self.context.offset_storage_reader.offset({"list": "lines"})
        self._next = int(committed["next"]) if committed else 0
        self._stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self._next >= len(LINES):
            self._stopped.wait(0.05)
            return None
        records = [
            SourceRecord(
                topic=self._topic,
                value_schema=Schema.STRING,
                value=LINES[i],
                source_partition={"list": "lines"},
                source_offset={"next": i + self.offset_step},
            )
            for i in range(self._next, len(LINES))
        ]
        self._next = len(LINES)
        return records

    def stop(self) -> None:
        self._stopped.set()


class _ListConnector(SourceConnector):
    task: type[_ListTask] = _ListTask

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[_ListTask]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG


class SkippingTask(_ListTask):
    offset_step = 2  # points one record too far: a restart skips a line


class WrongOffsetsSource(_ListConnector):
    task = SkippingTask


class RaisingValidateSource(_ListConnector):
    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return [ConfigValue("topic", props["topic"])]  # KeyError on an empty config


class HangingStopTask(_ListTask):
    def stop(self) -> None:
        threading.Event().wait()  # waits for an external system that never answers


class HangingStopSource(_ListConnector):
    task = HangingStopTask


class CheckedOffsetsSource(_ListConnector):
    """A correct ``alter_offsets``: the reference the broken one below is compared with."""

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        for partition, offset in offsets:
            if dict(partition) != {"list": "lines"}:
                raise ConnectError(f"unknown source partition {dict(partition)!r}")
            if offset is not None and not isinstance(offset.get("next"), int):
                raise ConnectError(f"offset {dict(offset)!r} needs an integer 'next'")
        return True


class GarbageOffsetsSource(_ListConnector):
    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> bool:
        return True  # accepts anything, so the REST API stores offsets the task cannot use


class UnreachableTask(_ListTask):
    def poll(self) -> list[SourceRecord] | None:
        raise RuntimeError("source unreachable: connection refused")


class RaisingPollSource(_ListConnector):
    """Every poll() raises: one cause that fails every check that reads records."""

    task = UnreachableTask
