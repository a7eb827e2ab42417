"""kconnect-transforms: every built-in Kafka Connect single message transform and predicate,
plus the Confluent and Debezium transforms users expect.

Configure them exactly as in Apache Kafka Connect, by their Java class names:

Example:
    ```properties
    transforms=addTs,route
    transforms.addTs.type=org.apache.kafka.connect.transforms.InsertField$Value
    transforms.addTs.timestamp.field=ts
    transforms.addTs.predicate=notTombstone
    transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter
    transforms.route.regex=(.*)-raw
    transforms.route.replacement=$1
    predicates=notTombstone
    predicates.notTombstone.type=org.apache.kafka.connect.transforms.predicates.RecordIsTombstone
    transforms.addTs.negate=true
    ```

Every transform handles records with schemas (Structs; the derived output schema is
cached per input schema) and schemaless records (dicts), never mutates its input, and
raises ``DataError`` naming itself and the field for a record it cannot handle.
"""

from __future__ import annotations

from ._cast import CastKey, CastValue
from ._confluent import (
    ConfluentFilterKey,
    ConfluentFilterValue,
    DropKey,
    DropValue,
    ExtractTopicHeader,
    ExtractTopicKey,
    ExtractTopicValue,
    TombstoneHandler,
)
from ._dateformat import JavaDateFormat
from ._debezium import ByLogicalTableRouter, ExtractNewRecordState
from ._fields import (
    ExtractFieldKey,
    ExtractFieldValue,
    HoistFieldKey,
    HoistFieldValue,
    MaskFieldKey,
    MaskFieldValue,
    ReplaceFieldKey,
    ReplaceFieldValue,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
    ValueToKey,
)
from ._filter import Filter, HasHeaderKey, RecordIsTombstone, TopicNameMatches
from ._flatten import FlattenKey, FlattenValue
from ._header_transforms import DropHeaders, HeaderFromKey, HeaderFromValue, InsertHeader
from ._insert_field import InsertFieldKey, InsertFieldValue
from ._routers import MessageTimestampRouter, RegexRouter, TimestampRouter
from ._timestamp_converter import TimestampConverterKey, TimestampConverterValue

__all__ = [
    "ByLogicalTableRouter",
    "CastKey",
    "CastValue",
    "ConfluentFilterKey",
    "ConfluentFilterValue",
    "DropHeaders",
    "DropKey",
    "DropValue",
    "ExtractFieldKey",
    "ExtractFieldValue",
    "ExtractNewRecordState",
    "ExtractTopicHeader",
    "ExtractTopicKey",
    "ExtractTopicValue",
    "Filter",
    "FlattenKey",
    "FlattenValue",
    "HasHeaderKey",
    "HeaderFromKey",
    "HeaderFromValue",
    "HoistFieldKey",
    "HoistFieldValue",
    "InsertFieldKey",
    "InsertFieldValue",
    "InsertHeader",
    "JavaDateFormat",
    "MaskFieldKey",
    "MaskFieldValue",
    "MessageTimestampRouter",
    "RecordIsTombstone",
    "RegexRouter",
    "ReplaceFieldKey",
    "ReplaceFieldValue",
    "SetSchemaMetadataKey",
    "SetSchemaMetadataValue",
    "TimestampConverterKey",
    "TimestampConverterValue",
    "TimestampRouter",
    "TombstoneHandler",
    "TopicNameMatches",
    "ValueToKey",
]
