"""docs/tutorial.md, followed as written: its files into an empty folder, its commands run.

Every code block with a ``title`` becomes that file; the commands below are the tutorial's
own (each is checked to appear in it verbatim), so the page cannot drift from what works.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.cli import main
from kconnect_runtime.config import load_connector_config, load_properties
from runtime_harness import line_count, wait_for

# The tutorial's steps as a new author runs them (installs, verify, a worker): 150 s alone
# on a loaded machine, more beside the other test sessions.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"
_BLOCK = re.compile(r'^```\w+ title="([^"]+)"\n(.*?)^```$', re.S | re.M)


def _command(text: str, line: str) -> list[str]:
    assert line in text, f"docs/tutorial.md no longer shows `{line}`"
    return shlex.split(line)


def test_the_tutorial_passes_verify_and_runs_in_a_worker(
    kafka: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    files = _BLOCK.findall(text)
    assert {name for name, _ in files} >= {
        "pyproject.toml",
        "src/kconnect_hello/_source.py",
        "src/kconnect_hello/_sink.py",
        "worker.properties",
    }
    hello = tmp_path / "hello"
    for name, body in files:
        (hello / name).parent.mkdir(parents=True, exist_ok=True)
        (hello / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(hello)

    # 4. verify (its suites use the session's broker rather than start one of their own)
    monkeypatch.setenv("KC_KAFKA_BOOTSTRAP_SERVERS", kafka)
    verify = _command(text, "kconnect-testkit verify . --report report/")
    done = subprocess.run(
        [sys.executable, "-m", "kconnect_testkit.cli", *verify[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kconnect_hello.GreetingSourceConnector" in done.stdout
    assert "kconnect_hello.LinesSinkConnector" in done.stdout
    assert " 0 failed, 0 error" in done.stdout
    assert (hello / "report" / "junit.xml").is_file()

    # 5. install into a plugin location, validate offline, run in a worker
    install = _command(text, "kconnect plugins install . --path plugins/hello")
    assert main(install[1:]) == 0
    listed = _command(text, "kconnect plugins list --plugin-path plugins")
    capsys.readouterr()
    assert main(listed[1:]) == 0
    assert "kconnect_hello.GreetingSourceConnector" in capsys.readouterr().out
    validate = _command(
        text,
        "kconnect validate --offline --plugin-path plugins -f greeting-source.properties "
        "-f lines-sink.properties",
    )
    code = main(validate[1:])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("0 error(s), 0 unknown key(s)") == 2, out

    _command(
        text,
        "kconnect standalone worker.properties greeting-source.properties lines-sink.properties",
    )
    worker = load_properties("worker.properties")
    # The tutorial's worker starts an embedded broker; here the session's broker is used.
    worker.update(
        {"bootstrap.servers": kafka, "listeners": "", "consumer.session.timeout.ms": "6000"}
    )
    app = Standalone(
        worker,
        [
            load_connector_config("greeting-source.properties"),
            load_connector_config("lines-sink.properties"),
        ],
    )
    app.start()
    try:
        wait_for(lambda: line_count(hello / "greetings.txt") >= 1000, 120, "1000 greetings")
    finally:
        app.stop()
    lines = (hello / "greetings.txt").read_text().splitlines()
    # The session's broker spreads keyless records over its partitions: every greeting once.
    assert sorted(lines, key=lambda line: int(line.split("#")[1])) == [
        f"hello #{i}" for i in range(1000)
    ]
