"""A transform chain holds off the garbage collector for a batch and always restores it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_runtime.tasks._chain import TransformChain, _Stage
from kconnect_sdk import ConfigDef, ConnectError, SinkRecord, Transformation


class _Probe(Transformation[SinkRecord]):
    """Records whether the collector ran during the batch; optionally fails."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.enabled_during: list[bool] = []

    def config(self) -> ConfigDef:
        return ConfigDef()

    def apply(self, record: SinkRecord) -> SinkRecord | None:
        return record

    def apply_batch(self, records: Any) -> list[SinkRecord]:
        self.enabled_during.append(gc.isenabled())
        if self.fail:
            raise ValueError("boom")
        return list(records)


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def _chain(probe: _Probe) -> TransformChain[SinkRecord]:
    return TransformChain([_Stage("probe", probe, None, False)])


RECORDS = [SinkRecord(topic="t", value={"i": i}) for i in range(3)]


def test_collector_paused_during_the_batch_and_running_after() -> None:
    gc.enable()
    probe = _Probe()
    assert _chain(probe).apply_batch(RECORDS) == RECORDS
    assert probe.enabled_during == [False]
    assert gc.isenabled()


def test_collector_running_again_after_a_failing_stage() -> None:
    gc.enable()
    with pytest.raises(ConnectError, match="boom"):
        _chain(_Probe(fail=True)).apply_batch(RECORDS)
    assert gc.isenabled()


def test_collector_the_application_disabled_stays_disabled() -> None:
    gc.disable()
    _chain(_Probe()).apply_batch(RECORDS)
    assert not gc.isenabled()
