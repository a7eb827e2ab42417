"""Helpers for end-to-end tests: run workers in-process or as `kconnect` processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from kconnect_runtime import Standalone

SESSION_TIMEOUT = "6000"


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def worker_props(tmp: Path, kafka: str, **extra: str) -> dict[str, str]:
    props = {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "header.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp / "offsets.json"),
        "offset.flush.interval.ms": "500",
        "consumer.session.timeout.ms": SESSION_TIMEOUT,
        "listeners": "",
    }
    props.update(extra)
    return props


def file_source(name: str, path: Path, topic: str, **extra: str) -> dict[str, str]:
    # One partition keeps the file's order end to end (Tansu auto-creates four).
    return {
        "name": name,
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **extra,
    }


def file_sink(name: str, path: Path, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "FileStreamSink",
        "file": str(path),
        "topics": topic,
        **extra,
    }


@contextlib.contextmanager
def standalone(worker: Mapping[str, str], *connectors: Mapping[str, str]) -> Iterator[Standalone]:
    app = Standalone(worker, connectors)
    app.start()
    try:
        yield app
    finally:
        app.stop()


def write_props(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


def kconnect(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    """Start `kconnect ARGS` as a real process of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 30) -> str:
    if proc.poll() is None:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=timeout)
    return out.decode(errors="replace")


# -- an in-test connector (importable as runtime_harness:RecordingSourceConnector) --------
from typing import ClassVar  # noqa: E402

from kconnect_sdk import (  # noqa: E402
    ConfigDef,
    ConfigType,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Task,
)


class RecordingSourceTask(SourceTask):
    """Produces nothing; remembers the config it was started with."""

    started: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        RecordingSourceTask.started.append(dict(props))

    def poll(self) -> list[SourceRecord] | None:
        time.sleep(0.05)
        return None

    def stop(self) -> None:
        pass


class RecordingSourceConnector(SourceConnector):
    """Remembers the config it was started with; one task per call."""

    started: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        RecordingSourceConnector.started.append(dict(props))

    def task_class(self) -> type[Task]:
        return RecordingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("password", ConfigType.PASSWORD, "", documentation="a secret")
