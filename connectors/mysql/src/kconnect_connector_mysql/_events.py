"""Debezium's event shapes: source block, envelopes, keys, schema changes, transactions, heartbeats."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from kconnect_sdk import Schema, SchemaBuilder, Struct, struct_maker

from ._columns import Column, Table, field_schema, make_struct, value_converter
from ._config import HashMask, Settings

__all__ = ["DEBEZIUM_VERSION", "EventSchemas", "TableSchema", "processing_time"]

# CHAR, VARCHAR, LONGVARCHAR, CLOB, NCHAR, NVARCHAR, LONGNVARCHAR, NCLOB, DATALINK: the
# columns Debezium's TruncateStrings and MaskStrings apply to.
_CHARACTER_JDBC_TYPES: Final = frozenset({1, 12, -1, 2005, -15, -9, -16, 2011, 70})

DEBEZIUM_VERSION: Final = "3.5.0.Final"
"""The Debezium release whose event format this package reproduces (``source.version``)."""

SNAPSHOT_VALUES: Final = (
    "true",
    "first",
    "first_in_data_collection",
    "last_in_data_collection",
    "last",
    "false",
    "incremental",
)


def _source_schema(connector: str) -> Schema:
    snapshot = (
        SchemaBuilder.string()
        .name("io.debezium.data.Enum")
        .version(1)
        .parameter("allowed", ",".join(SNAPSHOT_VALUES))
        .default_value("false")
        .optional()
        .build()
    )
    return (
        SchemaBuilder.struct()
        .name(f"io.debezium.connector.{connector}.Source")
        .version(1)
        .field("version", Schema.STRING)
        .field("connector", Schema.STRING)
        .field("name", Schema.STRING)
        .field("ts_ms", Schema.INT64)
        .field("snapshot", snapshot)
        .field("db", Schema.STRING)
        .field("sequence", Schema.OPTIONAL_STRING)
        .field("ts_us", Schema.OPTIONAL_INT64)
        .field("ts_ns", Schema.OPTIONAL_INT64)
        .field("table", Schema.OPTIONAL_STRING)
        .field("server_id", Schema.INT64)
        .field("gtid", Schema.OPTIONAL_STRING)
        .field("file", Schema.STRING)
        .field("pos", Schema.INT64)
        .field("row", Schema.INT32)
        .field("thread", Schema.OPTIONAL_INT64)
        .field("query", Schema.OPTIONAL_STRING)
        .build()
    )


_TX_BLOCK: Final = (
    SchemaBuilder.struct()
    .optional()
    .name("event.block")
    .version(1)
    .field("id", Schema.STRING)
    .field("total_order", Schema.INT64)
    .field("data_collection_order", Schema.INT64)
    .build()
)
_make_tx_block: Final = struct_maker(_TX_BLOCK)  # one per event in a transaction
_TX_KEY: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.TransactionMetadataKey")
    .version(1)
    .field("id", Schema.STRING)
    .build()
)
_TX_COLLECTION: Final = (
    SchemaBuilder.struct()
    .optional()
    .name("event.collection")
    .version(1)
    .field("data_collection", Schema.STRING)
    .field("event_count", Schema.INT64)
    .build()
)
_TX_VALUE: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.TransactionMetadataValue")
    .version(1)
    .field("status", Schema.STRING)
    .field("id", Schema.STRING)
    .field("event_count", Schema.OPTIONAL_INT64)
    .field("data_collections", SchemaBuilder.array(_TX_COLLECTION).optional().build())
    .field("ts_ms", Schema.INT64)
    .build()
)
_HEARTBEAT_KEY: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.ServerNameKey")
    .version(1)
    .field("serverName", Schema.STRING)
    .build()
)
_HEARTBEAT_VALUE: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.common.Heartbeat")
    .version(1)
    .field("ts_ms", Schema.INT64)
    .build()
)

_HISTORY_COLUMN: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.schema.Column")
    .version(1)
    .field("name", Schema.STRING)
    .field("jdbcType", Schema.INT32)
    .field("nativeType", Schema.OPTIONAL_INT32)
    .field("typeName", Schema.STRING)
    .field("typeExpression", Schema.OPTIONAL_STRING)
    .field("charsetName", Schema.OPTIONAL_STRING)
    .field("length", Schema.OPTIONAL_INT32)
    .field("scale", Schema.OPTIONAL_INT32)
    .field("position", Schema.INT32)
    .field("optional", Schema.OPTIONAL_BOOLEAN)
    .field("autoIncremented", Schema.OPTIONAL_BOOLEAN)
    .field("generated", Schema.OPTIONAL_BOOLEAN)
    .field("comment", Schema.OPTIONAL_STRING)
    .field("defaultValueExpression", Schema.OPTIONAL_STRING)
    .field("enumValues", SchemaBuilder.array(Schema.STRING).optional().build())
    .build()
)
_HISTORY_TABLE: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.schema.Table")
    .version(1)
    .field("defaultCharsetName", Schema.OPTIONAL_STRING)
    .field("primaryKeyColumnNames", SchemaBuilder.array(Schema.STRING).optional().build())
    .field("columns", SchemaBuilder.array(_HISTORY_COLUMN).build())
    .field("comment", Schema.OPTIONAL_STRING)
    .optional()
    .build()
)
_HISTORY_CHANGE: Final = (
    SchemaBuilder.struct()
    .name("io.debezium.connector.schema.Change")
    .version(1)
    .field("type", Schema.STRING)
    .field("id", Schema.STRING)
    .field("table", _HISTORY_TABLE)
    .build()
)


def processing_time() -> tuple[int, int, int]:
    """Now as an envelope's ``ts_ms``, ``ts_us`` and ``ts_ns`` (when the connector processed
    the event, not when the server wrote it)."""
    ns = time.time_ns()
    return ns // 1_000_000, ns // 1000, ns


def quoted_id(db: str, table: str) -> str:
    """Debezium's double-quoted table id, as in ``tableChanges[].id``."""
    return f'"{db}"."{table}"'


