"""kconnect AvroConverter with Confluent's wire format and Schema Registry support."""

from __future__ import annotations
