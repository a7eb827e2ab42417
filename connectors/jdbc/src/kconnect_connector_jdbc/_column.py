"""A result column as JDBC's ResultSetMetaData describes it: what the type mapping reads.

Each dialect describes its results in these terms; the mapping to Connect schemas and
values switches on them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final

__all__ = ["SCALE_UNSET", "Column", "SqlType"]


class SqlType(enum.Enum):
    """The java.sql.Types a column reports, which Confluent's type mapping switches on."""

    BOOLEAN = "BOOLEAN"
    BIT = "BIT"
    TINYINT = "TINYINT"
    SMALLINT = "SMALLINT"
    INTEGER = "INTEGER"
    BIGINT = "BIGINT"
    REAL = "REAL"
    FLOAT = "FLOAT"
    DOUBLE = "DOUBLE"
    NUMERIC = "NUMERIC"
    DECIMAL = "DECIMAL"
    VARCHAR = "VARCHAR"
    BINARY = "BINARY"
    DATE = "DATE"
    TIME = "TIME"
    TIMESTAMP = "TIMESTAMP"
    OTHER = "OTHER"


SCALE_UNSET: Final = -127


@dataclass(frozen=True, slots=True)
class Column:
    """One result column as JDBC's ResultSetMetaData would describe it."""

    name: str
    sql_type: SqlType
    type_name: str
    precision: int = 0
    scale: int = 0
    signed: bool = True
    nullable: bool = True
    instant: bool = False
    """Timestamps: the value is an instant (timestamptz; MySQL TIMESTAMP read in UTC)
    rather than a wall-clock time in ``db.timezone``."""
    as_text: bool = False
    """OTHER columns read as text (json, jsonb, uuid...), as Confluent's PostgreSQL dialect."""
