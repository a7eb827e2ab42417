"""The suites fail deliberately broken plugins, each with a specific, readable message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

PLUGINS = Path(__file__).parent / "plugins"


@pytest.fixture
def run_suite(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., pytest.RunResult]:
    pytester.syspathinsert(PLUGINS)
    monkeypatch.setenv("PYTHONPATH", str(PLUGINS))

    def run(source: str, *args: str, subprocess: bool = False) -> pytest.RunResult:
        pytester.makepyfile(test_suite=source)
        if subprocess:
            return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", *args)
        return pytester.runpytest("-p", "no:cacheprovider", "-q", *args)

    return run


def assert_message(result: pytest.RunResult, message: str) -> None:
    output = result.stdout.str()
    assert message in output, f"expected {message!r} in:\n{output}"


def test_mutating_transform_fails_input_not_mutated(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import Scenario, TransformSuite

class TestMutating(TransformSuite):
    plugin = "broken_mutating:MutatingTransform"
    scenarios = [Scenario(id="samples")]
""",
        "-k",
        "test_input_not_mutated",
    )
    result.assert_outcomes(failed=1)
    assert_message(result, "MutatingTransform mutated its input record #0")


def test_source_with_wrong_offsets_fails_restart(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestWrongOffsets(SourceConnectorSuite):
    plugin = "broken_sources:WrongOffsetsSource"
    scenarios = [Scenario(id="six", config={"topic": "t"}, expected_records=6)]
""",
        "-k",
        "test_restart_from_committed_offsets or test_offsets_are_plain_data",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert_message(
        result,
        "restarting from the committed offset of record #2 ({'next': 4}) lost ['line-3'] (a gap)",
    )


def test_plugin_without_version_fails_version_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import TransformSuite

class TestVersionless(TransformSuite):
    plugin = "broken_version:VersionlessTransform"
""",
        "-k",
        "test_version_matches_distribution",
    )
    result.assert_outcomes(failed=1)
    assert_message(
        result, "VersionlessTransform.version() returned ''; every plugin must report the version"
    )


def test_thread_on_import_fails_side_effect_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import PredicateSuite

class TestThreads(PredicateSuite):
    plugin = "broken_threads:ThreadOnImportPredicate"
""",
        "-k",
        "test_import_has_no_side_effects",
        # A subprocess: importing this plugin starts a thread, which must not leak into here.
        subprocess=True,
    )
    result.assert_outcomes(failed=1)
    assert_message(
        result,
        "importing broken_threads started threads ['broken-heartbeat']; start threads in start()",
    )


def test_raising_validate_fails_validate_check(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(
        """
from kconnect_testkit import SourceConnectorSuite

class TestValidate(SourceConnectorSuite):
    plugin = "broken_sources:RaisingValidateSource"
""",
        "-k",
        "test_validate_empty_config_never_raises",
    )
    result.assert_outcomes(failed=1)
    assert_message(
        result,
        "RaisingValidateSource validate({}) raised KeyError: 'topic'; validation must return per-key errors",
    )


def test_hanging_stop_fails_within_the_bound(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(
        """
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestHangingStop(SourceConnectorSuite):
    plugin = "broken_sources:HangingStopSource"
    stop_timeout_s = 1.0
    scenarios = [Scenario(id="six", config={"topic": "t"}, expected_records=6)]
""",
        "-k",
        "test_stop_unblocks_poll",
    )
    result.assert_outcomes(failed=1)
    assert_message(
        result, "stop() from another thread did not return within 1 s; it must not block"
    )


def test_sink_committing_buffered_data_fails_crash_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from collections.abc import Callable
from pathlib import Path
from kconnect_testkit import Scenario, SinkConnectorSuite

class TestEager(SinkConnectorSuite):
    plugin = "broken_sink:EagerCommitSink"
    scenarios = [Scenario(id="lines", config={"file": "{tmp_path}/out.txt"}, read_output="lines")]

    def lines(self, tmp_path):
        path = tmp_path / "out.txt"
        return path.read_text().splitlines() if path.exists() else []
""",
        "-k",
        "test_pre_commit_reports_only_durable_offsets",
    )
    result.assert_outcomes(failed=1)
    assert_message(
        result,
        "pre_commit reported kc-test-0 durable up to offset 5, but after a simulated crash "
        "5 of those 5 records are not in the output",
    )


