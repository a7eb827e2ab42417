"""The ``testFieldLevelParams*`` methods of Confluent's ``AvroDataTest``: one named Connect type
used at several fields with different parameters (Protobuf field tags, typically).

Avro holds one definition per name, so the later occurrences are written as a reference to
the first and carry their own ``connect.parameters`` on the field; reading applies them back.
One test per upstream method, named after it; expected values are the Java test's.
"""

from __future__ import annotations

from typing import Any

from _avro_helpers import avro_bytes, to_connect
from kconnect_converter_avro import AvroData
from kconnect_sdk import Schema, SchemaBuilder, Struct

TAG = "io.confluent.connect.protobuf.Tag"
PROTOBUF_TYPE = "io.confluent.connect.protobuf.Type"
AVRO_ENUM = "io.confluent.connect.avro.Enum"
ENHANCED = {"enhanced.avro.schema.support": True}


def _data(**config: Any) -> AvroData:
    return AvroData({"schemas.cache.config": 2, **config})


def _struct(
    name: str, *fields: str, optional: bool = False, params: dict[str, str] | None = None
) -> Schema:
    builder = SchemaBuilder.struct().name(name)
    for key, value in (params or {}).items():
        builder.parameter(key, value)
    for field in fields:
        builder.field(field, Schema.OPTIONAL_STRING)
    return (builder.optional() if optional else builder).build()


def _address(tag: str, *fields: str, optional: bool = False) -> Schema:
    return _struct("Address", *(fields or ("city",)), optional=optional, params={TAG: tag})


def _street(name: str, key: str, value: str) -> Schema:
    builder = SchemaBuilder.struct().name(name).parameter(key, value)
    return builder.field("street", Schema.STRING).build()


def _tag(schema: Schema | None, *path: str) -> str | None:
    for name in path:
        assert schema is not None
        field = schema.field(name)
        assert field is not None
        schema = field.schema
    assert schema is not None
    return schema.parameters.get(TAG)


def _round_trip(data: AvroData, schema: Schema, value: Struct) -> tuple[Schema, Struct]:
    """Java's fromConnectSchema + fromConnectData, then toConnectData, through Avro bytes."""
    avro = data.from_connect_schema(schema)
    datum = data.from_connect_data(schema, value)
    avro_bytes(avro, datum)  # the datum is one the schema writes
    rt_schema, rt_value = to_connect(data, avro, datum)
    assert rt_schema is not None
    return rt_schema, rt_value


def test_field_level_params_preserved_for_shared_named_type() -> None:
    person = (
        SchemaBuilder.struct()
        .name("Person")
        .field("name", Schema.OPTIONAL_STRING)
        .field("home_addr", _address("2", "street", "city"))
        .field("work_addr", _address("3", "street", "city"))
        .build()
    )
    data = _data()
    back = data.to_connect_schema(data.from_connect_schema(person))
    assert (_tag(back, "home_addr"), _tag(back, "work_addr")) == ("2", "3")


def test_field_level_params_shared_type_at_three_fields() -> None:
    company = (
        SchemaBuilder.struct()
        .name("Company")
        .field("name", Schema.OPTIONAL_STRING)
        .field("hq", _address("2", "line"))
        .field("warehouse", _address("3", "line"))
        .field("billing", _address("4", "line"))
        .build()
    )
    data = _data()
    back = data.to_connect_schema(data.from_connect_schema(company))
    assert [_tag(back, f) for f in ("hq", "warehouse", "billing")] == ["2", "3", "4"]


def test_field_level_params_nested_shared_type() -> None:
    customer = (
        SchemaBuilder.struct()
        .name("Customer")
        .parameter(TAG, "2")
        .field("name", Schema.OPTIONAL_STRING)
        .field("billing", _address("2"))
        .field("shipping", _address("3"))
        .build()
    )
    order = (
        SchemaBuilder.struct()
        .name("Order")
        .field("id", Schema.OPTIONAL_INT32)
        .field("customer", customer)
        .build()
    )
    data = _data()
    back = data.to_connect_schema(data.from_connect_schema(order))
    assert _tag(back, "customer", "billing") == "2"
    assert _tag(back, "customer", "shipping") == "3"


