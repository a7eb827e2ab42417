"""A second Kafka cluster for the MirrorMaker tests: ``kc_kafka`` is the source, this the target."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def target_kafka() -> Iterator[str]:
    """``bootstrap.servers`` of a second single-node KRaft cluster, started only when asked for."""
    from kconnect_testkit import KafkaCluster

    cluster = KafkaCluster(nodes=1)
    try:
        cluster.start()
        yield cluster.bootstrap_servers
    finally:
        cluster.stop()
