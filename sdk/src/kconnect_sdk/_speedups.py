"""A plugin's optional compiled fast path, loaded the one way every package does."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["optional_speedups"]

SPEEDUPS_ENV = "KCONNECT_SPEEDUPS"


def optional_speedups(module: str) -> ModuleType | None:
    """The compiled module ``module`` (e.g. ``"kconnect_speedups._json"``), or None.

    None when it is not installed or when the environment variable ``KCONNECT_SPEEDUPS``
    is ``0``; the caller then runs its pure-Python code, which must give the same results.
    """
    if os.environ.get(SPEEDUPS_ENV, "").strip() == "0":
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
