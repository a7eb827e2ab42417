"""Number and boolean converters in the wire formats of Kafka's own serializers."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any, ClassVar

from kconnect_sdk import DataError, Headers, Schema, SchemaAndValue, Type

from ._base import KeyValueHeaderConverter

__all__ = [
    "BooleanConverter",
    "DoubleConverter",
    "FloatConverter",
    "IntegerConverter",
    "LongConverter",
    "NumberConverter",
    "ShortConverter",
]


# The Java class of a Connect value of each primitive type, as Kafka's errors name it.
_JAVA_CLASS = {
    Type.INT8: "Byte",
    Type.INT16: "Short",
    Type.INT32: "Integer",
    Type.INT64: "Long",
    Type.FLOAT32: "Float",
    Type.FLOAT64: "Double",
    Type.BOOLEAN: "Boolean",
    Type.STRING: "String",
}


_INT_RANGES = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
}
_NUMBER_TYPES = frozenset(
    (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64)
)


def _java_class(schema_type: Type, value: Any) -> str | None:
    """The Java class Kafka would hold ``value`` in, under a schema of ``schema_type``.

    A number takes the class its schema names (an int under INT8 is a Byte, under FLOAT32
    a Float); under a schema that does not describe it, a Python int is a Long and a float
    a Double, as Connect's schemaless values are. None for values that are no number.
    """
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        if (
            schema_type in _INT_RANGES
            and not _INT_RANGES[schema_type][0] <= value <= (_INT_RANGES[schema_type][1])
        ):
            return "Long"  # no Short or Byte holds it
        return _JAVA_CLASS[schema_type] if schema_type in _NUMBER_TYPES else "Long"
    if isinstance(value, float):
        floats = (Type.FLOAT32, Type.FLOAT64)
        return _JAVA_CLASS[schema_type] if schema_type in floats else "Double"
    if isinstance(value, str):
        return "String"
    return None


class NumberConverter(KeyValueHeaderConverter):
    """Base of the fixed-width number converters: big-endian, as Kafka's serializers write.

    Subclasses set the struct format, the Kafka type name and the schema reported on read.
    """

    type_name: ClassVar[str]
    deserializer_name: ClassVar[str]
    schema: ClassVar[Schema]
    _codec: ClassVar[struct.Struct]
    _is_float: ClassVar[bool] = False
    _range: ClassVar[tuple[int, int]] = (0, 0)

    def _check(self, topic: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise DataError(
                f"Failed to serialize to {self.type_name} (was {type(value).__name__}) for "
                f"topic {topic!r}: the value must be a number"
            )
        if self._is_float:
            return float(value)
        lo, hi = self._range
        if not lo <= value <= hi:
            raise DataError(
                f"Failed to serialize to {self.type_name} for topic {topic!r}: {value} is out of "
                f"range [{lo}, {hi}]; use a wider converter such as LongConverter"
            )
        return value

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if value is None:
            return None
        # Kafka's serializer casts the value to its own class (Kafka never reads the
        # schema): a Byte is not a Short, a Double not a Float. Without a schema a number
        # is taken as the converter's own type.
        found = _java_class(schema.type if schema is not None else self.schema.type, value)
        own = _JAVA_CLASS[self.schema.type]
        if found is not None and found != own:
            hint = (
                "the value must be a number"
                if found in ("Boolean", "String")
                else f"the value is a {found}; use the converter of that type"
            )
            raise DataError(
                f"Failed to serialize to {self.type_name} (was class java.lang.{found}) for "
                f"topic {topic!r}: {hint}"
            )
        value = self._check(topic, value)
        try:
            return self._codec.pack(value)
        except (struct.error, OverflowError) as exc:
            raise DataError(
                f"Failed to serialize to {self.type_name} for topic {topic!r}: {value} does not "
                f"fit in a {self.type_name}; use DoubleConverter"
            ) from exc

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(self.schema, None)
        if len(data) != self._codec.size:
            raise DataError(
                f"Failed to deserialize {self.type_name} from topic {topic!r}: size of data "
                f"received by {self.deserializer_name} is not {self._codec.size} (got "
                f"{len(data)} bytes); check that the topic holds {self.type_name} values"
            )
        return SchemaAndValue(self.schema, self._codec.unpack(data)[0])

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        schema = self.schema
        unpack = self._codec.unpack
        size = self._codec.size
        out: list[SchemaAndValue] = []
        append = out.append
        for topic, data in items:
            if data is None:
                append(SchemaAndValue(schema, None))
            elif len(data) == size:
                append(SchemaAndValue(schema, unpack(data)[0]))
            else:
                append(self.to_connect_data(topic, data))
        return out


class ShortConverter(NumberConverter):
    """int16 as 2 big-endian bytes (``org.apache.kafka.connect.converters.ShortConverter``)."""

    type_name = "short"
    deserializer_name = "ShortDeserializer"
    schema = Schema.OPTIONAL_INT16
    _codec = struct.Struct(">h")
    _range = (-(2**15), 2**15 - 1)


class IntegerConverter(NumberConverter):
    """int32 as 4 big-endian bytes (``org.apache.kafka.connect.converters.IntegerConverter``)."""

    type_name = "integer"
    deserializer_name = "IntegerDeserializer"
    schema = Schema.OPTIONAL_INT32
    _codec = struct.Struct(">i")
    _range = (-(2**31), 2**31 - 1)


class LongConverter(NumberConverter):
    """int64 as 8 big-endian bytes (``org.apache.kafka.connect.converters.LongConverter``)."""

    type_name = "long"
    deserializer_name = "LongDeserializer"
    schema = Schema.OPTIONAL_INT64
    _codec = struct.Struct(">q")
    _range = (-(2**63), 2**63 - 1)


class FloatConverter(NumberConverter):
    """float32 as 4 IEEE-754 big-endian bytes (``...converters.FloatConverter``)."""

    type_name = "float"
    deserializer_name = "FloatDeserializer"
    schema = Schema.OPTIONAL_FLOAT32
    _codec = struct.Struct(">f")
    _is_float = True


class DoubleConverter(NumberConverter):
    """float64 as 8 IEEE-754 big-endian bytes (``...converters.DoubleConverter``)."""

    type_name = "double"
    deserializer_name = "DoubleDeserializer"
    schema = Schema.OPTIONAL_FLOAT64
    _codec = struct.Struct(">d")
    _is_float = True


_TRUE = b"\x01"
_FALSE = b"\x00"


class BooleanConverter(KeyValueHeaderConverter):
    """Booleans as one byte, 0x01 or 0x00 (``...converters.BooleanConverter``)."""

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BOOLEAN:
            raise DataError(
                f"Invalid schema type for BooleanConverter: {schema.type.value} (topic "
                f"{topic!r}); it only writes BOOLEAN"
            )
        if value is None:
            return None
        if not isinstance(value, bool):
            raise DataError(
                f"BooleanConverter is not compatible with objects of type "
                f"{type(value).__name__} (topic {topic!r}); give it True or False"
            )
        return _TRUE if value else _FALSE

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN, None)
        if len(data) != 1:
            raise DataError(
                f"Failed to deserialize boolean from topic {topic!r}: size of data received by "
                f"BooleanDeserializer is not 1 (got {len(data)} bytes)"
            )
        if data == _TRUE:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN, True)
        if data == _FALSE:
            return SchemaAndValue(Schema.OPTIONAL_BOOLEAN, False)
        raise DataError(
            f"Failed to deserialize boolean from topic {topic!r}: unexpected byte "
            f"0x{data[0]:02x} received by BooleanDeserializer; expected 0x00 or 0x01"
        )
