"""Issue 21, safe defaults: REST on loopback unless told otherwise, and a warning when open."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from kconnect_runtime.modes import _standalone
from runtime_harness import standalone, worker_props

pytestmark = pytest.mark.integration

OPEN_WARNING = "without authentication"


def _props(tmp: Path, kafka: str, **extra: str) -> dict[str, str]:
    props = worker_props(tmp, kafka, **extra)
    if "listeners" not in extra:
        del props["listeners"]  # unset, not empty (empty disables the REST API)
    return props


def test_default_listener_is_loopback_port_8083() -> None:
    assert _standalone.DEFAULT_LISTENER == "http://127.0.0.1:8083"


def test_unset_listeners_serve_loopback_only_and_say_so(
    tmp_path: Path, kafka: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Port 0 rather than 8083 so that the test never collides with a worker already running.
    monkeypatch.setattr(_standalone, "DEFAULT_LISTENER", "http://127.0.0.1:0")
    with (
        caplog.at_level(logging.INFO, logger="kconnect"),
        standalone(_props(tmp_path, kafka)) as app,
    ):
        assert app.rest is not None
        assert app.rest.host == "127.0.0.1"
        assert httpx.get(f"{app.rest.url}/health").status_code == 200
    assert "loopback only" in caplog.text
    assert OPEN_WARNING not in caplog.text


def test_open_listener_without_auth_warns_naming_the_file_connectors(
    tmp_path: Path, kafka: str, caplog: pytest.LogCaptureFixture
) -> None:
    props = _props(tmp_path, kafka, listeners="http://0.0.0.0:0")
    with caplog.at_level(logging.WARNING, logger="kconnect"), standalone(props):
        pass
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    open_warning = next(m for m in warnings if OPEN_WARNING in m)
    assert "FileStreamSource" in open_warning and "any file" in open_warning
    assert "rest.basic.auth.user.file" in open_warning


def test_open_listener_with_basic_auth_does_not_warn(
    tmp_path: Path, kafka: str, caplog: pytest.LogCaptureFixture
) -> None:
    users = tmp_path / "users.properties"
    users.write_text("admin: s3cret,admin\n", encoding="utf-8")
    props = _props(
        tmp_path,
        kafka,
        listeners="http://0.0.0.0:0",
        **{"rest.basic.auth.user.file": str(users)},
    )
    with caplog.at_level(logging.WARNING, logger="kconnect"), standalone(props):
        pass
    assert OPEN_WARNING not in caplog.text