def test_field_level_params_with_multiple_params() -> None:
    def address(tag: str) -> Schema:
        return _struct("Address", "street", params={TAG: tag, PROTOBUF_TYPE: "MESSAGE"})

    parent = (
        SchemaBuilder.struct()
        .name("Parent")
        .field("addr1", address("2"))
        .field("addr2", address("3"))
        .build()
    )
    data = _data()
    back = data.to_connect_schema(data.from_connect_schema(parent))
    for field, tag in (("addr1", "2"), ("addr2", "3")):
        found = back.field(field)
        assert found is not None
        assert dict(found.schema.parameters) == {TAG: tag, PROTOBUF_TYPE: "MESSAGE"}


def test_field_level_params_no_params_no_change() -> None:
    inner = _struct("Inner", "value")
    outer = SchemaBuilder.struct().name("Outer").field("a", inner).field("b", inner).build()
    data = _data()
    avro = data.from_connect_schema(outer)
    assert all("connect.parameters" not in f for f in avro["fields"])
    back = data.to_connect_schema(avro)
    for name in ("a", "b"):
        field = back.field(name)
        assert field is not None
        assert not field.schema.parameters


def _person(home: Schema, work: Schema) -> Schema:
    return (
        SchemaBuilder.struct()
        .name("Person")
        .field("name", Schema.OPTIONAL_STRING)
        .field("home_addr", home)
        .field("work_addr", work)
        .build()
    )


def test_field_level_params_data_round_trip() -> None:
    home_schema, work_schema = _address("2", "street", "city"), _address("3", "street", "city")
    person = _person(home_schema, work_schema)
    home = Struct(home_schema).put("street", "123 Home St").put("city", "Hometown")
    work = Struct(work_schema).put("street", "456 Work Ave").put("city", "Workville")
    value = Struct(person).put("name", "Alice").put("home_addr", home).put("work_addr", work)
    rt_schema, rt_value = _round_trip(_data(), person, value)
    assert (_tag(rt_schema, "home_addr"), _tag(rt_schema, "work_addr")) == ("2", "3")
    assert rt_value.get("name") == "Alice"
    assert rt_value.get("home_addr").get("street") == "123 Home St"
    assert rt_value.get("home_addr").get("city") == "Hometown"
    assert rt_value.get("work_addr").get("street") == "456 Work Ave"
    assert rt_value.get("work_addr").get("city") == "Workville"


def _params_on(avro: dict[str, Any], field: str) -> Any:
    return next(f for f in avro["fields"] if f["name"] == field).get("connect.parameters")


def test_field_level_params_repeated_shared_type() -> None:
    container = (
        SchemaBuilder.struct()
        .name("Container")
        .field("primary", _struct("Item", "name", params={TAG: "2"}))
        .field("secondary", _struct("Item", "name", params={TAG: "3"}))
        .build()
    )
    data = _data()
    avro = data.from_connect_schema(container)
    assert _params_on(avro, "primary") is None
    assert _params_on(avro, "secondary") is not None
    back = data.to_connect_schema(avro)
    assert (_tag(back, "primary"), _tag(back, "secondary")) == ("2", "3")


