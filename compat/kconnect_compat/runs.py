"""Which seeds a session runs, and how many cases each: the suite's one knob set.

``KC_COMPAT_SEED`` and ``KC_COMPAT_CASES`` pick the main run (default seed 20250101, 400
cases per component group). Unless a seed is chosen, a second, smaller run on another
seed follows (``KC_COMPAT_EXTRA_SEED``, default 7, at ``KC_COMPAT_EXTRA_CASES``, default
100): other generated inputs on every run for a few seconds more. An empty
``KC_COMPAT_EXTRA_SEED`` leaves it out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["DEFAULT_SEED", "Run", "runs"]

DEFAULT_SEED = 20250101


@dataclass(frozen=True)
class Run:
    """One seed and the number of cases per component group generated from it."""

    seed: int
    cases: int

    def __str__(self) -> str:
        return f"seed{self.seed}x{self.cases}"


def runs() -> list[Run]:
    """The runs of this session, the main one first."""
    chosen = os.environ.get("KC_COMPAT_SEED")
    found = [Run(int(chosen or DEFAULT_SEED), int(os.environ.get("KC_COMPAT_CASES", "400")))]
    extra = os.environ.get("KC_COMPAT_EXTRA_SEED", "7")
    if chosen is None and extra:
        found.append(Run(int(extra), int(os.environ.get("KC_COMPAT_EXTRA_CASES", "100"))))
    return found
