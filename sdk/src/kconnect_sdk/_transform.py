"""Single message transforms and the predicates that gate them."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from ._config import ConfigDef
from ._records import ConnectRecord
from ._versioned import Versioned

__all__ = ["Predicate", "Transformation"]

R = TypeVar("R", bound=ConnectRecord)


class Transformation(Versioned, abc.ABC, Generic[R]):
    """Reshapes one record at a time.

    Contract: ``apply`` must not mutate its input (records are immutable; build new ones
    with ``record.new_record(...)``); it returns None to drop the record. Every
    transform also accepts ``predicate`` and ``negate``; the runtime handles those.
    """

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive this transform's config (``transforms.<alias>.`` stripped)."""

    @abc.abstractmethod
    def config(self) -> ConfigDef:
        """The definition of this transform's config keys."""

    @abc.abstractmethod
    def apply(self, record: R) -> R | None:
        """The transformed record, or None to drop it."""

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        """Transform many records; dropped ones are left out."""
        out: list[R] = []
        for record in records:
            result = self.apply(record)
            if result is not None:
                out.append(result)
        return out

    def close(self) -> None:
        """Release resources."""


class Predicate(Versioned, abc.ABC, Generic[R]):
    """A condition on a record, used to apply a transform only to some records."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive this predicate's config (``predicates.<alias>.`` stripped)."""

    @abc.abstractmethod
    def config(self) -> ConfigDef: ...

    @abc.abstractmethod
    def test(self, record: R) -> bool:
        """Whether ``record`` matches; must not mutate it."""

    def test_batch(self, records: Sequence[R]) -> list[bool]:
        """Whether each record matches, one result per record, in order.

        The runtime calls this, once per batch, rather than ``test``; the default calls
        ``test`` for each record. Override it when a batch can be tested faster at once
        (the result must still have exactly one entry per record).
        """
        return [self.test(record) for record in records]

    def close(self) -> None:
        """Release resources."""