@dataclass(slots=True)
class TableSchema:
    """Everything prepared once per table version: schemas, positions and converters."""

    table: Table
    topic: str
    key_schema: Schema | None
    value_schema: Schema
    envelope_schema: Schema
    positions: list[int]  # table column positions (0-based) decoded per row, value columns first
    value_count: int
    key_indexes: list[int]  # indexes into the decoded row
    converters: list[Callable[[Any], Any] | None]  # per decoded column
    # The Struct makers of the value, key and envelope schemas: every row makes one of each.
    make_value: Callable[[list[Any]], Struct] = field(init=False, repr=False, compare=False)
    make_key: Callable[[list[Any]], Struct] | None = field(init=False, repr=False, compare=False)
    make_envelope: Callable[[list[Any]], Struct] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.make_value = struct_maker(self.value_schema)
        self.make_key = None if self.key_schema is None else struct_maker(self.key_schema)
        self.make_envelope = struct_maker(self.envelope_schema)

    def split(self, row: list[Any]) -> tuple[Struct, Struct | None]:
        values = row if len(row) == self.value_count else row[: self.value_count]
        value = self.make_value(values)
        if self.make_key is None:
            return value, None
        return value, self.make_key([row[i] for i in self.key_indexes])

    def key_of(self, row: list[Any]) -> Struct | None:
        if self.make_key is None:
            return None
        return self.make_key([row[i] for i in self.key_indexes])


