"""JsonLinesSinkConnector: one JSON document per record value, appended to a file."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectError,
    DataError,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    Struct,
    TopicPartition,
    non_empty_string,
)

__all__ = ["JsonLinesSinkConnector", "JsonLinesSinkTask"]

FILE: Final = "file"
CONFIG: Final = ConfigDef().define(
    FILE,
    ConfigType.STRING,
    validator=non_empty_string,
    importance=Importance.HIGH,
    documentation="The file to append JSON lines to; created if missing.",
)


def _plain(value: Any) -> Any:
    return value.to_dict() if isinstance(value, Struct) else value


class JsonLinesSinkConnector(SinkConnector):
    """Appends every record value of its topics to one JSON-lines file."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def example_configs(cls) -> list[dict[str, Any]]:
        """Configs the kconnect-testkit ``verify`` command runs this connector with."""
        return [{"id": "jsonl", "config": {FILE: "{tmp_path}/out.jsonl"}, "bad_values": [b"\xff"]}]

    @classmethod
    def read_example_output(cls, config: Mapping[str, str]) -> list[Any]:
        """The values an example config's file holds, in order (for conformance checks)."""
        path = config[FILE]
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as lines:
            return [json.loads(line) for line in lines if line.strip()]

    def config(self) -> ConfigDef:
        return CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        CONFIG.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[JsonLinesSinkTask]:
        return JsonLinesSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        """Nothing runs in the background."""


class JsonLinesSinkTask(SinkTask):
    """Buffers lines in memory; ``flush`` appends and fsyncs them, so commits follow durability.

    A value JSON cannot hold (bytes, say) goes to the errant record reporter when the
    connector's ``errors.*`` config offers one, and fails the task otherwise.
    """

    def __init__(self) -> None:
        self._buffer: list[str] = []
        self._path = ""

    def start(self, props: Mapping[str, str]) -> None:
        self._path = CONFIG.parse(props)[FILE]
        self._buffer = []

    def put(self, records: Sequence[SinkRecord]) -> None:
        reporter = self.context.errant_record_reporter
        for record in records:
            try:
                self._buffer.append(json.dumps(_plain(record.value), ensure_ascii=False))
            except (TypeError, ValueError) as exc:
                error = DataError(
                    f"record {record.topic}-{record.kafka_partition}@{record.kafka_offset}: value "
                    f"of type {type(record.value).__name__} cannot be written as JSON: {exc}"
                )
                if reporter is None:
                    raise error from exc
                reporter.report(record, error)

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        if not self._buffer:
            return
        try:
            with open(self._path, "a", encoding="utf-8") as out:
                out.write("\n".join(self._buffer) + "\n")
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            raise ConnectError(
                f"cannot append to {self._path!r} ({exc.strerror or exc}); check config {FILE!r}"
            ) from exc
        self._buffer = []

    def stop(self) -> None:
        self._buffer = []
