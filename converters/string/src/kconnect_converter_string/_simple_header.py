"""SimpleHeaderConverter: header values as readable text, their types inferred on read."""

from __future__ import annotations

import importlib.metadata
import logging
from typing import Any

from kconnect_sdk import HeaderConverter, Schema, SchemaAndValue, Values

__all__ = ["SimpleHeaderConverter"]

_log = logging.getLogger(__name__)


class SimpleHeaderConverter(HeaderConverter):
    """Kafka's default header converter (``org.apache.kafka.connect.storage.SimpleHeaderConverter``).

    Writing formats the value with ``Values.convert_to_string`` and encodes it as UTF-8;
    reading decodes UTF-8 (malformed bytes as U+FFFD, as Java does) and infers a schema with ``Values.parse_string`` (``42`` is INT8,
    ``true`` BOOLEAN, ``[1,2]`` an ARRAY...). Text that cannot be parsed is kept as a string.
    """

    deterministic = True  # a header's value depends on its bytes alone

    def version(self) -> str:
        try:
            return importlib.metadata.version("kconnect-converter-string")
        except importlib.metadata.PackageNotFoundError:
            return super().version()

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(None, None)
        # As Kafka's new String(bytes, UTF_8): bytes that are not UTF-8 read as U+FFFD.
        text = data.decode("utf-8", "replace")
        if not text:
            return SchemaAndValue(Schema.STRING, text)
        try:
            return Values.parse_string(text)
        except Exception:  # Kafka keeps unparsable text as a plain string, and so do we.
            _log.warning(
                "Failed to parse value of header %r on topic %r; keeping it as a string",
                header_key,
                topic,
                exc_info=True,
            )
            return SchemaAndValue(Schema.STRING, text)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        if value is None:
            return None
        text = Values.convert_to_string(schema, value)
        return None if text is None else text.encode("utf-8")
