"""ConverterSuite: the conformance checks every converter must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from kconnect_sdk import (
    Converter,
    DataError,
    PluginKind,
    SchemaAndValue,
    validate_value,
)

from . import _support
from ._base import PluginPackageSuite
from ._corpus import CORPUS, CorpusCase, values_for
from ._scenario import Scenario

__all__ = ["ConverterSuite"]


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
