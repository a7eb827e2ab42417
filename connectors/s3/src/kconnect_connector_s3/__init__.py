"""kconnect S3 sink connector, compatible with Confluent's io.confluent.connect.s3.S3SinkConnector."""

from __future__ import annotations
