"""One table (or the query) of a task: the SQL each mode issues, records and their offsets.

The SQL, source partitions, offset maps and topics are those of Confluent's BulkTableQuerier,
TimestampIncrementingTableQuerier and TimestampTableQuerier, so offsets move between the two.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import logging
from collections.abc import Mapping
from typing import Any, Final

from kconnect_sdk import ConnectError, DataError, Schema, SchemaBuilder, SourceRecord, struct_maker
from kconnect_sdk.java import EPOCH_DATETIME

from ._column import Column
from ._config import (
    MODE_BULK,
    MODE_INCREMENTING,
    MODE_TIMESTAMP,
    MODE_TIMESTAMP_INCREMENTING,
)
from ._dialect import Dialect, TableId
from ._granularity import CONNECT_LOGICAL, Granularity
from ._mapping import RowMapping, map_columns

__all__ = ["Querier"]

log = logging.getLogger(__name__)

INCREMENTING_FIELD: Final = "incrementing"
TIMESTAMP_FIELD: Final = "timestamp"
TIMESTAMP_NANOS_FIELD: Final = "timestamp_nanos"
TABLE_NAME_KEY: Final = "table"
PROTOCOL_KEY: Final = "protocol"
PROTOCOL_V1: Final = "1"
QUERY_NAME_KEY: Final = "query"
QUERY_NAME_VALUE: Final = "query"

_ONE_US: Final = dt.timedelta(microseconds=1)


def timestamp_to_offset(value: dt.datetime) -> tuple[int, int]:
    """(epoch ms, nanos of second) as java.sql.Timestamp's getTime() and getNanos() give.

    A naive datetime is UTC, as everywhere in the SDK.
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    micros = (value - EPOCH_DATETIME) // _ONE_US
    return micros // 1000, (micros % 1_000_000) * 1000


def offset_to_timestamp(millis: int, nanos: int | None) -> dt.datetime:
    seconds = millis // 1000
    micros = (millis % 1000) * 1000 if nanos is None else int(nanos) // 1000
    return EPOCH_DATETIME + dt.timedelta(seconds=seconds, microseconds=micros)


