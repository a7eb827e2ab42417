"""Issue 24, REST side: what a client changes is in the log, and a stuck task cannot hold a
DELETE.

* pause, resume, stop, restart, delete, config and offset changes each log one INFO line
  with the connector, the action and (basic auth on) the user, never a password;
* ``rest.access.log.enable=true`` logs every request: method, path, status, time;
* ``DELETE`` of a connector whose task's ``stop()`` blocks answers within
  ``task.shutdown.graceful.timeout.ms`` and a margin, the stop going on in the background.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_sdk import ConfigDef, SourceConnector, SourceRecord, SourceTask, Task
from runtime_harness import wait_for, worker_props

pytestmark = pytest.mark.integration

USER, PASSWORD = "alice", "s3cret-pw-never-logged"
GRACEFUL_MS = 1000


class StuckStopTask(SourceTask):
    """A source task whose stop() blocks while the file ``hold`` exists (at most 120 s).

    Files, not class attributes: the worker imports this module under its own name, so the
    test's module object and the worker's are not the same.
    """

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._hold = Path(props["hold"])

    def poll(self) -> list[SourceRecord]:
        time.sleep(0.05)
        return []

    def stop(self) -> None:
        self._hold.with_suffix(".stop-called").touch()
        deadline = time.monotonic() + 120
        while self._hold.exists() and time.monotonic() < deadline:
            time.sleep(0.05)


class StuckStopConnector(SourceConnector):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return StuckStopTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


@pytest.fixture(scope="module")
def worker(kafka: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Standalone]:
    workdir = tmp_path_factory.mktemp("rest-log")
    users = workdir / "users.properties"
    users.write_text(f"{USER}: {PASSWORD},admin\n")
    props = worker_props(
        workdir,
        kafka,
        listeners="http://127.0.0.1:0",
        **{
            "rest.basic.auth.user.file": str(users),
            "rest.access.log.enable": "true",
            "task.shutdown.graceful.timeout.ms": str(GRACEFUL_MS),
        },
    )
    app = Standalone(props)
    app.start()
    try:
        yield app
    finally:
        for hold in workdir.glob("*.hold"):
            hold.unlink()  # let stuck tasks go, so the worker stops on time
        app.stop()


@pytest.fixture
def api(worker: Standalone) -> Iterator[httpx.Client]:
    assert worker.rest is not None
    with httpx.Client(base_url=worker.rest.url, timeout=60, auth=(USER, PASSWORD)) as client:
        yield client


def _actions(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "kconnect.rest" and r.levelno == logging.INFO and repr(name) in r.getMessage()
    ]


def test_every_change_logs_one_line_with_the_user(
    api: httpx.Client, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    name = f"audited-{uuid.uuid4().hex[:8]}"
    config = {"connector.class": "runtime_harness:RecordingSourceConnector", "password": "pw-x1"}
    steps: list[tuple[str, str, httpx.Response | None]] = []
    with caplog.at_level(logging.INFO):
        steps.append(
            ("created", "POST", api.post("/connectors", json={"name": name, "config": config}))
        )
        steps.append(("config replaced", "PUT", api.put(f"/connectors/{name}/config", json=config)))
        steps.append(
            ("config patched", "PATCH", api.patch(f"/connectors/{name}/config", json={"x": "1"}))
        )
        steps.append(("paused", "PUT", api.put(f"/connectors/{name}/pause")))
        steps.append(("resumed", "PUT", api.put(f"/connectors/{name}/resume")))
        wait_for(lambda: api.get(f"/connectors/{name}/status").json()["tasks"] != [], 30, "a task")
        steps.append(("task 0 restarted", "POST", api.post(f"/connectors/{name}/tasks/0/restart")))
        steps.append(
            (
                "restart requested (includeTasks=true",
                "POST",
                api.post(f"/connectors/{name}/restart", params={"includeTasks": "true"}),
            )
        )
        steps.append(("stopped", "PUT", api.put(f"/connectors/{name}/stop")))
        offsets = {"offsets": [{"partition": {"p": 1}, "offset": {"o": 2}}]}
        steps.append(
            ("offsets altered", "PATCH", api.patch(f"/connectors/{name}/offsets", json=offsets))
        )
        steps.append(("offsets reset", "DELETE", api.delete(f"/connectors/{name}/offsets")))
        steps.append(("deleted", "DELETE", api.delete(f"/connectors/{name}")))

    for action, _, response in steps:
        assert response is not None and response.status_code < 300, (action, response.text)
    lines = _actions(caplog, name)
    for action, _, _ in steps:
        matching = [line for line in lines if action in line]
        assert len(matching) == 1, (action, lines)
        assert f"(user '{USER}')" in matching[0]
    assert len(lines) == len(steps)  # one line per change, nothing else at INFO
    every = "\n".join(r.getMessage() for r in caplog.records)
    assert PASSWORD not in every and "pw-x1" not in every

    # The access log: one line per request, method, path, status and time, with the user
    # (written once the answer is sent, so the last one may come a moment later).
    def access() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "kconnect.rest.access"]

    with caplog.at_level(logging.INFO):
        wait_for(
            lambda: any(line.startswith(f"DELETE /connectors/{name} 204 ") for line in access()),
            10,
            "the access log line of the DELETE",
        )
    assert any(
        re.fullmatch(rf"PUT /connectors/{name}/pause 202 \d+\.\d ms user={USER}", line)
        for line in access()
    ), access()
    assert len(access()) >= len(steps)


def test_unauthenticated_requests_are_in_the_access_log(
    worker: Standalone, caplog: pytest.LogCaptureFixture
) -> None:
    assert worker.rest is not None
    with caplog.at_level(logging.INFO, logger="kconnect.rest.access"):
        answer = httpx.get(f"{worker.rest.url}/connectors", auth=(USER, "wrong"))
        assert answer.status_code == 401
        wait_for(
            lambda: any(
                r.getMessage().startswith("GET /connectors 401 ")
                for r in caplog.records
                if r.name == "kconnect.rest.access"
            ),
            10,
            "the access log line of the refused request",
        )
    assert not any("wrong" in r.getMessage() for r in caplog.records)


def test_delete_of_a_stuck_task_answers_within_the_graceful_timeout(
    api: httpx.Client, worker: Standalone, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"stuck-{uuid.uuid4().hex[:8]}"
    workdir = Path(worker.worker_props["offset.storage.file.filename"]).parent
    hold = workdir / f"{name}.hold"
    hold.touch()
    config = {"connector.class": "test_rest_lifecycle_log:StuckStopConnector", "hold": str(hold)}
    assert api.post("/connectors", json={"name": name, "config": config}).status_code == 201
    wait_for(
        lambda: (
            [t["state"] for t in api.get(f"/connectors/{name}/status").json()["tasks"]]
            == ["RUNNING"]
        ),
        30,
        "the task to run",
    )
    try:
        with caplog.at_level(logging.WARNING):
            started = time.monotonic()
            deleted = api.delete(f"/connectors/{name}")
            elapsed = time.monotonic() - started
        assert deleted.status_code == 204
        assert hold.with_suffix(".stop-called").exists()  # asked to stop, and stuck in stop()
        # Answered on time (stop() blocks up to 120 s); a wide margin for a busy machine.
        assert elapsed < GRACEFUL_MS / 1000 + 10, elapsed
        assert api.get(f"/connectors/{name}").status_code == 404
        assert name not in api.get("/connectors").json()
        assert any("go on stopping in the background" in r.getMessage() for r in caplog.records)
    finally:
        hold.unlink()
