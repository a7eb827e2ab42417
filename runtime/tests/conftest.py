from __future__ import annotations

from collections.abc import Iterator

import pytest
from kconnect_testkit import KafkaCluster
from runtime_harness import private_kafka


@pytest.fixture(scope="session")
def kafka(kc_kafka: str) -> str:
    """bootstrap.servers of the session's Apache Kafka broker (the testkit's ``kc_kafka``)."""
    return kc_kafka


@pytest.fixture
def own_kafka() -> Iterator[KafkaCluster]:
    """A single-node Apache Kafka cluster of the test's own (KRaft, data on disk), which the
    test may stop, kill, freeze and start again (``stop_node(1)``, ``start_node(1)``, ...)."""
    with private_kafka() as cluster:
        yield cluster
