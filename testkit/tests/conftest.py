import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def session_kafka(kc_kafka: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The session's broker, also for the suites a test runs in a pytest session of their
    own (``kconnect-testkit verify``, pytester): they use it instead of starting a JVM."""
    monkeypatch.setenv("KC_KAFKA_BOOTSTRAP_SERVERS", kc_kafka)
    return kc_kafka
