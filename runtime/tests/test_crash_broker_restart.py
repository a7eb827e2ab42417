"""A broker restart under a running pipeline (issue 20, ``pytest -m chaos``).

The session's broker keeps its data in memory, so restarting it would lose every topic.
This test starts a Tansu broker of its own with S3 storage (``--storage-engine
s3://bucket/``, on the session's moto server): topics, committed consumer offsets and
group state survive a restart there, as on a real Kafka cluster. A ``kconnect
standalone`` worker runs FileStream source → topic → FileStream sink while the test
appends lines to the source file and restarts the broker twice (SIGTERM, then kill -9).
The producer and the sink's consumer reconnect by themselves; at the end every line is
in the sink file (zero lost) and repeats are counted.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime import EmbeddedBroker
from kconnect_runtime.modes import free_port
from runtime_harness import (
    CrashRow,
    end_process,
    file_sink,
    file_source,
    line_count,
    report_crash,
    start_kconnect,
    wait_for,
    worker_props,
    write_props,
)

pytestmark = [pytest.mark.chaos, pytest.mark.integration, pytest.mark.timeout(300)]


class PersistentBroker:
    """Tansu on a fixed port with its log in an S3 bucket: a restart keeps the data."""

    def __init__(self, s3: Any, log: Path) -> None:
        self.port = free_port()
        self.bucket = f"kc-broker-{uuid.uuid4().hex[:8]}"
        s3.client().create_bucket(Bucket=self.bucket)
        self.env = {
            **os.environ,
            "AWS_ENDPOINT": s3.endpoint_url,
            "AWS_ACCESS_KEY_ID": s3.access_key_id,
            "AWS_SECRET_ACCESS_KEY": s3.secret_access_key,
            "AWS_DEFAULT_REGION": s3.region,
            "AWS_ALLOW_HTTP": "true",
        }
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        url = f"tcp://127.0.0.1:{self.port}"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [
                    EmbeddedBroker.binary(),
                    "broker",
                    "--listener-url",
                    url,
                    "--advertised-listener-url",
                    url,
                    "--storage-engine",
                    f"s3://{self.bucket}/",
                ],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )

        def listening() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return True
            except OSError:
                return False

        wait_for(listening, 30, f"the broker to listen (log: {self.log})")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _more(sink: Path, before: int) -> bool:
    return line_count(sink) > before + 500


def test_broker_restarts_lose_nothing(
    kc_s3: Any, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    broker = PersistentBroker(kc_s3, tmp_path / "broker.log")
    broker.start()
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    source.touch()
    topic = f"restart-{uuid.uuid4().hex[:8]}"
    files = [
        write_props(
            tmp_path / "worker.properties",
            worker_props(tmp_path, broker.bootstrap, **{"consumer.session.timeout.ms": "6000"}),
        ),
        write_props(tmp_path / "src.properties", file_source("src", source, topic)),
        write_props(tmp_path / "sink.properties", file_sink("sink", sink, topic)),
    ]
    written = 0
    halt = threading.Event()

    def append() -> None:
        nonlocal written
        with source.open("a", encoding="utf-8") as f:
            while not halt.wait(0.05):
                f.write("".join(f"line {i}\n" for i in range(written, written + 100)))
                f.flush()
                written += 100

    appender = threading.Thread(target=append, daemon=True)
    log = tmp_path / "worker.log"
    proc = start_kconnect(["standalone", *map(str, files)], tmp_path, log)
    restarts = 0
    try:
        appender.start()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            before = line_count(sink)
            wait_for(partial(_more, sink, before), 90, f"lines in the sink ({log})")
            broker.stop(sig)
            time.sleep(1.0)  # the worker's clients see the broker gone
            broker.start()
            restarts += 1
        before = line_count(sink)
        wait_for(lambda: line_count(sink) > before + 500, 90, f"lines after the restarts ({log})")
        halt.set()
        appender.join(10)
        wait_for(
            lambda: len(set(sink.read_text(encoding="utf-8").splitlines())) >= written,
            120,
            f"every line in the sink file ({log})",
        )
        assert end_process(proc, signal.SIGTERM) == 0
    finally:
        halt.set()
        if proc.poll() is None:
            end_process(proc, signal.SIGKILL)
        broker.stop(signal.SIGKILL)
    got = Counter(sink.read_text(encoding="utf-8").splitlines())
    lost = written - len(got)
    duplicated = sum(got.values()) - len(got)
    report_crash(
        request.config,
        CrashRow(
            "FileStreamSource → FileStreamSink",
            "at-least-once, broker restarts",
            0,
            0,
            "n/a",
            lost,
            duplicated,
            f"{written} lines; {restarts} restarts of a Tansu broker with S3 storage "
            "(SIGTERM, kill -9) under the running worker",
        ),
    )
    assert set(got) == {f"line {i}" for i in range(written)}
