from __future__ import annotations

from collections.abc import Iterator

import pytest
from kconnect_testkit import KafkaCluster
from runtime_harness import private_kafka


@pytest.fixture(scope="session")
def kafka(request: pytest.FixtureRequest) -> str:
    """bootstrap.servers of the session's Apache Kafka broker (the testkit's ``kc_kafka``).

    Parametrized indirectly with ``"tansu"`` (``runtime_harness.TANSU``), the embedded
    development broker's instead (``kc_tansu``), for the tests that keep ``kconnect
    standalone``'s default working.
    """
    broker = getattr(request, "param", "kafka")
    fixture = {"kafka": "kc_kafka", "tansu": "kc_tansu"}[broker]
    bootstrap: str = request.getfixturevalue(fixture)
    return bootstrap


@pytest.fixture
def own_kafka() -> Iterator[KafkaCluster]:
    """A single-node Apache Kafka cluster of the test's own (KRaft, data on disk), which the
    test may stop, kill, freeze and start again (``stop_node(1)``, ``start_node(1)``, ...)."""
    with private_kafka() as cluster:
        yield cluster
