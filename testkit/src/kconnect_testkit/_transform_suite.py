"""TransformSuite: the conformance checks every single message transform must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConnectRecord,
    PluginKind,
    Transformation,
)

from . import _support
from ._converter_suite import TOPIC
from ._doubles import RecordFactory
from ._record_plugin_suite import _RecordPluginSuite
from ._scenario import Scenario

__all__ = ["TransformSuite"]


class TransformSuite(_RecordPluginSuite):
    """Conformance of a single message transform.

    Scenario fields used: ``config``, ``records()`` (default: a struct record with schema,
    a schemaless map record and a tombstone), ``bad_config``.
    """

    kind = PluginKind.TRANSFORMATION

    def call(self, plugin: Any, record: ConnectRecord) -> Any:
        transform: Transformation[Any] = plugin
        return transform.apply(record)

    def test_tombstone_passes_through(self, scenario: Scenario, tmp_path: Path) -> None:
        transform = self.configured(self.scenario_config(scenario, tmp_path))
        samples = [r for r in self.sample_records(scenario) if r.value is None]
        tombstone = samples[0] if samples else RecordFactory(TOPIC).tombstone()
        try:
            result = transform.apply(tombstone)
        except Exception as exc:
            _support.fail(
                f"apply() raised {type(exc).__name__} on a tombstone: {exc}; pass tombstones through"
            )
        if result is not None and result.value is not None:
            _support.fail(
                f"apply() turned a tombstone (null value) into value {result.value!r}; "
                "a tombstone must pass through (or be dropped by returning None)"
            )

    def test_apply_batch_drops_none(self, scenario: Scenario, tmp_path: Path) -> None:
        config = self.scenario_config(scenario, tmp_path)
        records = self.sample_records(scenario)
        single = self.configured(config)
        expected = []
        for i, record in enumerate(records):
            try:
                out = single.apply(record)
            except Exception as exc:
                _support.fail(
                    f"apply() raised {type(exc).__name__} on sample record #{i}: {exc}; give the "
                    "scenario records this transform handles (records hook)"
                )
            if out is not None:
                expected.append(_support.snapshot(out))
        got = [_support.snapshot(r) for r in self.configured(config).apply_batch(records)]
        if got != expected:
            _support.fail(
                f"apply_batch returned {len(got)} records where apply() kept {len(expected)}; "
                "apply_batch must equal apply() per record with the None results dropped"
            )
