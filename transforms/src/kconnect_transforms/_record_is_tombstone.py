"""The RecordIsTombstone predicate: the record's value is null."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter, is_

from ._predicate_base import _BasePredicate
from ._util import R

__all__ = ["RecordIsTombstone"]


class RecordIsTombstone(_BasePredicate[R]):
    """True when the record value is null
    (``org.apache.kafka.connect.transforms.predicates.RecordIsTombstone``)."""

    def test(self, record: R) -> bool:
        return record.value is None

    def test_batch(self, records: Sequence[R]) -> list[bool]:
        return list(map(is_, map(_value_of, records), repeat(None)))


_value_of = attrgetter("value")
