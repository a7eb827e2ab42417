"""pytest plugin of kconnect-testkit (inert until a test class subclasses a suite).

Registered through the ``pytest11`` entry point. It parametrizes suite tests over their
class's scenarios, applies waivers, and offers the ``kc_*`` service fixtures; test
modules without a :class:`~kconnect_testkit.Suite` subclass see nothing of it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from . import _isolated, _support
from ._base import STRICTNESS_LEVELS, Suite
from ._fixtures import (
    _kc_kafka_broker,
    _kc_spark_session,
    kc_java_connect,
    kc_kafka,
    kc_kafka_cluster,
    kc_mariadb,
    kc_postgres,
    kc_s3,
    kc_schema_registry,
    kc_secured_kafka,
    kc_spark,
    kc_sqlite,
    kc_tansu,
)
from ._spark_cluster import kc_spark_cluster

__all__ = [
    "_kc_kafka_broker",
    "_kc_spark_session",
    "kc_java_connect",
    "kc_kafka",
    "kc_kafka_cluster",
    "kc_mariadb",
    "kc_postgres",
    "kc_s3",
    "kc_schema_registry",
    "kc_secured_kafka",
    "kc_spark",
    "kc_spark_cluster",
    "kc_sqlite",
    "kc_tansu",
]

ENGINES = ("local", "spark")
"""The runtime engines a pipeline check can run on (``--kc-engine``)."""


def _engines(text: str) -> tuple[str, ...]:
    names = tuple(e.strip() for e in text.split(",") if e.strip())
    unknown = [e for e in names if e not in ENGINES]
    if unknown or not names:
        raise pytest.UsageError(
            f"--kc-engine {text!r}: engines are a comma-separated list of {', '.join(ENGINES)}"
        )
    return names


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kconnect", "kconnect conformance testkit")
    group.addoption(
        "--kc-strictness",
        dest="kc_strictness",
        choices=STRICTNESS_LEVELS,
        default=None,
        help="override every suite's strictness: 'standard' honours waivers, 'strict' does not",
    )
    group.addoption(
        "--kc-isolated",
        dest="kc_isolated",
        action="store_true",
        default=False,
        help="install each plugin's distribution into a plugin.path location of its own and "
        "drive it through the runtime's worker-subprocess protocol",
    )
    group.addoption(
        "--kc-engine",
        dest="kc_engine",
        default=None,
        help="engines the pipeline checks run on, e.g. 'local,spark' (overrides each suite's "
        "'engines')",
    )


def pytest_configure(config: pytest.Config) -> None:
    _support.attach(config)
    engines = config.getoption("kc_engine", None)
    if engines is not None:
        _engines(engines)
    if config.getoption("kc_isolated", False):
        root = Path(tempfile.mkdtemp(prefix="kc-isolated-"))
        config.stash[_ISOLATION_ROOT] = root
        _isolated.activate(root)


def pytest_unconfigure(config: pytest.Config) -> None:
    _support.detach(config)
    if "kconnect_testkit._pipeline" in sys.modules:
        sys.modules["kconnect_testkit._pipeline"].stop_spark_sessions()
    root = config.stash.get(_ISOLATION_ROOT, None)
    if root is not None:
        _isolated.deactivate()
        shutil.rmtree(root, ignore_errors=True)


_ISOLATION_ROOT = pytest.StashKey[Path]()
_SUITE_TESTS = pytest.StashKey[set[str]]()


def _suite_of(obj: Any) -> type[Suite] | None:
    return obj if isinstance(obj, type) and issubclass(obj, Suite) else None


def _check_suite(cls: type[Suite]) -> None:
    where = f"{cls.__module__}.{cls.__qualname__}"
    if not hasattr(cls, "plugin"):
        raise pytest.Collector.CollectError(
            f"{where}: set the class attribute 'plugin' to the plugin's entry-point name or class"
        )
    if cls.strictness not in STRICTNESS_LEVELS:
        raise pytest.Collector.CollectError(
            f"{where}: strictness {cls.strictness!r} is not one of {list(STRICTNESS_LEVELS)}"
        )
    known = cls.suite_test_names()
    for name, reason in dict(cls.waivers).items():
        if name not in known:
            raise pytest.Collector.CollectError(
                f"{where}: waiver {name!r} names no test of this suite; known tests: "
                + ", ".join(known)
            )
        if not isinstance(reason, str) or not reason.strip():
            raise pytest.Collector.CollectError(
                f"{where}: waiver {name!r} has no reason; write why the check does not apply"
            )
    ids = [s.id for s in cls.scenarios]
    if len(set(ids)) != len(ids):
        raise pytest.Collector.CollectError(f"{where}: scenario ids must be unique, got {ids}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    cls = _suite_of(metafunc.cls)
    if cls is None:
        return
    _check_suite(cls)
    if "engine" in metafunc.fixturenames:
        option = metafunc.config.getoption("kc_engine", None)
        engines = _engines(option) if option else tuple(getattr(cls, "engines", ("local",)))
        metafunc.parametrize("engine", engines)
    if "scenario" not in metafunc.fixturenames:
        return
    if cls.scenarios:
        metafunc.parametrize("scenario", list(cls.scenarios), ids=[s.id for s in cls.scenarios])
    else:
        metafunc.parametrize(
            "scenario",
            [
                pytest.param(
                    None,
                    marks=pytest.mark.skip(
                        reason=f"{cls.__qualname__} declares no scenarios; add some to run this check"
                    ),
                    id="no-scenario",
                )
            ],
        )


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    if _isolated.active() is None or _suite_of(getattr(pyfuncitem, "cls", None)) is None:
        return (yield)
    from kconnect_sdk import ConnectError

    try:
        return (yield)
    except ConnectError as exc:
        # A plugin host that died or hung: its message (with the host's stderr) says it all;
        # the runtime's proxy frames in between would only bury it.
        if "(location " not in str(exc):
            raise
        message = str(exc)
    pytest.fail(f"in its plugin host process: {message}", pytrace=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    forced = config.getoption("kc_strictness", None)
    suite_tests = config.stash.setdefault(_SUITE_TESTS, set())
    for item in items:
        cls = _suite_of(getattr(item, "cls", None))
        if cls is None:
            continue
        suite_tests.add(item.nodeid)
        strictness = forced or cls.strictness
        name = getattr(item, "originalname", item.name)
        reason = cls.waivers.get(name)
        if reason and strictness != "strict":
            item.add_marker(pytest.mark.skip(reason=f"waived: {reason}"))


def _cause(report: pytest.TestReport | pytest.CollectReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else report.longreprtext
    return _support.failure_cause(text)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Checks that failed for one root cause, that cause said once with their count.

    A plugin bug such as a raising ``poll()`` fails most checks of a suite with the same
    first line; the list of failures above repeats it, this says it once.
    """
    suite_tests = config.stash.get(_SUITE_TESTS, set())
    by_cause: dict[str, list[str]] = {}
    for key in ("failed", "error"):
        for report in terminalreporter.stats.get(key, []):
            nodeid = getattr(report, "nodeid", "")
            if nodeid in suite_tests and report.failed:
                by_cause.setdefault(_cause(report), []).append(nodeid.split("::", 1)[-1])
    shared = sorted(
        ((cause, tests) for cause, tests in by_cause.items() if len(tests) > 1),
        key=lambda item: -len(item[1]),
    )
    if not shared:
        return
    terminalreporter.section("kconnect-testkit: failures by cause")
    for cause, tests in shared:
        terminalreporter.write_line(f"{len(tests)} checks failed for one cause: {cause}")
        for test in tests:
            terminalreporter.write_line(f"    {test}")
