"""The one error hierarchy every part of kconnect raises and catches."""

from __future__ import annotations

__all__ = [
    "AlreadyExistsError",
    "ConfigError",
    "ConnectError",
    "DataError",
    "IllegalWorkerStateError",
    "NotFoundError",
    "RetriableError",
    "SchemaBuilderError",
    "SchemaProjectorError",
]


class ConnectError(Exception):
    """Base of every error kconnect raises (Kafka Connect's ``ConnectException``)."""


class ConfigError(ConnectError):
    """A configuration value is missing or invalid.

    Attributes:
        name: the config key at fault, when one key is.
        value: the offending value (never a PASSWORD's value).
    """

    def __init__(self, message: str, *, name: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.name = name
        self.value = value


class RetriableError(ConnectError):
    """A transient failure: the framework retries the operation (or redelivers the batch)."""


class DataError(ConnectError):
    """A value does not fit its schema, or bytes cannot be converted."""


class SchemaBuilderError(DataError):
    """A schema was built inconsistently (a property set twice, a field on a non-struct...)."""


class SchemaProjectorError(DataError):
    """A value cannot be projected from its schema onto the target schema."""


class NotFoundError(ConnectError):
    """A named connector, task or plugin does not exist."""


class AlreadyExistsError(ConnectError):
    """A connector with that name exists already."""


class IllegalWorkerStateError(ConnectError):
    """The worker is not in a state that allows the operation."""
