"""Each compiled module declares the kconnect_sdk layout it was built for, and the SDK's
loader takes it: a module of another layout would be refused (see sdk/tests/test_speedups)."""

from __future__ import annotations

import pytest
from kconnect_sdk import LAYOUT_VERSION, optional_speedups


@pytest.mark.parametrize("name", ["kconnect_speedups._json", "kconnect_speedups._mysql"])
def test_built_for_the_sdk_layout_and_loaded(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KCONNECT_SPEEDUPS", raising=False)
    module = optional_speedups(name)
    assert module is not None
    assert module.LAYOUT_VERSION == LAYOUT_VERSION
