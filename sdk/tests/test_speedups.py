"""optional_speedups: a compiled module built for another layout of Structs and records is
refused (the pure-Python code runs), with one warning naming the module and both versions."""

from __future__ import annotations

import logging
import sys
from types import ModuleType

import pytest
from kconnect_sdk import LAYOUT_VERSION, optional_speedups


def _install(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: object) -> ModuleType:
    module = ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delenv("KCONNECT_SPEEDUPS", raising=False)
    return module


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_module_of_this_layout_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _install(monkeypatch, "kc_fake_speedups_same", LAYOUT_VERSION=LAYOUT_VERSION)
    assert optional_speedups("kc_fake_speedups_same") is module


def test_a_module_of_another_layout_is_refused_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _install(monkeypatch, "kc_fake_speedups_other", LAYOUT_VERSION=LAYOUT_VERSION + 1)
    with caplog.at_level(logging.WARNING, logger="kconnect_sdk"):
        assert optional_speedups("kc_fake_speedups_other") is None
        assert optional_speedups("kc_fake_speedups_other") is None
    (message,) = _warnings(caplog)
    assert "kc_fake_speedups_other" in message
    assert f"layout version {LAYOUT_VERSION + 1} " in message
    assert f"kconnect-sdk has version {LAYOUT_VERSION}" in message


def test_a_module_declaring_no_layout_is_refused(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _install(monkeypatch, "kc_fake_speedups_unversioned")
    with caplog.at_level(logging.WARNING, logger="kconnect_sdk"):
        assert optional_speedups("kc_fake_speedups_unversioned") is None
    (message,) = _warnings(caplog)
    assert "kc_fake_speedups_unversioned" in message and "(none declared)" in message
    assert f"kconnect-sdk has version {LAYOUT_VERSION}" in message


def test_a_module_that_reads_no_structs_loads_without_a_layout(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    module = _install(monkeypatch, "kc_fake_speedups_layout_free")
    with caplog.at_level(logging.WARNING, logger="kconnect_sdk"):
        assert optional_speedups("kc_fake_speedups_layout_free", reads_layout=False) is module
    assert _warnings(caplog) == []


def test_turned_off_by_the_environment_before_any_check(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _install(monkeypatch, "kc_fake_speedups_off")
    monkeypatch.setenv("KCONNECT_SPEEDUPS", "0")
    with caplog.at_level(logging.WARNING, logger="kconnect_sdk"):
        assert optional_speedups("kc_fake_speedups_off") is None
    assert _warnings(caplog) == []
