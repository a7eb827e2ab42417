from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def kafka(request: pytest.FixtureRequest) -> str:
    """bootstrap.servers of the session's Apache Kafka broker (the testkit's ``kc_kafka``).

    Parametrized indirectly with ``"tansu"``, the embedded development broker's instead
    (``kc_tansu``), for the tests that keep ``kconnect standalone``'s default working.
    """
    broker = getattr(request, "param", "kafka")
    fixture = {"kafka": "kc_kafka", "tansu": "kc_tansu"}[broker]
    bootstrap: str = request.getfixturevalue(fixture)
    return bootstrap
