"""Debezium's ExtractNewRecordState: unwrap a change event's ``after`` state."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    DataError,
    Field,
    Header,
    Importance,
    ParsedConfig,
    Schema,
    Struct,
    Type,
    struct_values,
)

from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    BaseTransform,
    R,
    SchemaCache,
    copy_schema,
    define_replace_null,
    fill_struct,
    one_of_ci,
)

_log = logging.getLogger(__name__)

__all__ = ["ExtractNewRecordState"]


_MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")


# mode -> (what happens to delete events, whether tombstones are kept)
_MODE_PLAN = {
    "drop": ("drop", False),
    "tombstone": ("tombstone", True),
    "rewrite": ("rewrite", False),
    "rewrite-with-tombstone": ("rewrite", True),
    "delete-to-tombstone": ("tombstone", False),
}


_LEGACY_DELETES = {"drop": "drop", "none": "tombstone", "rewrite": "rewrite"}


_ENVELOPE_FIELDS = ("op", "ts_ms", "ts_us", "ts_ns")


_DELETED = "__deleted"


def _check_legacy_mode(name: str, value: Any) -> None:
    if value is not None:
        one_of_ci("drop", "none", "rewrite")(name, value)


class _Extra(NamedTuple):
    """One field of the change event copied by add.fields / add.headers."""

    struct: str | None  # None: a field of the envelope itself
    field: str
    name: str  # output field or header name


def _parse_extras(specs: list[str], prefix: str, key: str) -> list[_Extra]:
    extras = []
    for spec in specs:
        path, _, rename = spec.partition(":")
        struct, dot, field = path.rpartition(".")
        if not field or (dot and not struct):
            raise ConfigError(
                f"Invalid value {','.join(specs)} for configuration {key}: cannot read "
                f"{spec!r}; write field, struct.field or field:newName",
                name=key,
                value=specs,
            )
        if not dot:
            struct_name = None if field in _ENVELOPE_FIELDS else "source"
            default = field
        else:
            struct_name = struct
            default = f"{struct}_{field}"
        extras.append(_Extra(struct_name, field, prefix + (rename or default)))
    return extras


class ExtractNewRecordState(BaseTransform[R]):
    """Unwrap a Debezium change event to the row state (``io.debezium.transforms.ExtractNewRecordState``).

    Creates and updates become the ``after`` row; deletes and tombstones follow
    ``delete.tombstone.handling.mode``. Records that are not change events (heartbeats,
    schema changes) pass unchanged.
    """

    NAME = "ExtractNewRecordState"
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "delete.tombstone.handling.mode",
            ConfigType.STRING,
            "tombstone",
            one_of_ci(*_MODES),
            importance=Importance.MEDIUM,
            documentation="drop: remove delete events and tombstones; tombstone: turn each "
            "delete into a tombstone; rewrite: drop tombstones and keep deletes as the "
            "'before' row with __deleted=true; rewrite-with-tombstone: rewrite deletes and "
            "keep tombstones; delete-to-tombstone: turn deletes into tombstones and drop "
            "the original tombstones.",
        )
        .define(
            "drop.tombstones",
            ConfigType.BOOLEAN,
            None,
            importance=Importance.LOW,
            documentation="Legacy (Debezium < 2.5): drop tombstones. Ignored when "
            "delete.tombstone.handling.mode is set.",
        )
        .define(
            "delete.handling.mode",
            ConfigType.STRING,
            None,
            _check_legacy_mode,
            importance=Importance.LOW,
            documentation="Legacy (Debezium < 2.5): drop, none (tombstone) or rewrite. "
            "Ignored when delete.tombstone.handling.mode is set.",
        )
        .define(
            "route.by.field",
            ConfigType.STRING,
            "",
            importance=Importance.LOW,
            documentation="A row field whose value becomes the topic name.",
        )
        .define(
            "add.fields",
            ConfigType.LIST,
            "",
            importance=Importance.LOW,
            documentation="Event fields added to the row: op, ts_ms, source fields such as "
            "table, or struct.field; rename with field:newName.",
        )
        .define(
            "add.fields.prefix",
            ConfigType.STRING,
            "__",
            importance=Importance.LOW,
            documentation="Prefix of the added field names.",
        )
        .define(
            "add.headers",
            ConfigType.LIST,
            "",
            importance=Importance.LOW,
            documentation="Event fields added as headers, written as for add.fields.",
        )
        .define(
            "add.headers.prefix",
            ConfigType.STRING,
            "__",
            importance=Importance.LOW,
            documentation="Prefix of the added header names.",
        )
    )

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._explicit_mode = "delete.tombstone.handling.mode" in configs
        super().configure(configs)

    def _configure(self, config: ParsedConfig) -> None:
        deletes, keep = _MODE_PLAN[config["delete.tombstone.handling.mode"].lower()]
        legacy_deletes = config["delete.handling.mode"]
        legacy_drop = config["drop.tombstones"]
        if not self._explicit_mode and (legacy_deletes is not None or legacy_drop is not None):
            deletes = _LEGACY_DELETES[(legacy_deletes or "drop").lower()]
            keep = legacy_drop is False
        self._deletes: str = deletes
        self._keep_tombstones: bool = keep
        self._route_by: str = config["route.by.field"]
        self._fields = _parse_extras(
            config["add.fields"], config["add.fields.prefix"], "add.fields"
        )
        self._headers = _parse_extras(
            config["add.headers"], config["add.headers.prefix"], "add.headers"
        )
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]
        self._schemas: SchemaCache[Schema] = SchemaCache()

    @staticmethod
    def _is_envelope(value: Any) -> bool:
        if isinstance(value, Struct):
            schema = value.schema
            return schema.field("op") is not None and schema.field("after") is not None
        return isinstance(value, Mapping) and "op" in value and "after" in value

    @staticmethod
    def _get(container: Any, name: str) -> Any:
        if isinstance(container, Struct):
            field = container.schema.field(name)
            return None if field is None else container.get(field)
        if isinstance(container, Mapping):
            return container.get(name)
        return None

    def _extra_value(self, envelope: Any, extra: _Extra) -> Any:
        holder = envelope if extra.struct is None else self._get(envelope, extra.struct)
        return self._get(holder, extra.field)

    def _extra_schema(self, envelope_schema: Schema, extra: _Extra) -> Schema:
        holder: Schema | None = envelope_schema
        if extra.struct is not None:
            found = envelope_schema.field(extra.struct)
            holder = (
                found.schema if found is not None and found.schema.type is Type.STRUCT else None
            )
        field = holder.field(extra.field) if holder is not None else None
        if field is None:
            return Schema.OPTIONAL_STRING
        return field.schema if field.schema.optional else copy_schema(field.schema, optional=True)

    def apply(self, record: R) -> R | None:
        envelope = record.value
        if envelope is None:
            return record if self._keep_tombstones else None
        if not self._is_envelope(envelope):
            return record
        op = self._get(envelope, "op")
        if op == "t":
            _log.debug("%s: dropping truncate event on topic %r", self.NAME, record.topic)
            return None
        deleted = op == "d"
        if deleted:
            if self._deletes == "drop":
                return None
            if self._deletes == "tombstone":
                return record.new_record(value_schema=None, value=None)
        row = self._get(envelope, "before" if deleted else "after")
        if row is None:
            raise DataError(
                f"{self.NAME}: change event with op {op!r} on topic {record.topic!r} has no "
                f"{'before' if deleted else 'after'} row state"
            )
        headers = record.headers
        if self._headers:
            extra_headers = []
            for extra in self._headers:
                schema = (
                    self._extra_schema(envelope.schema, extra)
                    if isinstance(envelope, Struct)
                    else None
                )
                extra_headers.append(Header(extra.name, schema, self._extra_value(envelope, extra)))
            headers = headers.add_all(extra_headers)
        topic = record.topic
        if self._route_by:
            routed = self._get(row, self._route_by)
            if routed is not None:
                topic = str(routed)
        rewrite = self._deletes == "rewrite"
        value: Any
        value_schema: Schema | None
        if isinstance(row, Struct):
            value_schema, value = self._with_fields_struct(envelope, row, deleted, rewrite)
        else:
            value_schema = None
            plain = dict(row)
            for extra in self._fields:
                plain[extra.name] = self._extra_value(envelope, extra)
            if rewrite:
                plain[_DELETED] = "true" if deleted else "false"
            value = plain
        return record.new_record(
            topic=topic, value_schema=value_schema, value=value, headers=headers
        )

    def _with_fields_struct(
        self, envelope: Struct, row: Struct, deleted: bool, rewrite: bool
    ) -> tuple[Schema, Struct]:
        if not self._fields and not rewrite:
            if not self._replace_null:
                return row.schema, row
            values = [row.get(f) for f in row.schema.fields]
            return row.schema, fill_struct(row.schema, values)
        schema = self._schemas.get(row.schema)
        if schema is None:
            fields = list(row.schema.fields)
            for extra in self._fields:
                fields.append(
                    Field(extra.name, len(fields), self._extra_schema(envelope.schema, extra))
                )
            if rewrite:
                fields.append(Field(_DELETED, len(fields), Schema.OPTIONAL_STRING))
            schema = self._schemas.put(row.schema, copy_schema(row.schema, fields=fields))
        values = list(struct_values(row))
        if self._replace_null:
            values = [row.get(f) for f in row.schema.fields]
        values.extend(self._extra_value(envelope, extra) for extra in self._fields)
        if rewrite:
            values.append("true" if deleted else "false")
        return schema, fill_struct(schema, values)
