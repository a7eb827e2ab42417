"""What an error may say beyond its message: the class that raised it, the records it
failed on. Declared here once; a transform chain and a sink task set them, the error
handling of every engine reads them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["NamesExecutingClass", "NamesFailedRecords", "executing_class", "failed_records"]


@runtime_checkable
class NamesExecutingClass(Protocol):
    """An error that names the plugin class it failed in (``module.Class``), for the
    errors log and the DLQ's ``__connect.errors.class.name`` header."""

    executing_class: str


@runtime_checkable
class NamesFailedRecords(Protocol):
    """An error from a sink task's ``put``/``flush`` that names the records it could not
    write: under ``errors.tolerance=all`` those are errant, every other record written."""

    records: Sequence[Any]


def executing_class(error: BaseException, default: str) -> str:
    """The class ``error`` names as the one that failed, else ``default``."""
    return error.executing_class if isinstance(error, NamesExecutingClass) else default


def failed_records(error: BaseException) -> Sequence[Any] | None:
    """The records ``error`` names as failed, if it names any."""
    return error.records if isinstance(error, NamesFailedRecords) else None
