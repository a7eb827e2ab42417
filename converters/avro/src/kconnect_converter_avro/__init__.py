"""Confluent's AvroConverter for kconnect: Avro in Confluent's wire format, schemas in a registry.

Each key, value or header is written as magic byte 0, the 4-byte big-endian schema id and
the Avro binary body, exactly as ``io.confluent.connect.avro.AvroConverter`` writes it, so
topics are shared with Java Kafka Connect, Kafka Streams and confluent-kafka clients.

Example:
    .. code-block:: properties

        value.converter=io.confluent.connect.avro.AvroConverter
        value.converter.schema.registry.url=http://localhost:8081
        value.converter.auto.register.schemas=true
        value.converter.value.subject.name.strategy=io.confluent.kafka.serializers.subject.TopicNameStrategy
        # In-process registry for tests and trials:
        # value.converter.schema.registry.url=mock://demo

The Connect <-> Avro mapping (:class:`AvroData`) is public so other plugins (the S3 sink's
Avro and Parquet formats) write the same Avro schemas and data.
"""

from __future__ import annotations

from ._avro_data import (
    ANYTHING_SCHEMA,
    AvroData,
    AvroDataSettings,
    avro_data_config_def,
    render_avro_schema,
    scrub_name,
)
from ._config import AvroConverterSettings, avro_converter_config_def
from ._converter import AvroConverter, drop_mock_schema_registry, mock_schema_registry_client

__all__ = [
    "ANYTHING_SCHEMA",
    "AvroConverter",
    "AvroConverterSettings",
    "AvroData",
    "AvroDataSettings",
    "avro_converter_config_def",
    "avro_data_config_def",
    "drop_mock_schema_registry",
    "mock_schema_registry_client",
    "render_avro_schema",
    "scrub_name",
]
