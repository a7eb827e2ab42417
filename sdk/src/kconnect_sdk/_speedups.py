"""A plugin's optional compiled fast path, loaded the one way every package does."""

from __future__ import annotations

import importlib
import logging
import os
from types import ModuleType

from ._construct import LAYOUT_VERSION

__all__ = ["optional_speedups"]

SPEEDUPS_ENV = "KCONNECT_SPEEDUPS"

log = logging.getLogger(__name__)

# The modules refused for their layout, so that each is named in the log once per process.
_refused: set[str] = set()


def optional_speedups(module: str, *, reads_layout: bool = True) -> ModuleType | None:
    """The compiled module ``module`` (e.g. ``"kconnect_speedups._json"``), or None.

    None when it is not installed, when the environment variable ``KCONNECT_SPEEDUPS`` is
    ``0``, or, unless ``reads_layout`` is false (a module that neither builds nor reads
    Structs and records), when the module was built for another layout of them than this
    SDK's (its ``LAYOUT_VERSION`` differs from :data:`LAYOUT_VERSION`, or it declares none):
    compiled code that builds or reads them in a layout the SDK no longer has would make
    broken objects, so a warning names the module and both versions, once. The caller then
    runs its pure-Python code, which must give the same results.
    """
    if os.environ.get(SPEEDUPS_ENV, "").strip() == "0":
        return None
    try:
        loaded = importlib.import_module(module)
    except ImportError:
        return None
    if not reads_layout:
        return loaded
    built_for = getattr(loaded, "LAYOUT_VERSION", None)
    if built_for != LAYOUT_VERSION:
        if module not in _refused:
            _refused.add(module)
            log.warning(
                "compiled module %s was built for layout version %s of Structs and records, "
                "kconnect-sdk has version %d: running the pure-Python code instead; install "
                "the kconnect-speedups release that matches this kconnect-sdk",
                module,
                "(none declared)" if built_for is None else built_for,
                LAYOUT_VERSION,
            )
        return None
    return loaded
