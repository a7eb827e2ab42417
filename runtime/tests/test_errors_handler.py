"""The retry/tolerance/log rules every stage shares, without a broker."""

from __future__ import annotations

import logging
import threading

import pytest
from kconnect_runtime.errors import ErrorHandler, ErrorPolicy, Failure, Stage
from kconnect_runtime.metrics import ErrorMetrics
from kconnect_sdk import ConnectError, DataError, RetriableError


def handler(**config: str) -> ErrorHandler:
    return ErrorHandler(
        ErrorPolicy.from_config(config),
        connector="orders",
        task=2,
        metrics=ErrorMetrics(),
        stopping=threading.Event(),
    )


class Flaky:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise RetriableError("busy")
        return "done"


def test_retriable_errors_are_retried_within_the_timeout() -> None:
    h = handler(**{"errors.retry.timeout": "5000", "errors.retry.delay.max.ms": "5"})
    operation = Flaky(failures=2)
    assert h.retry(Stage.VALUE_CONVERTER, operation) == "done"
    assert operation.calls == 3
    assert h.metrics.retries == 2
    assert h.metrics.record_failures == 2


def test_retrying_stops_when_the_timeout_runs_out() -> None:
    h = handler(**{"errors.retry.timeout": "50", "errors.retry.delay.max.ms": "5"})
    with pytest.raises(RetriableError):
        h.retry(Stage.TRANSFORMATION, Flaky(failures=10**9))
    assert h.metrics.retries >= 1


def test_no_retry_by_default() -> None:
    operation = Flaky(failures=1)
    with pytest.raises(RetriableError):
        handler().retry(Stage.KEY_CONVERTER, operation)
    assert operation.calls == 1


def test_without_tolerance_a_failure_names_task_stage_coordinates_and_the_fix() -> None:
    failure = Failure(
        Stage.VALUE_CONVERTER, DataError("bad json"), "x.Conv", "t", "0", "41", lambda: "rec"
    )
    with pytest.raises(ConnectError) as raised:
        handler().failed(failure)
    message = str(raised.value)
    assert "connector 'orders' task 2" in message
    assert "stage VALUE_CONVERTER" in message
    assert "topic 't' partition 0 offset 41" in message
    assert "errors.tolerance=all" in message
    assert raised.value.__cause__ is failure.error


@pytest.mark.parametrize("include", [True, False])
def test_error_log_includes_the_record_only_when_asked(
    include: bool, caplog: pytest.LogCaptureFixture
) -> None:
    h = handler(
        **{
            "errors.tolerance": "all",
            "errors.log.enable": "true",
            "errors.log.include.messages": str(include).lower(),
        }
    )
    caplog.set_level(logging.ERROR, logger="kconnect.errors")
    h.failed(
        Failure(
            Stage.TRANSFORMATION, DataError("nope"), "x.Cast", "t", "1", "7", lambda: "SECRETREC"
        )
    )
    text = caplog.text
    assert "stage TRANSFORMATION" in text and "offset 7" in text and "nope" in text
    assert ("SECRETREC" in text) is include
    assert (h.metrics.records_skipped, h.metrics.errors_logged) == (1, 1)
