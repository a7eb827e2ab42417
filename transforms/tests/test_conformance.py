"""Every transform and predicate of kconnect-transforms against the kconnect-testkit suites.

Each class names one plugin by its Kafka (or Confluent, Debezium) class name and gives a
working config and one the plugin must refuse; records default to the testkit's samples
(a struct with a schema, a schemaless map and a tombstone).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, Struct, Timestamp
from kconnect_testkit import PredicateSuite, RecordFactory, Scenario, TransformSuite

A = "org.apache.kafka.connect.transforms."
C = "io.confluent.connect.transforms."
D = "io.debezium.transforms."


def scenario(config: dict[str, str], bad: dict[str, Any], **hooks: Any) -> list[Scenario]:
    return [Scenario(id="default", config=config, bad_config=bad, **hooks)]


_TS_SCHEMA = (
    SchemaBuilder.struct()
    .name("kc.test.Event")
    .field("id", Schema.INT64)
    .field("ts", Timestamp.builder().optional().build())
    .build()
)
_TS = dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.UTC)


def timestamped_records() -> list[SinkRecord]:
    factory = RecordFactory()
    struct = Struct(_TS_SCHEMA).put("id", 1).put("ts", _TS)
    return [
        SinkRecord(topic="kc-test", kafka_partition=0, value_schema=_TS_SCHEMA, value=struct),
        SinkRecord(topic="kc-test", kafka_partition=0, value={"id": 2, "ts": 1709296200000}),
        factory.tombstone(offset=2),
    ]


def debezium_records() -> list[SinkRecord]:
    row = SchemaBuilder.struct().name("db.t.Value").field("id", Schema.INT32).optional().build()
    envelope = (
        SchemaBuilder.struct()
        .name("db.t.Envelope")
        .field("before", row)
        .field("after", row)
        .field("op", Schema.STRING)
        .build()
    )
    value = (
        Struct(envelope).put("before", None).put("after", Struct(row).put("id", 1)).put("op", "c")
    )
    return [
        SinkRecord(topic="db.t", kafka_partition=0, value_schema=envelope, value=value),
        RecordFactory("db.t").tombstone(offset=1),
    ]


def struct_key_records() -> list[SinkRecord]:
    """The samples with their value also as key (key transforms need structured keys)."""
    struct, schemaless, tombstone = RecordFactory().samples()
    keyed = struct.new_record(key_schema=struct.value_schema, key=struct.value)
    return [keyed, schemaless, tombstone.new_record(key={"id": 9}, key_schema=None)]


class TestCastValue(TransformSuite):
    plugin = A + "Cast$Value"
    scenarios = scenario({"spec": "id:string"}, {"spec": "id:bytes"})


class TestCastKey(TransformSuite):
    plugin = A + "Cast$Key"
    scenarios = scenario({"spec": "int64"}, {"spec": "id:bytes"}, records="int_keys")

    def int_keys(self) -> list[SinkRecord]:
        factory = RecordFactory()
        return [factory.samples()[0], factory.tombstone(offset=1)]


class TestDropHeaders(TransformSuite):
    plugin = A + "DropHeaders"
    scenarios = scenario({"headers": "source"}, {})


class TestExtractFieldValue(TransformSuite):
    plugin = A + "ExtractField$Value"
    scenarios = scenario({"field": "id"}, {"field": "id", "field.syntax.version": "V3"})


class TestExtractFieldKey(TransformSuite):
    plugin = A + "ExtractField$Key"
    scenarios = scenario(
        {"field": "id"},
        {"field": "id", "field.syntax.version": "V3"},
        records=struct_key_records,
    )


class TestFilter(TransformSuite):
    plugin = A + "Filter"
    scenarios = [Scenario(id="default")]
    waivers = {"test_invalid_config_rejected": "Filter has no config keys to get wrong"}


class TestFlattenValue(TransformSuite):
    plugin = A + "Flatten$Value"
    scenarios = scenario({"delimiter": "_"}, {"delimiter": None})


class TestHeaderFromValue(TransformSuite):
    plugin = A + "HeaderFrom$Value"
    scenarios = scenario(
        {"fields": "id", "headers": "hid", "operation": "copy"},
        {"fields": "id", "headers": "hid", "operation": "cut"},
    )


class TestHoistFieldValue(TransformSuite):
    plugin = A + "HoistField$Value"
    scenarios = scenario({"field": "wrapped"}, {})


class TestInsertFieldValue(TransformSuite):
    plugin = A + "InsertField$Value"
    scenarios = scenario({"topic.field": "topic"}, {"replace.null.with.default": "nope"})


class TestInsertHeader(TransformSuite):
    plugin = A + "InsertHeader"
    scenarios = scenario({"header": "h2", "value.literal": "x"}, {"header": "h2"})


class TestMaskFieldValue(TransformSuite):
    plugin = A + "MaskField$Value"
    scenarios = scenario({"fields": "name"}, {"fields": "name", "replacement": ""})


class TestRegexRouter(TransformSuite):
    plugin = A + "RegexRouter"
    scenarios = scenario(
        {"regex": "(.*)", "replacement": "$1-x"}, {"regex": "(", "replacement": "x"}
    )


class TestReplaceFieldValue(TransformSuite):
    plugin = A + "ReplaceField$Value"
    scenarios = scenario({"exclude": "name"}, {"renames": "id"})


class TestSetSchemaMetadataValue(TransformSuite):
    plugin = A + "SetSchemaMetadata$Value"
    scenarios = scenario(
        {"schema.name": "renamed"}, {"schema.version": "abc"}, records="records_with_schema"
    )

    def records_with_schema(self) -> list[SinkRecord]:
        factory = RecordFactory()
        return [factory.samples()[0], factory.tombstone(offset=1)]


class TestTimestampConverterValue(TransformSuite):
    plugin = A + "TimestampConverter$Value"
    scenarios = scenario(
        {"field": "ts", "target.type": "unix"},
        {"target.type": "epoch"},
        records=timestamped_records,
    )


class TestTimestampRouter(TransformSuite):
    plugin = A + "TimestampRouter"
    scenarios = scenario({}, {"timestamp.format": "yyyy-qq"})


class TestValueToKey(TransformSuite):
    plugin = A + "ValueToKey"
    scenarios = scenario({"fields": "id"}, {"fields": ""})


class TestConfluentDropValue(TransformSuite):
    plugin = C + "Drop$Value"
    scenarios = scenario({}, {"schema.behavior": "keep"})


class TestTombstoneHandler(TransformSuite):
    plugin = C + "TombstoneHandler"
    scenarios = scenario({}, {"behavior": "explode"})


class TestConfluentFilterValue(TransformSuite):
    plugin = C + "Filter$Value"
    scenarios = scenario(
        {"filter.condition": "$[?(@.id == 8)]", "filter.type": "include"},
        {"filter.condition": "$[?(@.id ==]", "filter.type": "include"},
    )


class TestExtractNewRecordState(TransformSuite):
    plugin = D + "ExtractNewRecordState"
    scenarios = scenario(
        {}, {"delete.tombstone.handling.mode": "explode"}, records=debezium_records
    )


class TestByLogicalTableRouter(TransformSuite):
    plugin = D + "ByLogicalTableRouter"
    scenarios = scenario(
        {"topic.regex": "(.*)", "topic.replacement": "all"},
        {"topic.regex": "(", "topic.replacement": "all"},
        records=debezium_records,
    )


class TestFlattenKey(TransformSuite):
    plugin = A + "Flatten$Key"
    scenarios = scenario({"delimiter": "_"}, {"delimiter": None}, records=struct_key_records)


class TestHeaderFromKey(TransformSuite):
    plugin = A + "HeaderFrom$Key"
    scenarios = scenario(
        {"fields": "id", "headers": "hid", "operation": "copy"},
        {"fields": "id", "headers": "hid", "operation": "cut"},
        records=struct_key_records,
    )


class TestHoistFieldKey(TransformSuite):
    plugin = A + "HoistField$Key"
    scenarios = scenario({"field": "wrapped"}, {})


class TestInsertFieldKey(TransformSuite):
    plugin = A + "InsertField$Key"
    scenarios = scenario(
        {"topic.field": "topic"},
        {"replace.null.with.default": "nope"},
        records=struct_key_records,
    )


class TestMaskFieldKey(TransformSuite):
    plugin = A + "MaskField$Key"
    scenarios = scenario(
        {"fields": "name"}, {"fields": "name", "replacement": ""}, records=struct_key_records
    )


class TestReplaceFieldKey(TransformSuite):
    plugin = A + "ReplaceField$Key"
    scenarios = scenario({"exclude": "name"}, {"renames": "id"}, records=struct_key_records)


class TestSetSchemaMetadataKey(TransformSuite):
    plugin = A + "SetSchemaMetadata$Key"
    scenarios = scenario(
        {"schema.name": "renamed"}, {"schema.version": "abc"}, records="schema_keys"
    )

    def schema_keys(self) -> list[SinkRecord]:
        return [struct_key_records()[0], RecordFactory().tombstone(offset=1)]


class TestTimestampConverterKey(TransformSuite):
    plugin = A + "TimestampConverter$Key"
    scenarios = scenario(
        {"field": "ts", "target.type": "unix"}, {"target.type": "epoch"}, records="ts_keys"
    )

    def ts_keys(self) -> list[SinkRecord]:
        keyed = [
            r.new_record(key_schema=r.value_schema, key=r.value) for r in timestamped_records()[:2]
        ]
        return [*keyed, keyed[0].new_record(value_schema=None, value=None)]


class TestConfluentDropKey(TransformSuite):
    plugin = C + "Drop$Key"
    scenarios = scenario({}, {"schema.behavior": "keep"})


class TestExtractTopicValue(TransformSuite):
    plugin = C + "ExtractTopic$Value"
    scenarios = scenario({"field": "name"}, {"field.format": "xpath"}, records="named_values")

    def named_values(self) -> list[SinkRecord]:
        return RecordFactory().samples()[:2]


class TestExtractTopicKey(TransformSuite):
    plugin = C + "ExtractTopic$Key"
    scenarios = scenario(
        {"field": "name", "skip.missing.or.null": "true"},
        {"field.format": "xpath"},
        records=struct_key_records,
    )


class TestExtractTopicHeader(TransformSuite):
    plugin = C + "ExtractTopic$Header"
    scenarios = scenario(
        {"field": "source", "skip.missing.or.null": "true"},
        {"field": "source", "skip.missing.or.null": "sometimes"},
    )


class TestConfluentFilterKey(TransformSuite):
    plugin = C + "Filter$Key"
    scenarios = scenario(
        {"filter.condition": "$[?(@.id == 8)]", "filter.type": "include"},
        {"filter.condition": "$[?(@.id ==]", "filter.type": "include"},
        records=struct_key_records,
    )


class TestMessageTimestampRouter(TransformSuite):
    plugin = C + "MessageTimestampRouter"
    scenarios = scenario({"message.timestamp.keys": "ts"}, {}, records="epoch_values")

    def epoch_values(self) -> list[SinkRecord]:
        return [timestamped_records()[1], RecordFactory().tombstone(offset=2)]


class TestHasHeaderKey(PredicateSuite):
    plugin = A + "predicates.HasHeaderKey"
    scenarios = scenario({"name": "source"}, {"name": ""})


class TestRecordIsTombstone(PredicateSuite):
    plugin = A + "predicates.RecordIsTombstone"
    scenarios = [Scenario(id="default")]
    waivers = {"test_invalid_config_rejected": "RecordIsTombstone has no config keys to get wrong"}


class TestTopicNameMatches(PredicateSuite):
    plugin = A + "predicates.TopicNameMatches"
    scenarios = scenario({"pattern": "kc-.*"}, {"pattern": "("})