class EventSchemas:
    """Builds per-table schemas and the connector-wide ones for one connector config."""

    def __init__(self, settings: Settings, connector: str) -> None:
        self.settings = settings
        self.connector = connector
        self.source_schema = _source_schema(connector)
        self.make_source = struct_maker(self.source_schema)
        self.modes: dict[str, Any] = {
            "decimal_mode": settings.decimal_mode,
            "time_mode": settings.time_mode,
            "bigint_mode": settings.bigint_mode,
            "binary_mode": settings.binary_mode,
            "time_adjuster": settings.time_adjuster,
        }
        d = settings.delimiter
        self.schema_change_key = (
            SchemaBuilder.struct()
            .name(f"io.debezium.connector.{connector}.SchemaChangeKey")
            .version(1)
            .field("databaseName", Schema.STRING)
            .build()
        )
        self.schema_change_value = (
            SchemaBuilder.struct()
            .name(f"io.debezium.connector.{connector}.SchemaChangeValue")
            .version(1)
            .field("source", self.source_schema)
            .field("ts_ms", Schema.INT64)
            .field("databaseName", Schema.OPTIONAL_STRING)
            .field("schemaName", Schema.OPTIONAL_STRING)
            .field("ddl", Schema.OPTIONAL_STRING)
            .field("tableChanges", SchemaBuilder.array(_HISTORY_CHANGE).build())
            .build()
        )
        self.tx_topic = f"{settings.prefix}{d}{settings.tx_topic}"
        self.heartbeat_topic = f"{settings.heartbeat_topic}{d}{settings.prefix}"

    def table_schema(self, table: Table) -> TableSchema:
        s = self.settings
        prefix = f"{s.prefix}.{table.db}.{table.name}"
        flt = s.filters
        value_positions = [
            i for i, c in enumerate(table.columns) if flt.column(table.db, table.name, c.name)
        ]
        key_names = s.key_columns_for(table.db, table.name) or table.primary_key
        by_name = {c.name.lower(): i for i, c in enumerate(table.columns)}
        key_positions = [by_name[k.lower()] for k in key_names if k.lower() in by_name]
        positions = value_positions + [k for k in key_positions if k not in value_positions]
        value_builder = SchemaBuilder.struct().name(prefix + ".Value")
        converters: list[Callable[[Any], Any] | None] = []
        field_schemas: dict[int, Schema] = {}
        for i in positions:
            column = table.columns[i]
            fs = field_schema(column, **self.modes)
            mapper = self._mapper(table, column)
            if mapper is not None and mapper[0] != "truncate":
                # Debezium's MaskStrings marks the field: parameter masked=true.
                fs = _with_parameter(fs, "masked", "true")
            field_schemas[i] = fs
            converters.append(self._converter(table, column, fs))
        for i in value_positions:
            value_builder.field(table.columns[i].name, field_schemas[i])
        value_schema = value_builder.optional().build()
        key_schema: Schema | None = None
        if key_positions:
            key_builder = SchemaBuilder.struct().name(prefix + ".Key")
            for i in key_positions:
                column = table.columns[i]
                # A key column is never optional in the key, as in Debezium's key schema.
                key_builder.field(column.name, _required(field_schemas[i]))
            key_schema = key_builder.build()
        envelope = (
            SchemaBuilder.struct()
            .name(prefix + ".Envelope")
            .version(2)
            .field("before", value_schema)
            .field("after", value_schema)
            .field("source", self.source_schema)
            .field("transaction", _TX_BLOCK)
            .field("op", Schema.STRING)
            .field("ts_ms", Schema.OPTIONAL_INT64)
            .field("ts_us", Schema.OPTIONAL_INT64)
            .field("ts_ns", Schema.OPTIONAL_INT64)
            .build()
        )
        return TableSchema(
            table=table,
            topic=prefix,
            key_schema=key_schema,
            value_schema=value_schema,
            envelope_schema=envelope,
            positions=positions,
            value_count=len(value_positions),
            key_indexes=[positions.index(k) for k in key_positions],
            converters=converters,
        )

    def _mapper(self, table: Table, column: Column) -> tuple[str, Any] | None:
        """The first column mapping rule matching the column, in Debezium's order.

        Debezium's ColumnMappers take the first matching rule of: truncations, masks with
        ``*``, hash masks v2, hash masks; they apply to character columns only.
        """
        if column.jdbc_type not in _CHARACTER_JDBC_TYPES:
            return None
        full = f"{table.db}.{table.name}.{column.name}"
        s = self.settings
        for pattern, n in s.truncations:
            if pattern.fullmatch(full):
                return "truncate", n
        for pattern, n in s.masks:
            if pattern.fullmatch(full):
                return "mask", n
        for rule in s.hash_masks:
            if rule.pattern.fullmatch(full):
                return "hash", rule
        return None

    def _converter(
        self, table: Table, column: Column, schema: Schema
    ) -> Callable[[Any], Any] | None:
        conv = value_converter(column, schema, **self.modes)
        mapper = self._mapper(table, column)
        if mapper is None:
            return conv
        kind, arg = mapper
        if kind == "truncate":
            return _truncate(conv, arg)
        if kind == "mask":
            return _mask(arg)
        return _hash(conv, arg, column.length or 0)

    def source_values(
        self,
        *,
        ts_ms: int,
        snapshot: str | None,
        db: str,
        table: str | None,
        server_id: int,
        gtid: str | None,
        file: str,
        pos: int,
        row: int,
        thread: int | None,
        query: str | None,
    ) -> list[Any]:
        """A source block's values in field order (``make_source`` makes the block): callers
        that make one block per row copy these and set the row."""
        return [
            DEBEZIUM_VERSION,
            self.connector,
            self.settings.prefix,
            ts_ms,
            snapshot,
            db,
            None,
            ts_ms * 1000,
            ts_ms * 1_000_000,
            table,
            server_id,
            gtid,
            file,
            pos,
            row,
            thread,
            query,
        ]

    def envelope(
        self,
        ts: TableSchema,
        op: str,
        before: Struct | None,
        after: Struct | None,
        source: Struct,
        *,
        tx: Struct | None = None,
    ) -> Struct:
        ms, us, ns = processing_time()
        return ts.make_envelope([before, after, source, tx, op, ms, us, ns])

    def tx_block(self, tx_id: str, total: int, per_table: int) -> Struct:
        return _make_tx_block([tx_id, total, per_table])

    def tx_event(
        self, status: str, tx_id: str, ts_ms: int, counts: dict[str, int] | None
    ) -> tuple[Schema, Struct, Schema, Struct]:
        collections = None
        total = None
        if counts is not None:
            collections = [make_struct(_TX_COLLECTION, [name, n]) for name, n in counts.items()]
            total = sum(counts.values())
        return (
            _TX_KEY,
            make_struct(_TX_KEY, [tx_id]),
            _TX_VALUE,
            make_struct(_TX_VALUE, [status, tx_id, total, collections, ts_ms]),
        )

    def heartbeat(self) -> tuple[Schema, Struct, Schema, Struct]:
        return (
            _HEARTBEAT_KEY,
            make_struct(_HEARTBEAT_KEY, [self.settings.prefix]),
            _HEARTBEAT_VALUE,
            make_struct(_HEARTBEAT_VALUE, [int(time.time() * 1000)]),
        )

    def schema_change(
        self, source: Struct, db: str, ddl: str, changes: list[dict[str, Any]]
    ) -> tuple[Schema, Struct, Schema, Struct]:
        structs = []
        for change in changes:
            table_doc = change.get("table")
            table_struct = None
            if table_doc is not None:
                cols = [
                    make_struct(
                        _HISTORY_COLUMN,
                        [
                            c["name"],
                            c["jdbcType"],
                            c.get("nativeType"),
                            c["typeName"],
                            c.get("typeExpression"),
                            c.get("charsetName"),
                            c.get("length"),
                            c.get("scale"),
                            c["position"],
                            c.get("optional"),
                            c.get("autoIncremented"),
                            c.get("generated"),
                            c.get("comment"),
                            c.get("defaultValueExpression"),
                            # The history's empty list is the topic's null.
                            c.get("enumValues") or None,
                        ],
                    )
                    for c in table_doc["columns"]
                ]
                table_struct = make_struct(
                    _HISTORY_TABLE,
                    [
                        table_doc.get("defaultCharsetName"),
                        table_doc.get("primaryKeyColumnNames"),
                        cols,
                        change.get("comment", table_doc.get("comment")),
                    ],
                )
            structs.append(
                make_struct(_HISTORY_CHANGE, [change["type"], change["id"], table_struct])
            )
        value = make_struct(
            self.schema_change_value,
            [source, int(time.time() * 1000), db, None, ddl, structs],
        )
        return (
            self.schema_change_key,
            make_struct(self.schema_change_key, [db]),
            self.schema_change_value,
            value,
        )


