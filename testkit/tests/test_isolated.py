"""Isolated mode (``--kc-isolated``): plugins installed in a plugin location of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEQUENCE = ROOT / "examples" / "sequence"
BROKEN_DIST = Path(__file__).parent / "plugins" / "broken_dist"


@pytest.mark.integration
def test_isolated_mode_passes_the_example_plugin_out_of_process(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_suite=f"""
from kconnect_testkit import Scenario, SinkConnectorSuite, SourceConnectorSuite

class TestSequence(SourceConnectorSuite):
    plugin = "kconnect_example_sequence.SequenceSourceConnector"
    isolated_source = {str(SEQUENCE)!r}
    scenarios = [Scenario(id="nine", config={{"topic": "n", "count": "9", "batch.size": "4"}},
                          expected_records=9)]

class TestJsonLines(SinkConnectorSuite):
    plugin = "kconnect_example_sequence.JsonLinesSinkConnector"
    isolated_source = {str(SEQUENCE)!r}
    scenarios = [Scenario(id="jsonl", config={{"file": "{{tmp_path}}/out.jsonl"}},
                          read_output="read_lines")]

    def read_lines(self, tmp_path):
        import json
        path = tmp_path / "out.jsonl"
        return [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []
"""
    )
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-q",
        "--kc-isolated",
        "-k",
        "entry_point or import_has or restart or pre_commit_reports or rebalance",
    )
    # The example is not installed here: it can only pass from its plugin location.
    result.assert_outcomes(passed=7)


@pytest.mark.integration
def test_isolated_mode_reports_a_dying_plugin_host(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_suite=f"""
from kconnect_testkit import Scenario, SinkConnectorSuite

class TestDying(SinkConnectorSuite):
    plugin = "kc_testkit_broken_dist.DyingSink"
    isolated_source = {str(BROKEN_DIST)!r}
    scenarios = [Scenario(id="lines", config={{"file": "{{tmp_path}}/out.txt"}},
                          read_output="lines")]

    def lines(self, tmp_path):
        path = tmp_path / "out.txt"
        return path.read_text().splitlines() if path.exists() else []
"""
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-q", "--kc-isolated", "-k", "pre_commit_reports"
    )
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert (
        "in its plugin host process: plugin kc-conformance (kc_testkit_broken_dist.DyingSink)"
        in (output)
    ), output
    assert "plugin host exited (code 3) during 'pre_commit'" in output, output
    assert "dying-sink: cannot reach the external system, exiting" in output, output


@pytest.mark.integration
def test_isolated_mode_finds_mutation_in_the_plugins_interpreter(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_suite=f"""
from kconnect_testkit import Scenario, TransformSuite

class TestMutating(TransformSuite):
    plugin = "kc_testkit_broken_dist.MutatingTransform"
    isolated_source = {str(BROKEN_DIST)!r}
    scenarios = [Scenario(id="samples")]
"""
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-q", "--kc-isolated", "-k", "not_mutated or apply_batch"
    )
    # The copies the runtime's proxy sends cannot show the mutation; the plugin's own
    # interpreter does.
    result.assert_outcomes(passed=1, failed=1)
    assert "MutatingTransform mutated its input record #0" in result.stdout.str()


@pytest.mark.integration
def test_isolated_mode_names_the_failing_poll_once_for_all_its_checks(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_suite=f"""
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestRaising(SourceConnectorSuite):
    plugin = "kc_testkit_broken_dist.RaisingPollSource"
    isolated_source = {str(BROKEN_DIST)!r}
    scenarios = [Scenario(id="six", config={{"topic": "t"}}, expected_records=6)]

class TestStuck(SourceConnectorSuite):
    plugin = "kc_testkit_broken_dist.StuckPollSource"
    isolated_source = {str(BROKEN_DIST)!r}
    poll_timeout_s = 1.0
    stop_timeout_s = 1.0
    scenarios = [Scenario(id="six", config={{"topic": "t"}}, expected_records=6)]
"""
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-q", "--kc-isolated", "-k", "schemas or restart or plain_data"
    )
    result.assert_outcomes(failed=6)
    output = result.stdout.str()
    summary = output[output.index("kconnect-testkit: failures by cause") :]
    # The plugin's own exception, raised in the plugin host, said once for its three checks.
    raised = (
        "poll() raised RuntimeError: source unreachable: connection refused (in its plugin "
        "host process)"
    )
    assert f"3 checks failed for one cause: {raised}\n" in summary, summary
    # A poll() that never returns makes the proxy's stop() wait for it: the check still
    # blames poll(), and says that stopping failed as a consequence.
    hung = "poll() did not return within 1 s; it must not block on the external system"
    assert f"3 checks failed for one cause: {hung}" in summary, summary
    assert (
        f"{hung} (use timeouts, and make stop() wake any blocked call)\n(stopping the tasks "
        "afterwards failed too: task stop() did not return within 1 s"
    ) in output, output
