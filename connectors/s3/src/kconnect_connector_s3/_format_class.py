"""``format.class``: the Format for a simple Java class name (JsonFormat, AvroFormat, ...).

Avro and Parquet are imported only when a connector uses them: they bring fastavro and
pyarrow, which a JSON or ByteArray sink never needs.
"""

from __future__ import annotations

from collections.abc import Callable

from ._config import S3SinkSettings
from ._formats import ByteArrayFormat, Format, JsonFormat

__all__ = ["new_format"]


def new_format(name: str, settings: S3SinkSettings) -> Format:
    """The format for a simple Java class name (JsonFormat, AvroFormat, ...)."""
    factories: dict[str, Callable[[S3SinkSettings], Format]] = {
        "JsonFormat": JsonFormat,
        "ByteArrayFormat": ByteArrayFormat,
    }
    if name == "AvroFormat":
        from ._avro import AvroFormat

        return AvroFormat(settings)
    if name == "ParquetFormat":
        from ._parquet import ParquetFormat

        return ParquetFormat(settings)
    return factories[name](settings)
