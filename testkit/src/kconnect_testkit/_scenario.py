"""Scenarios: the plain parameters a conformance suite runs its tests over."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Hook", "Scenario", "render"]

Hook = str | Callable[..., Any] | None
"""A scenario hook: the name of a method on the suite class, a callable, or None."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """One way to exercise a plugin: a config plus hooks that seed input or read output.

    Config values may contain ``{tmp_path}``, replaced by the test's temporary directory.
    A hook is the name of a method of the suite class (``seed="seed_lines"``) or a plain
    callable; the hooks a suite calls, and their arguments, are listed in the README.

    Attributes:
        id: the scenario's name in test ids (``test_round_trip_corpus[schemas]``).
        config: the plugin's config (connector, converter, transform or predicate).
        seed: source suites: ``seed(tmp_path)`` prepares the external system's data.
        read_output: sink suites: ``read_output(tmp_path) -> list`` returns the values the
            sink made durable, in order, comparable with ``SinkRecord.value``.
        records: ``records() -> list`` of records to feed (sink, transform, predicate suites).
        bad_records: sink suites: ``bad_records() -> list`` of records the sink must hand
            to the errant record reporter instead of failing.
        inject_retriable: sink suites: ``inject_retriable(tmp_path)`` makes the next
            ``put`` fail with RetriableError (a one-shot outage).
        stall: source suites: ``stall(tmp_path)`` makes the external system hang.
        expected_records: source suites: how many records the seeded data yields for the
            whole connector, every task of the config's ``tasks.max`` together.
        deterministic: two reads of the same data give the same records (enables the
            no-duplicate check after a restart).
        bad_config: a config the plugin must refuse (transforms, predicates, converters).
        corpus: converter suites: names of the shipped corpus cases the converter
            round-trips (default: every case).
    """

    id: str
    config: Mapping[str, str] = field(default_factory=dict)
    seed: Hook = None
    read_output: Hook = None
    records: Hook = None
    bad_records: Hook = None
    inject_retriable: Hook = None
    stall: Hook = None
    expected_records: int | None = None
    deterministic: bool = True
    bad_config: Mapping[str, Any] | None = None
    corpus: tuple[str, ...] | None = None

    def render_config(self, tmp_path: Path) -> dict[str, Any]:
        """The config with ``{tmp_path}`` replaced."""
        return render(self.config, tmp_path)

    def __str__(self) -> str:
        return self.id


def render(config: Mapping[str, Any], tmp_path: Path) -> dict[str, Any]:
    """``config`` with ``{tmp_path}`` replaced in its string values (others are kept as given)."""
    return {
        k: v.replace("{tmp_path}", str(tmp_path)) if isinstance(v, str) else v
        for k, v in config.items()
    }
