"""What the transform and predicate suites share."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kconnect_sdk import (
    ConfigError,
    ConnectRecord,
    DataError,
)

from . import _isolated, _support
from ._base import PluginPackageSuite
from ._converter_suite import TOPIC
from ._doubles import RecordFactory
from ._scenario import Scenario, render

__all__ = []


class _RecordPluginSuite(PluginPackageSuite):
    def configured(self, config: Mapping[str, str]) -> Any:
        plugin = self.new_plugin()
        plugin.configure(config)
        return plugin

    def sample_records(self, scenario: Scenario) -> list[ConnectRecord]:
        if scenario.records is not None:
            return list(self.run_hook(scenario.records, "records"))
        return list(RecordFactory(TOPIC).samples())

    def test_invalid_config_rejected(self, scenario: Scenario, tmp_path: Path) -> None:
        if scenario.bad_config is None:
            _support.fail(
                f"scenario {scenario.id!r} declares no bad_config; give a config the plugin must "
                "refuse, or waive test_invalid_config_rejected with a reason"
            )
        bad = render(scenario.bad_config, tmp_path)
        try:
            self.configured(bad)
        except ConfigError:
            return
        except Exception as exc:
            _support.fail(
                f"configure({bad!r}) raised {type(exc).__name__}: {exc}; an invalid config must "
                "raise kconnect_sdk.ConfigError naming the key"
            )
        _support.fail(f"configure({bad!r}) accepted an invalid config; it must raise ConfigError")

    def test_input_not_mutated(self, scenario: Scenario, tmp_path: Path) -> None:
        config = self.scenario_config(scenario, tmp_path)
        isolated = self.isolated_plugin()
        if isolated is not None:
            # Across the process boundary the plugin only ever sees copies, so the check
            # runs where the plugin does: in its location's interpreter.
            self.plugin_class()  # fails with the registry's reason when it cannot load
            try:
                found = _isolated.mutation_in_location(
                    isolated, self.kind.value, config, self.sample_records(scenario)
                )
            except _isolated.IsolationError as exc:
                _support.fail(str(exc))
            if found:
                _support.fail(
                    f"{self.plugin_label()} mutated its input record #{found['index']}: before "
                    f"{found['before'][:300]} after {found['after'][:300]}; build a new record "
                    "with record.new_record(...) and copy values instead of changing them in place"
                )
            return
        plugin = self.configured(config)
        for i, record in enumerate(self.sample_records(scenario)):
            before = _support.snapshot(record)
            # Refusing a record is allowed; changing it is not.
            with contextlib.suppress(DataError, ConfigError):
                self.call(plugin, record)
            after = _support.snapshot(record)
            if after != before:
                _support.fail(
                    f"{self.plugin_label()} mutated its input record #{i}: before {before[:300]} "
                    f"after {after[:300]}; build a new record with record.new_record(...) and copy "
                    "values instead of changing them in place"
                )

    def test_deterministic_output(self, scenario: Scenario, tmp_path: Path) -> None:
        config = self.scenario_config(scenario, tmp_path)
        first, second = self.configured(config), self.configured(config)
        for i, record in enumerate(self.sample_records(scenario)):
            a, b = self.outcome(first, record), self.outcome(second, record)
            if a != b:
                _support.fail(
                    f"two instances with the same config disagree on record #{i}: {a[:200]} vs {b[:200]}"
                )

    def call(self, plugin: Any, record: ConnectRecord) -> Any:
        raise NotImplementedError

    def outcome(self, plugin: Any, record: ConnectRecord) -> str:
        try:
            result = self.call(plugin, record)
        except (DataError, ConfigError) as exc:
            return f"raised {type(exc).__name__}"
        return (
            result
            if isinstance(result, str)
            else _support.snapshot(result)
            if result is None or isinstance(result, ConnectRecord)
            else repr(result)
        )