def test_field_level_params_complex_envelope_round_trip() -> None:
    priority = (
        SchemaBuilder.string()
        .parameter("io.confluent.connect.protobuf.Enum", "Priority")
        .parameter("io.confluent.connect.protobuf.Enum.PRIORITY_LOW", "0")
        .parameter("io.confluent.connect.protobuf.Enum.PRIORITY_HIGH", "2")
        .build()
    )
    addresses = {f: _address(t) for f, t in (("home_addr", "14"), ("work_addr", "15"))}
    addresses["billing_addr"] = _address("16")
    builder = (
        SchemaBuilder.struct()
        .name("MegaRecord")
        .field("id", Schema.OPTIONAL_INT32)
        .field("name", Schema.OPTIONAL_STRING)
        .field("active", Schema.OPTIONAL_BOOLEAN)
        .field("score", Schema.OPTIONAL_FLOAT64)
        .field("priority", priority)
    )
    for field, schema in addresses.items():
        builder.field(field, schema)
    record = (
        builder.field("tags", SchemaBuilder.array(Schema.STRING).optional().build())
        .field("scores", SchemaBuilder.map(Schema.STRING, Schema.INT32).optional().build())
        .field("nickname", Schema.OPTIONAL_STRING)
        .build()
    )
    value = Struct(record)
    for key, item in {
        "id": 1,
        "name": "Alice",
        "active": True,
        "score": 98.5,
        "priority": "PRIORITY_HIGH",
        "tags": ["eng", "sr"],
        "scores": {"math": 95},
        "nickname": "Ali",
    }.items():
        value.put(key, item)
    for (field, schema), city in zip(addresses.items(), ("SF", "NYC", "London"), strict=True):
        value.put(field, Struct(schema).put("city", city))
    rt_schema, rt = _round_trip(_data(), record, value)
    assert [_tag(rt_schema, f) for f in addresses] == ["14", "15", "16"]
    assert (rt.get("id"), rt.get("name"), rt.get("active")) == (1, "Alice", True)
    assert (rt.get("score"), rt.get("priority"), rt.get("nickname")) == (
        98.5,
        "PRIORITY_HIGH",
        "Ali",
    )
    assert [rt.get(f).get("city") for f in addresses] == ["SF", "NYC", "London"]
    assert rt.get("tags") == ["eng", "sr"]
    assert rt.get("scores") == {"math": 95}


def _parent(**fields: Schema) -> Schema:
    builder = SchemaBuilder.struct().name("Parent")
    for name, schema in fields.items():
        builder.field(name, schema)
    return builder.build()


def test_field_level_params_shared_type_in_optional_field() -> None:
    home_schema, work_schema = _address("2", optional=True), _address("3", optional=True)
    parent = _parent(home=home_schema, work=work_schema)
    value = Struct(parent).put("home", Struct(home_schema).put("city", "SF"))
    rt_schema, rt = _round_trip(_data(), parent, value)
    assert (_tag(rt_schema, "home"), _tag(rt_schema, "work")) == ("2", "3")
    assert rt.get("home").get("city") == "SF"
    assert rt.get("work") is None


def test_field_level_params_shared_type_in_array() -> None:
    two, three = _address("2"), _address("3")
    parent = _parent(
        primary=two, secondary=three, extras=SchemaBuilder.array(two).optional().build()
    )
    value = (
        Struct(parent)
        .put("primary", Struct(two).put("city", "SF"))
        .put("secondary", Struct(three).put("city", "NYC"))
        .put("extras", [Struct(two).put("city", "A"), Struct(two).put("city", "B")])
    )
    rt_schema, rt = _round_trip(_data(), parent, value)
    assert (_tag(rt_schema, "primary"), _tag(rt_schema, "secondary")) == ("2", "3")
    assert (rt.get("primary").get("city"), rt.get("secondary").get("city")) == ("SF", "NYC")
    assert [s.get("city") for s in rt.get("extras")] == ["A", "B"]


def test_field_level_params_shared_type_in_map_value() -> None:
    two, three = _address("2"), _address("3")
    parent = _parent(
        primary=two,
        secondary=three,
        lookup=SchemaBuilder.map(Schema.STRING, two).optional().build(),
    )
    value = (
        Struct(parent)
        .put("primary", Struct(two).put("city", "SF"))
        .put("secondary", Struct(three).put("city", "NYC"))
        .put("lookup", {"hq": Struct(two).put("city", "Austin")})
    )
    rt_schema, rt = _round_trip(_data(), parent, value)
    assert (_tag(rt_schema, "primary"), _tag(rt_schema, "secondary")) == ("2", "3")
    assert rt.get("lookup")["hq"].get("city") == "Austin"


def _status(tag: str, *symbols: str) -> Schema:
    builder = SchemaBuilder.string().name("Status").parameter(TAG, tag)
    builder.parameter(AVRO_ENUM, "Status")
    for index, symbol in enumerate(symbols):
        builder.parameter(f"{AVRO_ENUM}.{symbol}", str(index))
    return builder.build()


def test_field_level_params_shared_enum_type() -> None:
    symbols = ("UNKNOWN", "ACTIVE", "INACTIVE")
    order = (
        SchemaBuilder.struct()
        .name("Order")
        .field("id", Schema.INT32)
        .field("primary_status", _status("5", *symbols))
        .field("secondary_status", _status("6", *symbols))
        .build()
    )
    data = _data(**ENHANCED)
    back = data.to_connect_schema(data.from_connect_schema(order))
    assert (_tag(back, "primary_status"), _tag(back, "secondary_status")) == ("5", "6")


