"""A Confluent-compatible Schema Registry (``kconnect schema-registry``).

It serves the Confluent Schema Registry REST API that serializers, converters and common
tools use, checks Avro compatibility (NONE, BACKWARD, FORWARD, FULL and their ``_TRANSITIVE``
forms) by Avro's schema-resolution rules, and keeps its state in a compacted Kafka topic in
Confluent's record format, so a restart keeps every subject, version and id.

Example:
    .. code-block:: properties

        listeners=http://0.0.0.0:8081
        kafkastore.bootstrap.servers=PLAINTEXT://localhost:9092
        kafkastore.topic=_schemas
        schema.compatibility.level=backward
"""

from __future__ import annotations

from ._server import SchemaRegistryServer, main

__all__ = ["SchemaRegistryServer", "main"]
