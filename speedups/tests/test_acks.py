"""AckCounter: the source pipeline's on_delivery callable for a batch's records."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from kconnect_sdk import optional_speedups

acks = optional_speedups("kconnect_speedups._acks", reads_layout=False)


def test_loaded_without_a_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    assert acks is not None
    monkeypatch.setenv("KCONNECT_SPEEDUPS", "0")
    assert optional_speedups("kconnect_speedups._acks", reads_layout=False) is None


def test_successes_count_down_and_only_errors_reach_the_handler() -> None:
    assert acks is not None
    seen: list[tuple[Any, Any]] = []
    counter = acks.AckCounter(3, lambda err, msg: seen.append((err, msg)))
    counter(None, "m1")
    counter(None, "m2")
    assert counter.remaining == 1 and seen == []
    counter("broker refused", "m3")
    # The handler decides what an error means; the counter does not count it.
    assert seen == [("broker refused", "m3")] and counter.remaining == 1
    counter.remaining -= 1
    assert counter.remaining == 0


def test_a_handlers_exception_reaches_the_caller() -> None:
    assert acks is not None

    def fails(err: Any, msg: Any) -> None:
        raise RuntimeError(f"cannot handle {err}")

    counter = acks.AckCounter(1, fails)
    with pytest.raises(RuntimeError, match="cannot handle boom"):
        counter("boom", None)


def test_misuse_is_refused() -> None:
    assert acks is not None
    with pytest.raises(TypeError, match="callable"):
        acks.AckCounter(1, "not callable")
    counter = acks.AckCounter(1, print)
    with pytest.raises(TypeError, match="2 arguments"):
        counter(None)
    with pytest.raises(TypeError, match="keyword"):
        counter(None, None, extra=1)


def test_a_cycle_through_the_handler_is_collected() -> None:
    assert acks is not None

    class Batch:
        def __init__(self) -> None:
            self.counter = acks.AckCounter(1, self.on_error)

        def on_error(self, err: Any, msg: Any) -> None:
            pass

    batch = Batch()
    gone = weakref.ref(batch)
    del batch
    gc.collect()
    assert gone() is None
