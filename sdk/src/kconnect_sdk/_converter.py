"""Converters: Connect data to and from the bytes stored in Kafka."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from ._config import ConfigDef
from ._versioned import Versioned

if TYPE_CHECKING:
    from ._headers import Headers
    from ._schema import Schema, SchemaAndValue

__all__ = ["Converter", "ConverterType", "HeaderConverter"]


class ConverterType(StrEnum):
    """Which part of a record a converter handles; passed as ``converter.type``."""

    KEY = "key"
    VALUE = "value"
    HEADER = "header"


class Converter(Versioned, abc.ABC):
    """Converts record keys or values between Connect data and the bytes stored in Kafka.

    Lifecycle:
        A connector's tasks each get their own key converter and value converter
        (``key.converter``/``value.converter``, falling back to the worker's), built
        then configured once with ``configure(settings, is_key)``; the prefix is
        stripped, and ``converter.type`` is ``key`` or ``value``. ``close`` is called
        once when the task stops.

    Threading:
        An instance is only called from its task's thread, one call at a time; state
        shared between instances (module-level schema caches) must be thread-safe.

    Data:
        ``from_connect_data`` serialises a value whose schema is ``schema`` (None for a
        schemaless value); ``to_connect_data`` gives back a ``SchemaAndValue``. None
        bytes and a None value (a tombstone) convert to each other. Neither direction
        may mutate the value it is given. The runtime calls the batch methods
        (``from_connect_batch``/``to_connect_batch``, one call per batch of records);
        their defaults call the single-value methods without headers. Override them
        when a batch can be done faster at once; they must return one result per item,
        in order.

    Errors:
        Every failure to convert, whatever its cause, must be a ``DataError`` saying
        what is wrong with the input (not an ``AttributeError``/``TypeError`` from deep
        inside): the runtime then applies ``errors.tolerance`` and the dead letter
        queue to that record. When a batch method raises, the runtime converts the
        batch again one record at a time to find the bad records. ``configure`` raises
        ``ConfigError`` for a bad setting.
    """

    is_key: bool = False

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Receive the converter's config (prefix stripped) and whether it handles keys."""
        self.is_key = is_key

    def config(self) -> ConfigDef:
        """The definition of this converter's config keys."""
        return ConfigDef()

    @abc.abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialise one value of ``topic``; None for a None value.

        Args:
            topic: the topic the record goes to (some formats register schemas per topic).
            schema: the value's schema, or None for schemaless data.
            value: the value, matching ``schema``.
            headers: the record's headers, when the caller has them; a converter may add
                headers (changes are written with the record).

        Raises:
            DataError: the value does not match the schema or cannot be written.
        """

    @abc.abstractmethod
    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialise one value read from ``topic``; None bytes give a null value.

        Raises:
            DataError: the bytes are not valid for this format.
        """

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialise many ``(topic, schema, value)`` at once, one result per item."""
        return [self.from_connect_data(topic, schema, value) for topic, schema, value in items]

    def from_connect_columns(
        self, topic: str, schema: Schema | None, values: Sequence[Any]
    ) -> list[bytes | None]:
        """Serialise many values of ONE topic and ONE schema at once, one result per value.

        The same results as ``from_connect_batch`` of ``(topic, schema, value)`` items; it
        raises what that raises. The default calls ``from_connect_batch``; a converter
        overrides it when it can answer without an item per value (the worker calls it
        for a source task's columnar batch, ``SourceTask.poll_batch``).
        """
        return self.from_connect_batch([(topic, schema, value) for value in values])

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        """Deserialise many ``(topic, data)`` at once, one result per item."""
        return [self.to_connect_data(topic, data) for topic, data in items]

    def to_connect_columns(
        self, topic: str, datas: Sequence[bytes | None]
    ) -> tuple[Sequence[Schema | None], Sequence[Any]]:
        """Deserialise many values read from ONE topic: their schemas and their values.

        The same results as ``to_connect_batch`` of ``(topic, data)`` pairs, as two columns
        of one entry per item (what a sink's ``SinkBatch`` holds); it raises what that
        raises. The default calls ``to_connect_batch``; a converter overrides it when it
        can answer without a ``SchemaAndValue`` per item (the worker calls it for each
        batch it consumed from one topic).
        """
        results = self.to_connect_batch([(topic, data) for data in datas])
        return [r.schema for r in results], [r.value for r in results]

    def close(self) -> None:
        """Release resources; called once when the task stops."""


class HeaderConverter(Versioned, abc.ABC):
    """Converts header values between Connect data and bytes (``header.converter``).

    Lifecycle and threading are as for :class:`Converter`: one instance per task,
    ``configure`` once, calls from the task's thread only, ``close`` at the end. Each
    header value is converted on its own, with its key; a failure is a ``DataError``.
    """

    deterministic: ClassVar[bool] = False
    """True when the same topic, key and bytes always give an equal header, the same header
    always gives the same bytes, and a call keeps no state: the worker may then read a
    consumed batch's headers once when every message carries the same ones (each record
    gets the same immutable :class:`Headers`), and write once the headers that records of
    a source batch share."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive the header converter's config (prefix stripped)."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    @abc.abstractmethod
    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        """The Connect value of header ``header_key``'s bytes; None bytes give a null value."""

    @abc.abstractmethod
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        """The bytes to write for header ``header_key``; None for a null value."""

    def close(self) -> None:
        """Release resources."""