def test_unknown_waiver_fails_collection(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(
        """
from kconnect_testkit import TransformSuite

class TestWaived(TransformSuite):
    plugin = "broken_version:VersionlessTransform"
    waivers = {"test_does_not_exist": "because"}
"""
    )
    assert result.ret != 0
    assert_message(
        result, "waiver 'test_does_not_exist' names no test of this suite; known tests: "
    )


def test_waiver_without_reason_fails_collection(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(
        """
from kconnect_testkit import TransformSuite

class TestWaived(TransformSuite):
    plugin = "broken_version:VersionlessTransform"
    waivers = {"test_version_matches_distribution": "  "}
"""
    )
    assert result.ret != 0
    assert_message(result, "waiver 'test_version_matches_distribution' has no reason")


WAIVED = """
from kconnect_testkit import TransformSuite

class TestWaived(TransformSuite):
    plugin = "broken_version:VersionlessTransform"
    waivers = {"test_version_matches_distribution": "versions come in the next release"}
"""


def test_waiver_skips_with_its_reason(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(WAIVED, "-rs", "-k", "test_version_matches_distribution")
    result.assert_outcomes(skipped=1)
    assert_message(result, "waived: versions come in the next release")


def test_strict_ignores_waivers(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(WAIVED, "--kc-strictness=strict", "-k", "test_version_matches_distribution")
    result.assert_outcomes(failed=1)
    assert_message(result, "VersionlessTransform.version() returned ''")


def test_isolated_mode_needs_an_installable_distribution(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(WAIVED, "--kc-isolated", "-k", "test_entry_point_resolves")
    result.assert_outcomes(failed=1)
    assert_message(
        result,
        "isolated mode: it installs the distribution that declares VersionlessTransform into a "
        "plugin location, but no installed distribution declares it",
    )


def test_sink_reporting_a_closed_partition_fails_rebalance_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import Scenario, SinkConnectorSuite

class TestClosed(SinkConnectorSuite):
    plugin = "broken_sink:ClosedPartitionSink"
    scenarios = [Scenario(id="lines", config={"file": "{tmp_path}/out.txt"}, read_output="lines")]

    def lines(self, tmp_path):
        path = tmp_path / "out.txt"
        return path.read_text().splitlines() if path.exists() else []
""",
        "-k",
        "test_rebalance_closes_partitions or test_topics_regex_config",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert_message(
        result,
        "pre_commit reported offset 2 for kc-test-1 after close() took it away (the task now has "
        "['kc-test-0', 'kc-test-2', 'kc-test-3']); a closed partition belongs to another task",
    )


ALTER_OFFSETS = """
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestAlter(SourceConnectorSuite):
    plugin = "broken_sources:{name}"
    scenarios = [Scenario(id="six", config={{"topic": "t"}}, expected_records=6)]
"""


def test_alter_offsets_accepting_garbage_fails(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(ALTER_OFFSETS.format(name="GarbageOffsetsSource"), "-k", "alter_offsets")
    result.assert_outcomes(passed=1, failed=1)
    assert_message(
        result,
        "alter_offsets returned True for the malformed offset {'list': 'lines'}: "
        "{'kc.testkit.garbage': 'not an offset of this connector'}; it must raise ConnectError",
    )


def test_alter_offsets_checks_pass_a_checking_connector_and_skip_a_silent_one(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    checked = run_suite(ALTER_OFFSETS.format(name="CheckedOffsetsSource"), "-k", "alter_offsets")
    checked.assert_outcomes(passed=2)
    silent = run_suite(ALTER_OFFSETS.format(name="WrongOffsetsSource"), "-rs", "-k", "malformed")
    silent.assert_outcomes(skipped=1)
    assert_message(silent, "WrongOffsetsSource does not check offsets: alter_offsets returns False")


def test_plugin_is_inert_without_a_suite(run_suite: Callable[..., pytest.RunResult]) -> None:
    result = run_suite(
        """
import pytest

class TestPlain:
    scenarios = ["not", "used"]

    @pytest.mark.parametrize("scenario", [1])
    def test_scenario_is_mine(self, scenario):
        assert scenario == 1
"""
    )
    result.assert_outcomes(passed=1)


@pytest.mark.usefixtures("session_kafka")
@pytest.mark.integration
def test_sink_writing_only_on_stop_fails_the_pipeline_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        """
from kconnect_testkit import Scenario, SinkConnectorSuite

class TestEager(SinkConnectorSuite):
    plugin = "broken_sink:EagerCommitSink"
    pipeline_timeout_s = 4.0
    scenarios = [Scenario(id="lines", config={"file": "{tmp_path}/out.txt"}, read_output="lines")]

    def lines(self, tmp_path):
        path = tmp_path / "out.txt"
        return path.read_text().splitlines() if path.exists() else []
""",
        "-k",
        "test_pipeline_delivers_every_record",
    )
    result.assert_outcomes(failed=1)
    assert_message(result, "on the local engine, 10 of the 10 records written to kc-pipeline-sink-")
    assert_message(result, "did not reach the sink's output within 4 s")
