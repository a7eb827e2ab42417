"""Run a batch of cases on both sides, compare, and keep the per-component counts."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .cases import Case
from .compare import Difference, compare
from .intended import Intended
from .java import JavaHarness
from .python import run_case

__all__ = ["ComponentStats", "Differential", "Outcome"]

# How many unexplained differences of each component a failure shows (KC_COMPAT_SHOW
# raises it when chasing every difference of a new seed).
SHOWN_PER_COMPONENT = int(os.environ.get("KC_COMPAT_SHOW", "4"))


@dataclass
class ComponentStats:
    """What one component's cases came to over the session."""

    compared: int = 0
    both_failed: int = 0
    differing: int = 0
    intended: int = 0
    known: int = 0
    by_intent: dict[str, int] = field(default_factory=dict)


@dataclass
class Outcome:
    """One batch's differences: those the intended list covers and those it does not."""

    compared: int
    unexplained: list[Difference]
    intended: list[tuple[Difference, Intended]]

    def report(self) -> str:
        """The first few unexplained differences of each component, readably."""
        lines: list[str] = []
        shown: dict[str, int] = {}
        for difference in self.unexplained:
            component = difference.case.component
            shown[component] = shown.get(component, 0) + 1
            if shown[component] <= SHOWN_PER_COMPONENT:
                lines.append(difference.render())
        counts = ", ".join(f"{c}: {n}" for c, n in sorted(shown.items()))
        header = (
            f"{len(self.unexplained)} of {self.compared} cases differ from Apache Kafka and are "
            f"not in compat/intended-differences.toml ({counts}); the first of each:"
        )
        return "\n".join([header, *lines])


class Differential:
    """Runs cases through the Java harness and kconnect; keeps a session-wide tally."""

    def __init__(self, harness: JavaHarness, intended: Sequence[Intended]) -> None:
        self.harness = harness
        self.intended = list(intended)
        self.stats: dict[str, ComponentStats] = {}
        self.used: set[str] = set()

    def run(self, cases: Iterable[Case]) -> Outcome:
        batch = list(cases)
        for i, case in enumerate(batch):
            case.ident = i
        java_results = self.harness.run([case.to_java() for case in batch])
        unexplained: list[Difference] = []
        intended: list[tuple[Difference, Intended]] = []
        for case, java in zip(batch, java_results, strict=True):
            python = run_case(case)
            stats = self.stats.setdefault(case.component, ComponentStats())
            stats.compared += 1
            if "error" in java and "error" in python:
                stats.both_failed += 1
            difference = compare(case, java, python)
            if difference is None:
                continue
            stats.differing += 1
            why = next((i for i in self.intended if i.covers(difference)), None)
            if why is None:
                unexplained.append(difference)
                continue
            if why.status == "known":
                stats.known += 1
            else:
                stats.intended += 1
            stats.by_intent[why.name] = stats.by_intent.get(why.name, 0) + 1
            self.used.add(why.name)
            intended.append((difference, why))
        return Outcome(len(batch), unexplained, intended)

    def summary(self) -> list[str]:
        """The per-component table printed at the end of the session."""
        if not self.stats:
            return []
        width = max(len(c) for c in self.stats)
        header = "compared  differing  intended  known  unlisted  (both failed)"
        lines = [f"{'component':<{width}}  {header}"]
        total = ComponentStats()
        for component in sorted(self.stats):
            s = self.stats[component]
            lines.append(_row(component, width, s))
            total.compared += s.compared
            total.differing += s.differing
            total.intended += s.intended
            total.known += s.known
            total.both_failed += s.both_failed
        lines.append(_row("total", width, total))
        counts: dict[str, int] = {}
        for s in self.stats.values():
            for name, n in s.by_intent.items():
                counts[name] = counts.get(name, 0) + n
        for entry in self.intended:
            if entry.name in counts:
                lines.append(f"  {entry.status} {entry.name}: {counts[entry.name]}")
        unused = [e.name for e in self.intended if e.name not in counts]
        if unused:
            lines.append(f"  listed but not seen this run: {', '.join(unused)}")
        return lines


def _row(name: str, width: int, s: ComponentStats) -> str:
    unlisted = s.differing - s.intended - s.known
    return (
        f"{name:<{width}}  {s.compared:>8}  {s.differing:>9}  {s.intended:>8}  {s.known:>5}  "
        f"{unlisted:>8}  ({s.both_failed})"
    )
