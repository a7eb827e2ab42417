"""Converters: Connect data to and from the bytes stored in Kafka."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

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
    """Converts keys or values between Connect data and bytes.

    ``None`` bytes and a ``None`` value are the tombstone and convert to each other.
    The runtime calls the batch methods; override them when a batch can be done faster
    than record by record.
    """

    is_key: bool = False

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Receive the converter's config (prefix stripped) and whether it handles keys."""
        self.is_key = is_key

    def config(self) -> ConfigDef:
        return ConfigDef()

    @abc.abstractmethod
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialise one value."""

    @abc.abstractmethod
    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialise one value."""

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialise many ``(topic, schema, value)`` at once."""
        return [self.from_connect_data(topic, schema, value) for topic, schema, value in items]

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        """Deserialise many ``(topic, data)`` at once."""
        return [self.to_connect_data(topic, data) for topic, data in items]

    def close(self) -> None:
        """Release resources."""


class HeaderConverter(Versioned, abc.ABC):
    """Converts header values between Connect data and bytes."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive the header converter's config (prefix stripped)."""

    def config(self) -> ConfigDef:
        return ConfigDef()

    @abc.abstractmethod
    def to_connect_header(
        self, topic: str, header_key: str, data: bytes | None
    ) -> SchemaAndValue: ...

    @abc.abstractmethod
    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None: ...

    def close(self) -> None:
        """Release resources."""
