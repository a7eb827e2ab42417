"""Filter: drop every record it is applied to (gate it with a predicate)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
)

from ._util import BaseTransform, R

__all__ = ["Filter"]


class Filter(BaseTransform[R]):
    """Drop every record (``org.apache.kafka.connect.transforms.Filter``).

    Useful only with a predicate: ``transforms.drop.predicate=isTombstone``.
    """

    NAME = "Filter"
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()

    def apply(self, record: R) -> R | None:
        return None

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        return []
