"""schemathesis against /openapi.json of a live worker: no input makes the API answer 500."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kconnect_runtime import Standalone
from runtime_harness import worker_props

pytestmark = pytest.mark.integration

MAX_EXAMPLES = 15


@pytest.fixture
def base_url(kafka: str, tmp_path: Path) -> Iterator[str]:
    app = Standalone(worker_props(tmp_path, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    assert app.rest is not None
    root_level = logging.getLogger().level
    try:
        yield app.rest.url
    finally:
        app.stop()
        logging.getLogger().setLevel(root_level)  # the fuzzer may have changed it


def test_no_server_errors(base_url: str) -> None:
    document = httpx.get(f"{base_url}/openapi.json").json()
    schema = schemathesis.openapi.from_dict(document)
    failures: list[str] = []
    operations = 0
    calls = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        strategy = st.one_of(
            operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE),
            operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE),
        )

        @given(case=strategy)
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case) -> None:
            nonlocal calls
            calls += 1
            response = case.call(base_url=base_url, timeout=30)
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} {case.body!r} -> "
                    f"{response.status_code} {response.text[:300]}"
                )

        check()
    assert operations >= 25 and calls >= operations * 2
    assert failures == []
