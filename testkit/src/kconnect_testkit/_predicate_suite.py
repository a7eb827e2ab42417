"""PredicateSuite: the conformance checks every predicate must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConnectRecord,
    PluginKind,
    Predicate,
)

from . import _support
from ._converter_suite import TOPIC
from ._doubles import RecordFactory
from ._record_plugin_suite import _RecordPluginSuite
from ._scenario import Scenario

__all__ = ["PredicateSuite"]


class PredicateSuite(_RecordPluginSuite):
    """Conformance of a predicate. Scenario fields used: ``config``, ``records()``, ``bad_config``."""

    kind = PluginKind.PREDICATE

    def call(self, plugin: Any, record: ConnectRecord) -> Any:
        predicate: Predicate[Any] = plugin
        return predicate.test(record)

    def test_returns_bool(self, scenario: Scenario, tmp_path: Path) -> None:
        predicate = self.configured(self.scenario_config(scenario, tmp_path))
        for i, record in enumerate(
            [*self.sample_records(scenario), RecordFactory(TOPIC).tombstone()]
        ):
            result = predicate.test(record)
            if not isinstance(result, bool):
                _support.fail(f"test() returned {result!r} for record #{i}; it must return a bool")
