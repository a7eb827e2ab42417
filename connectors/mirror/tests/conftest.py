"""A second Kafka cluster for the MirrorMaker tests: ``kc_kafka`` is the source, this the target."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def target_kafka_cluster() -> Iterator[Any]:
    """A second single-node KRaft cluster (a ``KafkaCluster``), started only when asked for."""
    from kconnect_testkit import KafkaCluster

    cluster = KafkaCluster(nodes=1)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def target_kafka(target_kafka_cluster: Any) -> str:
    """``bootstrap.servers`` of the second cluster."""
    return str(target_kafka_cluster.bootstrap_servers)
