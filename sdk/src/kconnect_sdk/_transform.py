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
    """A single message transform (SMT): reshapes, reroutes or drops one record at a time.

    Lifecycle:
        The runtime builds one instance per alias per task (and throw-away instances to
        validate a config), calls ``configure`` once with the transform's own settings,
        then ``apply_batch`` (whose default calls ``apply``) for every batch, and
        ``close`` once when the task stops. ``configure`` should parse and check the
        whole config and raise ``ConfigError`` naming the key, so a bad config fails
        when the connector is created rather than on the first record.

    Threading:
        One instance is only called from the thread of the task that owns it, one call
        at a time. Tasks of a worker run in parallel, so state shared between instances
        (class attributes, module-level caches) must be thread-safe.

    Records:
        ``apply`` must not mutate its input or anything reachable from it (Structs,
        lists, dicts, headers): the same objects may still be in use by the connector,
        an earlier stage or the error reporter. Return ``record`` itself when nothing
        changes, or a new record built with ``record.new_record(...)``; return None to
        drop the record (a source task then gets ``commit_record(record, None)``).
        Records reach a transform only when the stage's predicate (``predicate`` and
        ``negate``, handled by the runtime, never by the transform) selects them.

    Errors:
        Raise ``DataError`` naming the transform and the field for a record it cannot
        handle. Any exception fails the record at the transformation stage, and the
        connector's ``errors.*`` settings decide: with ``errors.tolerance=none`` the
        task fails; with ``all`` the record is skipped (and sent to the dead letter
        queue for sinks). ``RetriableError`` is retried within ``errors.retry.timeout``.
    """

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive this transform's config (``transforms.<alias>.`` stripped); called once."""

    @abc.abstractmethod
    def config(self) -> ConfigDef:
        """The definition of this transform's config keys (for validation and docs)."""

    @abc.abstractmethod
    def apply(self, record: R) -> R | None:
        """The transformed record, ``record`` itself if unchanged, or None to drop it."""

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        """Transform many records; dropped ones are left out."""
        out: list[R] = []
        for record in records:
            result = self.apply(record)
            if result is not None:
                out.append(result)
        return out

    def close(self) -> None:
        """Release resources; called once, after the last ``apply``. Must not raise."""


class Predicate(Versioned, abc.ABC, Generic[R]):
    """A condition on a record, used to apply a transform only to some records.

    Configured as ``predicates.<alias>.*`` and referenced by a transform's ``predicate``
    key. Lifecycle and threading are as for :class:`Transformation`: one instance per
    alias per task, ``configure`` once, ``test_batch``/``test`` from the task's thread,
    ``close`` at the end. A predicate must not mutate the record; an exception it raises
    fails the record like a transform's.
    """

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
