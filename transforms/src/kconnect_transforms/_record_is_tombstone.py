"""The RecordIsTombstone predicate: the record's value is null."""

from __future__ import annotations

from ._predicate_base import _BasePredicate
from ._util import R

__all__ = ["RecordIsTombstone"]


class RecordIsTombstone(_BasePredicate[R]):
    """True when the record value is null
    (``org.apache.kafka.connect.transforms.predicates.RecordIsTombstone``)."""

    def test(self, record: R) -> bool:
        return record.value is None
