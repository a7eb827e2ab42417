"""Every test of this folder runs twice: with the compiled fast paths of kconnect-speedups
(a dev dependency of the workspace, so its import must work here) and with the pure-Python
code alone, the fallback when the package is absent or ``KCONNECT_SPEEDUPS=0``."""

from __future__ import annotations

import pytest
from kconnect_converter_json import _codec
from kconnect_speedups import _json as compiled


@pytest.fixture(params=["compiled", "pure"], autouse=True)
def speedups(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The path under test: ``_codec.SPEEDUPS`` set to the C module or to None."""
    monkeypatch.setattr(_codec, "SPEEDUPS", compiled if request.param == "compiled" else None)
    return request.param
