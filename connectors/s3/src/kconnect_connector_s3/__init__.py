"""kconnect's S3 sink, compatible with Confluent's ``io.confluent.connect.s3.S3SinkConnector``.

The same config writes the same objects: same keys, same bytes (JSON, ByteArray, gzip),
same file boundaries, and the same exactly-once promise.

Example:
    .. code-block:: properties

        name=s3-sink
        connector.class=io.confluent.connect.s3.S3SinkConnector
        topics=orders
        s3.bucket.name=my-bucket
        s3.region=eu-west-1
        storage.class=io.confluent.connect.s3.storage.S3Storage
        format.class=io.confluent.connect.s3.format.json.JsonFormat
        partitioner.class=io.confluent.connect.storage.partitioner.DefaultPartitioner
        flush.size=1000

    writes ``topics/orders/partition=0/orders+0+0000000000.json`` and on.
"""

from __future__ import annotations

from ._config import CONFIG_DEF, S3SinkSettings, parse_settings
from ._task import S3SinkConnector, S3SinkTask

__all__ = ["CONFIG_DEF", "S3SinkConnector", "S3SinkSettings", "S3SinkTask", "parse_settings"]
