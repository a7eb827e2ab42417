"""Debezium-style ExtractNewRecordState and ByLogicalTableRouter."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import Schema, SchemaBuilder, SinkRecord, SourceRecord, Struct, Transformation
from kconnect_transforms import ByLogicalTableRouter, ExtractNewRecordState

ROW = (
    SchemaBuilder.struct()
    .name("db1.inventory.customers.Value")
    .optional()
    .field("id", Schema.INT32)
    .field("email", Schema.OPTIONAL_STRING)
    .build()
)
SOURCE = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.mysql.Source")
    .field("db", Schema.STRING)
    .field("table", Schema.STRING)
    .field("ts_ms", Schema.INT64)
    .build()
)
ENVELOPE = (
    SchemaBuilder.struct()
    .name("db1.inventory.customers.Envelope")
    .field("before", ROW)
    .field("after", ROW)
    .field("source", SOURCE)
    .field("op", Schema.STRING)
    .field("ts_ms", Schema.OPTIONAL_INT64)
    .build()
)
KEY = SchemaBuilder.struct().name("db1.inventory.customers.Key").field("id", Schema.INT32).build()


def build(cls: type[Transformation[Any]], config: dict[str, str]) -> Transformation[Any]:
    transform = cls()
    transform.configure(config)
    return transform


def row(id_: int, email: str) -> Struct:
    return Struct(ROW).put("id", id_).put("email", email)


def event(op: str, before: Struct | None, after: Struct | None) -> SourceRecord:
    source = Struct(SOURCE).put("db", "inventory").put("table", "customers").put("ts_ms", 1000)
    value = (
        Struct(ENVELOPE)
        .put("before", before)
        .put("after", after)
        .put("source", source)
        .put("op", op)
        .put("ts_ms", 2000)
    )
    return SourceRecord(
        topic="db1.inventory.customers",
        key_schema=KEY,
        key=Struct(KEY).put("id", 1),
        value_schema=ENVELOPE,
        value=value,
    )


def test_unwrap_create_gives_the_after_row() -> None:
    out = build(ExtractNewRecordState, {}).apply(event("c", None, row(1, "a@x")))
    assert out is not None
    assert out.value_schema == ROW
    assert out.value.to_dict() == {"id": 1, "email": "a@x"}


@pytest.mark.parametrize(
    ("config", "delete", "tombstone"),
    [
        ({}, "tombstone", "kept"),
        ({"delete.tombstone.handling.mode": "drop"}, "dropped", "dropped"),
        ({"delete.tombstone.handling.mode": "rewrite"}, "rewritten", "dropped"),
        ({"delete.tombstone.handling.mode": "rewrite-with-tombstone"}, "rewritten", "kept"),
        ({"delete.tombstone.handling.mode": "delete-to-tombstone"}, "tombstone", "dropped"),
        ({"drop.tombstones": "false", "delete.handling.mode": "none"}, "tombstone", "kept"),
        ({"drop.tombstones": "true"}, "dropped", "dropped"),
        ({"delete.handling.mode": "rewrite"}, "rewritten", "dropped"),
    ],
)
def test_unwrap_delete_and_tombstone_handling(
    config: dict[str, str], delete: str, tombstone: str
) -> None:
    transform = build(ExtractNewRecordState, config)
    deleted = transform.apply(event("d", row(1, "gone@x"), None))
    if delete == "dropped":
        assert deleted is None
    elif delete == "tombstone":
        assert deleted is not None and deleted.value is None and deleted.key is not None
    else:
        assert deleted is not None
        assert deleted.value.to_dict() == {"id": 1, "email": "gone@x", "__deleted": "true"}
    grave = event("d", None, None).new_record(value=None, value_schema=None)
    kept = transform.apply(grave)
    assert (kept is grave) if tombstone == "kept" else kept is None


def test_unwrap_rewrite_marks_live_rows_not_deleted() -> None:
    out = build(ExtractNewRecordState, {"delete.tombstone.handling.mode": "rewrite"}).apply(
        event("u", row(1, "o"), row(1, "n"))
    )
    assert out is not None and out.value.to_dict() == {"id": 1, "email": "n", "__deleted": "false"}


def test_unwrap_add_fields_and_headers() -> None:
    transform = build(
        ExtractNewRecordState,
        {
            "add.fields": "op,table,source.ts_ms,db:database",
            "add.headers": "op,ts_ms",
            "add.headers.prefix": "dbz.",
        },
    )
    out = transform.apply(event("u", row(1, "old"), row(1, "new")))
    assert out is not None
    assert out.value.to_dict() == {
        "id": 1,
        "email": "new",
        "__op": "u",
        "__table": "customers",
        "__source_ts_ms": 1000,
        "__database": "inventory",
    }
    assert out.value_schema is not None
    assert all(f.schema.optional for f in out.value_schema.fields[2:])
    assert [(h.key, h.value) for h in out.headers] == [("dbz.op", "u"), ("dbz.ts_ms", 2000)]


def test_unwrap_route_by_field_and_schemaless_envelopes() -> None:
    value = {"before": None, "after": {"id": 1, "kind": "vip"}, "op": "c", "source": {"table": "t"}}
    out = build(ExtractNewRecordState, {"route.by.field": "kind", "add.fields": "table"}).apply(
        SinkRecord(topic="x", value=value)
    )
    assert out is not None
    assert out.topic == "vip"
    assert out.value == {"id": 1, "kind": "vip", "__table": "t"}


def test_unwrap_passes_non_change_events_unchanged() -> None:
    heartbeat = SinkRecord(topic="__debezium-heartbeat", value={"ts_ms": 1})
    assert build(ExtractNewRecordState, {}).apply(heartbeat) is heartbeat


# Configured as in the seed (a Debezium MySQL connector, blog notes 000): every table's
# topic is rerouted to one topic, and keys gain the physical table's topic.
SEED_ROUTER = {
    "topic.replacement": "database-1.admincoin.mutations",
    "topic.regex": "(.*)",
}


def test_by_logical_table_router_as_configured_in_the_seed() -> None:
    router = build(ByLogicalTableRouter, SEED_ROUTER)
    out = router.apply(event("c", None, row(1, "a@x")))
    assert out is not None
    assert out.topic == "database-1.admincoin.mutations"
    assert out.key_schema is not None
    assert out.key_schema.name == "database-1.admincoin.mutations.Key"
    assert out.key.to_dict() == {
        "id": 1,
        "__dbz__physicalTableIdentifier": "db1.inventory.customers",
    }
    assert (
        out.value_schema is not None
        and out.value_schema.name == "database-1.admincoin.mutations.Envelope"
    )
    after = out.value.get("after")
    assert after.schema.name == "database-1.admincoin.mutations.Value"
    assert after.to_dict() == {"id": 1, "email": "a@x"}
    # Keys of two tables with the same id stay distinct.
    other = event("c", None, row(1, "b@x")).new_record(topic="db1.inventory.orders")
    other_out = router.apply(other)
    assert other_out is not None and other_out.key != out.key


def test_by_logical_table_router_key_field_regex_and_non_matching_topics() -> None:
    router = build(
        ByLogicalTableRouter,
        {
            "topic.regex": "(.*)customers_shard(.*)",
            "topic.replacement": "$1customers_all_shards",
            "key.field.name": "shard_id",
            "key.field.regex": "(.*)customers_shard(.*)",
            "key.field.replacement": "$2",
        },
    )
    rec = SinkRecord(topic="myserver.mydb.customers_shard1", key={"id": 1}, value={"a": 1})
    out = router.apply(rec)
    assert out is not None
    assert out.topic == "myserver.mydb.customers_all_shards"
    assert out.key == {"id": 1, "shard_id": "1"}
    untouched = SinkRecord(topic="other", key={"id": 1}, value={"a": 1})
    assert router.apply(untouched) is untouched
