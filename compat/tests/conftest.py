"""The differential suite's fixtures: one Java harness JVM and one tally per session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from kconnect_compat.intended import load_intended
from kconnect_compat.java import INSTALL_HINT, HarnessUnavailable, JavaHarness
from kconnect_compat.runner import Differential
from kconnect_testkit._java import JavaUnavailable, java_jars

_SESSION: list[Differential] = []


@pytest.fixture(scope="session")
def differential(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Differential]:
    """Runs cases through Apache Kafka's Java classes and kconnect, and compares them.

    Without java, javac or Maven the suite is skipped, except under CI=true, where a
    missing tool fails it with what to install.
    """
    try:
        harness = JavaHarness(java_jars("kafka"), tmp_path_factory.mktemp("compat"))
    except (JavaUnavailable, HarnessUnavailable) as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the differential suite cannot run: {exc}; {INSTALL_HINT}")
        pytest.skip(f"the differential suite needs Java: {exc}")
    differential = Differential(harness, load_intended())
    _SESSION.append(differential)
    try:
        yield differential
    finally:
        harness.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for differential in _SESSION:
        lines = differential.summary()
        if lines:
            terminalreporter.section("kconnect vs Apache Kafka (compat)")
            for line in lines:
                terminalreporter.write_line(line)
