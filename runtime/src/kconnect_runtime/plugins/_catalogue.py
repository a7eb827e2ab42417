"""Which kconnect package provides a plugin a config names, for a plugin that is not installed.

Operators paste configs written for Java Kafka Connect: the class names are Kafka's,
Confluent's and Debezium's. When such a class is not installed, the useful answer is the
install line, not a list of similar names: ``JsonConverter`` is not a misspelt
``StringConverter``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CataloguePackage", "package_for"]


class CataloguePackage(NamedTuple):
    """A kconnect distribution and the ``kconnect`` extra that brings it (None: the base)."""

    distribution: str
    extra: str | None

    def install_line(self) -> str:
        bundle = f"'kconnect[{self.extra}]'" if self.extra else "kconnect"
        return f"pip install {bundle} (or pip install {self.distribution})"


_BASE_CONVERTERS = CataloguePackage("kconnect-converter-string", None)
_JSON = CataloguePackage("kconnect-converter-json", None)
_FILE = CataloguePackage("kconnect-connector-file", None)
_TRANSFORMS = CataloguePackage("kconnect-transforms", None)

# Java package (or class) prefixes, longest first where one contains another.
_PREFIXES: tuple[tuple[str, CataloguePackage], ...] = (
    ("org.apache.kafka.connect.json.", _JSON),
    ("org.apache.kafka.connect.storage.StringConverter", _BASE_CONVERTERS),
    ("org.apache.kafka.connect.storage.SimpleHeaderConverter", _BASE_CONVERTERS),
    ("org.apache.kafka.connect.converters.", _BASE_CONVERTERS),
    ("org.apache.kafka.connect.file.", _FILE),
    ("org.apache.kafka.connect.transforms.", _TRANSFORMS),
    ("io.debezium.transforms.", _TRANSFORMS),
    ("io.confluent.connect.transforms.", _TRANSFORMS),
    ("io.confluent.connect.avro.", CataloguePackage("kconnect-converter-avro", "avro")),
    ("io.confluent.connect.s3.", CataloguePackage("kconnect-connector-s3", "s3")),
    ("io.confluent.connect.storage.", CataloguePackage("kconnect-connector-s3", "s3")),
    ("io.confluent.connect.jdbc.", CataloguePackage("kconnect-connector-jdbc", "jdbc")),
    ("io.debezium.connector.mysql.", CataloguePackage("kconnect-connector-mysql", "mysql")),
    ("io.debezium.connector.mariadb.", CataloguePackage("kconnect-connector-mysql", "mysql")),
    ("org.apache.kafka.connect.mirror.", CataloguePackage("kconnect-connector-mirror", "mirror")),
)

# Simple names (Kafka's aliases) of the catalogue's best-known plugins.
_SIMPLE: dict[str, CataloguePackage] = {
    "JsonConverter": _JSON,
    "StringConverter": _BASE_CONVERTERS,
    "SimpleHeaderConverter": _BASE_CONVERTERS,
    "ByteArrayConverter": _BASE_CONVERTERS,
    "FileStreamSource": _FILE,
    "FileStreamSourceConnector": _FILE,
    "FileStreamSink": _FILE,
    "FileStreamSinkConnector": _FILE,
    "AvroConverter": CataloguePackage("kconnect-converter-avro", "avro"),
    "S3SinkConnector": CataloguePackage("kconnect-connector-s3", "s3"),
    "JdbcSourceConnector": CataloguePackage("kconnect-connector-jdbc", "jdbc"),
    "MySqlConnector": CataloguePackage("kconnect-connector-mysql", "mysql"),
    "MariaDbConnector": CataloguePackage("kconnect-connector-mysql", "mysql"),
    "MirrorSourceConnector": CataloguePackage("kconnect-connector-mirror", "mirror"),
    "MirrorCheckpointConnector": CataloguePackage("kconnect-connector-mirror", "mirror"),
    "MirrorHeartbeatConnector": CataloguePackage("kconnect-connector-mirror", "mirror"),
}


def package_for(name: str) -> CataloguePackage | None:
    """The kconnect package that provides the plugin ``name`` (a Java class name or a
    simple name), or None when it is none of the catalogue's."""
    name = name.strip()
    for prefix, package in _PREFIXES:
        if name.startswith(prefix):
            return package
    return _SIMPLE.get(name)
