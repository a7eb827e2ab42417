"""Every log line a task thread emits carries ``[connector|task-N]``, as Kafka's MDC does."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest
from kconnect_runtime.logcontext import ConnectorContextFilter
from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask, Task
from runtime_harness import standalone, wait_for, worker_props

pytestmark = pytest.mark.integration

plugin_log = logging.getLogger("test.chatty.plugin")


class ChattyTask(SourceTask):
    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        plugin_log.info("plugin starting")

    def poll(self) -> list[SourceRecord] | None:
        plugin_log.info("plugin polling")
        return None

    def stop(self) -> None:
        pass


class Chatty(SourceConnector):
    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return ChattyTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


def test_task_log_lines_carry_connector_and_task(
    tmp_path: Path, kafka: str, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"chatty-{uuid.uuid4().hex[:6]}"
    caplog.set_level(logging.INFO)
    formatter = logging.Formatter("%(connector_context)s%(message)s")
    config = {"name": name, "connector.class": f"{__name__}:Chatty", "topic": "unused"}
    with standalone(worker_props(tmp_path, kafka), config):
        wait_for(
            lambda: any(r.getMessage() == "plugin polling" for r in caplog.records),
            10,
            "the plugin to log from poll",
        )
    lines = [formatter.format(r) for r in caplog.records]
    prefix = f"[{name}|task-0] "
    assert prefix + "plugin starting" in lines  # the plugin's own lines
    assert prefix + "plugin polling" in lines
    assert any(line.startswith(prefix + "source task") for line in lines)  # the runner's
    # Lines from other threads (the worker's control plane) carry no task context.
    assert not any(line.startswith(prefix) for line in lines if "connector" in line.split()[:1])


def test_filter_adds_the_context_for_handlers_configured_by_hand() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    assert ConnectorContextFilter().filter(record)
    assert logging.Formatter("%(connector_context)s%(message)s").format(record) == "hello"
