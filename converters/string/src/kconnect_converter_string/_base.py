"""The shape every converter in this package shares: one object, usable for keys, values and headers."""

from __future__ import annotations

import abc
import importlib.metadata
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import Converter, HeaderConverter, Schema, SchemaAndValue

__all__ = ["KeyValueHeaderConverter"]


class KeyValueHeaderConverter(Converter, HeaderConverter, abc.ABC):
    """A converter that is also a header converter, as Kafka's simple converters are.

    Header conversion ignores the header key and behaves exactly like value conversion.
    """

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Receive the config (prefix stripped); ``is_key`` is False for header use."""
        self.is_key = is_key
        self._configure(configs)

    def _configure(self, configs: Mapping[str, Any]) -> None:
        """Parse this converter's own settings; the default has none."""

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def version(self) -> str:
        # Ask by distribution name: the SDK's module-based lookup misses editable installs.
        try:
            return importlib.metadata.version("kconnect-converter-string")
        except importlib.metadata.PackageNotFoundError:
            return super().version()

    def close(self) -> None:
        """Nothing to release."""
