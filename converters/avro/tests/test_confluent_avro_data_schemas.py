"""Methods of Confluent's ``AvroDataTest`` on Avro schemas read into Connect: metadata with and
without ``connect.meta.data``, ``connect.default``, record defaults, logical type names and
versions, and recursive (cyclic) schemas.

One test per upstream method, named after it; expected values are the Java test's.
Recursive schemas are an intended difference (README, "Differences"): the SDK's ``Schema``
is built bottom-up and cannot refer to itself, so a cyclic Avro schema is refused with a
DataError naming the type, where Confluent builds a cyclic Connect schema.
"""

from __future__ import annotations

from typing import Any

import pytest
from _avro_helpers import avro_bytes, to_connect
from kconnect_converter_avro import AvroData
from kconnect_sdk import DataError, Struct


def _data(**config: Any) -> AvroData:
    return AvroData({"schemas.cache.config": 2, **config})


def test_avro_with_and_without_meta_data() -> None:
    def listing(doc: str, string: Any) -> dict[str, Any]:
        return {
            "type": "record",
            "name": "ListingStateChangedEventKeyRecord",
            "namespace": "com.acme.property",
            "doc": doc,
            "fields": [{"name": "listingUuid", "type": string}],
        }

    data = _data(**{"connect.meta.data": False})
    first = data.to_connect_schema(
        listing("Listing State Changed Event Key", {"type": "string", "avro.java.string": "String"})
    )
    second = data.to_connect_schema(listing("Another listing State Changed Event Key", "string"))
    assert dict(first.parameters) == dict(second.parameters)


def _something(field_type: Any, **field: Any) -> dict[str, Any]:
    return {
        "type": "record",
        "name": "SomeThing",
        "namespace": "com.acme.property",
        "fields": [{"name": "f", "type": field_type, **field}],
    }


@pytest.mark.parametrize(
    "kind", ["int", "long"], ids=["testIntWithConnectDefault", "testLongWithConnectDefault"]
)
def test_with_connect_default(kind: str) -> None:
    avro = _something({"type": kind, "connect.default": 42, "connect.version": 1})
    schema = AvroData({"schemas.cache.config": 0}).to_connect_schema(avro)
    field = schema.field("f")
    assert field is not None
    assert field.schema.default == 42


_OBJECT = {
    "name": "Object",
    "type": "record",
    "fields": [{"name": "nullableString", "type": ["null", "string"]}],
}


def test_nested_record_with_null_default() -> None:
    avro = {
        "name": "RecordWithObjectDefault",
        "type": "record",
        "fields": [{"name": "obj", "default": {"nullableString": None}, "type": _OBJECT}],
    }
    _, value = to_connect(_data(), avro, {"obj": {"nullableString": None}})
    assert value.get("obj") is not None
    assert value.get("obj").get("nullableString") is None


def test_array_of_record_with_null_namespace() -> None:
    avro = {
        "type": "array",
        "items": {"type": "record", "name": "item", "fields": [{"name": "value", "type": "int"}]},
    }
    schema = _data().to_connect_schema(avro)
    assert schema.value_schema is not None
    assert schema.value_schema.name == "item"


def _message(name: str, version: int) -> dict[str, Any]:
    created = {
        "type": "long",
        "connect.doc": "When this message was received.",
        "connect.version": version,
        "connect.name": name,
        "logicalType": "timestamp-millis",
    }
    return {
        "type": "record",
        "name": "Message",
        "namespace": "org.cmatta.kafka.connect.irc",
        "fields": [{"name": "createdat", "type": created}],
    }


def test_logical_type_with_matching_name_and_version() -> None:
    schema = _data().to_connect_schema(_message("org.apache.kafka.connect.data.Timestamp", 1))
    field = schema.field("createdat")
    assert field is not None
    assert field.schema.name == "org.apache.kafka.connect.data.Timestamp"


def test_logical_type_with_mismatching_name() -> None:
    with pytest.raises(DataError):
        _data().to_connect_schema(_message("com.custom.Timestamp", 1))


def test_logical_type_with_mismatching_version() -> None:
    with pytest.raises(DataError):
        _data().to_connect_schema(_message("org.apache.kafka.connect.data.Timestamp", 2))


_NO_META = {"connect.meta.data": False, "enhanced.avro.schema.support": False}

_CYCLES: dict[str, dict[str, Any]] = {
    "testCyclicalAvroSchema": {
        "type": "record",
        "name": "linked_list",
        "fields": [
            {"name": "value", "type": "long"},
            {"name": "next", "type": ["null", "linked_list"], "default": None},
        ],
    },
    "testArrayCycle": {
        "type": "record",
        "name": "Users",
        "fields": [
            {"name": "name", "type": "string"},
            {
                "name": "friends",
                "type": ["null", {"type": "array", "items": "Users"}],
                "default": None,
            },
        ],
    },
    "testMapCycle": {
        "type": "record",
        "name": "Node",
        "fields": [
            {"name": "value", "type": "long"},
            {
                "name": "siblings",
                "type": ["null", {"type": "map", "values": "Node"}],
                "default": None,
            },
        ],
    },
    "testUnionCycle": {
        "type": "record",
        "name": "Person",
        "fields": [
            {"name": "name", "type": "string"},
            {"name": "follows", "type": ["null", "string", "Person"]},
        ],
    },
}


@pytest.mark.parametrize("case", list(_CYCLES))
def test_cycle_is_refused(case: str) -> None:
    # Intended difference: Confluent round-trips these; we refuse them, naming the type.
    avro = _CYCLES[case]
    with pytest.raises(DataError, match=avro["name"]):
        _data(**_NO_META).to_connect_schema(avro)


@pytest.mark.parametrize(
    ("members", "flatten"),
    [(["string"], False), (["string", "int", "float"], True)],
    ids=["testRecordUnionSingleTypeCycle", "testRecordUnionMultipleTypeCycle"],
)
def test_record_union_cycle(members: list[str], flatten: bool) -> None:
    # Named "Cycle" upstream; the schema is a record whose field is a union with a default.
    avro = {
        "fields": [{"default": "", "name": "field1", "type": members}],
        "name": "TestRecord",
        "type": "record",
    }
    data = _data(**{"connect.meta.data": False, "flatten.singleton.unions": flatten})
    schema = data.to_connect_schema(avro, version=1)
    _data().from_connect_schema(schema)
    value = data.to_connect_data(schema, {"field1": "value1"})
    again = data.to_connect_data(data.to_connect_schema(avro, version=1), {"field1": "value1"})
    assert again == value
    assert isinstance(value, Struct)
    back = data.from_connect_data(schema, value)
    assert avro_bytes(avro, back) == avro_bytes(avro, {"field1": "value1"})


def test_record_default_at_field_level() -> None:
    settlement = {
        "fields": [
            {"default": "", "name": "time", "type": "string"},
            {"default": 0, "name": "cycle", "type": "int"},
            {"default": "", "name": "date", "type": "string"},
            {"default": "", "name": "priority", "type": "string"},
        ],
        "name": "settlement",
        "type": "record",
    }
    avro = {
        "name": "top",
        "type": "record",
        "fields": [{"default": {}, "name": "settlement", "type": settlement}],
    }
    data = _data()
    assert data.from_connect_schema(data.to_connect_schema(avro)) is not None