def _with_parameter(schema: Schema, name: str, value: str) -> Schema:
    return schema.replace(parameters={**(schema.parameters or {}), name: value})


def _required(schema: Schema) -> Schema:
    return schema.replace(optional=False) if schema.optional else schema


def _truncate(inner: Callable[[Any], Any] | None, n: int) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if inner is not None:
            value = inner(value)
        return value[:n] if isinstance(value, str) else value

    return convert


def _hash(inner: Callable[[Any], Any] | None, rule: HashMask, length: int) -> Callable[[Any], Any]:
    """Debezium's MaskStrings hashing: hex digest of salt + value, cut to the column length.

    v1 hashes the value as Java's ObjectOutputStream writes a String (stream header, then
    the string in modified UTF-8 behind its length); v2 hashes its UTF-8 bytes.
    """
    algorithm, salt, v2 = rule.algorithm, rule.salt, rule.v2

    def convert(value: Any) -> Any:
        if inner is not None:
            value = inner(value)
        if value is None:
            return None
        text = str(value)
        digest = hashlib.new(algorithm, salt)
        digest.update(text.encode("utf-8") if v2 else _java_serialized_string(text))
        out = digest.hexdigest()
        return out[:length] if length > 0 else out

    return convert


def _java_serialized_string(text: str) -> bytes:
    """``ObjectOutputStream.writeObject(text)`` bytes: magic, version, TC_STRING/TC_LONGSTRING."""
    # Modified UTF-8: UTF-16 code units each as UTF-8 (surrogates included), NUL as C0 80.
    units = "".join(
        ch
        if ord(ch) <= 0xFFFF
        else chr(0xD800 + ((ord(ch) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(ch) - 0x10000) & 0x3FF))
        for ch in text
    )
    body = units.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")
    if len(body) <= 0xFFFF:
        return b"\xac\xed\x00\x05\x74" + len(body).to_bytes(2, "big") + body
    return b"\xac\xed\x00\x05\x7c" + len(body).to_bytes(8, "big") + body


def _mask(n: int) -> Callable[[Any], Any]:
    masked = "*" * n
    return lambda value: None if value is None else masked
