"""``kconnect-testkit verify`` end to end on the example plugin, and its refusals."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from kconnect_testkit.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sequence"


@pytest.mark.usefixtures("session_kafka")
@pytest.mark.integration
def test_verify_installs_and_passes_the_example_plugin(tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kconnect_testkit.cli",
            "verify",
            str(EXAMPLE),
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("kconnect-example-sequence 0.1.0")
    source = "kconnect_example_sequence.SequenceSourceConnector"
    sink = "kconnect_example_sequence.JsonLinesSinkConnector"
    for plugin, test in [
        (source, "test_restart_from_committed_offsets[twenty]"),
        (source, "test_entry_point_resolves"),
        (sink, "test_pre_commit_reports_only_durable_offsets[jsonl]"),
        (sink, "test_errant_record_reporter[jsonl]"),
    ]:
        assert any(line.split() == [plugin, test, "PASSED"] for line in done.stdout.splitlines()), (
            f"{plugin} {test} not PASSED in:\n{done.stdout}"
        )
    cases = list(ET.parse(report / "junit.xml").getroot().iter("testcase"))
    # 6 package checks + 3 task_configs + 9 connector checks for each of the two connectors,
    # the source's columnar-poll check and the sink's columnar-put check
    assert len(cases) == 38
    assert _not_passed(cases) == {
        "test_alter_offsets_rejects_malformed[twenty]": "skipped",
        # the example's tasks have no poll_batch() and no put_batch(): not applicable
        "test_poll_batch_gives_the_records_of_poll[twenty]": "skipped",
        "test_put_batch_writes_what_put_writes[jsonl]": "skipped",
    }, "every other case passed"
    # JUnit says which plugin each case checked and what: class = plugin, name = test + doc.
    assert {c.get("classname") for c in cases} == {source, sink}
    assert all(": " in str(c.get("name")) for c in cases), [c.get("name") for c in cases]
    # Progress while it ran: one line per check, on stderr.
    progress = [line for line in done.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 38 and progress[-1].startswith("[38/38] ")
    assert f"{source} test_entry_point_resolves PASSED" in done.stderr
    markdown = (report / "report.md").read_text()
    assert markdown.startswith("# kconnect-testkit verify: kconnect-example-sequence 0.1.0 — PASS")
    # The example was installed into a throwaway venv, not into this environment.
    assert (
        subprocess.run(
            [sys.executable, "-c", "import kconnect_example_sequence"],
            capture_output=True,
            check=False,
        ).returncode
        != 0
    )


def _not_passed(cases: list[ET.Element]) -> dict[str, str]:
    # JUnit names are "<test>: <what it checks>"; the test's own name comes first.
    return {str(c.get("name")).split(": ", 1)[0]: c[0].tag for c in cases if len(c)}


@pytest.mark.usefixtures("session_kafka")
@pytest.mark.integration
def test_verify_isolated_drives_the_example_through_a_plugin_location(tmp_path: Path) -> None:
    report = tmp_path / "report"
    assert main(["verify", str(EXAMPLE), "--isolated", "--report", str(report)]) == 0
    cases = list(ET.parse(report / "junit.xml").getroot().iter("testcase"))
    assert len(cases) == 38
    # The example does not override alter_offsets, poll_batch nor put_batch: reported as
    # skipped, with the reason. (The errant record reporter path runs through the plugin
    # host and passes.)
    assert _not_passed(cases) == {
        "test_alter_offsets_rejects_malformed[twenty]": "skipped",
        "test_poll_batch_gives_the_records_of_poll[twenty]": "skipped",
        "test_put_batch_writes_what_put_writes[jsonl]": "skipped",
    }
    markdown = (report / "report.md").read_text()
    assert markdown.startswith("# kconnect-testkit verify: kconnect-example-sequence 0.1.0 — PASS")
    assert "Isolated mode: installed in a plugin.path location of its own" in markdown
    assert "| `kconnect_example_sequence.JsonLinesSinkConnector` | " in markdown


@pytest.mark.usefixtures("session_kafka")
@pytest.mark.integration
def test_verify_names_an_entry_point_in_an_unknown_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "typo"
    (project / "src" / "kc_typo").mkdir(parents=True)
    (project / "src" / "kc_typo" / "__init__.py").write_text(
        "from kconnect_sdk import SourceConnector\n\nclass Typo(SourceConnector):\n    pass\n"
    )
    (project / "pyproject.toml").write_text(
        '[project]\nname = "kc-typo"\nversion = "0.0.1"\ndependencies = ["kconnect-sdk"]\n'
        '[project.entry-points."kconnect.source_connector"]\n"kc_typo.Typo" = "kc_typo:Typo"\n'
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    )
    report = tmp_path / "report"
    assert main(["verify", str(project), "--report", str(report)]) == 1
    out, err = capsys.readouterr()
    expected = (
        "entry point kc_typo.Typo = kc_typo:Typo is in group 'kconnect.source_connector', "
        "which no kconnect worker reads (did you mean 'kconnect.source_connectors'?)"
    )
    assert expected in err  # as progress, while it runs
    # The table's failure section carries the full message, not a cut first line.
    assert f"--- FAILED: kc_typo.Typo test_entry_point_group_is_known\n{expected}" in out
    case = next(ET.parse(report / "junit.xml").getroot().iter("testcase"))
    assert case.get("classname") == "kc_typo.Typo" and expected in case[0].get("message", "")


def test_verify_table_says_a_shared_cause_once() -> None:
    from kconnect_testkit._verify import CaseResult, _markdown, _table

    cause = "poll() raised RuntimeError: source unreachable (in its plugin host process)"
    results = [
        CaseResult("src", f"test_{name}[six]", "failed", f"Failed: {cause}\n--- plugin traceback")
        for name in ("a", "b", "c")
    ]
    results.append(CaseResult("src", "test_d", "failed", "version() returned ''"))
    results.append(CaseResult("src", "test_e", "passed", ""))
    table = _table("dist", "1.0", results)
    # three table rows, then the group: its cause with the count, and one full message
    assert table.count(cause) == 5
    assert (
        f"--- 3 checks failed for one cause: {cause}\n"
        "    src test_a[six]\n    src test_b[six]\n    src test_c[six]\n"
        f"Failed: {cause}\n--- plugin traceback"
    ) in table
    assert "--- FAILED: src test_d\nversion() returned ''" in table
    markdown = _markdown("dist", "1.0", "dist", results)
    assert f"| 3 | {cause} | `src` `test_a[six]`, `src` `test_b[six]`, `src` `test_c[six]` |" in (
        markdown
    )


def test_verify_progress_names_the_plugin_of_a_waiting_check() -> None:
    from kconnect_testkit._verify import _naming_plugins

    lines: list[str] = []
    relay = _naming_plugins(lines.append, {"TestPlugin0": "my.Source"})
    relay("TestPlugin0::test_offsets_are_plain_data[s]: 12 of 30 records after 5 s")
    relay("[3/37] my.Source test_entry_point_resolves PASSED")
    assert lines == [
        "my.Source test_offsets_are_plain_data[s]: 12 of 30 records after 5 s",
        "[3/37] my.Source test_entry_point_resolves PASSED",
    ]
