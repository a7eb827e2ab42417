"""Kafka Connect's simple converters: strings, raw bytes, fixed-width numbers and booleans.

Each converter writes the same bytes as its Apache Kafka Connect namesake and can be used
for keys, values and headers. Configure them under the usual prefixes, by Java class name
or short alias:

Example:
    .. code-block:: properties

        key.converter=org.apache.kafka.connect.storage.StringConverter
        key.converter.converter.encoding=UTF-8
        value.converter=org.apache.kafka.connect.converters.LongConverter
        header.converter=org.apache.kafka.connect.storage.SimpleHeaderConverter

Converters:
    ``StringConverter`` (``converter.encoding``, default UTF-8), ``ByteArrayConverter``,
    ``ShortConverter``/``IntegerConverter``/``LongConverter`` (2/4/8 bytes, big-endian
    two's complement), ``FloatConverter``/``DoubleConverter`` (IEEE-754 big-endian),
    ``BooleanConverter`` (one byte, 0x00 or 0x01), and the header-only
    ``SimpleHeaderConverter``. A null value and null bytes convert to each other.
"""

from __future__ import annotations

from ._bytes import ByteArrayConverter
from ._numbers import (
    BooleanConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    NumberConverter,
    ShortConverter,
)
from ._simple_header import SimpleHeaderConverter
from ._string import StringConverter

__all__ = [
    "BooleanConverter",
    "ByteArrayConverter",
    "DoubleConverter",
    "FloatConverter",
    "IntegerConverter",
    "LongConverter",
    "NumberConverter",
    "ShortConverter",
    "SimpleHeaderConverter",
    "StringConverter",
]
