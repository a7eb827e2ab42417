"""The simple converters against the kconnect-testkit ConverterSuite."""

from __future__ import annotations

from kconnect_testkit import ConverterSuite, Scenario

K = "org.apache.kafka.connect."


class TestStringConverter(ConverterSuite):
    plugin = K + "storage.StringConverter"
    scenarios = [
        Scenario(id="utf8", corpus=("tombstone", "null_optional", "string", "unicode")),
        Scenario(id="utf16", config={"converter.encoding": "UTF-16"}, corpus=("string", "unicode")),
    ]


class TestByteArrayConverter(ConverterSuite):
    plugin = K + "converters.ByteArrayConverter"
    scenarios = [Scenario(id="bytes", corpus=("tombstone", "bytes"))]


class TestShortConverter(ConverterSuite):
    plugin = K + "converters.ShortConverter"
    # Not int8: Kafka's ShortSerializer refuses a Byte, and so does the converter.
    scenarios = [Scenario(id="int16", corpus=("tombstone", "int16"))]


class TestIntegerConverter(ConverterSuite):
    plugin = K + "converters.IntegerConverter"
    scenarios = [Scenario(id="int32", corpus=("tombstone", "int32"))]


class TestLongConverter(ConverterSuite):
    plugin = K + "converters.LongConverter"
    scenarios = [Scenario(id="int64", corpus=("tombstone", "int64"))]


class TestFloatConverter(ConverterSuite):
    plugin = K + "converters.FloatConverter"
    scenarios = [Scenario(id="float32", corpus=("tombstone", "float32"))]


class TestDoubleConverter(ConverterSuite):
    plugin = K + "converters.DoubleConverter"
    scenarios = [Scenario(id="float64", corpus=("tombstone", "float64"))]


class TestBooleanConverter(ConverterSuite):
    plugin = K + "converters.BooleanConverter"
    scenarios = [Scenario(id="boolean", corpus=("tombstone", "boolean"))]
