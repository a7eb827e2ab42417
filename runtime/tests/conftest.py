from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def kafka(kc_kafka: str) -> str:
    """bootstrap.servers of the session's Apache Kafka broker (the testkit's ``kc_kafka``)."""
    return kc_kafka
