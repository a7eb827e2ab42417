"""pytest plugin of kconnect-testkit (inert until a test class subclasses a suite).

Registered through the ``pytest11`` entry point. It parametrizes suite tests over their
class's scenarios, applies waivers, and offers the ``kc_*`` service fixtures; test
modules without a :class:`~kconnect_testkit.Suite` subclass see nothing of it.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._base import STRICTNESS_LEVELS, Suite
from ._fixtures import kc_kafka, kc_mariadb, kc_postgres, kc_s3, kc_spark, kc_sqlite

__all__ = ["kc_kafka", "kc_mariadb", "kc_postgres", "kc_s3", "kc_spark", "kc_sqlite"]

ISOLATION_UNAVAILABLE = (
    "kconnect-testkit: isolated mode (the plugin installed in its own plugin.path location and "
    "driven through the runtime's worker-subprocess protocol) needs plugin isolation, which "
    "this kconnect-runtime does not have yet; run without --kc-isolated (in-process mode)"
)


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
        help="run suites against the plugin in its own plugin location (not available yet)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("kc_isolated", False):
        raise pytest.UsageError(ISOLATION_UNAVAILABLE)


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    forced = config.getoption("kc_strictness", None)
    for item in items:
        cls = _suite_of(getattr(item, "cls", None))
        if cls is None:
            continue
        strictness = forced or cls.strictness
        name = getattr(item, "originalname", item.name)
        reason = cls.waivers.get(name)
        if reason and strictness != "strict":
            item.add_marker(pytest.mark.skip(reason=f"waived: {reason}"))
