"""InsertField: add the record's topic, partition, offset, timestamp or a static value as fields."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    ConnectRecord,
    DataError,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    SinkRecord,
    Struct,
    Timestamp,
    Type,
    struct_maker,
    struct_values,
)
from kconnect_sdk.java import EPOCH_DATETIME

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    SchemaCache,
    checked,
    copy_schema,
    define_replace_null,
    fill_struct,
    require_map,
    require_sink_record,
    require_struct,
)

_log = logging.getLogger(__name__)

__all__ = ["InsertFieldKey", "InsertFieldValue"]

_PURPOSE = "field insertion"

_DOC_SUFFIX = (
    " Suffix with ! to make this a required field, or ? to keep it optional (the default)."
)


def _config_def() -> ConfigDef:
    config = ConfigDef()
    for key, what in (
        ("topic.field", "Field name for Kafka topic."),
        ("partition.field", "Field name for Kafka partition."),
        ("offset.field", "Field name for Kafka offset - only applicable to sink connectors."),
        ("timestamp.field", "Field name for record timestamp."),
        ("static.field", "Field name for static data field."),
    ):
        config.define(
            key,
            ConfigType.STRING,
            None,
            importance=Importance.MEDIUM,
            documentation=what + _DOC_SUFFIX,
        )
    config.define(
        "static.value",
        ConfigType.STRING,
        None,
        importance=Importance.MEDIUM,
        documentation="Static field value, if field name configured.",
    )
    return define_replace_null(config)


def _timestamp_value(ts: int | None) -> dt.datetime | None:
    return None if ts is None else EPOCH_DATETIME + dt.timedelta(milliseconds=ts)


class _Spec(NamedTuple):
    name: str
    optional: bool


def _spec(text: str | None) -> _Spec | None:
    if text is None:
        return None
    if text.endswith("?"):
        return _Spec(text[:-1], True)
    if text.endswith("!"):
        return _Spec(text[:-1], False)
    return _Spec(text, True)


class _InsertField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = _config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        # A common copy-paste mistake (seen in blog posts) prefixes keys with "value."/"key.";
        # Kafka ignores such keys silently, so say so instead of doing nothing quietly.
        for key in configs:
            for prefix in ("value.", "key."):
                if key.startswith(prefix) and key[len(prefix) :] in self.CONFIG_DEF:
                    _log.warning(
                        "%s: ignoring unknown config %r; did you mean %r? (Kafka ignores it too)",
                        self.NAME,
                        key,
                        key[len(prefix) :],
                    )
        super().configure(configs)

    def _configure(self, config: ParsedConfig) -> None:
        self._topic = _spec(config["topic.field"])
        self._partition = _spec(config["partition.field"])
        self._offset = _spec(config["offset.field"])
        self._timestamp = _spec(config["timestamp.field"])
        self._static = _spec(config["static.field"])
        self._static_value: str | None = config["static.value"]
        if not any((self._topic, self._partition, self._offset, self._timestamp, self._static)):
            # As Kafka: an InsertField that inserts nothing is a config mistake.
            raise ConfigError(
                "No field insertion configured: set at least one of topic.field, "
                "partition.field, offset.field, timestamp.field or static.field"
            )
        if self._static is not None and self._static_value is None:
            raise ConfigError(
                f"No value specified for static field: {config['static.field']}; set static.value",
                name="static.value",
            )
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[tuple[Schema, list[tuple[int, Any]], list[Field]]] = (
            SchemaCache()
        )
        self._map_schemaless = self._compile_insert()
        self._extras_with_schema = self._compile_extras()
        self._map_struct = self._insert_struct
        # The last struct schema seen and its plan: a batch mostly holds one schema.
        self._last: tuple[Schema | None, Any] = (None, None)
        self._topic_name = self._topic.name if self._topic is not None else None
        # Names of the inserted fields, in Kafka's insertion order (as _extras returns them).
        self._names = [
            s.name
            for s in (self._topic, self._partition, self._offset, self._timestamp, self._static)
            if s is not None
        ]

    def _extras(self, record: ConnectRecord, *, with_schema: bool) -> list[Any]:
        values: list[Any] = []
        if self._topic is not None:
            values.append(record.topic)
        if self._partition is not None:
            values.append(record.kafka_partition)
        if self._offset is not None:
            values.append(
                require_sink_record(
                    self.NAME, record, f"inserting the offset into field {self._offset.name!r}"
                ).kafka_offset
            )
        if self._timestamp is not None:
            ts = record.timestamp
            if with_schema and ts is not None:
                values.append(EPOCH_DATETIME + dt.timedelta(milliseconds=ts))
            else:
                values.append(ts)
        if self._static is not None:
            values.append(self._static_value)
        return values

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            return self.new_record(
                record, None, self._insert(record, require_map(self.NAME, value, _PURPOSE))
            )
        struct = require_struct(self.NAME, value, _PURPOSE)
        plan = self._schemas.get(struct.schema)
        if plan is None:
            plan = self._schemas.put(struct.schema, self._plan(struct.schema))
        updated_schema, defaults, added = plan
        values = list(struct_values(struct))
        if defaults and self._replace_null:
            for index, default in defaults:
                if values[index] is None:
                    values[index] = default
        extras = self._extras(record, with_schema=True)
        for field, extra in zip(added, extras, strict=True):
            if extra is None and not field.schema.optional:
                checked(self.NAME, field.name, field.schema, extra)
        values += extras
        return self.new_record(record, updated_schema, fill_struct(updated_schema, values))

    def _insert_struct(self, record: R, struct: Struct) -> tuple[Schema, Struct]:
        """``apply``'s struct path for ``apply_batch`` (same result, fewer lookups)."""
        last_schema, plan = self._last
        if struct.schema is not last_schema:
            plan = self._schemas.get(struct.schema)
            if plan is None:
                plan = self._schemas.put(struct.schema, self._plan(struct.schema))
            updated_schema, defaults, added = plan
            required = [(i, f) for i, f in enumerate(added) if not f.schema.optional]
            make = struct_maker(updated_schema)
            plan = (updated_schema, defaults if self._replace_null else None, required, make)
            self._last = (struct.schema, plan)
        updated_schema, defaults, required, make = plan
        extras = self._extras_with_schema(record)
        for index, field in required:
            if extras[index] is None:
                checked(self.NAME, field.name, field.schema, None)
        if defaults:
            values = list(struct_values(struct))
            for index, default in defaults:
                if values[index] is None:
                    values[index] = default
            values += extras
        else:
            values = struct_values(struct) + extras
        return updated_schema, make(values)

    def _compile_extras(self) -> Callable[[R], list[Any]]:
        """``_extras(record, with_schema=True)`` as straight-line code, generated once."""
        items = []
        for spec, source in (
            (self._topic, "record.topic"),
            (self._partition, "record.kafka_partition"),
            (self._offset, "record.kafka_offset"),
            (self._timestamp, "_ts(record.timestamp)"),
            (self._static, "_static"),
        ):
            if spec is not None:
                items.append(source)
        lines = ["def extras(record):"]
        if self._offset is not None:
            lines.append("    if type(record) is not _Sink: return _slow(record, with_schema=True)")
        lines.append(f"    return [{', '.join(items)}]")
        namespace: dict[str, Any] = {
            "_Sink": SinkRecord,
            "_slow": self._extras,
            "_static": self._static_value,
            "_ts": _timestamp_value,
        }
        exec("\n".join(lines), namespace)
        generated: Callable[[R], list[Any]] = namespace["extras"]
        return generated

    def _insert(self, record: R, value: Mapping[str, Any]) -> dict[str, Any]:
        updated = dict(value)
        for name, extra in zip(self._names, self._extras(record, with_schema=False), strict=True):
            # Kafka leaves out a null partition, timestamp or static value.
            if extra is not None or name == self._topic_name:
                updated[name] = extra
        return updated

    def _insert_lines(self) -> tuple[list[str], dict[str, Any]]:
        """``_insert``'s work on ``value`` (giving ``d``) as straight-line code."""
        lines = ["d = dict(value)"]
        namespace: dict[str, Any] = {"_static": self._static_value}
        for spec, source in (
            (self._topic, "record.topic"),
            (self._partition, "record.kafka_partition"),
            (self._offset, "record.kafka_offset"),
            (self._timestamp, "record.timestamp"),
            (self._static, "_static"),
        ):
            if spec is None:
                continue
            if spec is self._topic:
                lines.append(f"d[{spec.name!r}] = {source}")
            else:
                # Kafka leaves out a null partition, timestamp or static value.
                lines += [f"x = {source}", f"if x is not None: d[{spec.name!r}] = x"]
        return lines, namespace

    def _compile_insert(self) -> Callable[[R, dict[str, Any]], dict[str, Any]]:
        """``_insert`` for this config as straight-line code, generated once.

        Same result as ``_insert``: a per-record loop over the configured fields, with a
        call to ``_extras``, costs about as much as the rest of the transform together.
        """
        body, namespace = self._insert_lines()
        lines = ["def insert(record, value):"]
        if self._offset is not None:
            # Only a SinkRecord has an offset; anything else takes the checked path.
            lines.append("    if type(record) is not _Sink: return _slow(record, value)")
        lines += ["    " + line for line in body]
        lines.append("    return d")
        namespace.update({"_Sink": SinkRecord, "_slow": self._insert})
        exec("\n".join(lines), namespace)
        generated: Callable[[R, dict[str, Any]], dict[str, Any]] = namespace["insert"]
        return generated

    def _schemaless_lines(self, cls: type) -> tuple[list[str], dict[str, Any]] | None:
        if self._offset is not None and cls is not SinkRecord:
            return None  # apply names the transform and the record in its error
        return self._insert_lines()

    def _struct_lines(self, cls: type, schema: Schema) -> tuple[list[str], dict[str, Any]] | None:
        if self._offset is not None and cls is not SinkRecord:
            return None
        plan = self._schemas.get(schema)
        if plan is None:
            plan = self._schemas.put(schema, self._plan(schema))
        updated_schema, defaults, added = plan
        if (defaults and self._replace_null) or not all(f.schema.optional for f in added):
            return None  # defaults to fill or inserted values to check: record by record
        items = [
            source
            for spec, source in (
                (self._topic, "record.topic"),
                (self._partition, "record.kafka_partition"),
                (self._offset, "record.kafka_offset"),
                (self._timestamp, "_ts(record.timestamp)"),
                (self._static, "_static"),
            )
            if spec is not None
        ]
        names = {
            "_OUT_SCHEMA": updated_schema,
            "_ts": _timestamp_value,
            "_static": self._static_value,
        }
        return [f"out_values = in_values + [{', '.join(items)}]"], names

    def _plan(self, schema: Schema) -> tuple[Schema, list[tuple[int, Any]], list[Field]]:
        updated = self._make_schema(schema)
        defaults = [
            (f.index, f.schema.default) for f in schema.fields if f.schema.default is not None
        ]
        return updated, defaults, list(updated.fields[len(schema.fields) :])

    def _make_schema(self, schema: Schema) -> Schema:
        if schema.type is not Type.STRUCT:
            require_struct(self.NAME, None, _PURPOSE)
        fields: list[Field] = list(schema.fields)

        def add(spec: _Spec | None, required: Schema, optional: Schema) -> None:
            if spec is not None:
                fields.append(
                    Field(spec.name, len(fields), optional if spec.optional else required)
                )

        add(self._topic, Schema.STRING, Schema.OPTIONAL_STRING)
        add(self._partition, Schema.INT32, Schema.OPTIONAL_INT32)
        add(self._offset, Schema.INT64, Schema.OPTIONAL_INT64)
        add(self._timestamp, Timestamp.SCHEMA, Timestamp.builder().optional().build())
        add(self._static, Schema.STRING, Schema.OPTIONAL_STRING)
        seen: set[str] = set()
        for field in fields:
            if field.name in seen:
                raise DataError(
                    f"{self.NAME}: cannot insert field {field.name!r}: the {self.side} schema "
                    "already has a field of that name; choose another field name"
                )
            seen.add(field.name)
        return copy_schema(schema, optional=False, fields=fields)


class InsertFieldKey(_InsertField[R]):
    """Insert fields into the record key (``org.apache.kafka.connect.transforms.InsertField$Key``)."""

    ON_KEY = True
    NAME = "InsertField$Key"


class InsertFieldValue(_InsertField[R]):
    """Insert fields into the record value (``org.apache.kafka.connect.transforms.InsertField$Value``).

    Example:
        ``timestamp.field=ts!`` adds a required ``ts`` Timestamp field holding the record time.
    """

    NAME = "InsertField$Value"
