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

from kconnect_sdk.java import JavaDateFormat

from ._by_logical_table_router import ByLogicalTableRouter
from ._cast import CastKey, CastValue
from ._confluent_filter import ConfluentFilterKey, ConfluentFilterValue
from ._drop import DropKey, DropValue
from ._drop_headers import DropHeaders
from ._extract_field import ExtractFieldKey, ExtractFieldValue
from ._extract_new_record_state import ExtractNewRecordState
from ._extract_topic import ExtractTopicHeader, ExtractTopicKey, ExtractTopicValue
from ._filter import Filter
from ._flatten import FlattenKey, FlattenValue
from ._has_header_key import HasHeaderKey
from ._header_from import HeaderFromKey, HeaderFromValue
from ._hoist_field import HoistFieldKey, HoistFieldValue
from ._insert_field import InsertFieldKey, InsertFieldValue
from ._insert_header import InsertHeader
from ._mask_field import MaskFieldKey, MaskFieldValue
from ._message_timestamp_router import MessageTimestampRouter
from ._record_is_tombstone import RecordIsTombstone
from ._regex_router import RegexRouter
from ._replace_field import ReplaceFieldKey, ReplaceFieldValue
from ._set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from ._timestamp_converter import TimestampConverterKey, TimestampConverterValue
from ._timestamp_router import TimestampRouter
from ._tombstone_handler import TombstoneHandler
from ._topic_name_matches import TopicNameMatches
from ._value_to_key import ValueToKey

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
