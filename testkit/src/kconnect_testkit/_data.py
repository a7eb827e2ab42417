"""ConverterSuite, TransformSuite and PredicateSuite: the record-level plugins."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from kconnect_runtime import PluginKind
from kconnect_sdk import (
    ConfigError,
    ConnectRecord,
    Converter,
    DataError,
    Predicate,
    SchemaAndValue,
    Transformation,
    validate_value,
)

from . import _isolated, _support
from ._base import PluginPackageSuite
from ._corpus import CORPUS, CorpusCase, values_for
from ._doubles import RecordFactory
from ._scenario import Scenario, render

__all__ = ["ConverterSuite", "PredicateSuite", "TransformSuite"]

TOPIC = "kc-test"


class ConverterSuite(PluginPackageSuite):
    """Conformance of a (key/value) converter.

    Scenario fields used: ``config`` (passed to ``configure``) and ``corpus`` (names of
    :data:`kconnect_testkit.CORPUS` cases the converter round-trips; default all).
    """

    kind = PluginKind.CONVERTER
    generated_examples: ClassVar[int] = 30
    """Hypothesis examples per corpus case (four times as many under ``strict``)."""

    def converter(self, scenario: Scenario, tmp_path: Path, *, is_key: bool) -> Converter:
        converter: Converter = self.new_plugin()
        converter.configure(self.scenario_config(scenario, tmp_path), is_key)
        return converter

    def cases(self, scenario: Scenario) -> list[CorpusCase]:
        names = scenario.corpus if scenario.corpus is not None else tuple(CORPUS)
        unknown = [n for n in names if n not in CORPUS]
        if unknown:
            _support.fail(
                f"scenario {scenario.id!r} names unknown corpus cases {unknown}; known: {sorted(CORPUS)}"
            )
        return [CORPUS[n] for n in names]

    def round_trip(
        self, converter: Converter, schema: Any, value: Any
    ) -> tuple[bytes | None, SchemaAndValue]:
        data = converter.from_connect_data(TOPIC, schema, value)
        if data is not None and not isinstance(data, bytes):
            _support.fail(f"from_connect_data returned {type(data).__name__}, not bytes or None")
        return data, converter.to_connect_data(TOPIC, data)

    @pytest.mark.parametrize("is_key", [False, True], ids=["value", "key"])
    def test_round_trip_corpus(self, scenario: Scenario, tmp_path: Path, is_key: bool) -> None:
        converter = self.converter(scenario, tmp_path, is_key=is_key)
        problems = []
        for case in self.cases(scenario):
            try:
                data, back = self.round_trip(converter, case.schema, case.value)
            except DataError as exc:
                problems.append(f"{case.name}: {exc}")
                continue
            if case.schema is None and case.value is None and data is not None:
                problems.append(f"{case.name}: a tombstone became {data!r} instead of None")
            elif back.value != case.value:
                problems.append(f"{case.name}: {case.value!r} came back as {back.value!r}")
            else:
                try:
                    validate_value(back.schema, back.value)
                except DataError as exc:
                    problems.append(
                        f"{case.name}: the value read back does not fit its schema: {exc}"
                    )
        if problems:
            _support.fail("round trip failed for corpus cases: " + "; ".join(problems))

    def test_round_trip_generated(
        self, scenario: Scenario, tmp_path: Path, request: pytest.FixtureRequest
    ) -> None:
        converter = self.converter(scenario, tmp_path, is_key=False)
        strict = (
            request.config.getoption("kc_strictness", None) == "strict"
            or self.strictness == "strict"
        )
        examples = self.generated_examples * (4 if strict else 1)
        for case in self.cases(scenario):
            if case.schema is None:
                continue
            strategy = values_for(case.schema)
            if strategy is None:
                continue
            self._check_generated(converter, case, strategy, examples)

    def _check_generated(
        self, converter: Converter, case: CorpusCase, strategy: Any, examples: int
    ) -> None:
        schema = case.schema
        assert schema is not None

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(strategy)
        def check(value: Any) -> None:
            _data, back = self.round_trip(converter, schema, value)
            assert back.value == value, (
                f"generated {schema.type.value} value (like corpus case {case.name!r}) "
                f"{value!r} came back as {back.value!r}"
            )

        check()

    def test_null_is_tombstone(self, scenario: Scenario, tmp_path: Path) -> None:
        converter = self.converter(scenario, tmp_path, is_key=False)
        data = converter.from_connect_data(TOPIC, None, None)
        if data is not None:
            _support.fail(
                f"from_connect_data(None) returned {data!r}; a null value must become a tombstone (None)"
            )
        back = converter.to_connect_data(TOPIC, None)
        if back.value is not None:
            _support.fail(
                f"to_connect_data(None) returned {back.value!r}; a tombstone must read as None"
            )

    def test_batch_matches_single(self, scenario: Scenario, tmp_path: Path) -> None:
        converter = self.converter(scenario, tmp_path, is_key=False)
        items = [(TOPIC, c.schema, c.value) for c in self.cases(scenario)]
        single = [converter.from_connect_data(t, s, v) for t, s, v in items]
        if converter.from_connect_batch(items) != single:
            _support.fail("from_connect_batch differs from from_connect_data record by record")
        datas = [(TOPIC, d) for d in single]
        if [sv.value for sv in converter.to_connect_batch(datas)] != [
            converter.to_connect_data(t, d).value for t, d in datas
        ]:
            _support.fail("to_connect_batch differs from to_connect_data record by record")


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
