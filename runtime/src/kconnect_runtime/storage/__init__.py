"""Where the worker keeps offsets, connector configs, target states and statuses.

Standalone keeps offsets in a file and the rest in memory; distributed mode keeps all of it
in Kafka topics whose record keys and values follow Apache Kafka Connect's formats.
"""

from __future__ import annotations

from ._control import (
    BadRequestError,
    ControlStore,
    ForbiddenError,
    MemoryControlStore,
    connector_status_key,
    task_status_key,
)
from ._kafka import (
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    LogTail,
    RecoveredConnector,
    encode_json,
    parse_topic_status_key,
    replay_configs,
    topic_status_key,
)
from ._offsets import FileOffsetStore, MemoryOffsetStore, OffsetStore, TaskOffsetReader, offset_key

__all__ = [
    "BadRequestError",
    "ControlStore",
    "FileOffsetStore",
    "ForbiddenError",
    "KafkaControlStore",
    "KafkaLog",
    "KafkaOffsetStore",
    "LogTail",
    "MemoryControlStore",
    "MemoryOffsetStore",
    "OffsetStore",
    "RecoveredConnector",
    "TaskOffsetReader",
    "connector_status_key",
    "encode_json",
    "offset_key",
    "parse_topic_status_key",
    "replay_configs",
    "task_status_key",
    "topic_status_key",
]
