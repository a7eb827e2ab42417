"""The differences from Apache Kafka Connect that kconnect keeps on purpose.

They are listed in ``compat/intended-differences.toml``, each with the package it concerns
and the reason; the same reasons are in that package's README. A difference the list does
not cover fails the suite.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .compare import Difference

__all__ = ["INTENDED_FILE", "Intended", "load_intended"]

INTENDED_FILE = Path(__file__).resolve().parents[1] / "intended-differences.toml"


@dataclass(frozen=True)
class Intended:
    """One listed difference: which component, which kind, what its summary looks like."""

    name: str
    status: str  # "intended" (on purpose) or "known" (not fixed yet)
    component: re.Pattern[str]
    kinds: frozenset[str]
    match: re.Pattern[str]
    package: str
    reason: str

    def covers(self, difference: Difference) -> bool:
        return (
            self.component.search(difference.case.component) is not None
            and (not self.kinds or difference.kind in self.kinds)
            and self.match.search(difference.summary()) is not None
        )


def load_intended(path: Path = INTENDED_FILE) -> list[Intended]:
    """The listed differences; a malformed entry is an error naming it."""
    data = tomllib.loads(path.read_text("utf-8"))
    found: list[Intended] = []
    for i, entry in enumerate(data.get("difference", [])):
        name = entry.get("name", f"entry {i}")
        missing = {"name", "component", "match", "package", "reason"} - entry.keys()
        if missing:
            raise ValueError(f"{path}: difference {name!r} lacks {sorted(missing)}")
        kinds = entry.get("kind", [])
        status = entry.get("status", "intended")
        if status not in ("intended", "known"):
            raise ValueError(f"{path}: difference {name!r}: status must be intended or known")
        found.append(
            Intended(
                name=name,
                status=status,
                component=re.compile(entry["component"]),
                kinds=frozenset([kinds] if isinstance(kinds, str) else kinds),
                match=re.compile(entry["match"], re.DOTALL),
                package=entry["package"],
                reason=" ".join(entry["reason"].split()),
            )
        )
    return found