def test_field_level_params_strict_all_types_round_trip() -> None:
    symbols = ("UNKNOWN", "ACTIVE", "INACTIVE")
    addr = {
        t: _struct("Address", "city", "zip", optional=True, params={TAG: t})
        for t in ["10", "11", "12"]
    }
    meta = (
        SchemaBuilder.struct()
        .name("Metadata")
        .optional()
        .parameter(TAG, "20")
        .field("source", Schema.OPTIONAL_STRING)
        .field("ts", Schema.OPTIONAL_INT64)
        .build()
    )
    primitives = {
        "f_int32": (Schema.OPTIONAL_INT32, 42),
        "f_int64": (Schema.OPTIONAL_INT64, 123456789),
        "f_float32": (Schema.OPTIONAL_FLOAT32, 3.140000104904175),
        "f_float64": (Schema.OPTIONAL_FLOAT64, 2.718281828),
        "f_bool": (Schema.OPTIONAL_BOOLEAN, True),
        "f_string": (Schema.OPTIONAL_STRING, "hello"),
        "f_bytes": (Schema.OPTIONAL_BYTES, b"\x01\x02\x03"),
    }
    builder = SchemaBuilder.struct().name("MegaRecord")
    for name, (schema, _) in primitives.items():
        builder.field(name, schema)
    record = (
        builder.field("primary_status", _status("5", *symbols))
        .field("secondary_status", _status("6", *symbols))
        .field("home_addr", addr["10"])
        .field("work_addr", addr["11"])
        .field("billing_addr", addr["12"])
        .field("tags", SchemaBuilder.array(Schema.STRING).optional().build())
        .field("scores_list", SchemaBuilder.array(Schema.INT32).optional().build())
        .field("extra_addrs", SchemaBuilder.array(addr["10"]).optional().build())
        .field("scores_map", SchemaBuilder.map(Schema.STRING, Schema.INT32).optional().build())
        .field("addr_lookup", SchemaBuilder.map(Schema.STRING, addr["10"]).optional().build())
        .field("nickname", Schema.OPTIONAL_STRING)
        .field("age", Schema.OPTIONAL_INT32)
        .field("meta", meta)
        .build()
    )

    def address(tag: str, city: str, code: str) -> Struct:
        return Struct(addr[tag]).put("city", city).put("zip", code)

    value = Struct(record)
    for name, (_, item) in primitives.items():
        value.put(name, item)
    value.put("primary_status", "ACTIVE").put("secondary_status", "INACTIVE")
    value.put("home_addr", address("10", "SF", "94105"))
    value.put("work_addr", address("11", "NYC", "10001"))
    value.put("billing_addr", address("12", "London", "SW1A"))
    value.put("tags", ["eng", "sr", "backend"]).put("scores_list", [95, 88, 72])
    value.put("extra_addrs", [address("10", "Tokyo", "100"), address("10", "Berlin", "10115")])
    value.put("scores_map", {"math": 95, "science": 88})
    value.put("addr_lookup", {"hq": address("10", "Austin", "73301")})
    value.put("nickname", "Ali").put("age", 30)
    value.put("meta", Struct(meta).put("source", "api").put("ts", 1700000000))

    rt_schema, rt = _round_trip(_data(**ENHANCED), record, value)
    assert (_tag(rt_schema, "primary_status"), _tag(rt_schema, "secondary_status")) == ("5", "6")
    assert (rt.get("primary_status"), rt.get("secondary_status")) == ("ACTIVE", "INACTIVE")
    tags = [_tag(rt_schema, f) for f in ("home_addr", "work_addr", "billing_addr")]
    assert tags == ["10", "11", "12"]
    cities = [rt.get(f).get("city") for f in ("home_addr", "work_addr", "billing_addr")]
    assert cities == ["SF", "NYC", "London"]
    for name, (_, item) in primitives.items():
        assert rt.get(name) == item, name
    assert rt.get("tags") == ["eng", "sr", "backend"]
    assert rt.get("scores_list") == [95, 88, 72]
    assert [s.get("city") for s in rt.get("extra_addrs")] == ["Tokyo", "Berlin"]
    assert rt.get("scores_map") == {"math": 95, "science": 88}
    assert rt.get("addr_lookup")["hq"].get("city") == "Austin"
    assert (rt.get("nickname"), rt.get("age")) == ("Ali", 30)
    assert (rt.get("meta").get("source"), rt.get("meta").get("ts")) == ("api", 1700000000)


