"""The web console at /ui in headless Chromium (Debian's), and CORS on the REST API."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_sdk import ConnectError
from runtime_harness import RecordingSourceConnector, RecordingSourceTask, file_source, wait_for
from runtime_harness import worker_props as base_worker_props

pytestmark = pytest.mark.integration

CHROMIUM = "/usr/bin/chromium"
# Debian's chromium, driven by Playwright (its own browser download is not used).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
USER, PASSWORD = "admin", "s3cret"
ALLOWED_ORIGIN = "http://console.example"


class MarkerFailingTask(RecordingSourceTask):
    """Fails in start() while the file named by ``fail.marker`` exists."""

    def start(self, props: Mapping[str, str]) -> None:
        if Path(props["fail.marker"]).exists():
            raise ConnectError(f"task cannot start: {props['fail.marker']} exists")
        super().start(props)


class MarkerFailingConnector(RecordingSourceConnector):
    def task_class(self) -> type[MarkerFailingTask]:
        return MarkerFailingTask


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(scope="module")
def worker(kafka: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("ui")
    users = tmp / "users.properties"
    users.write_text(f"{USER}: {PASSWORD},admin\n")
    props = base_worker_props(
        tmp,
        kafka,
        listeners="http://127.0.0.1:0",
        **{
            "rest.basic.auth.user.file": str(users),
            "access.control.allow.origin": ALLOWED_ORIGIN,
            "access.control.allow.methods": "GET,POST,PUT,DELETE",
        },
    )
    app = Standalone(props)
    app.start()
    assert app.rest is not None
    try:
        yield app.rest.url, tmp
    finally:
        app.stop()


@pytest.fixture(scope="module")
def api(worker: tuple[str, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=worker[0], auth=(USER, PASSWORD), timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install -y chromium`; "
            ".ci/run does it) to run the web console's browser tests",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        found = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            found.close()


def _state(api: httpx.Client, name: str) -> tuple[str, list[str]]:
    body = api.get(f"/connectors/{name}/status").json()
    return body["connector"]["state"], [t["state"] for t in body["tasks"]]


def test_console_shows_states_and_its_buttons_act(
    worker: tuple[str, Path], api: httpx.Client, browser: Any
) -> None:
    url, tmp = worker
    running, paused, failing = _name("running"), _name("paused"), _name("failing")
    data = tmp / f"{running}.txt"
    data.write_text("".join(f"line {i}\n" for i in range(200)))
    for name in (running, paused):
        config = file_source(name, data, _name("topic"), **{"db.password": "hunter2"})
        assert api.put(f"/connectors/{name}/config", json=config).status_code == 201
    marker = tmp / f"{failing}.marker"
    marker.touch()
    config = {
        "name": failing,
        "connector.class": "test_ui_console:MarkerFailingConnector",
        "fail.marker": str(marker),
    }
    assert api.put(f"/connectors/{failing}/config", json=config).status_code == 201
    assert api.put(f"/connectors/{paused}/pause").status_code == 202
    wait_for(lambda: _state(api, paused) == ("PAUSED", ["PAUSED"]), 30, "paused connector")
    wait_for(lambda: _state(api, failing)[1] == ["FAILED"], 30, "failed task")

    context = browser.new_context(http_credentials={"username": USER, "password": PASSWORD})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/ui?refresh=500")
        assert page.url == f"{url}/ui/?refresh=500"
        rows = page.get_by_test_id("connector-row")
        rows.first.wait_for()

        def row(name: str) -> Any:
            return page.locator(f'tr[data-connector="{name}"]')

        paused_state = row(paused).get_by_test_id("connector-state")
        paused_state.get_by_text("PAUSED").wait_for()
        assert row(running).get_by_test_id("connector-state").inner_text() == "RUNNING"
        assert "FAILED" in row(failing).inner_text()
        # Kafka calls the connector RUNNING while its only task FAILED: flagged, not green.
        flag = row(failing).get_by_test_id("failed-tasks")
        assert flag.inner_text() == "1 of 1 task FAILED"
        assert "degraded" in (
            row(failing).get_by_test_id("state").first.get_attribute("class") or ""
        )
        # Only the actions valid in each state are offered.
        assert row(paused).get_by_test_id("pause").count() == 0
        assert row(paused).get_by_test_id("resume").count() == 1
        assert row(running).get_by_test_id("resume").count() == 0
        assert row(failing).get_by_test_id("restart").count() == 1
        assert row(running).get_by_test_id("restart").count() == 0
        assert "kconnect" in page.get_by_test_id("worker").inner_text()
        # The 30-second window rate appears once /metrics has been read twice.
        page.wait_for_function(
            f"""() => /^[0-9]/.test(document.querySelector('tr[data-connector="{running}"] '
            + '[data-testid=rate]')?.textContent || '')"""
        )

        # The Pause button pauses through the REST API; the table follows.
        row(running).get_by_test_id("pause").click()
        wait_for(lambda: _state(api, running)[0] == "PAUSED", 30, "paused by the console")
        row(running).get_by_test_id("connector-state").get_by_text("PAUSED").wait_for()
        row(running).get_by_test_id("resume").click()
        row(running).get_by_test_id("connector-state").get_by_text("RUNNING").wait_for()

        # A connector's page: config with secrets hidden, the failed task's trace, Restart task.
        row(failing).get_by_role("link", name=failing).click()
        page.get_by_test_id("trace").first.wait_for()
        assert "exists" in page.get_by_test_id("trace").first.inner_text()
        # The exception's message is shown above the trace, on one line.
        assert page.get_by_test_id("cause").first.inner_text() == (
            f"kconnect_sdk._errors.ConnectError: task cannot start: {marker} exists"
        )
        assert page.get_by_test_id("failed-count").inner_text() == "1 of 1"
        assert page.get_by_test_id("task-state").inner_text() == "FAILED"
        marker.unlink()
        page.get_by_test_id("restart-task").click()
        page.get_by_test_id("task-state").get_by_text("RUNNING").wait_for()
        assert _state(api, failing) == ("RUNNING", ["RUNNING"])

        page.goto(f"{url}/ui/?refresh=500#/connectors/{paused}")
        page.get_by_test_id("connector-name").get_by_text(paused).wait_for()
        config_text = page.get_by_test_id("config").inner_text()
        assert "db.password" in config_text and "hunter2" not in config_text

        # The plugin catalogue and a plugin's config definition.
        page.goto(f"{url}/ui/#/plugins")
        page.get_by_role(
            "link", name="org.apache.kafka.connect.file.FileStreamSourceConnector"
        ).click()
        page.get_by_test_id("definition-row").first.wait_for()
        keys = [c.split("\t")[0] for c in page.get_by_test_id("definition-row").all_inner_texts()]
        assert "file" in keys and "topic" in keys
        assert errors == []
    finally:
        context.close()


def test_console_at_800_px_shows_a_failed_task_and_offsets(
    worker: tuple[str, Path], api: httpx.Client, browser: Any
) -> None:
    url, tmp = worker
    running, failing = _name("shown"), _name("broken")
    data = tmp / f"{running}.txt"
    data.write_text("".join(f"line {i}\n" for i in range(50)))
    config = file_source(running, data, _name("topic"))
    assert api.put(f"/connectors/{running}/config", json=config).status_code == 201
    marker = tmp / f"{failing}.marker"
    marker.touch()
    config = {
        "name": failing,
        "connector.class": "test_ui_console:MarkerFailingConnector",
        "fail.marker": str(marker),
    }
    assert api.put(f"/connectors/{failing}/config", json=config).status_code == 201
    wait_for(lambda: _state(api, failing)[1] == ["FAILED"], 30, "failed task")
    wait_for(
        lambda: bool(api.get(f"/connectors/{running}/offsets").json()["offsets"]),
        30,
        "the source's first committed offset",
    )

    context = browser.new_context(
        http_credentials={"username": USER, "password": PASSWORD},
        viewport={"width": 800, "height": 900},
    )
    try:
        page = context.new_page()
        page.goto(f"{url}/ui/?refresh=500")
        page.locator(f'tr[data-connector="{failing}"]').get_by_test_id("failed-tasks").wait_for()
        # Nothing runs off the side of an 800 px window (wide tables scroll in their box).
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
        shot = tmp / "console-800px-failed-task.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        print(f"\nconsole screenshot: {shot}")

        page.goto(f"{url}/ui/?refresh=500#/connectors/{failing}")
        page.get_by_test_id("cause").wait_for()
        assert "task cannot start" in page.get_by_test_id("cause").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
        page.screenshot(path=str(tmp / "console-800px-failed-connector.png"), full_page=True)

        # A running source: its committed offsets, its totals and a chart with axes and units.
        page.goto(f"{url}/ui/?refresh=500#/connectors/{running}")
        page.get_by_test_id("offset-row").first.wait_for()
        assert str(data) in page.get_by_test_id("offsets").inner_text()
        page.get_by_test_id("chart").wait_for(timeout=30_000)
        assert page.get_by_test_id("chart-unit").text_content() == "records/s"
        page.wait_for_function(
            "() => /^[0-9]/.test(document.querySelector('[data-testid=total]')?.textContent || '')"
        )
    finally:
        context.close()


def test_console_is_behind_basic_auth(worker: tuple[str, Path], browser: Any) -> None:
    context = browser.new_context()
    try:
        # Without credentials the page is refused with the challenge that makes browsers ask.
        response = context.request.get(f"{worker[0]}/ui/")
        assert response.status == 401
        assert response.headers["www-authenticate"].startswith("Basic")
    finally:
        context.close()


def test_cors_follows_access_control_keys(worker: tuple[str, Path]) -> None:
    url = worker[0]
    preflight = httpx.options(
        f"{url}/connectors",
        headers={
            "Origin": ALLOWED_ORIGIN,
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert preflight.status_code == 200  # answered before basic auth: browsers send none
    assert preflight.headers["access-control-allow-origin"] == ALLOWED_ORIGIN
    assert set(preflight.headers["access-control-allow-methods"].split(", ")) == {
        "GET",
        "POST",
        "PUT",
        "DELETE",
    }
    refused = httpx.options(
        f"{url}/connectors",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "GET"},
    )
    assert "access-control-allow-origin" not in refused.headers
    actual = httpx.get(
        f"{url}/connectors", headers={"Origin": ALLOWED_ORIGIN}, auth=(USER, PASSWORD)
    )
    assert actual.status_code == 200
    assert actual.headers["access-control-allow-origin"] == ALLOWED_ORIGIN


def test_no_cors_headers_without_the_keys(kafka: str, tmp_path: Path) -> None:
    app = Standalone(base_worker_props(tmp_path, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    try:
        assert app.rest is not None
        answer = httpx.get(f"{app.rest.url}/connectors", headers={"Origin": ALLOWED_ORIGIN})
        assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers
        page = httpx.get(f"{app.rest.url}/ui/")
        assert page.status_code == 200 and "kconnect console" in page.text
    finally:
        app.stop()
