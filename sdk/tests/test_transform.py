"""Transformation and Predicate base classes: the batch methods the runtime calls."""

from __future__ import annotations

from kconnect_sdk import ConfigDef, Predicate, Schema, SourceRecord


def _record(n: int) -> SourceRecord:
    return SourceRecord(
        topic="t", value_schema=Schema.INT64, value=n, source_partition={}, source_offset={}
    )


class _Even(Predicate[SourceRecord]):
    def __init__(self) -> None:
        self.tested: list[int] = []

    def config(self) -> ConfigDef:
        return ConfigDef()

    def test(self, record: SourceRecord) -> bool:
        self.tested.append(record.value)
        return bool(record.value % 2 == 0)


def test_default_test_batch_tests_each_record_in_order() -> None:
    predicate = _Even()
    records = [_record(n) for n in (3, 4, 7, 8, 10)]
    assert predicate.test_batch(records) == [False, True, False, True, True]
    assert predicate.tested == [3, 4, 7, 8, 10]
    assert predicate.test_batch([]) == []