def test_field_level_params_strict_optional_null_round_trip() -> None:
    record = (
        SchemaBuilder.struct()
        .name("NullTest")
        .field("home", _address("2", optional=True))
        .field("work", _address("3", optional=True))
        .field("status_a", _status("5", "ON", "OFF"))
        .field("status_b", _status("6", "ON", "OFF"))
        .field("name", Schema.OPTIONAL_STRING)
        .build()
    )
    value = Struct(record).put("status_a", "ON").put("status_b", "OFF")
    rt_schema, rt = _round_trip(_data(**ENHANCED), record, value)
    assert (_tag(rt_schema, "home"), _tag(rt_schema, "work")) == ("2", "3")
    assert (rt.get("home"), rt.get("work"), rt.get("name")) == (None, None, None)
    assert (_tag(rt_schema, "status_a"), _tag(rt_schema, "status_b")) == ("5", "6")
    assert (rt.get("status_a"), rt.get("status_b")) == ("ON", "OFF")


def test_field_level_params_null_value_for_shared_type() -> None:
    parent = _parent(home=_address("2", optional=True), work=_address("3", optional=True))
    rt_schema, rt = _round_trip(_data(), parent, Struct(parent))
    assert (_tag(rt_schema, "home"), _tag(rt_schema, "work")) == ("2", "3")
    assert (rt.get("home"), rt.get("work")) == (None, None)


def test_field_level_parameters_ignored_when_connect_meta_data_disabled() -> None:
    home_schema, work_schema = _street("Address", TAG, "7"), _street("Address", TAG, "8")
    parent = (
        SchemaBuilder.struct()
        .name("Person")
        .field("home", home_schema)
        .field("work", work_schema)
        .build()
    )
    value = (
        Struct(parent)
        .put("home", Struct(home_schema).put("street", "Home St"))
        .put("work", Struct(work_schema).put("street", "Work Ave"))
    )
    data = _data()
    avro = data.from_connect_schema(parent)
    datum = data.from_connect_data(parent, value)
    rt_schema, rt = to_connect(_data(**{"connect.meta.data": False}), avro, datum)
    assert rt_schema is not None
    for name in ("home", "work"):
        field = rt_schema.field(name)
        assert field is not None
        assert not field.schema.parameters
    assert (rt.get("home").get("street"), rt.get("work").get("street")) == ("Home St", "Work Ave")


def test_field_level_params_with_scrub_invalid_names() -> None:
    def address(tag: str) -> Schema:
        builder = SchemaBuilder.struct().name("com.example.Address-v1").parameter(TAG, tag)
        return builder.field("street", Schema.STRING).build()

    parent = (
        SchemaBuilder.struct()
        .name("com.example.Person-v1")
        .field("home_addr", address("2"))
        .field("work_addr", address("3"))
        .build()
    )
    data = _data(**{"scrub.invalid.names": True})
    back = data.to_connect_schema(data.from_connect_schema(parent))
    assert (_tag(back, "home_addr"), _tag(back, "work_addr")) == ("2", "3")


def test_field_level_params_not_written_on_first_occurrence() -> None:
    parent = (
        SchemaBuilder.struct()
        .name("Person")
        .field("home", _street("Address", TAG, "2"))
        .field("work", _street("Address", TAG, "3"))
        .build()
    )
    avro = _data().from_connect_schema(parent)
    assert _params_on(avro, "home") is None
    assert _params_on(avro, "work") is not None


def test_field_level_params_not_written_when_empty() -> None:
    parent = (
        SchemaBuilder.struct()
        .name("Person")
        .field("home", _street("Address", "io.confluent.connect.avro.field.default", "true"))
        .field("work", _street("Address", TAG, "3"))
        .build()
    )
    avro = _data().from_connect_schema(parent)
    assert _params_on(avro, "home") is None
    assert _params_on(avro, "work") is not None
