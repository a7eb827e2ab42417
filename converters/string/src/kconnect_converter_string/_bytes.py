"""ByteArrayConverter: raw bytes passed through unchanged."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import DataError, Headers, Schema, SchemaAndValue, Type

from ._base import KeyValueHeaderConverter

__all__ = ["ByteArrayConverter"]


class ByteArrayConverter(KeyValueHeaderConverter):
    """Bytes as they are (Kafka's ``org.apache.kafka.connect.converters.ByteArrayConverter``).

    Writing accepts ``bytes``, ``bytearray`` or ``memoryview`` with a BYTES schema or none;
    reading always reports an optional bytes schema.
    """

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BYTES:
            raise DataError(
                f"Invalid schema type for ByteArrayConverter: {schema.type.value} (topic "
                f"{topic!r}); it only writes BYTES, use another converter for other types"
            )
        if value is None:
            return None
        if isinstance(value, bytes):
            return value
        if isinstance(value, bytearray | memoryview):
            return bytes(value)
        raise DataError(
            f"ByteArrayConverter is not compatible with objects of type "
            f"{type(value).__name__} (topic {topic!r}); give it bytes"
        )

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        return SchemaAndValue(Schema.OPTIONAL_BYTES, data)
