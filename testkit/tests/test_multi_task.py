"""Sources with several tasks: the suite runs them as a worker would for the scenario's
tasks.max, and ``expected_records`` counts the records of the whole connector.

``plugins/multi_task_dist`` is a correct source that splits its data set over its tasks
(one source partition per task, ten lines each) and the same source with an offset bug
planted in its third task.
"""

from __future__ import annotations

import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from kconnect_testkit.cli import main

PLUGINS = Path(__file__).parent / "plugins"
MULTI_TASK = PLUGINS / "multi_task_dist"

SUITE = """
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestPartitioned(SourceConnectorSuite):
    plugin = "kc_testkit_multi_task:{name}"
    drain_idle_s = {idle}
    progress_interval_s = {progress}
    scenarios = [
        Scenario(id="three-tasks", config={{"topic": "parts", "tasks.max": "3"}},
                 expected_records={expected}),
    ]
"""

# The package checks need an installed distribution and the pipeline check a broker:
# test_verify_passes_the_three_task_source_and_fails_its_offset_bug runs those.
SCENARIO_CHECKS = "not entry_point and not version_matches and not sdk_requirement and not pipeline"


@pytest.fixture
def run_suite(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., pytest.RunResult]:
    paths = [str(MULTI_TASK / "src"), str(PLUGINS)]
    for path in paths:
        pytester.syspathinsert(path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))

    def run(
        name: str = "PartitionedSource",
        *args: str,
        expected: int = 30,
        idle: float = 5.0,
        progress: float = 5.0,
        source: str | None = None,
    ) -> pytest.RunResult:
        pytester.makepyfile(
            test_suite=source
            or SUITE.format(name=name, expected=expected, idle=idle, progress=progress)
        )
        return pytester.runpytest("-p", "no:cacheprovider", "-q", *args)

    return run


def test_three_task_source_passes_every_scenario_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    started = time.monotonic()
    result = run_suite("PartitionedSource", "-k", SCENARIO_CHECKS)
    # import side effects, documented keys, validate({}), 3 task_configs bounds, connector
    # and task start/stop, schemas, plain offsets, restart, poll_batch, stop unblocks poll,
    # and both alter_offsets checks: all pass, none skipped.
    result.assert_outcomes(passed=15)
    # Each drain reaches its 30 records at once; nothing waits out a timeout.
    assert time.monotonic() - started < 60


def test_offset_bug_in_one_of_three_tasks_fails_the_restart_check(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite("OffsetBugSource", "-k", "restart or offsets_are_plain or schemas")
    result.assert_outcomes(passed=2, failed=1)
    # The third task's partition commits an offset one line past the line it belongs to;
    # deterministic is left at its default.
    assert (
        "restarting from the committed offset of record #4 ({'position': 6}) of source "
        "partition {'partition': 2} lost ['p2-5'] (a gap); offsets must point just past the "
        "record they belong to"
    ) in result.stdout.str()


def test_drain_that_cannot_reach_its_target_stops_early_and_says_how_far_it_got(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    started = time.monotonic()
    # 40 declared where the connector's three tasks give 30.
    result = run_suite(
        "PartitionedSource",
        "-k",
        "schemas",
        expected=40,
        idle=1.0,
        progress=0.3,
    )
    elapsed = time.monotonic() - started
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    # While it waits, it says how far it got (between the test's dot and its outcome).
    assert re.search(
        r"kc-progress: TestPartitioned::test_records_match_declared_schemas\[three-tasks\]: "
        r"30 of 40 records after \d+ s \(task 0: 10, task 1: 10, task 2: 10\) \(polling for "
        r"up to 20 s, or 1 s without a new record\)\n",
        output,
    ), output
    assert (
        "the connector's 3 tasks' poll() returned 30 records (task 0: 10, task 1: 10, "
        "task 2: 10) then nothing for 1 s (every poll returned no records), so polling "
        "stopped early; the scenario expects 40 (expected_records counts the records of "
        "the whole connector: every task of tasks.max=3 together)"
    ) in output
    assert elapsed < 15, f"the drain waited {elapsed:.0f} s, as if for its 20 s timeout"


RAISING = """
from kconnect_testkit import Scenario, SourceConnectorSuite

class TestRaising(SourceConnectorSuite):
    plugin = "broken_sources:RaisingPollSource"
    scenarios = [Scenario(id="six", config={"topic": "t"}, expected_records=6)]
"""


def test_failures_of_one_cause_are_summed_up_once(
    run_suite: Callable[..., pytest.RunResult],
) -> None:
    result = run_suite(
        "RaisingPollSource", "-k", "schemas or plain or restart or stop_unblocks", source=RAISING
    )
    result.assert_outcomes(failed=4)
    cause = "poll() raised RuntimeError: source unreachable: connection refused"
    output = result.stdout.str()
    summary = output[output.index("kconnect-testkit: failures by cause") :]
    assert f"4 checks failed for one cause: {cause}\n" in summary, summary
    assert "    TestRaising::test_offsets_are_plain_data[six]\n" in summary, summary
    # Each failure names the plugin's own line, not the testkit's.
    assert 'in poll\n    raise RuntimeError("source unreachable' in result.stdout.str()


@pytest.mark.usefixtures("session_kafka")
@pytest.mark.integration
def test_verify_passes_the_three_task_source_and_fails_its_offset_bug(tmp_path: Path) -> None:
    report = tmp_path / "report"
    assert main(["verify", str(MULTI_TASK), "--report", str(report), "-q"]) == 1
    cases = list(ET.parse(report / "junit.xml").getroot().iter("testcase"))
    outcomes: dict[tuple[str, str], str] = {}
    for case in cases:
        test = str(case.get("name")).split(": ", 1)[0]
        outcomes[(str(case.get("classname")), test)] = case[0].tag if len(case) else "passed"
    correct = "kc_testkit_multi_task.PartitionedSource"
    planted = "kc_testkit_multi_task.OffsetBugSource"
    # 6 package checks, 3 task_configs bounds and 10 connector checks each.
    assert len(cases) == 38
    assert {t: o for (p, t), o in outcomes.items() if p == correct and o != "passed"} == {}
    assert {t: o for (p, t), o in outcomes.items() if p == planted and o != "passed"} == {
        "test_restart_from_committed_offsets[three-tasks]": "failure"
    }
