"""Broken plugins for isolated mode: a sink whose task's process exits in pre_commit (a
plugin that crashes its host), a transform that changes its input record, a source whose
poll() raises and one whose poll() never returns, even after stop()."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectRecord,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Struct,
    TopicPartition,
    Transformation,
)

CONFIG = ConfigDef().define(
    "file", ConfigType.STRING, importance=Importance.HIGH, documentation="File to append to."
)


class DyingTask(SinkTask):
    def start(self, props: Mapping[str, str]) -> None:
        self._path = props["file"]

    def put(self, records: Sequence[SinkRecord]) -> None:
        with open(self._path, "a", encoding="utf-8") as out:
            out.writelines(f"{r.value}\n" for r in records)

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        print("dying-sink: cannot reach the external system, exiting", file=sys.stderr, flush=True)
        os._exit(3)

    def stop(self) -> None:
        pass


class DyingSink(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[DyingTask]:
        return DyingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG


class MutatingTransform(Transformation[ConnectRecord]):
    def config(self) -> ConfigDef:
        return ConfigDef()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value: Any = record.value
        if isinstance(value, dict):
            value["touched"] = True
        elif isinstance(value, Struct):
            value.put("id", 0)
        return record


class UnreachableTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        raise RuntimeError("source unreachable: connection refused")

    def stop(self) -> None:
        pass


class StuckTask(UnreachableTask):
    def poll(self) -> list[SourceRecord] | None:
        threading.Event().wait()  # waits on the external system; stop() does not wake it
        return None


class RaisingPollSource(SourceConnector):
    task: type[SourceTask] = UnreachableTask

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return CONFIG

    @classmethod
    def example_configs(cls) -> list[dict[str, Any]]:
        return [{"id": "six", "config": {"topic": "t"}, "expected_records": 6}]


class StuckPollSource(RaisingPollSource):
    task = StuckTask

    @classmethod
    def example_configs(cls) -> list[dict[str, Any]]:
        return []  # every check would wait out its poll timeout