def _as_long(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConnectError(f"offset field {what!r} is {value!r}, not a number")
    return int(value)


class Criteria:
    """The WHERE clause of the incremental modes and the offset values a row carries, as
    Confluent's TimestampIncrementingCriteria: rows after (timestamp, incrementing) in
    (timestamp, incrementing) order.

    ``granularity`` is the form the record's TIMESTAMP fields take (``timestamp.granularity``)
    and ``zone`` the ``db.timezone`` its ISO text is local to.
    """

    def __init__(
        self,
        dialect: Dialect,
        table: TableId | None,
        incrementing_column: str | None,
        timestamp_columns: list[str],
        *,
        granularity: Granularity = CONNECT_LOGICAL,
        zone: dt.tzinfo = dt.UTC,
    ) -> None:
        self.dialect = dialect
        self.table = table
        self.incrementing_column = incrementing_column
        self.timestamp_columns = timestamp_columns
        self.granularity = granularity
        self.zone = zone

    def timestamp_of(self, value: Any) -> dt.datetime | None:
        """A timestamp field's value (in the granularity's form) as the instant it holds.

        Raises:
            ConnectError: the value is not of the granularity's form.
        """
        return self.granularity.to_timestamp(value, self.zone)

    @property
    def _name(self) -> str:
        return self.table.fqn if self.table is not None else "query"

    def _column_sql(self, name: str) -> str:
        quoted = self.dialect.quote(name)
        if self.table is None:
            return quoted
        return f"{self.dialect.table_sql(self.table)}.{quoted}"

    def _timestamp_sql(self) -> str:
        cols = [self.dialect.timestamp_sql(self._column_sql(c)) for c in self.timestamp_columns]
        return cols[0] if len(cols) == 1 else f"COALESCE({','.join(cols)})"

    def _incrementing_sql(self) -> str:
        if not self.incrementing_column:
            raise ConnectError(
                f"no incrementing column for {self._name}: set incrementing.column.name or "
                "give the table an auto-increment column"
            )
        return self._column_sql(self.incrementing_column)

    def incrementing_where_clause(self) -> str:
        inc, p = self._incrementing_sql(), self.dialect.placeholder()
        return f" WHERE {inc} > {p} ORDER BY {inc} ASC"

    def timestamp_where_clause(self) -> str:
        ts, p = self._timestamp_sql(), self.dialect.placeholder()
        return f" WHERE {ts} > {p} AND {ts} < {p} ORDER BY {ts} ASC"

    def timestamp_incrementing_where_clause(self) -> str:
        ts, inc, p = self._timestamp_sql(), self._incrementing_sql(), self.dialect.placeholder()
        return (
            f" WHERE {ts} < {p} AND (({ts} = {p} AND {inc} > {p}) OR {ts} > {p})"
            f" ORDER BY {ts},{inc} ASC"
        )

    def field_index(self, schema: Schema, name: str, what: str) -> int:
        """The index of column ``name`` in ``schema``: the exact name, else the one field
        that matches it ignoring case.

        Raises:
            DataError: no field, or several fields differing only in case, match ``name``.
        """
        fields = schema.fields
        for f in fields:
            if f.name == name:
                return f.index
        matches = [f for f in fields if f.name.lower() == name.lower()]
        if len(matches) == 1:
            return matches[0].index
        known = ",".join(f.name for f in fields)
        if matches:
            raise DataError(
                f"{what} column {name} not found in {known} of {self._name}, and several "
                f"columns match it ignoring case ({','.join(f.name for f in matches)}): "
                "name the column with its exact case"
            )
        raise DataError(f"{what} column {name} not found in {known} of {self._name}")

    def timestamp_indexes(self, schema: Schema) -> list[int]:
        """The fields of the timestamp columns: every one must exist, even behind a column
        that is never null, as Confluent's."""
        return [self.field_index(schema, n, "Timestamp") for n in self.timestamp_columns]

    def incrementing_index(self, schema: Schema) -> int | None:
        """The field of the incrementing column; None when there is none."""
        if not self.incrementing_column:
            return None
        return self.field_index(schema, self.incrementing_column, "Incrementing")

    def timestamp_at(self, values: list[Any], indexes: list[int]) -> dt.datetime | None:
        """A row's timestamp offset: its first non-null timestamp column (COALESCE)."""
        for i in indexes:
            v = values[i]
            if v is not None:
                if self.granularity.logical:
                    moment: dt.datetime = v
                    return moment
                return self.timestamp_of(v)
        return None

    def incrementing_at(self, values: list[Any], index: int) -> int:
        """A row's incrementing offset, as the long Confluent's offset holds."""
        assert self.incrementing_column is not None
        return incrementing_value(values[index], self.incrementing_column, self._name)

    def extract_values(
        self, schema: Schema, values: list[Any]
    ) -> tuple[dt.datetime | None, int | None]:
        """The (timestamp, incrementing) offset values of one row's struct values: the first
        non-null timestamp column, and the incrementing column as a long."""
        timestamp = self.timestamp_at(values, self.timestamp_indexes(schema))
        index = self.incrementing_index(schema)
        return timestamp, None if index is None else self.incrementing_at(values, index)


def incrementing_value(value: Any, column: str, where: str) -> int:
    """An incrementing column's value as the long Confluent's offset holds."""
    if value is None:
        raise ConnectError(f"{where}: null value in incrementing column {column!r}")
    if type(value) is int:
        return value
    if isinstance(value, decimal.Decimal):
        if value > 0x7FFFFFFFFFFFFFFF:
            raise ConnectError("Decimal value for incrementing column exceeded Long.MAX_VALUE")
        exponent = value.as_tuple().exponent
        if exponent != 0:
            raise ConnectError("Scale of Decimal value for incrementing column must be 0")
        return int(value)
    if isinstance(value, int):
        return int(value)
    raise ConnectError(
        f"{where}: invalid type for incrementing column {column!r}: {type(value).__name__}"
    )


class Querier:
    """Reads one table (or the configured query) in one mode, a batch at a time.

    A query stays open across polls until its result is exhausted, so a big table is read
    ``batch.max.rows`` rows at a time through a streaming cursor; then the querier waits
    ``poll.interval.ms`` before it queries again.
    """

    def __init__(
        self,
        *,
        dialect: Dialect,
        mode: str,
        table: TableId | None,
        query: str | None,
        topic_prefix: str,
        suffix: str,
        timestamp_columns: list[str],
        incrementing_column: str | None,
        offset: Mapping[str, Any] | None,
        delay_ms: int,
        numeric_mapping: str,
        key_columns: list[str] | None,
        tolerate_errors: bool = False,
        granularity: Granularity = CONNECT_LOGICAL,
    ) -> None:
        self.dialect = dialect
        self.tolerate_errors = tolerate_errors
        self.mode = mode
        self.table = table
        self.query = query
        self.suffix = suffix
        self.timestamp_columns = [c for c in timestamp_columns if c]
        self.incrementing_column = incrementing_column
        self.delay = dt.timedelta(milliseconds=delay_ms)
        self.numeric_mapping = numeric_mapping
        self.key_columns = key_columns
        if table is not None:
            self.topic = topic_prefix + table.table
            if mode == MODE_BULK:
                # BulkTableQuerier still writes the protocol-0 partition.
                self.partition: dict[str, str] = {TABLE_NAME_KEY: table.table}
            else:
                self.partition = {TABLE_NAME_KEY: table.fqn, PROTOCOL_KEY: PROTOCOL_V1}
            self.schema_name: str | None = table.table
        else:
            self.topic = topic_prefix
            self.partition = {QUERY_NAME_KEY: QUERY_NAME_VALUE}
            self.schema_name = None
        offset = offset or {}
        millis = _as_long(offset.get(TIMESTAMP_FIELD), TIMESTAMP_FIELD)
        nanos = _as_long(offset.get(TIMESTAMP_NANOS_FIELD), TIMESTAMP_NANOS_FIELD)
        self.last_timestamp: dt.datetime | None = (
            None if millis is None else offset_to_timestamp(millis, nanos)
        )
        self.last_incrementing: int | None = _as_long(
            offset.get(INCREMENTING_FIELD), INCREMENTING_FIELD
        )
        # Timestamp mode's last committable timestamp: Confluent starts it at the epoch.
        self._committable: dt.datetime | None = self.last_timestamp
        self._start_offset = (self.last_timestamp, self.last_incrementing)
        self.conn: Any = None
        self.cursor: Any = None
        self.mapping: RowMapping | None = None
        self._pending: tuple[Any, ...] | None = None
        self._ts_indexes: list[int] = []
        self._ts_columns: list[Column] = []
        self._mixed_zones = False
        self._inc_index: int | None = None
        self._key: tuple[Schema, tuple[int, ...]] | None = None
        self._sql: str | None = None
        self.next_run = 0.0
        self.exhausted = True
        self.criteria = Criteria(
            dialect,
            table,
            incrementing_column
            if mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)
            else None,
            self.timestamp_columns,
            granularity=granularity,
            zone=dialect.zone,
        )
        self.granularity = granularity

    @property
    def name(self) -> str:
        return self.table.fqn if self.table is not None else "query"

    # -- SQL -------------------------------------------------------------------------------

    def build_sql(self) -> tuple[str, bool]:
        """The SQL text of this querier's query, and whether it takes parameters."""
        if self.table is not None:
            base = f"SELECT * FROM {self.dialect.table_sql(self.table)}"
        else:
            assert self.query is not None
            base = self.query
        if self.mode == MODE_BULK:
            sql, params = base, False
        else:
            base = self.dialect.escape_percent(base)
            if self.mode == MODE_INCREMENTING:
                where = self.criteria.incrementing_where_clause()
            elif self.mode == MODE_TIMESTAMP:
                where = self.criteria.timestamp_where_clause()
            else:
                where = self.criteria.timestamp_incrementing_where_clause()
            sql, params = base + where, True
        if self.suffix:
            sql += " " + (self.dialect.escape_percent(self.suffix) if params else self.suffix)
        return sql, params

    def _parameters(self, conn: Any) -> list[Any]:
        ts_column = self._ts_columns[0] if self._ts_columns else None
        begin = self.last_timestamp or EPOCH_DATETIME
        inc = self.last_incrementing if self.last_incrementing is not None else -1
        if self.mode == MODE_INCREMENTING:
            return [inc]
        end = self.dialect.current_time(conn) - self.delay
        bind = self.dialect.bind_timestamp
        if self.mode == MODE_TIMESTAMP:
            return [bind(begin, ts_column), bind(end, ts_column)]
        return [bind(end, ts_column), bind(begin, ts_column), inc, bind(begin, ts_column)]

    # -- reading ---------------------------------------------------------------------------

    def start_query(self, conn: Any) -> None:
        if self._sql is None:
            self._sql, _ = self.build_sql()
            log.info("%s: prepared SQL query: %s", self.name, self._sql)
        sql = self._sql
        params = None if self.mode == MODE_BULK else self._parameters(conn)
        self.cursor = self.dialect.open_cursor(conn, sql, params)
        self.conn = conn
        columns = self.dialect.describe(conn, self.cursor, self.table, self.timestamp_columns)
        mapping = map_columns(
            self.schema_name,
            columns,
            self.numeric_mapping,
            self.dialect,
            granularity=self.granularity,
        )
        if self.mapping is None or mapping.schema != self.mapping.schema:
            self._prepare(mapping)
        self.mapping = mapping
        self._start_offset = (self.last_timestamp, self.last_incrementing)
        self._pending = None
        self.exhausted = False

    def _field_index(self, mapping: RowMapping, name: str, what: str) -> int:
        return self.criteria.field_index(mapping.schema, name, what)

    def _prepare(self, mapping: RowMapping) -> None:
        self._ts_indexes = self.criteria.timestamp_indexes(mapping.schema)
        self._ts_columns = [mapping.columns[i] for i in self._ts_indexes]
        self._mixed_zones = len({c.instant for c in self._ts_columns}) > 1
        self._inc_index = self.criteria.incrementing_index(mapping.schema)
        self._key = None
        if self.key_columns:
            indexes = tuple(self._field_index(mapping, c, "Primary key") for c in self.key_columns)
            builder = SchemaBuilder.struct()
            for i in indexes:
                field = mapping.schema.fields[i]
                builder.field(field.name, field.schema)
            self._key = (builder.build(), indexes)

    def read(self, max_rows: int) -> list[SourceRecord]:
        """Up to ``max_rows`` records of the open query; sets ``exhausted`` at its end."""
        # The cyclic collector is the runtime's business: it raises the young-generation
        # threshold for record batches for every task of the process (apply_gc_policy), where
        # a plugin switching it off and on would race with the other tasks' threads.
        return self._read(max_rows)

    def _read(self, max_rows: int) -> list[SourceRecord]:
        cursor, mapping = self.cursor, self.mapping
        assert cursor is not None and mapping is not None
        # Read one row ahead, so a batch that ends the result says so (the table's turn ends
        # with its last row, not one empty read later), and because in timestamp mode whether
        # a row's timestamp may be committed depends on the row after it. The batch itself is
        # max_rows rows.
        ahead = [self._pending] if self._pending is not None else []
        rows = ahead + list(cursor.fetchmany(max_rows + 1 - len(ahead)))
        more = len(rows) > max_rows
        self._pending = rows.pop() if more else None
        if not more:
            self.exhausted = True
        return self._records(rows, last_is_final=not more)

    def _convert(self, rows: list[Any]) -> list[list[Any]]:
        """Each row as the list of its struct's values."""
        mapping = self.mapping
        assert mapping is not None
        indexes = mapping.indexes
        if rows and len(rows[0]) == len(indexes):
            values_of = [list(row) for row in rows]
        else:
            values_of = [[row[i] for i in indexes] for row in rows]
        bad: set[int] = set()
        for i, convert in mapping.converters:
            for j, values in enumerate(values_of):
                v = values[i]
                if v is not None:
                    try:
                        values[i] = convert(v)
                    except Exception as exc:
                        field = mapping.schema.fields[i]
                        error = DataError(
                            f"{self.name}: cannot convert column {field.name!r} value "
                            f"{v!r:.80} to {field.schema.type.value}: {exc}"
                        )
                        if not self.tolerate_errors:
                            raise error from exc
                        if j not in bad:
                            log.error("Skipping a row (errors.tolerance=all): %s", error)
                        bad.add(j)
        if bad:
            values_of = [v for j, v in enumerate(values_of) if j not in bad]
        return values_of

    def _records(self, rows: list[Any], *, last_is_final: bool) -> list[SourceRecord]:
        mapping = self.mapping
        assert mapping is not None
        schema = mapping.schema
        values_of = self._convert(rows)
        mode = self.mode
        offsets: list[dict[str, Any] | None]
        if mode == MODE_BULK:
            offsets = [None] * len(values_of)
        elif mode == MODE_INCREMENTING:
            index = self._inc_index
            assert index is not None
            at = self.criteria.incrementing_at
            incs = [at(values, index) for values in values_of]
            if incs:
                self.last_incrementing = incs[-1]
            offsets = [{INCREMENTING_FIELD: inc} for inc in incs]
        else:
            offsets = self._timestamp_offsets(values_of)
        topic, partition = self.topic, self.partition
        # Structs over values already converted for the schema: no per-field checks.
        make_value = struct_maker(schema)
        key_schema, key_indexes = self._key or (None, ())
        make_key = None if key_schema is None else struct_maker(key_schema)
        out: list[SourceRecord] = []
        append = out.append
        for values, offset in zip(values_of, offsets, strict=True):
            struct = make_value(values)
            if make_key is None:
                append(
                    SourceRecord(
                        topic=topic,
                        value_schema=schema,
                        value=struct,
                        source_partition=partition,
                        source_offset=offset,
                    )
                )
            else:
                append(
                    SourceRecord(
                        topic=topic,
                        key_schema=key_schema,
                        key=make_key([values[i] for i in key_indexes]),
                        value_schema=schema,
                        value=struct,
                        source_partition=partition,
                        source_offset=offset,
                    )
                )
        return out

    def _timestamp_offsets(self, values_of: list[list[Any]]) -> list[dict[str, Any] | None]:
        offsets: list[dict[str, Any] | None] = []
        mode = self.mode
        n = len(values_of)
        for j, values in enumerate(values_of):
            offset: dict[str, Any] = {}
            if self._inc_index is not None:
                self.last_incrementing = self.criteria.incrementing_at(values, self._inc_index)
            ts = self._timestamp_value(values)
            if mode == MODE_TIMESTAMP:
                if j + 1 < n:
                    following = self._timestamp_value(values_of[j + 1])
                elif self._pending is not None:
                    following = self._pending_timestamp()
                else:
                    following = None
                if ts is None or following is None or ts < following:
                    self._committable = ts
                self.last_timestamp = self._committable
                ms, ns = timestamp_to_offset(self._committable or EPOCH_DATETIME)
                offset = {TIMESTAMP_FIELD: ms, TIMESTAMP_NANOS_FIELD: ns}
            else:
                self.last_timestamp = ts
                if ts is not None:
                    ms, ns = timestamp_to_offset(ts)
                    offset[TIMESTAMP_FIELD] = ms
                    offset[TIMESTAMP_NANOS_FIELD] = ns
            if self._inc_index is not None:
                offset[INCREMENTING_FIELD] = self.last_incrementing
            offsets.append(offset)
        return offsets

    def _pending_timestamp(self) -> dt.datetime | None:
        """The timestamp of the row read ahead, converting only the field it comes from."""
        assert self._pending is not None and self.mapping is not None
        mapping = self.mapping
        values: list[Any] = [None] * len(mapping.indexes)
        for i in self._ts_indexes:
            v = self._pending[mapping.indexes[i]]
            if v is not None:
                convert = dict(mapping.converters).get(i)
                values[i] = v if convert is None else convert(v)
                break
        return self._timestamp_value(values)

    def _timestamp_value(self, values: list[Any]) -> dt.datetime | None:
        value = self.criteria.timestamp_at(values, self._ts_indexes)
        if value is not None and value.tzinfo is None and self._mixed_zones:
            # COALESCE over naive (UTC) and aware columns: compare as aware.
            return value.replace(tzinfo=dt.UTC)
        return value

    def end_query(self) -> None:
        """Close the open query and end its transaction."""
        cursor, self.cursor = self.cursor, None
        if cursor is not None and self.conn is not None:
            self.dialect.end_query(self.conn, cursor)
        self._pending = None
        self.exhausted = True

    def close_cursor(self) -> None:
        """Close the open query's cursor, if any, without ending its transaction (the
        connection is about to be dropped)."""
        cursor, self.cursor = self.cursor, None
        if cursor is not None:
            with contextlib.suppress(Exception):
                cursor.close()

    def reset(self) -> None:
        """After a failure: forget the open query and go back to the offset it started from."""
        self.cursor = None
        self._pending = None
        self.exhausted = True
        self.last_timestamp, self.last_incrementing = self._start_offset
        self._committable = self.last_timestamp
