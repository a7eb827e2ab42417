"""Every built-in SMT and predicate of Apache Kafka against kconnect's, alone and chained.

Configs are generated from the record they will see (field names it has, and some it
has not), so most cases reach the transform's real work rather than a config error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kconnect_compat.cases import Case, Step
from kconnect_compat.generate import Gen
from kconnect_compat.runner import Differential
from kconnect_compat.runs import Run, runs
from kconnect_sdk import (
    ConnectRecord,
    Date,
    Header,
    Headers,
    Schema,
    SchemaBuilder,
    SinkRecord,
    SourceRecord,
    Struct,
    Time,
    Timestamp,
    Type,
)
from kconnect_transforms import JavaDateFormat

pytestmark = pytest.mark.integration


T = "org.apache.kafka.connect.transforms."
P = "org.apache.kafka.connect.transforms.predicates."

CAST_TYPES = ("int8", "int16", "int32", "int64", "float32", "float64", "boolean", "string")
DATE_PATTERNS = (
    "yyyy-MM-dd",
    "yyyyMMddHHmmss",
    "yyyy-MM-dd'T'HH:mm:ss.SSS",
    "yyyy-MM-dd HH:mm:ss.SSS",
    "dd/MM/yy HH:mm",
    "EEE, d MMM yyyy HH:mm:ss",
    "h:mm a",
    "HH:mm:ss",
    "yyyy.MM.dd G 'at' HH:mm:ss",
    "MMMM d, yyyy",
    "D",
    "yyyy-'W'ww",
    "SSS",
    "yyyy-MM-dd'T'HH:mm:ssXXX",
    "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    "yy",
    "''yyyy''",
    "k:mm",
    "K:mm a",
    "u",
    "",
)
REGEXES = (
    ("(.*)", "$1-copy"),
    ("(.*)-raw", "$1"),
    ("orders", "orders-v2"),
    ("t(\\d+)", "topic-$1"),
    ("^(\\w+)\\.(\\w+)", "$2_$1"),
    ("(.*)", "prefix.$0"),
    ("[a-z]+", "X"),
    ("(?i)TOPIC", "lower"),
    ("(.*)", "\\$1"),
    ("(.*)", "$2"),
    ("(", "x"),
    (".*", ""),
)


def _names(schema: Schema | None, value: Any) -> list[str]:
    """Field names a record side has: a struct's fields or a map's string keys."""
    if schema is not None and schema.type is Type.STRUCT:
        return [f.name for f in schema.fields]
    if isinstance(value, dict):
        return [k for k in value if isinstance(k, str)]
    return []


def _nested_paths(schema: Schema | None) -> list[str]:
    """Dotted paths into nested structs (FieldSyntaxVersion V2), backquoting dotted names."""
    if schema is None or schema.type is not Type.STRUCT:
        return []
    paths: list[str] = []
    for field in schema.fields:
        name = f"`{field.name}`" if "." in field.name else field.name
        if field.schema.type is Type.STRUCT:
            paths += [f"{name}.{p}" for p in _nested_paths(field.schema)] or [name]
        else:
            paths.append(name)
    return paths


def _side(record: ConnectRecord, key: bool) -> tuple[Schema | None, Any]:
    return (record.key_schema, record.key) if key else (record.value_schema, record.value)


def _pick_names(gen: Gen, names: list[str], most: int = 3) -> list[str]:
    pool = [*names, "missing", "id"] if names else ["missing", "id", "a"]
    return gen.r.sample(pool, min(len(pool), gen.r.randint(1, most)))


# -- config makers: (gen, record, key side?) -> config --------------------------------------
def _cast(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, key)
    names = _names(schema, value)
    if not names or gen.chance(0.15):
        return {"spec": gen.pick(CAST_TYPES)}
    specs = [f"{name}:{gen.pick(CAST_TYPES)}" for name in _pick_names(gen, names)]
    config = {"spec": ",".join(specs)}
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _field_config(name: str) -> Callable[[Gen, ConnectRecord, bool], dict[str, str]]:
    def make(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
        schema, value = _side(record, key)
        config: dict[str, str] = {}
        if gen.chance(0.25) and _nested_paths(schema):
            config["field.syntax.version"] = "V2"
            config[name] = gen.pick(_nested_paths(schema))
        else:
            config[name] = _pick_names(gen, _names(schema, value), 1)[0]
        if gen.chance(0.2):
            config["replace.null.with.default"] = gen.pick(("true", "false"))
        return config

    return make


def _flatten(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    return {"delimiter": gen.pick((".", "_", "", "::", "."))} if gen.chance(0.7) else {}


def _hoist(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    return {"field": gen.pick(("wrapped", "value", "a.b", ""))}


def _insert_field(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    config: dict[str, str] = {}

    def suffix() -> str:
        # "!" and "?" make the inserted field required or optional.
        return gen.pick(("", "", "!", "?"))

    if gen.chance(0.5):
        config["topic.field"] = "topic" + suffix()
    if gen.chance(0.4):
        config["partition.field"] = "partition" + suffix()
    if gen.chance(0.3):
        config["offset.field"] = "offset" + suffix()
    if gen.chance(0.5):
        config["timestamp.field"] = "ts" + suffix()
    if gen.chance(0.5):
        config["static.field"] = gen.pick(("static", "id", "a"))
        config["static.value"] = gen.pick(("v", "", "42", "true", "é😀"))
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _mask(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, key)
    config = {"fields": ",".join(_pick_names(gen, _names(schema, value)))}
    if gen.chance(0.5):
        config["replacement"] = gen.pick(
            ("0", "x", "", "1.5", "true", "-1", "2020-01-01", "ZZ", "9e99")
        )
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _regex_router(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    regex, replacement = gen.pick(REGEXES)
    return {"regex": regex, "replacement": replacement}


def _replace_field(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, key)
    names = _names(schema, value)
    config: dict[str, str] = {}
    if gen.chance(0.4):
        config["exclude"] = ",".join(_pick_names(gen, names))
    if gen.chance(0.4):
        config["include"] = ",".join(_pick_names(gen, names))
    if gen.chance(0.5):
        config["renames"] = ",".join(f"{n}:{n}_new" for n in _pick_names(gen, names, 2))
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _set_schema_metadata(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    config: dict[str, str] = {}
    if gen.chance(0.7):
        config["schema.name"] = gen.pick(("com.example.New", "", "x"))
    if gen.chance(0.6):
        config["schema.version"] = gen.pick(("1", "7", "0"))
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _timestamp_converter(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, key)
    config = {"target.type": gen.pick(("string", "unix", "Date", "Time", "Timestamp"))}
    names = _names(schema, value)
    if names and gen.chance(0.8):
        config["field"] = gen.pick([n for n in names if n.startswith("t")] or names)
    if config["target.type"] == "string" or gen.chance(0.3):
        config["format"] = gen.pick(DATE_PATTERNS[:-1])
    if gen.chance(0.4):
        config["unix.precision"] = gen.pick(
            ("milliseconds", "microseconds", "nanoseconds", "seconds")
        )
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _timestamp_router(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    config: dict[str, str] = {}
    if gen.chance(0.7):
        config["topic.format"] = gen.pick(
            ("${topic}-${timestamp}", "${timestamp}", "x-${topic}", "${topic}")
        )
    if gen.chance(0.8):
        config["timestamp.format"] = gen.pick(DATE_PATTERNS)
    return config


def _value_to_key(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, False)
    config = {"fields": ",".join(_pick_names(gen, _names(schema, value)))}
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _header_keys(record: ConnectRecord) -> list[str]:
    return sorted({h.key for h in record.headers})


def _drop_headers(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    return {"headers": ",".join(_pick_names(gen, _header_keys(record)))}


def _header_from(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    schema, value = _side(record, key)
    fields = _pick_names(gen, _names(schema, value))
    headers = [gen.pick(("h", "copy", "a", "b")) for _ in fields]
    if gen.chance(0.1):
        headers.append("extra")
    config = {
        "fields": ",".join(fields),
        "headers": ",".join(headers),
        "operation": gen.pick(("copy", "move", "copy", "other")),
    }
    if gen.chance(0.2):
        config["replace.null.with.default"] = gen.pick(("true", "false"))
    return config


def _insert_header(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    literal = gen.pick(
        (
            "v",
            "42",
            "1.5",
            "true",
            "null",
            "[1,2]",
            '{"a":1}',
            "2020-01-01",
            "",
            " x ",
            "é😀",
            "[1,",
            "1e400",
        )
    )
    return {"header": gen.pick(("h", "a", "new")), "value.literal": literal}


def _no_config(gen: Gen, record: ConnectRecord, key: bool) -> dict[str, str]:
    return {}


# class (without $Key/$Value), has key/value variants, config maker
TRANSFORMS: dict[str, tuple[bool, Callable[[Gen, ConnectRecord, bool], dict[str, str]]]] = {
    "Cast": (True, _cast),
    "ExtractField": (True, _field_config("field")),
    "Flatten": (True, _flatten),
    "HoistField": (True, _hoist),
    "InsertField": (True, _insert_field),
    "MaskField": (True, _mask),
    "RegexRouter": (False, _regex_router),
    "ReplaceField": (True, _replace_field),
    "SetSchemaMetadata": (True, _set_schema_metadata),
    "TimestampConverter": (True, _timestamp_converter),
    "TimestampRouter": (False, _timestamp_router),
    "ValueToKey": (False, _value_to_key),
    "Filter": (False, _no_config),
    "DropHeaders": (False, _drop_headers),
    "HeaderFrom": (True, _header_from),
    "InsertHeader": (False, _insert_header),
}


def _predicate(gen: Gen, record: ConnectRecord) -> tuple[str, dict[str, str]]:
    kind = gen.pick(("HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"))
    if kind == "HasHeaderKey":
        return P + kind, {"name": gen.pick([*_header_keys(record), "h", "absent"])}
    if kind == "TopicNameMatches":
        return P + kind, {
            "pattern": gen.pick(("orders.*", ".*", "t\\d", "topic", "[a-z]+", "(", ""))
        }
    return P + kind, {}


def _temporal_record(gen: Gen) -> SourceRecord | SinkRecord:
    """A record whose value holds what TimestampConverter converts: logical temporal
    values, epoch numbers and formatted strings, with and without a schema."""
    pattern = gen.pick(DATE_PATTERNS[:-1])
    formatted = JavaDateFormat(pattern).format(gen.timestamp_value())
    millis = gen.timestamp_millis()
    if gen.chance(0.5):
        builder = SchemaBuilder.struct()
        fields: dict[str, tuple[Schema, Any]] = {
            "ts": (Timestamp.SCHEMA, gen.timestamp_value()),
            "t_date": (Date.SCHEMA, gen.date_value()),
            "t_time": (Time.SCHEMA, gen.time_value()),
            "t_long": (Schema.INT64, millis),
            "t_str": (Schema.STRING, formatted),
            "t_opt": (
                Timestamp.builder().optional().build(),
                None if gen.chance(0.5) else gen.timestamp_value(),
            ),
            "other": (Schema.INT32, 1),
        }
        for name, (field_schema, _) in fields.items():
            builder.field(name, field_schema)
        schema = builder.build()
        value = Struct(schema)
        for name, (_, field_value) in fields.items():
            value.put(name, field_value)
        return SourceRecord(topic="t", value_schema=schema, value=value, timestamp=millis)
    top = gen.pick(("map", "long", "string", "timestamp"))
    if top == "long":
        return SourceRecord(topic="t", value=millis, timestamp=millis)
    if top == "string":
        return SourceRecord(topic="t", value=formatted)
    if top == "timestamp":
        return SourceRecord(topic="t", value_schema=Timestamp.SCHEMA, value=gen.timestamp_value())
    return SourceRecord(
        topic="t", value={"ts": millis, "t_str": formatted, "t_date": gen.date_value(), "other": 1}
    )


def _record(gen: Gen, name: str) -> SourceRecord | SinkRecord:
    if name == "TimestampConverter" and gen.chance(0.7):
        return _temporal_record(gen)
    record = gen.record()
    if name == "InsertField" and gen.chance(0.3):
        record = gen.record(sink=True)
    return record


def _transform_cases(gen: Gen, per_transform: int) -> list[Case]:
    cases: list[Case] = []
    for name, (sided, make) in TRANSFORMS.items():
        for _ in range(per_transform):
            key = sided and gen.chance(0.35)
            cls = T + name + (("$Key" if key else "$Value") if sided else "")
            record = _record(gen, name)
            step = Step(cls, make(gen, record, key))
            cases.append(Case(cls.rsplit(".", 1)[-1], "transform", record=record, chain=[step]))
    return cases


def _chain_cases(gen: Gen, per_transform: int) -> list[Case]:
    cases: list[Case] = []
    names = list(TRANSFORMS)
    for _ in range(per_transform * 2):
        record = gen.record()
        steps: list[Step] = []
        for _ in range(gen.r.randint(2, 4)):
            name = gen.pick(names)
            sided, make = TRANSFORMS[name]
            key = sided and gen.chance(0.3)
            cls = T + name + (("$Key" if key else "$Value") if sided else "")
            predicate = _predicate(gen, record) if gen.chance(0.4) else None
            steps.append(Step(cls, make(gen, record, key), predicate, negate=gen.chance(0.3)))
        cases.append(Case("chain", "transform", record=record, chain=steps))
    return cases


def _predicate_cases(gen: Gen, per_transform: int) -> list[Case]:
    cases: list[Case] = []
    for _ in range(per_transform * 2):
        record = gen.record()
        if gen.chance(0.2):
            record = record.new_record(
                value=None, value_schema=gen.pick((None, Schema.OPTIONAL_STRING))
            )
        if gen.chance(0.2):
            record = record.new_record(headers=Headers([*record.headers, Header("h", None, None)]))
        cls, config = _predicate(gen, record)
        cases.append(Case(cls.rsplit(".", 1)[-1], "predicate", cls, config, record=record))
    return cases


def _cases(seed: int, cases: int) -> list[Case]:
    gen = Gen(seed + 31)
    per = cases // 4
    return _transform_cases(gen, per) + _chain_cases(gen, per) + _predicate_cases(gen, per)


@pytest.mark.parametrize("run", runs(), ids=str)
def test_transforms_and_predicates_act_as_kafkas(differential: Differential, run: Run) -> None:
    outcome = differential.run(_cases(run.seed, run.cases))
    assert not outcome.unexplained, outcome.report()
